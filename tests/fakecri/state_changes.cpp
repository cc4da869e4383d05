#include "state_changes.h"

namespace fakecri {

const char* event_kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::Created: return "created";
    case EventKind::Started: return "started";
    case EventKind::Stopped: return "stopped";
    case EventKind::Deleted: return "deleted";
  }
  return "unknown";
}

void StateChangeLog::record(const ModelEvent& event, TimePoint now) {
  StateChange c;
  c.time_unix = unix_seconds(now);
  c.kind = event.kind;
  c.id = event.container_id;
  if (event.sandbox) {
    c.pod_uid = event.sandbox->pod_uid;
    c.sandbox = event.sandbox->id == event.container_id;
  }
  std::lock_guard<std::mutex> lock(mu_);
  c.seq = next_seq_++;
  changes_.push_back(std::move(c));
  if (changes_.size() > kMaxRecords) changes_.pop_front();
}

std::vector<StateChange> StateChangeLog::since(uint64_t seq) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<StateChange> out;
  for (const auto& c : changes_)
    if (c.seq >= seq) out.push_back(c);
  return out;
}

}  // namespace fakecri
