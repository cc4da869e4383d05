"""plugins/kubectl-plegscope run by the real kubectl (`kubectl plegscope ...`,
found on PATH as kubectl finds plugins) against a stand-in for the API
server on loopback (apiserver_standin.py: pod list by label and node, node
list, and the pod proxy path forwarding to real agents), with real
build/plegscope agents on build/fakecri scenarios:

- one node: `diagnose NODE` prints the agent's own text report, JSON and
  HTML, through /api/v1/namespaces/plegscope/pods/POD:9547/proxy/diagnose,
  having found the pod by label selector and spec.nodeName;
- a fleet: worker-1 healthy, worker-2 whose runtime hangs, worker-3 whose
  agent is unreachable, worker-4 with no agent: `nodes` prints one line per
  node with status, top cause, confidence and last seen, and exits 1
  naming the unreachable one;
- errors: no agent on the node, a pod not running, a bad usage (exit 2),
  an agent that cannot be dialled over https, each one line;
- dead nodes (the API server gets no answer from the pod): `nodes` asks at
  most --concurrency agents at once (kubectl processes counted through a
  KUBECTL wrapper), gives each --node-timeout, and still prints every node;
- `nodes --prometheus URL` (and PLEGSCOPE_PROMETHEUS) against a real
  Prometheus scraping real agents in two clusters with the same node names:
  one row per cluster and node, nothing asked of the API server."""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diagnose"))

import harness  # noqa: E402
from apiserver_standin import ApiServerStandIn, pod  # noqa: E402
from diag_common import fixture, report, wait_top_cause  # noqa: E402
from harness import Agent, FakeCri, wait_until  # noqa: E402

FLAGS = ["--hang-threshold", "3s", "--relist-period", "1s", "--evented-pleg", "false"]
PLUGIN = os.path.join(harness.source_dir(), "plugins", "kubectl-plegscope")


class Kubectl:
    """Runs `kubectl plegscope ...` with a kubeconfig pointing at the stand-in
    and the plugin on PATH (a directory holding only a link to it)."""

    def __init__(self, standin):
        self.kubectl = harness.require_tool("kubectl")
        self.dir = tempfile.mkdtemp(prefix="kubectl-plugin-")
        os.symlink(PLUGIN, os.path.join(self.dir, "kubectl-plegscope"))
        self.env = dict(os.environ, KUBECONFIG=standin.kubeconfig(os.path.join(self.dir, "kubeconfig")),
                        PATH=self.dir + os.pathsep + os.environ.get("PATH", ""), HOME=self.dir)
        self.env.pop("PLEGSCOPE_NAMESPACE", None)

    def __call__(self, *args):
        r = subprocess.run([self.kubectl, "plegscope"] + list(args), env=self.env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
        print("$ kubectl plegscope %s -> %d\n%s%s" % (" ".join(args), r.returncode, r.stdout[:2000],
                                                      ("stderr: " + r.stderr) if r.stderr else ""))
        return r

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def first_relist(agent):
    def ready():
        rep = report(agent)
        return rep["relist"]["seconds_since_last_seen"] is not None and rep["runtime"]["name"] not in ("", "unknown")
    wait_until(ready, 20, "a first relist and the runtime's name")


def test_kubectl_finds_the_plugin():
    with ApiServerStandIn([], []) as api:
        k = Kubectl(api)
        try:
            r = subprocess.run([k.kubectl, "plugin", "list"], env=k.env, capture_output=True, text=True, timeout=60)
            assert "kubectl-plegscope" in r.stdout, r.stdout + r.stderr
        finally:
            k.close()


def test_diagnose_one_node_through_the_pod_proxy():
    with FakeCri("diag_healthy", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS + ["--node-name", "worker-1"], proc_path=fixture("healthy"),
                  log_level="info") as agent, \
            ApiServerStandIn([pod("plegscope-a1b2c", "worker-1", agent.port),
                              pod("plegscope-z9y8x", "worker-2", harness.free_port())],
                             ["worker-1", "worker-2"]) as api:
        first_relist(agent)
        k = Kubectl(api)
        try:
            r = k("diagnose", "worker-1")
            assert r.returncode == 0, r.stderr
            # the agent's own text report (its heading and runtime line; the rest moves with the clock).
            own = agent.get("/diagnose?format=text")[1]
            stable = lambda text: [re.sub(r" at \S+Z$", "", line) for line in text.splitlines()  # noqa: E731
                                   if line.startswith(("plegscope diagnosis of node", "STATUS:", "Runtime:"))]
            assert stable(r.stdout) == stable(own) and len(stable(own)) == 3, (stable(r.stdout), stable(own))
            assert "worker-1" in r.stdout and "healthy" in r.stdout.lower()
            asked = [urllib.parse.urlsplit(p) for m, p in api.log()]
            lists = [urllib.parse.parse_qs(u.query) for u in asked if u.path == "/api/v1/namespaces/plegscope/pods"]
            assert any(q.get("fieldSelector") == ["spec.nodeName=worker-1"]
                       and q.get("labelSelector") == ["app.kubernetes.io/name=plegscope"] for q in lists), asked
            proxied = [u for u in asked if "/proxy/" in u.path]
            assert [u.path for u in proxied] == ["/api/v1/namespaces/plegscope/pods/plegscope-a1b2c:9547/proxy/diagnose"]
            assert urllib.parse.parse_qs(proxied[0].query)["format"] == ["text"], proxied
            asked = [u.path for u in asked]
            assert not any("z9y8x" in p for p in asked), "asked the agent of another node: %s" % asked

            r = k("diagnose", "worker-1", "--output", "json")
            assert r.returncode == 0, r.stderr
            rep = harness.report_json(r.stdout)
            assert rep["node"] == "worker-1" and rep["status"] == "healthy" and rep["causes"] == [], rep["status"]

            r = k("diagnose", "worker-1", "-o", "html")
            assert r.returncode == 0 and r.stdout.lstrip().lower().startswith("<!doctype html"), r.stdout[:200]
        finally:
            k.close()


def test_diagnose_exits_1_on_an_unhealthy_node():
    """As `plegscope diagnose`: the report is printed, and the exit status
    says the node is not healthy, in every output format."""
    with FakeCri("hang", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS + ["--node-name", "worker-1"], proc_path=fixture("healthy"),
                  log_level="info") as agent, \
            ApiServerStandIn([pod("plegscope-a1b2c", "worker-1", agent.port)], ["worker-1"]) as api:
        first_relist(agent)
        hung = lambda: [c for c in agent.get_json("/diagnose")["causes"] if c["id"] == "runtime_hung"]  # noqa: E731
        harness.wait_until(hung, 60, "the hung ListContainers to be diagnosed")
        k = Kubectl(api)
        try:
            for fmt in ("text", "json", "html"):
                r = k("diagnose", "worker-1", "-o", fmt)
                assert r.returncode == 1, (fmt, r.returncode, r.stderr, r.stdout[:300])
                assert r.stdout.strip() and not r.stderr.strip(), (fmt, r.stderr)
        finally:
            k.close()


def test_fleet_of_nodes_one_line_each():
    with FakeCri("diag_healthy", log_level="warn") as healthy, \
            FakeCri("diag_hang", log_level="warn", hold="healthy") as hanging, \
            Agent(healthy.endpoint, FLAGS + ["--node-name", "worker-1"], proc_path=fixture("healthy"),
                  log_level="info") as a1, \
            Agent(hanging.endpoint, FLAGS + ["--node-name", "worker-2"], proc_path=fixture("healthy"),
                  log_level="info") as a2, \
            ApiServerStandIn([pod("plegscope-aaaaa", "worker-1", a1.port),
                              pod("plegscope-bbbbb", "worker-2", a2.port),
                              pod("plegscope-ccccc", "worker-3", harness.free_port())],  # nothing listens there
                             ["worker-1", "worker-2", "worker-3", "worker-4"]) as api:
        first_relist(a1)
        first_relist(a2)
        hanging.phase("hang", hold=True)
        wait_top_cause(a2, "runtime_hung", timeout=20)
        k = Kubectl(api)
        try:
            r = k("nodes")
            assert r.returncode == 1, "an unreachable agent must make `nodes` fail: %d" % r.returncode
            lines = r.stdout.splitlines()
            assert lines[0].split() == ["NODE", "STATUS", "TOP", "CAUSE", "CONFIDENCE", "LAST", "SEEN"], lines[0]
            rows = {line.split()[0]: line.split() for line in lines[1:]}
            assert sorted(rows) == ["worker-1", "worker-2", "worker-3", "worker-4"], lines
            assert rows["worker-1"][1:4] == ["healthy", "-", "-"], rows["worker-1"]
            assert rows["worker-1"][4].endswith("s") and float(rows["worker-1"][4][:-1]) < 60, rows["worker-1"]
            assert rows["worker-2"][1] in ("at_risk", "unhealthy") and rows["worker-2"][2] == "runtime_hung", rows
            assert 0.6 <= float(rows["worker-2"][3]) <= 1, rows["worker-2"]
            assert rows["worker-3"][1] == "unreachable", rows["worker-3"]
            assert rows["worker-4"][1] == "no-agent", rows["worker-4"]
            errors = r.stderr.strip().splitlines()
            assert len(errors) == 1 and "plegscope-ccccc" in errors[0] and "worker-3" in errors[0], errors
            assert "connection refused" in errors[0], errors
        finally:
            hanging.release()
            k.close()


def test_errors_are_one_line():
    with ApiServerStandIn([pod("plegscope-ppppp", "worker-5", harness.free_port(), phase="Pending"),
                           pod("plegscope-ttttt", "worker-6", harness.free_port())],
                          ["worker-1", "worker-5", "worker-6"]) as api:
        k = Kubectl(api)
        try:
            r = k("diagnose", "worker-1")
            assert r.returncode == 1 and r.stdout == "", r
            assert len(r.stderr.strip().splitlines()) == 1 and "no plegscope agent runs on node worker-1" in r.stderr
            r = k("diagnose", "worker-5")
            assert r.returncode == 1 and "not running" in r.stderr and "Pending" in r.stderr, r.stderr
            for bad in (["diagnose"], ["diagnose", "worker-1", "--output", "yaml"], ["frobnicate"], []):
                r = k(*bad)
                assert r.returncode == 2, (bad, r.returncode)
                assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("kubectl plegscope: "), r.stderr
            # --scheme https: the API server is asked for the https: form of the pod's proxy path.
            r = k("diagnose", "worker-6", "--scheme", "https")
            assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
            paths = [urllib.parse.urlsplit(p).path for m, p in api.log()]
            assert "/api/v1/namespaces/plegscope/pods/https:plegscope-ttttt:9547/proxy/diagnose" in paths, paths
            # an API server that refuses the selector: kubectl's own message, one line, exit 1.
            r = k("diagnose", "worker-1", "-l", "app in (plegscope)")
            assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        finally:
            k.close()


def blackhole():
    """A listening socket that never accepts: connections hang as to a dead node."""
    import socket
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


def test_dead_nodes_answer_within_bounds():
    dead = blackhole()
    dead_port = dead.getsockname()[1]
    dead_nodes = ["worker-%d" % i for i in range(2, 8)]
    concurrency, node_timeout = 2, 2
    with FakeCri("diag_healthy", log_level="warn") as healthy, \
            Agent(healthy.endpoint, FLAGS + ["--node-name", "worker-1"], proc_path=fixture("healthy"),
                  log_level="info") as a1, \
            ApiServerStandIn([pod("plegscope-aaaaa", "worker-1", a1.port)]
                             + [pod("plegscope-dead%d" % i, n, dead_port) for i, n in enumerate(dead_nodes)],
                             ["worker-1"] + dead_nodes) as api:
        first_relist(a1)
        k = Kubectl(api)
        try:
            # every kubectl the plugin starts writes "+" when it starts and "-" when it ends.
            calls = os.path.join(k.dir, "calls")
            wrapper = os.path.join(k.dir, "kubectl-counting")
            with open(wrapper, "w") as f:
                f.write('#!/bin/sh\necho + >> %s\n"%s" "$@"\nrc=$?\necho - >> %s\nexit $rc\n' % (calls, k.kubectl, calls))
            os.chmod(wrapper, 0o755)
            k.env["KUBECTL"] = wrapper
            t0 = time.monotonic()
            r = k("nodes", "--concurrency", str(concurrency), "--node-timeout", "%ds" % node_timeout)
            elapsed = time.monotonic() - t0
            assert r.returncode == 1, r.returncode
            rows = {line.split()[0]: line.split() for line in r.stdout.splitlines()[1:]}
            assert sorted(rows) == ["worker-1"] + dead_nodes, r.stdout
            assert rows["worker-1"][1] == "healthy", rows["worker-1"]
            assert all(rows[n][1] == "unreachable" for n in dead_nodes), rows
            errors = r.stderr.strip().splitlines()
            assert len(errors) == len(dead_nodes) and all("plegscope-dead" in e for e in errors), errors
            in_flight = peak = 0
            for mark in open(calls).read().split():
                in_flight += 1 if mark == "+" else -1
                peak = max(peak, in_flight)
            proxied = [p for m, p in api.log() if "/proxy/" in p]
            assert len(proxied) == 1 + len(dead_nodes), proxied
            # the two listings run before the pool; the proxied calls never exceed the bound.
            assert peak <= concurrency, peak
            bound = math.ceil((1 + len(dead_nodes)) / concurrency) * node_timeout
            print("%d dead nodes of %d, --concurrency %d --node-timeout %ds: answered in %.1fs "
                  "(bound %ds + listings), at most %d kubectl at once"
                  % (len(dead_nodes), 1 + len(dead_nodes), concurrency, node_timeout, elapsed, bound, peak))
        finally:
            k.close()
            dead.close()


def test_nodes_from_prometheus_in_two_clusters():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ecosystem"))
    import ecolib
    down_port = harness.free_port()
    with FakeCri("diag_healthy", log_level="warn") as f1, \
            FakeCri("diag_hang", log_level="warn", hold="healthy") as f2, \
            FakeCri("diag_healthy", log_level="warn") as f3, \
            Agent(f1.endpoint, FLAGS + ["--node-name", "worker-1"], proc_path=fixture("healthy"), log_level="info") as a1, \
            Agent(f2.endpoint, FLAGS + ["--node-name", "worker-2", "--relist-threshold", "5s"], proc_path=fixture("healthy"),
                  log_level="info") as a2, \
            Agent(f3.endpoint, FLAGS + ["--node-name", "worker-2"], proc_path=fixture("healthy"), log_level="info") as b2:
        targets = [("a", "worker-1", a1.port), ("a", "worker-2", a2.port), ("b", "worker-2", b2.port),
                   ("b", "worker-9", down_port)]
        scrape = {"job_name": "plegscope", "scrape_interval": "1s", "scrape_timeout": "1s",
                  "static_configs": [{"targets": ["127.0.0.1:%d" % port], "labels": {"cluster": c, "node": n}}
                                     for c, n, port in targets]}
        with ecolib.Prometheus([], scrape_config=scrape) as prom, ApiServerStandIn([], []) as api:
            first_relist(a2)
            f2.phase("hang", hold=True)
            try:
                def unhealthy():
                    r = prom.query('pleg_healthy{cluster="a", node="worker-2"} == 0')["data"]["result"]
                    c = prom.query('pleg_diagnosis_cause{cluster="a", node="worker-2", cause="runtime_hung"} > 0')
                    up = prom.query('count(up{cluster="b"} == 1) and count(up{cluster="b"} == 0)')
                    return r and c["data"]["result"] and up["data"]["result"]
                wait_until(unhealthy, 60, "a/worker-2 unhealthy with runtime_hung in Prometheus", interval=0.5)
                k = Kubectl(api)
                try:
                    r = k("nodes", "--prometheus", prom.url)
                    assert r.returncode == 0, r.stderr
                    lines = r.stdout.splitlines()
                    assert lines[0].split()[:3] == ["CLUSTER", "NODE", "STATUS"], lines[0]
                    rows = {tuple(line.split()[:2]): line.split() for line in lines[1:]}
                    assert sorted(rows) == [("a", "worker-1"), ("a", "worker-2"), ("b", "worker-2"), ("b", "worker-9")], lines
                    assert rows[("a", "worker-1")][2:5] == ["healthy", "-", "-"], rows
                    assert rows[("a", "worker-2")][2:4] == ["unhealthy", "runtime_hung"], rows
                    assert 0.5 < float(rows[("a", "worker-2")][4]) <= 1, rows
                    assert rows[("b", "worker-2")][2:5] == ["healthy", "-", "-"], rows
                    assert rows[("b", "worker-9")][2] == "down", rows
                    # the environment's default, and one cluster only
                    k.env["PLEGSCOPE_PROMETHEUS"] = prom.url
                    r = k("nodes", "--cluster", "b")
                    assert r.returncode == 0, r.stderr
                    assert sorted(tuple(line.split()[:2]) for line in r.stdout.splitlines()[1:]) == \
                        [("b", "worker-2"), ("b", "worker-9")], r.stdout
                    r = k("nodes", "--cluster", "nowhere")
                    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
                    r = k("nodes", "--prometheus", "not-a-url")
                    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
                    assert api.log() == [], api.log()
                finally:
                    k.close()
            finally:
                f2.release()


if __name__ == "__main__":
    harness.main(globals())
