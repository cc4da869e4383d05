#!/usr/bin/env python3
"""A seeded fault campaign on the real one-node cluster (tests/cluster/),
recorded for tests/chaos/score.py.

    campaign.py --seed 7 --profile short --out DIR
    campaign.py --seed 11 --profile long --minutes 45 --out DIR

One cluster (the bed's kubelet on its containerd: 2.3 + runc 1.4 by default,
env PLEGSCOPE_CONTAINERD), plegscope beside
it as a node process with the shipped ServiceAccount and --node-condition,
a private Prometheus scraping it through the shipped rules
(alerts/plegscope.rules.yml). The schedule (schedule()) is drawn from the
seed: quiet periods, ordinary churn and faults (tests/chaos/faults.py),
some overlapping. While it runs, a poller keeps the agent's /diagnose
(status, ranked causes with their summaries), the Node's Ready and
plegscope.io/PLEGUnhealthy conditions, every 2 s. At the end the kubelet's
"PLEG is not healthy" log lines, plegscope's Events and the critical alerts
Prometheus fired are added. DIR then holds:
    truth.json          seed, versions, start/end, every segment (quiet,
                        churn, fault: class, culprit, start, end, expect)
    timeline.jsonl.gz   the polls
    kubelet.json        PLEG log lines, Ready transitions, Events
    alerts.json         [t, alertname, severity] of firing alerts, 5 s steps
Everything the campaign made goes with the cluster's own cleanup.
"""

import argparse
import contextlib
import gzip
import json
import os
import random
import signal
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cluster"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

import harness  # noqa: E402
import pleg_watch as pw  # noqa: E402
import sidebyside as sbs  # noqa: E402
from cluster import NODE, Cluster, log  # noqa: E402
import containerd_fixture  # noqa: E402  tests/e2e (on the path after cluster)
from e2e_util import Agent  # noqa: E402
from harness import wait_until  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "ecosystem"))
import ecolib  # noqa: E402
import faults  # noqa: E402

SOURCE = harness.source_dir()
CLEAR_AFTER = 15
POLL = 2.0


# ---------------------------------------------------------------- schedule

def schedule(seed, profile, minutes=None, major=2, only=None):
    """[(kind, class, hold, overlap)] from the seed, for a containerd of
    MAJOR version (NRI and CNI STATUS only from 2). short: every supported
    class once, sub-NotReady classes in a seeded order with seeded holds,
    zombies overlapping the runtime stopped (two faults at once, held until
    the kubelet's Ready=False) while pods are created (a fault during
    churn); on 2.x the network fault is the CNI plugin's STATUS (the way a
    plugin fails), the configuration taken away only in the long profile.
    long: seeded draws until MINUTES, every class before any repeats.
    ONLY (class names): a quiet start, then each of them once with the
    profile's holds, for a developer trying one class on the bed."""
    rng = random.Random(seed)
    sub = ["runtime_killed", "shim_frozen", "event_storm", "network_not_ready", "zombies", "memory_pressure_oom"]
    if major >= 2:
        sub += ["nri_stall", "cni_status_unhealthy", "runtime_status_hung"]
    holds = {"runtime_killed": (15, 30), "shim_frozen": (35, 60), "event_storm": (15, 30),
             "network_not_ready": (25, 45), "zombies": (25, 40), "runtime_stopped": (40, 90),
             "memory_pressure_oom": (30, 60), "nri_stall": (15, 30), "cni_status_unhealthy": (25, 45),
             "runtime_status_hung": (45, 75)}
    if profile == "short":
        # Within the CI budget: shorter holds (each still past the agent's
        # 10 s hang threshold and the kubelet's 10 s status period).
        holds = {"runtime_killed": (12, 18), "shim_frozen": (25, 35), "event_storm": (10, 15),
                 "network_not_ready": (20, 30), "cni_status_unhealthy": (20, 30), "nri_stall": (10, 14),
                 "runtime_status_hung": (40, 50),
                 "memory_pressure_oom": (20, 25)}
    if only:
        plan = [("quiet", None, 15, None)]
        for cls in only:
            plan.append(("fault", cls, rng.randint(*holds[cls]) if cls in holds else None, None))
            plan.append(("quiet", None, 20, None))
        return plan
    if profile == "short":
        plan = [("quiet", None, rng.randint(10, 15), None), ("churn", None, rng.randint(25, 35), None)]
        order = [x for x in sub if x != "zombies" and not (major >= 2 and x == "network_not_ready")]
        rng.shuffle(order)
        for cls in order:
            plan.append(("fault", cls, rng.randint(*holds[cls]), None))
            plan.append(("quiet", None, rng.randint(5, 10), None))
        plan.append(("fault", "runtime_stopped", None, "zombies+churn"))
        plan.append(("quiet", None, 20, None))
        return plan
    plan = [("quiet", None, rng.randint(15, 25), None), ("churn", None, rng.randint(30, 45), None)]
    budget = (minutes or 60) * 60
    spent = 120
    bag = []
    while spent < budget:
        if not bag:
            bag = sub + ["runtime_stopped"]
            rng.shuffle(bag)
        cls = bag.pop()
        if cls == "runtime_stopped":
            notready = rng.random() < 0.6
            overlap = rng.choice([None, "zombies", "churn", "zombies+churn"])
            plan.append(("fault", cls, None if notready else rng.randint(*holds[cls]), overlap))
            spent += 320 if notready else 120
        else:
            plan.append(("fault", cls, rng.randint(*holds[cls]), None))
            spent += 90 + holds[cls][1]
        kind = rng.choice(["quiet", "churn"])
        d = rng.randint(20, 60)
        plan.append((kind, None, d, None))
        spent += d + 30
    return plan


# ---------------------------------------------------------------- recording

class Poller:
    """Polls /diagnose and the Node's conditions every POLL seconds."""

    def __init__(self, c, agent, path):
        self.c, self.agent, self.path = c, agent, path
        self.stop_ev = threading.Event()
        self.f = gzip.open(path, "wt")
        self.last = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop_ev.set()
        self.thread.join(30)
        self.f.close()
        return False

    def sample(self):
        t = time.time()
        row = {"t": round(t, 2)}
        try:
            r = self.agent.get_json("/diagnose")
            row["status"] = r.get("status")
            row["causes"] = [{"id": x["id"], "severity": x["severity"], "confidence": round(x["confidence"], 3),
                              "summary": x.get("summary", "")[:300],
                              "culprit": json.dumps(x.get("evidence", []))[:400]} for x in r.get("causes", [])[:4]]
        except Exception as e:  # the agent must answer; a miss is recorded, not fatal
            row["error"] = str(e)[:200]
        try:
            node = self.c.get_json("node", NODE)
            for cond in node.get("status", {}).get("conditions", []):
                if cond["type"] == "Ready":
                    row["ready"] = cond["status"]
                    row["ready_message"] = cond.get("message", "")[:200]
                elif cond["type"] == pw.COND:
                    row["condition"] = cond["status"]
                    row["condition_reason"] = cond.get("reason")
        except Exception as e:
            row["node_error"] = str(e)[:200]
        self.last = row
        self.f.write(json.dumps(row) + "\n")
        self.f.flush()
        return row

    def _run(self):
        while not self.stop_ev.is_set():
            t0 = time.time()
            self.sample()
            self.stop_ev.wait(max(0.1, POLL - (time.time() - t0)))


def agent_settled(poller):
    """All clear as the scorer's all-clear is: healthy, nothing above info,
    the Node Ready and the node condition False (its --node-condition-clear-after
    hold over), so that the next segment does not inherit the fault's tail."""
    row = poller.last or {}
    return row.get("status") == "healthy" and not any(x["severity"] in ("warning", "critical")
                                                      for x in row.get("causes", [])) \
        and row.get("ready") == "True" and row.get("condition") != "True"


def kubelet_record(c, t0):
    """The kubelet's "PLEG is not healthy" log lines (wall times) and
    plegscope's Events on the Node."""
    lines = []
    for line in c.procs["kubelet"].output().splitlines():
        if "PLEG is not healthy" in line:
            m = pw.KLOG.match(line)
            if m:
                t = time.strptime("%s-%s-%s %s" % (time.gmtime().tm_year, m.group(1), m.group(2),
                                                    m.group(3).split(".")[0]), "%Y-%m-%d %H:%M:%S")
                at = time.mktime(t) + float("0." + m.group(3).split(".")[1])
                if at >= t0:
                    lines.append([round(at, 2), line[line.find("PLEG"):][:160]])
    events = []
    with contextlib.suppress(Exception):
        for e in c.get_json("events", "-n", "default", "--field-selector", "involvedObject.kind=Node")["items"]:
            if e.get("source", {}).get("component") == "plegscope" or e.get("reportingComponent") == "plegscope":
                ts = e.get("lastTimestamp") or e.get("eventTime") or e["metadata"]["creationTimestamp"]
                events.append([ts, e["type"], e["reason"], e.get("count", 1)])
    return {"pleg_not_healthy": lines, "events": events}


def firing(prom, t0, t1):
    """[t, alertname, severity] of every firing alert, 5 s steps."""
    d = prom.api("query_range", query='ALERTS{alertstate="firing"}', start="%.0f" % t0, end="%.0f" % t1,
                 step="5")
    out = []
    for s in d.get("data", {}).get("result", []):
        for t, _ in s["values"]:
            out.append([float(t), s["metric"].get("alertname"), s["metric"].get("severity")])
    return sorted(out)


def versions(c):
    b = containerd_fixture.bed()
    return {"kubernetes": parts_version(), "containerd": containerd_fixture.containerd_version(b),
            "runc": containerd_fixture.runc_version(b), "plegscope": plegscope_version()}


def parts_version():
    with open(os.path.join(SOURCE, "tests", "cluster", "versions.env")) as f:
        for line in f:
            if line.startswith("KUBERNETES_VERSION="):
                return line.split("=", 1)[1].strip()
    return "?"


def plegscope_version():
    import subprocess
    r = subprocess.run([harness.require_binary("plegscope"), "version"], capture_output=True, text=True)
    return r.stdout.strip().splitlines()[0] if r.stdout.strip() else "?"


# ---------------------------------------------------------------- the run

def run_fault(c, rng, cls, hold, overlap, truth):
    fn = faults.CLASSES[cls]
    if cls == "runtime_stopped" and overlap:
        extra = []

        def during():
            if "zombies" in overlap:
                # The zombie pod was started before the stop (a runtime that
                # is stopped starts nothing); it is a fault of its own.
                extra.append("zombies")
            if "churn" in overlap:
                # Pods asked of a stopped runtime: the API server's churn.
                c.apply(faults._deployment("churn", 4, ["/workload"]))
        zpod = None
        if "zombies" in overlap:
            c.apply(faults._pod("zombies", ["/workload", "-1", "0", "150"]))
            wait_until(lambda: faults.running(c, "chaos=zombies"), 120, "zombie pod Running", interval=0.5)
            zpod = time.time()
        seg = fn(c, rng, hold, during=during)
        if zpod:
            c.kubectl("delete", "pod", "-n", faults.NAMESPACE, "zombies", "--wait=false")
            wait_until(lambda: faults.gone(c, "chaos=zombies"), 180, "zombie pod gone", interval=1.0)
            truth.append({"kind": "fault", "class": "zombies", "culprit": "%s/zombies" % faults.NAMESPACE,
                          "start": zpod, "end": time.time(), "expect": ["defunct_processes"], "notready": False,
                          "overlap": "runtime_stopped"})
        if "churn" in overlap:
            c.apply(faults._deployment("churn", 0, ["/workload"]))
        seg["overlap"] = overlap
    else:
        seg = fn(c, rng, hold)
    seg["kind"] = "fault"
    truth.append(seg)
    log("fault %s: %.0fs (%s)" % (cls, seg["end"] - seg["start"], seg.get("culprit")))


def campaign(seed, profile, out, minutes=None, only=None):
    os.makedirs(out, exist_ok=True)
    major = containerd_fixture.major_version()
    unknown = [x for x in only or [] if x not in faults.CLASSES]
    if unknown:
        raise SystemExit("campaign.py: --only %s: not a fault class (%s)" % (",".join(unknown),
                                                                           ", ".join(sorted(faults.CLASSES))))
    plan = schedule(seed, profile, minutes, major, only)
    log("seed %d, %s: %s" % (seed, profile, [(k, c, h, o) for k, c, h, o in plan]))
    rng = random.Random(seed * 7919)
    # A flapping rollout past the event-storm rule's 10 pods a relist: 16 in the
    # short campaign (2 shared cores), 24 in the long one.
    rng.storm_pods = 16 if profile == "short" else 24
    wall0 = time.time()
    missing = dict(faults.MISSING, **(faults.MISSING_ON_V1 if major < 2 else {}))
    truth = {"seed": seed, "profile": profile, "plan": plan, "segments": [], "missing": missing}
    with Cluster() as c, (faults.Extras(c) if major >= 2 else contextlib.nullcontext()) as extras:
        c.chaos_extras = extras
        truth["versions"] = versions(c)
        for f in ("rbac.yaml", "admission-policy.yaml"):
            c.kubectl("apply", "-f", os.path.join(SOURCE, "deploy", "components", "node-condition", f))
        sbs.identity_pod(c)
        token = sbs.shipped_token(c, bound_pod="identity")
        faults.setup(c)
        # As the DaemonSet reads the node: the runtime's metrics page (NRI's
        # plugin timeouts) and the CNI configuration (which plugin answers).
        flags = sbs.agent_flags(c, token) + ["--node-condition", "--node-condition-clear-after", "%ds" % CLEAR_AFTER,
                                             "--node-condition-min-interval", "5s",
                                             "--cni-conf-dir", os.path.join(c.ctd.tmp, "cni", "conf")]
        if getattr(c.ctd, "metrics_url", None):
            flags += ["--runtime-metrics-endpoint", c.ctd.metrics_url]
        with Agent(c.ctd.endpoint, flags, env=sbs.agent_env(c), log_level="info") as agent, \
                ecolib.Prometheus([agent.base_url.split("//")[1]], scrape_interval="5s", evaluation_interval="5s",
                                  rule_files=[os.path.join(SOURCE, "alerts", "plegscope.rules.yml")],
                                  static_labels={"node": NODE}) as prom:
            wait_until(lambda: (c.node_condition(pw.COND) or {}).get("reason") == "PLEGHealthy", CLEAR_AFTER + 90,
                       "%s False from plegscope" % pw.COND, interval=1.0)
            with Poller(c, agent, os.path.join(out, "timeline.jsonl.gz")) as poller:
                truth["start"] = time.time()
                segs = truth["segments"]
                for kind, cls, hold, overlap in plan:
                    if kind == "quiet":
                        t0 = time.time()
                        time.sleep(hold)
                        segs.append({"kind": "quiet", "start": t0, "end": time.time()})
                    elif kind == "churn":
                        segs.append(dict(faults.churn(c, rng, hold), kind="churn"))
                    else:
                        run_fault(c, rng, cls, hold, overlap, segs)
                        # The next segment begins once the agent is back to
                        # healthy with nothing above info, and the Node Ready
                        # (time to all-clear is the scorer's, from the polls).
                        t0 = time.time()
                        with contextlib.suppress(AssertionError):
                            wait_until(lambda: agent_settled(poller), 240, "all clear", interval=1.0)
                        segs.append({"kind": "recovery", "start": t0, "end": time.time()})
                    with open(os.path.join(out, "truth.json"), "w") as f:
                        json.dump(truth, f, indent=1)
                truth["end"] = time.time()
            time.sleep(6)  # one more scrape and evaluation
            with open(os.path.join(out, "alerts.json"), "w") as f:
                json.dump(firing(prom, truth["start"] - 60, truth["end"] + 5), f)
        with open(os.path.join(out, "kubelet.json"), "w") as f:
            json.dump(kubelet_record(c, truth["start"]), f, indent=1)
    truth["wall_seconds"] = time.time() - wall0
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    log("campaign seed %d done in %.0fs" % (seed, truth["wall_seconds"]))
    return truth


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", choices=["short", "long"], default="short")
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default=None, help="comma-separated fault classes, each injected once")
    a = ap.parse_args()

    def on_term(signum, frame):  # the with-blocks' cleanup runs (faults undone, cluster torn down)
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, on_term)
    campaign(a.seed, a.profile, a.out, a.minutes, a.only.split(",") if a.only else None)


if __name__ == "__main__":
    main()
