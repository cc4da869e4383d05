"""The runtime's CRI Status, the kubelet's other path to NotReady, against
the fake runtime: a Status hang while the lists answer is reported before
the kubelet's 30 s as the runtime down for the kubelet, with /healthz's
verbose answer and the health gauge beside pleg_healthy; a slow Status,
NetworkReady false, RuntimeReady false and a flapping readiness each get
their cause; both paths at once; and one hang keeps one name across the
retries of list calls that end at their deadline."""

import time

import harness
from harness import Agent, FakeCri, wait_until

from diag_common import check_cause_shape, check_gauge, describe, fixture, report, wait_top_cause

FLAGS = ["--hang-threshold", "3s", "--relist-period", "1s", "--node-name", "worker-3"]
DOWN = 30.0  # the kubelet's "container runtime is down" threshold


def agent_for(fake, extra=()):
    return Agent(fake.endpoint, FLAGS + list(extra), proc_path=fixture("healthy"), log_level="info")


def status_section(rep):
    return rep["runtime_status"]


def test_status_hang_with_fast_lists_is_the_runtime_down_for_the_kubelet():
    with FakeCri("diag_status_hang", log_level="warn", hold="healthy") as fake, agent_for(fake) as agent:
        wait_until(lambda: status_section(report(agent))["seconds_since_success"] is not None and
                   report(agent)["causes"] == [], 20, "a good Status and no cause")
        fake.phase("status_hang", hold=True)
        started = time.monotonic()
        rep = wait_top_cause(agent, "runtime_status_hung", timeout=DOWN)
        took = time.monotonic() - started
        print("  runtime_status_hung first ranked %.1fs after Status began to hang: %s" % (took, describe(rep)))
        c = check_cause_shape(rep, "runtime_status_hung")
        assert "its container lists answer" in c["summary"], c["summary"]
        assert rep["healthy"], "PLEG itself is healthy: %s" % describe(rep)
        assert status_section(rep)["not_ready_path"] == "runtime_status", status_section(rep)
        # The kubelet flips at 30 s after its last good answer: the report
        # named the cause before that, and says when.
        assert status_section(rep)["not_ready_in_seconds"] is not None, status_section(rep)
        down = wait_until(lambda: (lambda r: r if status_section(r)["runtime_down"] else None)(report(agent)),
                          DOWN + 15, "the kubelet's 30 s rule")
        top = down["causes"][0]
        assert top["id"] == "runtime_status_hung" and top["severity"] == "critical", describe(down)
        assert top["summary"].startswith("The runtime is down for the kubelet"), top["summary"]
        assert status_section(down)["kubelet_errors"][0] == "container runtime is down", status_section(down)
        assert status_section(down)["in_flight_seconds"] >= DOWN - 5, status_section(down)
        m = agent.metrics()
        assert m.get("pleg_runtime_status_healthy") == 0
        assert m.get("pleg_healthy") == 1
        assert m.get("pleg_runtime_operation_oldest_in_flight_seconds", operation_type="status") >= DOWN - 5
        check_gauge(agent, "runtime_status_hung", 0.6)
        status, body = agent.get("/healthz?verbose")
        assert status == 200, (status, body)
        lines = body.splitlines()
        assert lines[0] == "[-]runtime_status failed: container runtime is down", body
        assert lines[1] == "[+]pleg ok", body
        print("  " + top["summary"])
        # The runtime recovers: the next answer is a sync again.
        fake.release()
        wait_until(lambda: not report(agent)["causes"], 20, "the cause to clear after Status answers")


def test_slow_status_is_named_before_the_kubelets_rule():
    with FakeCri("diag_status_slow", log_level="warn") as fake, agent_for(fake) as agent:
        rep = wait_top_cause(agent, "runtime_status_hung", timeout=40)
        c = check_cause_shape(rep, "runtime_status_hung")
        assert c["severity"] == "warning", c
        assert "about to be down" in c["summary"], c["summary"]
        assert not status_section(rep)["runtime_down"], status_section(rep)


def test_network_not_ready_carries_the_runtimes_reason_and_message():
    with FakeCri("diag_network_not_ready", log_level="warn") as fake, agent_for(fake) as agent:
        rep = wait_top_cause(agent, "runtime_network_not_ready", timeout=20)
        c = check_cause_shape(rep, "runtime_network_not_ready")
        assert "reason NetworkPluginNotReady: Network plugin returns error: cni plugin not initialized" in c["summary"], c
        s = status_section(rep)
        assert s["network_ready"]["reason"] == "NetworkPluginNotReady", s
        assert s["kubelet_errors"] == ["container runtime network not ready: NetworkReady=false "
                                       "reason:NetworkPluginNotReady message:Network plugin returns error: "
                                       "cni plugin not initialized"], s
        assert agent.metrics().get("pleg_runtime_condition", condition="NetworkReady") == 0


def test_runtime_not_ready_then_down():
    with FakeCri("diag_runtime_not_ready", log_level="warn") as fake, agent_for(fake) as agent:
        rep = wait_top_cause(agent, "runtime_not_ready", timeout=20)
        c = check_cause_shape(rep, "runtime_not_ready")
        assert c["severity"] == "critical" and "runtime binary runc not found" in c["summary"], c
        assert status_section(rep)["not_ready_path"] == "runtime_status", status_section(rep)
        status, body = agent.get("/healthz?verbose")
        assert "[-]runtime_ready failed: container runtime not ready: RuntimeReady=false reason:RuntimeNotReady" \
               in body, body


def test_flapping_readiness_is_named():
    with FakeCri("diag_status_flapping", log_level="warn") as fake, agent_for(fake) as agent:
        def flapping():
            rep = report(agent)
            c = next((c for c in rep["causes"] if c["id"] == "runtime_network_not_ready"), None)
            return rep if c and "flaps" in c["summary"] else None
        rep = wait_until(flapping, 60, "a flapping readiness to be named")
        print("  " + describe(rep))


def test_both_paths_at_once():
    with FakeCri("diag_status_and_lists_hang", log_level="warn", hold="healthy") as fake, \
            agent_for(fake, ["--relist-threshold", "20s"]) as agent:
        wait_until(lambda: status_section(report(agent))["seconds_since_success"] is not None, 20, "a good Status")
        fake.phase("hang", hold=True)
        rep = wait_until(lambda: (lambda r: r if status_section(r)["not_ready_path"] == "both" else None)(
            report(agent)), 60, "both NotReady paths")
        ids = [c["id"] for c in rep["causes"]]
        assert ids[0] == "runtime_hung", describe(rep)
        assert "runtime_status_hung" in ids, describe(rep)
        errors = status_section(rep)["kubelet_errors"]
        assert errors[0] == "container runtime is down" and errors[1].startswith("PLEG is not healthy: "), errors
        status, body = agent.get("/healthz?verbose")
        assert status == 500 and body.splitlines()[:2] == [
            "[-]runtime_status failed: container runtime is down", "[-]pleg failed: " + errors[1]], body


def test_one_hang_one_name_across_deadline_retries():
    """--runtime-request-timeout 5s against a ListContainers that never
    answers: each list call ends at its deadline and is retried; from the
    first report naming runtime_hung on, every report for 20 s ranks it
    first, never runtime_slow."""
    with FakeCri("diag_list_deadlines", log_level="warn", hold="healthy") as fake, \
            agent_for(fake, ["--runtime-request-timeout", "5s"]) as agent:
        wait_until(lambda: len(report(agent)["timeline"]) >= 3, 20, "three relists")
        fake.phase("hang", hold=True)
        wait_top_cause(agent, "runtime_hung", timeout=20)
        tops, deadline = [], time.monotonic() + 20
        while time.monotonic() < deadline:
            rep = report(agent)
            tops.append((rep["causes"][0]["id"] if rep["causes"] else None,
                         rep["causes"][0]["severity"] if rep["causes"] else None))
            time.sleep(0.5)
        failed = sum(1 for r in report(agent)["timeline"] if r["error"] == "DEADLINE_EXCEEDED")
        print("  %d polls over %d deadline retries, tops: %s" % (len(tops), failed, sorted(set(tops))))
        assert failed >= 2, "the lists were not retried: %d" % failed
        assert set(tops) == {("runtime_hung", "critical")}, tops


if __name__ == "__main__":
    harness.main(globals())
