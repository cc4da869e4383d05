"""One pod's calls hang while the lists and every other pod answer
(fakecri's hang with a pod selector, a stuck shim). The report must call it a
stuck pod, not a hung runtime, and name exactly that pod: its namespace/name,
uid and sandbox id as the fake runtime has them, in the cause and in
runtime.slowest_pods; released, the cause goes away."""

import re

import harness
from harness import Agent, FakeCri, wait_until

from diag_common import check_cause_shape, describe, fixture, report

# An idle node's /proc (tests/fixtures/proc/healthy), so the verdict depends
# on the runtime, not on what else this machine runs.
FLAGS = ["--hang-threshold", "2s", "--node-name", "worker-3"]


def pod_at(fake, ordinal):
    pod = next(p for p in fake.pods() if p["ordinal"] == ordinal)
    assert len(pod["sandboxes"]) == 1, pod
    return pod


def steady(agent):
    """A few relists of the steady phase, and no cause on them."""
    wait_until(lambda: len(report(agent)["timeline"]) >= 4, 20, "four relists")
    rep = report(agent)
    assert rep["causes"] == [], describe(rep)


def hung_cause(agent, timeout=40):
    last = {}

    def named():
        rep = report(agent)
        last["rep"] = rep
        return rep if any(c["id"] == "runtime_hung" for c in rep["causes"]) else None
    try:
        return wait_until(named, timeout, "runtime_hung to be named", interval=0.25)
    except AssertionError as e:
        raise AssertionError("%s; last report: %s" % (e, describe(last["rep"]) if "rep" in last else "none"))


def check_names_exactly(rep, pod, op, name_pattern):
    """runtime_hung in its stuck-pod form names `pod` and no other, and the
    pod's call is in flight in runtime.slowest_pods with its uid and sandbox."""
    c = check_cause_shape(rep, "runtime_hung")
    who = "%s/%s" % (pod["namespace"], pod["name"])
    print("  " + c["summary"])
    assert rep["causes"][0]["id"] == "runtime_hung", describe(rep)
    assert c["severity"] == "critical", c
    assert c["summary"].startswith("One pod is stuck, not the runtime"), c["summary"]
    assert set(re.findall(name_pattern, c["summary"])) == {who}, c["summary"]
    assert pod["uid"] in c["summary"] and pod["sandboxes"][0][:12] in c["summary"], (pod, c["summary"])
    # Restarting the runtime is not the first remedy, in the cause and in the verdict.
    assert "Restarting the runtime does not free a shim" in c["summary"], c["summary"]
    assert "restarting the runtime is not the first remedy" in rep["summary"], rep["summary"]
    stuck = [p for p in rep["runtime"]["slowest_pods"] if p["in_flight"]]
    assert stuck, rep["runtime"]["slowest_pods"]
    for p in stuck:  # only that pod's call hangs
        assert (p["pod"], p["uid"], p["sandbox_id"], p["op"]) == (who, pod["uid"], pod["sandboxes"][0], op), p
        assert p["seconds"] > 2, p
    return c


def released(fake, agent):
    """The no-false-alarm half: the hang released, the same node (still
    churning) names no hang and has nothing in flight."""
    assert fake.release()["released"] == 1
    last = {}

    def quiet():
        rep = report(agent)
        last["rep"] = rep
        ids = {c["id"] for c in rep["causes"]}
        return not ids & {"runtime_hung", "shim_hung"} and \
            not [p for p in rep["runtime"]["slowest_pods"] if p["in_flight"]] and rep
    try:
        rep = wait_until(quiet, 30, "runtime_hung to go away once the hang is released", interval=0.25)
    except AssertionError as e:
        raise AssertionError("%s; last report: %s" % (e, describe(last["rep"]) if "rep" in last else "none"))
    print("  released: " + describe(rep))
    # Stays away over further relists (the churn goes on).
    relists = lambda: agent.metrics().get("pleg_relist_duration_seconds_count", 0)  # noqa: E731
    n = relists()
    wait_until(lambda: relists() >= n + 3, 20, "three more relists")
    rep = report(agent)
    assert not {c["id"] for c in rep["causes"]} & {"runtime_hung", "shim_hung"}, describe(rep)


def test_ledger_4_status_hangs():
    """12 pods payments/ledger-N; pod 4's PodSandboxStatus hangs."""
    with FakeCri("diag_one_pod_stuck", log_level="warn", hold="steady") as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture("healthy"), log_level="info") as agent:
        steady(agent)
        fake.phase("stuck", hold=True)
        rep = hung_cause(agent)
        check_names_exactly(rep, pod_at(fake, 4), "podsandbox_status", r"payments/ledger-\d+")
        released(fake, agent)


def test_another_node_another_pod_container_status_hangs():
    """A node no code was tuned on: 17 pods billing/invoice-N with two
    containers each; pod 11's ContainerStatus hangs."""
    with FakeCri("diag_one_pod_stuck_variant", log_level="warn", hold="steady") as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture("healthy"), log_level="info") as agent:
        steady(agent)
        fake.phase("stuck", hold=True)
        rep = hung_cause(agent)
        pod = pod_at(fake, 11)
        c = check_names_exactly(rep, pod, "container_status", r"billing/invoice-\d+")
        containers = [p["container"] for p in rep["runtime"]["slowest_pods"] if p["in_flight"]]
        assert len(set(containers)) == 1 and containers[0], containers  # the one container whose status hangs
        assert "container " + containers[0] in c["summary"], c["summary"]
        released(fake, agent)


if __name__ == "__main__":
    harness.main(globals())
