#include "diagnoser/event_lag_window.h"

#include <algorithm>
#include <map>

#include "pleg/lag_summary.h"

namespace plegscope {

namespace {

Report::EventLag::Figures figures_of(const LagSummary& s) {
  return {s.count, lag_quantile(s.buckets, 0.5).value_or(0), lag_quantile(s.buckets, 0.99).value_or(0),
          s.invalid};
}

}  // namespace

Report::EventLag::Evented evented_lag_figures(const EventedLag& lag) {
  return {figures_of(lag.delivery), figures_of(lag.cache_update)};
}

Report::EventLag event_lag_over(const std::vector<RelistRecord>& timeline) {
  Report::EventLag out;
  std::array<uint32_t, kLagBuckets.size() + 1> buckets{};
  std::map<std::string, PodLag> worst;  // by pod uid: its worst event
  for (const RelistRecord& r : timeline) {
    if (r.in_progress) continue;
    for (size_t i = 0; i < buckets.size(); ++i) buckets[i] += r.lag.buckets[i];
    out.events += r.lag.count;
    out.invalid += r.lag.invalid;
    for (const PodLag& p : r.lag.worst) {
      auto [it, added] = worst.emplace(p.uid, p);
      if (!added && p.lag > it->second.lag) it->second = p;
    }
  }
  out.p50_seconds = lag_quantile(buckets, 0.5).value_or(0);
  out.p99_seconds = lag_quantile(buckets, 0.99).value_or(0);
  std::vector<PodLag> pods;
  for (auto& [uid, p] : worst) pods.push_back(std::move(p));
  std::stable_sort(pods.begin(), pods.end(), [](const PodLag& a, const PodLag& b) { return a.lag > b.lag; });
  if (pods.size() > kWorstLagPods) pods.resize(kWorstLagPods);
  for (const PodLag& p : pods)
    out.worst_pods.push_back({p.uid, p.namespace_, p.name, p.container, event_type_name(p.type), to_seconds(p.lag)});
  return out;
}

}  // namespace plegscope
