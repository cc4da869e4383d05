// The host below the CRI: blocked helpers, zombies, shims, cgroups, PID
// limits, the runtime's disk; with the slowest per-pod calls above it. The
// words are host_sections.cpp's.
#include "report/host_sections.h"
#include "report/json_values.h"
#include "report/sections/section.h"

namespace plegscope::report {
namespace {

class HostSection final : public Section {
 public:
  HostSection() : Section(SectionId::kHost, "host", {"host"}, "Host: ", "host") {}

  void write_json(const Report& r, json& j) const override { j["host"] = r.host; }
  void read_json(const json& j, Report& r) const override { r.host = j.value("host", r.host); }
  void text(const Report& r, int, std::ostream& out) const override { host_text(r, out); }
  void html(const Report& r, int, std::ostream& out) const override { out << host_html(r); }
};

}  // namespace

const Section& host_section() {
  static const HostSection section;
  return section;
}

}  // namespace plegscope::report
