#include "report/host_sections.h"

#include <sstream>

#include "report/format.h"
#include "report/html.h"
#include "report/wording.h"

namespace plegscope {
namespace {

using text::elapsed;
using text::fmt;

std::string short_id(const std::string& id) { return id.size() > 12 ? id.substr(0, 12) : id; }

std::string call_pod(const PodCallReport& p) {
  std::string who = p.pod.empty() ? (p.uid.empty() ? "sandbox " + short_id(p.sandbox_id) : "uid " + p.uid) : p.pod;
  if (!p.container.empty()) who += " container " + p.container;
  return who;
}

std::string limit_text(const HostReport::PidLimit& l) {
  return l.scope + " " + std::to_string(l.current) + "/" + (l.max ? std::to_string(*l.max) : "max") +
         (l.max && *l.max > 0 ? fmt(" (%.0f%%)", 100.0 * l.current / *l.max) : "");
}

// "containerd-shim pid 812 (12 of 12 threads in D) D 40s at ovl_sync_fs", one
// line per process, its worst task's state and wchan; a hidden wchan says why.
std::string blocked_text(const HostReport::Blocked& b) {
  std::string tasks;
  if (b.tasks_in_d > 1 || b.threads > 1)
    tasks = " (" + std::to_string(b.tasks_in_d) + (b.threads > 0 ? " of " + std::to_string(b.threads) : "") +
            (b.threads == 1 ? " thread" : " threads") + " in D)";
  std::string where;
  if (!b.frozen_cgroup.empty())
    where = std::string(b.freeze_incomplete ? "freezing (never completes)" : "frozen") + " in cgroup v2 " +
            b.frozen_cgroup + (b.wchan.empty() || b.wchan == "0" ? "" : " at " + b.wchan);
  else if (b.wchan_hidden.empty() && !b.wchan.empty() && b.wchan != "0")
    where = "at " + b.wchan;
  else if (b.wchan_hidden == "missing_capabilities")
    where = "wchan hidden (reads 0: without CAP_SYS_PTRACE plegscope lacks capabilities this process holds)";
  else if (b.wchan_hidden == "other_user")
    where = "wchan hidden (reads 0: another user's process, and plegscope lacks CAP_SYS_PTRACE)";
  else if (b.wchan_hidden == "denied")
    where = "wchan hidden (reads 0: an LSM or a non-dumpable process denies the read)";
  else if (b.wchan_hidden == "unknown_credentials")
    where = "wchan hidden (reads 0; the credentials that would say why are unreadable)";
  else
    where = "wchan unreadable";
  std::string line = b.comm + " pid " + std::to_string(b.pid) + tasks + " " + b.state + " " + elapsed(b.seconds) + " " + where;
  if (b.kernel_stack && !b.kernel_stack->frames.empty()) {
    line += "; kernel stack (tid " + std::to_string(b.kernel_stack->tid) + ")";
    if (!b.kernel_stack->top.empty()) line += " at " + b.kernel_stack->top;
    if (!b.kernel_stack->frame_class.empty()) line += " [" + b.kernel_stack->frame_class + "]";
    line += ":";
    const size_t shown = std::min<size_t>(b.kernel_stack->frames.size(), 8);
    for (size_t i = 0; i < shown; ++i) line += (i ? " < " : " ") + b.kernel_stack->frames[i];
    if (b.kernel_stack->frames.size() > shown) line += " < ...";
  }
  return line;
}

// The pod a zombie parent belongs to, as far as it is known.
std::string zombie_pod(const HostReport::ZombieParent& z) {
  if (!z.pod.empty()) return "  pod " + z.pod;
  if (!z.pod_uid.empty()) return "  pod uid " + z.pod_uid;
  if (!z.sandbox_id.empty()) return "  sandbox " + short_id(z.sandbox_id);
  return "";
}

constexpr size_t kUnmappedShown = 20;

// "3 shims, each mapped to its pod" / "5 shims, 3 mapped to their pods, 2 unmapped".
// The list holds the unmapped first, so a cut list misses only mapped ones,
// unless it is unmapped to its end.
std::string shims_summary(const HostReport::Processes& p) {
  size_t unmapped = 0;
  for (const auto& s : p.shims) unmapped += s.pod.empty();
  const bool cut = static_cast<int64_t>(p.shims.size()) < p.shims_total;
  std::string line = std::to_string(p.shims_total) + (p.shims_total == 1 ? " shim" : " shims");
  if (p.shims_total == 0) return line;
  if (cut && unmapped == p.shims.size()) return line + ", at least " + std::to_string(unmapped) + " unmapped";
  const int64_t mapped = p.shims_total - static_cast<int64_t>(unmapped);
  if (unmapped == 0)
    line += p.shims_total == 1 ? ", mapped to its pod" : ", each mapped to its pod";
  else
    line += ", " + std::to_string(mapped) + " mapped to " + (mapped == 1 ? "its pod" : "their pods") + ", " +
            std::to_string(unmapped) + " unmapped";
  if (cut) line += " (" + std::to_string(p.shims.size()) + " listed)";
  return line;
}

// Why a shim has no pod: its sandbox is not one the runtime lists (a leak),
// or its command line was not read (yet).
std::string unmapped_shim(const HostReport::Shim& s) {
  std::string line = s.comm + " pid " + std::to_string(s.pid) + " " + s.state +
                     (s.seconds ? ", up " + elapsed(*s.seconds) : std::string());
  if (!s.sandbox_id.empty())
    line += ": sandbox " + short_id(s.sandbox_id) + " is not one the runtime lists (a leaked shim?)";
  else if (!s.container_id.empty())
    line += ": container " + short_id(s.container_id) + " is not one the runtime lists (a leaked conmon?)";
  else
    line += ": its sandbox is not known (command line not read)";
  return line;
}

// The kernel's reports no blocked process took (another task, a task no
// longer in D, a kworker), and whether the kernel stopped reporting.
std::vector<std::string> kernel_report_lines(const Report& r) {
  std::vector<std::string> lines;
  const HostReport& h = r.host;
  for (const auto& k : h.hung_tasks) {
    bool attached = false;
    for (const auto& b : h.processes.blocked)
      attached = attached || (b.hung_task && b.hung_task->pid == k.pid && b.hung_task->time == k.time);
    if (attached) continue;
    std::string classes;
    for (const auto& c : k.classes) classes += (classes.empty() ? "" : ", ") + c;
    std::string frames;
    for (size_t i = 0; i < k.frames.size() && i < 6; ++i) frames += (i ? " < " : "") + k.frames[i];
    lines.push_back(rfc3339(k.time) + " " + k.comm + " pid " + std::to_string(k.pid) +
                    (k.tgid != 0 && k.tgid != k.pid ? " (tgid " + std::to_string(k.tgid) + ")" : "") +
                    " blocked for more than " + elapsed(static_cast<double>(k.blocked_seconds)) +
                    (classes.empty() ? "" : ", waits on " + classes) + (frames.empty() ? "" : ": " + frames) +
                    (k.truncated ? " (trace cut short)" : ""));
  }
  if (h.hung_tasks_suppressed_since)
    lines.push_back("the kernel stopped reporting hung tasks at " + rfc3339(*h.hung_tasks_suppressed_since) +
                    " (kernel.hung_task_warnings ran out): a hang since then goes unreported");
  return lines;
}

std::string kernel_reports_text(const Report& r) {
  std::string out;
  for (const auto& line : kernel_report_lines(r)) out += "  kernel hung-task report: " + line + "\n";
  return out;
}

}  // namespace

std::optional<std::string> stuck_pod_line(const Report& r) {
  bool hang = false;
  for (const auto& c : r.causes) hang = hang || c.id == CauseId::kShimHung || c.id == CauseId::kRuntimeHung;
  if (!hang) return std::nullopt;
  const HostReport::Blocked* helper = nullptr;
  for (const auto& b : r.host.processes.blocked)
    if (!b.sandbox_id.empty()) {
      helper = &b;
      break;
    }
  const PodCallReport* call = nullptr;
  for (const auto& p : r.runtime.slowest_pods)
    if (p.in_flight && (!call || p.seconds > call->seconds)) call = &p;
  if (helper)
    for (const auto& p : r.runtime.slowest_pods)
      if (p.in_flight && p.sandbox_id == helper->sandbox_id) call = &p;
  if (!helper && !call) return std::nullopt;
  std::string line;
  if (call) {
    line = call_pod(*call) + (call->sandbox_id.empty() ? "" : " (sandbox " + short_id(call->sandbox_id) + ")") +
           ": " + cri_method(call->op) + " in flight for " + elapsed(call->seconds);
  } else {
    line = (helper->pod.empty() ? "sandbox " + short_id(helper->sandbox_id) : helper->pod + " (sandbox " +
                                                                                 short_id(helper->sandbox_id) + ")");
  }
  if (helper && (!call || call->sandbox_id == helper->sandbox_id))
    line += (call ? "; its " : ": its ") + helper->comm + " (pid " + std::to_string(helper->pid) + ")" +
            (helper->frozen_cgroup.empty() ? " in D" : " frozen") +
            (helper->wchan_hidden.empty() && !helper->wchan.empty() && helper->wchan != "0" ? " at " + helper->wchan
                                                                                             : "");
  return line;
}

void host_text(const Report& r, std::ostream& out) {
  if (!r.runtime.slowest_pods.empty()) {
    out << "Slowest per-pod calls:\n";
    for (const auto& p : r.runtime.slowest_pods)
      out << "  " << text::elapsed(p.seconds) << (p.in_flight ? " (in flight)" : "") << "  "
          << cri_method(p.op) << "  " << call_pod(p)
          << (p.sandbox_id.empty() ? "" : "  sandbox " + short_id(p.sandbox_id)) << "\n";
  }
  const HostReport& h = r.host;
  out << "Host: ";
  if (!h.reachable) {
    out << "not read (" << h.error.value_or("unknown reason") << ")\n";
    return;
  }
  if (h.processes.error) {
    out << "processes unreadable (" << *h.processes.error << ")";
  } else {
    out << h.processes.helpers << " runtime processes, " << h.processes.blocked.size() << " blocked in D, "
        << h.processes.zombies << " zombies";
  }
  out << "\n";
  for (const auto& b : h.processes.blocked) {
    out << "  blocked: " << blocked_text(b)
        << (b.pod.empty() ? "" : "  pod " + b.pod) << (b.sandbox_id.empty() ? "" : "  sandbox " + short_id(b.sandbox_id))
        << "\n";
    if (b.hung_task) out << "    kernel: " << hung_task_words(*b.hung_task) << "\n";
  }
  out << kernel_reports_text(r);
  const auto& ks = h.processes.kernel_stacks;
  if (ks.enabled)
    out << "  kernel stacks: "
        << (ks.available ? std::to_string(ks.tasks_read) + " of " + std::to_string(ks.tasks_asked) + " tasks in D read"
                         : std::string("unavailable, wchan and the hung-task reports stand in"))
        << (ks.error ? " (" + *ks.error + ")" : std::string()) << "\n";
  for (const auto& z : h.processes.zombie_parents)
    out << "  zombies: " << z.count << " under " << (z.comm.empty() ? "?" : z.comm) << " pid " << z.pid
        << zombie_pod(z) << "\n";
  if (!h.processes.error) {
    out << "  shims: " << shims_summary(h.processes) << "\n";
    size_t shown = 0;
    for (const auto& s : h.processes.shims)
      if (s.pod.empty() && shown++ < kUnmappedShown) out << "    unmapped: " << unmapped_shim(s) << "\n";
    if (shown > kUnmappedShown) out << "    ... and " << shown - kUnmappedShown << " more unmapped\n";
  }
  out << cgroup_v2_text(h);
  if (!h.pid_limits.empty()) {
    out << "  pid limits:";
    for (const auto& l : h.pid_limits) out << " " << limit_text(l) << ";";
    out << "\n";
  }
  const auto& d = h.runtime_disk;
  out << "  runtime disk: ";
  if (!d.device.empty())
    out << d.device << " at " << d.mount << ", "
        << (d.latency_ms ? fmt("%.1f ms per IO", *d.latency_ms) : std::string("no rate yet"))
        << (d.utilization ? fmt(", %.0f%% busy", *d.utilization * 100) : std::string());
  else
    out << "unknown";
  if (d.error) out << " (" << *d.error << ")";
  out << "\n";
}

std::string host_html(const Report& r) {
  std::ostringstream h;
  h << "<h2>Slowest per-pod calls</h2><table id=\"slowest-pods\"><tr><th>pod</th><th>sandbox</th><th>call</th>"
       "<th class=\"n\">seconds</th></tr>";
  if (r.runtime.slowest_pods.empty()) h << "<tr><td colspan=\"4\">no per-pod calls in the window</td></tr>";
  for (const auto& p : r.runtime.slowest_pods)
    h << "<tr><td>" << html_escape(call_pod(p)) << "</td><td><code>" << html_escape(short_id(p.sandbox_id))
      << "</code></td><td>" << html_escape(cri_method(p.op)) << (p.in_flight ? " (in flight)" : "")
      << "</td><td class=\"n\">" << elapsed(p.seconds) << "</td></tr>";
  h << "</table>\n<h2>Host</h2><table id=\"host\">";
  const HostReport& host = r.host;
  if (!host.reachable) {
    h << "<tr><td>not read</td><td>" << html_escape(host.error.value_or("unknown reason")) << "</td></tr></table>\n";
    return h.str();
  }
  for (const auto& line : kernel_report_lines(r))
    h << "<tr><td>kernel hung-task report</td><td>" << html_escape(line) << "</td></tr>";
  if (host.processes.error)
    h << "<tr><td>processes</td><td>unreadable: " << html_escape(*host.processes.error) << "</td></tr>";
  else
    h << "<tr><td>runtime processes</td><td class=\"n\">" << host.processes.helpers << "</td></tr>"
      << "<tr><td>zombies</td><td class=\"n\">" << host.processes.zombies << "</td></tr>";
  for (const auto& b : host.processes.blocked)
    h << "<tr class=\"over\"><td>blocked in D</td><td>" << html_escape(blocked_text(b))
      << (b.pod.empty() ? "" : " · pod " + html_escape(b.pod))
      << (b.hung_task ? "<br>kernel: " + html_escape(hung_task_words(*b.hung_task)) : std::string()) << "</td></tr>";
  for (const auto& z : host.processes.zombie_parents)
    h << "<tr><td>zombie parent</td><td>" << html_escape(z.comm) << " pid " << z.pid << ": " << z.count
      << html_escape(zombie_pod(z)) << "</td></tr>";
  if (!host.processes.error) {
    h << "<tr><td>shims</td><td>" << html_escape(shims_summary(host.processes)) << "</td></tr>";
    size_t shown = 0;
    for (const auto& s : host.processes.shims)
      if (s.pod.empty() && shown++ < kUnmappedShown)
        h << "<tr class=\"over\"><td>unmapped shim</td><td>" << html_escape(unmapped_shim(s)) << "</td></tr>";
  }
  for (const auto& l : host.pid_limits)
    h << "<tr><td>pid limit</td><td>" << html_escape(limit_text(l)) << "</td></tr>";
  const auto& d = host.runtime_disk;
  h << "<tr><td>runtime disk</td><td>"
    << html_escape(d.device.empty() ? std::string("unknown") : d.device + " at " + d.mount)
    << (d.latency_ms ? fmt(", %.1f ms per IO", *d.latency_ms) : std::string())
    << (d.utilization ? fmt(", %.0f%% busy", *d.utilization * 100) : std::string())
    << (d.error ? " (" + html_escape(*d.error) + ")" : std::string()) << "</td></tr></table>\n";
  return h.str();
}

}  // namespace plegscope
