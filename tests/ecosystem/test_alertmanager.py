"""alerts/alertmanager.example.yml: amtool check-config, routing by severity,
grouping by node, and a node's warnings inhibited while its PLEGNotHealthy fires."""
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
    assert route("alertname=CRIRuntimeUnavailable", "severity=critical", "node=w1") == "pager"
    assert route("alertname=PLEGAtRisk", "severity=warning", "node=w1") == "tickets"
    assert route("alertname=Other") == "default"


def test_grouped_by_node():
    cfg = ecolib.load_yaml(CFG)
    assert "node" in cfg["route"]["group_by"]
    for r in cfg["route"]["routes"]:
        assert "node" in r.get("group_by", cfg["route"]["group_by"])


def test_inhibits_warnings_while_not_healthy():
    cfg = ecolib.load_yaml(CFG)
    found = False
    for rule in cfg.get("inhibit_rules", []):
        src = " ".join(rule.get("source_matchers", []))
        tgt = " ".join(rule.get("target_matchers", []))
        if "PLEGNotHealthy" in src and 'severity = "warning"' in tgt and rule.get("equal") == ["node"]:
            found = True
    assert found, "no inhibit rule: PLEGNotHealthy -> warnings, equal: [node]"


if __name__ == "__main__":
    harness.main(globals())
