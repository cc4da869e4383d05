"""Shared helpers of the diagnose suite: the cause ids and report polling."""

import os

import harness

CAUSE_IDS = harness.cause_ids()


def fixture(name):
    """tests/fixtures/proc/<name>, a /proc tree for --proc-path."""
    return os.path.join(harness.source_dir(), "tests", "fixtures", "proc", name)


def report(agent):
    return agent.get_json("/diagnose")


def causes(rep):
    return [(c["id"], c["confidence"]) for c in rep["causes"]]


def describe(rep):
    return "%s: %s; causes %s" % (rep["status"], rep["summary"], causes(rep))


def wait_top_cause(agent, cause, timeout=40, min_confidence=0.6):
    """Polls /diagnose until `cause` ranks first with at least min_confidence; returns that report."""
    last = {}

    def top():
        rep = report(agent)
        last["rep"] = rep
        return rep if rep["causes"] and rep["causes"][0]["id"] == cause and \
            rep["causes"][0]["confidence"] >= min_confidence else None

    try:
        return harness.wait_until(top, timeout, "%s to rank first with confidence >= %.1f" % (cause, min_confidence),
                                  interval=0.25)
    except AssertionError as e:
        raise AssertionError("%s; last report: %s" % (e, describe(last["rep"]) if "rep" in last else "none"))


def check_cause_shape(rep, cause):
    """The §6 promises about one cause: evidence with signal/value/threshold, a remedy, no reboot advice."""
    c = next(c for c in rep["causes"] if c["id"] == cause)
    assert c["severity"] in ("critical", "warning", "info"), c
    assert 0 <= c["confidence"] <= 1, c
    assert c["evidence"], "cause %s has no evidence" % cause
    for e in c["evidence"]:
        assert set(e) == {"signal", "value", "threshold"}, e
    assert "crictl" in c["remedy"] or "/proc/pressure" in c["remedy"], c["remedy"]
    # Never advice to reboot: the word only appears negated ("do not reboot", "never reboot").
    remedy = c["remedy"].lower()
    for at in [i for i in range(len(remedy)) if remedy.startswith("reboot", i)]:
        assert "not" in remedy[max(0, at - 30):at] or "never" in remedy[max(0, at - 30):at], c["remedy"]
    confidences = [x["confidence"] for x in rep["causes"]]
    assert confidences == sorted(confidences, reverse=True), confidences
    assert rep["status"] in ("at_risk", "unhealthy"), rep["status"]
    return c


def check_gauge(agent, cause, at_least):
    """pleg_diagnosis_cause carries every id, and `cause` at or above `at_least`."""
    m = agent.metrics()
    ids = m.label_values("pleg_diagnosis_cause", "cause")
    assert ids == set(CAUSE_IDS), ids
    value = m.get("pleg_diagnosis_cause", cause=cause)
    assert value >= at_least, (cause, value)
