"""A blind agent never pages, never acts, and says so.

The real agent binary is run in each way it can be blind, side by side, with
--node-condition against the stand-in API server:

  worker-1  socket denied: build/fakecri serves a root-owned socket of mode
            0600 and the agent runs as nobody (setpriv; root ignores file
            modes), as SELinux denies container_t the socket
  worker-2  socket missing: nothing at the endpoint (k3s and RKE2 keep
            containerd at /run/k3s/containerd/containerd.sock)
  worker-3  wrong endpoint: a unix socket served by something that is not a
            CRI runtime (an HTTP/1.1 server)
  worker-4  the control: a real runtime that answered, then died (fakecri
            killed, its socket left refusing): the node's own fault

Every agent's real /metrics is scraped every STEP seconds for DURATION
seconds (PLEGSCOPE_BLIND_SECONDS; long enough for every `for:` of the shipped
alerts), the samples become promtool input series as they were captured
(job, instance and node added as the scrape would; the one unix-time gauge
moved onto promtool's clock), and `promtool test rules` runs the shipped
alerts/plegscope.rules.yml on them twice: beside a healthy kubelet
(kubelet_pleg_last_seen_seconds fresh, kube_node_status_condition Ready
true), and with no kubelet view at all (the blind guard alone). For the blind
nodes no critical alert may fire and PlegscopeCannotReachRuntime must; for
worker-4, whose kubelet agrees the runtime is down, the critical alerts do
fire. /diagnose of each blind agent says blind and why on its first lines,
is not unhealthy and advises no runtime restart; no node condition is ever
written True for a blind agent, while worker-4's turns True (the writer
works here)."""
import math
import os
import socket
import tempfile
import threading
import time

import ecolib
import harness
from fake_apiserver import FakeApiServer

DURATION = int(os.environ.get("PLEGSCOPE_BLIND_SECONDS", "420"))
STEP = 10
NOBODY = 65534
KILL_AT = 30  # worker-4's runtime dies this many seconds in
TYPE = "plegscope.io/PLEGUnhealthy"
REPAIR = "plegscope.io/NodeRepairAdvised"
PROC = ecolib.path("tests/fixtures/proc/healthy")
BLIND = {"worker-1": "permission_denied", "worker-2": "no_such_socket", "worker-3": "not_cri"}


class NotCri:
    """A unix socket served by an HTTP/1.1 server that answers everything 400:
    what a wrong --container-runtime-endpoint finds."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(16)
        self.stopped = False
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while not self.stopped:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            try:
                conn.settimeout(2)
                conn.recv(4096)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            except OSError:
                pass
            finally:
                conn.close()

    def close(self):
        self.stopped = True
        self.sock.close()


class AgentAs(harness.Agent):
    """harness.Agent, run under a command prefix (setpriv for another user)."""

    def __init__(self, prefix, *args, **kw):
        self.prefix = list(prefix)
        super().__init__(*args, **kw)

    def command(self):
        return self.prefix + super().command()


def readable_dir(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
    os.chmod(d, 0o755)
    return d


def token_file(directory):
    path = os.path.join(directory, "token")
    with open(path, "w") as f:
        f.write("t0k3n\n")
    os.chmod(path, 0o644)
    return path


def escape(value):
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def series_of(captures, node, start_wall):
    """{series text: [value or None per step]} of one agent's captures, as a
    scrape labels them; the unix-time gauge on promtool's clock (0 at start)."""
    out = {}
    for k, metrics in enumerate(captures):
        if metrics is None:
            continue
        for s in metrics.samples:
            labels = dict(s.labels, job="plegscope", instance="10.0.0.%s:9547" % node[-1], node=node)
            value = s.value
            if s.name == "pleg_last_seen_seconds" and value > 0:
                value -= start_wall
            key = "%s{%s}" % (s.name, ", ".join('%s="%s"' % (k2, escape(labels[k2])) for k2 in sorted(labels)))
            out.setdefault(key, [None] * len(captures))[k] = value
    return out


def values_text(values):
    return " ".join("_" if v is None or math.isnan(v) else repr(float(v)) for v in values)


def kubelet_series(node, steps, healthy_until=None):
    """A kubelet beside the agent: relisting every second and Ready, until
    `healthy_until` seconds (then stale and NotReady, as a real down runtime
    makes it)."""
    last_seen, ready = [], []
    for k in range(steps):
        t = k * STEP
        down = healthy_until is not None and t > healthy_until
        last_seen.append(float(healthy_until if down else max(0, t - 1)))
        ready.append(0.0 if down and t > healthy_until + 40 else 1.0)
    return {
        'kubelet_pleg_last_seen_seconds{instance="%s:10250", job="kubelet", metrics_path="/metrics", node="%s"}'
        % (node, node): last_seen,
        'kube_node_status_condition{condition="Ready", instance="10.0.9.9:8080", job="kube-state-metrics", '
        'node="%s", status="true"}' % node: ready,
    }


def promtool_file(directory, name, series, steps, critical, warning):
    """A promtool test of the shipped rules on `series`: at the end, the
    firing critical alerts are exactly `critical` and the firing
    PlegscopeCannotReachRuntime exactly `warning` ([labels], through ALERTS,
    so no other critical alert may fire either), and each critical alert the
    blind agents could raise is silent on every other node."""
    end = (steps - 1) * STEP
    lines = ["rule_files:", "  - %s" % ecolib.path("alerts/plegscope.rules.yml"), "evaluation_interval: 10s",
             "tests:", "  - name: %s" % name, "    interval: %ds" % STEP, "    input_series:"]
    for key in sorted(series):
        lines += ["      - series: '%s'" % key, "        values: '%s'" % values_text(series[key])]
    lines.append("    promql_expr_test:")
    for expr, exp in (('ALERTS{alertstate="firing", severity="critical"}', critical),
                      ('ALERTS{alertstate="firing", alertname="PlegscopeCannotReachRuntime"}', warning)):
        lines += ["      - expr: '%s'" % expr, "        eval_time: %ds" % end]
        if not exp:
            lines.append("        exp_samples: []")
            continue
        lines.append("        exp_samples:")
        for labels in exp:
            labels = dict(labels, alertstate="firing")
            lines += ["          - labels: '%s'" % ("ALERTS{%s}" % ", ".join(
                          '%s="%s"' % (k, v) for k, v in sorted(labels.items()))),
                      "            value: 1"]
    path = os.path.join(directory, name.replace(" ", "_") + ".yml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def run_promtool(path):
    promtool = harness.require_tool("promtool")
    r = ecolib.run([promtool, "test", "rules", path])
    print(r.stdout[-3000:])
    assert r.returncode == 0, r.stdout


def first_lines(agent, n=8):
    status, body = agent.get("/diagnose?format=text")
    assert status == 200, body
    return body.splitlines()[:n]


def test_blind_agents_never_page_never_act_and_say_so():
    tmp = readable_dir("plegscope-blind-")
    try:
        run(tmp)
    finally:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


def run(tmp):
    # Every `for:` the blind agents could trip must have passed, and
    # PlegscopeCannotReachRuntime's 5 minutes after worker-4's runtime died.
    assert DURATION >= KILL_AT + 330, "PLEGSCOPE_BLIND_SECONDS must be at least %d" % (KILL_AT + 330)
    nobody = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups"]
    harness.require_tool("setpriv")
    missing = "unix://" + os.path.join(tmp, "run", "k3s", "containerd", "containerd.sock")
    not_cri_path = os.path.join(tmp, "http.sock")
    not_cri = NotCri(not_cri_path)
    with FakeApiServer(tmp, node="worker-1", mode="ready",
                       other_nodes=("worker-2", "worker-3", "worker-4")) as api, \
            harness.FakeCri("steady") as denied_runtime, harness.FakeCri("steady") as dying_runtime:
        os.chmod(api.ca_file, 0o644)
        os.chmod(denied_runtime.dir, 0o755)
        os.chmod(denied_runtime.socket, 0o600)  # root's: nobody may not connect
        tokens = token_file(tmp)

        def flags(node):
            return ["--node-name", node, "--relist-period", "1s", "--node-condition",
                    "--node-condition-hold", "0s", "--node-condition-min-interval", "0s",
                    "--api-server-ca-file", api.ca_file, "--api-server-token-file", tokens,
                    "--journal-path", os.path.join(tmp, "no-journal")]

        agents = {
            "worker-1": AgentAs(nobody, denied_runtime.endpoint, flags("worker-1"), proc_path=PROC,
                                log_level="info", env=api.env()),
            "worker-2": harness.Agent(missing, flags("worker-2"), proc_path=PROC, log_level="info", env=api.env()),
            "worker-3": harness.Agent("unix://" + not_cri_path, flags("worker-3"), proc_path=PROC,
                                      log_level="info", env=api.env()),
            "worker-4": harness.Agent(dying_runtime.endpoint, flags("worker-4"), proc_path=PROC,
                                      log_level="info", env=api.env()),
        }
        for a in agents.values():
            a.__enter__()
        try:
            check_run(api, agents, dying_runtime, tmp)
        finally:
            for a in agents.values():
                a.__exit__(None, None, None)
            not_cri.close()


def check_run(api, agents, dying_runtime, tmp):
    steps = DURATION // STEP + 1
    captures = {n: [] for n in agents}
    start_wall = time.time()
    start = time.monotonic()
    killed = False
    for k in range(steps):
        harness.wait_until(lambda: time.monotonic() >= start + k * STEP, STEP + 5, "step %d" % k, interval=0.05)
        if not killed and k * STEP >= KILL_AT:
            dying_runtime.proc.stop(sig=9)  # SIGKILL: the socket stays, nobody listens
            killed = True
        for node, agent in agents.items():
            try:
                captures[node].append(agent.metrics())
            except Exception as e:  # a missed scrape is a gap, as in Prometheus
                print("%s: scrape %d failed: %s" % (node, k, e))
                captures[node].append(None)
        for node in BLIND:
            c = api.condition(node, TYPE)
            assert not c or c["status"] != "True", "%s: a blind agent set %s True: %s" % (node, TYPE, c)
            assert not api.condition(node, REPAIR), "%s: a blind agent wrote %s" % (node, REPAIR)
    print("captured %d scrapes of 4 agents over %ds" % (steps, (steps - 1) * STEP))

    # What each agent says of itself, at the end of the run.
    for node, reason in sorted(BLIND.items()):
        m = captures[node][-1]
        assert m.get("pleg_runtime_unreachable", reason=reason) == 1, (node, m.find("pleg_runtime_unreachable"))
        assert not m.has("pleg_runtime_condition"), (node, "a runtime that never answered has no conditions")
        report = agents[node].get_json("/diagnose")
        lines = first_lines(agents[node])
        print("%s (%s), /diagnose?format=text:\n  %s" % (node, reason, "\n  ".join(lines)))
        assert report["blind"] and report["blind"]["reason"] == reason, report["blind"]
        assert report["status"] != "unhealthy", report["status"]
        assert report["summary"].startswith("plegscope is blind: "), report["summary"]
        assert all(c["advice"] not in ("restart-runtime", "reboot", "replace") for c in report["causes"]), \
            report["causes"]
        assert all(c["severity"] != "critical" for c in report["causes"]), report["causes"]
        text = "\n".join(lines)
        assert "blind" in text and reason in text, text
        assert "restart" not in text.lower(), text
        assert report["node_condition"]["status"] != "True", report["node_condition"]
        assert api.condition(node, TYPE) is None and api.condition(node, REPAIR) is None, node
    down = agents["worker-4"].get_json("/diagnose")
    m = captures["worker-4"][-1]
    print("worker-4 (runtime killed, socket refusing): status %s, causes %s, unreachable %s" % (
        down["status"], [(c["id"], c["severity"], c["advice"]) for c in down["causes"]],
        [(s.labels, s.value) for s in m.find("pleg_runtime_unreachable")]))
    assert down["blind"] is None, down["blind"]
    assert m.get("pleg_runtime_unreachable", reason="connection_refused") == 1, m.find("pleg_runtime_unreachable")
    top = down["causes"][0]
    assert top["id"] == "runtime_unavailable" and top["advice"] == "restart-runtime", down["causes"]
    harness.wait_until(lambda: (api.condition("worker-4", TYPE) or {}).get("status") == "True", 20,
                       "the down runtime's node condition True (the writer works here)")

    # The shipped rules on what the agents exported.
    series = {}
    for node in agents:
        series.update(series_of(captures[node], node, start_wall))
    cannot_reach = [{"alertname": "PlegscopeCannotReachRuntime", "severity": "warning", "node": n, "reason": r}
                    for n, r in sorted(BLIND.items())] + [
        {"alertname": "PlegscopeCannotReachRuntime", "severity": "warning", "node": "worker-4",
         "reason": "connection_refused"}]
    # worker-4's runtime is really down: its pages fire, and only those.
    down_pages = [{"alertname": a, "severity": "critical", "node": "worker-4"}
                  for a in ("PLEGNotHealthy", "CRIRuntimeUnavailable", "CRIRuntimeStatusDown")]
    kubelets = {}
    for node in BLIND:
        kubelets.update(kubelet_series(node, steps))
    kubelets.update(kubelet_series("worker-4", steps, healthy_until=KILL_AT))
    # The files stay with the test's logs, to be read or run again.
    keep = harness._log_directory()
    run_promtool(promtool_file(keep, "blind agents beside healthy kubelets", dict(series, **kubelets), steps,
                               down_pages, cannot_reach))
    # No kubelet view at all: the blind guard alone keeps the pages away;
    # worker-4's evidence alone still pages.
    run_promtool(promtool_file(keep, "blind agents with no kubelet view", series, steps, down_pages, cannot_reach))


if __name__ == "__main__":
    harness.main(globals())
