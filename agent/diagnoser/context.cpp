#include "diagnoser/context.h"

#include <algorithm>
#include <numeric>

#include "common/quantile.h"
#include "cri/operation_names.h"

namespace plegscope {
namespace {

double median(const std::vector<double>& v) { return quantile(v, 0.5); }

double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// One operation's latency: its newest completed calls in the window, and its
// oldest call in flight when that is already past the threshold (a lower
// bound on that call's latency, and evidence before it ends) but not yet
// past the hang threshold (then it is a hang, judged by runtime_hung).
CallLatency op_latency(const Context& c, const std::string& name, const OperationStats& st, double threshold) {
  CallLatency l;
  l.op = name;
  std::vector<double> all, newest;
  for (const CallSample& sample : st.recent)
    if (sample.end >= c.window_start) all.push_back(sample.seconds);
  size_t n = static_cast<size_t>(std::max(1, c.t.newest_calls));
  newest.assign(all.size() > n ? all.end() - n : all.begin(), all.end());
  if (st.in_flight > 0 && st.oldest_in_flight_seconds >= threshold && st.oldest_in_flight_seconds <= c.t.hang_seconds) {
    all.push_back(st.oldest_in_flight_seconds);
    newest.push_back(st.oldest_in_flight_seconds);
    if (newest.size() > n) newest.erase(newest.begin());
    l.in_flight_slow = true;
  }
  l.samples = static_cast<int>(all.size());
  l.slow = static_cast<int>(std::count_if(all.begin(), all.end(), [&](double s) { return s >= threshold; }));
  l.typical = median(newest);
  l.p50 = median(all);
  l.p99 = quantile(all, 0.99);
  return l;
}

// The worst operation of a group: the one whose newest calls are slowest.
CallLatency group_latency(const Context& c, bool (*member)(const std::string&), double threshold) {
  CallLatency worst;
  for (const auto& [name, st] : c.s.operations) {
    if (!member(name)) continue;
    CallLatency l = op_latency(c, name, st, threshold);
    if (l.samples == 0) continue;
    if (worst.op.empty() || std::max(l.typical, l.p99) > std::max(worst.typical, worst.p99)) worst = l;
  }
  return worst;
}

}  // namespace

bool is_list_op(const std::string& op) {
  return op == op::kListPodSandbox || op == op::kListContainers || op == op::kStreamPodSandboxes ||
         op == op::kStreamContainers;
}

bool is_status_op(const std::string& op) { return op == op::kPodSandboxStatus || op == op::kContainerStatus; }

double Context::period_seconds() const { return to_seconds(s.relist_period); }

bool Context::late() const {
  return relist_seconds >= t.late_relist_periods * period_seconds() && relist_seconds >= 1.0;
}

namespace {

// The hung call: the oldest in flight past the hang threshold (runtime_hung),
// not a slow call. The runtime's Status is not the PLEG's call: its hang is
// runtime_status_hung.
void find_hung_call(const Snapshot& s, const DiagnoserThresholds& t, Context& c) {
  for (const auto& [name, st] : s.operations) {
    if (name == op::kGetContainerEvents || name == op::kStatus) continue;
    if (st.in_flight > 0 && st.oldest_in_flight_seconds > t.hang_seconds &&
        st.oldest_in_flight_seconds > c.hung_seconds) {
      c.hung_seconds = st.oldest_in_flight_seconds;
      c.hung_op = name;
    }
  }
}

// List time per relist: every successful relist lists the same way, the
// initial one included; the relist in progress counts once its lists are
// done, or earlier when they already took longer than the threshold.
void measure_relist_time(const DiagnoserThresholds& t, Context& c) {
  std::vector<double> lists, durations;
  double total = 0, status = 0, list = 0;
  for (const auto* r : c.window_ok) {
    lists.push_back(to_seconds(r->list_time));
    total += to_seconds(r->duration);
    status += to_seconds(r->status_time);
    list += to_seconds(r->list_time);
  }
  for (const auto* r : c.steady) durations.push_back(to_seconds(r->duration));
  if (const RelistRecord* p = c.in_progress; p && !p->error_code && !c.hung()) {
    double so_far = p->lists_done == 2 ? to_seconds(p->list_time) : to_seconds(p->duration);
    if (p->lists_done == 2 || so_far >= t.slow_list_seconds) lists.push_back(so_far);
    total += to_seconds(p->duration);
    status += to_seconds(p->status_time);
    list += so_far;
  }
  c.list_seconds = median(lists);
  c.relist_seconds = median(durations);
  c.completed_relist_seconds = c.relist_seconds;
  if (c.in_progress) c.relist_seconds = std::max(c.relist_seconds, to_seconds(c.in_progress->duration));
  if (total > 0) {
    c.status_share = std::min(1.0, status / total);
    c.list_share = std::min(1.0, list / total);
  }
}

}  // namespace

Context make_context(const Snapshot& s, const DiagnoserThresholds& t) {
  Context c(s, t);
  c.runtime = runtime_model(s.runtime_name, s.runtime_version, s.endpoint);
  // The last few relists, however long ago: with slow relists a time
  // window would hold none of them.
  const size_t keep = static_cast<size_t>(std::max(1, t.window_relists));
  const size_t from = s.timeline.size() > keep ? s.timeline.size() - keep : 0;
  for (size_t i = from; i < s.timeline.size(); ++i) c.window.push_back(&s.timeline[i]);
  for (const auto& r : s.timeline)
    if (!r.error_code) c.last_ok = &r;
  for (const auto* r : c.window)
    if (!r->error_code) {
      c.window_ok.push_back(r);
      if (!r->initial) c.steady.push_back(r);
    }
  // The trend (forecast) needs more points: the steady relists of the time
  // window, which a slow period (evented mode: 300 s) widens.
  const double window = std::max(t.window_seconds, 5 * to_seconds(s.relist_period));
  for (const auto& r : s.timeline)
    if (!r.error_code && !r.initial && to_seconds(s.now - r.start) <= window) c.trend.push_back(&r);
  // A relist that ended between the two reads of the snapshot is not in
  // progress any more.
  if (s.in_progress && (s.timeline.empty() || s.in_progress->start > s.timeline.back().start))
    c.in_progress = &*s.in_progress;
  c.window_start = s.now - std::chrono::duration_cast<Duration>(std::chrono::duration<double>(window));
  if (!c.window.empty()) c.window_start = std::min(c.window_start, c.window.front()->start);

  find_hung_call(s, t, c);
  measure_relist_time(t, c);

  // Pods changed per relist: the initial relist finds every pod new, which
  // is no storm; the relist in progress counts once it compared its lists.
  std::vector<double> changed;
  for (const auto* r : c.steady) changed.push_back(std::max(r->pods_changed, r->pods_with_events));
  if (c.in_progress && !c.in_progress->initial && c.in_progress->lists_done == 2)
    changed.push_back(c.in_progress->pods_changed);
  c.pods_changed = mean(changed);
  c.change_relists = static_cast<int>(changed.size());

  if (c.in_progress && c.in_progress->lists_done == 2)
    c.objects = c.in_progress->sandboxes + c.in_progress->containers;
  else if (c.last_ok)
    c.objects = c.last_ok->sandboxes + c.last_ok->containers;

  c.lists = group_latency(c, is_list_op, t.slow_list_seconds);
  c.statuses = group_latency(c, is_status_op, t.slow_status_seconds);

  return c;
}

int trailing_errors(const Context& c, GrpcCode code) {
  int n = 0;
  for (auto it = c.s.timeline.rbegin(); it != c.s.timeline.rend(); ++it) {
    if (!it->error_code || *it->error_code != code) break;
    ++n;
  }
  return n;
}

int window_errors(const Context& c, GrpcCode code) {
  // Errors count over the last relists and over the time window: a runtime
  // that restarted half a minute ago is still worth naming.
  int n = 0;
  for (const auto& r : c.s.timeline)
    n += r.error_code && *r.error_code == code && (r.start >= c.window_start || &r >= c.window.front());
  return n;
}

int window_relist_count(const Context& c) {
  int n = 0;
  for (const auto& r : c.s.timeline) n += r.start >= c.window_start || &r >= c.window.front();
  return n;
}

bool failures_interleaved(const Context& c, std::optional<GrpcCode> code) {
  bool failed = false;
  for (const auto& r : c.s.timeline) {
    if (!(r.start >= c.window_start || &r >= c.window.front())) continue;
    if (r.error_code && (!code || *r.error_code == *code))
      failed = true;
    else if (!r.error_code && failed)
      return true;
  }
  return false;
}

RuntimeWideHang runtime_wide_hang(const Context& c) {
  RuntimeWideHang h;
  for (const auto& [name, st] : c.s.operations) {
    // A long-lived stream is not a call; Status's hang is runtime_status_hung.
    if (name == op::kGetContainerEvents || name == op::kStatus) continue;
    for (const auto& call : st.in_flight_calls)
      if (call.target.empty() && call.seconds > c.t.hang_seconds && call.seconds > h.seconds) {
        h = {true, name, call.seconds, true, 0};
      }
  }
  h.deadline_errors = recent_call_errors(c, GrpcCode::kDeadlineExceeded, true);
  if (!h.hung && h.deadline_errors > 0 && trailing_errors(c, GrpcCode::kDeadlineExceeded) > 0) {
    h.hung = true;
    h.op = c.lists.op.empty() ? std::string(op::kListContainers) : c.lists.op;
  }
  return h;
}

ReportedCondition reported_condition(const std::optional<RuntimeConditionValue>& condition) {
  if (!condition) return {"", "", true};
  return {condition->reason, condition->message, false};
}

bool runtime_metrics_failed(const Context& c) {
  return !c.s.runtime_metrics.endpoint.empty() && !c.s.runtime_metrics.reachable;
}

int recent_call_errors(const Context& c, GrpcCode code, bool lists) {
  int n = 0;
  for (const auto& [name, st] : c.s.operations) {
    if (lists ? !is_list_op(name) : !is_status_op(name)) continue;
    for (const CallSample& sample : st.recent) n += sample.end >= c.window_start && sample.code == code;
  }
  return n;
}

}  // namespace plegscope
