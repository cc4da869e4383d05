#include "journal/journal_follower.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>

#include "journal/journal_reader.h"
#include "common/thread_name.h"

namespace plegscope {

const std::vector<std::string>& default_journal_paths() {
  static const std::vector<std::string> paths = {"/var/log/journal", "/run/log/journal"};
  return paths;
}

namespace {

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string joined_with_or(const std::vector<std::string>& paths) {
  std::string out;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i > 0) out += " or ";
    out += paths[i];
  }
  return out;
}

double thread_cpu_seconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

}  // namespace

std::string resolve_journal_path(const std::string& flag,
                                 const std::vector<std::string>& defaults) {
  if (!flag.empty()) return flag;
  for (const std::string& path : defaults) {
    if (is_directory(path)) return path;
  }
  return "";
}

JournalFollower::JournalFollower(JournalFollowerOptions options, const Clock& clock)
    : options_(std::move(options)), clock_(clock) {
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  status_.path = resolve_journal_path(options_.journal_path, options_.default_paths);
}

JournalFollower::~JournalFollower() {
  stop();
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void JournalFollower::start() {
  if (started_) return;
  started_ = true;
  own_thread_ = true;
  thread_ = std::thread([this] { run_own_thread(); });
}

void JournalFollower::stop() {
  stopping_ = true;
  if (stop_fd_ >= 0) {
    const uint64_t one = 1;
    ssize_t written = ::write(stop_fd_, &one, sizeof(one));
    (void)written;  // a full counter already means "stop"
  }
  if (thread_.joinable()) thread_.join();
}

JournalStatus JournalFollower::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

bool JournalFollower::wait_for(const std::function<bool(const JournalStatus&)>& pred,
                               std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return pred(status_); });
}

void JournalFollower::publish(const std::function<void(JournalStatus&)>& change) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    change(status_);
    // Its own thread's whole CPU time (waits included, as the bench has
    // always read it); served, the time of its steps alone, since the
    // serving thread's waits are shared with its other work.
    status_.thread_cpu_seconds =
        own_thread_ ? thread_cpu_seconds() : cpu_seconds_ + (thread_cpu_seconds() - step_cpu_start_);
  }
  changed_.notify_all();
}

int JournalFollower::fd() const { return waiting_on_fd_ && reader_ ? reader_->fd() : -1; }

Duration JournalFollower::until_due() const {
  if (first_step_) return Duration::zero();
  return due_ - MonotonicClock::now();
}

void JournalFollower::run() {
  step_cpu_start_ = thread_cpu_seconds();
  step();
  cpu_seconds_ += thread_cpu_seconds() - step_cpu_start_;
}

void JournalFollower::run_own_thread() {
  name_this_thread("journal");
  // The longest wait: stop() wakes it at once through the eventfd anyway.
  constexpr std::chrono::milliseconds kLongestWait{60000};
  while (!stopping_.load()) {
    pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {fd(), POLLIN, 0}};
    int r;
    do {
      r = ::poll(fds, fds[1].fd >= 0 ? 2 : 1, task_wait_ms(*this, kLongestWait));
    } while (r < 0 && errno == EINTR);
    // Without an eventfd (creation failed) stop is seen here, after the wait.
    if ((fds[0].revents & POLLIN) || stopping_.load()) return;
    serve_task_if_ready(*this, &fds[1]);
  }
}

bool JournalFollower::open_journal(JournalReader& reader) {
  const std::string path = resolve_journal_path(options_.journal_path, options_.default_paths);
  std::string error;
  if (path.empty()) {
    error = "no journal at " + joined_with_or(options_.default_paths);
  } else if (!is_directory(path)) {
    error = "no journal at " + path;
  } else {
    error = reader.open(path, since_usec_);
  }
  publish([&](JournalStatus& s) {
    s.path = path;
    s.available = error.empty();
    s.error = error;
  });
  return error.empty();
}

void JournalFollower::step() {
  if (first_step_) {
    first_step_ = false;
    reader_ = std::make_unique<JournalReader>(options_);
    const auto since = clock_.now() - options_.lookback;
    since_usec_ = std::chrono::duration_cast<std::chrono::microseconds>(since.time_since_epoch()).count();
  }
  JournalReader& reader = *reader_;
  if (waiting_on_fd_ && reader.is_open()) reader.process();
  waiting_on_fd_ = false;
  if (!reader.is_open() && !open_journal(reader)) {
    due_ = MonotonicClock::now() + options_.reopen_interval;
    return;
  }
  // Marks reach the shared status in one batch per read, so a reader of
  // status() never sees half a batch and the lock is taken once per batch.
  batch_.clear();
  const JournalReader::ReadResult got = reader.read(
      options_.batch_entries, [&](JournalMark&& m) { batch_.push_back(std::move(m)); });
  const size_t max_marks = options_.max_marks;
  // The kernel's reports reach the status only when they changed: a copy
  // of at most max_hung_tasks bounded traces.
  const host::HungTaskAssembler& hung = reader.hung_tasks();
  const bool hung_changed = hung.generation() != hung_generation_;
  hung_generation_ = hung.generation();
  publish([&](JournalStatus& s) {
    s.kernel_lines_read = reader.kernel_lines();
    if (hung_changed) {
      s.hung_tasks = hung.reports();
      s.hung_tasks_total = hung.reports_total();
      s.hung_tasks_dropped = hung.reports_dropped();
      s.hung_tasks_suppressed = hung.reports_suppressed();
      s.hung_tasks_suppressed_since_usec = hung.suppressed_since_usec();
    }
    s.entries_read += got.entries;
    s.marks_total += batch_.size();
    for (JournalMark& m : batch_) s.marks.push_back(std::move(m));
    if (s.marks.size() > max_marks) {
      const size_t excess = s.marks.size() - max_marks;
      s.marks_dropped += excess;
      s.marks.erase(s.marks.begin(), s.marks.begin() + std::ptrdiff_t(excess));
    }
    if (got.error < 0) {
      ++s.read_errors;
      s.available = false;
      s.error = "reading the journal at " + s.path + " failed: " + std::strerror(-got.error);
    }
  });
  if (got.error < 0) {
    // Reopen from the cursor after a pause: a file that keeps failing costs
    // one attempt per reopen_interval, never a spin.
    reader.close();
    due_ = MonotonicClock::now() + options_.reopen_interval;
    return;
  }
  if (got.entries == options_.batch_entries) {
    due_ = MonotonicClock::now();  // more to read: at once, after the serving thread's other work
    return;
  }
  auto timeout = options_.wait_timeout;
  const uint64_t limit_usec = reader.wait_limit_usec();
  if (limit_usec != UINT64_MAX) {
    timeout = std::min(timeout, std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::microseconds(limit_usec)));
  }
  waiting_on_fd_ = true;
  due_ = MonotonicClock::now() + timeout;
}

}  // namespace plegscope
