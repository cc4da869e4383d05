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
#include "kubelet/kubelet_view.h"

namespace plegscope {

using MonotonicTime = std::chrono::steady_clock::time_point;

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
