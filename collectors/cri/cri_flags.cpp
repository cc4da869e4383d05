// The CRI client's flags: which socket, how long a call may take, and
// whether lists are streamed.
#include "common/flag_binding.h"
#include "cri/grpc_runtime_client.h"
#include "cri/runtime_socket.h"

namespace plegscope {

// k3s and RKE2 run their own containerd with its socket under /run/k3s: found
// after a stock containerd's, so a node with both reads the stock one.
const std::vector<std::string> kDefaultRuntimeEndpoints = {
    "unix:///run/containerd/containerd.sock", "unix:///run/k3s/containerd/containerd.sock",
    "unix:///run/crio/crio.sock", "unix:///var/run/cri-dockerd.sock"};

std::string detect_runtime_endpoint() {
  for (const auto& candidate : kDefaultRuntimeEndpoints) {
    SocketState state = runtime_socket_state(candidate);
    if (state == SocketState::kSocket || state == SocketState::kNotASocket) return candidate;
  }
  return kDefaultRuntimeEndpoints.front();
}

void add_flags(CLI::App& app, GrpcClientOptions& runtime) {
  app.add_option_function<std::string>(
         "--container-runtime-endpoint",
         [&runtime](const std::string& endpoint) {
           if (!unix_socket_path(endpoint))
             throw UsageError{"--container-runtime-endpoint: invalid value \"" + endpoint +
                              "\" (expected a unix socket such as unix:///run/containerd/containerd.sock)"};
           runtime.endpoint = endpoint;
         },
         "CRI socket (default: first existing of the containerd, k3s/RKE2 containerd, CRI-O, cri-dockerd sockets)")
      ->envname(flag_env("--container-runtime-endpoint"));
  add_duration_flag(app, "--runtime-request-timeout", runtime.request_timeout,
                    "deadline of every CRI call, as the kubelet");
  app.add_option_function<std::string>(
         "--cri-list-streaming",
         [&runtime](const std::string& mode) {
           if (mode == "auto") runtime.list_streaming = ListStreaming::kFollowKubelet;
           else if (mode == "true") runtime.list_streaming = ListStreaming::kOn;
           else if (mode == "false") runtime.list_streaming = ListStreaming::kOff;
           else throw UsageError{"--cri-list-streaming: invalid value \"" + mode + "\" (expected auto, true or false)"};
         },
         "auto (list as the kubelet beside: streamed only where it runs the CRIListStreaming gate, unary without a "
         "readable kubelet, as every release's default), true (StreamPodSandboxes/StreamContainers, unary where the "
         "runtime answers UNIMPLEMENTED) or false (always unary)")
      ->envname(flag_env("--cri-list-streaming"))
      ->default_str("auto");
}

}  // namespace plegscope
