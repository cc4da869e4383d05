// The floor: a bare C++ gRPC client (the kubelet's 16 MiB receive limit, no
// proxy) making the calls a relist needs and nothing else, so scripts/bench
// can print the agent's figures beside what the same calls cost on the same
// fakecri in the same run.
//   BM_ListPair    ListPodSandbox + ListContainers, unfiltered, back to back,
//                  each answer parsed into its message (what a client usually does)
//   BM_ListPairBytes the same two calls, each answer kept as the bytes gRPC
//                  received (no parse): what the calls alone cost
//   BM_ChurnRelist the pair, then the kubelet's GetPodStatus calls for
//                  --inspect-pods pods (filtered lists and status calls)
// Pairs are paced (--pause-ms between them, not timed) so the runtime is as
// idle between them as between the agent's relists, not hot from a tight loop.
// Usage: floor_client --socket PATH [--inspect-pods N] [--iterations N]
//                     [--pause-ms MS] [benchmark flags]
// Figures only; nothing asserts on them.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/client_unary_call.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cri_runtime_v1.grpc.pb.h"

namespace {

namespace cri = ::runtime::v1;

std::string g_socket;
int g_inspect_pods = 0;
int g_iterations = 0;  // 0: Google Benchmark decides
int g_pause_ms = 0;

void pause(benchmark::State& state) {
  if (g_pause_ms <= 0) return;
  state.PauseTiming();
  std::this_thread::sleep_for(std::chrono::milliseconds(g_pause_ms));
  state.ResumeTiming();
}

std::shared_ptr<grpc::Channel> channel() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(16 * 1024 * 1024);
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  return grpc::CreateCustomChannel("unix://" + g_socket, grpc::InsecureChannelCredentials(), args);
}

std::unique_ptr<cri::RuntimeService::Stub> connect() { return cri::RuntimeService::NewStub(channel()); }

// Peak resident set of this process (VmHWM), MiB.
double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

// Threads of this process now: a bare gRPC client's are gRPC's own (its
// executors, timer and event-engine pools) and the caller's one.
double thread_count() {
  std::error_code error;
  double n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error))
    ++n;
  return n;
}

struct ListPair {
  cri::ListPodSandboxResponse sandboxes;
  cri::ListContainersResponse containers;
};

bool list_pair(cri::RuntimeService::Stub& stub, ListPair& out) {
  grpc::ClientContext sandbox_ctx;
  if (!stub.ListPodSandbox(&sandbox_ctx, cri::ListPodSandboxRequest(), &out.sandboxes).ok())
    return false;
  grpc::ClientContext container_ctx;
  return stub.ListContainers(&container_ctx, cri::ListContainersRequest(), &out.containers).ok();
}

// The answer of `method` as gRPC's byte buffer: transport only, no parse.
bool call_for_bytes(grpc::Channel& channel, const grpc::internal::RpcMethod& method,
                    const grpc::protobuf::MessageLite& request, grpc::ByteBuffer& answer) {
  grpc::ClientContext ctx;
  return grpc::internal::BlockingUnaryCall<grpc::protobuf::MessageLite, grpc::ByteBuffer>(
             &channel, method, &ctx, request, &answer)
      .ok();
}

// The kubelet's GetPodStatus for one pod: sandboxes by uid label, each
// sandbox's status, containers by uid label, each container's status.
int inspect_pod(cri::RuntimeService::Stub& stub, const std::string& uid) {
  int calls = 0;
  cri::ListPodSandboxRequest sandbox_req;
  (*sandbox_req.mutable_filter()->mutable_label_selector())["io.kubernetes.pod.uid"] = uid;
  cri::ListPodSandboxResponse sandboxes;
  grpc::ClientContext ctx1;
  stub.ListPodSandbox(&ctx1, sandbox_req, &sandboxes);
  ++calls;
  for (const auto& s : sandboxes.items()) {
    grpc::ClientContext ctx;
    cri::PodSandboxStatusRequest req;
    req.set_pod_sandbox_id(s.id());
    cri::PodSandboxStatusResponse resp;
    stub.PodSandboxStatus(&ctx, req, &resp);
    ++calls;
  }
  cri::ListContainersRequest container_req;
  (*container_req.mutable_filter()->mutable_label_selector())["io.kubernetes.pod.uid"] = uid;
  cri::ListContainersResponse containers;
  grpc::ClientContext ctx2;
  stub.ListContainers(&ctx2, container_req, &containers);
  ++calls;
  for (const auto& c : containers.containers()) {
    grpc::ClientContext ctx;
    cri::ContainerStatusRequest req;
    req.set_container_id(c.id());
    cri::ContainerStatusResponse resp;
    stub.ContainerStatus(&ctx, req, &resp);
    ++calls;
  }
  return calls;
}

void report(benchmark::State& state, std::vector<double>& ms, double calls) {
  std::sort(ms.begin(), ms.end());
  double sum = 0;
  for (double v : ms) sum += v;
  if (!ms.empty()) {
    state.counters["mean_ms"] = sum / static_cast<double>(ms.size());
    state.counters["p99_ms"] = ms[std::min(ms.size() - 1, static_cast<size_t>(0.99 * ms.size()))];
  }
  state.counters["calls"] = calls;
  state.counters["peak_rss_mib"] = peak_rss_mib();
  state.counters["threads"] = thread_count();
}

void BM_ListPair(benchmark::State& state) {
  auto stub = connect();
  ListPair pair;
  std::vector<double> ms;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    pair = ListPair();
    if (!list_pair(*stub, pair)) {
      state.SkipWithError("list call failed");
      break;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    pause(state);
  }
  state.counters["sandboxes"] = pair.sandboxes.items_size();
  state.counters["containers"] = pair.containers.containers_size();
  state.counters["list_bytes"] = static_cast<double>(pair.containers.ByteSizeLong());
  report(state, ms, 2);
}

void BM_ListPairBytes(benchmark::State& state) {
  auto ch = channel();
  using grpc::internal::RpcMethod;
  RpcMethod list_sandboxes("/runtime.v1.RuntimeService/ListPodSandbox", RpcMethod::NORMAL_RPC, ch);
  RpcMethod list_containers("/runtime.v1.RuntimeService/ListContainers", RpcMethod::NORMAL_RPC, ch);
  const cri::ListPodSandboxRequest sandbox_req;
  const cri::ListContainersRequest container_req;
  std::vector<double> ms;
  size_t bytes = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    grpc::ByteBuffer sandboxes, containers;
    if (!call_for_bytes(*ch, list_sandboxes, sandbox_req, sandboxes) ||
        !call_for_bytes(*ch, list_containers, container_req, containers)) {
      state.SkipWithError("list call failed");
      break;
    }
    bytes = containers.Length();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    pause(state);
  }
  state.counters["list_bytes"] = static_cast<double>(bytes);
  report(state, ms, 2);
}

void BM_ChurnRelist(benchmark::State& state) {
  if (g_inspect_pods <= 0) {
    state.SkipWithError("--inspect-pods not given");
    for (auto _ : state) {}
    return;
  }
  auto stub = connect();
  std::vector<double> ms;
  int calls = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    ListPair pair;
    if (!list_pair(*stub, pair)) {
      state.SkipWithError("list call failed");
      break;
    }
    calls = 2;
    int n = std::min(g_inspect_pods, pair.sandboxes.items_size());
    for (int i = 0; i < n; ++i) calls += inspect_pod(*stub, pair.sandboxes.items(i).metadata().uid());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    pause(state);
  }
  report(state, ms, calls);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--socket" && i + 1 < argc) {
      g_socket = argv[++i];
    } else if (arg == "--inspect-pods" && i + 1 < argc) {
      g_inspect_pods = std::atoi(argv[++i]);
    } else if (arg == "--iterations" && i + 1 < argc) {
      g_iterations = std::atoi(argv[++i]);
    } else if (arg == "--pause-ms" && i + 1 < argc) {
      g_pause_ms = std::atoi(argv[++i]);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (g_socket.empty()) {
    std::fprintf(stderr, "floor_client: --socket PATH is required\n");
    return 2;
  }
  for (auto [name, fn] : {std::pair{"BM_ListPair", &BM_ListPair},
                          {"BM_ListPairBytes", &BM_ListPairBytes},
                          {"BM_ChurnRelist", &BM_ChurnRelist}}) {
    auto* b = benchmark::RegisterBenchmark(name, fn)->UseRealTime()->MeasureProcessCPUTime()->Unit(
        benchmark::kMillisecond);
    if (g_iterations > 0) b->Iterations(g_iterations);
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
