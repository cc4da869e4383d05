"""The real kubelet's "PLEG is not healthy" and plegscope beside it, in two
failures held past the 3-minute threshold at once, each on a cluster of its
own: here, containerd stopped with SIGSTOP, then resumed; in a child process
(frozen_shim.py, its own docstring says what it asserts), one pod's shim
frozen while the kubelet's resize of that pod waits on it, then thawed. The
child's slot is half the range from this one's; the kernel tunables both
kubelets set are saved before either starts and restored once, after both.
Both scenarios' figures go to cluster-pleg-unhealthy.json (the frozen
shim's under "frozen_shim").

The agent runs with the shipped ServiceAccount (deploy/ plus the
node-condition component: its ClusterRole and ValidatingAdmissionPolicy),
its token bound to a pod on the node as the DaemonSet's projected token is,
and --node-condition. Asserted:
- the admission policy refuses that token a status write to another Node, a
  change to another condition type on its own Node, and an Event about
  another Node; it lets the agent's own condition through;
- stopped: the kubelet logs "PLEG is not healthy" and its Ready condition
  says so; plegscope's /healthz turns 500 within a few seconds of the
  kubelet's log line (the same 3-minute rule on the same runtime), its
  report names runtime_hung; plegscope.io/PLEGUnhealthy is True before the
  kubelet's Ready message says PLEG is not healthy (the lead over that and
  over Ready=False, whatever its first message, is printed and written);
- meanwhile, since the hold needs only time, kwok's 1,000 simulated Nodes
  on the same API server and `kubectl plegscope nodes` over them
  (tests/cluster/fleet.py);
- resumed: both clear, and the condition goes False no sooner than the
  clear-after time; the Events are visible through kubectl get events.
- plegscope.io/NodeRepairAdvised (repair window 30 s here) waits for the
  kubelet (docs/condition.md): the agent reads the kubelet's view from its
  Ready condition alone here (--kubelet-endpoint off, the kubelet's release
  given), so past the window the repair advice is withheld while the
  kubelet still posts Ready (it disagrees), and set True for this real
  node-level failure (containerd stopped: restart-runtime) only once the
  Ready condition names the runtime ("container runtime is down") or PLEG;
  both times are written.
"""

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fleet  # noqa: E402
import harness  # noqa: E402
import pleg_watch as pw  # noqa: E402
import sidebyside as sbs  # noqa: E402
from cluster import NODE, Cluster, log, read_tunables, restore_tunables, slot_for_child  # noqa: E402
from e2e_util import Agent  # noqa: E402
from harness import wait_until  # noqa: E402

COND, CLEAR_AFTER = pw.COND, pw.CLEAR_AFTER
SOURCE = harness.source_dir()


def check_admission_policy(c, token_file):
    """The shipped policy, with the shipped credentials: own condition yes,
    anything else no."""
    with open(token_file) as f:
        token = f.read().strip()
    c.apply({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "pscl-other"}})
    own = {"status": {"conditions": [{"type": COND, "status": "False", "reason": "PLEGHealthy",
                                      "message": "admission check"}]}}
    other_type = {"status": {"conditions": [{"type": "Ready", "status": "False", "reason": "X", "message": "x"}]}}
    smp = "application/strategic-merge-patch+json"
    code, body = c.api(token, "PATCH", "/api/v1/nodes/pscl-other/status", own, smp)
    assert code >= 400 and "only its own Node" in body, (code, body)
    code, body = c.api(token, "PATCH", "/api/v1/nodes/%s/status" % NODE, other_type, smp)
    assert code >= 400 and "only its own condition" in body, (code, body)
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "pscl-other.x", "namespace": "default"},
             "involvedObject": {"kind": "Node", "name": "pscl-other"}, "reason": "X", "message": "x",
             "type": "Warning", "source": {"component": "plegscope"}}
    code, body = c.api(token, "POST", "/api/v1/namespaces/default/events", event)
    assert code >= 400 and "Events about its own Node" in body, (code, body)
    code, body = c.api(token, "PATCH", "/api/v1/nodes/%s/status" % NODE, own, smp)
    assert code == 200, (code, body)
    c.kubectl("delete", "node", "pscl-other")
    log("admission policy: refused another node, another condition, another node's Event; allowed its own")


REPAIR = "plegscope.io/NodeRepairAdvised"
REPAIR_AFTER = 30


class RepairWatch(pw.Watch):
    """The watch, and the repair advice beside it, polled once a second on a
    thread of its own from the stop on (the kwok fleet runs in the same
    minutes): when the agent first held it back for the kubelet, and when
    NodeRepairAdvised was first True on the Node."""

    def __init__(self, c, agent, began):
        super().__init__(c, agent, began)
        self.withheld_while_ready = None
        self.withheld_kubelet = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._repair_loop, daemon=True)
        self.thread.start()

    def _repair_loop(self):
        while not self.done.wait(1.0):
            try:
                repair = self.agent.get_json("/diagnose")["node_condition"]["repair"]
                advised, ready = self.c.node_condition(REPAIR), self.c.node_condition("Ready")
            except Exception as e:  # noqa: BLE001 - a slow answer under load is a missed sample, not a failure
                log("repair watch: %s" % e)
                continue
            if repair["advice"] == "withheld_kubelet_disagrees" and "repair_withheld" not in self.seen:
                self.withheld_while_ready = bool(ready and ready["status"] == "True")
                self.withheld_kubelet = repair["kubelet"]
            self.mark("repair_withheld", repair["advice"] == "withheld_kubelet_disagrees")
            self.mark("repair_true", advised and advised["status"] == "True")
            if "repair_true" in self.seen:
                return

    def all_turned(self):
        return super().all_turned() and "repair_true" in self.seen


def stop_and_watch(c, agent, ctd_pid, shim_thawed):
    os.kill(ctd_pid, signal.SIGSTOP)
    w = RepairWatch(c, agent, time.time())
    log("containerd pid %d stopped (SIGSTOP)" % ctd_pid)
    # The kubelet's 3 minutes and more go by whatever the test does; the
    # fleet needs only the API server, so it runs in them. Every signal
    # below is a transition time the API server or the kubelet's log keeps,
    # or (the agent's /healthz) turns at 3 minutes, long after the fleet.
    w.fleet = fleet.kwok_fleet(c)
    wait_until(w.all_turned, 330, "the kubelet and plegscope both reporting PLEG unhealthy, repair advised",
               interval=1.0)
    # The frozen-shim scenario's cluster runs a second containerd on this
    # host (as docker's does beside a kubelet's), and its frozen shim names
    # that containerd's socket: this agent, scanning the whole host, must
    # not take it for a shim of its own runtime.
    causes = [x["id"] for x in agent.get_json("/diagnose")["causes"]]
    assert "shim_hung" not in causes, "the other containerd's frozen shim blamed on this node: %s" % causes
    wait_until(lambda: os.path.exists(shim_thawed), 120, "the other cluster's shim thawed", interval=1.0)
    report = agent.get_json("/diagnose")
    ready, cond = c.node_condition("Ready"), c.node_condition(COND)
    w.done.set()
    return w, report, ready, cond


def sigstop_scenario(shim_thawed):
    """The SIGSTOP scenario on a cluster of this process; (figures, fleet)."""
    with Cluster(own_tunables=False) as c:
        token = sbs.shipped_token(c)
        for f in ("rbac.yaml", "admission-policy.yaml"):
            c.kubectl("apply", "-f", os.path.join(SOURCE, "deploy", "components", "node-condition", f))
        sbs.identity_pod(c)
        token = sbs.shipped_token(c, bound_pod="identity")
        check_admission_policy(c, token)
        sbs.scale(c, 3, 120)
        # The kubelet's view from its Ready condition alone: its metrics
        # would agree within seconds of the stop (its relist count stops
        # too), so the Ready condition is what keeps it disagreeing for the
        # kubelet's 3 minutes. Its release is given, so the agent keeps
        # following the bed kubelet's PLEG (pleg_watch.kubelet_release()).
        flags = [f for f in sbs.agent_flags(c, token)]
        at = flags.index("--kubelet-endpoint")
        flags[at + 1] = "off"
        flags += ["--kubelet-version", pw.kubelet_release(), "--node-condition",
                  "--node-condition-clear-after", "%ds" % CLEAR_AFTER, "--node-condition-min-interval", "5s",
                  "--node-repair-advised-after", "%ds" % REPAIR_AFTER]
        with Agent(c.ctd.endpoint, flags, env=sbs.agent_env(c), log_level="info") as agent:
            wait_until(lambda: (c.node_condition(COND) or {}).get("status") == "False"
                       and (c.node_condition(COND) or {}).get("reason") == "PLEGHealthy", CLEAR_AFTER + 60,
                       "%s False from plegscope" % COND, interval=1.0)
            ctd_pid = c.ctd.proc.pid
            try:
                w, report, ready, cond = stop_and_watch(c, agent, ctd_pid, shim_thawed)
            finally:
                os.kill(ctd_pid, signal.SIGCONT)
            resumed = time.time()
            figures = pw.figures(w, ready, cond, report)
            log("figures: %s" % json.dumps(figures, indent=1))
            assert abs(figures["agent_healthz_500_after_stop_s"] - figures["kubelet_log_pleg_after_stop_s"]) <= 10, \
                figures
            assert report["status"] == "unhealthy", report["status"]
            # A stopped runtime is the hang whatever else loads the host: on a
            # busy machine node_pressure may be named too, below it.
            causes = figures["causes"]
            assert causes.get("runtime_hung") == "critical", causes
            assert report["causes"][0]["id"] == "runtime_hung", causes
            assert cond["reason"] == "RuntimeHung", cond
            assert figures["ready_says_pleg_after_stop_s"] >= figures["condition_true_after_stop_s"], figures
            # The repair advice: withheld past its window while the kubelet
            # posted Ready, set once its Ready condition said PLEG.
            seen = w.seen
            figures["repair_withheld_after_stop_s"] = seen["repair_withheld"] - seen["stop"]
            figures["repair_true_after_stop_s"] = seen["repair_true"] - seen["stop"]
            figures["repair_withheld_kubelet"] = w.withheld_kubelet
            log("repair advice withheld at +%.0fs (kubelet %s), True at +%.0fs (Ready False at +%.0fs)" % (
                figures["repair_withheld_after_stop_s"], w.withheld_kubelet, figures["repair_true_after_stop_s"],
                figures["ready_false_after_stop_s"]))
            assert w.withheld_while_ready, "withheld only after the kubelet left Ready"
            assert w.withheld_kubelet == "disagrees:ready_condition", w.withheld_kubelet
            assert figures["repair_withheld_after_stop_s"] >= REPAIR_AFTER, figures
            # The kubelet agrees once its Ready condition names the runtime
            # ("container runtime is down", 30 s without a Status) or PLEG:
            # read every 30 s, so never before Ready turned False.
            assert figures["repair_true_after_stop_s"] >= figures["ready_false_after_stop_s"] - 1, figures
            assert c.node_condition(REPAIR)["reason"] in ("RuntimeHung", "ShimHung"), c.node_condition(REPAIR)
            pw.recover(c, agent, resumed, figures, "RuntimeHung")
    return figures, w.fleet


def _term_with_parent():
    # Between fork and exec: if this test dies, even by SIGKILL, the child
    # gets SIGTERM, on which it thaws its shim and tears its cluster down.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def start_frozen_shim(out, thawed):
    """frozen_shim.py in a child process, with a cluster of its own in a slot
    of its own; the kernel tunables are this process's to restore."""
    env = dict(os.environ, PLEGSCOPE_CLUSTER_TUNABLES="outside", PLEGSCOPE_FROZEN_SHIM_OUT=out,
               PLEGSCOPE_FROZEN_SHIM_THAWED=thawed, **slot_for_child())
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frozen_shim.py")
    log_file = open(os.path.join(harness._log_directory(), "frozen-shim.log"), "w+")
    child = subprocess.Popen([sys.executable, "-u", script], env=env, stdin=subprocess.DEVNULL,
                             stdout=log_file, stderr=subprocess.STDOUT, preexec_fn=_term_with_parent)
    child.log_file = log_file
    return child


def finish_frozen_shim(child, out, timeout):
    """Its figures, once it passed; its output is printed either way. A child
    still running after TIMEOUT (or when this test fails) gets SIGTERM."""
    try:
        rc = child.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        rc = None
    finally:
        if child.poll() is None:
            child.terminate()
            child.wait(timeout=180)
        child.log_file.seek(0)
        print("".join("  [frozen shim] " + line for line in child.log_file), flush=True)
    if rc == harness.SKIP_EXIT:
        raise harness.Skip("the frozen-shim scenario skipped (its output above)")
    assert rc == 0, "the frozen-shim scenario failed (exit %s, its output above)" % rc
    with open(out) as f:
        return json.load(f)


def test_pleg_unhealthy_on_real_kubelet():
    # Two kubelets hold at once, the SIGSTOP one here and the frozen-shim one
    # in a child: the host's tunables are saved before either starts and
    # restored once, after both.
    saved = read_tunables()
    shim_out = os.path.join(harness._log_directory(), "cluster-frozen-shim.json")
    thawed = os.path.join(harness._log_directory(), "frozen-shim.thawed")
    shim = start_frozen_shim(shim_out, thawed)
    try:
        try:
            figures, fleet_figures = sigstop_scenario(thawed)
        except BaseException:
            with contextlib.suppress(Exception):
                finish_frozen_shim(shim, shim_out, 0)  # stopped, torn down, its output shown
            raise
        figures["frozen_shim"] = finish_frozen_shim(shim, shim_out, 300)
    finally:
        restore_tunables(saved)
    log("frozen shim: condition lead over Ready=False %.0fs, /healthz 500 %.1fs after the resize" % (
        figures["frozen_shim"]["condition_lead_over_ready_false_s"],
        figures["frozen_shim"]["agent_healthz_500_after_stop_s"]))
    out = os.environ.get("PLEGSCOPE_CLUSTER_OUT") or harness._log_directory()
    sbs.dump(os.path.join(out, "cluster-pleg-unhealthy.json"), figures)
    sbs.dump(os.path.join(out, "cluster-fleet.json"), fleet_figures)


if __name__ == "__main__":
    harness.main(globals())
