#pragma once
// What the node pressure reader (host/node_pressure.h) hands over: PSI,
// load and the tasks against their limits, as one value. A field the
// kernel does not provide is null.
#include <cstdint>
#include <optional>

namespace plegscope {

struct NodePressure {
  std::optional<double> cpu_some_avg10, cpu_some_avg60;
  std::optional<double> io_some_avg10, io_some_avg60;
  std::optional<double> memory_some_avg10, memory_some_avg60;
  std::optional<double> load1, load5, load15;
  std::optional<int> cpus;
  // Tasks (threads) alive: each one holds a PID, so this is what pid_max
  // limits. From loadavg's 4th field, else by counting /proc/<pid>/task.
  std::optional<int64_t> pids;
  std::optional<int64_t> processes;  // numeric entries of /proc, counted only without loadavg
  std::optional<int64_t> pid_max;
  std::optional<int64_t> threads_max;

  bool psi_available() const {
    return cpu_some_avg10 || io_some_avg10 || memory_some_avg10;
  }
};

}  // namespace plegscope
