"""Evented PLEG against the fake runtime: events straight from
GetContainerEvents, a breaking stream, one that never connects, fall-back."""
import json
import os
import tempfile

import harness
from harness import Agent, FakeCri, wait_until


def relists(agent):
    return agent.metrics().get("pleg_relist_duration_seconds_count", 0)


def events_of(agent, **match):
    return [e for e in agent.get_json("/debug/events")["events"]
            if all(e.get(k) == v for k, v in match.items())]


def test_events_arrive_without_waiting_for_a_relist():
    with FakeCri("evented") as fake, Agent(fake.endpoint, ["--evented-pleg", "true"]) as agent:
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
        with FakeCri(f.name) as fake, Agent(fake.endpoint, ["--evented-pleg", "true"]) as agent:
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
    with FakeCri("evented_broken") as fake, Agent(fake.endpoint, ["--evented-pleg", "true"]) as agent:
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
    with FakeCri("evented_never") as fake, Agent(fake.endpoint, ["--evented-pleg", "true"]) as agent:
        wait_until(lambda: agent.metrics().get("pleg_evented_mode") == 0, 30, "fall-back to generic")
        m = agent.metrics()
        assert m.get("pleg_evented_connection_errors_total") == 5
        assert m.get("pleg_evented_connection_success_total") == 0
        assert "GetContainerEvents failed 5 times" in agent.proc.output()
        start = relists(agent)
        wait_until(lambda: relists(agent) >= start + 3, 10, "generic relists at the 1s period")


def test_auto_falls_back_at_once_when_unimplemented():
    with FakeCri("steady") as fake, Agent(fake.endpoint, ["--evented-pleg", "auto"]) as agent:
        wait_until(lambda: agent.metrics().get("pleg_evented_connection_errors_total") == 1, 10,
                   "one UNIMPLEMENTED attempt")
        m = agent.metrics()
        assert m.get("pleg_evented_mode") == 0
        assert fake.counts().get("GetContainerEvents") == 1, "auto does not retry UNIMPLEMENTED"


def test_evented_off_never_subscribes():
    with FakeCri("evented") as fake, Agent(fake.endpoint, ["--evented-pleg", "false"]) as agent:
        wait_until(lambda: relists(agent) >= 3, 10, "relists")
        assert agent.metrics().get("pleg_evented_mode") == 0
        assert fake.counts().get("GetContainerEvents", 0) == 0


if __name__ == "__main__":
    harness.main(globals())
