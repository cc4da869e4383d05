// The pure parts of --kernel-stacks: the task iterator's text
// (kernel_stacks.bpf.c), the frame that says what a task waits on, and why
// the reader cannot run.
#include "host/kernel_stacks.h"

#include <gtest/gtest.h>

#include <cerrno>

using namespace plegscope::host;

namespace {

// As the iterator printed it on kernel 6.18 for a shim thread frozen by the
// cgroup v1 freezer and one frozen in place in a futex wait, plus an NFS
// wait as a 6.1 kernel symbolises module frames.
constexpr const char* kOutput =
    "task 4242 4242 32768 9\n"
    " __schedule+0x3c1/0xa30\n"
    " schedule+0x27/0xb0\n"
    " __refrigerator+0x4c/0x90\n"
    " do_freezer_trap+0x46/0x70\n"
    " get_signal+0x5a0/0x880\n"
    " arch_do_signal_or_restart+0x2e/0x250\n"
    " exit_to_user_mode_loop+0x6e/0x150\n"
    " do_syscall_64+0x1cb/0x280\n"
    " entry_SYSCALL_64_after_hwframe+0x76/0x7e\n"
    "task 4242 4250 32768 4\n"
    " __schedule+0x3c1/0xa30\n"
    " schedule+0x27/0xb0\n"
    " futex_do_wait+0x4a/0x80\n"
    " __futex_wait+0x8e/0xf0\n"
    "task 812 813 2 5\n"
    " __schedule+0x3c1/0xa30\n"
    " schedule+0x27/0xb0\n"
    " rpc_wait_bit_killable+0x11/0x70 [sunrpc]\n"
    " __wait_on_bit+0x31/0xa0\n"
    " nfs_wait_on_request+0x2c/0x40 [nfs]\n"
    "task 900 901 2 error 14\n"
    "task x 1 2 3\n"
    " orphan_frame+0x1/0x2\n"
    "garbage line\n";

}  // namespace

TEST(KernelStacks, ParsesEveryTaskBlockWithFunctionNamesOnly) {
  auto stacks = parse_kernel_stacks(kOutput);
  ASSERT_EQ(stacks.size(), 4u);
  EXPECT_EQ(stacks[0].pid, 4242);
  EXPECT_EQ(stacks[0].tid, 4242);
  EXPECT_EQ(stacks[0].state, 32768u);
  ASSERT_EQ(stacks[0].frames.size(), 9u);
  EXPECT_EQ(stacks[0].frames[2], "__refrigerator");
  EXPECT_EQ(stacks[1].tid, 4250);
  EXPECT_EQ(stacks[1].frames.size(), 4u);
  EXPECT_EQ(stacks[2].frames[2], "rpc_wait_bit_killable");
  EXPECT_EQ(stacks[2].frames[4], "nfs_wait_on_request");
  // A failed read is kept with its errno and no frames; a malformed header's
  // frames are no one's.
  EXPECT_EQ(stacks[3].tid, 901);
  EXPECT_EQ(stacks[3].error, 14);
  EXPECT_TRUE(stacks[3].frames.empty());
}

TEST(KernelStacks, EmptyAndTruncatedOutputNeverFail) {
  EXPECT_TRUE(parse_kernel_stacks("").empty());
  auto cut = parse_kernel_stacks("task 1 2 2 3\n __schedule+0x1/0x2\n sched");
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].frames, (std::vector<std::string>{"__schedule", "sched"}));
  std::string many = "task 1 1 2 99\n";
  for (int i = 0; i < 99; ++i) many += " f" + std::to_string(i) + "+0x1/0x2\n";
  EXPECT_EQ(parse_kernel_stacks(many)[0].frames.size(), kMaxKernelFrames);
}

TEST(KernelStacks, FrameFunctionName) {
  EXPECT_EQ(frame_function_name("__refrigerator+0x4c/0x90"), "__refrigerator");
  EXPECT_EQ(frame_function_name(" nfs_wait_bit_killable+0x1d/0x70 [nfs]"), "nfs_wait_bit_killable");
  EXPECT_EQ(frame_function_name("poll_schedule_timeout.constprop.0+0x5/0x9"),
            "poll_schedule_timeout.constprop.0");
  EXPECT_EQ(frame_function_name("0xffffffffc0a1b2c3"), "0xffffffffc0a1b2c3");
}

TEST(KernelStacks, TopMeaningfulFrameSkipsTheSchedulerAndGenericWaits) {
  auto stacks = parse_kernel_stacks(kOutput);
  EXPECT_EQ(top_meaningful_frame(stacks[0].frames), "__refrigerator");
  EXPECT_EQ(top_meaningful_frame(stacks[1].frames), "futex_do_wait");
  EXPECT_EQ(top_meaningful_frame(stacks[2].frames), "rpc_wait_bit_killable");
  EXPECT_EQ(
      top_meaningful_frame({"__schedule", "schedule", "io_schedule", "folio_wait_bit_common"}),
      "folio_wait_bit_common");
  EXPECT_EQ(top_meaningful_frame({"__schedule", "schedule_timeout", "wait_for_completion"}), "");
  EXPECT_EQ(top_meaningful_frame({}), "");
}

TEST(KernelStacks, ClassOfAStackIsItsFirstClassifiedFrame) {
  auto stacks = parse_kernel_stacks(kOutput);
  EXPECT_EQ(stack_class(stacks[0].frames), FrameClass::kFreezer);
  EXPECT_EQ(stack_class(stacks[1].frames), std::nullopt);
  EXPECT_EQ(stack_class(stacks[2].frames), FrameClass::kNetworkFs);
  EXPECT_EQ(stack_class({"__schedule", "schedule", "io_schedule", "folio_wait_bit_common",
                         "filemap_fault"}),
            FrameClass::kStorage);
  EXPECT_EQ(stack_class({"__schedule", "schedule", "ovl_sync_fs"}), FrameClass::kOverlayfs);
}

TEST(KernelStacks, AClassifiedStackTellsMoreThanTheWorstTasksPlainOne) {
  auto stacks = parse_kernel_stacks(kOutput);
  EXPECT_TRUE(tells_more(stacks[0].frames, stacks[1].frames));
  EXPECT_FALSE(tells_more(stacks[1].frames, stacks[0].frames));
  EXPECT_TRUE(tells_more(stacks[1].frames, {}));
  EXPECT_FALSE(tells_more({}, stacks[1].frames));
  EXPECT_FALSE(tells_more(stacks[2].frames, stacks[0].frames));  // both classified: the first kept
}

TEST(KernelStacks, PreconditionNamesWhatIsMissing) {
  const uint64_t bpf = 1ull << kCapBpf, perfmon = 1ull << kCapPerfmon, admin = 1ull << kCapSysAdmin;
  EXPECT_EQ(kernel_stacks_precondition(true, bpf | perfmon), "");
  EXPECT_EQ(kernel_stacks_precondition(true, admin), "");
  EXPECT_EQ(kernel_stacks_precondition(true, std::nullopt), "");  // unknown: the load says
  const std::string none = kernel_stacks_precondition(true, 0);
  EXPECT_NE(none.find("lacks CAP_BPF and CAP_PERFMON"), std::string::npos) << none;
  const std::string half = kernel_stacks_precondition(true, bpf);
  EXPECT_NE(half.find("lacks CAP_PERFMON"), std::string::npos) << half;
  EXPECT_EQ(half.find("CAP_BPF"), std::string::npos) << half;
  const std::string no_btf = kernel_stacks_precondition(false, bpf | perfmon);
  EXPECT_NE(no_btf.find("no BTF"), std::string::npos) << no_btf;
  EXPECT_EQ(no_btf.find("lacks"), std::string::npos) << no_btf;
}

TEST(KernelStacks, SeccompFilterFromStatus) {
  EXPECT_TRUE(status_seccomp_filtered("Name:\tplegscope\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n"));
  EXPECT_FALSE(status_seccomp_filtered("Name:\tplegscope\nSeccomp:\t0\nSeccomp_filters:\t0\n"));
  EXPECT_FALSE(status_seccomp_filtered("Seccomp:\t1\n"));  // strict mode: no filter to blame
  EXPECT_FALSE(status_seccomp_filtered("Seccomp_filters:\t2\n"));
  EXPECT_FALSE(status_seccomp_filtered(""));
}

TEST(KernelStacks, RefusalUnderASeccompFilterNamesTheProfile) {
  const std::string hint = kernel_stacks_refusal_hint(-EPERM, true);
  EXPECT_NE(hint.find("seccomp"), std::string::npos) << hint;
  EXPECT_EQ(kernel_stacks_refusal_hint(EPERM, true), hint);
  EXPECT_EQ(kernel_stacks_refusal_hint(-EPERM, false), "");   // no filter: not the profile
  EXPECT_EQ(kernel_stacks_refusal_hint(-EINVAL, true), "");   // the verifier, not a permission
}
