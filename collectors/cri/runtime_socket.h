#pragma once
// The one check of the runtime's socket: the gRPC adapter before every call
// (for its error), start-up auto-detection and warnings (agent/cli) and the
// snapshot's socket_present (agent/node) all ask here. A missing socket is
// told apart from a hung runtime without a call that could hang itself.
#include <string>

namespace plegscope {

enum class SocketState {
  kNotAUnixPath,  // the endpoint names no unix socket path
  kMissing,       // nothing at the path
  kNotASocket,    // something else at the path
  kSocket,
};

SocketState socket_state_at(const std::string& path);        // a filesystem path
SocketState runtime_socket_state(const std::string& endpoint);  // unix:///path or /path

// Why the agent cannot reach the runtime, from its own connect() to the
// socket (no CRI call): an SELinux-enforcing node or a wrong mount denies the
// agent alone (permission denied), a k3s or RKE2 node keeps its socket
// elsewhere (no such socket), a stopped runtime leaves a socket nobody
// listens on (connection refused). The first two are the agent's problem,
// the last the node's.
enum class ConnectProblem {
  kNone,               // connect() succeeded: gRPC's failure is elsewhere
  kNoSuchSocket,       // ENOENT, ENOTDIR
  kPermissionDenied,   // EACCES, EPERM (DAC or an LSM such as SELinux)
  kConnectionRefused,  // ECONNREFUSED: a socket file, no listener
  kNotASocket,         // something else at the path
  kOther,
};
const char* connect_problem_name(ConnectProblem p);  // the `reason` label value
ConnectProblem connect_problem_of(int connect_errno);  // pure
ConnectProblem probe_connect(const std::string& path);  // one connect(), closed at once

}  // namespace plegscope
