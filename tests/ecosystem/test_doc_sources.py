"""The numbers and lists the docs quote come from one source each, and this
test fails when they drift apart:
- docs/install.md's cost table, docs/benchmarks.md's performance table and
  the DaemonSet's resources comment are written by scripts/doc-figures from
  bench/results/latest.json (and the memory request must cover the measured
  peak);
- docs/metrics.md's tables name exactly the families a running agent
  exports, with every reader on (the kubelet's and the runtime's pages, the
  host scan, evented mode);
- alerts/README.md lists exactly the alerts of the rule files, each with the
  severity the rule gives it."""

import os
import re
import subprocess
import tempfile

import harness
import yaml
from harness import Agent, FakeCri, wait_until
from fake_kubelet import FakeKubelet, FakeRuntimeMetrics

ROOT = harness.source_dir()


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def test_cost_tables_and_daemonset_comment_are_the_bench_results():
    run = subprocess.run([os.path.join(ROOT, "scripts", "doc-figures"), "--check"], capture_output=True, text=True)
    assert run.returncode == 0, "docs differ from bench/results/latest.json:\n%s%s" % (run.stdout, run.stderr)


def readme_metric_names():
    section = read(os.path.join("docs", "metrics.md"))
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return names


def exported_families(text):
    names = set()
    for line in text.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            names.add(m.group(1))
    return names


# Families that appear with their first occurrence (a failed relist, an
# invalid runtime timestamp, an unreachable socket, an on-demand pod relist
# after a container died): a healthy agent, as in the test below, does not
# export them (tests/integration/test_series_budget.py, test_metrics.py and
# test_kubelet_model.py see them appear). A CRI call's error series too: the
# agent makes no call a healthy runtime refuses (it lists unary, as the
# kubelet does, unless the kubelet streams).
ONLY_WHEN_IT_HAPPENS = {"pleg_relist_errors_total", "pleg_event_lag_invalid_total", "pleg_runtime_unreachable",
                        "pleg_pod_relist_duration_seconds", "pleg_runtime_operations_errors_total",
                        # only with --node-condition (tests/diagnose/test_node_condition.py reads it)
                        "pleg_node_repair_advice"}


def test_metrics_table_names_every_family_the_agent_exports():
    with tempfile.TemporaryDirectory() as d, FakeKubelet(d) as kubelet, FakeRuntimeMetrics() as page, \
            FakeCri("evented", log_level="warn") as fake:
        token = os.path.join(d, "token")
        with open(token, "w") as f:
            f.write("t0k3n\n")
        flags = ["--relist-period", "200ms", "--evented-pleg", "true",
                 "--kubelet-endpoint", kubelet.url, "--kubelet-ca-file", kubelet.ca_file, "--kubelet-token-file", token,
                 "--runtime-metrics-endpoint", page.url]
        # The host scan on this machine's own /proc and /sys, as in the DaemonSet.
        with Agent(fake.endpoint, flags + ["--runtime-root", "/"], log_level="warn") as agent:
            def every_reader_in():
                text = agent.get("/metrics")[1]
                m = harness.Metrics(text)
                ready = m.get("pleg_kubelet_up") == 1 and m.get("pleg_runtime_metrics_up") == 1 and \
                    "pleg_host_zombie_processes" in text and \
                    "pleg_host_runtime_disk_latency_seconds" in text and m.get("pleg_evented_mode") == 1
                return text if ready else None
            text = wait_until(every_reader_in, 40, "every reader's families on /metrics")
    exported = exported_families(text) | ONLY_WHEN_IT_HAPPENS
    documented = readme_metric_names()
    assert exported, text[:500]
    missing = sorted(exported - documented)
    stale = sorted(documented - exported)
    assert not missing, "docs/metrics.md leaves out %s" % missing
    assert not stale, "docs/metrics.md names %s, which the agent does not export" % stale


def rule_alerts():
    alerts = {}
    for name in ("plegscope.rules.yml", "kubelet.rules.yml"):
        for group in yaml.safe_load(read(os.path.join("alerts", name)))["groups"]:
            for rule in group["rules"]:
                if "alert" in rule:
                    alerts.setdefault(rule["alert"], set()).add(rule.get("labels", {}).get("severity"))
    return alerts


def test_alerts_readme_lists_every_alert_with_its_severity():
    listed = {}
    for line in read("alerts/README.md").splitlines():
        m = re.match(r"\| `([A-Za-z]+)` \| (\w+) \|", line)
        if m:
            listed.setdefault(m.group(1), set()).add(m.group(2))
    alerts = rule_alerts()
    missing, stale = sorted(set(alerts) - set(listed)), sorted(set(listed) - set(alerts))
    assert not missing, "alerts/README.md leaves out %s" % missing
    assert not stale, "alerts/README.md lists %s, which no rule file has" % stale
    for name, severities in alerts.items():
        assert listed[name] == severities, "%s: README says %s, the rules say %s" % (name, listed[name], severities)


if __name__ == "__main__":
    harness.main(globals())
