"""The diagnoser against the fake runtime: for every cause id a scenario in
which it ranks first with confidence >= 0.6, a healthy node with no cause at
all, a mixed node (event storm while the node shows heavy IO), and the hang
reported within --hang-threshold plus two relist periods."""

import time

import harness
from harness import Agent, FakeCri, wait_until

from diag_common import (CAUSE_IDS, causes, check_cause_shape, check_gauge, describe, fixture, report,
                         wait_top_cause)

HANG = 3.0    # --hang-threshold, seconds
PERIOD = 1.0  # --relist-period, seconds (the default, as the kubelet)
FLAGS = ["--hang-threshold", "3s", "--relist-period", "1s", "--node-name", "worker-3"]


def scenario_ranks_first(scenario, cause, proc="healthy", timeout=40):
    with FakeCri(scenario, log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture(proc), log_level="info") as agent:
        wait_until(lambda: report(agent)["relist"]["seconds_since_last_seen"] is not None, 20, "a first relist")
        rep = wait_top_cause(agent, cause, timeout)
        c = check_cause_shape(rep, cause)
        check_gauge(agent, cause, 0.5)
        print("  %s: %s" % (scenario, describe(rep)))
        print("  evidence: %s" % [(e["signal"], e["value"], e["threshold"]) for e in c["evidence"]])
        return rep


def test_healthy_node_has_no_causes():
    with FakeCri("diag_healthy", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture("healthy"), log_level="info") as agent:
        wait_for_relists(agent, 6)  # a window of relists with churn in it
        for _ in range(3):
            rep = report(agent)
            assert rep["status"] == "healthy", describe(rep)
            assert rep["causes"] == [], describe(rep)
            assert rep["forecast"]["seconds_to_unhealthy"] is None, rep["forecast"]
            assert rep["summary"].startswith("PLEG is healthy"), rep["summary"]
            wait_for_relists(agent, len(rep["timeline"]) + 1)
        m = agent.metrics()
        for cause in CAUSE_IDS:
            assert m.get("pleg_diagnosis_cause", cause=cause) == 0, cause
        print("  " + rep["summary"])


def wait_for_relists(agent, n):
    wait_until(lambda: len(report(agent)["timeline"]) >= n, 30, "%d relists" % n, interval=0.25)


def test_busy_node_with_fast_calls_is_healthy():
    """Heavy IO pressure on a node whose calls and relists stay fast (a busy
    batch node): the pressure is listed as worth knowing, the node is not at
    risk: no page for a PLEG that is fine."""
    with FakeCri("diag_healthy", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture("io_pressure"), log_level="info") as agent:
        wait_for_relists(agent, 6)
        rep = report(agent)
        assert rep["status"] == "healthy" and rep["healthy"], describe(rep)
        assert [c["id"] for c in rep["causes"]] == ["node_pressure"], describe(rep)
        assert rep["causes"][0]["severity"] == "info", rep["causes"][0]
        assert rep["summary"].startswith("PLEG is healthy") and "IO pressure" in rep["summary"], rep["summary"]
        print("  " + rep["summary"])


def test_runtime_unavailable():
    rep = scenario_ranks_first("diag_unavailable", "runtime_unavailable")
    assert rep["causes"][0]["severity"] == "critical"


def test_deadlines_on_and_off_are_a_stalling_runtime_not_a_dead_one():
    """Half the ListContainers calls fail DEADLINE_EXCEEDED, good relists between
    them: PLEG is seen every second or two, so the cause is a warning that says
    the runtime stalls on and off, and a single failed relist forecasts nothing."""
    with FakeCri("diag_flaky_deadlines", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture("healthy"), log_level="info") as agent:
        wait_until(lambda: len(report(agent)["timeline"]) >= 8, 30, "eight relists")
        polls = []
        for _ in range(10):
            rep = report(agent)
            assert rep["healthy"], describe(rep)
            polls.append(rep)
            time.sleep(0.5)
        for rep in polls:
            c = check_cause_shape(rep, "runtime_hung")
            assert c["severity"] == "warning" and "on and off" in c["summary"], c
            assert all(x["severity"] != "critical" for x in rep["causes"]), describe(rep)
            # The pods' inspections fail in their filtered lists the same way:
            # a reinspection backlog, named as the runtime's consequence.
            assert rep["causes"][0]["id"] == "runtime_hung", describe(rep)
            for x in rep["causes"]:
                if x["id"] == "reinspect_backlog":
                    assert "see runtime_hung" in x["summary"], x["summary"]
        # A forecast only once a whole window of relists failed in a row
        # (three in a row: one poll in eight at this rate), never for one.
        for rep in polls:
            failed_in_a_row = 0
            for r in reversed([r for r in rep["timeline"] if not r["in_progress"]]):
                if r["error"] is None:
                    break
                failed_in_a_row += 1
            if failed_in_a_row < 3:
                assert rep["forecast"]["seconds_to_unhealthy"] is None, (failed_in_a_row, rep["forecast"])
        print("  " + describe(polls[-1]))


def test_runtime_hung_within_threshold_plus_two_periods():
    with FakeCri("diag_hang", log_level="warn", hold="healthy") as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture("healthy"), log_level="info") as agent:
        wait_until(lambda: len(report(agent)["timeline"]) >= 3, 20, "three relists")
        assert report(agent)["causes"] == [], describe(report(agent))
        fake.phase("hang", hold=True)
        started = time.monotonic()
        budget = HANG + 2 * PERIOD
        rep = wait_top_cause(agent, "runtime_hung", timeout=budget + 10)
        took = time.monotonic() - started
        print("  runtime_hung reported %.2fs after the hang phase began (budget %.1fs)" % (took, budget))
        assert took <= budget, "runtime_hung took %.2fs, more than --hang-threshold + 2 periods (%.1fs)" % (took, budget)
        c = check_cause_shape(rep, "runtime_hung")
        assert c["severity"] == "critical"
        assert any(e["signal"] == "oldest_in_flight_seconds{list_containers}" for e in c["evidence"]), c
        assert rep["healthy"] and rep["status"] == "at_risk", describe(rep)
        fc = rep["forecast"]["seconds_to_unhealthy"]
        assert fc is not None and 170 <= fc <= 180, fc  # minutes before the kubelet's 3m verdict
        check_gauge(agent, "runtime_hung", 0.8)
        fake.release()


def test_runtime_slow():
    scenario_ranks_first("diag_runtime_slow", "runtime_slow")


def test_message_too_large():
    rep = scenario_ranks_first("diag_message_too_large", "message_too_large")
    assert rep["causes"][0]["severity"] == "critical"


def test_message_too_large_warns_before_the_cliff():
    rep = scenario_ranks_first("diag_near_cliff", "message_too_large")
    c = rep["causes"][0]
    assert c["severity"] == "warning", c
    assert any(e["signal"].startswith("list_response_bytes") and e["value"] > 12 * 2**20 for e in c["evidence"]), c
    assert all(t["error"] is None for t in rep["timeline"]), "relists should still succeed"


def test_too_many_containers():
    rep = scenario_ranks_first("diag_too_many_containers", "too_many_containers")
    assert "runtime_slow" not in dict(causes(rep)), describe(rep)


def test_event_storm():
    rep = scenario_ranks_first("diag_event_storm", "event_storm")
    assert rep["events"]["top_pods"], rep["events"]


def test_pod_status_slow():
    rep = scenario_ranks_first("diag_pod_status_slow", "pod_status_slow")
    assert "event_storm" not in dict(causes(rep)), describe(rep)


def test_reinspect_backlog():
    rep = scenario_ranks_first("diag_reinspect_backlog", "reinspect_backlog")
    assert rep["pods"]["pods_to_reinspect"] >= 1, rep["pods"]


def test_node_pressure():
    rep = scenario_ranks_first("diag_node_pressure", "node_pressure", proc="io_pressure")
    assert rep["node_pressure"]["io_some_avg10"] > 25, rep["node_pressure"]
    # The slow runtime is still reported, below the pressure that explains it.
    found = dict(causes(rep))
    assert found.get("runtime_slow", 0) < found["node_pressure"], describe(rep)


def test_mixed_event_storm_on_an_io_starved_node():
    """Both appear; the storm first: it is what each relist measurably spends
    its time on (per-pod inspections, each call fast), the IO pressure a
    contributing condition that does not slow the calls themselves."""
    with FakeCri("diag_event_storm", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture("io_pressure"), log_level="info") as agent:
        def both():
            rep = report(agent)
            ids = [c for c, _ in causes(rep)]
            return rep if "event_storm" in ids and "node_pressure" in ids else None
        rep = wait_until(both, 40, "event_storm and node_pressure both reported", interval=0.25)
        ids = [c for c, _ in causes(rep)]
        print("  " + describe(rep))
        assert ids[0] == "event_storm", describe(rep)
        assert ids.index("event_storm") < ids.index("node_pressure"), ids
        assert rep["causes"][0]["confidence"] >= 0.6
        check_cause_shape(rep, "node_pressure")


def test_no_psi_kernel_gives_nulls():
    with FakeCri("diag_healthy", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture("no_psi"), log_level="info") as agent:
        wait_until(lambda: len(report(agent)["timeline"]) >= 2, 15, "two relists")
        p = report(agent)["node_pressure"]
        assert p["cpu_some_avg10"] is None and p["io_some_avg10"] is None and p["memory_some_avg10"] is None, p
        assert p["load1"] == 0.31 and p["pid_max"] == 32768, p


def test_formats_and_bad_format():
    with FakeCri("diag_healthy", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture("healthy"), log_level="info") as agent:
        wait_until(lambda: len(report(agent)["timeline"]) >= 2, 15, "two relists")
        status, body = agent.get("/diagnose?format=text")
        assert status == 200 and body.startswith("plegscope diagnosis of node worker-3"), body[:200]
        status, body = agent.get("/diagnose?format=html")
        assert status == 200 and "<svg id=\"relist-duration-chart\"" in body, body[:200]
        status, body = agent.get("/diagnose?format=json")
        assert status == 200 and body.lstrip().startswith("{")
        for bad in ("xml", "", "JSON"):
            status, body = agent.get("/diagnose?format=" + bad)
            assert status == 400, (bad, status)
            assert len(body.strip().splitlines()) == 1 and "format" in body, body


if __name__ == "__main__":
    harness.main(globals())
