"""A fleet on one Prometheus: 20 simulated nodes (fakecri + plegscope each):
17 healthy, one whose runtime hangs ListContainers, one in an event storm,
one whose runtime goes away. One real Prometheus scrapes them with the
PodMonitor's relabelling (file_sd targets carry
__meta_kubernetes_pod_node_name, the PodMonitor's relabel_configs turn it
into `node`) and the mixin's rules rendered for the agents' short flags; one
real Alertmanager runs alerts/alertmanager.example.yml with its receivers
pointed at a webhook server in this test.

Asserted: exactly the three sick nodes alert (in Prometheus and at the
webhook), each notification names its node and top cause, the hung node's
PLEGAtRisk is inhibited by its PLEGNotHealthy, and the fleet dashboard's
per-node queries return one series per node. Prints what the webhook
received and the series count per node."""
import contextlib
import copy
import json
import os
import shutil
import tempfile
import time

import ecolib
import harness

HEALTHY = ["node-%02d" % i for i in range(1, 18)]
HUNG, STORM, DOWN = "node-hung", "node-storm", "node-down"
NODES = HEALTHY + [HUNG, STORM, DOWN]
SICK = {HUNG: "runtime_hung", STORM: "event_storm", DOWN: "runtime_unavailable"}
CALM_PROC = ecolib.path("tests/fixtures/proc/healthy")
# Agent flags and the same values for the mixin.
AGENT_FLAGS = ["--relist-threshold", "20s", "--hang-threshold", "3s"]
CONFIG = {
    # the recording group at the tests' pace (every minute as shipped)
    "recordingIntervalSeconds": 1,
    "relistThresholdSeconds": 20,
    # Every time constant shrinks with the threshold (180 s -> 20 s), the
    # forecast's horizon too: a 5-minute horizon over a 20 s threshold turns
    # the start-up ramp of a healthy node's relist p99 into a forecast.
    "forecastHorizonSeconds": 30,
    "hangThresholdSeconds": 3,
    "runtimeUnavailableSeconds": 5,
    "atRiskForSeconds": 2,
    "runtimeUnavailableForSeconds": 2,
    "relistDurationHighForSeconds": 5,
    "criErrorsForSeconds": 5,
    "listNearLimitForSeconds": 5,
    "plegscopeDownForSeconds": 5,
    # a channel that keeps overflowing (the storm node), not one burst
    "discardingEventsForSeconds": 5,
}
# The runtime answers for 5 s, then its socket goes away for good.
GOES_DOWN = {
    "name": "goes-down",
    "node": {"pods": 10, "containers_per_pod": 2},
    "runtime": {"name": "containerd", "version": "1.6.20"},
    "defaults": {"latency": {"*": {"fixed": "200us", "jitter": "500us"}}},
    "phases": [{"name": "up", "duration": "5s"}, {"name": "down", "socket": "down"}],
}
SCENARIOS = {HUNG: "hang", STORM: "storm", DOWN: GOES_DOWN}
EXTRA_FLAGS = {STORM: ["--event-channel-capacity", "10"]}


def podmonitor_scrape_config(targets):
    """The PodMonitor in deploy/ as a plain scrape config over file_sd targets."""
    pm = next(d for d in ecolib.load_yaml_all("deploy/podmonitor.yaml") if d["kind"] == "PodMonitor")
    (ep,) = pm["spec"]["podMetricsEndpoints"]
    relabel = [{"source_labels": r["sourceLabels"], "target_label": r["targetLabel"], "action": r["action"]}
               for r in ep["relabelings"]]
    # jobLabel names the pod label whose value becomes the job.
    ds = next(d for d in ecolib.load_yaml_all("deploy/daemonset.yaml") if d["kind"] == "DaemonSet")
    job = ds["spec"]["template"]["metadata"]["labels"][pm["spec"]["jobLabel"]]
    return {"job_name": job, "scrape_interval": "1s", "scrape_timeout": "1s", "metrics_path": ep["path"],
            "relabel_configs": relabel,
            "file_sd": [{"targets": [t], "labels": {"__meta_kubernetes_pod_node_name": n}} for n, t in targets]}


def alertmanager_config(webhook_url):
    """alerts/alertmanager.example.yml, receivers pointed at the webhook, waits shortened."""
    cfg = copy.deepcopy(ecolib.load_yaml("alerts/alertmanager.example.yml"))
    for r in cfg["receivers"]:
        for w in r.get("webhook_configs", []):
            w["url"] = webhook_url + "/" + w["url"].rsplit("/", 1)[1]
    for route in [cfg["route"]] + cfg["route"].get("routes", []):
        route.update({"group_wait": "3s", "group_interval": "5s", "repeat_interval": "1h"})
    return cfg


def start_fleet(stack):
    agents = {}
    for node in NODES:
        fake = stack.enter_context(harness.FakeCri(SCENARIOS.get(node, "steady"), log_level="warn"))
        agents[node] = stack.enter_context(harness.Agent(
            fake.endpoint, ["--node-name", node] + AGENT_FLAGS + EXTRA_FLAGS.get(node, []),
            proc_path=CALM_PROC, log_level="info"))
    return agents


def firing_alerts(notifications):
    """(receiver path, alertname, node, top_cause) of every firing alert the webhook got."""
    out = []
    for path, payload, _ in notifications:
        for a in payload["alerts"]:
            if a["status"] == "firing":
                out.append((path, a["labels"]["alertname"], a["labels"].get("node"),
                            a["annotations"].get("top_cause")))
    return out


def check_dashboard(prom):
    """Every fleet dashboard query with $node = all. Per-node queries (legend
    {{node}}, or a table aggregated by node) answer one series per node (and
    per other label, e.g. operation_type); filtered ones (topk, > 0) never
    answer a node twice, nor do the error panels, which only nodes with
    errors answer. Returns how many queries had to cover every node."""
    with open(ecolib.path("dashboards/pleg-fleet.json")) as f:
        dash = json.load(f)
    values = {"node": ".+", "datasource": "prometheus", "__rate_interval": "5s", "__range": "30s"}
    covering = 0
    for panel in ecolib.iter_panels(dash["panels"]):
        for t in panel.get("targets", []):
            expr = t["expr"]
            r = prom.query(ecolib.substitute(expr, values))
            assert r["status"] == "success", (panel["title"], r)
            result = r["data"]["result"]
            by_other = {}
            for x in result:
                other = tuple(sorted((k, v) for k, v in x["metric"].items() if k != "node"))
                by_other.setdefault(other, []).append(x["metric"].get("node"))
            per_node = "{{node}}" in t.get("legendFormat", "") or (t.get("format") == "table" and "by (node" in expr)
            # Error counters exist only where an error happened (as the
            # kubelet's), and a recorded quantile only where relists completed
            # in its window (none on a hung node: the raw query's NaN): such
            # panels are sparse, never required to cover every node.
            filtered = "topk" in expr or "> 0" in expr or "_errors_total" in expr or ":histogram_quantile_" in expr
            nodes = {n for ns in by_other.values() for n in ns if n is not None}
            print("  %-40s %s: %3d series, %2d nodes%s" % (
                panel["title"], t["refId"], len(result), len(nodes),
                " -> one per node" if per_node and not filtered else ""))
            for other, ns in by_other.items():
                if per_node:
                    assert len(ns) == len(set(ns)), (panel["title"], other, "a node answered twice")
                    if not filtered:
                        assert sorted(ns) == sorted(NODES), (panel["title"], other, sorted(set(NODES) - set(ns)))
            if per_node and not filtered:
                covering += 1
            if "topk(15" in expr and "pleg_event_lag" in expr:
                # only nodes whose pods changed have an event lag
                assert 1 <= len(nodes) == len(result) <= 15, (panel["title"], nodes)
            elif "topk(15" in expr:
                assert len(nodes) == 15 == len(result), (panel["title"], nodes)
    # Every per-node panel but the sparse ones (errors, the recorded relist
    # p99) covers every node.
    assert covering >= 6, covering
    return covering


def test_fleet_on_one_prometheus():
    promtool = harness.require_tool("promtool")
    rules_dir = tempfile.mkdtemp(prefix="plegscope-fleet-")
    try:
        ecolib.render_mixin(rules_dir, CONFIG)
        r = ecolib.run([promtool, "test", "rules", "alerts/tests/plegscope_test.yml"], cwd=rules_dir)
        assert r.returncode == 0, r.stdout
        with contextlib.ExitStack() as stack:
            t0 = time.monotonic()
            agents = start_fleet(stack)
            print("fleet of %d nodes started in %.1fs" % (len(agents), time.monotonic() - t0))
            hook = stack.enter_context(ecolib.WebhookReceiver())
            am = stack.enter_context(ecolib.Alertmanager(alertmanager_config(hook.url)))
            prom = stack.enter_context(ecolib.Prometheus(
                [], rule_files=[os.path.join(rules_dir, "alerts", "plegscope.rules.yml")],
                scrape_config=podmonitor_scrape_config([(n, "127.0.0.1:%d" % a.port) for n, a in agents.items()]),
                alertmanager=am.address))
            harness.wait_until(lambda: len(prom.targets_up()) == len(NODES), 60, "all targets up", interval=0.5)
            seen_in_prometheus = set()
            reasons = {}

            def done():
                for a in prom.alerts():
                    seen_in_prometheus.add((a["labels"]["alertname"], a["labels"].get("node")))
                    reasons[(a["labels"]["alertname"], a["labels"].get("node"))] = (
                        a["labels"].get("reason"), a.get("state"), a.get("value"))
                got = firing_alerts(hook.notifications())
                names = {(n, node) for _, n, node, _ in got}
                suppressed = [a for a in am.alerts() if a["labels"]["alertname"] == "PLEGAtRisk"
                              and a["labels"].get("node") == HUNG and a["status"]["state"] == "suppressed"]
                return (("PLEGNotHealthy", HUNG) in names and ("PLEGNotHealthy", DOWN) in names
                        and ("CRIRuntimeUnavailable", DOWN) in names and any(node == STORM for _, node in names)
                        and suppressed and suppressed)

            suppressed = harness.wait_until(done, 180, "the sick nodes' notifications and the inhibition", interval=1)
            elapsed = time.monotonic() - t0
            got = firing_alerts(hook.notifications())
            print("webhook received %d notifications (%d firing alerts) within %.0fs of the fleet starting:" % (
                len(hook.notifications()), len(got), elapsed))
            for path, payload, at in hook.notifications():
                print("  t=%5.1fs POST %-8s %s" % (at - t0, path, json.dumps([
                    {"status": a["status"], "alertname": a["labels"]["alertname"], "node": a["labels"].get("node"),
                     "severity": a["labels"].get("severity"), "reason": a["labels"].get("reason"),
                     "top_cause": a["annotations"].get("top_cause")} for a in payload["alerts"]])))
            # exactly the sick nodes alert, in Prometheus and at the webhook.
            assert {node for _, node in seen_in_prometheus} == set(SICK), sorted(reasons.items())
            assert {node for _, _, node, _ in got} == set(SICK), got
            # every notification names its node and a top cause; each sick node's cause is the right one.
            for path, name, node, cause in got:
                assert node and cause, (path, name, node, cause)
            for node, cause in SICK.items():
                assert any(n == node and c == cause for _, _, n, c in got), (node, cause, got)
            # critical pages, warnings are tickets.
            assert all(p == "/page" for p, n, _, _ in got if n in ("PLEGNotHealthy", "CRIRuntimeUnavailable"))
            (inhibited,) = suppressed
            print("Alertmanager: PLEGAtRisk{node=%s} %s, inhibited by %s" % (
                HUNG, inhibited["status"]["state"], inhibited["status"]["inhibitedBy"]))
            source = [a for a in am.alerts() if a["fingerprint"] in inhibited["status"]["inhibitedBy"]]
            assert any(a["labels"]["alertname"] == "PLEGNotHealthy" and a["labels"]["node"] == HUNG for a in source), source

            print("fleet dashboard queries ($node = all):")
            print("per-node queries answering one series for each of the %d nodes: %d" % (
                len(NODES), check_dashboard(prom)))
            counts = prom.query('count by (node) ({job="plegscope"})')["data"]["result"]
            per_node = {x["metric"]["node"]: int(x["value"][1]) for x in counts}
            print("Prometheus series per node: %s" % ", ".join("%s=%d" % kv for kv in sorted(per_node.items())))
            print("total %d series for %d nodes" % (sum(per_node.values()), len(per_node)))
            assert set(per_node) == set(NODES), per_node
    finally:
        shutil.rmtree(rules_dir, ignore_errors=True)


if __name__ == "__main__":
    harness.main(globals())
