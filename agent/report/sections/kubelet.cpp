// The kubelet beside the agent: its relist next to the agent's, the PLEG
// model the agent copies, and the Node's Ready message.
#include "report/beside.h"
#include "report/format.h"
#include "report/html.h"
#include "report/json_values.h"
#include "report/sections/section.h"

namespace plegscope::report {
namespace {

std::string maybe_duration(const std::optional<double>& v) { return v ? text::elapsed(*v) : "n/a"; }

class KubeletSection final : public Section {
 public:
  KubeletSection() : Section(SectionId::kKubelet, "kubelet", {"kubelet"}, "Kubelet beside the agent: ", "kubelet") {}

  void write_json(const Report& r, json& j) const override { j["kubelet"] = r.kubelet; }
  void read_json(const json& j, Report& r) const override { r.kubelet = j.value("kubelet", r.kubelet); }

  void text(const Report& r, int, std::ostream& out) const override {
    const auto& k = r.kubelet;
    out << "Kubelet beside the agent: ";
    if (!k.reachable) {
      out << (k.endpoint.empty() ? "" : k.endpoint + " ") << "not read: " << k.error.value_or("") << "\n";
      out << "  PLEG model " << model_words(k) << "\n";
    } else {
      out << k.endpoint << " (" << tls_mode_words(k.tls_mode) << ")\n";
      out << "  version " << k.version.value_or("unknown") << ", PLEG model " << model_words(k) << "\n";
      out << "  relist p99: agent " << text::elapsed(r.relist.duration_p99_seconds) << ", kubelet "
          << maybe_duration(k.relist_p99_seconds) << "; last seen: agent "
          << maybe_duration(r.relist.seconds_since_last_seen) << " ago, kubelet "
          << maybe_duration(k.last_seen_age_seconds) << " ago; kubelet relists per minute "
          << (k.relists_per_minute ? text::number(*k.relists_per_minute) : "n/a") << "\n";
    }
    if (k.ready_message) out << "  Node Ready: " << *k.ready_message << "\n";
    if (k.ready_error) out << "  Node Ready: " << *k.ready_error << "\n";
  }

  void html(const Report& r, int, std::ostream& h) const override {
    const auto& k = r.kubelet;
    h << "<h2>Kubelet beside the agent</h2><section id=\"kubelet\">";
    if (!k.reachable) {
      h << "<p class=\"over\">" << html_escape((k.endpoint.empty() ? "" : k.endpoint + ": ") + k.error.value_or(""))
        << "</p><p>PLEG model " << html_escape(model_words(k)) << "</p>";
    } else {
      h << "<p><code>" << html_escape(k.endpoint) << "</code> · " << html_escape(tls_mode_words(k.tls_mode))
        << "<br>version " << html_escape(k.version.value_or("unknown")) << " · PLEG model "
        << html_escape(model_words(k)) << " · kubelet relists per minute "
        << (k.relists_per_minute ? text::number(*k.relists_per_minute) : "n/a") << "</p>";
      h << "<div class=\"chart\">" << kubelet_beside_chart(r)
        << "<div class=\"legend\"><i style=\"background:#2b63c6\"></i>agent<i "
           "style=\"background:#e08a00\"></i>kubelet<i style=\"background:#c62828;height:2px\"></i>threshold</div></div>";
    }
    if (k.ready_message) h << "<p id=\"node-ready\">Node Ready: " << html_escape(*k.ready_message) << "</p>";
    if (k.ready_error) h << "<p id=\"node-ready\" class=\"over\">Node Ready: " << html_escape(*k.ready_error) << "</p>";
    h << "</section>";
  }
};

}  // namespace

const Section& kubelet_section() {
  static const KubeletSection section;
  return section;
}

}  // namespace plegscope::report
