"""Every dashboard query against a real Prometheus that has scraped
plegscope + fakecri (churn scenario) for a while: all must parse, and all must
return data except the few named below that a node without failures leaves
empty. Also: `promtool check metrics` on a live /metrics, and every rule in
alerts/ evaluates without error against the live data.

The agent reads node pressure from a fixture (tests/fixtures/proc/io_pressure:
IO PSI 62%, a load of 3.7 per CPU) instead of the test host, so the diagnoser
reports one cause, node_pressure, at a fixed 0.45 (pressure, but runtime calls
are fast) whatever else runs on the host: the pleg_diagnosis_cause panels have
a known answer and are checked like every other panel."""
import json
import re
import subprocess
import time

import ecolib
import harness

NODE = "eco-node"
SCENARIO = "churn"
PROC_FIXTURE = ecolib.path("tests/fixtures/proc/io_pressure")
# (dashboard title, panel title, refId): may be empty on this scenario, and why;
# and, if given, a witness query: the panel may only be empty while the
# witness, run at the same instant, is empty too.
# Error counters appear with the first error, as the kubelet's do (README,
# "The bill per node"): a panel of errors that never happened is empty while
# its counter does not exist.
MAY_BE_EMPTY = {
    ("PLEG node", "Relist errors and pods to reinspect", "A"): (
        "no relist failed on churn", 'pleg_relist_errors_total{node="$node"}'),
    ("PLEG node", "CRI error rate by operation", "A"): (
        "no CRI call failed on churn", 'pleg_runtime_operations_errors_total{node="$node"}'),
    ("PLEG node", "CRI error rate by operation", "B"): (
        "no CRI call failed on churn", 'pleg_runtime_operations_errors_total{node="$node"}'),
    ("PLEG fleet", "CRI errors by node and operation", "A"): (
        "no CRI call failed on churn", 'pleg_runtime_operations_errors_total{node="$node"}'),
    ("PLEG node", "Event lag p50 / p99 by event type", "C"): (
        "no invalid runtime timestamp on churn", 'pleg_event_lag_invalid_total{node="$node"}'),
    ("PLEG fleet", "Nodes per cause (confidence > 0.5)", "A"): (
        "no cause that confident on churn (node_pressure 0.45)", 'pleg_diagnosis_cause{node="$node"} > 0.5'),
    # The io_pressure proc fixture holds no process directories and
    # no diskstats, so the host gauges that need them are absent (never a
    # made-up 0); tests/diagnose/test_host.py reads them on the host trees.
    ("PLEG node", "Blocked runtime helpers and zombies", "B"): (
        "no processes readable in the proc fixture", 'pleg_host_zombie_processes{node="$node"}'),
    ("PLEG node", "Runtime root's disk", "A"): (
        "no diskstats in the proc fixture", 'pleg_host_runtime_disk_latency_seconds{node="$node"}'),
    ("PLEG node", "Runtime root's disk", "B"): (
        "no diskstats in the proc fixture", 'pleg_host_runtime_disk_utilization{node="$node"}'),
}
VALUES = {"node": NODE, "datasource": "prometheus", "__rate_interval": "5s", "__interval": "2s",
          "__range": "30s"}
WARMUP_MIN_SECONDS = 12  # enough 1 s scrapes for [5s] rates and [$__range]


def all_queries():
    out = []
    for f in ecolib.dashboard_files():
        with open(f) as fh:
            d = json.load(fh)
        for title, ref, expr in ecolib.dashboard_queries(d):
            out.append((d["title"], title, ref, expr))
    return out


def run_all(prom, values, at):
    """{key: (query, answer)} for every dashboard query, all evaluated at time `at`."""
    results = {}
    for dash, panel, ref, expr in all_queries():
        q = ecolib.substitute(expr, values)
        results[(dash, panel, ref)] = (q, prom.query(q, at=at))
    return results


def empty_allowed(prom, values, at, key):
    """Whether `key` may return nothing: allow-listed, and its witness is empty at `at` too."""
    if key not in MAY_BE_EMPTY:
        return False
    witness = MAY_BE_EMPTY[key][1]
    if witness is None:
        return True
    r = prom.query(ecolib.substitute(witness, values), at=at)
    return r.get("status") == "success" and not r["data"]["result"]


def test_dashboard_queries_against_real_prometheus():
    flags = ["--node-name", NODE]
    with harness.FakeCri(SCENARIO) as fake, harness.Agent(fake.endpoint, flags, proc_path=PROC_FIXTURE) as agent:
        # promtool check metrics on the live exposition.
        promtool = harness.require_tool("promtool")
        live = agent.metrics()
        text = live.text
        r = subprocess.run([promtool, "check", "metrics"], input=text, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        print("promtool check metrics on live /metrics (%d lines): exit %d %s" % (
            len(text.splitlines()), r.returncode, r.stdout.strip() or "(no findings)"))
        assert r.returncode == 0 and not r.stdout.strip(), r.stdout
        # DESIGN §4: pleg_diagnosis_cause is present for every cause id.
        causes = live.label_values("pleg_diagnosis_cause", "cause")
        assert causes == set(ecolib.CAUSE_IDS), "pleg_diagnosis_cause causes: %s" % sorted(causes)
        assert live.type_of("pleg_diagnosis_cause") == "gauge", live.type_of("pleg_diagnosis_cause")

        with ecolib.Prometheus(["127.0.0.1:%d" % agent.port], scrape_interval="1s",
                               rule_files=[ecolib.path(f) for f in ecolib.rule_files()], rule_interval="1s",
                               static_labels={"node": NODE}) as prom:
            values = dict(VALUES, instance="127.0.0.1:%d" % agent.port)
            t0 = time.monotonic()
            harness.wait_until(lambda: prom.targets_up(), 20, "the plegscope target up", interval=0.2)

            def check(at):
                """All queries at `at`, and which of the empty ones may be empty."""
                res = run_all(prom, values, at)
                empty = {k for k, (q, r) in res.items()
                         if r.get("status") == "success" and not r["data"]["result"]}
                return res, empty, {k for k in empty if empty_allowed(prom, values, at, k)}

            def settled():
                if time.monotonic() - t0 < WARMUP_MIN_SECONDS:
                    return False
                if not agent.proc.alive():  # not an AssertionError: wait_until would keep polling
                    raise RuntimeError("plegscope exited with %s" % agent.proc.returncode)
                res, empty, allowed = check(time.time())
                return (res, empty, allowed) if empty <= allowed else False

            try:
                results, _, allowed = harness.wait_until(settled, 90, "every dashboard query to return data",
                                                         interval=1)
            except AssertionError:
                results, _, allowed = check(time.time())
            scraped = time.monotonic() - t0

            failed, empty, with_data, allowed_empty = [], [], [], []
            for key, (q, r) in results.items():
                if r.get("status") != "success":
                    failed.append((key, q, r.get("error")))
                elif r["data"]["result"]:
                    with_data.append(key)
                elif key in allowed:
                    allowed_empty.append(key)
                else:
                    empty.append((key, q))
            for key, q, err in failed:
                print("QUERY ERROR %s: %s\n    %s" % (key, err, q))
            for key, q in empty:
                why = " (allow-listed, but its witness has data)" if key in MAY_BE_EMPTY else ""
                print("EMPTY%s %s\n    %s" % (why, key, q))
            for key in allowed_empty:
                print("empty (allowed: %s) %s" % (MAY_BE_EMPTY[key][0], key))
            cause_keys = [k for k, (q, r) in results.items() if "pleg_diagnosis_cause" in q]
            for key in cause_keys:
                q, r = results[key]
                got = sorted(r["data"]["result"] if r.get("status") == "success" else [],
                             key=lambda x: -float(x["value"][1]))
                print("cause query %s: %d series, highest %s" % (key, len(got), ", ".join(
                    "%s=%s" % (x["metric"].get("cause", "?"), x["value"][1]) for x in got[:2]) or "-"))
            print("dashboard queries after %.0fs of scraping: %d run, %d parsed, %d returned data, "
                  "%d empty (allowed %d, not allowed %d); cause queries %d, with data %d" % (
                      scraped, len(results), len(results) - len(failed), len(with_data),
                      len(allowed_empty) + len(empty), len(allowed_empty), len(empty),
                      len(cause_keys), sum(k in with_data for k in cause_keys)))
            # the template variables' label_values() queries, as Grafana runs them.
            nvars = 0
            for f in ecolib.dashboard_files():
                with open(f) as fh:
                    d = json.load(fh)
                for v in d["templating"]["list"]:
                    if v["type"] != "query":
                        continue
                    m = re.fullmatch(r"label_values\((.+), (\w+)\)", v["query"]["query"])
                    assert m, v["query"]
                    match = ecolib.substitute(m.group(1), values)
                    got = prom.api("label/%s/values" % m.group(2), **{"match[]": match})["data"]
                    assert values[v["name"]] in got, (d["title"], v["name"], got)
                    nvars += 1
            print("template variable queries: %d, all offer the scraped node/agent" % nvars)
            unknown = set(MAY_BE_EMPTY) - set(results)
            assert not unknown, "allow-list names queries that do not exist: %s" % unknown

            # the rules evaluate cleanly on the same data.
            groups = harness.wait_until(
                lambda: (lambda g: g if all(r.get("lastEvaluation", "").startswith("2") and
                                            not r["lastEvaluation"].startswith("0001")
                                            for x in g for r in x["rules"]) else None)(
                    prom.api("rules")["data"]["groups"]), 30, "every rule evaluated once")
            bad = [(r["name"], r.get("lastError")) for g in groups for r in g["rules"]
                   if r.get("health") != "ok"]
            print("rules loaded in Prometheus: %d, unhealthy: %d" % (
                sum(len(g["rules"]) for g in groups), len(bad)))
            assert not bad, bad
            assert not failed, "%d dashboard queries failed to run" % len(failed)
            assert not empty, "%d dashboard queries returned no data" % len(empty)


if __name__ == "__main__":
    harness.main(globals())
