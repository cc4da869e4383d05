// libFuzzer target for what plegscope reads from other components over
// HTTP: Prometheus text (the kubelet's /metrics, the runtime's metrics page)
// and the API server's Node JSON. Whatever arrives, the readers return.
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kubelet/kubelet_metrics.h"
#include "kubelet/kubelet_state.h"
#include "kubelet/node_ready.h"
#include "prom_text/histogram.h"
#include "prom_text/prom_text.h"
#include "runtime_metrics/runtime_metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace plegscope;

  auto parsed = parse_prom_text(text, {"m", "m_total", "kubelet_pleg_relist_duration_seconds"}, {"m_total"});
  // What a summed family skips is a line a full parse reads as 0.
  auto unskipped = parse_prom_text(text, {"m", "m_total", "kubelet_pleg_relist_duration_seconds"});
  if (const auto* all = unskipped.family("m_total")) {
    const auto* kept = parsed.family("m_total");
    size_t kept_samples = kept ? kept->samples.size() : 0;
    if (kept_samples + parsed.zero_samples_skipped < all->samples.size()) __builtin_trap();
  }
  for (const auto& family : parsed.families) {
    for (const auto& sample : family.samples) {
      // A sample is only ever filed under a family its name starts with.
      if (sample.name.compare(0, family.name.size(), family.name) != 0) __builtin_trap();
      // A sample's labels sit in the result's store; each name and value is
      // the page's own bytes, or a value's unescaped copy held by the result.
      const PromLabel* store = parsed.label_store.data();
      if (sample.label_count > 0 &&
          (sample.labels < store || sample.labels + sample.label_count > store + parsed.label_store.size())) {
        __builtin_trap();
      }
      auto in_page = [&text](std::string_view v) {
        return v.empty() || (v.data() >= text.data() && v.data() + v.size() <= text.data() + text.size());
      };
      for (size_t k = 0; k < sample.label_count; ++k) {
        const PromLabel& label = sample.labels[k];
        if (label.name.empty() || !in_page(label.name)) __builtin_trap();
        if (!in_page(label.value)) {
          bool held = false;
          for (const auto& copy : parsed.unescaped_values) held = held || copy.data() == label.value.data();
          if (!held) __builtin_trap();
        }
        if (sample.label(label.name) != label.value) __builtin_trap();  // names are unique
      }
    }
    auto by = histograms_by(family, "le");
    for (const auto& [key, h] : by) {
      auto q = bucket_quantile(0.99, h);
      (void)q;
    }
  }
  if (parsed.malformed_lines > parsed.lines) __builtin_trap();

  KubeletSample kubelet = parse_kubelet_metrics(text);
  KubeletState state;
  MonotonicTime t0{};
  state.observe(kubelet, t0, TimePoint{});
  state.observe(kubelet, t0 + std::chrono::seconds(5), TimePoint{});
  KubeletView view = state.view(t0 + std::chrono::seconds(5));
  if (view.seconds_since_relist_advanced && *view.seconds_since_relist_advanced < 0) __builtin_trap();

  RuntimeMetricsSample runtime = parse_runtime_metrics(text);
  RuntimeMetricsState runtime_state;
  runtime_state.observe(runtime, t0);
  for (const auto& call : runtime_state.in_flight(t0 + std::chrono::seconds(1))) {
    if (!(call.count > 0)) __builtin_trap();
  }

  std::string error;
  parse_node_ready(text, &error);
  return 0;
}
