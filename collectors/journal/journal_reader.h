#pragma once
// The sd-journal adapter under JournalFollower: one open journal directory,
// matched to the followed units, read forward entry by entry into marks.
// Kept apart from the follower's thread so tests and the bench drive it
// step by step.
#include <cstdint>
#include <functional>
#include <string>

#include "host/hung_task.h"
#include "journal/journal_marks.h"

struct sd_journal;

namespace plegscope {

struct JournalFollowerOptions;

// Not thread-safe: sd_journal handles must stay on one thread; the owner
// calls every method from that thread.
class JournalReader {
 public:
  explicit JournalReader(const JournalFollowerOptions& options);
  ~JournalReader();
  JournalReader(const JournalReader&) = delete;
  JournalReader& operator=(const JournalReader&) = delete;

  // Opens `dir` and positions after the last entry read before (the cursor
  // kept across reopens), else at since_usec (realtime). "" on success, else
  // a one-line error naming the directory.
  std::string open(const std::string& dir, int64_t since_usec);
  void close();
  bool is_open() const { return journal_ != nullptr; }

  struct ReadResult {
    size_t entries = 0;  // entries read (each one of the followed units)
    int error = 0;       // a negative errno from sd-journal, 0 when fine
  };
  // Reads at most max_entries new entries, calling on_mark for each mark;
  // kernel lines go to hung_tasks().
  ReadResult read(size_t max_entries, const std::function<void(JournalMark&&)>& on_mark);

  // The inotify fd to poll for POLLIN (sd_journal_get_fd), -1 when closed.
  int fd() const { return fd_; }
  // The longest wait sd-journal allows before a re-read (it polls files it
  // cannot watch), in microseconds; UINT64_MAX for "as long as you like".
  uint64_t wait_limit_usec() const;
  // Tells sd-journal the fd woke (sd_journal_process): picks up new,
  // rotated and deleted files.
  void process();

  // The kernel's hung-task reports read so far (kept across reopens: the
  // cursor resumes where the last read ended).
  const host::HungTaskAssembler& hung_tasks() const { return hung_tasks_; }
  uint64_t kernel_lines() const { return kernel_lines_; }

 private:
  const JournalFollowerOptions& options_;
  sd_journal* journal_ = nullptr;
  int fd_ = -1;
  std::string cursor_;  // of the last entry read, for a reopen
  host::HungTaskAssembler hung_tasks_;
  uint64_t kernel_lines_ = 0;
};

}  // namespace plegscope
