"""Event lag in /diagnose: the same crash-looping node seen
with fast lists and with slow lists on the fake runtime. The lag (the
runtime's finished_at/started_at to the relist that saw the change) grows
with the lists, the slow case names it in the summary ("containers that die
are seen ... late"), and the steady case does not; all three formats show it."""

import harness
from harness import Agent, FakeCri, wait_until

CHURN = {"crashloop_pods": 5, "crashloop_restarts_per_second": 4}


def scenario(name, list_latency):
    return {
        "name": name,
        "node": {"pods": 20, "containers_per_pod": 2},
        "runtime": {"name": "containerd", "version": "1.7.13"},
        "defaults": {"latency": {"*": {"fixed": "200us", "jitter": "300us"}}},
        "phases": [{"name": "churn", "churn": CHURN,
                    "latency": {"lists": {"fixed": list_latency, "jitter": "50ms", "unfiltered_only": True}}}],
    }


# The do-no-harm stretch is off, so the lag measured is the slow lists' alone.
FLAGS = ["--relist-period", "200ms", "--relist-backoff-max", "0s"]


def measured(agent, events):
    def enough():
        rep = agent.get_json("/diagnose")
        return rep if rep["event_lag"]["events"] >= events else None
    return wait_until(enough, 60, "%d events with a measured lag" % events, interval=0.5)


def test_lag_grows_with_slow_lists_and_is_named_only_then():
    with FakeCri(scenario("lag_steady", "1ms")) as fake, Agent(fake.endpoint, FLAGS) as agent:
        steady = measured(agent, 20)
    with FakeCri(scenario("lag_slow_lists", "1200ms")) as fake, Agent(fake.endpoint, FLAGS) as agent:
        slow = measured(agent, 20)
        text = agent.get("/diagnose?format=text")[1]
        html = agent.get("/diagnose?format=html")[1]
    s, l = steady["event_lag"], slow["event_lag"]
    print("steady: p50 %.3fs p99 %.3fs over %d events; relist p99 %.3fs" % (
        s["p50_seconds"], s["p99_seconds"], s["events"], steady["relist"]["duration_p99_seconds"]))
    print("slow lists: p50 %.3fs p99 %.3fs over %d events; relist p99 %.3fs" % (
        l["p50_seconds"], l["p99_seconds"], l["events"], slow["relist"]["duration_p99_seconds"]))
    print("slow summary: " + slow["summary"])
    assert set(l) >= {"p50_seconds", "p99_seconds", "worst_pods"}, l
    # Two lists of 1.2 s each: a change waits for them. The steady node sees
    # it within a few 200 ms periods.
    assert l["p99_seconds"] > 3 * s["p99_seconds"], (s, l)
    assert l["p50_seconds"] > s["p50_seconds"], (s, l)
    assert l["p99_seconds"] >= 1.2, l  # at least one slow list between the change and its relist
    assert l["worst_pods"] and l["worst_pods"][0]["event_type"] in ("ContainerDied", "ContainerStarted"), l
    assert l["worst_pods"][0]["lag_seconds"] >= l["p50_seconds"], l
    # Named in the summary only when it is the harm.
    assert " are seen " in slow["summary"] and " late (p99 over " in slow["summary"], slow["summary"]
    assert " are seen " not in steady["summary"], steady["summary"]
    assert "Event lag: p50 " in text, text
    assert 'id="event-lag" data-material="true"' in html


if __name__ == "__main__":
    harness.main(globals())
