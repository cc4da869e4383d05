#pragma once
// The fake's own record of every container and sandbox state change it made
// (churn, kills, CRI mutations), so a test can compare what the agent
// reported (/debug/events) with what really happened: nothing invented,
// nothing lost. Keeps the newest kMaxRecords. Thread-safe.
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "node_model.h"

namespace fakecri {

struct StateChange {
  uint64_t seq = 0;
  double time_unix = 0;
  EventKind kind = EventKind::Created;
  std::string id;       // container id, or the sandbox id
  bool sandbox = false;  // the change is the sandbox's own
  std::string pod_uid;
};

class StateChangeLog {
 public:
  static constexpr size_t kMaxRecords = 200'000;

  void record(const ModelEvent& event, TimePoint now);
  std::vector<StateChange> since(uint64_t seq) const;

 private:
  mutable std::mutex mu_;
  std::deque<StateChange> changes_;
  uint64_t next_seq_ = 0;
};

const char* event_kind_name(EventKind kind);  // "created", "started", "stopped", "deleted"

}  // namespace fakecri
