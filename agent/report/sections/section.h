#pragma once
// A report section: one description that writes it as JSON (and reads it
// back), as text and as HTML. Every section implements all four, or it does
// not compile; every format's layout places every part of every section, or
// the layout does not compile (covers_every_part below). So no format can
// miss a section. Stateless; thread-safe.
#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "diagnoser/report.h"

// THE section list: X(enumerator, name, text parts, html parts). A section
// is report/sections/<name>.cpp defining <name>_section(). A section with
// two parts in a format is placed in two spots of that format's layout (the
// text puts the runtime's Status between the status line and the summary;
// the HTML page puts the journal between the relist's two charts).
#define PLEGSCOPE_REPORT_SECTIONS(X)      \
  X(kStatus, status, 2, 1)                \
  X(kRuntimeStatus, runtime_status, 1, 1) \
  X(kCauses, causes, 1, 1)                \
  X(kRelist, relist, 1, 2)                \
  X(kKubelet, kubelet, 1, 1)              \
  X(kRuntimeMetrics, runtime_metrics, 1, 1) \
  X(kNodeCondition, node_condition, 1, 1) \
  X(kRuntime, runtime, 1, 1)              \
  X(kEvents, events, 1, 1)                \
  X(kJournal, journal, 1, 1)              \
  X(kHost, host, 1, 1)

namespace plegscope::report {

enum class SectionId {
#define PLEGSCOPE_SECTION_ENUM(e, name, text_parts, html_parts) e,
  PLEGSCOPE_REPORT_SECTIONS(PLEGSCOPE_SECTION_ENUM)
#undef PLEGSCOPE_SECTION_ENUM
};

inline constexpr std::array kSectionParts = {
#define PLEGSCOPE_SECTION_PARTS(e, name, text_parts, html_parts) std::array<int, 2>{text_parts, html_parts},
    PLEGSCOPE_REPORT_SECTIONS(PLEGSCOPE_SECTION_PARTS)
#undef PLEGSCOPE_SECTION_PARTS
};
inline constexpr size_t kSectionCount = kSectionParts.size();

enum class Format { kText = 0, kHtml = 1 };

class Section {
 public:
  // `text_mark` is how the section's first text line starts; `html_mark`
  // the id its HTML carries: what the formats' parity test looks for.
  Section(SectionId id, const char* name, std::vector<std::string> json_keys, const char* text_mark,
          const char* html_mark)
      : id_(id), name_(name), json_keys_(std::move(json_keys)), text_mark_(text_mark), html_mark_(html_mark) {}
  virtual ~Section() = default;

  SectionId id() const { return id_; }
  const char* name() const { return name_; }
  // The top-level keys of the /diagnose JSON that this section writes: always
  // all of them (DESIGN §6), null or empty when there is nothing to say.
  const std::vector<std::string>& json_keys() const { return json_keys_; }
  const char* text_mark() const { return text_mark_; }
  const char* html_mark() const { return html_mark_; }

  // Whether text and HTML show the section for this report (the JSON always
  // carries its keys): one answer for both.
  virtual bool shown(const Report&) const { return true; }
  virtual void write_json(const Report& report, nlohmann::json& out) const = 0;
  virtual void read_json(const nlohmann::json& in, Report& report) const = 0;
  virtual void text(const Report& report, int part, std::ostream& out) const = 0;
  virtual void html(const Report& report, int part, std::ostream& out) const = 0;

 private:
  SectionId id_;
  const char* name_;
  std::vector<std::string> json_keys_;
  const char* text_mark_;
  const char* html_mark_;
};

#define PLEGSCOPE_SECTION_DECLARE(e, name, text_parts, html_parts) const Section& name##_section();
PLEGSCOPE_REPORT_SECTIONS(PLEGSCOPE_SECTION_DECLARE)
#undef PLEGSCOPE_SECTION_DECLARE

const Section& section(SectionId id);
// In list order: the order JSON is written and read back in.
const std::vector<const Section*>& all_sections();

// One spot of a format's page: a part of a section, with the markup around it.
struct Slot {
  SectionId id;
  int part = 0;
  const char* before = "";
  const char* after = "";
};

// True when `layout` places every part of every section exactly once.
template <size_t N>
constexpr bool covers_every_part(const std::array<Slot, N>& layout, Format format) {
  size_t expected = 0;
  for (const auto& parts : kSectionParts) expected += static_cast<size_t>(parts[static_cast<int>(format)]);
  if (N != expected) return false;
  for (size_t s = 0; s < kSectionCount; ++s)
    for (int part = 0; part < kSectionParts[s][static_cast<int>(format)]; ++part) {
      int seen = 0;
      for (const Slot& slot : layout) seen += static_cast<size_t>(slot.id) == s && slot.part == part;
      if (seen != 1) return false;
    }
  return true;
}

// Renders `layout` in order: each slot's section part, framed by its markup,
// where the section is shown.
template <size_t N>
void render_layout(const std::array<Slot, N>& layout, Format format, const Report& report, std::ostream& out) {
  for (const Slot& slot : layout) {
    const Section& s = section(slot.id);
    if (!s.shown(report)) continue;
    out << slot.before;
    if (format == Format::kText)
      s.text(report, slot.part, out);
    else
      s.html(report, slot.part, out);
    out << slot.after;
  }
}

}  // namespace plegscope::report
