// The journal follower's CPU while the kubelet logs at a steady rate, beside
// a floor measured in the same run on the same entries: a bare sd-journal
// loop (open, wait on the fd, next, read MESSAGE) with no unit matches, no
// classification and no marks. Both follow one private journal file that
// systemd-journal-remote writes at --rate lines a second for --seconds
// seconds; each reports its own thread's CPU time (CLOCK_THREAD_CPUTIME_ID).
// Usage: journal_follower_bench [--rate N] [--seconds N] [--mark-every N]
// Figures only; nothing asserts on them.
#include <poll.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "journal/journal_follower.h"
#include "journal_writer.h"

namespace {

using namespace std::chrono_literals;
using plegscope::testing::append_export_entry;
using plegscope::testing::unit_entry;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

int64_t now_usec() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The floor: what following the same directory costs with nothing on top.
struct BareLoop {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> entries{0};
  double cpu_seconds = 0;

  void run(const std::string& dir, int64_t since_usec) {
    sd_journal* j = nullptr;
    if (sd_journal_open_directory(&j, dir.c_str(), 0) < 0) return;
    const int fd = sd_journal_get_fd(j);
    sd_journal_seek_realtime_usec(j, uint64_t(since_usec));
    size_t bytes = 0;  // kept so the read is not optimised away
    while (!stop.load()) {
      while (sd_journal_next(j) > 0) {
        const void* data = nullptr;
        size_t length = 0;
        if (sd_journal_get_data(j, "MESSAGE", &data, &length) >= 0) bytes += length;
        entries.fetch_add(1);
      }
      pollfd p{fd, POLLIN, 0};
      ::poll(&p, 1, 100);  // stop is checked every 100 ms at most
      sd_journal_process(j);
    }
    cpu_seconds = thread_cpu_seconds();
    sd_journal_close(j);
    if (bytes == 0) std::fprintf(stderr, "floor read no MESSAGE bytes\n");
  }
};

}  // namespace

int main(int argc, char** argv) {
  int rate = 100, seconds = 5, mark_every = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (flag == "--rate")
      rate = value;
    else if (flag == "--seconds")
      seconds = value;
    else if (flag == "--mark-every")
      mark_every = value;
    else {
      std::fprintf(stderr, "journal_follower_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (rate <= 0 || seconds <= 0 || mark_every <= 0) {
    std::fprintf(stderr,
                 "journal_follower_bench: --rate, --seconds, --mark-every must be positive\n");
    return 2;
  }
  const std::string tool = plegscope::testing::journal_remote_path();
  if (tool.empty()) {
    std::fprintf(stderr, "journal_follower_bench: systemd-journal-remote is missing\n");
    return 2;
  }
  char tmpl[] = "/tmp/plegscope-journal-bench-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return 2;
  const std::string dir = tmpl;
  const std::string file = dir + "/system.journal";
  const uint64_t total = uint64_t(rate) * uint64_t(seconds);

  // One entry first, so the file exists when both readers open the directory.
  const int64_t start_usec = now_usec();
  std::string first;
  append_export_entry(first, unit_entry(start_usec, "kubelet.service", "I1124 bench start"));
  const std::string command = tool + " -o '" + file + "' - 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "w");
  if (pipe == nullptr) return 2;
  std::fwrite(first.data(), 1, first.size(), pipe);
  std::fflush(pipe);
  while (!std::filesystem::exists(file)) std::this_thread::sleep_for(1ms);  // bench only

  plegscope::SystemClock clock;
  plegscope::JournalFollowerOptions options;
  options.journal_path = dir;
  plegscope::JournalFollower follower(options, clock);
  follower.start();
  BareLoop floor;
  std::thread floor_thread([&] { floor.run(dir, start_usec - 60'000'000); });

  // The kubelet at `rate` lines a second: mostly ordinary lines, one in
  // mark_every a "Error syncing pod" that becomes a mark.
  const auto period = std::chrono::microseconds(1'000'000 / rate);
  auto next = std::chrono::steady_clock::now();
  const auto wall_start = next;
  for (uint64_t i = 0; i < total; ++i) {
    std::string text;
    const std::string message =
        i % uint64_t(mark_every) == 0
            ? R"(E1124 05:00:00.000000    1234 pod_workers.go:1300] "Error syncing pod, skipping" err="failed to \"StartContainer\"" pod="default/web-)" +
                  std::to_string(i) + "\""
            : R"(I1124 05:00:00.000000    1234 kubelet.go:2400] "SyncLoop (PLEG): event for pod" pod="default/web-)" +
                  std::to_string(i) + R"(" event={"ID":"0c6b1c57","Type":"ContainerStarted"})";
    append_export_entry(text, unit_entry(now_usec(), "kubelet.service", message));
    std::fwrite(text.data(), 1, text.size(), pipe);
    std::fflush(pipe);
    next += period;
    std::this_thread::sleep_until(next);
  }
  ::pclose(pipe);
  const auto wall_write = std::chrono::steady_clock::now() - wall_start;

  const bool caught_up = follower.wait_for(
      [&](const plegscope::JournalStatus& s) { return s.entries_read >= total + 1; }, 60s);
  while (floor.entries.load() < total + 1 && std::chrono::steady_clock::now() - wall_start < 120s) {
    std::this_thread::sleep_for(10ms);  // bench only
  }
  floor.stop = true;
  floor_thread.join();
  const plegscope::JournalStatus s = follower.status();
  follower.stop();
  std::filesystem::remove_all(dir);

  const double wall = std::chrono::duration<double>(wall_write).count();
  const double entries = double(total + 1);
  std::printf("journal follower at %d lines/s for %.1f s (%llu entries, 1 in %d a mark)%s\n", rate,
              wall, (unsigned long long)(total + 1), mark_every,
              caught_up ? "" : " [did not catch up]");
  std::printf("  %-9s %10s %12s %14s %8s\n", "", "cpu_s", "us/entry", "core_percent", "marks");
  std::printf("  %-9s %10.4f %12.2f %14.3f %8llu\n", "follower", s.thread_cpu_seconds,
              s.thread_cpu_seconds / entries * 1e6, s.thread_cpu_seconds / wall * 100,
              (unsigned long long)s.marks_total);
  std::printf("  %-9s %10.4f %12.2f %14.3f %8s\n", "floor", floor.cpu_seconds,
              floor.cpu_seconds / double(floor.entries.load()) * 1e6,
              floor.cpu_seconds / wall * 100, "-");
  if (floor.cpu_seconds > 0) {
    std::printf("  follower/floor CPU: %.2fx\n", s.thread_cpu_seconds / floor.cpu_seconds);
  }
  return caught_up ? 0 : 1;
}
