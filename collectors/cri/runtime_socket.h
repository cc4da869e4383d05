#pragma once
// The one check of the runtime's socket: the gRPC adapter before every call
// (for its error), start-up auto-detection and warnings (agent/cli) and the
// snapshot's socket_present (agent/node) all ask here. A missing socket is
// told apart from a hung runtime without a call that could hang itself.
#include <string>

#include "cri/connect_problem.h"

namespace plegscope {

enum class SocketState {
  kNotAUnixPath,  // the endpoint names no unix socket path
  kMissing,       // nothing at the path
  kNotASocket,    // something else at the path
  kSocket,
};

SocketState socket_state_at(const std::string& path);        // a filesystem path
SocketState runtime_socket_state(const std::string& endpoint);  // unix:///path or /path

// One connect(), closed at once: what the kernel says of the socket.
ConnectProblem probe_connect(const std::string& path);

}  // namespace plegscope
