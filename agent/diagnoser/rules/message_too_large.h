#pragma once
// message_too_large's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.

#include "diagnoser/finding_values.h"

namespace plegscope {

// A list answer over, or near, the gRPC message limit.
template <>
struct CauseDetails<CauseId::kMessageTooLarge> {
  double share = 0;            // 0..1 of the message limit
  double bytes = 0;            // the list answer's size
  double limit_bytes = 0;      // the gRPC message limit
  int calls = 0;               // calls that failed over the limit
  bool mostly_exited = false;  // exited containers are much of the list
};
using MessageTooLargeDetails = CauseDetails<CauseId::kMessageTooLarge>;

}  // namespace plegscope
