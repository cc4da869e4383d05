#pragma once
// What successive kubelet samples say together: how long since the
// kubelet's relist count last moved, its relist rate and p99 over a window,
// how old its last-seen timestamp is, and which PLEG model it runs. Time is
// passed in (a monotonic reading for spans, the agent's wall clock only to
// age the kubelet's wall-clock last-seen), so tests step it by hand.
#include <chrono>
#include <deque>
#include <optional>

#include "common/clock.h"
#include "kubelet/kubelet_metrics.h"

namespace plegscope {

using MonotonicTime = std::chrono::steady_clock::time_point;

struct KubeletView {
  size_t samples = 0;  // observed since start (or since the kubelet restarted)
  std::optional<double> sample_age_seconds;  // since the last observe()
  std::optional<double> relist_count;        // kubelet_pleg_relist_duration_seconds_count
  // Since the count last advanced; at the first sample, since that sample
  // (a lower bound: the count may have been frozen before the agent came).
  std::optional<double> seconds_since_relist_advanced;
  std::optional<double> relists_per_minute;  // over the window
  std::optional<double> relist_p99_seconds;  // from bucket deltas over the window
  // Agent wall clock at the last sample minus the kubelet's last-seen
  // timestamp; negative means the two clocks disagree.
  std::optional<double> last_seen_age_seconds;
  std::optional<KubeletVersion> version;
  bool version_overridden = false;  // set_version_override() is in force
  std::optional<bool> evented_pleg_gate;
  std::optional<bool> cri_list_streaming_gate;  // whether the kubelet streams its CRI lists
  // The last sample's kubelet_cri_losing_support{version}: the series lives
  // until the kubelet restarts, so a sample without it means a kubelet that
  // found RuntimeConfig answered.
  std::optional<std::string> cri_losing_support;
  // The kubelet's PLEG as the agent copies it; the newest released
  // kubelet's (model.source assumed) when no version is known.
  KubeletPlegModel model;
};

// Not thread-safe: one scrape loop calls observe(); others read a copied view.
class KubeletState {
 public:
  explicit KubeletState(std::chrono::seconds window = std::chrono::seconds(60));

  void observe(const KubeletSample& sample, MonotonicTime mono_now, TimePoint wall_now);
  KubeletView view(MonotonicTime mono_now) const;

  // --kubelet-version: used where the kubelet's own is unreadable, and over it.
  void set_version_override(const KubeletVersion& version) { override_ = version; }

 private:
  struct Point {
    MonotonicTime at;
    double count;
    std::optional<Histogram> durations;
  };

  std::chrono::seconds window_;
  std::deque<Point> points_;  // samples carrying a relist histogram, oldest first
  size_t samples_ = 0;
  std::optional<MonotonicTime> last_observed_;
  std::optional<MonotonicTime> count_advanced_at_;
  std::optional<double> last_seen_age_;
  std::optional<KubeletVersion> version_;
  std::optional<KubeletVersion> override_;
  std::optional<bool> evented_gate_;
  std::optional<bool> list_streaming_gate_;
  std::optional<std::string> losing_support_;
};

}  // namespace plegscope
