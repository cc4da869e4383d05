#pragma once
// CRI-O's own pages on its CRI socket as a source: /info once it answers
// (storage and cgroup driver), and /containers/<id> for the few containers
// CRI-O lists as running whose conmon the host scan does not find. CRI-O
// learns a container's exit only from the exit file its conmon writes, so a
// container whose conmon died stays "running" in every CRI answer; its page
// says what CRI-O still holds (the init pid, the sandbox), and <proc>/<pid>
// says whether that process still lives. The goroutine dump is read only on
// demand (goroutines()), never on a timer; the pages that act (pause,
// unpause) and the heap profile have no name in crio_pages.h.
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/source.h"
#include "crio/crio_evidence.h"
#include "crio/crio_pages.h"

namespace plegscope {

// The socket is the CRI socket, read only while the host is scanned (the
// pages explain what the scan finds), and <proc> is the host's
// (SourceContext): neither is an option of its own.
struct CrioPagesOptions {
  Duration period = std::chrono::seconds(10);
  size_t max_containers = 16;  // pages read per period, at most
  std::chrono::milliseconds timeout{5000};
};
// No flags: the pages are read wherever the runtime is CRI-O and the host is scanned.
inline void add_flags(CLI::App&, CrioPagesOptions&) {}

// What the pages need from the rest of the node, answered by a pure join
// over the runtime's name, the host scan and the pod cache
// (agent/node/source_joins.h).
struct CrioPagesAsks {
  // Whether the runtime on the socket is CRI-O (its Version's name): the
  // pages are CRI-O's, so another runtime's socket is never asked for them,
  // wherever either socket lives.
  bool reads_crio = false;
  // The containers CRI lists as running whose conmon the last host scan did
  // not find (only asked while reads_crio).
  std::vector<std::string> candidates;
};

// Thread-safe.
class CrioPagesSource final : public SourceOf<CrioPagesEvidence> {
 public:
  using Options = CrioPagesOptions;
  using Asks = std::function<CrioPagesAsks()>;
  CrioPagesSource(const Options& options, const SourceContext& context);
  // Where the pages' needs are answered, on the waiting lane or a person's
  // request; set before start(). None: never CRI-O.
  void ask_with(Asks asks) { asks_ = std::move(asks); }

  std::string_view name() const override { return "crio_pages"; }
  bool enabled() const override { return !socket_.empty(); }
  void start(SourceLanes lanes) override;
  void stop() override { stopping_ = true; }
  CrioPagesEvidence evidence() const override;

  // One period on the calling thread (tests call it directly).
  void refresh();
  // Whether the pages are CRI-O's to read now.
  bool reads_crio() const { return enabled() && asks_ && asks_().reads_crio; }
  // CRI-O's goroutine dump, asked for by a person through the report; the
  // error's one line when it cannot be read.
  HttpResult goroutines() const;

 private:
  void read_container(const std::string& id, const CrioPagesEvidence& before, CrioPagesEvidence& out);

  const CrioPagesOptions options_;
  const std::string socket_;  // "" when off
  const std::string proc_path_;
  Asks asks_;
  mutable std::mutex mu_;
  CrioPagesEvidence evidence_;
  std::atomic<bool> stopping_{false};
};

}  // namespace plegscope
