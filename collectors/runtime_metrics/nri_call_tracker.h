#pragma once
// containerd's NRI figures over time: each plugin's calls in a recent
// window, how long ago NRI last cut it off, and what it answered since.
// Pure: the reader feeds it each scrape's sample with the scrape's time.
// Not thread-safe: its reader's lock guards it.
#include <map>
#include <string>
#include <vector>

#include "common/clock.h"
#include "runtime_metrics/runtime_metrics.h"
#include "runtime_metrics/runtime_metrics_evidence.h"
#include "scrape/scrape_loop.h"

namespace plegscope {

class NriCallTracker {
 public:
  explicit NriCallTracker(Duration window) : latency_(window), timeouts_(window) {}
  void observe(const RuntimeMetricsSample& sample, MonoTime now);
  std::vector<RuntimeMetricsEvidence::NriCalls> calls(MonoTime now) const;

 private:
  HistogramWindow latency_;
  CounterWindow timeouts_;
  // Per plugin and operation (nri_call_key): its timeouts counter at the
  // last scrape; the scrape that saw it grow last, and the latency
  // histogram as that scrape read it, so that the calls ended since the
  // last cut-off are the histogram's growth after it.
  std::map<std::string, double> timeouts_seen_;
  struct Cutoff {
    MonoTime seen{};
    Histogram latency;
  };
  std::map<std::string, Cutoff> last_cutoff_;
  std::map<std::string, Histogram> latency_now_;
};

}  // namespace plegscope
