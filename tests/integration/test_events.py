"""Under churn (crash-looping containers) PLEG events flow: pleg_events_total
moves with ContainerStarted and ContainerDied, /debug/events lists them with
the DESIGN §5 fields, and /debug/pods mirrors the simulated node."""

import datetime

import harness
from harness import Agent, FakeCri, wait_until

FAST = ["--relist-period", "200ms"]
EVENT_FIELDS = {"time", "type", "pod_uid", "pod_name", "pod_namespace", "container_id", "container_name"}
EVENT_TYPES = {"ContainerStarted", "ContainerDied", "ContainerRemoved", "ContainerChanged", "PodSync"}


def parse_rfc3339(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_events_total_moves_under_churn():
    with FakeCri("churn") as fake, Agent(fake.endpoint, FAST) as agent:
        first = wait_until(lambda: agent.metrics().sum("pleg_events_total") > 0 and agent.metrics(), 20,
                           "first PLEG events")
        before_died = first.get("pleg_events_total", 0, event_type="ContainerDied")

        def both_moving():
            m = agent.metrics()
            return (m.get("pleg_events_total", 0, event_type="ContainerDied") > before_died
                    and m.get("pleg_events_total", 0, event_type="ContainerStarted") > 0)
        wait_until(both_moving, 20, "ContainerDied and ContainerStarted to be counted under churn")
        m = agent.metrics()
        assert m.label_values("pleg_events_total", "event_type") <= EVENT_TYPES
        assert m.get("pleg_healthy") == 1


def test_debug_events_have_the_documented_fields():
    with FakeCri("churn") as fake, Agent(fake.endpoint, FAST) as agent:
        pods = {p["uid"]: p for p in fake.pods()}

        def crash_seen():
            events = agent.get_json("/debug/events")["events"]
            # churn.json crash-loops the "app" container of the first 5 pods.
            # (Containers that were already exited yield ContainerDied on the
            # first relist too, as in the kubelet: non-existent -> exited.)
            crash = [e for e in events if e["type"] == "ContainerDied" and e["pod_uid"] in pods
                     and pods[e["pod_uid"]]["ordinal"] < 5 and e["container_name"] == "app"]
            return events if crash else None
        events = wait_until(crash_seen, 20, "a crash-loop ContainerDied in /debug/events")
        for e in events:
            missing = EVENT_FIELDS - set(e)
            assert not missing, "event %r lacks %s" % (e, missing)
            assert e["type"] in EVENT_TYPES, e
        times = [parse_rfc3339(e["time"]) for e in events]
        assert times == sorted(times), "events must be oldest first"
        for e in events:
            pod = pods.get(e["pod_uid"])
            assert pod is not None, "event for unknown pod %r" % e
            assert e["pod_name"] == pod["name"] and e["pod_namespace"] == pod["namespace"], (e, pod)


def test_debug_pods_mirror_the_node():
    with FakeCri("churn") as fake, Agent(fake.endpoint, FAST) as agent:
        want = {p["uid"]: p for p in fake.pods()}

        def complete():
            got = agent.get_json("/debug/pods")["pods"]
            return got if {p["uid"] for p in got} >= set(want) else None
        pods = wait_until(complete, 20, "/debug/pods to list the scenario's 30 pods")
        for p in pods:
            assert {"uid", "name", "namespace", "sandboxes", "containers"} <= set(p), p
            if p["uid"] not in want:
                continue  # none are created in churn.json, but stay tolerant
            assert p["name"] == want[p["uid"]]["name"] and p["namespace"] == want[p["uid"]]["namespace"], p
            assert p["sandboxes"], p
            for sb in p["sandboxes"]:
                assert {"id", "state", "created_at"} <= set(sb), sb
                assert sb["id"] in want[p["uid"]]["sandboxes"], sb
            for c in p["containers"]:
                assert {"id", "name", "state", "exit_code", "reason", "started_at", "finished_at"} <= set(c), c
            running = [c for c in p["containers"] if str(c["state"]).lower().endswith("running")]
            assert len(running) >= 1, p


if __name__ == "__main__":
    harness.main(globals())
