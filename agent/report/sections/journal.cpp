// The kubelet's and the runtime's own journal lines, newest last in text and
// newest first on the page, and where they were read from.
#include "report/format.h"
#include "report/html.h"
#include "report/journal_text.h"
#include "report/json_values.h"
#include "report/sections/render_util.h"
#include "report/sections/section.h"

namespace plegscope::report {
namespace {

class JournalSection final : public Section {
 public:
  JournalSection() : Section(SectionId::kJournal, "journal", {"journal", "journal_source"}, "Journal: ", "journal") {}

  void write_json(const Report& r, json& j) const override {
    j["journal"] = r.journal;
    j["journal_source"] = r.journal_source;
  }
  void read_json(const json& j, Report& r) const override {
    r.journal = j.value("journal", r.journal);
    r.journal_source = j.value("journal_source", r.journal_source);
  }

  void text(const Report& r, int, std::ostream& out) const override {
    out << hanging_wrap("Journal: " + journal_source_line(r), "", "  ");
    constexpr size_t kShown = 20;
    size_t from = r.journal.size() > kShown ? r.journal.size() - kShown : 0;
    if (from > 0) out << "  (the " << kShown << " newest; the JSON report has " << r.journal.size() << ")\n";
    for (size_t i = from; i < r.journal.size(); ++i) {
      const auto& m = r.journal[i];
      out << "  " << rfc3339(m.time) << "  " << m.unit << "  " << m.kind << "\n" << wrap(m.message, "      ");
    }
  }

  void html(const Report& r, int, std::ostream& h) const override {
    h << "<h2>The kubelet's and the runtime's words (journal)</h2><div class=\"chart\" "
         "id=\"journal\" data-reachable=\""
      << (r.journal_source.reachable ? "true" : "false") << "\"><p class=\"legend\">"
      << html_escape(journal_source_line(r)) << "</p>";
    if (!r.journal.empty()) {
      h << "<table class=\"evidence\"><tr><th>time</th><th>unit</th><th>mark</th><th>message</th></tr>";
      for (auto it = r.journal.rbegin(); it != r.journal.rend(); ++it)
        h << "<tr data-kind=\"" << html_escape(it->kind) << "\"><td>" << rfc3339(it->time) << "</td><td><code>"
          << html_escape(it->unit) << "</code></td><td>" << html_escape(it->kind) << "</td><td>"
          << html_escape(it->message) << "</td></tr>";
      h << "</table>";
    }
    h << "</div>\n";
  }
};

}  // namespace

const Section& journal_section() {
  static const JournalSection section;
  return section;
}

}  // namespace plegscope::report
