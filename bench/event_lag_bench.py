"""Event lag for scripts/bench: pleg_event_lag_seconds at 110 pods x 2
containers with a 1 s relist, a few pods changing per relist, beside its
floor measured in the same window: the relist interval plus the relist's
duration (a change is seen by the first relist that starts after it, and is
known when that relist ends). Then the same with ListContainers ~1.2 s slow:
the lag grows with the list. Figures only; nothing asserts.
"""

import time

import benchlib
from harness import Agent, FakeCri

# A few pods change per relist (3 restarts a second, round-robin), each pod
# once every 10 s: longer than any interval here, so every change is seen by
# a relist of its own. (With a pod restarting faster than the relist, the
# relist sees only its newest attempt, whose lag is bounded by the restart
# period, not the relist's.)
CHURN_RATE = 3
CHURN_PODS = 30
SLOW_LIST = "1200ms"


def lag_scenario():
    churn = {"crashloop_pods": CHURN_PODS, "crashloop_restarts_per_second": CHURN_RATE, "keep_exited_attempts": 1}
    return {
        "name": "bench-event-lag",
        "description": "scripts/bench: 110 pods x 2, %d restarts a second over %d pods" % (CHURN_RATE, CHURN_PODS),
        "node": {"pods": 110, "containers_per_pod": 2, "namespaces": ["default", "kube-system"]},
        "runtime": {"name": "containerd", "version": "1.7.2"},
        "phases": [
            {"name": "steady", "duration": "24h"},
            {"name": "churn", "duration": "24h", "churn": churn},
            # Only the relist's unfiltered ListContainers is slow; a pod's own
            # inspection (filtered lists, status calls) is not.
            {"name": "slow_lists", "duration": "24h", "churn": churn,
             "latency": {"ListContainers": {"fixed": SLOW_LIST, "unfiltered_only": True}}},
        ],
    }


def _histogram(metrics, name):
    """{le: cumulative count} summed over every label but le, plus _sum and _count."""
    buckets = {}
    for s in metrics.find(name + "_bucket"):
        le = float(s.labels["le"])
        buckets[le] = buckets.get(le, 0) + s.value
    return buckets, metrics.sum(name + "_sum"), metrics.sum(name + "_count")


def histogram_quantile(q, before, after):
    """Prometheus's histogram_quantile over the increase between two scrapes."""
    bounds = sorted(after)
    cumulative = [after[b] - before.get(b, 0) for b in bounds]
    total = cumulative[-1] if cumulative else 0
    if total <= 0:
        return None
    rank = q * total
    lower, below = 0.0, 0.0
    for bound, count in zip(bounds, cumulative):
        if count >= rank:
            if bound == float("inf"):
                return lower
            return lower + (bound - lower) * (rank - below) / max(count - below, 1e-12)
        lower, below = bound, count
    return lower


def lag_window(probe, seconds):
    """p50/p99 event lag, the floor (interval + duration) and CPU per relist over `seconds`."""
    m0 = probe.agent.metrics()
    a = probe.sample()
    time.sleep(seconds)
    b = probe.sample()
    m1 = probe.agent.metrics()
    lag0, lag1 = _histogram(m0, "pleg_event_lag_seconds"), _histogram(m1, "pleg_event_lag_seconds")
    dur0, dur1 = _histogram(m0, "pleg_relist_duration_seconds"), _histogram(m1, "pleg_relist_duration_seconds")
    int0, int1 = _histogram(m0, "pleg_relist_interval_seconds"), _histogram(m1, "pleg_relist_interval_seconds")
    relists = dur1[2] - dur0[2]
    intervals = int1[2] - int0[2]
    if relists <= 0:
        raise RuntimeError("no relist in %ss" % seconds)
    duration_mean = (dur1[1] - dur0[1]) / relists
    interval_mean = (int1[1] - int0[1]) / intervals if intervals > 0 else None
    duration_p99 = histogram_quantile(0.99, dur0[0], dur1[0])
    interval_p99 = histogram_quantile(0.99, int0[0], int1[0])
    events = lag1[2] - lag0[2]
    return {
        "relists": relists, "events": events,
        "lag_p50_s": histogram_quantile(0.5, lag0[0], lag1[0]),
        "lag_p99_s": histogram_quantile(0.99, lag0[0], lag1[0]),
        "lag_mean_s": (lag1[1] - lag0[1]) / events if events else None,
        "invalid": m1.sum("pleg_event_lag_invalid_total") - m0.sum("pleg_event_lag_invalid_total"),
        "relist_mean_s": duration_mean, "relist_p99_s": duration_p99, "interval_mean_s": interval_mean,
        # The floor: a change waits at most one interval for a relist to start,
        # then that relist's duration; on average half the interval.
        "interval_p99_s": interval_p99,
        "floor_max_s": (interval_p99 or interval_mean or 1.0) + (duration_p99 or duration_mean),
        "floor_mean_s": (interval_mean or 1.0) / 2 + duration_mean,
        "cpu_ms_per_relist": 1000 * (b["cpu"] - a["cpu"]) / relists,
        "diagnose_event_lag": {k: v for k, v in probe.agent.get_json("/diagnose")["event_lag"].items()
                               if k != "worst_pods"},
    }


def measure(window, agent_flags):
    out = {"shape": "110x2", "churn_pods": CHURN_PODS, "restarts_per_second": CHURN_RATE, "slow_list": SLOW_LIST}
    with FakeCri(lag_scenario(), log_level="warn", hold="steady") as fake:
        with Agent(fake.endpoint, agent_flags, log_level="warn") as agent:
            probe = benchlib.AgentProbe(agent, fake)
            probe.wait_relists(3)  # the initial relist inspects every pod and measures nothing
            out["steady"] = lag_window(probe, window)
            fake.phase("churn", hold=True)
            probe.wait_relists(2)
            out["steady_churn"] = lag_window(probe, window)
            fake.phase("slow_lists", hold=True)
            probe.wait_relists(2, timeout=60)
            out["slow_lists"] = lag_window(probe, 2 * window)  # relists are seconds apart here
        # The agent stretches its own period while lists are slow (do no harm);
        # the kubelet does not: the lag at the kubelet's pace.
        with Agent(fake.endpoint, agent_flags + ["--relist-backoff-max", "0s"], log_level="warn") as agent:
            probe = benchlib.AgentProbe(agent, fake)
            probe.wait_relists(3, timeout=60)
            out["slow_lists_no_stretch"] = lag_window(probe, 2 * window)
    return out


def _s(v):
    return "-" if v is None else "%.2f s" % v


def print_table(r, baseline_cpu_ms):
    print("\n## Event lag, 110x2, %d restarts a second round-robin over %d pods, 1 s relist "
          "(pleg_event_lag_seconds over the window; floor: interval + relist duration, same window)\n" % (
              r["restarts_per_second"], r["churn_pods"]))
    print("| lists | events | lag p50 | lag p99 | lag mean | floor mean (interval/2 + relist) "
          "| floor max (interval p99 + relist p99) | relist mean | interval mean | invalid | agent CPU / relist |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for label, key in (("normal", "steady_churn"), ("ListContainers +%s" % r["slow_list"], "slow_lists"),
                       ("ListContainers +%s, --relist-backoff-max 0s (the kubelet's pace)" % r["slow_list"],
                        "slow_lists_no_stretch")):
        w = r.get(key)
        if not w:
            continue
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %d | %.2f ms |" % (
            label, w["events"], _s(w["lag_p50_s"]), _s(w["lag_p99_s"]), _s(w["lag_mean_s"]), _s(w["floor_mean_s"]),
            _s(w["floor_max_s"]), _s(w["relist_mean_s"]), _s(w["interval_mean_s"]), w["invalid"],
            w["cpu_ms_per_relist"]))
    print("\nAgent CPU per relist, 110x2 steady (no churn), lag always on: %.2f ms; bench/results/latest.json as "
          "committed: %s" % (r["steady"]["cpu_ms_per_relist"],
                                   "-" if baseline_cpu_ms is None else "%.2f ms" % baseline_cpu_ms))
