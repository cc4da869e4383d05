#pragma once
// The kubelet's podRecords: each pod's state at the last relist whose events
// were delivered (old) and at the relist in progress (current). set_current()
// takes a relist's grouping, events_for() compares one pod, update() commits
// it once its events are delivered. A pod whose inspection fails is not
// committed, so the same events are found again next relist.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "pleg/pleg.h"
#include "pleg/runtime_pods.h"

namespace plegscope {

// Not thread-safe: GenericPleg holds its relist lock around every call.
class PodRecords {
 public:
  // Sets every pod's current state from `grouping`; returns the uids of the
  // pods that may have changed (new, changed, or gone from the runtime), in
  // grouping order then gone pods. A pod whose ids and states are those of
  // its old record is compared where the answer holds it and never copied:
  // on a steady node, none is.
  std::vector<std::string> set_current(const PodGrouping& grouping);

  // generic.go 1.36's relistPod: one pod's current state from its own lists
  // (its sandboxes and containers filtered by its uid). Returns whether it
  // may have changed since its old record; only then may events_for() be
  // asked (an unchanged pod keeps no current state, as set_current's).
  bool set_current_pod(RuntimePod pod);

  const RuntimePod* old_pod(const std::string& uid) const;
  const RuntimePod* current_pod(const std::string& uid) const;
  // The pod as the runtime listed it last: its current state, or its old
  // one when that did not change; null when the runtime no longer lists it.
  const RuntimePod* listed_pod(const std::string& uid) const;

  // generic.go's computeEvents for one pod: every container and sandbox id of
  // either state, old against current, named for people reading
  // /debug/events, stamped `seen` (the relist's start).
  std::vector<PodLifecycleEvent> events_for(const std::string& uid, TimePoint seen) const;

  // podRecords.update: current becomes old; a pod gone from the runtime is
  // forgotten; a listed pod that did not change stays as it is.
  void update(const std::string& uid);

  size_t size() const { return records_.size(); }

 private:
  struct Record {
    std::optional<RuntimePod> old;
    std::optional<RuntimePod> current;  // set only while it may differ from old
    bool seen = false;                  // in the relist in progress
  };
  std::unordered_map<std::string, Record> records_;
  std::string uid_key_;  // reused: no allocation per lookup
};

}  // namespace plegscope
