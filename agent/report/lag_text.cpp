#include "report/lag_text.h"

#include <algorithm>

#include "report/format.h"

namespace plegscope {
namespace {

// Who sees the lag, by the kind of change: the worst pod's.
std::string changes_seen(const std::string& event_type) {
  if (event_type == "ContainerDied") return "containers that die are seen";
  if (event_type == "ContainerStarted") return "containers that start are seen";
  if (event_type == "ContainerRemoved") return "removed containers are seen";
  return "container changes are seen";
}

}  // namespace

bool lag_is_material(const Report& r) {
  const auto& lag = r.event_lag;
  return lag.events >= kMaterialLagEvents && lag.p99_seconds >= kMaterialLagSeconds &&
         lag.p99_seconds >= kMaterialLagPeriods * r.relist.period_seconds;
}

bool evented_lag_is_material(const Report& r) {
  const auto& d = r.event_lag.evented.delivery;
  return d.count >= kMaterialLagEvents && d.p99_seconds >= kMaterialEventedLagSeconds;
}

std::optional<std::string> lag_harm(const Report& r) {
  if (!lag_is_material(r)) {
    if (!evented_lag_is_material(r)) return std::nullopt;
    const auto& d = r.event_lag.evented.delivery;
    return "runtime events arrive " + text::elapsed(d.p99_seconds) + " late (p99 over " +
           text::count(static_cast<long>(d.count), "event", "events") + ", p50 " +
           text::elapsed(d.p50_seconds) + ")";
  }
  const auto& lag = r.event_lag;
  const std::string type = lag.worst_pods.empty() ? "" : lag.worst_pods.front().event_type;
  if (const auto& stretched = r.relist.stretched_period_seconds) {
    // The agent's measured lag holds its own back-off; the kubelet does not
    // stretch, so it sees a change within its period plus a relist.
    const double period = r.relist.period_seconds;
    const double kubelet = period + r.relist.duration_p99_seconds;
    if (kubelet < std::max(kMaterialLagSeconds, kMaterialLagPeriods * period)) return std::nullopt;
    return changes_seen(type) + " up to " + text::elapsed(kubelet) + " late by the kubelet (its " +
           text::elapsed(period) + " period plus relists of p99 " + text::elapsed(r.relist.duration_p99_seconds) +
           "); plegscope, relisting every " + text::elapsed(*stretched) + " to spare the runtime, saw them " +
           text::elapsed(lag.p99_seconds) + " late";
  }
  return changes_seen(type) + " " + text::elapsed(lag.p99_seconds) + " late (p99 over " +
         text::count(static_cast<long>(lag.events), "event", "events") + ", p50 " +
         text::elapsed(lag.p50_seconds) + ")";
}

std::string lag_figures(const Report& r) {
  const auto& lag = r.event_lag;
  std::string invalid = lag.invalid > 0 ? "; " + text::count(static_cast<long>(lag.invalid),
                                                              "timestamp", "timestamps") +
                                              " unusable (missing, in the future or before creation)"
                                        : "";
  if (lag.events == 0) return "no event measured in the window" + invalid;
  // While the agent stretches its period, these are its own relists' lag,
  // its back-off included: said so, lest they read as the kubelet's.
  const std::string whose =
      r.relist.stretched_period_seconds
          ? " (runtime timestamp to plegscope's relist that saw it, relisting every " +
                text::elapsed(*r.relist.stretched_period_seconds) + " to spare the runtime; the kubelet relists every " +
                text::elapsed(r.relist.period_seconds) + ")"
          : " (runtime timestamp to the relist that saw it)";
  return "p50 " + text::elapsed(lag.p50_seconds) + ", p99 " + text::elapsed(lag.p99_seconds) + " over " +
         text::count(static_cast<long>(lag.events), "event", "events") + whose + invalid;
}

namespace {

std::string figures_text(const Report::EventLag::Figures& f) {
  std::string out = f.count == 0 ? "no event" : "p50 " + text::elapsed(f.p50_seconds) + ", p99 " +
                                                    text::elapsed(f.p99_seconds) + " over " +
                                                    text::count(static_cast<long>(f.count), "event", "events");
  if (f.invalid > 0) out += " (" + text::count(static_cast<long>(f.invalid), "timestamp", "timestamps") + " unusable)";
  return out;
}

}  // namespace

std::optional<std::string> evented_lag_text(const Report& r) {
  const auto& e = r.event_lag.evented;
  if (r.relist.mode != "evented" && e.delivery.count + e.delivery.invalid == 0) return std::nullopt;
  return "evented: delivery " + figures_text(e.delivery) + "; cache update " + figures_text(e.cache_update) +
         " (the event's created_at to the agent)";
}

std::string lag_pod(const LagPod& p) {
  std::string who = p.namespace_.empty() && p.name.empty() ? p.uid : p.namespace_ + "/" + p.name;
  if (!p.container.empty()) who += " (" + p.container + ")";
  return who + " " + p.event_type + " " + text::elapsed(p.lag_seconds);
}

}  // namespace plegscope
