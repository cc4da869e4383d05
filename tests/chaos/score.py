#!/usr/bin/env python3
"""Scores a recorded chaos campaign (tests/chaos/campaign.py) against its
truth and the kubelet's verdict.

    score.py DIR [DIR...] [--md OUT.md] [--json OUT.json] [--floors]

DIR holds truth.json, timeline.jsonl.gz, kubelet.json, alerts.json (a
campaign's output, or a saved one under tests/chaos/recorded/). Several DIRs
are scored together (one table) and per seed.

Definitions (each poll of /diagnose is one sample, every 2 s):
- a fault's window is [start, end + TAIL]: the agent may rightly keep
  naming a fault a little after it is undone (its rules judge the last
  relists). Samples outside every fault window and more than SETTLE after
  the last fault ended are quiet or churn.
- precision of the top cause: among samples inside fault windows whose
  status is at_risk or unhealthy, the share whose top cause is one the
  truth expects of a fault active then (overlaps: any of them; per class,
  a sample right for an overlapping fault is that fault's).
- culprit precision: among those right samples whose fault has a culprit
  (a pod), the share whose top cause's summary or evidence names it.
- recall, NotReady faults: faults during which the kubelet's Ready went
  False (a fault overlapping one that the truth expects to turn the Node
  NotReady is judged as sub-NotReady), named (an expected cause on top while at_risk/unhealthy, or the
  node condition True with its reason) at some sample of the window.
  Sub-NotReady faults: warned (an expected cause at warning or critical, or
  status at_risk/unhealthy with it on top). A fault whose truth says
  "warns": false (a pod OOM-killed in its own cgroup: the PLEG is not at
  risk from it) is in neither recall; its at-risk samples count in precision.
- lead: for NotReady faults, Ready=False's first poll minus plegscope's
  first right verdict (expected cause on top, not healthy); negative when
  the kubelet was first. Median and worst, and by the kubelet's own reason
  in that poll's Ready message: its PLEG rule (3 min), its runtime-down rule
  (30 s without a good Status) or the runtime's NetworkReady=false, which
  the kubelet reads from its next Status call and nobody can foresee.
- false alarms, during quiet and churn samples (past SETTLE): the node
  condition True, any cause above info (warning, critical), status not
  healthy; and any critical alert Prometheus fired (the shipped rules on
  the scraped series) at those times.
- time to all-clear: from a fault's end to the first sample healthy with no
  cause above info, the condition False and the Node Ready.
"""

import argparse
import gzip
import json
import os
import statistics
import sys

TAIL = 45.0
SETTLE = 45.0
ABOVE_INFO = ("warning", "critical")

# The goals the verdict is held to; the short campaign's floors are in test_chaos.py.
GOALS = {"precision": 0.95, "culprit": 0.9, "recall_notready": 1.0, "lead_median_s": 60}


# What a saved campaign's expected.json keeps (test_chaos.py test_recorded).
EXPECTED_KEYS = ("faults", "alarm_samples", "right_samples", "precision", "culprit", "notready", "notready_named",
                 "recall_notready", "sub", "sub_warned", "recall_sub", "false_alarms", "critical_alerts_quiet",
                 "lead_median_s")


def load(d):
    with open(os.path.join(d, "truth.json")) as f:
        truth = json.load(f)
    with gzip.open(os.path.join(d, "timeline.jsonl.gz"), "rt") as f:
        timeline = [json.loads(line) for line in f if line.strip()]
    kubelet, alerts = {}, []
    if os.path.exists(os.path.join(d, "kubelet.json")):
        with open(os.path.join(d, "kubelet.json")) as f:
            kubelet = json.load(f)
    if os.path.exists(os.path.join(d, "alerts.json")):
        with open(os.path.join(d, "alerts.json")) as f:
            alerts = json.load(f)
    return truth, timeline, kubelet, alerts


def top(row):
    c = row.get("causes") or []
    return c[0] if c else None


def names_culprit(cause, culprit):
    if not culprit or not cause:
        return False
    return culprit in cause.get("summary", "") or culprit in cause.get("culprit", "")


def score_one(truth, timeline, kubelet, alerts):
    faults = [s for s in truth["segments"] if s["kind"] == "fault"]
    end_all = truth.get("end") or (timeline[-1]["t"] if timeline else 0)

    def active(t):
        return [f for f in faults if f["start"] <= t <= f["end"] + TAIL]

    def quiet_kind(t):
        """'quiet' or 'churn' for a sample outside faults and past SETTLE; else None."""
        if active(t) or t < truth["start"] or t > end_all:
            return None
        if any(f["end"] <= t < f["end"] + SETTLE for f in faults):
            return None
        for s in truth["segments"]:
            if s["kind"] in ("quiet", "churn") and s["start"] <= t <= s["end"]:
                return s["kind"]
        return "quiet"  # recovery segments past SETTLE: the node is meant to be quiet

    per_class = {}

    def cls(name):
        return per_class.setdefault(name, {"faults": 0, "alarm_samples": 0, "right_samples": 0,
                                           "culprit_samples": 0, "culprit_right": 0, "notready": 0,
                                           "notready_named": 0, "sub": 0, "sub_warned": 0, "leads": [],
                                           "clear": [], "missed": []})

    alarm = right = cul_n = cul_right = 0
    wrong_tops = {}
    for row in timeline:
        act = active(row["t"])
        if not act or row.get("status") not in ("at_risk", "unhealthy"):
            continue
        tc = top(row)
        expected = {e for f in act for e in f["expect"]}
        ok = tc is not None and tc["id"] in expected
        alarm += 1
        right += ok
        if not ok:
            key = "%s (during %s)" % (tc["id"] if tc else None, "+".join(sorted(f["class"] for f in act)))
            wrong_tops[key] = wrong_tops.get(key, 0) + 1
        for f in act:
            if ok and tc["id"] not in f["expect"]:
                continue  # right for an overlapping fault: that fault's sample
            k = cls(f["class"])
            k["alarm_samples"] += 1
            k["right_samples"] += ok
            if ok and f.get("culprit"):
                k["culprit_samples"] += 1
                k["culprit_right"] += names_culprit(tc, f["culprit"])
        if ok:
            owners = [f for f in act if tc["id"] in f["expect"] and f.get("culprit")]
            if owners:
                cul_n += 1
                cul_right += any(names_culprit(tc, f["culprit"]) for f in owners)

    leads = []
    lead_paths = {}
    clears = []
    notready_n = notready_named = sub_n = sub_warned = 0
    for f in faults:
        k = cls(f["class"])
        k["faults"] += 1
        win = [r for r in timeline if f["start"] <= r["t"] <= f["end"] + TAIL]
        ready_false = [r["t"] for r in win if r.get("ready") == "False"]
        # Ready=False is this fault's when the truth expects it of it, or when
        # no fault that expects it overlaps (an unexpected NotReady is its).
        if ready_false and not f.get("notready") and any(
                g is not f and g.get("notready") and g["start"] <= ready_false[0] <= g["end"] + TAIL for g in faults):
            ready_false = []

        def right_at(r):
            tc = top(r)
            on_top = r.get("status") in ("at_risk", "unhealthy") and tc is not None and tc["id"] in f["expect"]
            cond = r.get("condition") == "True" and any(
                (r.get("condition_reason") or "").lower() == e.replace("_", "") for e in f["expect"])
            return on_top or cond

        def warned_at(r):
            return right_at(r) or any(c["id"] in f["expect"] and c["severity"] in ABOVE_INFO
                                      for c in r.get("causes") or [])
        if ready_false:
            notready_n += 1
            k["notready"] += 1
            named = [r["t"] for r in win if right_at(r)]
            if named:
                notready_named += 1
                k["notready_named"] += 1
                lead = ready_false[0] - named[0]
                leads.append(lead)
                k["leads"].append(lead)
                message = next((r.get("ready_message") or "" for r in win if r["t"] == ready_false[0]), "")
                lead_paths.setdefault(kubelet_path(message), []).append(lead)
            else:
                k["missed"].append(round(f["start"] - truth["start"]))
        elif f.get("warns", True):
            sub_n += 1
            k["sub"] += 1
            if any(warned_at(r) for r in win):
                sub_warned += 1
                k["sub_warned"] += 1
            else:
                k["missed"].append(round(f["start"] - truth["start"]))
        after = [r for r in timeline if r["t"] >= f["end"]]
        clear = next((r["t"] for r in after if r.get("status") == "healthy" and r.get("ready") == "True"
                      and r.get("condition") != "True"
                      and not any(c["severity"] in ABOVE_INFO for c in r.get("causes") or [])), None)
        if clear is not None:
            clears.append(clear - f["end"])
            k["clear"].append(clear - f["end"])

    fa = {"quiet": {"samples": 0, "condition_true": 0, "above_info": 0, "not_healthy": 0},
          "churn": {"samples": 0, "condition_true": 0, "above_info": 0, "not_healthy": 0}}
    fa_causes = {}
    for row in timeline:
        q = quiet_kind(row["t"])
        if not q:
            continue
        b = fa[q]
        b["samples"] += 1
        b["condition_true"] += row.get("condition") == "True"
        b["not_healthy"] += row.get("status") not in ("healthy", None)
        above = [c["id"] for c in row.get("causes") or [] if c["severity"] in ABOVE_INFO]
        b["above_info"] += bool(above)
        for a in above:
            fa_causes[a] = fa_causes.get(a, 0) + 1
    crit = [a for a in alerts if a[2] == "critical" and quiet_kind(a[0])]
    crit_names = sorted({a[1] for a in crit})
    false_alarms = sum(b["condition_true"] + b["above_info"] for b in fa.values()) + len(crit)
    return {
        "seed": truth["seed"], "profile": truth.get("profile"), "versions": truth.get("versions", {}),
        "duration_s": round((truth.get("end") or end_all) - truth["start"]),
        "wall_s": round(truth.get("wall_seconds", 0)),
        "faults": len(faults), "alarm_samples": alarm, "right_samples": right,
        "precision": right / alarm if alarm else None,
        "culprit_samples": cul_n, "culprit_right": cul_right, "culprit": cul_right / cul_n if cul_n else None,
        "notready": notready_n, "notready_named": notready_named,
        "recall_notready": notready_named / notready_n if notready_n else None,
        "sub": sub_n, "sub_warned": sub_warned, "recall_sub": sub_warned / sub_n if sub_n else None,
        "leads": leads, "lead_median_s": statistics.median(leads) if leads else None,
        "lead_worst_s": min(leads) if leads else None, "lead_paths": lead_paths,
        "clear_median_s": statistics.median(clears) if clears else None, "clear_worst_s": max(clears) if clears else None,
        "false": fa, "false_causes": fa_causes, "critical_alerts_quiet": len(crit),
        "critical_alert_names": crit_names, "false_alarms": false_alarms, "wrong_tops": wrong_tops,
        "per_class": per_class, "kubelet_pleg_lines": len((kubelet or {}).get("pleg_not_healthy", [])),
        "missing": truth.get("missing", {}),
    }


def kubelet_path(ready_message):
    """Which of the kubelet's rules turned the Node NotReady, from its Ready message."""
    if "PLEG is not healthy" in ready_message:
        return "PLEG is not healthy"
    if "container runtime is down" in ready_message or "status check may not have completed" in ready_message:
        return "container runtime is down"
    if "network not ready" in ready_message:
        return "network not ready"
    return "other"


def merge(scores):
    """One score over several campaigns (sums of the counts)."""
    m = {"seeds": [s["seed"] for s in scores], "duration_s": sum(s["duration_s"] for s in scores),
         "wall_s": sum(s["wall_s"] for s in scores), "versions": scores[0]["versions"] if scores else {}}
    for k in ("faults", "alarm_samples", "right_samples", "culprit_samples", "culprit_right", "notready",
              "notready_named", "sub", "sub_warned", "critical_alerts_quiet", "false_alarms"):
        m[k] = sum(s[k] for s in scores)
    m["precision"] = m["right_samples"] / m["alarm_samples"] if m["alarm_samples"] else None
    m["culprit"] = m["culprit_right"] / m["culprit_samples"] if m["culprit_samples"] else None
    m["recall_notready"] = m["notready_named"] / m["notready"] if m["notready"] else None
    m["recall_sub"] = m["sub_warned"] / m["sub"] if m["sub"] else None
    leads = [x for s in scores for x in s["leads"]]
    m["leads"] = leads
    m["lead_median_s"] = statistics.median(leads) if leads else None
    m["lead_worst_s"] = min(leads) if leads else None
    m["lead_paths"] = {}
    for s in scores:
        for path, xs in s.get("lead_paths", {}).items():
            m["lead_paths"].setdefault(path, []).extend(xs)
    clears = [x for s in scores for c in s["per_class"].values() for x in c["clear"]]
    m["clear_median_s"] = statistics.median(clears) if clears else None
    m["clear_worst_s"] = max(clears) if clears else None
    m["per_class"] = {}
    for s in scores:
        for name, c in s["per_class"].items():
            t = m["per_class"].setdefault(name, {k: ([] if isinstance(v, list) else 0) for k, v in c.items()})
            for k, v in c.items():
                t[k] += v
    m["false"] = {q: {k: sum(s["false"][q][k] for s in scores) for k in scores[0]["false"][q]}
                  for q in ("quiet", "churn")} if scores else {}
    m["false_causes"] = {}
    m["wrong_tops"] = {}
    for s in scores:
        for d in ("false_causes", "wrong_tops"):
            for k, v in s[d].items():
                m[d][k] = m[d].get(k, 0) + v
    m["critical_alert_names"] = sorted({n for s in scores for n in s["critical_alert_names"]})
    m["missing"] = scores[0]["missing"] if scores else {}
    return m


def fmt(x, pct=False, secs=False):
    if x is None:
        return "n/a"
    if pct:
        return "%.3f" % x
    if secs:
        return "%.0f s" % x
    return str(x)


def table(m, title):
    L = ["# %s" % title, ""]
    v = m.get("versions", {})
    L.append("Seeds: %s. Campaign time (first to last segment): %.1f min; wall time with the cluster's "
             "start and teardown: %.1f min." % (", ".join(str(s) for s in m["seeds"]), m["duration_s"] / 60,
                                                 m["wall_s"] / 60))
    L.append("Versions: kubelet/apiserver %s, containerd %s, runc %s, plegscope %s." % (
        v.get("kubernetes", "?"), v.get("containerd", "?"), v.get("runc", "?"), v.get("plegscope", "?")))
    L.append("")
    L += ["| measure | value | goal |", "|---|---|---|",
          "| faults injected | %d (%d reached NotReady) | |" % (m["faults"], m["notready"]),
          "| precision of the top cause (at_risk/unhealthy samples in fault windows) | %s (%d/%d) | >= 0.95 |" % (
              fmt(m["precision"], True), m["right_samples"], m["alarm_samples"]),
          "| culprit named (right samples of faults with a culprit) | %s (%d/%d) | >= 0.9 |" % (
              fmt(m["culprit"], True), m["culprit_right"], m["culprit_samples"]),
          "| recall, NotReady faults named | %s (%d/%d) | 1.0 |" % (
              fmt(m["recall_notready"], True), m["notready_named"], m["notready"]),
          "| recall, sub-NotReady faults warned | %s (%d/%d) | |" % (
              fmt(m["recall_sub"], True), m["sub_warned"], m["sub"]),
          "| lead over Ready=False, median / worst | %s / %s | median >= 60 s |" % (
              fmt(m["lead_median_s"], secs=True), fmt(m["lead_worst_s"], secs=True)),
          "| lead by the kubelet's reason for Ready=False, median / worst (faults) | %s | |" % (
              "; ".join("%s: %s / %s (%d)" % (path, fmt(statistics.median(xs), secs=True), fmt(min(xs), secs=True),
                                               len(xs)) for path, xs in sorted(m["lead_paths"].items())) or "-"),
          "| time to all-clear after a fault ends, median / worst | %s / %s | |" % (
              fmt(m["clear_median_s"], secs=True), fmt(m["clear_worst_s"], secs=True))]
    for q in ("quiet", "churn"):
        b = m["false"].get(q, {})
        L.append("| false alarms in %s (%d samples): condition True / cause above info / not healthy | %d / %d / %d "
                 "| 0 / 0 / - |" % (q, b.get("samples", 0), b.get("condition_true", 0), b.get("above_info", 0),
                                     b.get("not_healthy", 0)))
    L.append("| critical alerts firing in quiet and churn (shipped rules, real Prometheus) | %d %s | 0 |" % (
        m["critical_alerts_quiet"], ", ".join(m["critical_alert_names"])))
    L += ["", "Per class:", "",
          "| class | faults | NotReady named | sub-NotReady warned | top-cause precision | culprit | lead (s) "
          "| all-clear (s) |", "|---|---|---|---|---|---|---|---|"]
    for name in sorted(m["per_class"]):
        c = m["per_class"][name]
        L.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
            name, c["faults"], "%d/%d" % (c["notready_named"], c["notready"]) if c["notready"] else "-",
            "%d/%d" % (c["sub_warned"], c["sub"]) if c["sub"] else "-",
            "%d/%d" % (c["right_samples"], c["alarm_samples"]) if c["alarm_samples"] else "-",
            "%d/%d" % (c["culprit_right"], c["culprit_samples"]) if c["culprit_samples"] else "-",
            ", ".join("%.0f" % x for x in c["leads"]) or "-",
            ", ".join("%.0f" % x for x in c["clear"]) or "-"))
    if m["wrong_tops"]:
        L += ["", "Wrong top causes (samples): " + "; ".join("%s: %d" % kv for kv in sorted(m["wrong_tops"].items()))]
    if m["false_causes"]:
        L += ["", "Causes above info in quiet/churn (samples): " +
              "; ".join("%s: %d" % kv for kv in sorted(m["false_causes"].items()))]
    if m.get("missing"):
        L += ["", "Classes not injected on this bed: " + "; ".join(
            "%s (%s)" % kv for kv in sorted(m["missing"].items()))]
    return "\n".join(L) + "\n"


def score_dirs(dirs):
    scores = [score_one(*load(d)) for d in dirs]
    return scores, merge(scores)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--md")
    ap.add_argument("--json")
    ap.add_argument("--title", default="Chaos campaign")
    ap.add_argument("--save-expected", action="store_true",
                    help="write each DIR's expected.json (its score now), for test_chaos.py's test_recorded")
    a = ap.parse_args()
    scores, m = score_dirs(a.dirs)
    text = table(m, a.title)
    print(text)
    if a.md:
        os.makedirs(os.path.dirname(os.path.abspath(a.md)), exist_ok=True)
        with open(a.md, "w") as f:
            f.write(text)
    if a.save_expected:
        for d, sc in zip(a.dirs, scores):
            with open(os.path.join(d, "expected.json"), "w") as f:
                json.dump({k: sc[k] for k in EXPECTED_KEYS}, f, indent=1, sort_keys=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"merged": m, "per_seed": scores}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
