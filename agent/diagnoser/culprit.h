#pragma once
// The one thing an operator acts on first for a cause: a call, a pod, a
// process, and how long. Typed, no words: the transition log line and the
// node condition's message (agent/report) print it, so every consumer names
// the same culprit for the same finding.
#include <cstdint>
#include <string>

#include "diagnoser/finding.h"

namespace plegscope {

struct Culprit {
  std::string op;          // the CRI operation label, "" when the cause has none
  std::string pod;         // "namespace/name", "" when no pod is concerned
  std::string sandbox_id;
  std::string container;   // the container's name within `pod`
  int64_t pid = 0;         // a process below the runtime (a shim in D, a zombies' parent)
  std::string comm;
  std::string wchan;
  double seconds = 0;      // how long: the call in flight, the process in D, the slow p99

  bool empty() const { return op.empty() && pod.empty() && pid == 0; }
};

Culprit culprit_of(const Finding& finding);

}  // namespace plegscope
