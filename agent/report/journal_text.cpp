#include "report/journal_text.h"

#include <algorithm>
#include <chrono>

#include "report/format.h"

namespace plegscope {
namespace {

std::string joined(const std::vector<std::string>& items, const std::string& last_sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? last_sep : ", ";
    out += items[i];
  }
  return out;
}

// A restart near the failed relists still explains them: the unit's stop
// comes a little before the first failure, its start a little after the last
// (within the do-no-harm stretch of the relist period, 10 s at most).
constexpr auto kRestartSlack = std::chrono::seconds(10);

}  // namespace

std::string journal_source_line(const Report& r) {
  const auto& src = r.journal_source;
  if (!src.reachable)
    return (src.error ? *src.error : "no journal read yet") +
           ": the kubelet's and the runtime's own lines are not shown";
  std::vector<std::string> units;
  if (!src.kubelet_unit.empty()) units.push_back(src.kubelet_unit);
  units.insert(units.end(), src.runtime_units.begin(), src.runtime_units.end());
  return "following " + joined(units, " and ") + " in " + src.path + ": " +
         text::count(static_cast<long>(r.journal.size()), "mark", "marks");
}

bool is_runtime_restart_mark(const JournalEntry& mark, const Report& r) {
  if (mark.kind == "runtime_started") return true;
  if (mark.kind.rfind("unit_", 0) != 0) return false;
  const auto& units = r.journal_source.runtime_units;
  return std::find(units.begin(), units.end(), mark.unit) != units.end();
}

std::optional<std::string> runtime_restart_note(const Report& r) {
  std::optional<TimePoint> first, last;
  int failed = 0;
  for (const auto& e : r.timeline) {
    if (e.in_progress || !e.error) continue;
    failed++;
    auto end = e.start + std::chrono::duration_cast<Duration>(
                             std::chrono::duration<double>(e.duration_seconds));
    if (!first || e.start < *first) first = e.start;
    if (!last || end > *last) last = end;
  }
  if (failed == 0) return std::nullopt;
  std::vector<std::string> seen;
  std::string unit;
  for (const auto& m : r.journal) {
    if (!is_runtime_restart_mark(m, r)) continue;
    if (m.time < *first - kRestartSlack || m.time > *last + kRestartSlack) continue;
    if (unit.empty()) unit = m.unit;
    seen.push_back(m.kind + " at " + rfc3339(m.time));
  }
  if (seen.empty()) return std::nullopt;
  if (seen.size() > 4) seen.erase(seen.begin() + 2, seen.end() - 2);
  return unit + " restarted around the " +
         text::count(failed, "failed relist", "failed relists") + " (" + joined(seen, ", ") +
         "): the runtime's restart explains the gap in the timeline";
}

}  // namespace plegscope
