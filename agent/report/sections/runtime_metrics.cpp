// The runtime's own metrics page: the calls in flight inside the runtime.
#include "report/format.h"
#include "report/html.h"
#include "report/json_values.h"
#include "report/sections/section.h"

namespace plegscope::report {
namespace {

class RuntimeMetricsSection final : public Section {
 public:
  RuntimeMetricsSection()
      : Section(SectionId::kRuntimeMetrics, "runtime_metrics", {"runtime_metrics"}, "Runtime metrics: ",
                "runtime-metrics") {}

  void write_json(const Report& r, json& j) const override { j["runtime_metrics"] = r.runtime_metrics; }
  void read_json(const json& j, Report& r) const override {
    r.runtime_metrics = j.value("runtime_metrics", r.runtime_metrics);
  }

  void text(const Report& r, int, std::ostream& out) const override {
    const auto& m = r.runtime_metrics;
    out << "Runtime metrics: ";
    if (!m.reachable) {
      out << (m.endpoint.empty() ? "" : m.endpoint + " ") << "not read: " << m.error.value_or("") << "\n";
      return;
    }
    out << m.endpoint << "\n";
    if (m.in_flight.empty()) out << "  no call in flight inside the runtime\n";
    for (const auto& call : m.in_flight)
      out << "  in flight: " << call.method << " x" << text::number(call.count) << " for "
          << text::elapsed(call.seconds) << "\n";
  }

  void html(const Report& r, int, std::ostream& h) const override {
    h << "<h2>Runtime metrics</h2><section id=\"runtime-metrics\">";
    const auto& m = r.runtime_metrics;
    if (!m.reachable) {
      h << "<p class=\"over\">" << html_escape((m.endpoint.empty() ? "" : m.endpoint + ": ") + m.error.value_or(""))
        << "</p>";
    } else {
      h << "<p><code>" << html_escape(m.endpoint)
        << "</code></p><table><tr><th>in flight inside the runtime</th><th "
           "class=\"n\">calls</th><th class=\"n\">for</th></tr>";
      if (m.in_flight.empty()) h << "<tr><td colspan=\"3\">none</td></tr>";
      for (const auto& call : m.in_flight)
        h << "<tr><td><code>" << html_escape(call.method) << "</code></td><td class=\"n\">"
          << text::number(call.count) << "</td><td class=\"n\">" << text::elapsed(call.seconds) << "</td></tr>";
      h << "</table>";
    }
    h << "</section>";
  }
};

}  // namespace

const Section& runtime_metrics_section() {
  static const RuntimeMetricsSection section;
  return section;
}

}  // namespace plegscope::report
