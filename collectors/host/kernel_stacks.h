#pragma once
// --kernel-stacks: the kernel stacks of the runtime's threads in D, read by a
// BPF task iterator (kernel_stacks.bpf.c) that the kernel symbolises itself,
// so neither /proc/<pid>/stack (CAP_SYS_ADMIN) nor /proc/kallsyms is read.
// It needs BTF in the kernel, CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN);
// without them the reader is not opened and says why, once.
//
// The text the iterator prints, its parser and the choice of the frame that
// says what a task waits on are pure; the libbpf adapter is
// kernel_stacks_bpf.cpp (kernel_stacks_none.cpp when the build had no
// libbpf, bpftool or clang).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/host_evidence.h"
#include "host/hung_task.h"

namespace plegscope::host {

struct TaskKernelStack {
  int64_t pid = 0;  // tgid
  int64_t tid = 0;
  uint64_t state = 0;               // the raw task_struct state word when read
  std::vector<std::string> frames;  // innermost first, function names without offsets
  int error = 0;                    // errno of bpf_get_task_stack, 0 when read
};

// Every task block in the iterator's output (see kernel_stacks.bpf.c). A
// malformed line is skipped, never fatal; frames are bounded per task.
std::vector<TaskKernelStack> parse_kernel_stacks(std::string_view text);

inline constexpr size_t kMaxKernelFrames = 40;

// The function of one symbolised frame: "__refrigerator+0x4c/0x90" ->
// "__refrigerator", "nfs_wait_bit_killable+0x1d/0x70 [nfs]" -> the same
// without the module; a bare address stays as printed.
std::string frame_function_name(std::string_view printed);

// The innermost frame that says what the task waits on: the scheduler's own
// frames (__schedule, schedule, io_schedule, schedule_timeout, ...) and the
// generic wait helpers around them are skipped. "" when every frame is one.
std::string top_meaningful_frame(const std::vector<std::string>& frames);

// The class of the first classified frame, innermost first (the hung-task
// classifier: storage, network_fs, overlayfs, freezer, cgroup, reclaim).
std::optional<FrameClass> stack_class(const std::vector<std::string>& frames);

// What a stack says, as the scan hands it over: its top meaningful frame,
// its class, and how much it says (any stack over none, a classified one
// over an unclassified one).
KernelStackMeaning stack_meaning(const std::vector<std::string>& frames);

// Of two stacks of one process's tasks, whether `candidate` says more than
// `current` (StackSays, host/host_evidence.h).
bool tells_more(const std::vector<std::string>& candidate, const std::vector<std::string>& current);

// Why the reader cannot run, from what the agent holds. Pure: the caller
// reads the credentials and the BTF file's presence. "" when nothing is
// known to be missing (the load may still fail, with libbpf's reason).
inline constexpr int kCapSysAdmin = 21;
inline constexpr int kCapPerfmon = 38;
inline constexpr int kCapBpf = 39;
std::string kernel_stacks_precondition(bool btf_present, std::optional<uint64_t> cap_effective);

// Whether a seccomp filter is on for the process whose /proc/PID/status this
// is ("Seccomp:" 2). Pure.
bool status_seccomp_filtered(std::string_view status);

// What a load refused with `err` says beyond libbpf's reason: with the
// capabilities already checked, EPERM under a seccomp filter is what a
// container profile without a rule for bpf() returns (measured: containerd's
// RuntimeDefault less that rule). "" when nothing more is known.
std::string kernel_stacks_refusal_hint(int err, bool seccomp_filtered);

// Reads stacks for the tids asked. Not thread-safe: one caller (the host
// scanner, under its own lock).
class KernelStackReader {
 public:
  virtual ~KernelStackReader() = default;
  struct Result {
    std::vector<TaskKernelStack> stacks;
    std::string error;  // "" when the iterator ran
  };
  // At most kMaxWatchedTids tids; the rest are left out.
  virtual Result read(const std::vector<int64_t>& tids) = 0;
};

inline constexpr size_t kMaxWatchedTids = 1024;

struct KernelStackReaderOpen {
  std::unique_ptr<KernelStackReader> reader;  // null when unavailable
  std::string unavailable;                    // why, when null
};

// Loads the BPF iterator: checks the preconditions first (BTF at
// `btf_path`, the capabilities in `self_status_path`), then lets libbpf
// load and attach it. Never throws.
KernelStackReaderOpen open_kernel_stack_reader(
    const std::string& btf_path = "/sys/kernel/btf/vmlinux",
    const std::string& self_status_path = "/proc/self/status");

// False when this build has no BPF support (no libbpf, bpftool or clang).
bool kernel_stacks_built();

}  // namespace plegscope::host
