"""The diagnoser when relists are slow and few complete. Each scenario asserts
the cause named first and the time from the condition's start to that
verdict, against the relist bounds (which do not grow with relist length):

- runtime_hung: --hang-threshold + 2 relist periods;
- runtime_slow, pod_status_slow, event_storm, message_too_large: 20 s, or the
  end of the second relist that started after the condition, whichever is
  sooner (including when the first relist has not finished).

Every report polled on the way must be consistent: at_risk and unhealthy carry
a cause, and "nothing to do" is never said while relists take several periods.
"""

import contextlib
import datetime
import time

import harness
from harness import Agent, FakeCri, wait_until

from diag_common import causes, check_cause_shape, describe, fixture, report

HANG = 3.0
PERIOD = 1.0
FLAGS = ["--hang-threshold", "3s", "--relist-period", "1s", "--node-name", "worker-3"]
BOUND = 20.0


def epoch(rfc3339):
    return datetime.datetime.strptime(rfc3339.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()


def check_consistent(rep):
    if rep["status"] in ("at_risk", "unhealthy"):
        assert rep["causes"], "%s without a cause: %s" % (rep["status"], rep["summary"])
    else:
        assert rep["status"] == "healthy" and not rep["causes"], describe(rep)
    late = rep["relist"]["events_late_by_seconds"]
    if late is not None:
        assert "nothing to do" not in rep["summary"], rep["summary"]
        assert "late" in rep["summary"], rep["summary"]


def second_relist_end(rep, since):
    """Wall time at which the second relist that started after `since` ended, or None."""
    done = [e for e in rep["timeline"] if not e.get("in_progress") and epoch(e["start"]) >= since]
    if len(done) < 2:
        return None
    e = done[1]
    return epoch(e["start"]) + e["duration_seconds"]


def wait_named(agent, cause, since, bound, min_confidence=0.6, rank=0, timeout=None):
    """Polls /diagnose until `cause` is at position `rank` with min_confidence;
    returns (report, seconds since the condition started, the bound that applied)."""
    seen = {}

    def named():
        rep = report(agent)
        check_consistent(rep)
        seen["rep"] = rep
        ids = [c for c, _ in causes(rep)]
        if len(ids) > rank and ids[rank] == cause and rep["causes"][rank]["confidence"] >= min_confidence:
            return rep
        return None

    try:
        rep = wait_until(named, timeout or bound + 15, "%s named (rank %d)" % (cause, rank), interval=0.2)
    except AssertionError as e:
        raise AssertionError("%s; last report: %s" % (e, describe(seen["rep"]) if "rep" in seen else "none"))
    took = time.time() - since
    applied = bound
    end2 = second_relist_end(rep, since)
    if end2 is not None and bound == BOUND:
        applied = min(bound, end2 - since + 1.0)  # one poll and one relist of slack for the sampling
        applied = max(applied, 3.0)
    print("  %s: %s at %.2f confidence after %.1fs (bound %.1fs)" % (
        cause, "first" if rank == 0 else "rank %d" % rank, rep["causes"][rank]["confidence"], took, applied))
    assert took <= applied, "%s named after %.1fs, bound %.1fs: %s" % (cause, took, applied, describe(rep))
    return rep, took


@contextlib.contextmanager
def settled_node(scenario, hold, proc="healthy"):
    """fakecri held in phase `hold` and an agent that has done three relists there."""
    with FakeCri(scenario, log_level="warn", hold=hold) as fake, \
            Agent(fake.endpoint, FLAGS, proc_path=fixture(proc), log_level="info") as agent:
        wait_until(lambda: len(report(agent)["timeline"]) >= 3, 30, "three relists")
        yield fake, agent


def start(fake, phase):
    """Enters `phase` (held) and returns the wall time the condition started."""
    fake.phase(phase, hold=True)
    return time.time()


def test_slow_lists_first_relist_never_finishes():
    """Lists of ~3 s and 20 pods: the first relist runs for minutes."""
    with FakeCri("diag_slow_lists_first_relist", log_level="warn") as fake:
        since = time.time()
        with Agent(fake.endpoint, FLAGS, proc_path=fixture("healthy"), log_level="info") as agent:
            rep, _ = wait_named(agent, "runtime_slow", since, BOUND)
            check_cause_shape(rep, "runtime_slow")
            assert not [e for e in rep["timeline"] if not e.get("in_progress") and e["error"] is None], \
                "no relist should have completed yet: %s" % rep["timeline"]
            # Later, the relist still running: the same verdict, now with how late events are.
            rep = wait_until(lambda: (lambda r: r if r["relist"]["events_late_by_seconds"] else None)(report(agent)),
                             20, "the lateness of the running relist")
            check_consistent(rep)
            assert rep["causes"][0]["id"] == "runtime_slow", describe(rep)
            print("  " + rep["summary"])


def test_storm_whose_relists_last_several_periods():
    with settled_node("diag_storm_long_relists", "healthy") as (fake, agent):
        assert report(agent)["causes"] == [], describe(report(agent))
        since = start(fake, "storm")
        rep, _ = wait_named(agent, "event_storm", since, BOUND)
        check_cause_shape(rep, "event_storm")
        # Relists now take several periods: the report says how late events are.
        rep = wait_until(lambda: (lambda r: r if r["relist"]["events_late_by_seconds"] else None)(report(agent)),
                         40, "late relists reported")
        check_consistent(rep)
        assert rep["causes"][0]["id"] == "event_storm", describe(rep)
        assert rep["relist"]["events_late_by_seconds"] >= 2 * PERIOD, rep["relist"]
        status, text = agent.get("/diagnose?format=text")
        assert status == 200
        print("  text report of the storm:\n" + "\n".join("    " + line for line in text.splitlines()[:24]))


def test_slow_lists_with_io_pressure_names_both():
    with settled_node("diag_slow_lists_io_pressure", "healthy", "io_pressure") as (fake, agent):
        since = start(fake, "slow_lists")
        rep, _ = wait_named(agent, "runtime_slow", since, BOUND, min_confidence=0.3, rank=1)
        assert rep["causes"][0]["id"] == "node_pressure", describe(rep)
        assert rep["causes"][0]["confidence"] >= 0.6, describe(rep)
        check_cause_shape(rep, "node_pressure")
        check_cause_shape(rep, "runtime_slow")


def test_hang_of_list_podsandbox():
    with settled_node("diag_hang_sandboxes", "healthy") as (fake, agent):
        since = start(fake, "hang")
        rep, _ = wait_named(agent, "runtime_hung", since, HANG + 2 * PERIOD, min_confidence=0.8)
        c = check_cause_shape(rep, "runtime_hung")
        assert any(e["signal"] == "oldest_in_flight_seconds{list_podsandbox}" for e in c["evidence"]), c
        fake.release()


def test_healthy_node_with_relists_of_three_periods():
    with settled_node("diag_late_relists", "healthy") as (fake, agent):
        assert report(agent)["causes"] == [], describe(report(agent))
        since = start(fake, "late")

        def late():
            rep = report(agent)
            check_consistent(rep)
            return rep if rep["relist"]["events_late_by_seconds"] and rep["causes"] else None

        rep = wait_until(late, 40, "late relists with a cause", interval=0.25)
        took = time.time() - since
        c = rep["causes"][0]
        print("  %s (%s, %.2f) after %.1fs: %s" % (c["id"], c["severity"], c["confidence"], took, rep["summary"]))
        assert rep["healthy"] is True
        assert c["severity"] == "warning", c
        assert c["id"] in ("pod_status_slow", "event_storm"), describe(rep)
        assert took <= BOUND, took
        assert "nothing to do" not in rep["summary"]


def failed_relists_since(rep, since):
    return [e for e in rep["timeline"] if e["error"] and epoch(e["start"]) >= since - 0.5]


def test_unavailable_within_two_failed_relists():
    with settled_node("diag_unavailable", "healthy") as (fake, agent):
        since = start(fake, "down")
        rep, _ = wait_named(agent, "runtime_unavailable", since, BOUND)
        failed = failed_relists_since(rep, since)
        print("  named after %d failed relist(s)" % len(failed))
        assert 1 <= len(failed) <= 2, rep["timeline"]
        assert rep["causes"][0]["severity"] == "critical"


def test_message_too_large_within_the_bound():
    with settled_node("diag_message_too_large", "fits") as (fake, agent):
        since = start(fake, "too_large")
        rep, _ = wait_named(agent, "message_too_large", since, BOUND)
        assert len(failed_relists_since(rep, since)) <= 2, rep["timeline"]


if __name__ == "__main__":
    harness.main(globals())
