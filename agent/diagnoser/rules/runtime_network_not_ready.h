#pragma once
// runtime_network_not_ready's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <string>
#include <vector>

#include "diagnoser/finding_values.h"

namespace plegscope {

// The runtime's Status says NetworkReady is false.
template <>
struct CauseDetails<CauseId::kRuntimeNetworkNotReady> {
  ReportedCondition condition;  // NetworkReady as the runtime gave it
  int calls = 0;                // the recent Status calls the transitions are counted over
  int transitions = 0;          // readiness changes over the recent Status calls
  bool failed_last = false;     // the newest Status call said not ready too
  // kPluginUnhealthy: the network the runtime loaded (its first configuration
  // file) and the plugin whose STATUS failed, "" where the error names none of
  // a chain's plugins; its own words.
  std::string cni_conf_dir, cni_file, cni_network, cni_plugin, cni_plugin_error;
  std::vector<std::string> cni_plugins;
  std::string cni_read_error;   // the directory could not be read: named from the runtime's message only
  bool cni_no_network = false;  // the directory holds no loadable configuration (not the runtime's, then)
  bool ready_message_agrees = false;  // the kubelet's Ready message, where readable, says this very thing
};
using RuntimeNetworkNotReadyDetails = CauseDetails<CauseId::kRuntimeNetworkNotReady>;

}  // namespace plegscope
