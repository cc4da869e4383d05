"""promtool check rules + test rules on alerts/, and what the issue asks of
every alert: severity, summary, description naming node and value,
runbook_url to an existing runbook section, a unit test that sees it both
silent and firing; recording rules named level:metric:operations; only
metrics the agent (DESIGN §4) or the kubelet exports."""
import glob
import os
import re

import ecolib
import harness

# The runbook of the release the rules ship with (CMake's project version),
# not of a branch that moves on.
RUNBOOK_BASE = "https://github.com/plegscope/plegscope/blob/v%s/docs/runbook.md#" % re.search(
    r"project\(plegscope VERSION (\S+)", open(ecolib.path("CMakeLists.txt")).read()).group(1)
# value-free alerts: the value of PlegscopeDown is up (0) or a count, of
# PlegscopeCannotReachRuntime 1 (its reason is the label), of
# PlegscopeKubeletUnreadable pleg_kubelet_up (0).
NO_VALUE_IN_DESCRIPTION = {"PlegscopeDown", "PlegscopeCannotReachRuntime", "PlegscopeKubeletUnreadable",
                           "PlegscopeConditionStale"}
# Labels of one agent pod or scrape target: an alert that kept them would
# resolve and reopen when the pod is replaced.
TARGET_LABELS = {"instance", "job", "pod", "namespace", "container", "endpoint", "service"}
# Alerts about the install rather than a node, keyed by (cluster, namespace,
# daemonset) from kube-state-metrics: namespace and daemonset name the
# DaemonSet object, which outlives its pods.
DAEMONSET_ALERTS = {"PlegscopeDaemonSetSchedulesNoPod"}
# Alerts about a whole cluster's agents, keyed by cluster alone: no node is
# to blame when the fleet-share guard holds repair back everywhere.
CLUSTER_ALERTS = {"PlegscopeRepairWithheldFleetWide"}


def test_promtool_check_rules():
    promtool = harness.require_tool("promtool")
    r = ecolib.run([promtool, "check", "rules"] + ecolib.rule_files())
    print(r.stdout)
    assert r.returncode == 0, r.stdout
    assert "SUCCESS" in r.stdout


def test_promtool_test_rules():
    promtool = harness.require_tool("promtool")
    tests = sorted(glob.glob(ecolib.path("alerts/tests/*.yml")))
    assert tests, "no alerts/tests/*.yml"
    r = ecolib.run([promtool, "test", "rules"] + [os.path.relpath(t, ecolib.ROOT) for t in tests])
    print(r.stdout)
    assert r.returncode == 0, r.stdout
    print("promtool test rules: %d files, %d test groups, %d alert checks: SUCCESS" % (
        len(tests), sum(len(ecolib.load_yaml(t)["tests"]) for t in tests),
        sum(len(tc.get("alert_rule_test", [])) for t in tests for tc in ecolib.load_yaml(t)["tests"])))


def test_every_alert_has_labels_annotations_and_runbook():
    anchors = ecolib.runbook_anchors()
    names = set()
    for rf in ecolib.rule_files():
        for a in ecolib.alerts_in(rf):
            name = a["alert"]
            assert name not in names, "duplicate alert " + name
            names.add(name)
            assert a.get("labels", {}).get("severity") in ("critical", "warning"), name
            ann = a.get("annotations", {})
            for key in ("summary", "description", "runbook_url"):
                assert ann.get(key), "%s: no %s" % (name, key)
            if name in DAEMONSET_ALERTS:
                assert "$labels.namespace" in ann["description"] and "$labels.daemonset" in ann["description"], name
            elif name in CLUSTER_ALERTS:
                assert "$labels.cluster" in ann["description"], name + ": description does not name the cluster"
            else:
                assert "$labels.node" in ann["description"], name + ": description does not name the node"
            if name not in NO_VALUE_IN_DESCRIPTION:
                assert "$value" in ann["description"], name + ": description does not give the value"
            url = ann["runbook_url"]
            assert url.startswith(RUNBOOK_BASE), url
            anchor = url[len(RUNBOOK_BASE):]
            assert anchor == ecolib.github_slug(name), (name, anchor)
            assert anchor in anchors, "%s: docs/runbook.md has no section #%s" % (name, anchor)
    for want in ("PLEGNotHealthy", "PLEGAtRisk", "PLEGRelistDurationHigh", "PLEGDiscardingEvents",
                 "CRIOperationErrors", "CRIRuntimeUnavailable", "CRIListNearMessageLimit",
                 "PlegscopeDown"):
        assert want in names, want + " missing"
    print("%d alerts checked" % len(names))


def test_every_alert_tested_silent_and_firing():
    seen = {}
    for t in glob.glob(ecolib.path("alerts/tests/*.yml")):
        for tc in ecolib.load_yaml(t)["tests"]:
            for art in tc.get("alert_rule_test", []):
                s = seen.setdefault(art["alertname"], set())
                s.add("firing" if art.get("exp_alerts") else "silent")
                for exp in art.get("exp_alerts") or []:
                    if art["alertname"] in DAEMONSET_ALERTS:
                        assert {"namespace", "daemonset"} <= set(exp.get("exp_labels", {})), art["alertname"]
                        kept = (TARGET_LABELS - {"namespace"}) & set(exp["exp_labels"])
                        assert not kept, "%s keeps the target's labels %s" % (art["alertname"], kept)
                        assert exp.get("exp_annotations"), art["alertname"] + ": annotations not checked"
                        continue
                    if art["alertname"] in CLUSTER_ALERTS:
                        assert set(exp.get("exp_labels", {})) <= {"cluster", "severity"}, art["alertname"]
                        assert exp.get("exp_annotations"), art["alertname"] + ": annotations not checked"
                        continue
                    assert "node" in exp.get("exp_labels", {}), art["alertname"]
                    kept = TARGET_LABELS & set(exp["exp_labels"])
                    assert not kept, "%s keeps the target's labels %s" % (art["alertname"], kept)
                    assert exp.get("exp_annotations"), art["alertname"] + ": annotations not checked"
    for rf in ecolib.rule_files():
        for a in ecolib.alerts_in(rf):
            assert seen.get(a["alert"]) == {"firing", "silent"}, \
                "%s: tested %s" % (a["alert"], sorted(seen.get(a["alert"], [])))


def keyed(series, cluster):
    """An input series with a cluster and a pod label added: one pod name
    per scrape target (its instance), as the PodMonitor's relabelling gives."""
    name, _, rest = series.partition("{")
    labels = rest.rstrip("}")
    instance = re.search(r'instance="([^"]*)"', labels)
    extra = 'pod="agent-%s"' % re.sub(r"[^a-z0-9]", "-", instance.group(1) if instance else "none")
    if "cluster=" not in labels:
        extra += ', cluster="%s"' % cluster
    return "%s{%s}" % (name, ", ".join(l for l in (labels.strip(), extra) if l))


def test_every_alert_keyed_by_cluster_and_node():
    """Every promtool test again with a cluster and a pod label on every
    input series: each alert must come out with the cluster, the node and no
    pod, instance or job, i.e. keyed by (cluster, node) whatever labels the
    scrape adds."""
    promtool = harness.require_tool("promtool")
    import tempfile
    import yaml
    checked = set()
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for t in sorted(glob.glob(ecolib.path("alerts/tests/*.yml"))):
            doc = ecolib.load_yaml(t)
            doc["rule_files"] = [os.path.normpath(os.path.join(os.path.dirname(t), rf)) for rf in doc["rule_files"]]
            for tc in doc["tests"]:
                for s in tc["input_series"]:
                    s["series"] = keyed(s["series"], "c1")
                tc.pop("promql_expr_test", None)
                for art in tc.get("alert_rule_test", []):
                    for exp in art.get("exp_alerts") or []:
                        exp["exp_labels"].setdefault("cluster", "c1")
                        checked.add(art["alertname"])
            out = os.path.join(tmp, os.path.basename(t))
            with open(out, "w") as f:
                yaml.safe_dump(doc, f, sort_keys=False)
            files.append(out)
        r = ecolib.run([promtool, "test", "rules"] + files)
        assert r.returncode == 0, r.stdout[-6000:]
    every = {a["alert"] for rf in ecolib.rule_files() for a in ecolib.alerts_in(rf)}
    assert checked == every, every ^ checked
    print("%d alerts fire keyed by (cluster, node) with a pod and cluster label on every series" % len(checked))


def test_recording_rule_names():
    pat = re.compile(r"^[a-z_]+:[a-z_]+:[a-z0-9_]+$")
    n = 0
    for rf in ecolib.rule_files():
        for r in ecolib.records_in(rf):
            assert pat.match(r["record"]), r["record"]
            level = r["record"].split(":")[0]
            assert level.startswith("node"), r["record"] + ": not a per-node level"
            n += 1
    print("%d recording rules" % n)


def test_only_known_metrics():
    known_records = {r["record"] for rf in ecolib.rule_files() for r in ecolib.records_in(rf)}
    for a in ecolib.alerts_in("alerts/plegscope.rules.yml") + ecolib.records_in("alerts/plegscope.rules.yml"):
        # a metric name, not the middle of a recorded series' name (level:metric:operations)
        for m in re.findall(r"(?<![\w:])(pleg(?:scope)?_[a-z_]+)\b(?!:)", a["expr"]):
            base = re.sub(r"_(bucket|count|sum)$", "", m)
            assert base in ecolib.AGENT_METRICS or m in known_records, "unknown metric " + m
    for a in ecolib.alerts_in("alerts/kubelet.rules.yml"):
        assert "pleg_" not in a["expr"].replace("kubelet_pleg_", ""), a["alert"]


if __name__ == "__main__":
    harness.main(globals())
