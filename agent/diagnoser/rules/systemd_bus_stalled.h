#pragma once
// systemd_bus_stalled's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <cstdint>
#include <optional>
#include <string>

#include "diagnoser/finding_values.h"

namespace plegscope {

// The system bus daemon answers nothing.
template <>
struct CauseDetails<CauseId::kSystemdBusStalled> {
  // The stalled daemon (the runtime helpers waiting on it are the finding's
  // `processes`, its `seconds` their age).
  struct BusDaemon {
    int64_t pid = 0;
    std::string comm;    // "dbus-daemon", "dbus-broker"
    char state = '?';    // 'T', 't' or 'D'
    double seconds = 0;  // seen stalled this long (a lower bound)
  };
  std::optional<BusDaemon> bus;
  double threshold_seconds = 0;  // what the stall was judged against
};
using SystemdBusStalledDetails = CauseDetails<CauseId::kSystemdBusStalled>;

}  // namespace plegscope
