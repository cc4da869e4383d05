#pragma once
// Why the agent cannot reach the runtime, as plain values: the gRPC adapter
// notes it (cri/runtime_socket.h probes the socket), the tracker exports it
// as pleg_runtime_unreachable{reason}, and the diagnoser reads it without
// gRPC. Pure functions, no I/O.
#include <string>

namespace plegscope {

// Why the agent cannot reach the runtime, from its own connect() to the
// socket (no CRI call) and whether a CRI answer ever came: an
// SELinux-enforcing node or a wrong mount denies the agent alone (permission
// denied), a k3s or RKE2 node keeps its socket elsewhere (no such socket), a
// wrong endpoint finds another service (not CRI), a stopped runtime leaves a
// socket nobody listens on (connection refused) or removes it. agent_side()
// tells the agent's problems from the node's.
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
const char* connect_problem_name(ConnectProblem p);  // the `reason` label value
ConnectProblem connect_problem_of(int connect_errno);  // pure

// What a failed call's connect() result means, given whether the runtime at
// the endpoint has ever answered this agent (pure). A runtime that answered
// and then lost its socket was stopped (containerd and CRI-O unlink it on
// a clean stop): the node's problem. A socket that accepts but never gave a
// CRI answer is not a CRI runtime: the endpoint is wrong. Once a runtime
// answered, UNAVAILABLE with a working connect() is the runtime's.
ConnectProblem after_history(ConnectProblem connect_result, bool answered_before);

// The agent is blind for a reason of its own: it may not open the socket,
// there is none where it looks, or what is there is no CRI runtime. Nothing
// here says the node is at fault (the kubelet may be reading the runtime
// fine), so no cause may advise repairing the node on this ground and no
// critical alert may fire. connection_refused and socket_removed stay the
// node's: a socket nobody listens on is a stopped runtime.
bool agent_side(ConnectProblem p);

}  // namespace plegscope
