#!/usr/bin/env python3
"""Two builds of the agent side by side in one run: relist CPU and time,
memory and /metrics CPU at 110x2 and 1000x10 on one fakecri each, and
/metrics latency under wrk while ListContainers hangs, the builds taking
turns (A B A B ...) so that whatever else the machine does weighs on both.
Figures only; nothing asserts.

Usage: bench/compare_builds.py BUILD_DIR_A BUILD_DIR_B [--rounds 2] [--window 15] [--out FILE]
Each build directory holds its plegscope and fakecri (scripts/build into it).
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import statistics
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
sys.path.insert(0, os.path.join(ROOT, "bench"))


def load_bench():
    loader = importlib.machinery.SourceFileLoader("plegscope_bench", os.path.join(ROOT, "scripts", "bench"))
    spec = importlib.util.spec_from_loader("plegscope_bench", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def one_round(bench, build, shapes, window, wrk_seconds):
    os.environ["PLEGSCOPE_BUILD_DIR"] = build
    out = {}
    for shape in shapes:
        m = bench.measure_shape(shape, window, 50)
        out[shape] = {"relist_mean_ms": m["agent"]["mean_ms"], "relist_p99_ms": m["agent"]["p99_ms"],
                      "cpu_ms_per_relist": m["agent"]["cpu_ms_per_relist"], "rss_mib": m["agent"]["rss_mib"],
                      "metrics_cpu_ms": m["metrics_scrape"]["cpu_ms_per_scrape"],
                      "floor_cpu_ms_per_pair": m["floor"]["cpu_ms"]}
    w = bench.measure_hang_wrk(256, wrk_seconds)
    out["wrk"] = {k: w.get(k) for k in ("requests_per_second", "p50_ms", "p99_ms", "non_2xx")}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--window", type=int, default=15)
    ap.add_argument("--wrk-seconds", type=int, default=10)
    ap.add_argument("--shapes", default="110x2,1000x10")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "compare.json"))
    args = ap.parse_args()
    bench = load_bench()
    shapes = args.shapes.split(",")
    runs = {"a": [], "b": []}
    for r in range(args.rounds):
        for key, build in (("a", args.a), ("b", args.b)):
            runs[key].append(one_round(bench, os.path.abspath(build), shapes, args.window, args.wrk_seconds))
            print(f"round {r + 1} {key}: {json.dumps(runs[key][-1])}", flush=True)
    summary = {}
    for key in runs:
        summary[key] = {}
        for section in runs[key][0]:
            summary[key][section] = {f: statistics.median(x[section][f] for x in runs[key])
                                     for f in runs[key][0][section] if runs[key][0][section][f] is not None}
    result = {"a": os.path.abspath(args.a), "b": os.path.abspath(args.b), "rounds": runs, "median": summary}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    for section in summary["a"]:
        for f in summary["a"][section]:
            a, b = summary["a"][section][f], summary["b"][section].get(f)
            print(f"{section:8} {f:22} A {a:10.3f}  B {b:10.3f}")


if __name__ == "__main__":
    main()
