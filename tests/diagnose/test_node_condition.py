"""The verdict where the cluster acts on it: with --node-condition the agent
writes plegscope.io/PLEGUnhealthy on its own Node and Events at each
transition, through a stand-in API server over HTTPS (tests/lib/
fake_apiserver.py: strategic merge of status.conditions by type, events
create and patch, 401/403/409, slow answers, a request log).

On the fake runtime's hang, stuck-pod, storm and kubelet-internal scenarios
the condition turns True with the cause's reason within the hang threshold +
4 s (the hold is 0 here), and back to False after recovery (clear-after 3 s).
The kubelet's own conditions survive every write; no write ever goes to
another node; a restarted agent never writes False first during a fault; a
403 or a down API server shows in /diagnose with its fix while the agent
keeps relisting and serving /metrics."""

import os
import tempfile
import time

import harness
from harness import Agent, FakeCri, require_tool, wait_until

from diag_common import describe, fixture, report
from fake_apiserver import FakeApiServer
from fake_kubelet import FakeKubelet

TYPE = "plegscope.io/PLEGUnhealthy"
REPAIR = "plegscope.io/NodeRepairAdvised"  # node-level causes held past --node-repair-advised-after
HANG = 2
FLAGS = ["--hang-threshold", "%ds" % HANG, "--relist-period", "1s", "--node-name", "worker-3", "--node-condition",
         "--node-condition-hold", "0s", "--node-condition-clear-after", "3s", "--node-condition-min-interval", "0s"]
KUBELET_CONDITIONS = {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}


def token_file(directory, token="t0k3n"):
    path = os.path.join(directory, "token")
    with open(path, "w") as f:
        f.write(token + "\n")
    return path


def condition_agent(d, api, fake, extra=(), token="t0k3n"):
    flags = FLAGS + ["--api-server-ca-file", api.ca_file, "--api-server-token-file", token_file(d, token),
                     "--journal-path", os.path.join(d, "no-journal")] + list(extra)
    return Agent(fake.endpoint, flags, proc_path=fixture("healthy"), log_level="info", env=api.env())


def node_writes(api):
    return [w for w in api.writes() if "/nodes/" in w["path"]]


def check_writes(api):
    """What every test holds: only worker-3's status, by strategic merge, one
    of plegscope's two conditions in each patch, and the kubelet's conditions kept."""
    for w in node_writes(api):
        assert w["method"] == "PATCH" and w["path"] == "/api/v1/nodes/worker-3/status", w
        assert w["content_type"] == "application/strategic-merge-patch+json", w
        assert [c["type"] for c in w["body"]["status"]["conditions"]] in ([TYPE], [REPAIR]), w
    node = api.node_object("worker-3")
    kinds = {c["type"] for c in node["status"]["conditions"]}
    assert KUBELET_CONDITIONS <= kinds, kinds
    assert api.condition("worker-4", TYPE) is None, "a write reached another node"


def wait_condition(api, status, reason=None, timeout=30):
    def seen():
        c = api.condition("worker-3", TYPE)
        return c if c and c["status"] == status and (reason is None or c["reason"] == reason) else None
    try:
        return wait_until(seen, timeout, "%s=%s %s" % (TYPE, status, reason or ""), interval=0.1)
    except AssertionError as e:
        raise AssertionError("%s; stored: %s; writes: %s" % (e, api.condition("worker-3", TYPE),
                                                             [(w["code"], w["body"]) for w in node_writes(api)][-3:]))


def events_by_reason(api):
    out = {}
    for e in api.events.values():
        out.setdefault(e["reason"], []).append(e)
    return out


def hang_began(agent):
    """When the hung call began, as the agent saw it: the clock of the
    "within the hang threshold + 4 s" bound starts there, not at the fake
    runtime's phase switch (a pod's status call starts only when the relist
    reaches that pod)."""
    def in_flight():
        ops = report(agent)["runtime"]["operations"].values()
        oldest = max([o["oldest_in_flight_seconds"] for o in ops if o["in_flight"]] or [None], key=lambda v: v or 0)
        return time.monotonic() - oldest if oldest else None
    return wait_until(in_flight, 30, "a call in flight", interval=0.1)


def check_true(api, agent, reason, began, budget):
    """True with `reason` within `budget` seconds of `began` (a deadline, not a
    measured time: the wait ends there), the message one line with its
    advice, the report's node_condition section and a Warning Event agreeing."""
    c = wait_condition(api, "True", reason, timeout=max(0.5, budget - (time.monotonic() - began)))
    print("  %s=True reason %s %.1fs after the fault was seen (deadline %.0fs): %s"
          % (TYPE, reason, time.monotonic() - began, budget, c["message"][:160]))
    assert "kubectl plegscope diagnose worker-3" in c["message"] and "Advice: " in c["message"], c
    assert "\n" not in c["message"], c
    # The report shows the write at its next diagnosis (made at most a second apart).
    wait_until(lambda: (lambda n: n["status"] == "True" and n["reason"] == reason and n["writes"] >= 1)(
        report(agent)["node_condition"]), 5, "the write in /diagnose")
    # The Event follows the condition's write.
    warning = wait_until(lambda: [e for e in events_by_reason(api).get(reason, []) if e["type"] == "Warning"], 5,
                         "a Warning Event %s" % reason)
    assert warning[0]["involvedObject"] == {"kind": "Node", "apiVersion": "v1", "name": "worker-3",
                                                         "uid": "worker-3"}, warning
    assert warning[0]["metadata"]["namespace"] == "default" and warning[0]["source"]["host"] == "worker-3", warning
    return c


def check_recovers(api, agent):
    c = wait_condition(api, "False", "PLEGHealthy", timeout=40)
    wait_until(lambda: any(e["type"] == "Normal" for e in events_by_reason(api).get("PLEGHealthy", [])), 5,
               "a Normal Event PLEGHealthy")
    wait_until(lambda: report(agent)["node_condition"]["status"] == "False", 5, "the recovery in /diagnose")
    print("  recovered: %s" % c["message"][:120])


def repair_writes(api):
    return [w["body"]["status"]["conditions"][0] for w in node_writes(api)
            if w["body"]["status"]["conditions"][0]["type"] == REPAIR]


def test_hang_sets_runtime_hung_then_recovers():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeApiServer(d, node="worker-3") as api, \
            FakeCri("diag_hang", log_level="warn", hold="healthy") as fake, \
            condition_agent(d, api, fake, ["--node-repair-advised-after", "3s"]) as agent:
        wait_condition(api, "False", "PLEGHealthy")  # the first verdict, after clear-after of health
        assert api.events == {}, "an Event for the first healthy verdict: %s" % api.events
        fake.phase("hang", hold=True)
        check_true(api, agent, "RuntimeHung", hang_began(agent), HANG + 4)
        # The runtime's own calls hang (advice restart-runtime, node-level):
        # past the 3 s window the narrow condition follows.
        wait_until(lambda: (api.condition("worker-3", REPAIR) or {}).get("status") == "True", 15,
                   "%s True" % REPAIR, interval=0.1)
        assert api.condition("worker-3", REPAIR)["reason"] == "RuntimeHung"
        fake.release()
        check_recovers(api, agent)
        # The same fault again within 10 minutes: the kubelet recorder's way,
        # the first Event's count goes up by a PATCH instead of a new Event.
        fake.phase("hang", hold=True)
        wait_condition(api, "True", "RuntimeHung")
        (hung,) = wait_until(lambda: [e for e in events_by_reason(api).get("RuntimeHung", []) if e["count"] == 2], 5,
                             "the RuntimeHung Event counted twice")
        patches = [w for w in api.writes() if w["method"] == "PATCH" and "/events/" in w["path"]]
        assert [w["path"] for w in patches] == ["/api/v1/namespaces/default/events/" + hung["metadata"]["name"]], \
            patches
        assert patches[0]["content_type"] == "application/strategic-merge-patch+json", patches
        assert len(events_by_reason(api)["RuntimeHung"]) == 1, api.events
        fake.release()
        check_writes(api)


def repair_state(agent):
    return report(agent)["node_condition"]["repair"]


def test_repair_waits_for_the_kubelet_and_the_fleet():
    """NodeRepairAdvised needs the kubelet to agree and the fleet to be
    quiet: a hung runtime past the 3 s repair window is withheld while the
    Node is Ready and the kubelet's relists advance, advised once the
    kubelet's relist count stops (it is stuck on the same runtime), and
    withdrawn when another agent's node turns unhealthy too (2 of 3 agents,
    above the 20 % share; the list is read at most every 30 s)."""
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as kd, \
            FakeApiServer(d, node="worker-3", mode="ready",
                          other_nodes=("worker-4", "worker-5", "worker-6")) as api, \
            FakeKubelet(kd) as kubelet, FakeCri("diag_hang", log_level="warn", hold="healthy") as fake, \
            condition_agent(d, api, fake, ["--node-repair-advised-after", "3s", "--kubelet-endpoint", kubelet.url,
                                           "--kubelet-ca-file", kubelet.ca_file,
                                           "--kubelet-token-file", token_file(d)]) as agent:
        # Two more agents in the cluster, both at ease; worker-4 runs none.
        api.set_condition("worker-5", TYPE, "False")
        api.set_condition("worker-6", TYPE, "False")
        wait_condition(api, "False", "PLEGHealthy")
        fake.phase("hang", hold=True)
        began = hang_began(agent)
        check_true(api, agent, "RuntimeHung", began, HANG + 4)
        # Past the window, the kubelet read and at ease: withheld, and said so.
        state = wait_until(lambda: (lambda r: r if r["advice"] == "withheld_kubelet_disagrees" else None)(
            repair_state(agent)), 20, "repair advice withheld for the kubelet", interval=0.2)
        # Its metrics at least (the Ready condition too once read: every 30 s).
        assert state["kubelet"] in ("disagrees:ready_condition+pleg_metrics", "disagrees:pleg_metrics"), state
        assert agent.metrics().get("pleg_node_repair_advice", state="withheld_kubelet_disagrees") == 1
        assert not [w for w in repair_writes(api) if w["status"] == "True"], repair_writes(api)
        print("  withheld %.1fs after the hang was seen: kubelet %s" % (time.monotonic() - began, state["kubelet"]))
        # The kubelet's own relist stops: it sees the stall too.
        kubelet.mode = "frozen"
        frozen = time.monotonic()
        wait_until(lambda: (api.condition("worker-3", REPAIR) or {}).get("status") == "True", 30,
                   "%s True once the kubelet agrees" % REPAIR, interval=0.1)
        # The report shows the write at its next diagnosis (made at most a second apart).
        state = wait_until(lambda: (lambda r: r if r["advice"] == "advised" else None)(repair_state(agent)), 5,
                           "the advice in /diagnose")
        assert state["kubelet"] == "agrees:pleg_relist_stalled", state
        assert (state["fleet_agents"], state["fleet_advising"]) == (3, 1), state
        assert api.lists and all(p.startswith("/api/v1/nodes?limit=") for p in api.lists), api.lists
        print("  advised %.1fs after the kubelet froze (its relist count flat for the %ds hang threshold, "
              "a 5 s scrape)" % (time.monotonic() - frozen, HANG))
        # Another agent's node turns unhealthy: 2 of 3 agents, a fleet-wide cause.
        api.set_condition("worker-5", TYPE, "True")
        wait_until(lambda: (api.condition("worker-3", REPAIR) or {}).get("status") == "False", 40,
                   "%s withdrawn for the fleet share" % REPAIR, interval=0.2)
        state = wait_until(lambda: (lambda r: r if r["advice"] == "withheld_fleet_share" else None)(
            repair_state(agent)), 5, "the fleet share in /diagnose")
        assert (state["fleet_agents"], state["fleet_advising"]) == (3, 2), state
        assert agent.metrics().get("pleg_node_repair_advice", state="withheld_fleet_share") == 1
        text = agent.get("/diagnose?format=text")[1]
        assert "plegscope.io/NodeRepairAdvised: withheld (fleet_share" in text, text
        # The broad condition is not the fleet guard's: it stays True.
        assert api.condition("worker-3", TYPE)["status"] == "True"
        # The kubelet relists again (else, frozen beside a fast runtime, it is kubelet_internal).
        kubelet.mode = "healthy"
        fake.release()
        check_recovers(api, agent)
        check_writes(api)


def test_stuck_pod_is_runtime_hung_with_advice_fix_pod():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeApiServer(d, node="worker-3") as api, \
            FakeCri("diag_one_pod_stuck", log_level="warn", hold="steady") as fake, \
            condition_agent(d, api, fake, ["--node-repair-advised-after", "1s"]) as agent:
        wait_condition(api, "False", "PLEGHealthy")
        fake.phase("stuck", hold=True)
        c = check_true(api, agent, "RuntimeHung", hang_began(agent), HANG + 4)
        assert "Advice: fix-pod" in c["message"] and "payments/ledger-" in c["message"], c["message"]
        # One pod's own cause, held well past the 1 s repair window: the
        # broad condition is True, the narrow one never is.
        wait_until(lambda: [w for w in repair_writes(api) if w["status"] == "False"], 10,
                   "%s written False" % REPAIR, interval=0.1)
        wait_until(lambda: (report(agent)["causes"] or [{}])[0].get("culprit", {}).get("seconds", 0) >= HANG + 3, 15,
                   "the stuck call held 3 s past the hang threshold (the repair window is 1 s)", interval=0.2)
        assert all(w["status"] == "False" for w in repair_writes(api)), repair_writes(api)
        fake.release()
        check_recovers(api, agent)
        check_writes(api)


def test_storm_past_the_relist_threshold_is_event_storm():
    require_tool("openssl")
    # A relist threshold of 3 s: the storm's relists, several seconds each, make PLEG unhealthy.
    with tempfile.TemporaryDirectory() as d, FakeApiServer(d, node="worker-3") as api, \
            FakeCri("diag_storm_long_relists", log_level="warn", hold="healthy") as fake, \
            condition_agent(d, api, fake, ["--relist-threshold", "3s"]) as agent:
        wait_condition(api, "False", "PLEGHealthy")
        fake.phase("storm", hold=True)
        # Early in the storm the slow relists are put down to their per-pod
        # inspection (pod_status_slow); event_storm is named once the events
        # per relist are counted. The deadline runs from there.
        wait_until(lambda: (lambda r: r["status"] == "unhealthy" and r["causes"][0]["id"] == "event_storm")(
            report(agent)), 40, "PLEG unhealthy with event_storm first", interval=0.1)
        check_true(api, agent, "EventStorm", time.monotonic(), HANG + 4)
        print("  reasons written: %s" % [w["body"]["status"]["conditions"][0]["reason"] for w in node_writes(api)])
        check_writes(api)


def test_frozen_kubelet_is_kubelet_internal_with_advice_restart_kubelet():
    require_tool("openssl")
    # Each stand-in makes its certificate in a directory of its own.
    with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as kd, \
            FakeApiServer(d, node="worker-3") as api, FakeKubelet(kd) as kubelet, \
            FakeCri("diag_healthy", log_level="warn") as fake, \
            condition_agent(d, api, fake, ["--kubelet-endpoint", kubelet.url, "--kubelet-ca-file", kubelet.ca_file,
                                           "--kubelet-token-file", token_file(d)]) as agent:
        wait_condition(api, "False", "PLEGHealthy")
        # The kubelet's PLEG last seen 200 s ago, past its 3-minute threshold:
        # critical, so True at once (a kubelet frozen for less is a warning).
        kubelet.freeze(200)
        c = wait_condition(api, "True", "KubeletInternal", timeout=HANG + 4 + 5)  # + a kubelet scrape (5 s)
        assert "Advice: restart-kubelet" in c["message"], c["message"]
        print("  " + c["message"][:200])
        check_writes(api)


def test_restarted_during_a_fault_never_writes_false_first():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeApiServer(d, node="worker-3") as api, \
            FakeCri("diag_hang", log_level="warn", hold="healthy") as fake:
        fake.phase("hang", hold=True)
        with condition_agent(d, api, fake) as agent:
            since = wait_condition(api, "True", "RuntimeHung", timeout=HANG + 10)["lastTransitionTime"]
        first = len(node_writes(api))
        time.sleep(1.1)  # the API server's times are in seconds: a new transition would differ
        # The agent restarts while the runtime is still hung.
        with condition_agent(d, api, fake) as agent:
            wait_until(lambda: len(node_writes(api)) > first, HANG + 10, "the restarted agent's first write")
            wait_until(lambda: report(agent)["node_condition"]["writes"] >= 1, 10, "the write in /diagnose")
        statuses = [w["body"]["status"]["conditions"][0]["status"] for w in node_writes(api)]
        assert "False" not in statuses, statuses
        # The fault did not start with the restart: its transition time stays.
        assert api.condition("worker-3", TYPE)["lastTransitionTime"] == since, (since, api.condition("worker-3", TYPE))
        fake.release()
        check_writes(api)


def test_401_403_and_409_are_reported_with_their_fix_and_retried():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeApiServer(d, node="worker-3") as api, \
            FakeCri("diag_hang", log_level="warn", hold="healthy") as fake, condition_agent(d, api, fake) as agent:
        api.fail_writes = (401, None)
        wait_until(lambda: "Unauthorized" in (report(agent)["node_condition"]["error"] or ""), 20, "the 401 reported")
        assert "--api-server-token-file" in report(agent)["node_condition"]["error"]
        api.fail_writes = (403, None)
        wait_until(lambda: "Forbidden" in (report(agent)["node_condition"]["error"] or ""), 40, "the 403 reported")
        nc = report(agent)["node_condition"]
        assert "deploy/components/node-condition" in nc["error"] and nc["reachable"] is False, nc
        assert agent.metrics().get("pleg_healthy") == 1
        print("  403: " + nc["error"])
        api.fail_writes = (409, 1)
        wait_condition(api, "False", "PLEGHealthy")  # after one conflict, the next try goes through
        assert [w["code"] for w in node_writes(api)].count(409) == 1
        wait_until(lambda: report(agent)["node_condition"]["error"] is None, 10, "the error cleared")
        check_writes(api)


def test_slow_or_down_api_server_never_stops_the_relist_or_metrics():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d:
        api = FakeApiServer(d, node="worker-3")
        with api, FakeCri("diag_hang", log_level="warn", hold="healthy") as fake, \
                condition_agent(d, api, fake) as agent:
            api.write_delay = 8.0  # past the client's 5 s timeout
            fake.phase("hang", hold=True)
            wait_until(lambda: "did not answer" in (report(agent)["node_condition"]["error"] or ""), 30,
                       "the slow API server reported")
            assert report(agent)["causes"][0]["id"] == "runtime_hung"
            fake.release()
            api.server.stop()  # the API server goes away
            relists = agent.metrics().get("pleg_relist_duration_seconds_count", 0)
            wait_until(lambda: agent.metrics().get("pleg_relist_duration_seconds_count", 0) >= relists + 5, 20,
                       "five more relists with the API server down")
            status, _ = agent.get("/metrics")
            assert status == 200 and agent.proc.alive()
            nc = report(agent)["node_condition"]
            assert nc["reachable"] is False and nc["failures"] >= 1, nc
            print("  down: " + nc["error"])


if __name__ == "__main__":
    harness.main(globals())
