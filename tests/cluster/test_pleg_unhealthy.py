"""The real kubelet's "PLEG is not healthy" and plegscope beside it, on one
containerd stopped with SIGSTOP past the 3-minute threshold, then resumed.

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
"""

import calendar
import json
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fleet  # noqa: E402
import harness  # noqa: E402
import sidebyside as sbs  # noqa: E402
from cluster import NODE, Cluster, log  # noqa: E402
from e2e_util import Agent  # noqa: E402
from harness import wait_until  # noqa: E402

COND = "plegscope.io/PLEGUnhealthy"
# Short, for the test: what is checked is that the condition waits it out.
CLEAR_AFTER = 15
SOURCE = harness.source_dir()


def rfc3339(ts):
    return calendar.timegm(time.strptime(ts, "%Y-%m-%dT%H:%M:%SZ"))


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


KLOG = re.compile(r"^[IWEF](\d\d)(\d\d) (\d\d:\d\d:\d\d\.\d+)")


def kubelet_pleg_line(c, after):
    """Wall time of the kubelet's first "PLEG is not healthy: pleg was last
    seen active" log line at or after AFTER, or None. (At its start the
    kubelet also logs "PLEG is not healthy: pleg has yet to be successful".)"""
    for line in c.procs["kubelet"].output().splitlines():
        if "PLEG is not healthy: pleg was last seen active" in line:
            m = KLOG.match(line)
            if m:
                t = time.strptime("%s-%s-%s %s" % (time.gmtime().tm_year, m.group(1), m.group(2),
                                                    m.group(3).split(".")[0]), "%Y-%m-%d %H:%M:%S")
                # klog writes the host's local time.
                at = time.mktime(t) + float("0." + m.group(3).split(".")[1])
                if at >= after:
                    return at
    return None


class Watch:
    """First-seen wall times of each side's signal, polled once a second."""

    def __init__(self, c, agent):
        self.c, self.agent, self.seen = c, agent, {}

    def mark(self, key, cond):
        if cond and key not in self.seen:
            self.seen[key] = time.time()
            log("%s at +%.1fs" % (key, self.seen[key] - self.seen.get("stop", self.seen[key])))

    def poll(self):
        ready, cond = self.c.node_condition("Ready"), self.c.node_condition(COND)
        self.mark("ready_false", ready and ready["status"] == "False")
        self.mark("ready_says_pleg", ready and "PLEG is not healthy" in ready.get("message", ""))
        self.mark("condition_true", cond and cond["status"] == "True")
        self.mark("agent_healthz_500", self.agent.get("/healthz")[0] == 500)
        self.mark("kubelet_log_pleg", kubelet_pleg_line(self.c, self.seen["stop"]) is not None)
        return ready, cond


def stop_and_watch(c, agent, ctd_pid):
    w = Watch(c, agent)
    os.kill(ctd_pid, signal.SIGSTOP)
    w.seen["stop"] = time.time()
    log("containerd pid %d stopped (SIGSTOP)" % ctd_pid)
    # The kubelet's 3 minutes and more go by whatever the test does; the
    # fleet needs only the API server, so it runs in them. Every signal
    # below is a transition time the API server or the kubelet's log keeps,
    # or (the agent's /healthz) turns at 3 minutes, long after the fleet.
    w.fleet = fleet.kwok_fleet(c)

    def all_turned():
        w.poll()
        return all(k in w.seen for k in ("ready_says_pleg", "condition_true", "agent_healthz_500",
                                         "kubelet_log_pleg"))
    wait_until(all_turned, 330, "the kubelet and plegscope both reporting PLEG unhealthy", interval=1.0)
    report = agent.get_json("/diagnose")
    ready, cond = c.node_condition("Ready"), c.node_condition(COND)
    return w, report, ready, cond


def test_pleg_unhealthy_on_real_kubelet():
    with Cluster() as c:
        token = sbs.shipped_token(c)
        for f in ("rbac.yaml", "admission-policy.yaml"):
            c.kubectl("apply", "-f", os.path.join(SOURCE, "deploy", "components", "node-condition", f))
        sbs.identity_pod(c)
        token = sbs.shipped_token(c, bound_pod="identity")
        check_admission_policy(c, token)
        sbs.scale(c, 3, 120)
        flags = sbs.agent_flags(c, token) + ["--node-condition", "--node-condition-clear-after", "%ds" % CLEAR_AFTER,
                                             "--node-condition-min-interval", "5s"]
        with Agent(c.ctd.endpoint, flags, env=sbs.agent_env(c), log_level="info") as agent:
            wait_until(lambda: (c.node_condition(COND) or {}).get("status") == "False"
                       and (c.node_condition(COND) or {}).get("reason") == "PLEGHealthy", CLEAR_AFTER + 60,
                       "%s False from plegscope" % COND, interval=1.0)
            ctd_pid = c.ctd.proc.pid
            try:
                w, report, ready, cond = stop_and_watch(c, agent, ctd_pid)
            finally:
                os.kill(ctd_pid, signal.SIGCONT)
            resumed = time.time()
            stop = w.seen["stop"]
            kubelet_t = kubelet_pleg_line(c, stop)
            ready_false_t = rfc3339(ready["lastTransitionTime"])
            cond_true_t = rfc3339(cond["lastTransitionTime"])
            figures = {
                "kubelet_log_pleg_after_stop_s": kubelet_t - stop,
                "agent_healthz_500_after_stop_s": w.seen["agent_healthz_500"] - stop,
                "ready_false_after_stop_s": ready_false_t - stop,
                "ready_says_pleg_after_stop_s": w.seen["ready_says_pleg"] - stop,
                "condition_true_after_stop_s": cond_true_t - stop,
                "condition_lead_over_ready_false_s": ready_false_t - cond_true_t,
                "condition_lead_over_ready_pleg_s": w.seen["ready_says_pleg"] - cond_true_t,
                "ready_message": ready["message"], "condition_reason": cond["reason"],
                "top_cause": report["causes"][0]["id"] if report["causes"] else None,
            }
            log("figures: %s" % json.dumps(figures, indent=1))
            assert abs(w.seen["agent_healthz_500"] - kubelet_t) <= 10, figures
            assert report["status"] == "unhealthy", report["status"]
            # A stopped runtime is the hang whatever else loads the host: on a
            # busy machine node_pressure may be named too, below it.
            causes = {x["id"]: x["severity"] for x in report["causes"]}
            figures["causes"] = causes
            assert causes.get("runtime_hung") == "critical", causes
            assert report["causes"][0]["id"] == "runtime_hung", causes
            assert cond["reason"] == "RuntimeHung", cond
            assert cond_true_t <= w.seen["ready_says_pleg"], figures
            recover(c, agent, resumed, figures)
        out = os.environ.get("PLEGSCOPE_CLUSTER_OUT") or harness._log_directory()
        sbs.dump(os.path.join(out, "cluster-pleg-unhealthy.json"), figures)
        sbs.dump(os.path.join(out, "cluster-fleet.json"), w.fleet)


def recover(c, agent, resumed, figures):
    wait_until(lambda: agent.get("/healthz")[0] == 200, 60, "plegscope /healthz 200 again")
    figures["agent_healthy_after_resume_s"] = time.time() - resumed
    wait_until(c.node_ready, 120, "node Ready again", interval=1.0)
    figures["ready_true_after_resume_s"] = time.time() - resumed
    wait_until(lambda: c.node_condition(COND)["status"] == "False", CLEAR_AFTER + 90,
               "%s False after clear-after" % COND, interval=1.0)
    cleared = rfc3339(c.node_condition(COND)["lastTransitionTime"])
    figures["condition_false_after_resume_s"] = cleared - resumed
    assert cleared - resumed >= CLEAR_AFTER - 1, figures
    events = c.get_json("events", "-n", "default", "--field-selector", "involvedObject.kind=Node")["items"]
    mine = [(e["type"], e["reason"]) for e in events if e.get("source", {}).get("component") == "plegscope"
            or e.get("reportingComponent") == "plegscope"]
    log("plegscope's Events on the Node: %s" % mine)
    assert ("Warning", "RuntimeHung") in mine and ("Normal", "PLEGHealthy") in mine, events
    log("recovered: %s" % {k: v for k, v in figures.items() if "resume" in k})


if __name__ == "__main__":
    harness.main(globals())
