#pragma once
// Writes a synthetic cgroup v2 node for host_scan_v2_bench: a /proc with the
// runtime, the kubelet, one shim (8 threads) and two container processes
// per pod, and a /sys/fs/cgroup with the systemd driver's layout (the
// runtime's and the kubelet's units and each pod and container with the
// files the witness reads), or a JVM-heavy node: `jvm_processes` more
// processes holding `jvm_threads` threads between them, each thread with its
// own task/<tid>/stat as /proc shows it. On /dev/shm (tmpfs); removed on
// destruction.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace plegscope::bench {

class SyntheticV2Node {
 public:
  SyntheticV2Node(int pods, int jvm_processes = 0, int jvm_threads = 0) {
    namespace fs = std::filesystem;
    const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    root = base / ("host_scan_v2_bench_" + std::to_string(::getpid()) + "_" + std::to_string(pods) + "_" +
                   std::to_string(jvm_processes));
    fs::remove_all(root);
    proc = root / "proc";
    cgroup = root / "sys/fs/cgroup";
    write(proc / "uptime", "350000.00 690000.00\n");
    write(proc / "sys/kernel/pid_max", "4194304\n");
    write(proc / "sys/kernel/threads-max", "4194304\n");
    write(proc / "1/mountinfo", "21 0 8:16 / / rw - ext4 /dev/sdb rw\n");
    write(proc / "diskstats", "   8      16 sdb 100 1 800 200 50 2 400 300 0 900 500 0 0 0 0 0 0\n");
    write(cgroup / "cgroup.controllers", "cpuset cpu io memory pids\n");
    process(100, "containerd", 8, "system.slice/containerd.service");
    process(101, "kubelet", 20, "system.slice/kubelet.service");
    unit("system.slice/containerd.service", true);
    unit("system.slice/kubelet.service", true);
    unit("kubepods.slice", true);
    write(cgroup / "kubepods.slice/cgroup.stat", "nr_descendants 3000\nnr_dying_descendants 12\n");
    for (const char* qos : {"burstable", "besteffort"}) unit(std::string("kubepods.slice/kubepods-") + qos + ".slice", false);
    int pid = 1000;
    for (int i = 0; i < pods; ++i) {
      char uid[40];
      std::snprintf(uid, sizeof uid, "%08x_0000_4000_8000_%012x", i, i);
      const std::string pod = std::string("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod") + uid + ".slice";
      unit(pod, true);
      char sandbox[65], app[65];
      std::snprintf(sandbox, sizeof sandbox, "%064x", 2 * i + 1);
      std::snprintf(app, sizeof app, "%064x", 2 * i + 2);
      unit(pod + "/cri-containerd-" + sandbox + ".scope", false);
      unit(pod + "/cri-containerd-" + app + ".scope", false);
      process(pid, "containerd-shim", 8, "system.slice/containerd.service", sandbox);
      process(pid + 10, "pause", 1, pod + "/cri-containerd-" + sandbox + ".scope");
      process(pid + 11, "app", 1, pod + "/cri-containerd-" + app + ".scope");
      pid += 20;
    }
    for (int i = 0; i < jvm_processes; ++i) {
      const int threads = jvm_threads / jvm_processes;
      process(pid, "java", threads, "system.slice/app.service", "", true);
      pid += threads + 1;
    }
  }
  ~SyntheticV2Node() { std::filesystem::remove_all(root); }

  std::filesystem::path root, proc, cgroup;

 private:
  static void write(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }

  static std::string stat_line(int pid, const std::string& comm, int threads) {
    std::string line = std::to_string(pid) + " (" + comm + ") S 1 1 1 0 -1 4194560 1200 0 3 0 150 40 0 0 20 0 " +
                       std::to_string(threads) + " 0 3482000 1234567168 2500";
    for (int i = 0; i < 28; ++i) line += " 0";
    return line + "\n";
  }

  void process(int pid, const std::string& comm, int threads, const std::string& cgroup_path,
               const std::string& sandbox = "", bool task_dirs = false) {
    const auto dir = proc / std::to_string(pid);
    write(dir / "stat", stat_line(pid, comm, threads));
    write(dir / "cgroup", "0::/" + cgroup_path + "\n");
    if (!sandbox.empty())
      write(dir / "cmdline", std::string("containerd-shim-runc-v2\0-id\0", 28) + sandbox + std::string(1, '\0'));
    // The runtime's threads are walked by every scan; a JVM's only listed by /proc.
    if (threads > 1 && (comm == "containerd-shim" || comm == "containerd" || task_dirs))
      for (int t = 0; t < threads; ++t)
        write(dir / "task" / std::to_string(pid + t) / "stat", stat_line(pid + t, comm, threads));
  }

  void unit(const std::string& path, bool limits) {
    const auto d = cgroup / path;
    write(d / "cgroup.events", "populated 1\nfrozen 0\n");
    write(d / "cgroup.freeze", "0\n");
    if (!limits) return;
    write(d / "pids.current", "12\n");
    write(d / "pids.max", "4915\n");
    write(d / "pids.events", "max 0\n");
    write(d / "pids.events.local", "max 0\n");
    write(d / "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
    for (const char* r : {"cpu", "io", "memory"})
      write(d / (std::string(r) + ".pressure"), "some avg10=0.00 avg60=0.00 avg300=0.00 total=1234\n"
                                                "full avg10=0.00 avg60=0.00 avg300=0.00 total=567\n");
  }
};

}  // namespace plegscope::bench
