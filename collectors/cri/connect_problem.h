#pragma once
// Why the agent cannot reach the runtime, told from its own connect() and
// the runtime's history of answers: the gRPC adapter notes it
// (cri/runtime_socket.h probes the socket), the tracker exports it as
// pleg_runtime_unreachable{reason}. Pure functions, no I/O; the value they
// make is cri/connect_problem_evidence.h.
#include "cri/connect_problem_evidence.h"

namespace plegscope {

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
