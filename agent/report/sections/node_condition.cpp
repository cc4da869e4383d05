// The node condition plegscope writes (--node-condition): its status, and
// how its writes went.
#include <sstream>
#include <string>

#include "report/html.h"
#include "report/json_values.h"
#include "report/sections/render_util.h"
#include "report/sections/section.h"

namespace plegscope::report {
namespace {

// NodeRepairAdvised only says True where the kubelet (or evidence of the
// node itself) and the fleet share bear it out: say which held it back.
std::string repair_words(const NodeConditionState& n) {
  std::ostringstream out;
  if (n.repair_advice.rfind("withheld_", 0) == 0) {
    out << "withheld (" << n.repair_advice.substr(9)
        << (n.repair_kubelet.empty() ? "" : "; kubelet " + n.repair_kubelet);
    if (n.fleet_agents && n.fleet_advising)
      out << "; " << *n.fleet_advising << " of " << *n.fleet_agents << " agents advising or about to";
    out << ")";
  } else if (n.repair_status) {
    out << *n.repair_status << (n.repair_kubelet.empty() ? "" : " (kubelet " + n.repair_kubelet + ")");
  }
  return out.str();
}

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
    const std::string repair = repair_words(n);
    if (!repair.empty()) out << "Node condition plegscope.io/NodeRepairAdvised: " << repair << "\n";
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
    const std::string repair = repair_words(n);
    if (!repair.empty()) h << "<p><code>plegscope.io/NodeRepairAdvised</code>: " << html_escape(repair) << "</p>";
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
