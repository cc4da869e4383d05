// runtime_slow: list calls are slow for the number of objects they return.
// Named from the list calls themselves (completed or still in flight), so it
// does not wait for a slow relist to finish.
#include <algorithm>
#include <cmath>

#include "diagnoser/cgroup_stalls.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/runtime_slow.h"

namespace plegscope {

std::optional<Finding> judge_runtime_slow(const Context& c) {
  const double threshold = c.t.slow_list_seconds;
  // Two measures of the same thing: the time a relist spends in its two
  // unfiltered lists, and the latency of each list call.
  const double per_relist = c.list_seconds;
  const double per_call = c.lists.typical;
  const double slow = std::max(per_relist, per_call);
  // One slow observation is a blip unless it is far past the threshold.
  const bool enough = c.lists.slow >= 2 || (c.lists.slow >= 1 && slow >= 4 * threshold) ||
                      (per_relist >= threshold && c.window_ok.size() >= 2);
  if (slow < threshold || !enough) return std::nullopt;
  // Relists that keep ending at their deadline are a hung runtime
  // (runtime_hung), whose retries are slow only because they hang again.
  if (trailing_errors(c, GrpcCode::kDeadlineExceeded) > 0 && !failures_interleaved(c, GrpcCode::kDeadlineExceeded))
    return std::nullopt;
  // Lists cost time per object: past about a millisecond each, the runtime
  // is slow; below it, the count explains the time (too_many_containers).
  const double per_object = c.objects > 0 ? slow / c.objects : 0;
  if (c.objects > 0 && per_object < c.t.slow_list_seconds_per_item) return std::nullopt;

  double confidence = 0.6 + 0.1 * std::min(3.0, std::log2(slow / threshold)) + (c.list_share >= 0.5 ? 0.05 : 0) -
                      (c.lists.samples + static_cast<int>(c.window_ok.size()) < 3 ? 0.05 : 0);
  const bool per_call_worse = per_call >= per_relist;
  Finding f = make_finding(CauseId::kRuntimeSlow, Severity::kWarning, confidence,
                           per_call_worse ? Form::kListCallSlow : Form::kListsSlowPerRelist);
  RuntimeSlowDetails& d = f.details<RuntimeSlowDetails>();
  f.op = c.lists.op;
  f.seconds = per_call_worse ? per_call : per_relist;
  d.threshold_seconds = threshold;
  d.objects = c.objects;
  d.call_in_flight = c.lists.in_flight_slow;
  f.evidence.push_back({"relist_list_seconds_p50", per_relist, threshold});
  f.evidence.push_back({"list_call_seconds_recent{" + c.lists.op + "}", per_call, threshold});
  f.evidence.push_back({"slow_list_calls_recent", static_cast<double>(c.lists.slow), 2});
  if (c.objects > 0)
    f.evidence.push_back({"list_seconds_per_object", per_object, c.t.slow_list_seconds_per_item});
  f.evidence.push_back({"list_share_of_relist", c.list_share, 0.5});
  add_cgroup_stalls(c, f, {"cpu", "io", "memory"});
  return f;
}

}  // namespace plegscope
