// The runtime's CRI Status as the kubelet reads it, and which of the
// kubelet's two paths to NotReady the node is on or nearest to: 30 s
// without a good Status answer, or the PLEG's relist threshold.
#include "report/format.h"
#include "report/html.h"
#include "report/json_values.h"
#include "report/sections/render_util.h"
#include "report/sections/section.h"

namespace plegscope::report {
namespace {

using text::elapsed;

std::string paths_line(const Report& r) {
  const Report::RuntimeStatus& s = r.runtime_status;
  // Read from the kubelet (its metrics or its Node's Ready message), or only
  // the kubelet's rules applied by plegscope: the line says which.
  const bool kubelet_read = r.kubelet.reachable || (r.kubelet.ready_message && !r.kubelet.ready_message->empty());
  std::string out = kubelet_read ? "KUBELET: " : "KUBELET (plegscope's reckoning by the kubelet's rules; the kubelet was not read): ";
  const bool on = s.not_ready_in_seconds && *s.not_ready_in_seconds <= 0;
  if (s.not_ready_path == "both")
    out += "NotReady on both paths: the runtime's Status and PLEG";
  else if (s.not_ready_path == "runtime_status")
    out += on ? "NotReady through the runtime's Status (before PLEG's threshold)"
              : "NotReady through the runtime's Status in " + elapsed(s.not_ready_in_seconds.value_or(0));
  else
    out += on ? "NotReady through PLEG" : "NotReady through PLEG in " + elapsed(s.not_ready_in_seconds.value_or(0));
  for (size_t i = 0; i < s.kubelet_errors.size(); ++i) out += (i ? "; " : " (") + s.kubelet_errors[i];
  if (!s.kubelet_errors.empty()) out += ")";
  if (s.ready_message_path && *s.ready_message_path != "other")
    out += ". The kubelet's Ready message names " +
           std::string(*s.ready_message_path == "both" ? "both" : *s.ready_message_path == "pleg" ? "PLEG" : "the runtime's Status");
  return out;
}

void condition_row(std::ostream& h, const char* label, const std::optional<RuntimeConditionValue>& c) {
  h << "<tr><td>" << label << "</td><td>";
  if (!c)
    h << "not given";
  else
    h << (c->status ? "true" : "false") << (c->reason.empty() ? "" : " (" + html_escape(c->reason) + ")")
      << (c->message.empty() ? "" : ": " + html_escape(c->message));
  h << "</td></tr>";
}

class RuntimeStatusSection final : public Section {
 public:
  RuntimeStatusSection() : Section(SectionId::kRuntimeStatus, "runtime_status", {"runtime_status"}, "KUBELET", "runtime-status") {}

  // Shown while the node is on, or near, one of the kubelet's NotReady paths.
  bool shown(const Report& r) const override { return r.runtime_status.not_ready_path != "none"; }

  void write_json(const Report& r, json& j) const override { j["runtime_status"] = r.runtime_status; }
  void read_json(const json& j, Report& r) const override {
    r.runtime_status = j.value("runtime_status", r.runtime_status);
  }

  void text(const Report& r, int, std::ostream& out) const override { out << wrap(paths_line(r) + "\n", ""); }

  void html(const Report& r, int, std::ostream& h) const override {
    const Report::RuntimeStatus& s = r.runtime_status;
    h << "<h2>The runtime's Status and the kubelet's NotReady paths</h2><section id=\"runtime-status\" "
         "data-path=\""
      << html_escape(s.not_ready_path) << "\"><p class=\"over\">" << html_escape(paths_line(r)) << "</p>";
    if (s.enabled) {
      h << "<table><tr><td>last good Status answer</td><td>"
        << (s.seconds_since_success ? elapsed(*s.seconds_since_success) + " ago" : std::string("none yet"))
        << "</td></tr>";
      if (s.in_flight_seconds) h << "<tr><td>Status in flight</td><td>" << elapsed(*s.in_flight_seconds) << "</td></tr>";
      condition_row(h, "RuntimeReady", s.runtime_ready);
      condition_row(h, "NetworkReady", s.network_ready);
      if (s.last_error)
        h << "<tr class=\"over\"><td>last error (" << s.failures_in_a_row << " in a row)</td><td>"
          << html_escape(*s.last_error) << "</td></tr>";
      h << "</table>";
    }
    h << "</section>\n";
  }
};

}  // namespace

const Section& runtime_status_section() {
  static const RuntimeStatusSection section;
  return section;
}

}  // namespace plegscope::report
