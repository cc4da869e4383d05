// SPDX-License-Identifier: GPL-2.0
// plegscope --kernel-stacks: a task iterator that prints the kernel stack of
// each task whose tid user space put in `watched` (the threads the host scan
// saw in D), symbolised by the kernel itself (%pS), so the agent needs no
// access to /proc/kallsyms or /proc/<pid>/stack. Every other task costs one
// hash lookup. Output, one line each (parsed by parse_kernel_stacks):
//   task <tgid> <tid> <state> <frames>
//    <function>+0x<off>/0x<size> [<module>]     (one per frame, innermost first)
//   task <tgid> <tid> <state> error <errno>        (the stack could not be read)
// <state> is the raw task_struct state word (__state, or state before 5.14).
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_FRAMES 40
#define MAX_WATCHED 1024

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, MAX_WATCHED);
  __type(key, __u32);  // tid, as the initial PID namespace numbers it
  __type(value, __u8);
} watched SEC(".maps");

struct stack_buffer {
  __u64 ips[MAX_FRAMES];
};

// Per CPU: two readers on two CPUs never share a buffer.
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct stack_buffer);
} buffers SEC(".maps");

// Before 5.14 the state word was `long state`.
struct task_struct___pre_5_14 {
  long state;
} __attribute__((preserve_access_index));

static __u64 task_state(struct task_struct *task) {
  if (bpf_core_field_exists(task->__state)) return BPF_CORE_READ(task, __state);
  struct task_struct___pre_5_14 *old = (void *)task;
  return (__u64)BPF_CORE_READ(old, state);
}

SEC("iter/task")
int dump_watched_stacks(struct bpf_iter__task *ctx) {
  struct seq_file *seq = ctx->meta->seq;
  struct task_struct *task = ctx->task;
  if (!task) return 0;
  __u32 tid = task->pid;
  if (!bpf_map_lookup_elem(&watched, &tid)) return 0;
  __u32 zero = 0;
  struct stack_buffer *buf = bpf_map_lookup_elem(&buffers, &zero);
  if (!buf) return 0;
  __u64 state = task_state(task);
  __u32 tgid = task->tgid;
  long bytes = bpf_get_task_stack(task, buf->ips, sizeof(buf->ips), 0);
  if (bytes < 0) {
    BPF_SEQ_PRINTF(seq, "task %u %u %llu error %ld\n", tgid, tid, state, -bytes);
    return 0;
  }
  long frames = bytes / sizeof(__u64);
  BPF_SEQ_PRINTF(seq, "task %u %u %llu %ld\n", tgid, tid, state, frames);
  for (int i = 0; i < MAX_FRAMES; i++) {
    if (i >= frames) break;
    BPF_SEQ_PRINTF(seq, " %pS\n", buf->ips[i]);
  }
  return 0;
}
