// CPU per kubelet scrape parse at a realistic exposition size (>= 1 MiB:
// the kubelet's PLEG families among many others it exports), beside the
// floor of touching the same bytes once (counting newlines with memchr), and
// the same for containerd 1.6's page.
#include <benchmark/benchmark.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "kubelet/kubelet_metrics.h"
#include "runtime_metrics/runtime_metrics.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The fixture (PLEG and runtime-operation families) plus enough series of
// families the reader skips (rest client, storage operations, ...) to pass
// 1.5 MiB, the size a busy kubelet's /metrics reaches.
const std::string& kubelet_exposition() {
  static const std::string text = [] {
    std::string t = read_file(std::string(PLEGSCOPE_SOURCE_DIR) + "/tests/fixtures/kubelet/kubelet-1.30.txt");
    t += "# HELP rest_client_request_duration_seconds [ALPHA] Request latency in seconds.\n";
    t += "# TYPE rest_client_request_duration_seconds histogram\n";
    const char* bounds[] = {"0.005", "0.025", "0.1", "0.25", "0.5", "1", "2", "4", "8", "15", "30", "60", "+Inf"};
    for (int k = 0; t.size() < (3u << 19); ++k) {
      std::string labels = "host=\"10.96.0.1:443\",path=\"/api/v1/namespaces/ns-" + std::to_string(k) +
                           "/pods/pod-" + std::to_string(k) + "\",verb=\"GET\"";
      for (const char* le : bounds) {
        t += "rest_client_request_duration_seconds_bucket{" + labels + ",le=\"" + le + "\"} " +
             std::to_string(k * 3 + 1) + "\n";
      }
      t += "rest_client_request_duration_seconds_sum{" + labels + "} 0.0123\n";
      t += "rest_client_request_duration_seconds_count{" + labels + "} " + std::to_string(k * 3 + 1) + "\n";
    }
    return t;
  }();
  return text;
}

const std::string& containerd16_page() {
  static const std::string text =
      read_file(std::string(PLEGSCOPE_SOURCE_DIR) + "/tests/fixtures/runtime_metrics/containerd-1.6.txt");
  return text;
}

// containerd's page on a runtime that has served calls: an idle one (the
// fixture) prints 0 for every grpc_server_handled_total line, which the
// reader skips unread; a busy one has a count on each method's OK line, and
// in the worst case on every line. `every_line` picks the worst case.
std::string containerd16_page_with_counts(bool every_line) {
  std::istringstream in(containerd16_page());
  std::string out, line;
  long count = 1;
  while (std::getline(in, line)) {
    const bool handled = line.rfind("grpc_server_handled_total{", 0) == 0 && line.size() > 2 &&
                         line.compare(line.size() - 2, 2, " 0") == 0;
    if (handled && (every_line || line.find("grpc_code=\"OK\"") != std::string::npos))
      line.replace(line.size() - 1, 1, std::to_string(count += 37));
    out += line;
    out += '\n';
  }
  return out;
}

const std::string& containerd16_busy_page() {
  static const std::string text = containerd16_page_with_counts(false);
  return text;
}

const std::string& containerd16_all_counted_page() {
  static const std::string text = containerd16_page_with_counts(true);
  return text;
}

// The floor: touching the page's bytes once, as any reader must.
void newline_scan(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    size_t lines = 0;
    const char* p = text.data();
    const char* end = p + text.size();
    while (const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p))) {
      ++lines;
      p = static_cast<const char*>(nl) + 1;
    }
    benchmark::DoNotOptimize(lines);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["exposition_bytes"] = static_cast<double>(text.size());
}

void BM_Floor_NewlineScan(benchmark::State& state) { newline_scan(state, kubelet_exposition()); }
BENCHMARK(BM_Floor_NewlineScan)->Unit(benchmark::kMicrosecond);

void BM_Floor_NewlineScanContainerd16Page(benchmark::State& state) { newline_scan(state, containerd16_page()); }
BENCHMARK(BM_Floor_NewlineScanContainerd16Page)->Unit(benchmark::kMicrosecond);

void BM_Floor_NewlineScanContainerd16BusyPage(benchmark::State& state) {
  newline_scan(state, containerd16_busy_page());
}
BENCHMARK(BM_Floor_NewlineScanContainerd16BusyPage)->Unit(benchmark::kMicrosecond);

void BM_Floor_NewlineScanContainerd16AllCountedPage(benchmark::State& state) {
  newline_scan(state, containerd16_all_counted_page());
}
BENCHMARK(BM_Floor_NewlineScanContainerd16AllCountedPage)->Unit(benchmark::kMicrosecond);

void BM_ParseKubeletMetrics(benchmark::State& state) {
  const std::string& text = kubelet_exposition();
  for (auto _ : state) {
    auto sample = plegscope::parse_kubelet_metrics(text);
    benchmark::DoNotOptimize(sample);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["exposition_bytes"] = static_cast<double>(text.size());
}
BENCHMARK(BM_ParseKubeletMetrics)->Unit(benchmark::kMicrosecond);

void parse_runtime_page(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    auto sample = plegscope::parse_runtime_metrics(text);
    benchmark::DoNotOptimize(sample);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["exposition_bytes"] = static_cast<double>(text.size());
}

void BM_ParseContainerd16Page(benchmark::State& state) { parse_runtime_page(state, containerd16_page()); }
BENCHMARK(BM_ParseContainerd16Page)->Unit(benchmark::kMicrosecond);

void BM_ParseContainerd16BusyPage(benchmark::State& state) { parse_runtime_page(state, containerd16_busy_page()); }
BENCHMARK(BM_ParseContainerd16BusyPage)->Unit(benchmark::kMicrosecond);

void BM_ParseContainerd16AllCountedPage(benchmark::State& state) {
  parse_runtime_page(state, containerd16_all_counted_page());
}
BENCHMARK(BM_ParseContainerd16AllCountedPage)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
