#include "condition/event_correlator.h"

#include <cstdio>

namespace plegscope {

NodeEvent EventCorrelator::next(const std::string& node, const std::string& type, const std::string& reason,
                                const std::string& message, TimePoint now, MonoTime mono, bool* repeat) const {
  auto it = seen_.find({type, reason});
  if (it != seen_.end() && mono - it->second.last < window_) {
    NodeEvent e = it->second.event;
    e.count++;
    e.last = now;
    e.message = message;
    *repeat = true;
    return e;
  }
  NodeEvent e;
  // The recorder's naming: the object's name and the time in hex nanoseconds.
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, "%llx",
                static_cast<unsigned long long>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count()));
  e.name = node + "." + suffix;
  e.node = node;
  e.type = type;
  e.reason = reason;
  e.message = message;
  e.first = e.last = now;
  *repeat = false;
  return e;
}

void EventCorrelator::sent(const NodeEvent& event, MonoTime mono) { seen_[{event.type, event.reason}] = {event, mono}; }

void EventCorrelator::failed(const NodeEvent& event) { seen_.erase({event.type, event.reason}); }

}  // namespace plegscope
