#pragma once
// The node's pod network as the runtime loads it, and what the runtime's
// NetworkReady message says of it. Both containerd (go-cni) and CRI-O
// (ocicni) take the first configuration file of their CNI directory, by file
// name, that loads (.conf, .conflist, .json), and from CNI spec 1.1.0 call
// each plugin of that network with STATUS: containerd inside every CRI
// Status call, CRI-O from its own poll every 5 s (only with
// cni_status_grace_period set; at start-up until the first success in any
// case). A plugin that answers STATUS with an error makes NetworkReady false
// with the message "Network plugin returns error: <its msg>[; <details>]",
// which names no plugin: the configuration does.
//
// Pure parsers and one directory read; thread-compatible values.
#include <optional>
#include <string>
#include <string_view>
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

// One configuration file's bytes: a network list (.conflist: "plugins") or a
// single network (.conf/.json: "type"); nullopt when it does not parse or
// names no plugin (the runtimes skip such a file).
std::optional<CniNetwork> parse_cni_network(std::string_view file, std::string_view bytes);

// The network the runtimes use from `dir`: its first loadable file by name.
struct CniNetworkRead {
  std::string dir;
  std::optional<CniNetwork> network;  // nullopt: no loadable configuration
  std::string error;                  // the directory could not be read (the agent's view, not the node's)
  int files = 0;                      // configuration files seen (loadable or not)
};
CniNetworkRead read_cni_network(const std::string& dir);

// "1.1.0" >= "1.1.0": numeric, part by part.
bool cni_version_at_least(std::string_view version, int major, int minor);

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
NetworkMessage read_network_message(std::string_view message);

// Of `network`'s plugins, the one `plugin_error` names (by its type, a
// missing binary's "failed to find plugin \"x\"" too); else the only plugin
// STATUS is called on; else "" (the chain has several and the error names none).
std::string plugin_named(const CniNetwork& network, std::string_view plugin_error);

}  // namespace plegscope
