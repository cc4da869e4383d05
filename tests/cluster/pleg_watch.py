"""What both PLEG scenarios watch on the real kubelet and plegscope beside it:
the kubelet's log line, the Node's Ready and plegscope.io/PLEGUnhealthy, the
agent's /healthz, each first seen once a second after the failure began."""

import calendar
import re
import time

from cluster import log

COND = "plegscope.io/PLEGUnhealthy"
# Short, for the test: what is checked is that the condition waits it out.
CLEAR_AFTER = 15
KLOG = re.compile(r"^[IWEF](\d\d)(\d\d) (\d\d:\d\d:\d\d\.\d+)")
TURNED = ("ready_says_pleg", "condition_true", "agent_healthz_500", "kubelet_log_pleg")


def rfc3339(ts):
    return calendar.timegm(time.strptime(ts, "%Y-%m-%dT%H:%M:%SZ"))


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
    """First-seen wall times of each side's signal, polled once a second;
    seen["stop"] is when the failure began."""

    def __init__(self, c, agent, began):
        self.c, self.agent, self.seen = c, agent, {"stop": began}

    def mark(self, key, cond):
        if cond and key not in self.seen:
            self.seen[key] = time.time()
            log("%s at +%.1fs" % (key, self.seen[key] - self.seen["stop"]))

    def poll(self):
        ready, cond = self.c.node_condition("Ready"), self.c.node_condition(COND)
        self.mark("ready_false", ready and ready["status"] == "False")
        self.mark("ready_says_pleg", ready and "PLEG is not healthy" in ready.get("message", ""))
        self.mark("condition_true", cond and cond["status"] == "True")
        self.mark("agent_healthz_500", self.agent.get("/healthz")[0] == 500)
        self.mark("kubelet_log_pleg", kubelet_pleg_line(self.c, self.seen["stop"]) is not None)
        return ready, cond

    def all_turned(self):
        self.poll()
        return all(k in self.seen for k in TURNED)


def figures(w, ready, cond, report):
    """The transition times after the failure began, and the condition's lead."""
    stop = w.seen["stop"]
    kubelet_t = kubelet_pleg_line(w.c, stop)
    ready_false_t, cond_true_t = rfc3339(ready["lastTransitionTime"]), rfc3339(cond["lastTransitionTime"])
    return {
        "kubelet_log_pleg_after_stop_s": kubelet_t - stop,
        "agent_healthz_500_after_stop_s": w.seen["agent_healthz_500"] - stop,
        "ready_false_after_stop_s": ready_false_t - stop,
        "ready_says_pleg_after_stop_s": w.seen["ready_says_pleg"] - stop,
        "condition_true_after_stop_s": cond_true_t - stop,
        "condition_lead_over_ready_false_s": ready_false_t - cond_true_t,
        "condition_lead_over_ready_pleg_s": w.seen["ready_says_pleg"] - cond_true_t,
        "ready_message": ready["message"], "condition_reason": cond["reason"],
        "top_cause": report["causes"][0]["id"] if report["causes"] else None,
        "causes": {x["id"]: x["severity"] for x in report["causes"]},
    }


def recover(c, agent, resumed, figures, reason):
    """After the runtime answers again: both sides clear, the condition goes
    False no sooner than its clear-after time, and the agent's Events (a
    Warning REASON, then Normal PLEGHealthy) are on the Node."""
    from harness import wait_until
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
    assert ("Warning", reason) in mine and ("Normal", "PLEGHealthy") in mine, events
    log("recovered: %s" % {k: v for k, v in figures.items() if "resume" in k})


def kubelet_release():
    """The bed's kubelet release, for --kubelet-version where the agent does not read its metrics."""
    import parts
    return parts.versions()["KUBERNETES_VERSION"]
