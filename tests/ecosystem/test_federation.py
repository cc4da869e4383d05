"""One fleet, two clusters, one global view, on real servers: clusters a and
b each have nodes worker-1 and worker-2 (fakecri + plegscope each), scraped
by the cluster's own Prometheus (external_labels {cluster: a} / {cluster: b}).
A third, global Prometheus federates both (/federate, honor_labels) and
evaluates the mixin (rules rendered for the agents' short flags); a real
Alertmanager runs alerts/alertmanager.example.yml with its receivers pointed
at a webhook server in this test.

a/worker-1's runtime hangs ListContainers; b/worker-1, same name, is healthy.
Asserted: exactly one PLEGNotHealthy, with cluster="a" and node="worker-1",
in the global Prometheus and at the webhook, its top_cause runtime_hung read
from cluster a; nothing fires or is inhibited for cluster b; the fleet
dashboard rendered with showMultiCluster counts four nodes and answers one
series per cluster and node."""
import contextlib
import json
import os
import shutil
import tempfile
import time

import ecolib
import harness
from test_fleet import AGENT_FLAGS, CALM_PROC, CONFIG, alertmanager_config, podmonitor_scrape_config

CLUSTERS = {"a": {"worker-1": "hang", "worker-2": "steady"},
            "b": {"worker-1": "steady", "worker-2": "steady"}}


def federate_scrape_config(prometheuses):
    return {"job_name": "federate", "honor_labels": True, "metrics_path": "/federate",
            "scrape_interval": "1s", "scrape_timeout": "1s",
            "params": {"match[]": ['{job="plegscope"}']},
            "static_configs": [{"targets": [p.address for p in prometheuses]}]}


def firing(notifications):
    """(receiver path, alertname, cluster, node, top_cause) of every firing alert the webhook got."""
    return [(path, a["labels"]["alertname"], a["labels"].get("cluster"), a["labels"].get("node"),
             a["annotations"].get("top_cause"))
            for path, payload, _ in notifications for a in payload["alerts"] if a["status"] == "firing"]


def check_multi_cluster_dashboard(prom, rendered):
    """The showMultiCluster fleet dashboard, $cluster and $node = all, on the
    global Prometheus: per-node queries answer each (cluster, node) once."""
    with open(os.path.join(rendered, "dashboards", "pleg-fleet.json")) as f:
        dash = json.load(f)
    values = {"cluster": ".+", "node": ".+", "datasource": "prometheus", "__rate_interval": "5s", "__range": "30s"}
    everyone = sorted((c, n) for c, nodes in CLUSTERS.items() for n in nodes)
    covering = 0
    for panel in ecolib.iter_panels(dash["panels"]):
        for t in panel.get("targets", []):
            r = prom.query(ecolib.substitute(t["expr"], values))
            assert r["status"] == "success", (panel["title"], r)
            result = r["data"]["result"]
            if panel["title"] == "Nodes observed":
                assert [x["value"][1] for x in result] == [str(len(everyone))], result
            if "{{cluster}}/{{node}}" not in t.get("legendFormat", ""):
                continue
            by_other = {}
            for x in result:
                other = tuple(sorted((k, v) for k, v in x["metric"].items() if k not in ("cluster", "node")))
                by_other.setdefault(other, []).append((x["metric"].get("cluster"), x["metric"].get("node")))
            for other, keys in by_other.items():
                assert len(keys) == len(set(keys)), (panel["title"], other, keys)
                # (a recorded quantile exists only where relists completed: not on the hung node)
                if "topk" not in t["expr"] and "> 0" not in t["expr"] and ":histogram_quantile_" not in t["expr"]:
                    assert sorted(keys) == everyone, (panel["title"], other, keys)
            covering += 1
            print("  %-40s %s: %d series" % (panel["title"], t["refId"], len(result)))
    assert covering >= 5, covering
    return covering


def test_two_clusters_behind_a_global_prometheus():
    rendered = tempfile.mkdtemp(prefix="plegscope-federation-")
    try:
        ecolib.render_mixin(rendered, dict(CONFIG, showMultiCluster=True))
        with contextlib.ExitStack() as stack:
            t0 = time.monotonic()
            locals_ = []
            for cluster, nodes in CLUSTERS.items():
                targets = []
                for node, scenario in nodes.items():
                    fake = stack.enter_context(harness.FakeCri(scenario, log_level="warn"))
                    agent = stack.enter_context(harness.Agent(fake.endpoint, ["--node-name", node] + AGENT_FLAGS,
                                                              proc_path=CALM_PROC, log_level="info"))
                    targets.append((node, "127.0.0.1:%d" % agent.port))
                locals_.append(stack.enter_context(ecolib.Prometheus(
                    [], scrape_config=podmonitor_scrape_config(targets), external_labels={"cluster": cluster})))
            hook = stack.enter_context(ecolib.WebhookReceiver())
            am = stack.enter_context(ecolib.Alertmanager(alertmanager_config(hook.url)))
            glob = stack.enter_context(ecolib.Prometheus(
                [], rule_files=[os.path.join(rendered, "alerts", "plegscope.rules.yml")],
                scrape_config=federate_scrape_config(locals_), alertmanager=am.address))
            print("2 clusters x 2 nodes, 3 Prometheus servers and an Alertmanager up in %.1fs"
                  % (time.monotonic() - t0))

            def federated():
                r = glob.query('count by (cluster, node) (pleg_healthy{job="plegscope"})')["data"]["result"]
                return len(r) == 4
            harness.wait_until(federated, 60, "the global Prometheus to federate 4 nodes", interval=0.5)

            def paged():
                return [f for f in firing(hook.notifications()) if f[1] == "PLEGNotHealthy"]
            harness.wait_until(paged, 180, "PLEGNotHealthy for a/worker-1 at the webhook", interval=1)
            elapsed = time.monotonic() - t0
            for path, payload, at in hook.notifications():
                print("  t=%5.1fs POST %-8s %s" % (at - t0, path, json.dumps([
                    {"status": a["status"], "alertname": a["labels"]["alertname"],
                     "cluster": a["labels"].get("cluster"), "node": a["labels"].get("node"),
                     "top_cause": a["annotations"].get("top_cause")} for a in payload["alerts"]])))
            pages = paged()
            assert {(c, n) for _, _, c, n, _ in pages} == {("a", "worker-1")}, pages
            assert all(p == "/page" and cause == "runtime_hung" for p, _, _, _, cause in pages), pages
            in_prometheus = [a for a in glob.alerts() if a["labels"]["alertname"] == "PLEGNotHealthy"]
            assert [(a["labels"]["cluster"], a["labels"]["node"], a["state"]) for a in in_prometheus] == \
                [("a", "worker-1", "firing")], in_prometheus
            assert in_prometheus[0]["annotations"]["top_cause"] == "runtime_hung", in_prometheus
            # cluster b, same node names, healthy: nothing fires, nothing is inhibited.
            b_alerts = [a for a in glob.alerts() if a["labels"].get("cluster") != "a"]
            assert not b_alerts, b_alerts
            b_am = [a for a in am.alerts() if a["labels"].get("cluster") != "a" or a["status"]["inhibitedBy"]
                    and a["labels"].get("node") != "worker-1"]
            assert not b_am, b_am
            assert not [f for f in firing(hook.notifications()) if f[2] != "a"], hook.notifications()
            print("PLEGNotHealthy{cluster=a, node=worker-1} paged within %.0fs, top_cause runtime_hung; "
                  "cluster b: no alert" % elapsed)
            print("multi-cluster fleet dashboard ($cluster, $node = all) on the global Prometheus:")
            print("per-node queries answering one series per cluster and node: %d"
                  % check_multi_cluster_dashboard(glob, rendered))
    finally:
        shutil.rmtree(rendered, ignore_errors=True)


if __name__ == "__main__":
    harness.main(globals())
