#include "host/cgroup_psi.h"

#include "host/host_files.h"

namespace plegscope::host {
namespace {

// "avg10=0.00 avg60=0.00 avg300=0.00 total=N": the total, nullopt when absent
// or when a field is not "key=value".
std::optional<uint64_t> total_of(std::string_view fields) {
  std::optional<uint64_t> total;
  while (!fields.empty()) {
    const size_t space = fields.find(' ');
    std::string_view field = fields.substr(0, space);
    fields = space == std::string_view::npos ? std::string_view() : fields.substr(space + 1);
    if (field.empty()) continue;
    const size_t eq = field.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    if (field.substr(0, eq) != "total") continue;
    uint64_t v = 0;
    if (!parse_u64(field.substr(eq + 1), v)) return std::nullopt;
    total = v;
  }
  return total;
}

}  // namespace

std::optional<PsiTotals> parse_psi_totals(std::string_view text) {
  std::optional<uint64_t> some, full;
  const bool well_formed = each_line(text, [&some, &full](std::string_view line) {
    const bool is_some = starts_with(line, "some "), is_full = starts_with(line, "full ");
    if (!is_some && !is_full) return false;
    auto total = total_of(line.substr(5));
    if (!total) return false;
    (is_some ? some : full) = total;
    return true;
  });
  if (!well_formed || !some) return std::nullopt;
  return PsiTotals{*some, full};
}

}  // namespace plegscope::host
