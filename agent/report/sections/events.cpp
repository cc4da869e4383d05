// The pods and their events, the events' lag, and the node's pressure: what
// the relists found and what the node carried meanwhile.
#include "report/format.h"
#include "report/html.h"
#include "report/json_values.h"
#include "report/lag_text.h"
#include "report/sections/render_util.h"
#include "report/sections/section.h"

namespace plegscope::report {
namespace {

using text::elapsed;
using text::fmt;
using text::number;

void pods_and_events_text(const Report& r, std::ostream& out) {
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
  out << hanging_wrap("Event lag: " + lag_figures(r), "", "  ");
  if (auto evented = evented_lag_text(r)) out << hanging_wrap(*evented, "  ", "    ");
  if (auto harm = lag_harm(r)) out << "  " << *harm << "\n";
  if (!r.event_lag.worst_pods.empty()) {
    std::string worst = "worst:";
    size_t shown = 0;
    for (const auto& pod : r.event_lag.worst_pods) {
      if (shown++ == 5) break;
      worst += (shown > 1 ? ", " : " ") + lag_pod(pod);
    }
    out << hanging_wrap(worst, "  ", "    ");
  }
}

void pressure_text(const Report& r, std::ostream& out) {
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
}

void top_pods_html(const Report& r, std::ostream& h) {
  h << "<h2>Top pods by events</h2><table id=\"top-pods\"><tr><th>pod</th><th "
       "class=\"n\">events</th></tr>";
  if (r.events.top_pods.empty()) h << "<tr><td colspan=\"2\">no events in the timeline</td></tr>";
  for (const auto& p : r.events.top_pods)
    h << "<tr><td>" << html_escape(p.namespace_) << "/" << html_escape(p.name) << "</td><td class=\"n\">" << p.events
      << "</td></tr>";
  h << "</table>";
}

// The window's figures and the pods that saw changes latest, marked by the
// harm the kubelet's lag does: the agent's own back-off (a stretched
// period) is no harm to the node.
void event_lag_html(const Report& r, std::ostream& h) {
  const auto harm = lag_harm(r);
  h << "<h2>Event lag</h2><table id=\"event-lag\" data-material=\"" << (harm && lag_is_material(r) ? "true" : "false")
    << "\"><tr><td colspan=\"2\"" << (harm && lag_is_material(r) ? " class=\"over\"" : "") << ">"
    << html_escape(lag_figures(r));
  if (harm) h << ": " << html_escape(*harm);
  h << "</td></tr>";
  if (auto evented = evented_lag_text(r))
    h << "<tr id=\"evented-lag\"><td colspan=\"2\"" << (evented_lag_is_material(r) ? " class=\"over\"" : "") << ">"
      << html_escape(*evented) << "</td></tr>";
  for (const auto& pod : r.event_lag.worst_pods)
    h << "<tr><td>" << html_escape(pod.namespace_) << "/" << html_escape(pod.name)
      << (pod.container.empty() ? "" : " (" + html_escape(pod.container) + ")") << " " << html_escape(pod.event_type)
      << "</td><td class=\"n\">" << elapsed(pod.lag_seconds) << "</td></tr>";
  h << "</table>";
}

void events_and_node_html(const Report& r, std::ostream& h) {
  h << "<h2>Events and node</h2><table><tr><td>events per relist, p99</td><td class=\"n\">"
    << number(r.events.per_relist_p99) << "</td></tr><tr><td>events discarded (channel full)</td><td class=\"n"
    << (r.events.discarded_total ? " over" : "") << "\">" << r.events.discarded_total << "</td></tr>";
  for (const auto& [type, n] : r.events.by_type)
    h << "<tr><td>" << html_escape(type) << "</td><td class=\"n\">" << n << "</td></tr>";
  const auto& p = r.node_pressure;
  auto pct = [](const std::optional<double>& v) { return v ? fmt("%.1f%%", *v) : std::string("n/a (no PSI)"); };
  h << "<tr><td>CPU pressure (some, avg10)</td><td class=\"n\">" << pct(p.cpu_some_avg10) << "</td></tr>"
    << "<tr><td>IO pressure (some, avg10)</td><td class=\"n\">" << pct(p.io_some_avg10) << "</td></tr>"
    << "<tr><td>memory pressure (some, avg10)</td><td class=\"n\">" << pct(p.memory_some_avg10) << "</td></tr>"
    << "<tr><td>load1</td><td class=\"n\">" << (p.load1 ? fmt("%.2f", *p.load1) : "n/a") << "</td></tr>"
    << "<tr><td>pids / pid_max</td><td class=\"n\">" << (p.pids ? std::to_string(*p.pids) : "n/a") << " / "
    << (p.pid_max ? std::to_string(*p.pid_max) : "n/a") << "</td></tr></table>";
}

class EventsSection final : public Section {
 public:
  EventsSection()
      : Section(SectionId::kEvents, "events", {"pods", "events", "event_lag", "node_pressure"}, "Pods: ", "top-pods") {}

  void write_json(const Report& r, json& j) const override {
    j["pods"] = r.pods;
    j["events"] = r.events;
    j["event_lag"] = r.event_lag;
    j["node_pressure"] = r.node_pressure;
  }
  void read_json(const json& j, Report& r) const override {
    r.pods = j.value("pods", r.pods);
    r.events = j.value("events", r.events);
    r.event_lag = j.value("event_lag", r.event_lag);
    r.node_pressure = j.value("node_pressure", r.node_pressure);
  }

  void text(const Report& r, int, std::ostream& out) const override {
    pods_and_events_text(r, out);
    pressure_text(r, out);
  }

  void html(const Report& r, int, std::ostream& h) const override {
    top_pods_html(r, h);
    event_lag_html(r, h);
    events_and_node_html(r, h);
  }
};

}  // namespace

const Section& events_section() {
  static const EventsSection section;
  return section;
}

}  // namespace plegscope::report
