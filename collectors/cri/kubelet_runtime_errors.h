#pragma once
// The kubelet's reading of its runtime errors, on the words
// cri/runtime_status_evidence.h keeps: what its Ready message says, and the
// errors it joins into that message, in its order. Pure.
#include <string>
#include <vector>

#include "cri/runtime_status_evidence.h"

namespace plegscope {

// What `m`, the kubelet's Ready message, says of the runtime and PLEG.
inline ReadyMessageSays read_ready_message(const std::string& m) {
  auto has = [&m](const char* s) { return m.find(s) != std::string::npos; };
  return {has(kRuntimeDownError) || has(kStatusNotCompletedError), has(kRuntimeNotReadyPrefix),
          has(kNetworkNotReadyPrefix), has(kPlegNotHealthyPrefix)};
}

// The kubelet's runtime errors in its order (runtimeState.runtimeErrors):
// the Status sync, then its health checks (PLEG: "PLEG is not healthy: ..."
// when `pleg_error` is not empty), then RuntimeReady; the network's error
// is a list of its own, after these in the Ready message.
inline std::vector<std::string> kubelet_runtime_errors(const RuntimeStatusEvidence& e,
                                                       const std::string& pleg_error) {
  std::vector<std::string> errors;
  if (!e.sync_error.empty()) errors.push_back(e.sync_error);
  if (!pleg_error.empty()) errors.push_back(kPlegNotHealthyPrefix + pleg_error);
  if (!e.runtime_not_ready.empty()) errors.push_back(e.runtime_not_ready);
  if (!e.network_not_ready.empty()) errors.push_back(e.network_not_ready);
  return errors;
}

}  // namespace plegscope
