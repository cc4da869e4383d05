#include "runtime_metrics/nri_call_tracker.h"

#include "prom_text/histogram.h"

namespace plegscope {

void NriCallTracker::observe(const RuntimeMetricsSample& sample, MonoTime now) {
  latency_.add(now, sample.nri_latency);
  timeouts_.add(now, sample.nri_timeouts);
  latency_now_ = sample.nri_latency;
  for (const auto& [key, total] : sample.nri_timeouts) {
    auto seen = timeouts_seen_.find(key);
    // The first scrape's total is history of unknown age; a counter that
    // went down is a restarted runtime, counting again from 0.
    const bool grew = seen != timeouts_seen_.end() &&
                      (total > seen->second || (total < seen->second && total > 0));
    if (grew) {
      auto latency = sample.nri_latency.find(key);
      last_cutoff_[key] = {now, latency == sample.nri_latency.end() ? Histogram{} : latency->second};
    }
    timeouts_seen_[key] = total;
  }
}

std::vector<RuntimeMetricsEvidence::NriCalls> NriCallTracker::calls(MonoTime now) const {
  std::vector<RuntimeMetricsEvidence::NriCalls> out;
  const std::map<std::string, double> timeouts = timeouts_.added();
  for (auto& [key, latency] : latency_.added()) {
    auto [plugin, operation] = split_nri_call_key(key);
    RuntimeMetricsEvidence::NriCalls n{std::move(plugin), std::move(operation), std::move(latency), 0, {}, {}};
    if (auto t = timeouts.find(key); t != timeouts.end()) n.timeouts = t->second;
    if (auto c = last_cutoff_.find(key); c != last_cutoff_.end()) {
      n.seconds_since_timeout = std::chrono::duration<double>(now - c->second.seen).count();
      // A histogram that went down is a restarted runtime: all it holds came after.
      if (auto current = latency_now_.find(key); current != latency_now_.end()) {
        std::optional<Histogram> since = histogram_delta(current->second, c->second.latency);
        n.since_timeout = since ? *since : current->second;
      }
    }
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace plegscope
