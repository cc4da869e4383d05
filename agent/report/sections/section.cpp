#include "report/sections/section.h"

namespace plegscope::report {

const std::vector<const Section*>& all_sections() {
  static const std::vector<const Section*> sections = {
#define PLEGSCOPE_SECTION_ROW(e, name, text_parts, html_parts) &name##_section(),
      PLEGSCOPE_REPORT_SECTIONS(PLEGSCOPE_SECTION_ROW)
#undef PLEGSCOPE_SECTION_ROW
  };
  return sections;
}

const Section& section(SectionId id) { return *all_sections()[static_cast<size_t>(id)]; }

}  // namespace plegscope::report
