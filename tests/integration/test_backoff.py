"""Do no harm: against a slow runtime the agent stretches its relist
period (--relist-backoff-max) and its calls per minute, counted in the fake
runtime's own call log, fall by at least half; a healthy node is unaffected;
list calls never overlap."""

import time

import harness
from harness import Agent, FakeCri, wait_until

# Unfiltered lists take 300 ms each, so a relist (two of them) takes longer
# than the 200 ms period the agent runs with here.
SLOW = {
    "name": "backoff_slow",
    "node": {"pods": 10, "containers_per_pod": 2},
    "runtime": {"name": "containerd", "version": "1.7.2"},
    "phases": [{"name": "slow", "latency": {"lists": {"fixed": "300ms", "unfiltered_only": True}}}],
}
HEALTHY = {
    "name": "backoff_healthy",
    "node": {"pods": 10, "containers_per_pod": 2},
    "runtime": {"name": "containerd", "version": "1.7.2"},
    "phases": [{"name": "healthy"}],
}
PERIOD = ["--relist-period", "200ms", "--evented-pleg", "false"]
WINDOW_SECONDS = 8


def period_gauge(agent):
    return agent.metrics().get("pleg_relist_period_seconds")


def calls_per_minute(fake, seconds):
    """Calls the runtime received per minute over the next `seconds`, and those calls."""
    start_seq = fake.call_log(since=1 << 62)["next_seq"]
    start = time.monotonic()
    time.sleep(seconds)
    calls = fake.calls(since=start_seq)
    return 60 * len(calls) / (time.monotonic() - start), calls


def assert_lists_never_overlap(calls):
    """Calls of one agent: each list call ends before the next begins (one still in flight ends never)."""
    lists = sorted((c["time"], c["time"] + c["duration_seconds"] if not c.get("in_flight") else float("inf"))
                   for c in calls if c["method"] in ("ListPodSandbox", "ListContainers"))
    for (s1, e1), (s2, _) in zip(lists, lists[1:]):
        assert s2 >= e1 - 1e-3, "two list calls in flight at once: %r then %r" % ((s1, e1), s2)


def run(scenario, backoff_max, wait_stretched=False):
    with FakeCri(scenario, log_level="warn") as fake, \
            Agent(fake.endpoint, PERIOD + ["--relist-backoff-max", backoff_max], log_level="info") as agent:
        wait_until(lambda: agent.metrics().get("pleg_relist_duration_seconds_count", 0) >= 3, 30, "3 relists")
        if wait_stretched:
            wait_until(lambda: period_gauge(agent) >= 1.0, 30, "the relist period to stretch")
        rate, calls = calls_per_minute(fake, WINDOW_SECONDS)
        return rate, calls, period_gauge(agent)


def test_slow_runtime_gets_at_least_half_fewer_calls():
    off_rate, off_calls, off_period = run(SLOW, "0s")
    assert off_period == 0.2, "with --relist-backoff-max 0s the period is the flag's: %r" % off_period
    on_rate, on_calls, on_period = run(SLOW, "3s", wait_stretched=True)
    print("slow runtime: %.0f calls/min without backoff, %.0f with (period %.1fs)" % (off_rate, on_rate, on_period))
    assert 1.0 <= on_period <= 3.0, on_period
    assert on_rate <= off_rate / 2, "calls/min %.0f with backoff, %.0f without: not halved" % (on_rate, off_rate)
    assert_lists_never_overlap(off_calls)
    assert_lists_never_overlap(on_calls)


def test_healthy_node_is_unaffected():
    off_rate, _, _ = run(HEALTHY, "0s")
    on_rate, on_calls, on_period = run(HEALTHY, "10s")
    print("healthy runtime: %.0f calls/min without backoff, %.0f with" % (off_rate, on_rate))
    assert on_period == 0.2, "a healthy node's period was stretched to %r" % on_period
    assert on_rate >= 0.8 * off_rate, "calls/min %.0f with backoff, %.0f without" % (on_rate, off_rate)
    assert_lists_never_overlap(on_calls)


def test_stretch_ends_when_the_runtime_recovers():
    scenario = dict(SLOW, phases=[dict(SLOW["phases"][0], duration="1h"), {"name": "fast"}])
    with FakeCri(scenario, log_level="warn") as fake, \
            Agent(fake.endpoint, PERIOD + ["--relist-backoff-max", "2s"], log_level="info") as agent:
        wait_until(lambda: period_gauge(agent) >= 1.0, 30, "the relist period to stretch")
        # /diagnose says so, with the period and why.
        relist = wait_until(lambda: (lambda r: r if r["stretched_period_seconds"] else None)(
            agent.get_json("/diagnose")["relist"]), 10, "the stretch in /diagnose")
        assert relist["stretched_period_seconds"] >= 1.0 and relist["stretch_reason"], relist
        status, text = agent.get("/diagnose?format=text")
        assert "do no harm: plegscope relists every" in text, text
        fake.phase("fast", hold=True)
        wait_until(lambda: period_gauge(agent) == 0.2, 30, "the period back at the flag's 200ms")
        wait_until(lambda: agent.get_json("/diagnose")["relist"]["stretched_period_seconds"] is None, 10,
                   "the stretch gone from /diagnose")


if __name__ == "__main__":
    harness.main(globals())
