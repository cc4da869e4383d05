#pragma once
// Why the agent cannot reach the runtime, as a plain value: the tracker
// hands it over (cri/connect_problem.h tells it), exported as
// pleg_runtime_unreachable{reason} and read by the diagnoser without gRPC.

namespace plegscope {

// Why the agent cannot reach the runtime, from its own connect() to the
// socket (no CRI call) and whether a CRI answer ever came: an
// SELinux-enforcing node or a wrong mount denies the agent alone (permission
// denied), a k3s or RKE2 node keeps its socket elsewhere (no such socket), a
// wrong endpoint finds another service (not CRI), a stopped runtime leaves a
// socket nobody listens on (connection refused) or removes it. agent_side()
// (cri/connect_problem.h) tells the agent's problems from the node's.
enum class ConnectProblem {
  kNone,               // connect() succeeded: gRPC's failure is elsewhere
  kNoSuchSocket,       // ENOENT, ENOTDIR
  kPermissionDenied,   // EACCES, EPERM (DAC or an LSM such as SELinux)
  kConnectionRefused,  // ECONNREFUSED: a socket file, no listener
  kNotASocket,         // something else at the path
  // Not from connect() alone: what the first answers say of the peer.
  kNotCri,        // connect() works but no CRI answer ever came: gRPC cannot
                  // talk to the peer, or it says UNIMPLEMENTED to Version
  kSocketRemoved,  // no socket any more where a runtime answered before
  kOther,
};
// The `reason` label value.
constexpr const char* connect_problem_name(ConnectProblem p) {
  switch (p) {
    case ConnectProblem::kNone: return "none";
    case ConnectProblem::kNoSuchSocket: return "no_such_socket";
    case ConnectProblem::kPermissionDenied: return "permission_denied";
    case ConnectProblem::kConnectionRefused: return "connection_refused";
    case ConnectProblem::kNotASocket: return "not_a_socket";
    case ConnectProblem::kNotCri: return "not_cri";
    case ConnectProblem::kSocketRemoved: return "socket_removed";
    case ConnectProblem::kOther: break;
  }
  return "other";
}

}  // namespace plegscope
