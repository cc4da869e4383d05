"""The report's contract: docs/report.schema.json lists every cause id of
the agent's one cause list and every advice class, docs/report.md documents
every top-level field, and the validator every test runs reports through
(harness.check_report) rejects reports that break the contract. The reports
themselves are validated where the suite produces them: every
Agent.get_json("/diagnose"), and harness.report_json for
`plegscope diagnose --output json` and the kubectl plugin."""
import copy
import json
import os

import ecolib
import harness
import schema_check


def schema():
    with open(ecolib.path("docs", "report.schema.json")) as f:
        return json.load(f)


def minimal_report():
    """A healthy report as the agent writes it with every source off."""
    lag = {"count": 0, "p50_seconds": 0, "p99_seconds": 0, "invalid": 0}
    return {
        "schema_version": 1, "node": "worker-3", "generated_at": "2026-11-22T05:00:00.123Z", "healthy": True,
        "health_message": "", "status": "healthy", "summary": "PLEG is healthy.", "causes": [], "blind": None,
        "relist": {"period_seconds": 1, "threshold_seconds": 180, "seconds_since_last_seen": 0.4,
                   "in_progress_seconds": None, "duration_p50_seconds": 0.01, "duration_p99_seconds": 0.02,
                   "events_late_by_seconds": None, "stretched_period_seconds": None, "stretch_reason": None,
                   "mode": "generic", "evented_fallback_reason": None},
        "runtime": {"endpoint": "unix:///run/containerd/containerd.sock", "name": "containerd", "version": "1.7.13",
                    "operations": {}, "slowest_pods": []},
        "pods": {"sandboxes": 0, "containers": 0, "running_containers": 0, "exited_containers": 0,
                 "pods_to_reinspect": 0},
        "events": {"per_relist_p99": 0, "by_type": {}, "discarded_total": 0, "top_pods": []},
        "node_pressure": {"cpu_some_avg10": None, "io_some_avg10": None, "memory_some_avg10": None, "load1": None,
                          "pids": None, "pid_max": None},
        "timeline": [], "forecast": {"seconds_to_unhealthy": None},
        "event_lag": {"p50_seconds": 0, "p99_seconds": 0, "events": 0, "invalid": 0, "worst_pods": [],
                      "evented": {"delivery": lag, "cache_update": dict(lag)}},
        "journal": [], "journal_source": {"reachable": False, "path": "", "error": "no journal", "kubelet_unit": "",
                                          "runtime_units": []},
        "kubelet": {"endpoint": "", "reachable": False, "error": "off", "version": None, "model": "generic",
                    "model_release": "1.37", "model_source": "assumed", "tls_mode": "", "last_seen_age_seconds": None, "relist_p99_seconds": None,
                    "relists_per_minute": None, "ready_message": None, "ready_error": None},
        "runtime_metrics": {"endpoint": "", "reachable": False, "error": "off", "in_flight": []},
        "host": {"reachable": False, "error": "off",
                 "processes": {"helpers": 0, "blocked": [], "zombies": 0, "zombie_parents": [], "shims": [],
                               "shims_total": 0, "error": None},
                 "pid_limits": [], "runtime_disk": {"device": "", "mount": "", "latency_ms": None,
                                                    "utilization": None, "error": None}},
        "node_condition": {"enabled": False, "status": None, "reason": None, "message": None, "last_write": None,
                           "reachable": False, "error": None, "writes": 0, "events": 0, "failures": 0},
    }


def test_cause_ids_and_advice_are_the_agents():
    s = schema()
    assert s["$defs"]["cause_id"]["enum"] == harness.cause_ids()
    assert s["$defs"]["advice"]["enum"] == ["none", "fix-pod", "restart-kubelet", "restart-runtime", "fix-storage",
                                            "reboot", "replace"]
    assert s["properties"]["schema_version"] == {"const": 1}
    assert schema_check.ignored(s) == [], "keywords the validator would not check: %s" % schema_check.ignored(s)


def test_every_top_level_field_is_documented():
    doc = open(ecolib.path("docs", "report.md")).read()
    for field in schema()["properties"]:
        assert "| `%s` |" % field in doc, "docs/report.md has no row for %s" % field


def test_a_conforming_report_passes_and_broken_ones_fail():
    good = minimal_report()
    assert harness.check_report(good) is good
    cause = {"id": "runtime_hung", "severity": "critical", "confidence": 0.95, "summary": "ListContainers hung.",
             "evidence": [{"signal": "oldest_in_flight_seconds{list_containers}", "value": 184.2, "threshold": 10}],
             "remedy": "Confirm: ...", "advice": "restart-runtime"}
    good["causes"] = [cause]
    harness.check_report(good)
    blind = copy.deepcopy(good)
    blind.update(status="at_risk", blind={"reason": "permission_denied", "endpoint": "unix:///run/containerd/containerd.sock",
                                          "fix": "fix the agent: run it as spc_t"})
    harness.check_report(blind)
    breaks = [
        (lambda r: r.pop("blind"), "blind is required"),
        (lambda r: r.update(blind={"reason": "connection_refused", "endpoint": "", "fix": "x"}),
         "'connection_refused' is not one of"),
        (lambda r: r.pop("schema_version"), "schema_version is required"),
        (lambda r: r.update(schema_version=2), "is not 1"),
        (lambda r: r.update(status="sick"), "'sick' is not one of"),
        (lambda r: r["causes"][0].update(advice="drain"), "'drain' is not one of"),
        (lambda r: r["causes"][0].pop("advice"), "advice is required"),
        (lambda r: r["causes"][0].update(id="runtime_hang"), "'runtime_hang' is not one of"),
        (lambda r: r["causes"][0].update(confidence=1.5), "above 1"),
        (lambda r: r["relist"].update(seconds_since_last_seen="0.4"), "is not number or null"),
        (lambda r: r.update(generated_at="yesterday"), "does not match"),
        (lambda r: r["node_condition"].update(status="Unknown"), "'Unknown' is not one of"),
        (lambda r: r["pods"].update(containers=-1), "below 0"),
    ]
    for change, words in breaks:
        broken = copy.deepcopy(good)
        change(broken)
        try:
            harness.check_report(broken)
        except AssertionError as e:
            assert words in str(e), (words, str(e))
        else:
            raise AssertionError("a report with %s passed" % words)


def test_the_agents_own_report_conforms():
    """One report of the real agent, beside a healthy fake runtime; the other
    tests validate theirs through the harness."""
    with harness.FakeCri("diag_healthy", log_level="warn") as fake, \
            harness.Agent(fake.endpoint, ["--node-name", "worker-3"], log_level="warn") as agent:
        rep = harness.wait_until(lambda: (lambda r: r if r["timeline"] else None)(agent.get_json("/diagnose")),
                                 20, "a relist")
        print("  schema_version %d, %d top-level fields, valid" % (rep["schema_version"], len(rep)))


if __name__ == "__main__":
    harness.main(globals())
