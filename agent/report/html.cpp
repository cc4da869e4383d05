#include "report/html.h"

#include <algorithm>
#include <sstream>

#include "report/sections/section.h"
#include "report/text.h"
#include "report/wording.h"

namespace plegscope {
namespace {

constexpr const char* kStyle = R"(
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 -apple-system,"Segoe UI",Roboto,"DejaVu Sans",Helvetica,Arial,sans-serif;color:#1d2330;background:#f3f5f8}
main{max-width:1200px;margin:0 auto;padding:20px}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:28px 0 10px;color:#2b3445}
.banner{border-radius:8px;padding:18px 22px;color:#fff;box-shadow:0 1px 3px rgba(0,0,0,.15)}
.banner.ok{background:#1e8e4e}.banner.warn{background:#c77700}.banner.bad{background:#c62828}
.banner .status{font-size:26px;font-weight:700;letter-spacing:.5px}
.banner .summary{font-size:16px;margin-top:6px;max-width:1050px}
.banner .meta{opacity:.9;margin-top:8px;font-size:13px}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;margin-top:16px}
.card{background:#fff;border-radius:8px;padding:12px 14px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.card .k{color:#5b6577;font-size:12px;text-transform:uppercase;letter-spacing:.4px}
.card .v{font-size:20px;font-weight:600;margin-top:2px}
.card .s{color:#5b6577;font-size:12px}
.cause{background:#fff;border-radius:8px;padding:14px 18px;margin-bottom:12px;box-shadow:0 1px 2px rgba(0,0,0,.08);border-left:6px solid #999}
.cause.critical{border-left-color:#c62828}.cause.warning{border-left-color:#e08a00}.cause.info{border-left-color:#6b7a90}
.cause h3{margin:0;font-size:16px;display:flex;align-items:center;gap:10px}
.rank{display:inline-block;width:26px;height:26px;border-radius:13px;background:#2b3445;color:#fff;text-align:center;line-height:26px;font-size:13px}
.sev{font-size:11px;text-transform:uppercase;padding:2px 7px;border-radius:10px;color:#fff;background:#6b7a90}
.sev.critical{background:#c62828}.sev.warning{background:#e08a00}
.conf{margin-left:auto;font-size:13px;color:#5b6577;display:flex;align-items:center;gap:6px}
.conf .bar{width:120px;height:8px;background:#e3e7ee;border-radius:4px;overflow:hidden}
.conf .bar span{display:block;height:100%;background:#2b63c6}
.cause p{margin:8px 0}
.remedy{background:#f6f8fb;border-radius:6px;padding:8px 12px}
.remedy p{margin:4px 0}
code{font:12.5px/1.4 "DejaVu Sans Mono",Menlo,Consolas,monospace;background:#e9edf3;padding:1px 4px;border-radius:3px;word-break:break-word}
table{border-collapse:collapse;width:100%;background:#fff;border-radius:8px;overflow:hidden;box-shadow:0 1px 2px rgba(0,0,0,.08)}
th,td{padding:6px 10px;text-align:left;border-bottom:1px solid #eef1f5;font-variant-numeric:tabular-nums}
th{background:#f0f3f7;font-weight:600;color:#2b3445;font-size:12.5px}
td.n,th.n{text-align:right}
table.evidence{box-shadow:none;margin:6px 0 8px;font-size:13px}
table.evidence td{padding:3px 10px}
.over{color:#c62828;font-weight:600}
.chart{background:#fff;border-radius:8px;padding:10px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.legend{font-size:12px;color:#5b6577;margin:4px 0 0 8px}
.legend i{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;vertical-align:middle}
.legend i.hatched{background:repeating-linear-gradient(45deg,#c62828 0 3px,rgba(198,40,40,.45) 3px 8px)}
.running{margin:6px 8px 2px;color:#c62828}
.none{background:#fff;border-radius:8px;padding:14px 18px;color:#1e8e4e;font-weight:600}
.two{display:grid;grid-template-columns:3fr 2fr;gap:16px}
footer{color:#7a8495;font-size:12px;margin:24px 0 8px}
)";


using report::SectionId;
using report::Slot;

// The page's order: the journal under the relist's first chart, so its marks
// line up with the timeline; two sections side by side where they are short.
constexpr std::array kHtmlLayout = {
    Slot{SectionId::kStatus},
    Slot{SectionId::kCauses},
    Slot{SectionId::kRelist, 0},
    Slot{SectionId::kJournal},
    Slot{SectionId::kRelist, 1},
    Slot{SectionId::kKubelet, 0, "<div class=\"two\"><div>", "</div>"},
    Slot{SectionId::kRuntimeMetrics, 0, "<div>", "</div></div>\n"},
    Slot{SectionId::kRuntimeStatus},
    Slot{SectionId::kNodeCondition},
    Slot{SectionId::kRuntime, 0, "<div class=\"two\"><div>", "</div>"},
    Slot{SectionId::kEvents, 0, "<div>", "</div></div>\n"},
    Slot{SectionId::kHost},
};
static_assert(report::covers_every_part(kHtmlLayout, report::Format::kHtml), "the page misses a report section");

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_html(const Report& r) {
  if (needs_words(r)) return render_html(worded(r));
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    << "<title>plegscope: " << html_escape(status_label(r)) << " on " << html_escape(r.node)
    << "</title>"
    << "<style>" << kStyle << "</style></head><body><main>\n";
  report::render_layout(kHtmlLayout, report::Format::kHtml, r, h);
  h << "<footer>plegscope " << PLEGSCOPE_VERSION
    << " · JSON: <code>/diagnose</code> · text: "
       "<code>/diagnose?format=text</code> · metrics: <code>pleg_diagnosis_cause</code></footer>";
  h << "</main></body></html>\n";
  return h.str();
}

}  // namespace plegscope
