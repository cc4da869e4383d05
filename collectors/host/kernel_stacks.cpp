#include "host/kernel_stacks.h"

#include <cctype>
#include <cerrno>

#include "host/host_files.h"

namespace plegscope::host {
namespace {

// Splits off the next space-separated word of `s`.
std::string_view next_word(std::string_view& s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  size_t end = s.find(' ');
  std::string_view word = s.substr(0, end);
  s.remove_prefix(end == std::string_view::npos ? s.size() : end);
  return word;
}

bool parse_i64(std::string_view s, int64_t& out) {
  uint64_t v = 0;
  if (s.empty() || s.size() > 18 || !parse_u64(s, v)) return false;
  out = static_cast<int64_t>(v);
  return true;
}

// "task <tgid> <tid> <state> <frames>" or "task <tgid> <tid> <state> error <errno>".
std::optional<TaskKernelStack> task_line(std::string_view line) {
  if (next_word(line) != "task") return std::nullopt;
  TaskKernelStack t;
  uint64_t state = 0;
  if (!parse_i64(next_word(line), t.pid) || !parse_i64(next_word(line), t.tid) ||
      !parse_u64(next_word(line), state))
    return std::nullopt;
  t.state = state;
  std::string_view rest = next_word(line);
  if (rest == "error") {
    int64_t err = 0;
    if (!parse_i64(next_word(line), err) || err == 0 || err > 4095) return std::nullopt;
    t.error = static_cast<int>(err);
    return t;
  }
  int64_t frames = 0;
  if (!parse_i64(rest, frames)) return std::nullopt;
  return t;
}

// What only schedules or waits generically: the frame above it names what
// the task waits for.
bool scheduler_frame(std::string_view f) {
  // clang-format off
  static constexpr std::string_view kExact[] = {
      "__schedule", "schedule", "io_schedule", "io_schedule_timeout", "schedule_timeout",
      "schedule_preempt_disabled", "schedule_hrtimeout", "schedule_hrtimeout_range",
      "schedule_hrtimeout_range_clock", "__wait_for_common", "do_wait_for_common", "wait_woken",
      "finish_wait", "prepare_to_wait", "prepare_to_wait_event", "__cond_resched", "preempt_schedule_common",
      "__bit_wait", "bit_wait", "bit_wait_io", "bit_wait_timeout", "__wait_on_bit", "__wait_on_bit_lock",
      "out_of_line_wait_on_bit", "out_of_line_wait_on_bit_lock", "__wait_event", "wait_for_completion",
      "wait_for_completion_io", "wait_for_completion_timeout", "wait_for_completion_killable",
      "wait_for_completion_interruptible", "wait_for_completion_state"};
  // clang-format on
  for (std::string_view e : kExact)
    if (f == e) return true;
  return f.rfind("preempt_schedule", 0) == 0 || f.rfind("schedule_timeout_", 0) == 0 ||
         f.rfind("__schedule_", 0) == 0;
}

}  // namespace

std::string frame_function_name(std::string_view printed) {
  std::string_view p = trim(printed);
  size_t plus = p.find('+');
  if (plus != std::string_view::npos && plus > 0) return std::string(p.substr(0, plus));
  size_t space = p.find(' ');
  return std::string(p.substr(0, space));
}

std::vector<TaskKernelStack> parse_kernel_stacks(std::string_view text) {
  std::vector<TaskKernelStack> out;
  TaskKernelStack* current = nullptr;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (line.rfind("task ", 0) == 0) {
      if (auto t = task_line(line)) {
        out.push_back(std::move(*t));
        current = out.back().error ? nullptr : &out.back();
      } else {
        current = nullptr;  // a malformed header: its frames belong to no task
      }
      continue;
    }
    if (!current || line.empty() || line.front() != ' ') continue;
    std::string fn = frame_function_name(line);
    if (fn.empty() || current->frames.size() >= kMaxKernelFrames) continue;
    current->frames.push_back(std::move(fn));
  }
  return out;
}

std::string top_meaningful_frame(const std::vector<std::string>& frames) {
  for (const auto& f : frames)
    if (!scheduler_frame(f)) return f;
  return "";
}

std::optional<FrameClass> stack_class(const std::vector<std::string>& frames) {
  for (const auto& f : frames)
    if (auto c = classify_frame(f)) return c;
  return std::nullopt;
}

KernelStackMeaning stack_meaning(const std::vector<std::string>& frames) {
  KernelStackMeaning m;
  if (frames.empty()) return m;
  m.top_frame = top_meaningful_frame(frames);
  m.frame_class = stack_class(frames);
  m.says = m.frame_class ? StackSays::kClass : StackSays::kFrames;
  return m;
}

bool tells_more(const std::vector<std::string>& candidate,
                const std::vector<std::string>& current) {
  return stack_meaning(candidate).says > stack_meaning(current).says;
}

std::string kernel_stacks_precondition(bool btf_present, std::optional<uint64_t> cap_effective) {
  std::string missing;
  if (!btf_present)
    missing =
        "the kernel has no BTF (/sys/kernel/btf/vmlinux is missing: a kernel built without "
        "CONFIG_DEBUG_INFO_BTF)";
  if (cap_effective) {
    auto held = [&](int cap) { return (*cap_effective >> cap) & 1; };
    const bool admin = held(kCapSysAdmin);
    std::string caps;
    if (!admin && !held(kCapBpf)) caps = "CAP_BPF";
    if (!admin && !held(kCapPerfmon))
      caps += std::string(caps.empty() ? "" : " and ") + "CAP_PERFMON";
    if (!caps.empty())
      missing += std::string(missing.empty() ? "" : "; ") + "the agent lacks " + caps +
                 " (add both to the container's capabilities: deploy/components/kernel-stacks)";
  }
  return missing;
}

bool status_seccomp_filtered(std::string_view status) {
  constexpr std::string_view kKey = "Seccomp:";
  while (!status.empty()) {
    const size_t eol = status.find('\n');
    std::string_view line = status.substr(0, eol);
    status.remove_prefix(eol == std::string_view::npos ? status.size() : eol + 1);
    if (line.substr(0, kKey.size()) != kKey) continue;
    line.remove_prefix(kKey.size());
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    return line.substr(0, 1) == "2" && (line.size() == 1 || line[1] == ' ' || line[1] == '\t');
  }
  return false;
}

std::string kernel_stacks_refusal_hint(int err, bool seccomp_filtered) {
  if ((err < 0 ? -err : err) != EPERM || !seccomp_filtered) return "";
  return "; the agent holds the capabilities but runs under a seccomp filter, which refuses bpf() when "
         "the container's profile has no rule for it (a RuntimeDefault profile allows it with CAP_BPF "
         "only where the runtime's profile has that rule: README, --kernel-stacks), unless an LSM "
         "refused it";
}

}  // namespace plegscope::host
