"""alerts/alertmanager.example.yml: amtool check-config, routing (critical
pages, PLEGAtRisk pages too: it comes minutes before PLEGNotHealthy),
grouping by cluster and node, and its inhibitions on a real Alertmanager: a
node's plegscope warnings while its PLEGNotHealthy fires, a node's pages
while PLEGFleetWideCause covers it; never another cluster's node of the same
name, a node the fleet alert does not name, or another mixin's alerts."""
import ecolib
import harness

CFG = "alerts/alertmanager.example.yml"


def test_amtool_check_config():
    r = ecolib.run([harness.require_tool("amtool"), "check-config", CFG])
    print(r.stdout)
    assert r.returncode == 0 and "SUCCESS" in r.stdout, r.stdout


def route(*labels):
    amtool = harness.require_tool("amtool")
    r = ecolib.run([amtool, "config", "routes", "test", "--config.file=" + CFG] + list(labels))
    assert r.returncode == 0, r.stdout
    return [l for l in r.stdout.splitlines() if l and not l.startswith("Warning")][-1].strip()


def test_routes_by_severity():
    assert route("alertname=PLEGNotHealthy", "severity=critical", "node=w1") == "pager"
    assert route("alertname=CRIRuntimeUnavailable", "severity=critical", "cluster=a", "node=w1") == "pager"
    assert route("alertname=PLEGRelistDurationHigh", "severity=warning", "node=w1") == "tickets"
    assert route("alertname=Other") == "default"


def test_at_risk_reaches_someone_within_its_lead_time():
    """PLEGAtRisk warns minutes before PLEGNotHealthy: a ticket queue read the
    next morning is too late, so it pages, in the node's page group, and its
    first notification waits no longer than a page's."""
    for name in ("PLEGAtRisk", "KubeletPLEGAtRisk"):
        assert route("alertname=" + name, "severity=warning", "cluster=a", "node=w1") == "pager", name
    cfg = ecolib.load_yaml(CFG)
    (at_risk,) = [r for r in cfg["route"]["routes"] if any("PLEGAtRisk" in m for m in r.get("matchers", []))]
    (page,) = [r for r in cfg["route"]["routes"] if r.get("matchers") == ['severity = "critical"']]
    assert at_risk["group_by"] == page["group_by"] and at_risk["group_wait"] == page["group_wait"], (at_risk, page)


def test_fleet_wide_cause_pages_once_per_cluster_and_cause():
    assert route("alertname=PLEGFleetWideCause", "severity=critical", "cluster=a", "node=w1",
                 "cause=runtime_hung") == "pager"
    cfg = ecolib.load_yaml(CFG)
    (fleet,) = [r for r in cfg["route"]["routes"] if r.get("matchers") == ['alertname = "PLEGFleetWideCause"']]
    assert "node" not in fleet["group_by"] and {"cluster", "cause"} <= set(fleet["group_by"]), fleet


def test_grouped_by_cluster_and_node():
    cfg = ecolib.load_yaml(CFG)
    assert {"cluster", "node"} <= set(cfg["route"]["group_by"])
    for r in cfg["route"]["routes"]:
        by = r.get("group_by", cfg["route"]["group_by"])
        assert "cluster" in by and ("node" in by or "cause" in by), r


# kubernetes-mixin's alerts that say the same as PLEGNotHealthy for one node.
KUBERNETES_MIXIN_OVERLAP = {"KubeletPlegDurationHigh", "KubeNodeNotReady"}


def test_inhibitions_are_per_cluster_and_node_and_target_plegscope_only():
    """Plegscope's own alerts, and only while PLEGNotHealthy fires the two of
    kubernetes-mixin it makes redundant."""
    cfg = ecolib.load_yaml(CFG)
    ours = {a["alert"] for rf in ecolib.rule_files() for a in ecolib.alerts_in(rf)}
    mixin_targets = set()
    import re
    for rule in cfg["inhibit_rules"]:
        assert rule["equal"] == ["cluster", "node"], rule
        (target,) = rule["target_matchers"]
        m = re.fullmatch(r'alertname =~? "([^"]+)"', target)
        assert m, rule
        names = set(m.group(1).split("|"))
        if names & KUBERNETES_MIXIN_OVERLAP:
            assert rule["source_matchers"] == ['alertname = "PLEGNotHealthy"'], rule
            mixin_targets |= names & KUBERNETES_MIXIN_OVERLAP
        assert names <= ours | KUBERNETES_MIXIN_OVERLAP, names - ours
    assert mixin_targets == KUBERNETES_MIXIN_OVERLAP


def test_inhibitions_on_a_real_alertmanager():
    """Alerts posted as Prometheus posts them, state read back from the
    Alertmanager's API: what is suppressed and by what."""
    cfg = ecolib.load_yaml(CFG)
    for r in cfg["receivers"]:
        for w in r.get("webhook_configs", []):
            w["url"] = "http://127.0.0.1:9/"  # never reached within the test
    def alert(name, severity, cluster, node, **extra):
        return {"labels": dict({"alertname": name, "severity": severity, "cluster": cluster, "node": node}, **extra),
                "annotations": {"summary": name}}
    posted = [
        alert("PLEGNotHealthy", "critical", "a", "worker-3"),
        alert("PLEGAtRisk", "warning", "a", "worker-3", reason="cri_call_hung"),           # inhibited
        alert("PLEGAtRisk", "warning", "b", "worker-3", reason="cri_call_hung"),           # other cluster
        alert("NodeFilesystemAlmostFull", "warning", "a", "worker-3"),                      # another mixin's
        alert("PLEGFleetWideCause", "critical", "c", "worker-1", cause="runtime_hung"),
        alert("PLEGNotHealthy", "critical", "c", "worker-1"),                               # inhibited
        alert("PLEGNotHealthy", "critical", "c", "worker-2"),                               # not in the fleet alert
        alert("PLEGNotHealthy", "critical", "d", "worker-1"),                               # other cluster
        alert("KubeletPlegDurationHigh", "warning", "a", "worker-3"),                       # kubernetes-mixin's, inhibited
        alert("KubeNodeNotReady", "warning", "a", "worker-3"),                              # kubernetes-mixin's, inhibited
        alert("KubeNodeNotReady", "warning", "b", "worker-3"),                              # other cluster
        alert("CRIRuntimeUnavailable", "critical", "e", "worker-1"),
        alert("PlegscopeCannotReachRuntime", "warning", "e", "worker-1", reason="connection_refused"),  # inhibited
        alert("PlegscopeCannotReachRuntime", "warning", "e", "worker-2", reason="permission_denied"),   # agent blind
    ]
    expect_inhibited = {("PLEGAtRisk", "a", "worker-3"): ("PLEGNotHealthy", "a", "worker-3"),
                        ("PLEGNotHealthy", "c", "worker-1"): ("PLEGFleetWideCause", "c", "worker-1"),
                        ("KubeletPlegDurationHigh", "a", "worker-3"): ("PLEGNotHealthy", "a", "worker-3"),
                        ("KubeNodeNotReady", "a", "worker-3"): ("PLEGNotHealthy", "a", "worker-3"),
                        ("PlegscopeCannotReachRuntime", "e", "worker-1"): ("CRIRuntimeUnavailable", "e", "worker-1")}
    key = lambda a: (a["labels"]["alertname"], a["labels"]["cluster"], a["labels"]["node"])
    with ecolib.Alertmanager(cfg) as am:
        am.post_alerts(posted)

        def settled():
            got = am.alerts()
            if len(got) != len(posted):
                return None
            suppressed = {key(a) for a in got if a["status"]["state"] == "suppressed"}
            return got if suppressed == set(expect_inhibited) else None
        got = harness.wait_until(settled, 30, "the Alertmanager to suppress exactly the inhibited alerts", interval=0.2)
        by_fp = {a["fingerprint"]: a for a in got}
        for a in sorted(got, key=key):
            sources = [key(by_fp[f]) for f in a["status"]["inhibitedBy"]]
            print("%-26s cluster=%s node=%-9s %-10s %s" % (key(a) + (a["status"]["state"], sources)))
            if key(a) in expect_inhibited:
                assert sources == [expect_inhibited[key(a)]], (key(a), sources)
            else:
                assert a["status"]["state"] == "active" and not sources, a


if __name__ == "__main__":
    harness.main(globals())
