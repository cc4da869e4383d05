#include "diagnoser/forecast.h"

#include <algorithm>
#include <cmath>

namespace plegscope {
namespace {

// Completed relists, newest backwards, that failed (with any code).
int trailing_failures(const Context& c) {
  int n = 0;
  for (auto it = c.s.timeline.rbegin(); it != c.s.timeline.rend() && it->error_code; ++it) ++n;
  return n;
}

// No good relist is coming soon: a call hangs, the runtime has been failing
// since its last good relist (a runtime that fails on and off, good relists
// between bad ones, must fail a whole window in a row to count), or the
// relist in progress, still listing, has run far longer than relists
// usually take here (or than a few periods when none has completed yet).
bool relist_stuck(const Context& c) {
  if (c.hung()) return true;
  if (int failed = trailing_failures(c); failed > 0 &&
      (!failures_interleaved(c) || failed >= c.t.window_relists))
    return true;
  const RelistRecord* p = c.in_progress;
  if (!p || p->pods_inspected > 0) return false;
  double usual = 0;
  for (const auto* r : c.steady) usual = std::max(usual, to_seconds(r->duration));
  return to_seconds(p->duration) > std::max({c.t.hang_seconds, 2 * c.period_seconds(), 3 * usual});
}

// Relist duration climbing steadily toward the threshold: a least-squares
// fit over the window, accepted only for a steady climb (each third of the
// window clearly above the one before, and still climbing in the newest),
// because a one-off step up looks linear to a fit too.
std::optional<double> trend(const Context& c, double threshold) {
  const auto& w = c.trend;
  if (w.size() < 6) return std::nullopt;
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  for (const auto* r : w) {
    double x = to_seconds(r->start - c.s.now), y = to_seconds(r->duration);
    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y;
  }
  double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
  if (vx <= 0 || vy <= 0) return std::nullopt;
  double slope = cxy / vx;
  double r2 = cxy * cxy / (vx * vy);
  if (slope <= 0 || r2 < 0.5) return std::nullopt;
  size_t k = w.size() / 3;
  auto mean_of = [&](size_t from, size_t to) {
    double sum = 0;
    for (size_t i = from; i < to; ++i) sum += to_seconds(w[i]->duration);
    return sum / static_cast<double>(to - from);
  };
  double m1 = mean_of(0, k), m2 = mean_of(k, 2 * k), m3 = mean_of(2 * k, w.size());
  if (!(m2 > 1.1 * m1 && m3 > 1.1 * m2)) return std::nullopt;
  size_t mid = 2 * k + (w.size() - 2 * k) / 2;
  if (!(mean_of(mid, w.size()) > 1.05 * mean_of(2 * k, mid))) return std::nullopt;
  double now_fit = sy / n - slope * sx / n;  // the fitted duration now
  double t = (threshold - now_fit) / slope;
  if (t <= 0) return 0.0;
  if (t > 3600) return std::nullopt;  // too far out to be a forecast
  return std::round(t);
}

}  // namespace

std::optional<double> forecast_seconds_to_unhealthy(const Context& c) {
  const Snapshot& s = c.s;
  const double threshold = to_seconds(s.relist_threshold);
  if (!s.healthy) return 0.0;
  // The age of the last good relist grows one second a second.
  if (relist_stuck(c) && s.last_seen) return std::max(0.0, threshold - to_seconds(s.now - *s.last_seen));
  // The relist in progress, inspecting pods: projected from the share of
  // changed pods done so far, would it end past the threshold?
  if (const RelistRecord* p = c.in_progress; p && s.last_seen && p->pods_inspected > 0 && p->pods_changed > 0) {
    double elapsed = to_seconds(p->duration);
    double projected = elapsed * p->pods_changed / std::min(p->pods_inspected, p->pods_changed);
    double since = to_seconds(s.now - *s.last_seen);
    if (projected + (since - elapsed) >= threshold) return std::max(0.0, threshold - since);
  }
  return trend(c, threshold);
}

}  // namespace plegscope
