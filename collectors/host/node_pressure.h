#pragma once
// Node pressure: PSI (/proc/pressure/{cpu,io,memory}), /proc/loadavg, and
// tasks against /proc/sys/kernel/{pid_max,threads-max}. Pure parse_*
// functions, and a reader bound to a proc path (--proc-path) that tests point
// at tests/fixtures/proc/<case>. "No data on this kernel" (no PSI, a missing
// file) is a null field, never an error.
#include <cstdint>
#include <optional>
#include <string>

#include "host/node_pressure_evidence.h"

namespace plegscope {

// One PSI line: "some avg10=1.23 avg60=0.50 avg300=0.10 total=12345".
struct PsiLine {
  double avg10 = 0;
  double avg60 = 0;
  double avg300 = 0;
  uint64_t total = 0;  // microseconds stalled
};

struct Psi {
  std::optional<PsiLine> some;
  std::optional<PsiLine> full;  // absent for cpu on older kernels
};

// "0.52 0.58 0.59 3/1234 5678": load averages, runnable and total tasks.
struct LoadAvg {
  double load1 = 0;
  double load5 = 0;
  double load15 = 0;
  int64_t runnable = 0;
  int64_t tasks = 0;  // every thread on the node; each holds a PID
  int64_t last_pid = 0;
};

// nullopt when the text holds no PSI line at all.
std::optional<Psi> parse_psi(const std::string& text);
std::optional<LoadAvg> parse_loadavg(const std::string& text);
// A file holding one non-negative integer (pid_max, threads-max).
std::optional<int64_t> parse_single_int(const std::string& text);
// Number of "cpuN" lines in /proc/stat.
std::optional<int> parse_stat_cpus(const std::string& text);

// Thread-safe: holds only the path.
class NodePressureReader {
 public:
  explicit NodePressureReader(std::string proc_path = "/proc");
  NodePressure read() const;
  const std::string& proc_path() const { return proc_path_; }

 private:
  std::optional<std::string> read_file(const std::string& relative) const;
  const std::string proc_path_;
};

}  // namespace plegscope
