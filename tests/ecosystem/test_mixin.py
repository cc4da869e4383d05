"""mixin/ is the single source of rules, their promtool tests, dashboards and
PrometheusRules: the committed files are what scripts/mixin renders; with
overridden _config values the rules, dashboards and promtool tests follow
(and the tests still pass); the headline alert reads as operators expect."""
import glob
import json
import os
import re
import shutil
import tempfile

import ecolib
import harness

# Every knob the issue names, moved off its default.
OVERRIDES = {
    "plegscopeSelector": 'job="pleg-agent", env="eu-1"',
    "clusterLabel": "k8s_cluster",
    "additionalAggregationLabels": ["region"],
    "kubeletSelector": 'job="kubelet-x"',
    "nodeLabel": "kubernetes_node",
    "relistThresholdSeconds": 30,
    "hangThresholdSeconds": 3,
    "kubeletRelistThresholdSeconds": 60,
    "forecastHorizonSeconds": 120,
    "relistDurationHighSeconds": 4,
    "criErrorRatio": 0.1,
    "runtimeUnavailableSeconds": 12,
    "listMessageLimitBytes": 4194304,
    "listMessageWarnRatio": 0.5,
    "atRiskForSeconds": 5,
    "relistDurationHighForSeconds": 20,
    "criErrorsForSeconds": 30,
    "runtimeUnavailableForSeconds": 5,
    "listNearLimitForSeconds": 15,
    "plegscopeDownForSeconds": 20,
    "excludedNodesSelector": 'label_node_pool="batch"',
    "version": "9.8.7",
    "fleetWideCauseShare": 0.5,
    "fleetWideCauseMinNodes": 2,
    "fleetWideCauseMinConfidence": 0.8,
    "fleetWideCauseForSeconds": 30,
}


def alerts_by_name(rules_doc):
    return {r["alert"]: r for g in rules_doc["groups"] for r in g["rules"] if "alert" in r}


def load(out, rel):
    import yaml
    with open(os.path.join(out, rel)) as f:
        return yaml.safe_load(f)


def promtool_rules(out):
    """promtool check rules + test rules on a rendered tree; returns the test output."""
    promtool = harness.require_tool("promtool")
    r = ecolib.run([promtool, "check", "rules", "alerts/plegscope.rules.yml", "alerts/kubelet.rules.yml"], cwd=out)
    assert r.returncode == 0, r.stdout
    tests = sorted(os.path.relpath(t, out) for t in glob.glob(os.path.join(out, "alerts/tests/*.yml")))
    assert len(tests) == 2, tests
    r = ecolib.run([promtool, "test", "rules"] + tests, cwd=out)
    assert r.returncode == 0, r.stdout
    return r.stdout


def test_committed_files_are_rendered():
    r = ecolib.run([ecolib.path("scripts/mixin"), "--check"])
    print(r.stdout)
    assert r.returncode == 0, "committed files differ from mixin/ (run scripts/mixin):\n" + r.stdout


def test_check_catches_a_hand_edit():
    with tempfile.TemporaryDirectory() as out:
        ecolib.render_mixin(out)
        rules = os.path.join(out, "alerts/plegscope.rules.yml")
        text = open(rules).read()
        with open(rules, "w") as f:
            f.write(text.replace("> 180", "> 181", 1))
        r = ecolib.run([ecolib.path("scripts/mixin"), "--check", "--out", out])
        assert r.returncode == 1 and "+" in r.stdout, r.stdout


def test_headline_alert_is_plain():
    rules = ecolib.load_yaml("alerts/plegscope.rules.yml")
    expr = alerts_by_name(rules)["PLEGNotHealthy"]["expr"]
    print(expr)
    # The headline stays `time() - pleg_last_seen_seconds`, compared with the
    # threshold the agent exports (600 s in evented mode), _config's where an
    # older agent exports none.
    assert ('time() - pleg_last_seen_seconds{job="plegscope"} > (pleg_relist_threshold_seconds{job="plegscope"} '
            'or pleg_last_seen_seconds{job="plegscope"} * 0 + 180)') in expr
    # the node label comes from the scrape: no instance fallback anywhere.
    for rf in ecolib.rule_files():
        text = open(ecolib.path(rf)).read()
        assert '"instance"' not in text and 'node=""' not in text, rf


def test_overridden_config_flows_into_rules_dashboards_and_tests():
    with tempfile.TemporaryDirectory() as out:
        ecolib.render_mixin(out, OVERRIDES)
        print(promtool_rules(out))
        alerts = alerts_by_name(load(out, "alerts/plegscope.rules.yml"))
        sel = OVERRIDES["plegscopeSelector"]
        nh = alerts["PLEGNotHealthy"]
        assert ("time() - pleg_last_seen_seconds{%s} > (pleg_relist_threshold_seconds{%s} "
                "or pleg_last_seen_seconds{%s} * 0 + 30)" % (sel, sel, sel)) in nh["expr"], nh["expr"]
        assert "[30s]" in nh["expr"] and "offset 30s" in nh["expr"], nh["expr"]
        assert "{{ else }}30s{{ end }}" in nh["annotations"]["description"], nh["annotations"]
        assert "$labels.kubernetes_node" in nh["annotations"]["summary"]
        ar = alerts["PLEGAtRisk"]
        assert ") > 3," in ar["expr"] and "by (k8s_cluster, region, kubernetes_node)" in ar["expr"] and ar["for"] == "5s", ar
        assert "$labels.k8s_cluster $labels.region $labels.kubernetes_node" in ar["annotations"]["top_cause"], ar
        fw = alerts["PLEGFleetWideCause"]
        assert "count by (k8s_cluster, region, cause)" in fw["expr"] and "> 0.5" in fw["expr"] and ">= 2" in fw["expr"], fw
        assert "> 0.8" in fw["expr"] and fw["for"] == "30s", fw
        assert alerts["CRIOperationErrors"]["expr"].rstrip().endswith("> 0.1")
        assert "> 0.5 * 4194304" in alerts["CRIListNearMessageLimit"]["expr"]
        assert 'kube_node_labels{job="kube-state-metrics", label_node_pool="batch"}' in alerts["PlegscopeDown"]["expr"]
        assert "/blob/v9.8.7/docs/runbook.md#plegscopedown" in alerts["PlegscopeDown"]["annotations"]["runbook_url"]
        kubelet = alerts_by_name(load(out, "alerts/kubelet.rules.yml"))
        assert '{job="kubelet-x"} > 0) > 60' in kubelet["KubeletPLEGNotHealthy"]["expr"]
        # every selector in every rule is the overridden one.
        for name, a in alerts.items():
            for m in re.findall(r"\b(pleg_[a-z_]+|up)\{([^}]*)\}", a["expr"]):
                assert m[1].startswith(sel), (name, m)
        # the promtool tests were rendered for the new values too.
        tests = load(out, "alerts/tests/plegscope_test.yml")
        names = [tc["name"] for tc in tests["tests"]]
        assert any("(30s)" in n for n in names) and any("past 3s" in n for n in names), names
        series = " ".join(s["series"] for tc in tests["tests"] for s in tc["input_series"])
        assert "kubernetes_node=" in series and 'env="eu-1"' in series and "k8s_cluster=" in series and "region=" in series
        # dashboards query the overridden selector and node label.
        with open(os.path.join(out, "dashboards/pleg-fleet.json")) as f:
            fleet = json.load(f)
        exprs = [e for _, _, e in ecolib.dashboard_queries(fleet)]
        # (a query of recorded series only, level:metric:operations, has no job to select)
        assert all(sel in e for e in exprs if re.search(r"(?<![\w:])pleg_", e)), exprs
        assert any("by (kubernetes_node" in e for e in exprs)
        print("overridden _config: rules, promtool tests (%d) and dashboards follow" % len(names))


GOLDEN = ecolib.path("tests/ecosystem/golden")


def without_cluster(text):
    """The rendered rules with the cluster label taken out of every
    aggregation, join and annotation query: what they were before it."""
    text = re.sub(r"\b(by|on) \(cluster, ", r"\1 (", text)
    return text.replace("cluster=%q, ", "").replace("$labels.cluster ", "")


def test_single_cluster_output_adds_only_the_cluster_label():
    """The default render against the one from before multi-cluster
    (tests/ecosystem/golden/): rules differ only by `cluster` in their
    aggregations, joins and queries, plus the fleet-veto alert; dashboards
    (showMultiCluster off) not at all."""
    import yaml
    added = {"PLEGFleetWideCause"}
    added |= {"CRIRuntimeStatusDown", "CRIRuntimeNotReady"}  # the runtime's Status, after the golden
    added |= {"PlegscopeDaemonSetSchedulesNoPod"}  # the install's own failure, after the golden
    added |= {"PlegscopeRepairWithheldFleetWide"}  # the repair advice's fleet-share guard, after the golden
    for rf in ecolib.rule_files():
        now = open(ecolib.path(rf)).read()
        golden = open(os.path.join(GOLDEN, os.path.basename(rf))).read()
        assert now != golden
        # every aggregation and join keeps the cluster
        assert not re.search(r"\b(by|on) \((?!cluster\b)", now), re.findall(r".*\b(?:by|on) \((?!cluster\b).*", now)
        want = {r.get("alert") or r["record"] + r.get("labels", {}).get("quantile", ""): r
                for g in yaml.safe_load(golden)["groups"] for r in g["rules"]}
        got = {r.get("alert") or r["record"] + r.get("labels", {}).get("quantile", ""): r
               for g in yaml.safe_load(without_cluster(now))["groups"] for r in g["rules"]}
        assert set(got) - set(want) <= added and set(want) <= set(got), (rf, set(got) ^ set(want))
        for name, rule in want.items():
            assert got[name] == rule, (rf, name, rule, got[name])
        print("%s: %d rules equal to golden but for the cluster label, new: %s"
              % (rf, len(want), sorted(set(got) - set(want))))
    for name in ("pleg-fleet.json", "pleg-node.json"):
        with open(ecolib.path("dashboards", name)) as a, open(os.path.join(GOLDEN, name)) as b:
            assert a.read() == b.read(), "dashboards/%s changed with showMultiCluster off" % name


def test_show_multi_cluster_scopes_every_dashboard_query():
    with tempfile.TemporaryDirectory() as out:
        ecolib.render_mixin(out, {"showMultiCluster": True})
        for name, matcher in (("pleg-fleet.json", 'cluster=~"$cluster"'), ("pleg-node.json", 'cluster="$cluster"')):
            with open(os.path.join(out, "dashboards", name)) as f:
                dash = json.load(f)
            variables = [v["name"] for v in dash["templating"]["list"]]
            assert variables[:3] == ["datasource", "cluster", "node"], variables
            node_var = dash["templating"]["list"][2]
            assert matcher in node_var["query"]["query"], node_var
            exprs = [e for _, _, e in ecolib.dashboard_queries(dash)]
            unscoped = [e for e in exprs if "pleg_" in e and matcher not in e]
            assert not unscoped, (name, unscoped)
            # aggregations that keep the node keep its cluster too
            merged = [e for e in exprs if re.search(r"\b(by|on) \(node\b", e)]
            assert not merged, (name, merged)
            print("%s: %d queries scoped by %s" % (name, len(exprs), matcher))
        with open(os.path.join(out, "dashboards", "pleg-fleet.json")) as f:
            legends = [t.get("legendFormat", "") for p in ecolib.iter_panels(json.load(f)["panels"]) for t in p.get("targets", [])]
        assert "{{cluster}}/{{node}}" in legends, legends


def test_manifests_carry_the_same_groups():
    pr = {d["metadata"]["name"]: d for f in ("deploy/prometheusrule.yaml", "deploy/kubelet-prometheusrule.yaml")
          for d in ecolib.load_yaml_all(f)}
    assert pr["plegscope"]["spec"]["groups"] == ecolib.load_yaml("alerts/plegscope.rules.yml")["groups"]
    assert pr["plegscope-kubelet"]["spec"]["groups"] == ecolib.load_yaml("alerts/kubelet.rules.yml")["groups"]


def test_installs_with_jsonnet_bundler():
    """mixin/jsonnetfile.json is a jsonnet-bundler manifest, and the mixin
    evaluates from where `jb install github.com/plegscope/plegscope/mixin`
    puts it (vendor/github.com/plegscope/plegscope/mixin, and the legacy
    vendor/mixin link): no import reaches outside mixin/."""
    with open(ecolib.path("mixin/jsonnetfile.json")) as f:
        manifest = json.load(f)
    assert manifest["version"] == 1 and manifest["dependencies"] == [], manifest
    jsonnet = harness.require_tool("jsonnet")
    with tempfile.TemporaryDirectory() as project:
        vendored = os.path.join(project, "vendor", "github.com", "plegscope", "plegscope", "mixin")
        shutil.copytree(ecolib.path("mixin"), vendored)
        os.symlink(os.path.join("github.com", "plegscope", "plegscope", "mixin"), os.path.join(project, "vendor", "mixin"))
        with open(os.path.join(project, "main.jsonnet"), "w") as f:
            f.write("local p = (import 'github.com/plegscope/plegscope/mixin/mixin.libsonnet')"
                    " + { _config+:: { relistThresholdSeconds: 60 } };\n"
                    "{ alerts: std.length(p.prometheusAlerts.groups), dashboards: std.objectFields(p.grafanaDashboards),"
                    " legacy: std.length((import 'mixin/mixin.libsonnet').prometheusAlerts.groups) }\n")
        r = ecolib.run([jsonnet, "-J", "vendor", "main.jsonnet"], cwd=project)
        assert r.returncode == 0, r.stdout
        got = json.loads(r.stdout)
        assert got["alerts"] >= 2 and got["legacy"] == got["alerts"], got
        assert got["dashboards"] == ["pleg-fleet.json", "pleg-node.json"], got


if __name__ == "__main__":
    harness.main(globals())
