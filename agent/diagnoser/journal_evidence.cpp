#include "diagnoser/journal_evidence.h"

#include <algorithm>

namespace plegscope {

bool is_runtime_restart(const JournalMarkRecord& mark, const JournalEvidence& journal) {
  if (mark.kind == "runtime_started") return true;
  static const char* kUnitKinds[] = {"unit_started", "unit_stopping", "unit_stopped",
                                     "unit_failed", "unit_restart_scheduled"};
  if (std::find(std::begin(kUnitKinds), std::end(kUnitKinds), mark.kind) == std::end(kUnitKinds))
    return false;
  return std::find(journal.runtime_units.begin(), journal.runtime_units.end(), mark.unit) !=
         journal.runtime_units.end();
}

void summarize_journal_window(JournalEvidence& journal, TimePoint window_start) {
  journal.pleg_not_healthy_marks = 0;
  journal.first_pleg_not_healthy.reset();
  journal.last_pleg_not_healthy.reset();
  journal.last_pleg_not_healthy_message.clear();
  journal.runtime_restart_marks = 0;
  journal.last_runtime_restart.reset();
  for (const auto& mark : journal.marks) {
    if (mark.time < window_start) continue;
    if (mark.kind == "pleg_not_healthy" && mark.unit == journal.kubelet_unit) {
      journal.pleg_not_healthy_marks++;
      journal.first_pleg_not_healthy = std::min(journal.first_pleg_not_healthy.value_or(mark.time), mark.time);
      if (!journal.last_pleg_not_healthy || mark.time >= *journal.last_pleg_not_healthy) {
        journal.last_pleg_not_healthy = mark.time;
        journal.last_pleg_not_healthy_message = mark.message;
      }
    }
    if (is_runtime_restart(mark, journal)) {
      journal.runtime_restart_marks++;
      journal.last_runtime_restart = std::max(journal.last_runtime_restart.value_or(mark.time), mark.time);
    }
  }
}

}  // namespace plegscope
