#pragma once
// The kubelet's and the runtime's own lines from the systemd journal, as the
// diagnoser sees them: a plain value copied out of the journal follower
// (collectors/journal) by the Node. Evidence only: a rule may read the
// counts below beside a measurement of its own, never act on them alone.
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "host/hung_task_evidence.h"

namespace plegscope {

struct JournalMarkRecord {
  TimePoint time{};
  std::string unit;  // the unit the line is about: kubelet.service, containerd.service
  std::string kind;  // mark_kind_name(): "pleg_not_healthy", "unit_started", ...
  std::string message;  // already cut to the follower's bound
};

struct JournalEvidence {
  bool available = false;  // the journal directory is open and followed
  std::string path;        // the directory tried ("" when no default exists)
  std::string error;       // one line, e.g. "no journal at /var/log/journal or /run/log/journal"
  std::string kubelet_unit;
  std::vector<std::string> runtime_units;
  std::vector<JournalMarkRecord> marks;  // oldest first, bounded by the follower's ring
  // The kernel's own lines (_TRANSPORT=kernel): its hung-task reports,
  // oldest first, bounded by the follower; realtime_usec is each one's time.
  uint64_t kernel_lines_read = 0;
  std::vector<host::HungTaskReport> hung_tasks;
  uint64_t hung_tasks_total = 0;
  // The kernel stopped reporting hung tasks then (kernel.hung_task_warnings ran out).
  std::optional<TimePoint> hung_tasks_suppressed_since;

  // Over the window (see summarize_journal_window): for the rules.
  int pleg_not_healthy_marks = 0;  // the kubelet said "PLEG is not healthy"
  std::optional<TimePoint> first_pleg_not_healthy;
  std::optional<TimePoint> last_pleg_not_healthy;
  std::string last_pleg_not_healthy_message;  // the newest such line, as the kubelet wrote it
  int runtime_restart_marks = 0;   // the runtime's unit started, stopped or failed
  std::optional<TimePoint> last_runtime_restart;
};

// Is this mark the runtime starting, stopping or failing (its own "booted"
// line or systemd's lines about one of the runtime's units)?
bool is_runtime_restart(const JournalMarkRecord& mark, const JournalEvidence& journal);

// Fills the window counts from the marks at or after window_start. Pure.
void summarize_journal_window(JournalEvidence& journal, TimePoint window_start);

}  // namespace plegscope
