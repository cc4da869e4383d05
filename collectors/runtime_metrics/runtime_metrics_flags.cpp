// The runtime's own metrics page: off unless named.
#include "common/flag_binding.h"
#include "runtime_metrics/runtime_metrics_reader.h"

namespace plegscope {

void add_flags(CLI::App& app, RuntimeMetricsOptions& runtime_metrics) {
  add_url_flag(app, "--runtime-metrics-endpoint", runtime_metrics.endpoint,
               "the runtime's own metrics page (containerd [metrics] address + /v1/metrics, CRI-O enable_metrics); "
               "off disables",
               "off", "http://127.0.0.1:1338/v1/metrics");
}

}  // namespace plegscope
