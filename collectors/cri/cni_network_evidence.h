#pragma once
// The runtime's CNI network and what its NetworkReady message says, as values.
// cni_network.h reads both; thread-compatible values.
#include <optional>
#include <string>
#include <vector>

namespace plegscope {

struct CniNetwork {
  std::string file;         // the configuration file's name in the directory
  std::string name;         // the network's name
  std::string cni_version;  // as the file gives it
  std::vector<std::string> plugins;  // the plugins' types, in the chain's order
  // cniVersion 1.1.0 or later: the runtime calls STATUS on its plugins.
  bool status_called = false;
};

// The network the runtimes use from a CNI directory: its first loadable file by name.
struct CniNetworkRead {
  std::string dir;
  std::optional<CniNetwork> network;  // nullopt: no loadable configuration
  std::string error;                  // the directory could not be read (the agent's view, not the node's)
  int files = 0;                      // configuration files seen (loadable or not)
};

// What a runtime's NetworkReady=false message says.
enum class NetworkMessageKind {
  kUnknown,       // neither shape below
  kNoConfig,      // no network loaded: "cni plugin not initialized" (containerd), "no CNI configuration file in
                  // <dir>. Has your network provider started?" (CRI-O), a configuration that fails to load
  kPluginError,   // "Network plugin returns error: <what a configured plugin answered>"
};
struct NetworkMessage {
  NetworkMessageKind kind = NetworkMessageKind::kUnknown;
  std::string plugin_error;  // kPluginError: the plugin's own words, the runtime's prefix taken off
};

}  // namespace plegscope
