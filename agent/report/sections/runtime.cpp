// The runtime the agent talks to, and its CRI operations' figures.
#include "report/format.h"
#include "report/html.h"
#include "report/json_values.h"
#include "report/sections/render_util.h"
#include "report/sections/section.h"

namespace plegscope::report {
namespace {

using text::elapsed;

class RuntimeSection final : public Section {
 public:
  RuntimeSection() : Section(SectionId::kRuntime, "runtime", {"runtime"}, "Runtime: ", "operations") {}

  void write_json(const Report& r, json& j) const override { j["runtime"] = r.runtime; }
  void read_json(const json& j, Report& r) const override { r.runtime = j.value("runtime", r.runtime); }

  void text(const Report& r, int, std::ostream& out) const override {
    out << "Runtime: " << (r.runtime.name.empty() ? "unknown" : r.runtime.name + " " + r.runtime.version) << " at "
        << r.runtime.endpoint << "\n";
    if (!r.runtime.operations.empty()) {
      out << "  " << pad("operation", 22) << pad("count", 8, true) << pad("errors", 8, true) << pad("p50", 9, true)
          << pad("p99", 9, true) << pad("max", 9, true) << pad("in-flight", 11, true) << pad("oldest", 9, true)
          << "\n";
      for (const auto& [name, o] : r.runtime.operations)
        out << "  " << pad(name, 22) << pad(std::to_string(o.count), 8, true)
            << pad(std::to_string(o.errors), 8, true) << pad(elapsed(o.p50_seconds), 9, true)
            << pad(elapsed(o.p99_seconds), 9, true) << pad(elapsed(o.max_seconds), 9, true)
            << pad(std::to_string(o.in_flight), 11, true)
            << pad(o.in_flight ? elapsed(o.oldest_in_flight_seconds) : "-", 9, true) << "\n";
    }
    out << "\n";
  }

  void html(const Report& r, int, std::ostream& h) const override {
    h << "<h2>CRI operations</h2><table "
         "id=\"operations\"><tr><th>operation</th><th class=\"n\">count</th>"
         "<th class=\"n\">errors</th><th class=\"n\">p50</th><th class=\"n\">p99</th><th "
         "class=\"n\">max</th>"
         "<th class=\"n\">in flight</th><th class=\"n\">oldest</th></tr>";
    for (const auto& [name, o] : r.runtime.operations)
      h << "<tr><td><code>" << html_escape(name) << "</code></td><td class=\"n\">" << o.count << "</td><td class=\"n"
        << (o.errors ? " over" : "") << "\">" << o.errors << "</td><td class=\"n\">" << elapsed(o.p50_seconds)
        << "</td><td class=\"n\">" << elapsed(o.p99_seconds) << "</td><td class=\"n\">" << elapsed(o.max_seconds)
        << "</td><td class=\"n" << (o.in_flight ? " over" : "") << "\">" << o.in_flight << "</td><td class=\"n\">"
        << (o.in_flight ? elapsed(o.oldest_in_flight_seconds) : "–") << "</td></tr>";
    h << "</table>";
  }
};

}  // namespace

const Section& runtime_section() {
  static const RuntimeSection section;
  return section;
}

}  // namespace plegscope::report
