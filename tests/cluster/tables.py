"""The cluster tests' figures as Markdown tables (docs/benchmarks.md, docs/development.md).

    python3 tests/cluster/tables.py bench/results/cluster-fidelity.json
"""

import json
import sys


def _ms(w):
    if not w:
        return "-"
    p99 = "%.0f" % (w["p99_le"] * 1000) if w.get("p99_le") not in (None, float("inf")) else "inf"
    return "%.1f (<= %s) n=%d" % (w["mean"] * 1000, p99, w["n"])


def fidelity(doc):
    rows = ["| pods | side | relist ms mean (p99 bucket) | interval ms mean | pod relists ms mean (p99 bucket) "
            "| last seen age s | running pods | running containers | list_containers ms | list_podsandbox ms "
            "| containerd CPU % |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for pods, row in sorted(doc["fidelity"].items(), key=lambda kv: int(kv[0])):
        for side in ("kubelet", "plegscope"):
            r = row.get(side)
            if not r:
                continue
            ops = r["runtime_operations"]
            interval = r["pleg_relist_interval_seconds"]
            rows.append("| %s | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %.2f |" % (
                pods, side, _ms(r["pleg_relist_duration_seconds"]),
                "%.0f" % (interval["mean"] * 1000) if interval else "-",
                # Older figures have no per-pod relists: "-" as for a window without any.
                _ms(r.get("pleg_pod_relist_duration_seconds")), r["pleg_last_seen_age_seconds"],
                "%g" % r["running_pods"] if r["running_pods"] is not None else "-",
                "%g" % r["running_containers"].get("running", 0), _ms(ops.get("list_containers")),
                _ms(ops.get("list_podsandbox")), row["containerd_cpu_percent"]))
    return "\n".join(rows)


def load(doc):
    out = ["| 110 pods | containerd CPU % | kubelet relist ms mean (p99 bucket) | window s |", "|---|---|---|---|"]
    for key in ("without_plegscope", "with_plegscope"):
        r = doc["load"][key]
        out.append("| %s | %.2f | %s | %.0f |" % (key.replace("_", " "), r["containerd_cpu_percent"],
                                                 _ms(r["kubelet"]["pleg_relist_duration_seconds"]), r["seconds"]))
    return "\n".join(out)


def events(doc):
    ev = doc.get("events")
    if not ev:
        return ""
    out = ["| pod churn | event | kubelet (log, V(2)) | plegscope (/debug/events) |", "|---|---|---|---|"]
    for r in ev["rows"]:
        out.append("| %s | %s | %d | %d |" % (r["phase"], r["type"], r["kubelet"], r["plegscope"]))
    crash = ev["crash_loop_instances"]
    out.append("\ncrash-looping container instances (first start + restarts): kubelet %d, plegscope %d"
               % (crash["kubelet"], crash["plegscope"]))
    return "\n".join(out)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        d = json.load(f)
    print(fidelity(d))
    print()
    print(load(d))
    if d.get("events"):
        print()
        print(events(d))
