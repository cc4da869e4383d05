// CPU per CRI Status call of the runtime status probe, against a runtime
// on a unix socket (scripts: a fakecri): the probe's own path (begun on its
// completion queue, looked for until it came, recorded), the blocking call
// the kubelet makes, and what a scrape of the probe costs (evidence() and
// its metric families, no I/O). CPU is the whole process's (gRPC's threads
// included), from getrusage, divided by the calls.
//   runtime_status_bench --socket PATH [--calls N]
// Figures only; nothing asserts on them.
#include <sys/resource.h>

#include <prometheus/registry.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "cri/grpc_runtime_client.h"
#include "cri/runtime_status_probe.h"

namespace plegscope {
namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

void measure(const char* what, int calls, const std::function<void()>& one) {
  const double cpu0 = cpu_seconds();
  const auto wall0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) one();
  const double cpu = cpu_seconds() - cpu0;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::printf("%-58s %8.1f us CPU/call %8.1f us wall/call (%d calls)\n", what, cpu / calls * 1e6, wall / calls * 1e6,
              calls);
}

int run(const std::string& socket, int calls) {
  prometheus::Registry registry;
  SystemClock clock;
  OperationTracker tracker(registry, clock);
  GrpcRuntimeClient client(GrpcClientOptions{socket}, tracker, clock);
  RuntimeStatusOptions options;
  options.period = Duration(0);  // the next call as soon as the last answered
  RuntimeStatusProbe probe(client, clock, options);
  if (!client.status().ok()) {
    std::fprintf(stderr, "runtime_status_bench: no Status answer on %s\n", socket.c_str());
    return 2;
  }
  int answered = 0;
  auto one_probe_call = [&] {
    const int want = ++answered;
    probe.poll();
    // The lane looks every 500 ms; here every 100 us, so that the figure is
    // the call's and not the wait's. Each look is one AsyncNext(0).
    while (probe.evidence().calls < want) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      probe.poll();
    }
  };
  for (int i = 0; i < 50; ++i) one_probe_call();  // connect, warm up
  measure("probe: Status begun, looked for, answer recorded", calls, one_probe_call);
  measure("blocking Status (the kubelet's way)", calls, [&] { client.status(); });
  measure("scrape: evidence() + Collect(), no I/O", calls * 10, [&] { probe.Collect(); });
  const RuntimeStatusEvidence e = probe.evidence();
  std::printf("calls %d, failures %d, last %s\n", e.calls, e.failures, e.healthy() ? "healthy" : "not healthy");
  return 0;
}

}  // namespace
}  // namespace plegscope

int main(int argc, char** argv) {
  std::string socket;
  int calls = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--socket")) socket = argv[i + 1];
    else if (!std::strcmp(argv[i], "--calls")) calls = std::atoi(argv[i + 1]);
  }
  if (socket.empty() || calls <= 0) {
    std::fprintf(stderr, "usage: runtime_status_bench --socket PATH [--calls N]\n");
    return 2;
  }
  return plegscope::run(socket, calls);
}
