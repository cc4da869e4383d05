#include "report/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/format.h"
#include "report/time_format.h"

namespace plegscope {
namespace {

using text::fmt;
using text::number;

// Greedy word wrap, every line prefixed with `indent`.
std::string wrap(const std::string& text, const std::string& indent, size_t width = 92) {
  std::istringstream words(text);
  std::string word, line, out;
  while (words >> word) {
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

std::string pad(std::string s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

// Eight-level bars of the last relist durations, scaled to the largest.
std::string sparkline(const std::vector<TimelineEntry>& timeline, size_t n) {
  static const char* kBars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  size_t from = timeline.size() > n ? timeline.size() - n : 0;
  double top = 0;
  for (size_t i = from; i < timeline.size(); ++i) top = std::max(top, timeline[i].duration_seconds);
  std::string out;
  for (size_t i = from; i < timeline.size(); ++i) {
    if (timeline[i].error) {
      out += "x";
      continue;
    }
    int level = top > 0 ? static_cast<int>(std::lround(7 * timeline[i].duration_seconds / top)) : 0;
    out += kBars[std::clamp(level, 0, 7)];
  }
  return out;
}

}  // namespace

std::string format_seconds(double s) {
  if (s < 0) s = 0;
  if (s < 0.001 && s > 0) return fmt("%.0fµs", s * 1e6);
  if (s < 1) return fmt("%.0fms", s * 1000);
  if (s < 10) return fmt("%.2fs", s);
  if (s < 60) return fmt("%.1fs", s);
  long t = std::lround(s);
  char buf[48];
  if (t < 3600) std::snprintf(buf, sizeof(buf), "%ldm%lds", t / 60, t % 60);
  else std::snprintf(buf, sizeof(buf), "%ldh%ldm", t / 3600, (t % 3600) / 60);
  return buf;
}

std::string status_label(Status status) {
  switch (status) {
    case Status::kHealthy: return "HEALTHY";
    case Status::kAtRisk: return "AT RISK";
    case Status::kUnhealthy: return "UNHEALTHY";
  }
  return status_name(status);
}

std::string render_text(const Report& r) {
  std::ostringstream out;
  out << "plegscope diagnosis of node " << r.node << " at " << rfc3339(r.generated_at) << "\n\n";
  out << "STATUS: " << status_label(r.status);
  if (!r.healthy && !r.health_message.empty()) out << "  (PLEG is not healthy: " << r.health_message << ")";
  if (r.healthy && r.seconds_to_unhealthy)
    out << "  (unhealthy in about " << format_seconds(*r.seconds_to_unhealthy) << " at this rate)";
  out << "\n" << wrap(r.summary, "") << "\n";

  if (r.causes.empty()) {
    out << "Causes: none. Every rule found its signals within thresholds.\n\n";
  } else {
    out << "Causes, most likely first:\n";
    int i = 0;
    for (const auto& c : r.causes) {
      out << "\n  " << ++i << ". " << cause_name(c.id) << "  [" << severity_name(c.severity) << ", confidence " << fmt("%.2f", c.confidence)
          << "]\n";
      out << wrap(c.summary, "     ");
      out << "     evidence:\n";
      for (const auto& e : c.evidence) {
        out << "       " << pad(e.signal, 48) << " " << pad(number(e.value), 10, true);
        if (e.threshold) out << "   threshold " << number(*e.threshold);
        out << "\n";
      }
      out << "     remedy:\n" << wrap(c.remedy, "       ");
    }
    out << "\n";
  }

  size_t failed = std::count_if(r.timeline.begin(), r.timeline.end(), [](const auto& e) { return e.error.has_value(); });
  out << "Relist: period " << format_seconds(r.relist.period_seconds) << ", threshold "
      << format_seconds(r.relist.threshold_seconds) << ", last seen "
      << (r.relist.seconds_since_last_seen ? format_seconds(*r.relist.seconds_since_last_seen) + " ago" : "never");
  if (r.relist.in_progress_seconds) out << ", one in progress for " << format_seconds(*r.relist.in_progress_seconds);
  out << "\n  duration p50 " << format_seconds(r.relist.duration_p50_seconds) << ", p99 "
      << format_seconds(r.relist.duration_p99_seconds) << " over " << r.timeline.size() << " relists (" << failed
      << " failed)\n";
  if (r.relist.evented_fallback_reason)
    out << "  evented PLEG fell back to generic relisting: " << *r.relist.evented_fallback_reason << "\n";
  else if (r.relist.mode == "evented")
    out << "  evented PLEG active (GetContainerEvents); generic relist as a safety net\n";
  if (!r.timeline.empty()) out << "  last " << std::min<size_t>(60, r.timeline.size()) << ": " << sparkline(r.timeline, 60) << "\n";
  out << "\n";

  out << "Runtime: " << (r.runtime.name.empty() ? "unknown" : r.runtime.name + " " + r.runtime.version) << " at "
      << r.runtime.endpoint << "\n";
  if (!r.runtime.operations.empty()) {
    out << "  " << pad("operation", 22) << pad("count", 8, true) << pad("errors", 8, true) << pad("p50", 9, true)
        << pad("p99", 9, true) << pad("max", 9, true) << pad("in-flight", 11, true) << pad("oldest", 9, true) << "\n";
    for (const auto& [name, o] : r.runtime.operations)
      out << "  " << pad(name, 22) << pad(std::to_string(o.count), 8, true) << pad(std::to_string(o.errors), 8, true)
          << pad(format_seconds(o.p50_seconds), 9, true) << pad(format_seconds(o.p99_seconds), 9, true)
          << pad(format_seconds(o.max_seconds), 9, true) << pad(std::to_string(o.in_flight), 11, true)
          << pad(o.in_flight ? format_seconds(o.oldest_in_flight_seconds) : "-", 9, true) << "\n";
  }
  out << "\n";

  out << "Pods: " << r.pods.sandboxes << " sandboxes, " << r.pods.containers << " containers ("
      << r.pods.running_containers << " running, " << r.pods.exited_containers << " exited), "
      << r.pods.pods_to_reinspect << " to reinspect\n";
  out << "Events: p99 " << number(r.events.per_relist_p99) << " per relist, " << r.events.discarded_total
      << " discarded;";
  for (const auto& [type, n] : r.events.by_type) out << " " << type << " " << n;
  out << "\n";
  if (!r.events.top_pods.empty()) {
    out << "  top pods:";
    size_t shown = 0;
    for (const auto& p : r.events.top_pods) {
      if (shown++ == 5) break;
      out << " " << p.namespace_ << "/" << p.name << " (" << p.events << ")";
    }
    out << "\n";
  }
  const auto& p = r.node_pressure;
  out << "Node pressure: ";
  if (p.cpu_some_avg10 || p.io_some_avg10 || p.memory_some_avg10)
    out << "PSI some avg10 cpu " << (p.cpu_some_avg10 ? fmt("%.1f%%", *p.cpu_some_avg10) : "n/a") << ", io "
        << (p.io_some_avg10 ? fmt("%.1f%%", *p.io_some_avg10) : "n/a") << ", memory "
        << (p.memory_some_avg10 ? fmt("%.1f%%", *p.memory_some_avg10) : "n/a");
  else
    out << "PSI not available on this kernel";
  if (p.load1) out << "; load1 " << fmt("%.2f", *p.load1);
  if (p.pids) out << "; pids " << *p.pids << (p.pid_max ? "/" + std::to_string(*p.pid_max) : "");
  out << "\n";
  return out.str();
}

}  // namespace plegscope
