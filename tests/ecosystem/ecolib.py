"""What only the ecosystem tests need: a private Prometheus, rule and
dashboard parsing, runbook anchors, Grafana variable substitution.

Everything generic (locating binaries and tools, fakecri + plegscope,
polling, HTTP, the runner) is tests/lib/harness.py. Prometheus runs as a
harness.Process: its own session, killed with its group when the context
exits, when the test ends or when the runner is interrupted, and its log
tail printed when a test fails. Nothing here sleeps for a fixed time.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib")))
import harness  # noqa: E402  (tests/lib; ctest also puts it on PYTHONPATH)
import yaml  # noqa: E402

ROOT = harness.source_dir()
# scripts/mixin keeps jsonnet's output here, keyed by mixin/'s contents and
# the config, so a run renders each config once: every test (and the
# ecosystem_mixin_render fixture that renders the default first) shares it.
os.environ.setdefault("PLEGSCOPE_MIXIN_CACHE", os.path.join(harness.build_dir(), "mixin-render-cache"))

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
    "pleg_relist_period_seconds", "pleg_relist_threshold_seconds",
    "pleg_last_seen_age_seconds", "pleg_event_lag_seconds", "pleg_event_lag_invalid_total",
    "pleg_evented_delivery_lag_seconds",
    # host evidence
    "pleg_host_blocked_processes", "pleg_host_zombie_processes", "pleg_host_pids_usage_ratio",
    "pleg_host_runtime_disk_latency_seconds", "pleg_host_runtime_disk_utilization",
    # the readers beside the PLEG, and why the runtime cannot be reached
    "pleg_kubelet_up", "pleg_runtime_metrics_up", "pleg_runtime_unreachable",
    # the runtime's CRI Status, as the kubelet reads it
    "pleg_runtime_status_healthy", "pleg_runtime_status_seconds_since_success", "pleg_runtime_condition",
    # the node condition's repair advice and its gates (--node-condition)
    "pleg_node_repair_advice",
}
# DESIGN.md section 6, from the agent's one cause list.
CAUSE_IDS = harness.cause_ids()


def path(*parts):
    return os.path.join(ROOT, *parts)


def load_yaml(rel):
    with open(path(rel)) as f:
        return yaml.safe_load(f)


def load_yaml_all(rel):
    with open(path(rel)) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def duration_seconds(text):
    """A Prometheus duration ("1m", "15s", "1h30m") in seconds."""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
    found = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)", text)
    if not found:
        raise ValueError("not a duration: %r" % text)
    return sum(float(num) * units[unit] for num, unit in found)


def run(cmd, **kw):
    """Runs a tool from the repository root; stdout+stderr as one text."""
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          cwd=kw.pop("cwd", ROOT), **kw)


# ---------------------------------------------------------------- runbook and rules


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


def render_mixin(out_dir, config=None):
    """scripts/mixin into out_dir with _config overrides; returns out_dir.

    The files land at their repository paths under out_dir
    (alerts/plegscope.rules.yml, alerts/tests/..., dashboards/..., deploy/...)."""
    harness.require_tool("jsonnet")
    cmd = [path("scripts/mixin"), "--out", out_dir]
    if config:
        cmd += ["--config", json.dumps(config)]
    r = run(cmd)
    assert r.returncode == 0, r.stdout
    return out_dir


def alerts_in(rel):
    return [r for g in load_yaml(rel)["groups"] for r in g["rules"] if "alert" in r]


def records_in(rel):
    return [r for g in load_yaml(rel)["groups"] for r in g["rules"] if "record" in r]


# ---------------------------------------------------------------- Prometheus


class _Daemon:
    """A Prometheus-project server (Prometheus, Alertmanager): temporary dir,
    loopback port, own process group, ready when /-/ready answers 200.
    Subclasses give the command line: _args() (self.dir and self.address set)."""

    name = ""

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="plegscope-%s-" % self.name)
        try:
            self.port = harness.free_port()
            self.address = "127.0.0.1:%d" % self.port
            self.url = "http://" + self.address
            self.proc = harness.Process(self.name, [self.exe] + self._args())
            harness.wait_until(self._ready, 30, "%s /-/ready on %s" % (self.name, self.url), interval=0.2)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _ready(self):
        if not self.proc.alive():
            # not an AssertionError: wait_until must not keep polling a dead process
            raise RuntimeError("%s exited with %s:\n%s" % (self.name, self.proc.returncode, self.proc.tail()))
        return harness.http(self.url + "/-/ready", timeout=1)[0] == 200

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.stop(timeout=15)  # SIGTERM to the group, SIGKILL whatever is left
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False


class Prometheus(_Daemon):
    """A private Prometheus: loopback port, temporary data dir, own process group.

    rule_files: paths (copied) or rule documents (dicts or YAML text).
    static_labels: added to every scraped series (e.g. {"node": ...}).
    scrape_config: a whole scrape config (dict) in place of the static one;
      a "file_sd" key holds target groups written to a file_sd file.
    alertmanager: "host:port" of an Alertmanager to send alerts to.
    external_labels: the server's global external_labels (e.g. {"cluster": "a"}),
      which /federate adds to every series it serves.
    rule_interval: every rule group evaluated at this interval, whatever its own
      (the recording group runs every minute as shipped): for tests of what the
      rules compute, not of how often.
    """

    name = "prometheus"

    def __init__(self, scrape_targets, scrape_interval="1s", rule_files=(), evaluation_interval="1s",
                 static_labels=None, scrape_config=None, alertmanager=None, external_labels=None,
                 rule_interval=None):
        self.exe = harness.require_tool("prometheus")
        self.scrape_targets = list(scrape_targets)
        self.scrape_interval = scrape_interval
        self.evaluation_interval = evaluation_interval
        self.rule_files = list(rule_files)
        self.static_labels = dict(static_labels or {})
        self.scrape_config = scrape_config
        self.alertmanager = alertmanager
        self.external_labels = dict(external_labels or {})
        self.rule_interval = rule_interval
        self.proc = None
        self.dir = None

    def _write_config(self):
        rules = []
        for i, rf in enumerate(self.rule_files):
            dst = os.path.join(self.dir, "rules-%d.yml" % i)
            if self.rule_interval:
                doc = load_yaml(rf) if isinstance(rf, str) and os.path.exists(rf) else rf
                doc = yaml.safe_load(doc) if isinstance(doc, str) else doc
                doc = {"groups": [dict(g, interval=self.rule_interval) for g in doc["groups"]]}
                with open(dst, "w") as f:
                    yaml.safe_dump(doc, f, sort_keys=False)
            elif isinstance(rf, str) and os.path.exists(rf):
                shutil.copy(rf, dst)
            else:
                with open(dst, "w") as f:
                    f.write(rf if isinstance(rf, str) else yaml.safe_dump(rf, sort_keys=False))
            rules.append(dst)
        cfg = {
            "global": {"scrape_interval": self.scrape_interval, "scrape_timeout": self.scrape_interval,
                       "evaluation_interval": self.evaluation_interval,
                       **({"external_labels": self.external_labels} if self.external_labels else {})},
            "rule_files": rules,
            "scrape_configs": [{
                "job_name": "plegscope",
                "static_configs": [{"targets": self.scrape_targets, "labels": self.static_labels}],
            }],
        }
        if self.scrape_config is not None:
            sc = dict(self.scrape_config)
            groups = sc.pop("file_sd", None)
            if groups is not None:
                sd_file = os.path.join(self.dir, "targets.json")
                with open(sd_file, "w") as f:
                    json.dump(groups, f)
                sc["file_sd_configs"] = [{"files": [sd_file]}]
            cfg["scrape_configs"] = [sc]
        if self.alertmanager:
            cfg["alerting"] = {"alertmanagers": [{"static_configs": [{"targets": [self.alertmanager]}]}]}
        config = os.path.join(self.dir, "prometheus.yml")
        with open(config, "w") as f:
            yaml.safe_dump(cfg, f, sort_keys=False)
        return config

    def _args(self):
        return ["--config.file=" + self._write_config(), "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
                "--web.listen-address=" + self.address, "--web.enable-lifecycle", "--log.level=warn"]

    def api(self, endpoint, **params):
        """The decoded JSON of /api/v1/<endpoint>, error answers included."""
        url = self.url + "/api/v1/" + endpoint
        if params:
            url += "?" + urllib.parse.urlencode(params)
        return json.loads(harness.http(url, timeout=10)[1])

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


# ---------------------------------------------------------------- dashboards


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

_VARIABLE_RE = r"\$\{(\w+)(?::[^}]*)?\}|\$(\w+)|\[\[(\w+)\]\]"


def variables_used(text):
    names = set()
    for m in re.finditer(_VARIABLE_RE, text):
        names.add(m.group(1) or m.group(2) or m.group(3))
    return names


def substitute(expr, values):
    """Substitute Grafana variables the way Grafana would before sending a query."""
    def repl(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name not in values:
            raise KeyError("no value for $%s in %r" % (name, expr))
        return values[name]
    return re.sub(_VARIABLE_RE, repl, expr)


# ---------------------------------------------------------------- Alertmanager


class Alertmanager(_Daemon):
    """A private Alertmanager (Debian's prometheus-alertmanager), clustering
    off. config: the configuration document."""

    name = "alertmanager"

    def __init__(self, config):
        self.exe = shutil.which("prometheus-alertmanager") or harness.require_tool("alertmanager")
        self.config = config
        self.proc = None
        self.dir = None

    def _args(self):
        config = os.path.join(self.dir, "alertmanager.yml")
        with open(config, "w") as f:
            yaml.safe_dump(self.config, f, sort_keys=False)
        return ["--config.file=" + config, "--storage.path=" + os.path.join(self.dir, "data"),
                "--web.listen-address=" + self.address, "--cluster.listen-address=", "--log.level=warn"]

    def alerts(self):
        """/api/v2/alerts, inhibited and silenced ones included."""
        return json.loads(harness.http(self.url + "/api/v2/alerts", timeout=10)[1])

    def post_alerts(self, alerts):
        """POSTs alerts ([{"labels": {...}, "annotations": {...}}]) to
        /api/v2/alerts as Prometheus does."""
        import urllib.request
        req = urllib.request.Request(self.url + "/api/v2/alerts", method="POST", data=json.dumps(alerts).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert resp.status == 200, resp.status


class WebhookReceiver:
    """An HTTP server on a loopback port recording every POST Alertmanager's
    webhook_configs send: .received is [(path, payload dict, monotonic time)]."""

    def __enter__(self):
        import http.server
        import threading
        received = self.received = []
        lock = self.lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    received.append((self.path, json.loads(body), time.monotonic()))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = harness.LoopbackServer(Handler)
        self.url = "http://127.0.0.1:%d" % self.server.port
        return self

    def __exit__(self, *exc):
        self.server.stop()
        return False

    def notifications(self):
        with self.lock:
            return list(self.received)
