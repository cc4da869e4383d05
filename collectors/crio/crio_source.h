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

struct CrioPagesOptions {
  std::string socket;  // the CRI-O socket ("unix://" optional); empty: off
  std::string proc_path = "/proc";
  Duration period = std::chrono::seconds(10);
  size_t max_containers = 16;  // pages read per period, at most
  std::chrono::milliseconds timeout{5000};
};

// Thread-safe.
class CrioPagesSource final : public SourceOf<CrioPagesEvidence> {
 public:
  // `candidates` answers, on the waiting lane, the ids of the containers
  // CRI lists as running whose conmon the last host scan did not find.
  using Candidates = std::function<std::vector<std::string>()>;
  // `reads_crio` answers whether the runtime on the socket is CRI-O (its
  // Version's name): the pages are CRI-O's, so another runtime's socket is
  // never asked for them, wherever either socket lives.
  using ReadsCrio = std::function<bool()>;
  CrioPagesSource(CrioPagesOptions options, Candidates candidates, ReadsCrio reads_crio = {});

  std::string_view name() const override { return "crio_pages"; }
  bool enabled() const override { return !options_.socket.empty(); }
  void start(SourceLanes lanes) override;
  void stop() override { stopping_ = true; }
  CrioPagesEvidence evidence() const override;

  // One period on the calling thread (tests call it directly).
  void refresh();
  // Whether the pages are CRI-O's to read now.
  bool reads_crio() const { return enabled() && (!reads_crio_ || reads_crio_()); }
  // CRI-O's goroutine dump, asked for by a person through the report; the
  // error's one line when it cannot be read.
  HttpResult goroutines() const;

 private:
  void read_container(const std::string& id, const CrioPagesEvidence& before, CrioPagesEvidence& out);

  const CrioPagesOptions options_;
  const Candidates candidates_;
  const ReadsCrio reads_crio_;
  mutable std::mutex mu_;
  CrioPagesEvidence evidence_;
  std::atomic<bool> stopping_{false};
};

}  // namespace plegscope
