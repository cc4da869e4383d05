// What reading a node's whole container list costs the agent, unary against
// streamed in lists of thousands per message (as CRI-O 1.36 and containerd
// 2.4 send them), beside a floor: the same unary answer received by a bare
// gRPC client into a byte buffer and never decoded, the least any client
// pays. The fake runtime serves in process over its unix socket.
// Prints figures; nothing asserts on them.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/client_unary_call.h>
#include <prometheus/registry.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "common/clock.h"
#include "cri/grpc_runtime_client.h"
#include "cri/operation_tracker.h"
#include "fake_runtime.h"
#include "scenario_loader.h"

namespace {

// One fake node per (containers, batch): 10 containers a pod, all running.
struct ServedNode {
  ServedNode(int containers, int batch) {
    char tmpl[] = "/tmp/list-bench-XXXXXX";
    dir = mkdtemp(tmpl);
    socket = dir + "/cri.sock";
    const std::string scenario = R"({"node": {"pods": )" + std::to_string(containers / 10) +
                                 R"(, "containers_per_pod": 10}, "runtime": {"list_streaming": true, "list_stream_batch": )" +
                                 std::to_string(batch) + "}}";
    runtime = std::make_unique<fakecri::FakeRuntime>(fakecri::parse_scenario(scenario), socket, fake_clock);
    std::string error;
    if (!runtime->start(&error)) throw std::runtime_error(error);
  }
  ~ServedNode() {
    runtime->shutdown();
    runtime.reset();
    std::filesystem::remove_all(dir);
  }
  fakecri::SystemClock fake_clock;
  std::string dir, socket;
  std::unique_ptr<fakecri::FakeRuntime> runtime;
};

void read_with_agent(benchmark::State& state, plegscope::ListStreaming mode) {
  spdlog::set_level(spdlog::level::warn);
  ServedNode node(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  prometheus::Registry registry;
  plegscope::SystemClock clock;
  plegscope::OperationTracker tracker(registry, clock);
  plegscope::GrpcClientOptions options;
  options.endpoint = "unix://" + node.socket;
  options.list_streaming = mode;
  plegscope::GrpcRuntimeClient client(options, tracker, clock);
  size_t items = 0;
  for (auto _ : state) {
    auto answer = client.list_all_containers();
    if (!answer.ok()) {
      state.SkipWithError(answer.status.message.c_str());
      break;
    }
    items = answer.value.size();
  }
  state.counters["containers"] = static_cast<double>(items);
  state.counters["answer_bytes"] =
      static_cast<double>(tracker.last_list_bytes(plegscope::op::kListContainers).value_or(0));
  client.shutdown();
}

void BM_ListUnary(benchmark::State& state) { read_with_agent(state, plegscope::ListStreaming::kOff); }
void BM_ListStreamed(benchmark::State& state) { read_with_agent(state, plegscope::ListStreaming::kOn); }

// The floor: the unary answer's bytes, received and dropped.
void BM_ListFloor(benchmark::State& state) {
  ServedNode node(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  auto channel = grpc::CreateCustomChannel("unix:" + node.socket, grpc::InsecureChannelCredentials(), args);
  grpc::internal::RpcMethod method("/runtime.v1.RuntimeService/ListContainers", grpc::internal::RpcMethod::NORMAL_RPC,
                                   channel);
  size_t bytes = 0;
  for (auto _ : state) {
    grpc::ClientContext ctx;
    grpc::ByteBuffer reply;
    auto st = grpc::internal::BlockingUnaryCall<runtime::v1::ListContainersRequest, grpc::ByteBuffer,
                                                grpc::protobuf::MessageLite, grpc::ByteBuffer>(
        channel.get(), method, &ctx, runtime::v1::ListContainersRequest(), &reply);
    if (!st.ok()) {
      state.SkipWithError(st.error_message().c_str());
      break;
    }
    bytes = reply.Length();
  }
  state.counters["answer_bytes"] = static_cast<double>(bytes);
}

// 1,000 and 10,000 containers; streamed in CRI-O 1.36's 3,000 and containerd
// 2.4's 5,000 items a message (the floor and the unary read ignore the batch).
void Sizes(benchmark::internal::Benchmark* b) {
  for (int containers : {1000, 10000})
    for (int batch : {3000, 5000}) b->Args({containers, batch});
  b->ArgNames({"containers", "batch"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_ListFloor)->Apply(Sizes);
BENCHMARK(BM_ListUnary)->Apply(Sizes);
BENCHMARK(BM_ListStreamed)->Apply(Sizes);

}  // namespace

BENCHMARK_MAIN();
