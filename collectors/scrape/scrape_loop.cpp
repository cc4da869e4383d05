#include "scrape/scrape_loop.h"

#include <spdlog/spdlog.h>

namespace plegscope {

void record_scrape(const char* what, const std::string& endpoint, const ScrapeOutcome& outcome, bool& logged_once,
                   ScrapeRecord& record) {
  const bool changed = outcome.error != record.outcome.error || !logged_once;
  logged_once = true;
  record.reachable = outcome.ok();
  record.outcome = outcome;
  if (changed)
    spdlog::log(record.reachable ? spdlog::level::info : spdlog::level::warn, "{} at {}: {} {}", what, endpoint,
                record.reachable ? "reachable" : scrape_error_name(outcome.error), outcome.detail);
}

void HistogramWindow::add(MonoTime now, std::map<std::string, Histogram> sample) {
  samples_.emplace_back(now, std::move(sample));
  // The oldest kept sample is the last one at least a window old: the
  // difference then spans the whole window.
  while (samples_.size() > 2 && samples_[1].first <= now - window_) samples_.pop_front();
}

std::map<std::string, double> HistogramWindow::recent_p99() const {
  if (samples_.empty()) return {};
  return plegscope::recent_p99(samples_.front().second, samples_.back().second);
}

std::map<std::string, Histogram> HistogramWindow::added() const {
  std::map<std::string, Histogram> out;
  if (samples_.size() < 2) return out;
  const auto& oldest = samples_.front().second;
  for (const auto& [name, now] : samples_.back().second) {
    auto before = oldest.find(name);
    std::optional<Histogram> d = now;
    if (before != oldest.end()) d = histogram_delta(now, before->second);
    if (!d) d = now;  // the component restarted: all it has is new
    if (d->count > 0) out[name] = std::move(*d);
  }
  return out;
}

void CounterWindow::add(MonoTime now, std::map<std::string, double> sample) {
  samples_.emplace_back(now, std::move(sample));
  while (samples_.size() > 2 && samples_[1].first <= now - window_) samples_.pop_front();
}

std::map<std::string, double> CounterWindow::added() const {
  std::map<std::string, double> out;
  if (samples_.size() < 2) return out;
  const auto& oldest = samples_.front().second;
  for (const auto& [name, now] : samples_.back().second) {
    auto before = oldest.find(name);
    double grew = before == oldest.end() ? now : now - before->second;
    if (grew < 0) grew = now;  // restarted: all it has is new
    if (grew > 0) out[name] = grew;
  }
  return out;
}

std::vector<HistogramStep> HistogramWindow::steps() const {
  std::vector<HistogramStep> out;
  for (size_t i = 1; i < samples_.size(); ++i) {
    HistogramStep step{samples_[i - 1].first, samples_[i].first, {}};
    for (const auto& [name, now] : samples_[i].second) {
      auto before = samples_[i - 1].second.find(name);
      std::optional<Histogram> added = now;
      if (before != samples_[i - 1].second.end()) added = histogram_delta(now, before->second);
      if (!added) added = now;  // the component restarted: all it has is new
      if (added->count > 0) step.added[name] = std::move(*added);
    }
    out.push_back(std::move(step));
  }
  return out;
}

std::map<std::string, double> recent_p99(const std::map<std::string, Histogram>& oldest,
                                         const std::map<std::string, Histogram>& newest) {
  std::map<std::string, double> out;
  for (const auto& [name, now] : newest) {
    auto before = oldest.find(name);
    std::optional<Histogram> recent = now;
    if (before != oldest.end() && &before->second != &now) recent = histogram_delta(now, before->second);
    if (!recent) recent = now;  // the component restarted: all it has is recent
    if (auto p99 = bucket_quantile(0.99, *recent)) out[name] = *p99;
  }
  return out;
}

}  // namespace plegscope
