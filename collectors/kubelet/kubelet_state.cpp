#include "kubelet/kubelet_state.h"

namespace plegscope {
namespace {

double seconds_between(MonotonicTime from, MonotonicTime to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

KubeletState::KubeletState(std::chrono::seconds window) : window_(window) {}

void KubeletState::observe(const KubeletSample& sample, MonotonicTime mono_now, TimePoint wall_now) {
  ++samples_;
  last_observed_ = mono_now;
  if (sample.version) version_ = sample.version;
  if (sample.evented_pleg_gate) evented_gate_ = sample.evented_pleg_gate;
  if (sample.cri_list_streaming_gate) list_streaming_gate_ = sample.cri_list_streaming_gate;
  losing_support_ = sample.cri_losing_support;
  last_seen_age_.reset();
  if (sample.pleg_last_seen_seconds && *sample.pleg_last_seen_seconds > 0) {
    last_seen_age_ = unix_seconds(wall_now) - *sample.pleg_last_seen_seconds;
  }
  if (!sample.relist_duration) return;

  double count = sample.relist_duration->count;
  if (!points_.empty() && count < points_.back().count) {
    // The kubelet restarted: its counters began again.
    points_.clear();
    count_advanced_at_ = mono_now;
    samples_ = 1;
  }
  if (points_.empty()) {
    if (!count_advanced_at_) count_advanced_at_ = mono_now;
  } else if (count > points_.back().count) {
    count_advanced_at_ = mono_now;
  }
  points_.push_back(Point{mono_now, count, sample.relist_duration});
  // Keep one point at or before the window's start as the rate's anchor.
  while (points_.size() > 2 && points_[1].at <= mono_now - window_) points_.pop_front();
}

KubeletView KubeletState::view(MonotonicTime mono_now) const {
  KubeletView v;
  v.samples = samples_;
  if (last_observed_) v.sample_age_seconds = seconds_between(*last_observed_, mono_now);
  v.last_seen_age_seconds = last_seen_age_;
  v.version = override_ ? override_ : version_;
  v.version_overridden = override_.has_value();
  v.evented_pleg_gate = evented_gate_;
  v.cri_list_streaming_gate = list_streaming_gate_;
  v.cri_losing_support = losing_support_;
  // Always a model: the kubelet's own release, the flag's, or the newest
  // released kubelet's when neither is known.
  if (v.version) {
    v.model = pleg_model_for(*v.version, evented_gate_.value_or(false));
    if (override_) v.model.source = ModelSource::flag;
  } else {
    v.model = assumed_pleg_model(evented_gate_.value_or(false));
  }
  if (points_.empty()) return v;

  const Point& last = points_.back();
  v.relist_count = last.count;
  if (count_advanced_at_) v.seconds_since_relist_advanced = seconds_between(*count_advanced_at_, mono_now);
  const Point& anchor = points_.front();
  double span = seconds_between(anchor.at, last.at);
  if (points_.size() >= 2 && span > 0) {
    v.relists_per_minute = (last.count - anchor.count) / span * 60.0;
    if (last.durations && anchor.durations) {
      if (auto delta = histogram_delta(*last.durations, *anchor.durations)) {
        v.relist_p99_seconds = bucket_quantile(0.99, *delta);
      }
    }
  }
  return v;
}

}  // namespace plegscope
