#pragma once
// Maps runtime helpers to what they serve by reading /proc/<pid>/cmdline off
// the scanning thread. Reading cmdline takes the target's mmap lock and can
// block for as long as that lock is held (moby#15204: a process stuck in D
// with the lock held blocks `ps`), so the scan never reads it itself: a worker
// thread does (started when there is something to read, gone when the queue
// is empty), the scan waits a bounded time, and whatever is not back yet is
// "pending" for this scan and picked up by a later one. A read stuck longer
// than `stuck_after` marks that process "blocked" (never retried) and the
// worker is abandoned; a new one serves the rest, up to `max_stuck_workers`
// stuck at once, after which cmdline reads stop ("blocked" for every new helper).
// Answers are remembered per (pid, starttime): a helper's cmdline does not
// change, and a reused pid has another starttime.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/process_stat.h"

namespace plegscope::host {

struct CmdlineRequest {
  int64_t pid = 0;
  uint64_t starttime = 0;
  RuntimeRole role = RuntimeRole::kNone;
};

struct CmdlineAnswer {
  enum class Status { kKnown, kNoOwner, kUnreadable, kPending, kBlocked };
  Status status = Status::kPending;
  std::string owner_id;  // kKnown: the sandbox (shim) or container (conmon) id
  std::string address;   // a shim's -address (its containerd's socket); "" when it names none
  std::string name_space;  // a shim's -namespace; "" when it names none
};

// Thread-safe. Worker threads are detached on destruction (a stuck one may
// never return); they share the state through a shared_ptr.
class CmdlineReader {
 public:
  struct Options {
    std::chrono::milliseconds wait{50};
    std::chrono::milliseconds stuck_after{2000};
    int max_stuck_workers = 3;
  };
  CmdlineReader(std::string proc_path, Options options);
  ~CmdlineReader();
  CmdlineReader(const CmdlineReader&) = delete;
  CmdlineReader& operator=(const CmdlineReader&) = delete;

  // One answer per request, in order; waits at most options.wait in all.
  std::vector<CmdlineAnswer> resolve(const std::vector<CmdlineRequest>& requests);
  // Drops remembered answers for processes not in `alive` (exited helpers).
  void retain(const std::vector<CmdlineRequest>& alive);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace plegscope::host
