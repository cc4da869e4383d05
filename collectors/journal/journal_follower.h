#pragma once
// Follows the kubelet's and the runtime's units, and the kernel's own lines
// (for its hung-task reports), in the systemd journal
// through libsystemd's sd-journal (as node-problem-detector's journald
// watcher does): the directory is opened with sd_journal_open_directory,
// reading starts at "now minus a window" (later, after a reopen, at the last
// cursor), every entry is classified against the pattern table
// (journal_marks.h), and marks are kept in a bounded ring. Evidence only:
// nothing here acts on what it reads, and nothing is written.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/flag_declaration.h"
#include "common/fd_task.h"
#include "host/hung_task.h"
#include "journal/journal_marks.h"

namespace plegscope {

// Where journald keeps the journal: persistent first, then volatile.
const std::vector<std::string>& default_journal_paths();

// --journal-path when given (even if missing: the user asked for it), else
// the first default that is a directory; "" when none is.
std::string resolve_journal_path(
    const std::string& flag, const std::vector<std::string>& defaults = default_journal_paths());

struct JournalFollowerOptions {
  std::string journal_path;  // --journal-path; "" for the defaults
  std::vector<std::string> default_paths = default_journal_paths();
  UnitRoles units;                                   // kubelet and runtime units
  std::chrono::seconds lookback{15 * 60};            // first read starts this far back
  size_t max_marks = 256;                            // ring size; the oldest go first
  size_t max_message_bytes = 512;                    // a mark's message is cut to this
  size_t max_field_bytes = 64 * 1024;                // sd_journal_set_data_threshold
  size_t batch_entries = 512;                        // entries per read before re-checking stop
  std::chrono::milliseconds wait_timeout{1000};      // longest wait for inotify before re-reading
  std::chrono::milliseconds reopen_interval{10000};  // retry after "no journal" or an error
  // The kernel's own lines (_TRANSPORT=kernel), for its hung-task reports:
  // the newest max_hung_tasks, each trace bounded (host/hung_task.h).
  bool kernel = true;
  size_t max_hung_tasks = 16;
};

// --journal-path, --journal-kubelet-unit, --journal-runtime-units (journal_flags.cpp).
void add_flags(CLI::App& app, JournalFollowerOptions& options);

struct JournalStatus {
  bool available = false;          // the directory is open and being followed
  std::string path;                // the directory tried ("" when no default exists)
  std::string error;               // one line: "no journal at /var/log/journal or ...", ...
  uint64_t entries_read = 0;       // entries of the followed units and the kernel read (marks or not)
  uint64_t marks_total = 0;        // marks ever made
  uint64_t marks_dropped = 0;      // pushed out of the ring by newer ones
  uint64_t read_errors = 0;        // sd_journal calls that failed (each reopens from the cursor)
  double thread_cpu_seconds = 0;   // CPU time spent following (reading, classifying, publishing)
  std::vector<JournalMark> marks;  // oldest first, at most max_marks
  // The kernel's hung-task reports, oldest first, at most max_hung_tasks.
  uint64_t kernel_lines_read = 0;
  std::vector<host::HungTaskReport> hung_tasks;
  uint64_t hung_tasks_total = 0;
  uint64_t hung_tasks_dropped = 0;
  // The kernel stopped reporting hung tasks (kernel.hung_task_warnings ran
  // out) at this time (0: it did not, as far as the journal read says).
  int64_t hung_tasks_suppressed_since_usec = 0;
  bool hung_tasks_suppressed = false;
};

class JournalReader;

// Thread-safe: status() and wait_for() may be called from any thread while
// the follower reads. It reads on one thread only, since sd-journal objects
// are not thread-safe: either its own (start()), or as an FdTask served by
// a thread of the caller's (PeriodicTasks::serve), which then calls run()
// whenever the journal's inotify fd wakes or a re-read is due; never both.
// Either way the waits are on that fd with a timeout, never in an
// uninterruptible call, and one run() reads at most batch_entries entries,
// so the serving thread is never held longer than one batch. The times a
// mark carries are the journal entries' own, so a read that comes late
// (the serving thread busy with other work) reports the same marks.
class JournalFollower final : public FdTask {
 public:
  JournalFollower(JournalFollowerOptions options, const Clock& clock);
  ~JournalFollower() override;
  JournalFollower(const JournalFollower&) = delete;
  JournalFollower& operator=(const JournalFollower&) = delete;

  void start();  // spawns a thread of its own that serves it; once
  void stop();   // wakes and joins that thread; idempotent

  JournalStatus status() const;
  // Waits until pred(status) holds or timeout passes; true when it held.
  // Wakes on every change of the status (entries read, errors, opens).
  bool wait_for(const std::function<bool(const JournalStatus&)>& pred,
                std::chrono::milliseconds timeout) const;

  // FdTask, for the serving thread only.
  int fd() const override;
  Duration until_due() const override;
  // One step: (re)opens the journal when it is closed, else reads at most
  // one batch after telling sd-journal its fd woke; then sets when the next
  // step is due (at once after a full batch, after reopen_interval after an
  // error, else after wait_timeout or sd-journal's own limit).
  void run() override;

 private:
  void run_own_thread();
  void publish(const std::function<void(JournalStatus&)>& change);
  void step();
  // Opens the journal directory; false (and the reason published) when it cannot.
  bool open_journal(JournalReader& reader);

  const JournalFollowerOptions options_;
  const Clock& clock_;
  int stop_fd_ = -1;  // eventfd
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  bool started_ = false;

  // The serving thread's alone.
  std::unique_ptr<JournalReader> reader_;
  bool first_step_ = true;
  int64_t since_usec_ = 0;         // where the first read starts
  bool waiting_on_fd_ = false;     // the last step ended waiting for the fd
  // The next step at the latest, on the steady clock: the waits are poll()'s,
  // in real time; the injected clock gives only the wall time reading starts at.
  MonoTime due_{};
  uint64_t hung_generation_ = 0;
  bool own_thread_ = false;      // start() was called
  double cpu_seconds_ = 0;       // of the steps before this one (served)
  double step_cpu_start_ = 0;    // the serving thread's CPU time when this step began
  std::vector<JournalMark> batch_;

  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  JournalStatus status_;  // marks kept in status_.marks as a ring
};

}  // namespace plegscope
