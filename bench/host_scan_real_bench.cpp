// The host scan on the real /proc and /sys, beside floors measured in the
// same run: a tree of real processes and threads that sleep
// (bench/real_process_tree.h), made and reaped here, in the shapes asked
// (default: 600 processes of 2 threads, 60 of 451, 600 of 46), each after the
// quiet host. Per shape: the CPU of one HostScanner::scan() (the scanning
// thread's, kernel time included: most of a scan is the kernel building
// /proc's files), and of two floors: listing /proc alone (any process scan
// lists it), and listing it plus one open/read/close of every <pid>/stat (a
// scan that reads every process once, the plain way). The extra CPU of each
// shape over the quiet host is fitted to a cost per process and a cost per
// thread (least squares, no intercept), and that fit is extrapolated to a
// JVM-heavy node of 2,000 processes and 100,000 threads: an extrapolation,
// since this machine's pid_max does not allow such a tree.
//
// Usage: host_scan_real_bench [--shapes PxT,...] [--scans N] [--json FILE]
//        host_scan_real_bench --hold PxT   (make the tree, print "ready",
//                                           keep it until stdin closes)
//        host_scan_real_bench --profile PxT --scans N   (N scans and nothing
//            else, for perf record or strace -c; 0x0 is the quiet host)
// Figures only; nothing is asserted.
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "host/host_scanner.h"
#include "real_process_tree.h"

using namespace plegscope::host;
using plegscope::bench::RealProcessTree;

namespace {

double thread_cpu_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Floor 1: the listing alone.
void list_proc() {
  DIR* dir = ::opendir("/proc");
  if (!dir) return;
  while (dirent* e = ::readdir(dir)) asm volatile("" : : "r"(e) : "memory");
  ::closedir(dir);
}

// Floor 2: the listing and one plain read of every <pid>/stat.
void list_and_read_stat() {
  DIR* dir = ::opendir("/proc");
  if (!dir) return;
  char buffer[2048], path[300];
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::snprintf(path, sizeof path, "%s/stat", e->d_name);
    int fd = ::openat(::dirfd(dir), path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    asm volatile("" : : "r"(::read(fd, buffer, sizeof buffer)) : "memory");
    ::close(fd);
  }
  ::closedir(dir);
}

struct Shape {
  int processes = 0, threads_each = 0;
  std::string name() const {
    return processes ? std::to_string(processes) + " x " + std::to_string(threads_each) : "quiet host";
  }
};

struct Row {
  Shape shape;
  std::string error;
  int64_t processes = 0, threads = 0;  // as the scan counted them
  double scan_ms = 0, scan_min_ms = 0, list_ms = 0, stat_floor_ms = 0, scan_wall_ms = 0;
};

Row measure(const Shape& shape, int scans) {
  Row row;
  row.shape = shape;
  RealProcessTree tree(shape.processes, shape.threads_each);
  if (!tree.ok()) {
    row.error = tree.error;
    return row;
  }
  HostScanOptions options;  // the agent's defaults: /proc, /sys, cmdline answers off-thread
  HostScanner scanner(options);
  HostEvidence e;
  for (int i = 0; i < 3; ++i) e = scanner.scan();  // the agent's steady state: files opened, cmdlines known
  std::vector<double> scan, scan_wall, list, floor;
  for (int i = 0; i < scans; ++i) {
    // Taking turns, so that load from elsewhere falls on all three alike.
    timespec w0{}, w1{};
    ::clock_gettime(CLOCK_MONOTONIC, &w0);
    double c0 = thread_cpu_ms();
    e = scanner.scan();
    double c1 = thread_cpu_ms();
    ::clock_gettime(CLOCK_MONOTONIC, &w1);
    list_proc();
    double c2 = thread_cpu_ms();
    list_and_read_stat();
    double c3 = thread_cpu_ms();
    scan.push_back(c1 - c0);
    scan_wall.push_back(static_cast<double>(w1.tv_sec - w0.tv_sec) * 1e3 + static_cast<double>(w1.tv_nsec - w0.tv_nsec) / 1e6);
    list.push_back(c2 - c1);
    floor.push_back(c3 - c2);
  }
  row.processes = e.processes.total;
  row.threads = e.processes.threads;
  row.scan_ms = median(scan);
  row.scan_min_ms = *std::min_element(scan.begin(), scan.end());
  row.scan_wall_ms = median(scan_wall);
  row.list_ms = median(list);
  row.stat_floor_ms = median(floor);
  return row;
}

// extra = a * processes + b * threads, least squares without an intercept.
struct Fit {
  double per_process_ms = 0, per_thread_ms = 0;
  bool ok = false;
};
Fit fit(const std::vector<Row>& rows, const Row& quiet, double Row::*figure) {
  double spp = 0, stt = 0, spt = 0, spy = 0, sty = 0;
  for (const Row& r : rows) {
    if (!r.error.empty() || !r.shape.processes) continue;
    double p = static_cast<double>(r.processes - quiet.processes), t = static_cast<double>(r.threads - quiet.threads);
    double y = r.*figure - quiet.*figure;
    spp += p * p, stt += t * t, spt += p * t, spy += p * y, sty += t * y;
  }
  double det = spp * stt - spt * spt;
  Fit f;
  if (det <= 1e-9 * spp * stt) return f;  // shapes that do not tell processes from threads
  f.per_process_ms = (spy * stt - sty * spt) / det;
  f.per_thread_ms = (sty * spp - spy * spt) / det;
  f.ok = true;
  return f;
}

std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    Shape s;
    if (std::sscanf(item.c_str(), "%dx%d", &s.processes, &s.threads_each) == 2 && s.processes > 0 && s.threads_each > 0)
      out.push_back(s);
    else
      std::cerr << "ignored shape " << item << " (want PxT)\n";
  }
  return out;
}

// As the agent does at start-up (agent/cli/serve.cpp): the scan may keep
// files open, within a share of this limit.
void raise_file_limit() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
}

int profile(const Shape& shape, int scans) {
  RealProcessTree tree(shape.processes, shape.threads_each);
  if (!tree.ok()) {
    std::cerr << tree.error << std::endl;
    return 1;
  }
  HostScanner scanner(HostScanOptions{});
  HostEvidence e;
  double c0 = thread_cpu_ms();
  for (int i = 0; i < scans; ++i) e = scanner.scan();
  std::cout << scans << " scans of " << e.processes.total << " processes / " << e.processes.threads << " threads: "
            << (thread_cpu_ms() - c0) / scans << " ms CPU each" << std::endl;
  return 0;
}

int hold(const Shape& shape) {
  RealProcessTree tree(shape.processes, shape.threads_each);
  if (!tree.ok()) {
    std::cout << "error " << tree.error << std::endl;
    return 1;
  }
  std::cout << "ready " << tree.pids.size() << " processes of " << shape.threads_each << " threads" << std::endl;
  char c;
  while (::read(0, &c, 1) > 0) {
  }
  return 0;  // the tree's destructor wakes and reaps every sleeper
}

}  // namespace

int main(int argc, char** argv) {
  plegscope::bench::install_tree_signal_handlers();
  raise_file_limit();
  std::vector<Shape> shapes = parse_shapes("600x2,60x451,600x46");
  int scans = 20;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--profile") {
      Shape s;
      if (std::sscanf(value().c_str(), "%dx%d", &s.processes, &s.threads_each) != 2) return 2;
      for (int j = i + 1; j + 1 < argc; ++j)
        if (std::string(argv[j]) == "--scans") scans = std::max(1, std::atoi(argv[j + 1]));
      return profile(s, scans);
    }
    if (a == "--shapes") shapes = parse_shapes(value());
    else if (a == "--scans") scans = std::max(3, std::atoi(value().c_str()));
    else if (a == "--json") json_path = value();
    else if (a == "--hold") {
      auto s = parse_shapes(value());
      return s.empty() ? 2 : hold(s[0]);
    } else {
      std::cerr << "usage: host_scan_real_bench [--shapes PxT,...] [--scans N] [--json FILE] | --hold PxT\n";
      return 2;
    }
  }
  std::vector<Row> rows;
  rows.push_back(measure(Shape{}, scans));
  for (const Shape& s : shapes) {
    std::cerr << "measuring " << s.name() << " ..." << std::endl;
    rows.push_back(measure(s, scans));
  }
  const Row& quiet = rows[0];
  std::printf("\n## The host scan on the real /proc and /sys (CPU of the scanning thread, median of %d scans)\n\n", scans);
  std::printf("| host | processes / threads | scan CPU | extra over quiet | floor: list /proc | floor: list + every <pid>/stat | scan wall |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    if (!r.error.empty()) {
      std::printf("| + %s | %s |||||\n", r.shape.name().c_str(), r.error.c_str());
      continue;
    }
    char extra[32] = "-";
    if (r.shape.processes) std::snprintf(extra, sizeof extra, "%.2f ms", r.scan_ms - quiet.scan_ms);
    std::printf("| %s%s | %lld / %lld | %.2f ms (min %.2f) | %s | %.2f ms | %.2f ms | %.2f ms |\n",
                r.shape.processes ? "+ " : "", r.shape.name().c_str(), static_cast<long long>(r.processes),
                static_cast<long long>(r.threads), r.scan_ms, r.scan_min_ms, extra, r.list_ms, r.stat_floor_ms,
                r.scan_wall_ms);
  }
  Fit scan_fit = fit(rows, quiet, &Row::scan_ms), floor_fit = fit(rows, quiet, &Row::stat_floor_ms),
      list_fit = fit(rows, quiet, &Row::list_ms);
  auto extrapolate = [&](const Fit& f, double Row::*figure) {
    return quiet.*figure + f.per_process_ms * static_cast<double>(2000 - quiet.processes) +
           f.per_thread_ms * static_cast<double>(100000 - quiet.threads);
  };
  if (scan_fit.ok) {
    std::printf("\nFitted over the shapes (extra CPU = a x processes + b x threads, least squares):\n\n");
    std::printf("| | per process | per thread | extrapolated to 2,000 processes / 100,000 threads |\n|---|---|---|---|\n");
    std::printf("| scan | %.2f us | %.3f us | %.1f ms (an extrapolation, not a measurement) |\n",
                scan_fit.per_process_ms * 1e3, scan_fit.per_thread_ms * 1e3, extrapolate(scan_fit, &Row::scan_ms));
    std::printf("| floor: list /proc | %.2f us | %.3f us | %.1f ms |\n", list_fit.per_process_ms * 1e3,
                list_fit.per_thread_ms * 1e3, extrapolate(list_fit, &Row::list_ms));
    std::printf("| floor: list + every <pid>/stat | %.2f us | %.3f us | %.1f ms |\n", floor_fit.per_process_ms * 1e3,
                floor_fit.per_thread_ms * 1e3, extrapolate(floor_fit, &Row::stat_floor_ms));
  }
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "{\"scans\": " << scans << ", \"rows\": [";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      out << (i ? ", " : "") << "{\"shape\": \"" << r.shape.name() << "\", \"error\": \"" << r.error
          << "\", \"processes\": " << r.processes << ", \"threads\": " << r.threads << ", \"scan_cpu_ms\": " << r.scan_ms
          << ", \"scan_cpu_min_ms\": " << r.scan_min_ms << ", \"scan_wall_ms\": " << r.scan_wall_ms
          << ", \"list_floor_ms\": " << r.list_ms << ", \"stat_floor_ms\": " << r.stat_floor_ms << "}";
    }
    out << "]";
    if (scan_fit.ok)
      out << ", \"fit\": {\"per_process_us\": " << scan_fit.per_process_ms * 1e3
          << ", \"per_thread_us\": " << scan_fit.per_thread_ms * 1e3
          << ", \"extrapolated_2000_100000_ms\": " << extrapolate(scan_fit, &Row::scan_ms)
          << ", \"stat_floor_extrapolated_ms\": " << extrapolate(floor_fit, &Row::stat_floor_ms)
          << ", \"list_floor_extrapolated_ms\": " << extrapolate(list_fit, &Row::list_ms) << "}";
    out << "}\n";
  }
  return 0;
}
