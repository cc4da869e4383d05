"""Helpers for the ecosystem tests: a private Prometheus, rule/dashboard
parsing, and a tiny runner for the static tests.

Prometheus runs on a loopback port with a temporary data directory, in its
own process group, and is killed with that group on exit; the directory is
removed. Nothing here sleeps for a fixed time: everything polls.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

import yaml

ROOT = os.environ.get("PLEGSCOPE_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PLEGSCOPE_BUILD_DIR") or os.path.join(ROOT, "build")

SKIP = 77

# DESIGN.md section 4: every metric the agent exports (histograms expanded).
AGENT_METRICS = {
    "pleg_relist_duration_seconds", "pleg_relist_interval_seconds", "pleg_last_seen_seconds",
    "pleg_healthy", "pleg_discard_events_total", "pleg_events_total", "pleg_relist_errors_total",
    "pleg_pods_to_reinspect", "pleg_running_pods", "pleg_running_containers",
    "pleg_runtime_operations_total", "pleg_runtime_operations_errors_total",
    "pleg_runtime_operations_duration_seconds", "pleg_runtime_operations_in_flight",
    "pleg_runtime_operation_oldest_in_flight_seconds", "pleg_runtime_list_response_bytes",
    "pleg_runtime_list_items", "pleg_evented_mode", "pleg_evented_connection_errors_total",
    "pleg_evented_connection_success_total", "pleg_diagnosis_cause", "plegscope_build_info",
}
CAUSE_IDS = ["runtime_unavailable", "runtime_hung", "runtime_slow", "message_too_large",
             "too_many_containers", "event_storm", "pod_status_slow", "reinspect_backlog",
             "node_pressure"]


def path(*parts):
    return os.path.join(ROOT, *parts)


def load_yaml(rel):
    with open(path(rel)) as f:
        return yaml.safe_load(f)


def load_yaml_all(rel):
    with open(path(rel)) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def need_tool(name):
    exe = shutil.which(name)
    if not exe:
        print("SKIP: %s not installed (scripts/install-deps test)" % name)
        sys.exit(SKIP)
    return exe


def run(cmd, **kw):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          cwd=kw.pop("cwd", ROOT), **kw)


def github_slug(heading):
    """The anchor GitHub generates for a Markdown heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def runbook_anchors():
    anchors = set()
    with open(path("docs/runbook.md")) as f:
        in_code = False
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if not in_code and re.match(r"^#{1,6} ", line):
                anchors.add(github_slug(line.lstrip("#")))
    return anchors


def rule_files():
    return ["alerts/plegscope.rules.yml", "alerts/kubelet.rules.yml"]


def alerts_in(rel):
    return [r for g in load_yaml(rel)["groups"] for r in g["rules"] if "alert" in r]


def records_in(rel):
    return [r for g in load_yaml(rel)["groups"] for r in g["rules"] if "record" in r]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(pred, timeout, what, interval=0.2):
    deadline = time.monotonic() + timeout
    last_exc = None
    while time.monotonic() < deadline:
        try:
            v = pred()
            if v:
                return v
        except Exception as e:  # noqa: BLE001 - polling through transient errors
            last_exc = e
        time.sleep(interval)
    raise AssertionError("timed out after %ss waiting for %s%s" % (
        timeout, what, " (last error: %s)" % last_exc if last_exc else ""))


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


class Prometheus:
    """A private Prometheus: loopback port, temporary data dir, own process group."""

    def __init__(self, scrape_targets, scrape_interval="1s", rule_files=(), evaluation_interval="1s",
                 static_labels=None):
        self.exe = need_tool("prometheus")
        self.dir = tempfile.mkdtemp(prefix="plegscope-prom-")
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        rules = []
        for i, rf in enumerate(rule_files):
            dst = os.path.join(self.dir, "rules-%d.yml" % i)
            if isinstance(rf, str) and os.path.exists(rf):
                shutil.copy(rf, dst)
            else:
                with open(dst, "w") as f:
                    f.write(rf if isinstance(rf, str) else yaml.safe_dump(rf, sort_keys=False))
            rules.append(dst)
        cfg = {
            "global": {"scrape_interval": scrape_interval, "scrape_timeout": scrape_interval,
                       "evaluation_interval": evaluation_interval},
            "rule_files": rules,
            "scrape_configs": [{
                "job_name": "plegscope",
                "static_configs": [{"targets": list(scrape_targets),
                                    "labels": dict(static_labels or {})}],
            }],
        }
        self.config = os.path.join(self.dir, "prometheus.yml")
        with open(self.config, "w") as f:
            yaml.safe_dump(cfg, f, sort_keys=False)
        self.proc = None
        self.log = None

    def __enter__(self):
        self.log = open(os.path.join(self.dir, "prometheus.log"), "w")
        self.proc = subprocess.Popen(
            [self.exe, "--config.file=" + self.config,
             "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
             "--web.listen-address=127.0.0.1:%d" % self.port,
             "--web.enable-lifecycle", "--log.level=warn"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_until(lambda: self._ready(), 30, "Prometheus /-/ready")
        except Exception:
            self.__exit__(None, None, None)
            raise
        return self

    def _ready(self):
        if self.proc.poll() is not None:
            raise RuntimeError("prometheus exited with %s:\n%s" % (self.proc.returncode, self.tail()))
        try:
            return http_get(self.url + "/-/ready", timeout=1)[0] == 200
        except (urllib.error.URLError, ConnectionError):
            return False

    def tail(self, n=30):
        try:
            with open(os.path.join(self.dir, "prometheus.log")) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def __exit__(self, *exc):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            except ProcessLookupError:
                pass
        if self.log:
            self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def api(self, endpoint, **params):
        url = self.url + "/api/v1/" + endpoint
        if params:
            url += "?" + urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                return json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            return json.loads(e.read().decode())

    def query(self, expr, at=None):
        params = {"query": expr}
        if at is not None:
            params["time"] = "%.3f" % at
        return self.api("query", **params)

    def targets_up(self):
        d = self.api("targets")
        return [t for t in d["data"]["activeTargets"] if t["health"] == "up"]

    def alerts(self):
        return self.api("alerts")["data"]["alerts"]


def dashboard_files():
    d = path("dashboards")
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".json"))


def iter_panels(panels):
    for p in panels:
        yield p
        yield from iter_panels(p.get("panels", []))


def dashboard_queries(dash):
    """(panel title, refId, expr) for every panel target with a PromQL expr."""
    out = []
    for p in iter_panels(dash.get("panels", [])):
        for t in p.get("targets", []):
            if t.get("expr"):
                out.append((p.get("title", ""), t.get("refId", ""), t["expr"]))
    return out


GRAFANA_BUILTINS = {"__interval", "__interval_ms", "__rate_interval", "__range", "__range_s",
                    "__range_ms", "__dashboard", "__from", "__to", "__name", "__org", "__user",
                    "timeFilter", "__timeFilter", "__auto"}


def variables_used(text):
    names = set()
    for m in re.finditer(r"\$\{(\w+)(?::[^}]*)?\}|\$(\w+)|\[\[(\w+)\]\]", text):
        names.add(m.group(1) or m.group(2) or m.group(3))
    return names


def substitute(expr, values):
    """Substitute Grafana variables the way Grafana would before sending a query."""
    def repl(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name not in values:
            raise KeyError("no value for $%s in %r" % (name, expr))
        return values[name]
    return re.sub(r"\$\{(\w+)(?::[^}]*)?\}|\$(\w+)|\[\[(\w+)\]\]", repl, expr)


def main(ns):
    """Run every test_* function in ns; print a summary; exit 1 on failure."""
    tests = [(n, f) for n, f in ns.items() if n.startswith("test_") and callable(f)]
    passed = failed = 0
    for name, fn in tests:
        t0 = time.monotonic()
        try:
            fn()
            passed += 1
            print("PASS %s (%.1fs)" % (name, time.monotonic() - t0), flush=True)
        except Exception:  # noqa: BLE001 - report and go on
            failed += 1
            print("FAIL %s (%.1fs)" % (name, time.monotonic() - t0), flush=True)
            traceback.print_exc()
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


# --------------------------------------------------------------- processes
# The shared tests/lib harness offers the same; these small launchers keep the
# ecosystem tests independent of its API while both evolve.

def binary(name):
    exe = os.path.join(BUILD, name)
    if not os.access(exe, os.X_OK):
        print("SKIP: %s not built (PLEGSCOPE_BUILD_DIR=%s)" % (name, BUILD))
        sys.exit(SKIP)
    return exe


class Proc:
    """A child in its own process group, logged to a file, killed with its group."""

    def __init__(self, name, argv, workdir):
        self.name, self.argv = name, argv
        self.logpath = os.path.join(workdir, name + ".log")
        self.proc = None

    def start(self):
        self.log = open(self.logpath, "w")
        self.proc = subprocess.Popen(self.argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def check_alive(self):
        if not self.alive():
            raise RuntimeError("%s exited with %s:\n%s" % (self.name, self.proc.returncode, self.tail()))
        return True

    def tail(self, n=20):
        try:
            with open(self.logpath) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def stop(self):
        if self.alive():
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            except ProcessLookupError:
                pass
        if self.proc is not None:
            self.log.close()


class Node:
    """fakecri serving a scenario + plegscope watching it, in a temp dir."""

    def __init__(self, scenario, agent_flags=(), node_name="eco-node"):
        self.fakecri_exe = binary("fakecri")
        self.agent_exe = binary("plegscope")
        self.scenario = scenario if os.path.isabs(scenario) else path("tests/scenarios", scenario + ".json")
        self.dir = tempfile.mkdtemp(prefix="plegscope-eco-")
        self.socket = os.path.join(self.dir, "cri.sock")
        self.port = free_port()
        self.address = "127.0.0.1:%d" % self.port
        self.url = "http://" + self.address
        self.node_name = node_name
        self.agent_flags = list(agent_flags)
        self.fakecri = self.agent = None
        self.fakecri_started = None

    def __enter__(self):
        try:
            self.fakecri = Proc("fakecri", [self.fakecri_exe, "--socket", self.socket,
                                            "--scenario", self.scenario], self.dir).start()
            self.fakecri_started = time.monotonic()
            wait_until(lambda: self.fakecri.check_alive() and os.path.exists(self.socket), 20,
                       "fakecri socket")
            self.agent = Proc("plegscope", [self.agent_exe,
                                            "--container-runtime-endpoint", "unix://" + self.socket,
                                            "--listen-address", self.address,
                                            "--node-name", self.node_name] + self.agent_flags,
                              self.dir).start()
            wait_until(lambda: self.agent.check_alive() and http_get(self.url + "/livez", 1)[0] == 200,
                       20, "plegscope /livez")
        except Exception:
            self.__exit__(None, None, None)
            raise
        return self

    def metrics(self):
        return http_get(self.url + "/metrics")[1]

    def __exit__(self, *exc):
        for p in (self.agent, self.fakecri):
            if p is not None:
                p.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
        return False
