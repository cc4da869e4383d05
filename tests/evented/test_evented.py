"""Evented PLEG against the fake runtime: events straight from
GetContainerEvents, a breaking stream, one that never connects, fall-back.
That is the kubelet's evented PLEG before 1.37 (--kubelet-version v1.36.0
here: without a kubelet the agent copies the newest, 1.37, where the stream
is only a hint for pod relists)."""
import json
import os
import tempfile

import harness
from harness import Agent, FakeCri, wait_until


# --evented-pleg true beside a 1.36 kubelet: the events come from the stream.
EVENTED = ["--evented-pleg", "true", "--kubelet-version", "v1.36.0"]


def relists(agent):
    return agent.metrics().get("pleg_relist_duration_seconds_count", 0)


def events_of(agent, **match):
    return [e for e in agent.get_json("/debug/events")["events"]
            if all(e.get(k) == v for k, v in match.items())]


def test_events_arrive_without_waiting_for_a_relist():
    with FakeCri("evented") as fake, Agent(fake.endpoint, EVENTED) as agent:
        wait_until(lambda: agent.metrics().get("pleg_evented_mode") == 1, 10, "evented mode on")
        wait_until(lambda: relists(agent) >= 1, 10, "the first (generic) relist")
        before = relists(agent)
        pods = agent.get_json("/debug/pods")["pods"]
        victim = next(c for p in pods[10:] for c in p["containers"] if c["state"] == "CONTAINER_RUNNING")
        assert fake.kill(container_id=victim["id"], exit_code=3) == 1
        died = wait_until(lambda: events_of(agent, type="ContainerDied", container_id=victim["id"]), 5,
                          "ContainerDied for %s from the event stream" % victim["id"][:12])
        print("ContainerDied for %s delivered by the stream" % victim["id"][:12])
        assert relists(agent) == before, "no relist ran: the generic period is 300s in evented mode"
        assert len(died) == 1
        m = agent.metrics()
        assert m.get("pleg_evented_connection_success_total") >= 1
        assert m.get("pleg_evented_connection_errors_total") == 0
        # The cache is updated from the event's statuses.
        pod = next(p for p in agent.get_json("/debug/pods")["pods"]
                   if any(c["id"] == victim["id"] for c in p["containers"]))
        exited = next(c for c in pod["containers"] if c["id"] == victim["id"])
        assert exited["state"] == "CONTAINER_EXITED" and exited["exit_code"] == 3, exited


def test_events_for_pods_the_relist_never_saw():
    scenario = json.load(open(harness.scenario_path("evented")))
    scenario["name"] = "evented_new_pods"
    scenario["phases"] = [{"name": "rollout", "churn": {"pods_created_per_second": 2}}]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario, f)
    try:
        with FakeCri(f.name) as fake, Agent(fake.endpoint, EVENTED) as agent:
            wait_until(lambda: relists(agent) >= 1, 10, "the first relist")
            listed = {p["uid"] for p in agent.get_json("/debug/pods")["pods"]}
            def new_pod_started():
                return [e for e in events_of(agent, type="ContainerStarted") if e["pod_uid"] not in listed]
            fresh = wait_until(new_pod_started, 10, "ContainerStarted for a pod created after the relist")
            assert relists(agent) == 1
            uids = {p["uid"] for p in agent.get_json("/debug/pods")["pods"]}
            assert fresh[0]["pod_uid"] in uids, "the new pod is in the cache from its event"
    finally:
        os.unlink(f.name)


def test_a_breaking_stream_is_reconnected_then_falls_back_after_five():
    with FakeCri("evented_broken") as fake, Agent(fake.endpoint, EVENTED) as agent:
        wait_until(lambda: agent.metrics().get("pleg_evented_connection_success_total", 0) >= 2, 20,
                   "a second stream delivering events after the first broke")
        # The kubelet counts every failed attempt: after five, generic relisting takes over.
        wait_until(lambda: agent.metrics().get("pleg_evented_mode") == 0, 60, "fall-back to generic")
        m = agent.metrics()
        assert m.get("pleg_evented_connection_errors_total") == 5, m.get("pleg_evented_connection_errors_total")
        start = relists(agent)
        wait_until(lambda: relists(agent) >= start + 3, 10, "generic relists at the 1s period again")
        assert "falling back to generic relisting" in agent.proc.output()
        report = agent.get_json("/diagnose")
        relist = report["relist"]
        assert relist["mode"] == "generic", relist
        assert relist["evented_fallback_reason"] == "GetContainerEvents failed 5 times", relist


def test_a_stream_that_never_connects_falls_back():
    with FakeCri("evented_never") as fake, Agent(fake.endpoint, EVENTED) as agent:
        wait_until(lambda: agent.metrics().get("pleg_evented_mode") == 0, 30, "fall-back to generic")
        m = agent.metrics()
        assert m.get("pleg_evented_connection_errors_total") == 5
        assert m.get("pleg_evented_connection_success_total") == 0
        assert "GetContainerEvents failed 5 times" in agent.proc.output()
        start = relists(agent)
        wait_until(lambda: relists(agent) >= start + 3, 10, "generic relists at the 1s period")


def test_auto_without_a_kubelet_never_subscribes():
    # auto copies the kubelet; without one to read, the assumed release with
    # the EventedPLEG gate at its default (off): no stream, relists every 1 s.
    with FakeCri("evented") as fake, Agent(fake.endpoint, ["--evented-pleg", "auto"]) as agent:
        start = relists(agent)
        wait_until(lambda: relists(agent) >= start + 3, 10, "generic relists at the 1s period")
        m = agent.metrics()
        assert m.get("pleg_evented_mode") == 0 and m.get("pleg_relist_period_seconds") == 1
        assert fake.counts().get("GetContainerEvents", 0) == 0, fake.counts()


def test_evented_off_never_subscribes():
    with FakeCri("evented") as fake, Agent(fake.endpoint, ["--evented-pleg", "false"]) as agent:
        wait_until(lambda: relists(agent) >= 3, 10, "relists")
        assert agent.metrics().get("pleg_evented_mode") == 0
        assert fake.counts().get("GetContainerEvents", 0) == 0


def evented_scenario(name, events=None):
    """The `evented` scenario (3 pods crash-looping, an event a second) with
    the stream's created_at shifted as `events` says."""
    scenario = json.load(open(harness.scenario_path("evented")))
    scenario["name"] = name
    if events:
        scenario["phases"][0]["events"] = events
    return scenario


def test_evented_lag_is_small_and_reported_apart_from_the_relists():
    """The stream's events carry the fake runtime's created_at (its clock is
    this machine's): delivery within a fraction of a second, the cache update
    after it, and none of it in the relists' lag (no relist ran since the
    first)."""
    with FakeCri(evented_scenario("evented_lag")) as fake, Agent(fake.endpoint, EVENTED) as agent:
        wait_until(lambda: agent.metrics().get("pleg_evented_mode") == 1, 10, "evented mode on")
        wait_until(lambda: agent.get_json("/diagnose")["event_lag"]["evented"]["delivery"]["count"] >= 3, 15,
                   "three events delivered by the stream")
        report = agent.get_json("/diagnose")
        lag = report["event_lag"]
        delivery, cache = lag["evented"]["delivery"], lag["evented"]["cache_update"]
        print("evented lag: delivery %s, cache update %s; relists' lag %s events" % (delivery, cache, lag["events"]))
        assert relists(agent) == 1, "only the first relist: the generic period is 300s"
        assert lag["events"] == 0, "the initial relist measures nothing; stream events are apart"
        assert 0 <= delivery["p99_seconds"] < 1, delivery
        assert cache["count"] == delivery["count"] and cache["p50_seconds"] >= delivery["p50_seconds"] * 0.99, lag
        assert delivery["invalid"] == 0, delivery
        m = agent.metrics()
        assert m.sum("pleg_evented_delivery_lag_seconds_count") >= 3
        assert m.sum("pleg_event_lag_invalid_total") == 0
        text = agent.get("/diagnose?format=text")[1]
        assert "evented: delivery p50" in text, text
        assert "arrive" not in report["summary"], report["summary"]


def test_evented_timestamps_in_the_future_or_zero_are_counted_invalid():
    for name, events in (("evented_ahead", {"created_at_ahead": "30s"}), ("evented_zero", {"created_at_zero": True})):
        with FakeCri(evented_scenario(name, events)) as fake, Agent(fake.endpoint, EVENTED) as agent:
            wait_until(lambda: agent.metrics().get("pleg_evented_mode") == 1, 10, "evented mode on")
            # /diagnose is made at most once per relist or per second: wait on it.
            evented = wait_until(lambda: (lambda e: e if e["delivery"]["invalid"] >= 3 else None)(
                agent.get_json("/diagnose")["event_lag"]["evented"]), 15, "%s: three events counted invalid" % name)
            print("%s: %s" % (name, evented))
            assert evented["delivery"]["count"] == 0 and evented["cache_update"]["count"] == 0, evented
            m = agent.metrics()
            assert m.sum("pleg_event_lag_invalid_total") >= 3, name
            assert m.sum("pleg_evented_delivery_lag_seconds_count") == 0, name
            assert m.sum("pleg_event_lag_seconds_count") == 0, "%s: no bucket for a bad timestamp" % name


if __name__ == "__main__":
    harness.main(globals())
