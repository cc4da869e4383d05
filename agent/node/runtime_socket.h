#pragma once
// The one check of the runtime's socket on the agent's side: start-up
// auto-detection and warnings (cli/) and the snapshot's socket_present
// (Node) all ask here. The gRPC adapter checks again before every call, for
// its own error; that copy lives in collectors/cri.
#include <string>

namespace plegscope {

enum class SocketState {
  kNotAUnixPath,  // the endpoint names no unix socket path
  kMissing,       // nothing at the path
  kNotASocket,    // something else at the path
  kSocket,
};

SocketState runtime_socket_state(const std::string& endpoint);

}  // namespace plegscope
