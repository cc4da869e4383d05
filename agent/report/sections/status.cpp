// The report's head: the node's status, the summary, the forecast, and the
// agent's own blindness; on the HTML page also the key figures' cards.
#include <algorithm>

#include "report/format.h"
#include "report/host_sections.h"
#include "report/html.h"
#include "report/json_values.h"
#include "report/sections/render_util.h"
#include "report/sections/section.h"
#include "report/text.h"

namespace plegscope::report {
namespace {

using text::elapsed;

const char* status_class(Status status) {
  if (status == Status::kHealthy) return "ok";
  if (status == Status::kAtRisk) return "warn";
  return "bad";
}

void banner_html(const Report& r, std::ostream& h) {
  h << "<section id=\"status\" class=\"banner " << status_class(r.status) << "\" data-status=\""
    << status_name(r.status) << "\"><div class=\"status\">" << status_label(r)
    << "</div><div class=\"summary\">" << with_code(r.summary)
    << "</div><div class=\"meta\">node <b>" << html_escape(r.node) << "</b> · "
    << rfc3339(r.generated_at);
  if (r.blind)
    h << " · <b id=\"blind\">plegscope is blind (" << html_escape(r.blind->reason) << ")</b>";
  else if (!r.healthy)
    h << " · PLEG is not healthy: " << html_escape(r.health_message);
  if (r.healthy && r.seconds_to_unhealthy)
    h << " · unhealthy in about <b>" << elapsed(*r.seconds_to_unhealthy) << "</b> at this rate";
  if (r.relist.events_late_by_seconds)
    h << " · <b id=\"events-late\">" << html_escape(lateness(*r.relist.events_late_by_seconds))
      << "</b>";
  h << "</div>";
  if (auto stuck = stuck_pod_line(r))  // the pod that holds the node, first
    h << "<div class=\"meta\" id=\"stuck-pod\"><b>Stuck pod:</b> " << html_escape(*stuck) << "</div>";
  h << "</section>\n";
}

void card(std::ostream& h, const std::string& k, const std::string& v, const std::string& sub) {
  h << "<div class=\"card\"><div class=\"k\">" << html_escape(k) << "</div><div class=\"v\">"
    << html_escape(v) << "</div><div class=\"s\">" << html_escape(sub) << "</div></div>";
}

// Key figures under the banner.
void cards_html(const Report& r, std::ostream& h) {
  h << "<div class=\"cards\">";
  card(h, "last relist seen",
       r.relist.seconds_since_last_seen ? elapsed(*r.relist.seconds_since_last_seen) + " ago" : "never",
       "threshold " + elapsed(r.relist.threshold_seconds) +
           (r.relist.in_progress_seconds ? ", one running for " + elapsed(*r.relist.in_progress_seconds) : ""));
  const bool any_completed = std::any_of(r.timeline.begin(), r.timeline.end(),
                                         [](const TimelineEntry& e) { return !e.in_progress; });
  // The node now: the period in use (stretched while the runtime struggles),
  // and a relist still running that is longer than the completed ones.
  const std::string every = r.relist.stretched_period_seconds
                                ? "every " + elapsed(*r.relist.stretched_period_seconds) + " (stretched from " +
                                      elapsed(r.relist.period_seconds) + ")"
                                : "every " + elapsed(r.relist.period_seconds);
  const std::string completed = any_completed ? elapsed(r.relist.duration_p50_seconds) + " p50, " +
                                                    elapsed(r.relist.duration_p99_seconds) + " p99"
                                              : "none completed";
  const auto& running = r.relist.in_progress_seconds;
  if (running && (!any_completed || *running > r.relist.duration_p99_seconds))
    card(h, "relist duration", elapsed(*running) + " and running", completed + "; " + every);
  else if (any_completed)
    card(h, "relist duration", elapsed(r.relist.duration_p50_seconds) + " p50",
         elapsed(r.relist.duration_p99_seconds) + " p99, " + every);
  else
    card(h, "relist duration", "none completed", every);
  card(h, "containers", std::to_string(r.pods.containers),
       std::to_string(r.pods.sandboxes) + " sandboxes, " + std::to_string(r.pods.exited_containers) + " exited, " +
           std::to_string(r.pods.pods_to_reinspect) + " to reinspect");
  card(h, "runtime", r.runtime.name.empty() ? "unknown" : r.runtime.name + " " + r.runtime.version,
       r.runtime.endpoint);
  h << "</div>\n";
}

class StatusSection final : public Section {
 public:
  StatusSection()
      : Section(SectionId::kStatus, "status",
                {"schema_version", "node", "generated_at", "healthy", "health_message", "status", "summary", "blind",
                 "forecast"},
                "plegscope diagnosis of node", "status") {}

  void write_json(const Report& r, json& j) const override {
    j["schema_version"] = r.schema_version;
    j["node"] = r.node;
    j["generated_at"] = r.generated_at;
    j["healthy"] = r.healthy;
    j["health_message"] = r.health_message;
    j["status"] = r.status;
    j["summary"] = r.summary;
    j["forecast"] = {{"seconds_to_unhealthy", r.seconds_to_unhealthy}};
    // Always present: null while the agent sees the runtime.
    j["blind"] = r.blind ? json{{"reason", r.blind->reason}, {"endpoint", r.blind->endpoint}, {"fix", r.blind->fix}}
                         : json(nullptr);
  }

  void read_json(const json& j, Report& r) const override {
    r.schema_version = j.value("schema_version", r.schema_version);
    r.node = j.value("node", r.node);
    r.generated_at = j.value("generated_at", r.generated_at);
    r.healthy = j.value("healthy", r.healthy);
    r.health_message = j.value("health_message", r.health_message);
    r.status = j.at("status").get<Status>();
    r.summary = j.value("summary", r.summary);
    if (const auto b = j.find("blind"); b != j.end() && b->is_object())
      r.blind = Report::Blind{b->value("reason", ""), b->value("endpoint", ""), b->value("fix", "")};
    if (auto forecast = j.find("forecast"); forecast != j.end() && forecast->is_object())
      r.seconds_to_unhealthy = forecast->value("seconds_to_unhealthy", r.seconds_to_unhealthy);
  }

  // Part 0 the status line; part 1 the summary, after the runtime's Status.
  void text(const Report& r, int part, std::ostream& out) const override {
    if (part == 1) {
      out << wrap(r.summary, "") << "\n";
      return;
    }
    out << "plegscope diagnosis of node " << r.node << " at " << rfc3339(r.generated_at) << "\n\n";
    out << "STATUS: " << status_label(r);
    if (r.blind)
      out << "  (plegscope cannot see the runtime: " << r.blind->reason << "; the node is not judged)";
    else if (!r.healthy && !r.health_message.empty())
      out << "  (PLEG is not healthy: " << r.health_message << ")";
    if (r.healthy && r.seconds_to_unhealthy)
      out << "  (unhealthy in about " << elapsed(*r.seconds_to_unhealthy) << " at this rate)";
    out << "\n";
  }

  void html(const Report& r, int, std::ostream& out) const override {
    banner_html(r, out);
    cards_html(r, out);
  }
};

}  // namespace

const Section& status_section() {
  static const StatusSection section;
  return section;
}

}  // namespace plegscope::report
