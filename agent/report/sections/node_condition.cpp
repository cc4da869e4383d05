// The node condition plegscope writes (--node-condition): its status, and
// how its writes went.
#include "report/html.h"
#include "report/json_values.h"
#include "report/sections/render_util.h"
#include "report/sections/section.h"

namespace plegscope::report {
namespace {

class NodeConditionSection final : public Section {
 public:
  NodeConditionSection()
      : Section(SectionId::kNodeCondition, "node_condition", {"node_condition"}, "Node condition ", "node-condition") {}

  // Only with --node-condition.
  bool shown(const Report& r) const override { return r.node_condition.enabled; }

  void write_json(const Report& r, json& j) const override { j["node_condition"] = r.node_condition; }
  void read_json(const json& j, Report& r) const override {
    r.node_condition = j.value("node_condition", r.node_condition);
  }

  void text(const Report& r, int, std::ostream& out) const override {
    const NodeConditionState& n = r.node_condition;
    out << "Node condition plegscope.io/PLEGUnhealthy: ";
    if (n.status)
      out << *n.status << " (" << n.reason.value_or("") << "), " << n.writes << " writes, " << n.events << " events\n";
    else
      out << "not written yet\n";
    if (n.error) out << wrap(*n.error, "  ");
  }

  void html(const Report& r, int, std::ostream& h) const override {
    const NodeConditionState& n = r.node_condition;
    h << "<h2>Node condition</h2><section id=\"node-condition\"><p><code>plegscope.io/PLEGUnhealthy</code>: ";
    if (n.status)
      h << html_escape(*n.status) << " (" << html_escape(n.reason.value_or("")) << "), " << n.writes << " writes, "
        << n.events << " events";
    else
      h << "not written yet";
    h << "</p>";
    if (n.message) h << "<p>" << html_escape(*n.message) << "</p>";
    if (n.error) h << "<p class=\"over\">" << html_escape(*n.error) << "</p>";
    h << "</section>\n";
  }
};

}  // namespace

const Section& node_condition_section() {
  static const NodeConditionSection section;
  return section;
}

}  // namespace plegscope::report
