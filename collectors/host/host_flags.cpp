// The host scan's flags: where the host's /proc and /sys are, the runtime's
// root, the kernel stacks, and the hidden ones fixture trees need.
#include <fstream>

#include "common/flag_binding.h"
#include "host/host_source.h"

namespace plegscope {

void add_flags(CLI::App& app, HostSourceOptions& host) {
  add_text_flag(app, "--proc-path", host.proc_path,
                "where node pressure and processes are read (/host/proc in the DaemonSet)");
  add_text_flag(app, "--sys-path", host.sys_path, "where cgroup pid limits are read (/host/sys in the DaemonSet)");
  add_text_flag(app, "--runtime-root", host.runtime_root,
                "the runtime's data directory, whose disk latency is read (default: the running runtime's, else the "
                "first existing of /var/lib/containerd, /var/lib/containers/storage, /var/lib/docker)");
  add_switch_flag(app, "--kernel-stacks", host.kernel_stacks,
                  "read the kernel stacks of the runtime's threads in D with a BPF task iterator, once per host scan "
                  "(needs BTF, CAP_BPF and CAP_PERFMON, and hostPID: deploy/components/kernel-stacks); off by default");
  // Hidden, for fixture trees (tests/fixtures/host): their CLK_TCK, a scan
  // interval, and the diskstats sample taken 10 s before theirs.
  app.add_option_function<long>(
         "--host-clock-ticks",
         [&host](long ticks) {
           if (ticks < 0 || ticks > 100000)
             throw UsageError{"--host-clock-ticks: invalid value " + std::to_string(ticks) +
                              " (expected 0, the host's, or the tree's CLK_TCK such as 100)"};
           host.clock_ticks_per_second = ticks;
         },
         "CLK_TCK of the --proc-path tree (tests)")
      ->group("");
  add_duration_flag(app, "--host-scan-interval", host.interval, "host scan interval")->envname("")->group("");
  app.add_option_function<std::string>(
         "--host-diskstats-before",
         [&host](const std::string& path) {
           if (!std::ifstream(path)) throw UsageError{"--host-diskstats-before: cannot read \"" + path + "\""};
           host.diskstats_before = path;
         },
         "diskstats sample taken 10s before the first scan (tests)")
      ->group("");
}

}  // namespace plegscope
