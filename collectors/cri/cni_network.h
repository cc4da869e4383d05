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
// Pure parsers and one directory read (the values are cni_network_evidence.h).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cri/cni_network_evidence.h"

namespace plegscope {

// One configuration file's bytes: a network list (.conflist: "plugins") or a
// single network (.conf/.json: "type"); nullopt when it does not parse or
// names no plugin (the runtimes skip such a file).
std::optional<CniNetwork> parse_cni_network(std::string_view file, std::string_view bytes);

// The network the runtimes use from `dir`: its first loadable file by name.
CniNetworkRead read_cni_network(const std::string& dir);

// "1.1.0" >= "1.1.0": numeric, part by part.
bool cni_version_at_least(std::string_view version, int major, int minor);

// What a runtime's NetworkReady=false message says.
NetworkMessage read_network_message(std::string_view message);

// Of `network`'s plugins, the one `plugin_error` names (by its type, a
// missing binary's "failed to find plugin \"x\"" too); else the only plugin
// STATUS is called on; else "" (the chain has several and the error names none).
std::string plugin_named(const CniNetwork& network, std::string_view plugin_error);

}  // namespace plegscope
