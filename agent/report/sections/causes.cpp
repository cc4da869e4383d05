// The causes, most likely first: each with its evidence, advice and remedy.
#include "diagnoser/culprit.h"
#include "report/format.h"
#include "report/html.h"
#include "report/json.h"
#include "report/json_values.h"
#include "report/sections/render_util.h"
#include "report/sections/section.h"
#include "report/text.h"

namespace plegscope::report {
namespace {

using text::fmt;
using text::number;

void cause_as_text(const Cause& c, int rank, std::ostream& out) {
  out << "\n  " << rank << ". " << cause_name(c.id) << "  [" << severity_name(c.severity) << ", confidence "
      << fmt("%.2f", c.confidence) << "]\n";
  out << wrap(c.summary, "     ");
  out << "     evidence:\n";
  for (const auto& e : c.evidence) {
    out << "       " << pad(e.signal, 48) << " " << pad(number(e.value), 10, true);
    if (e.threshold) out << "   threshold " << number(*e.threshold);
    out << "\n";
  }
  out << "     advice: " << advice_name(c.advice) << "\n";
  out << "     remedy:\n";
  for (const auto& part : remedy_parts(c.remedy)) out << hanging_wrap(part, "       ", "         ");
}

void cause_as_html(const Cause& c, int rank, std::ostream& h) {
  h << "<article class=\"cause " << severity_name(c.severity) << "\" data-cause=\"" << cause_name(c.id)
    << "\"><h3><span class=\"rank\">" << rank << "</span>" << cause_name(c.id) << " <span class=\"sev "
    << severity_name(c.severity) << "\">" << severity_name(c.severity) << "</span><span class=\"conf\">confidence "
    << fmt("%.2f", c.confidence) << "<span class=\"bar\"><span style=\"width:" << fmt("%.0f", c.confidence * 100)
    << "%\"></span></span></span></h3>";
  h << "<p>" << with_code(c.summary) << "</p>";
  h << "<table class=\"evidence\"><tr><th>evidence</th><th class=\"n\">value</th><th "
       "class=\"n\">threshold</th></tr>";
  for (const auto& e : c.evidence) {
    bool over = e.threshold && e.value > *e.threshold;
    h << "<tr><td><code>" << html_escape(e.signal) << "</code></td><td class=\"n" << (over ? " over" : "") << "\">"
      << number(e.value) << "</td><td class=\"n\">" << (e.threshold ? number(*e.threshold) : "") << "</td></tr>";
  }
  h << "</table><p class=\"advice\"><b>Advice:</b> <code>" << advice_name(c.advice) << "</code></p>";
  h << "<div class=\"remedy\"><b>Remedy.</b>";
  for (const auto& part : remedy_parts(c.remedy)) h << "<p>" << with_code(part) << "</p>";
  h << "</div></article>\n";
}

class CausesSection final : public Section {
 public:
  CausesSection() : Section(SectionId::kCauses, "causes", {"causes"}, "Causes", "causes") {}

  void write_json(const Report& r, json& j) const override {
    j["causes"] = r.causes;
    for (size_t i = 0; i < r.causes.size(); ++i) {
      Culprit derived = culprit_of(r.causes[i]);
      if (json culprit = culprit_json(derived.empty() ? r.causes[i].culprit_read_back : derived); !culprit.empty())
        j["causes"][i]["culprit"] = std::move(culprit);
    }
  }

  void read_json(const json& j, Report& r) const override {
    r.causes = j.at("causes").get<std::vector<Cause>>();
    for (size_t i = 0; i < r.causes.size(); ++i) {
      const json& c = j.at("causes")[i].value("culprit", json::object());
      if (!c.is_object()) throw std::invalid_argument("causes/" + std::to_string(i) + "/culprit is not an object");
      Culprit& back = r.causes[i].culprit_read_back;
      back.op = c.value("operation", "");
      back.pod = c.value("pod", "");
      back.container = c.value("container", "");
      back.sandbox_id = c.value("sandbox_id", "");
      back.pid = c.value("pid", int64_t{0});
      back.comm = c.value("comm", "");
      back.wchan = c.value("wchan", "");
      back.seconds = c.value("seconds", 0.0);
    }
  }

  void text(const Report& r, int, std::ostream& out) const override {
    if (r.causes.empty()) {
      out << "Causes: none. Every rule found its signals within thresholds.\n\n";
      return;
    }
    out << "Causes, most likely first:\n";
    int rank = 0;
    for (const auto& c : r.causes) cause_as_text(c, ++rank, out);
    out << "\n";
  }

  void html(const Report& r, int, std::ostream& h) const override {
    h << "<h2>Causes, most likely first</h2>\n<section id=\"causes\">";
    if (r.causes.empty())
      h << "<div class=\"none\">No cause: every rule found its signals within thresholds.</div>";
    int rank = 0;
    for (const auto& c : r.causes) cause_as_html(c, ++rank, h);
    h << "</section>\n";
  }
};

}  // namespace

const Section& causes_section() {
  static const CausesSection section;
  return section;
}

}  // namespace plegscope::report
