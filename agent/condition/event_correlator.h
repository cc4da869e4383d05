#pragma once
// Deduplication of the Node's Events, as the kubelet's recorder does it
// (client-go's EventCorrelator): an Event like one sent within `window`
// (same type and reason) is not created again; the first one's count and
// lastTimestamp are patched instead, with the newest message. Pure; the
// writer makes the calls and reports back.
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "condition/node_condition_api.h"

namespace plegscope {

// Not thread-safe: one writer thread owns it.
class EventCorrelator {
 public:
  explicit EventCorrelator(Duration window = std::chrono::minutes(10)) : window_(window) {}

  // The Event to send for (type, reason, message) at wall time `now` and
  // monotonic `mono`: a new one (count 1, a fresh name) or the earlier one
  // with its count raised. `repeat` says which call to make.
  NodeEvent next(const std::string& node, const std::string& type, const std::string& reason,
                 const std::string& message, TimePoint now, MonoTime mono, bool* repeat) const;
  // The call for `event` went through; a failed one is forgotten, so the
  // next is created anew (as the recorder does after a failed patch).
  void sent(const NodeEvent& event, MonoTime mono);
  void failed(const NodeEvent& event);

 private:
  struct Seen {
    NodeEvent event;
    MonoTime last;
  };
  const Duration window_;
  std::map<std::pair<std::string, std::string>, Seen> seen_;  // by (type, reason)
};

}  // namespace plegscope
