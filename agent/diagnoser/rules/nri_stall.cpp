// nri_stall: an NRI plugin (containerd 2.x, NRI on by default) answered a
// call slower than the threshold, or not at all within NRI's
// plugin_request_timeout, after which NRI disconnects it. The runtime's CRI
// call that fired the event (RunPodSandbox, CreateContainer, StopContainer,
// StopPodSandbox, ...) waits on the plugin meanwhile: pods start and stop
// late.
//
// Measured on containerd 2.3.7 with a plugin that stops answering
// (tests/e2e/test_nri_stall.py, bench/results/nri-stall.md): the PLEG's
// lists, the status calls and CRI Status take no NRI lock and answer as fast
// as before, so this is never named as why PLEG is unhealthy; it ranks on
// its own evidence, a warning. The evidence is the runtime's own record of
// each plugin's calls, by the name the plugin registered with; a call still
// waiting on a plugin is in no figure until it ends, so a pod creation in
// flight, however slow, names nothing here.
#include "diagnoser/rule.h"
#include "diagnoser/rules/nri_stall.h"
#include "prom_text/count_above.h"

namespace plegscope {
namespace {

struct Judged {
  const RuntimeMetricsEvidence::NriCalls* calls = nullptr;
  double slow = 0;
};

bool worse(const Judged& a, const Judged& b) {
  if (!b.calls) return true;
  if (a.calls->timeouts != b.calls->timeouts) return a.calls->timeouts > b.calls->timeouts;
  if (a.slow != b.slow) return a.slow > b.slow;
  return a.calls->latency.sum > b.calls->latency.sum;
}

std::string labels(const RuntimeMetricsEvidence::NriCalls& n) {
  return "{plugin=" + n.plugin + ",operation=" + n.operation + "}";
}

}  // namespace

std::optional<Finding> judge_nri_stall(const Context& c) {
  const RuntimeMetricsEvidence& m = c.s.runtime_metrics;
  if (!m.reachable) return std::nullopt;
  Judged worst;
  for (const auto& n : m.nri_calls) {
    Judged j{&n, count_above(n.latency, c.t.nri_slow_seconds).value_or(0)};
    if (n.timeouts <= 0 && j.slow <= 0) continue;
    if (worse(j, worst)) worst = j;
  }
  if (!worst.calls) return std::nullopt;
  const auto& n = *worst.calls;
  // NRI disconnects a plugin it gave up on; one that comes back answers
  // the calls after it. Its cut-offs stay listed for the metrics window
  // (5 min), a warning only while they are recent, as any evidence is: its
  // last cut-off within the diagnoser's window (chaos campaign: held for a
  // minute, a stall kept the node at risk through the quiet after it, with
  // no call made to the plugin since), or until the plugin is seen
  // answering again: calls ended since the last cut-off, none of them slow.
  const bool answers_again = n.since_timeout && n.since_timeout->count > 0 &&
                             count_above(*n.since_timeout, c.t.nri_slow_seconds).value_or(1) <= 0;
  const bool cut_off_long_ago = n.seconds_since_timeout && *n.seconds_since_timeout > c.t.window_seconds;
  const bool over = n.timeouts > 0 && (cut_off_long_ago || answers_again) && worst.slow <= n.timeouts;
  Finding f = over ? make_finding(CauseId::kNriStall, Severity::kInfo, 0.45)
                   : make_finding(CauseId::kNriStall, Severity::kWarning, n.timeouts > 0 ? 0.7 : 0.5);
  NriStallDetails& d = f.details<NriStallDetails>();
  d.plugin = n.plugin;
  d.method = n.operation;
  d.timeouts = static_cast<int>(n.timeouts);
  d.calls = static_cast<int>(worst.slow);
  f.seconds = n.latency.sum;
  d.threshold_seconds = c.t.nri_slow_seconds;
  d.window_seconds = m.nri_window_seconds;
  d.endpoint = m.endpoint;
  if (n.timeouts > 0) f.evidence.push_back({"nri_plugin_timeouts" + labels(n), n.timeouts, 1});
  if (n.seconds_since_timeout)
    f.evidence.push_back({"nri_plugin_seconds_since_timeout" + labels(n), *n.seconds_since_timeout,
                          c.t.window_seconds});
  if (n.since_timeout)
    f.evidence.push_back({"nri_plugin_calls_since_timeout" + labels(n), n.since_timeout->count, std::nullopt});
  f.evidence.push_back({"nri_plugin_slow_calls" + labels(n), worst.slow, 1});
  f.evidence.push_back({"nri_plugin_seconds" + labels(n), n.latency.sum, std::nullopt});
  // The PLEG's own calls meanwhile: what says this plugin is not why PLEG is unhealthy.
  f.evidence.push_back({"agent_list_seconds_typical", c.lists.typical, c.t.slow_list_seconds});
  return f;
}

}  // namespace plegscope
