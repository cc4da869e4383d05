#!/usr/bin/env python3
"""Relist cost on a real CRI-O beside a real containerd, in one run: each
runtime private (tests/e2e's fixtures), first 10 pods of 11 running
containers (110), then grown to 1,000 with pods of 50 containers that ran and
exited (as exited containers pile up on a node); at each size the agent
relisting every second, measured over a window, and beside it the paced
floor client (build/bench/floor_client BM_ListPair: the bare pair of list
calls) against the same socket. Figures only; nothing asserts.

Usage (root): PYTHONPATH=tests/lib:tests/e2e:bench python3 bench/runtime_pair_bench.py
  [--window SECONDS] [--sizes 110,1000] [--json OUT]
"""

import argparse
import json
import os
import sys
import time
import uuid

import benchlib
import harness
import oci_image
from containerd_fixture import Containerd
from crio_fixture import Crio

PODS, PER_POD = 10, 11


class RuntimeProbe(benchlib.AgentProbe):
    """The agent's relist counters and CPU; a real runtime keeps no call log."""

    def sample(self):
        m = self.agent.metrics()
        return {"t": time.monotonic(), "cpu": benchlib.cpu_seconds(self.agent.proc.pid),
                "relists": m.get("pleg_relist_duration_seconds_count", 0),
                "relist_sum": m.get("pleg_relist_duration_seconds_sum", 0), "calls": 0, "counts": {}}


class Socket:
    def __init__(self, path):
        self.socket = path


def populate(rt):
    started = time.monotonic()
    for p in range(PODS):
        sid = rt.driver("run-pod", "bench-%d" % p, str(uuid.uuid4()))
        for i in range(PER_POD):
            cid = rt.driver("create-container", sid, "c%d" % i, oci_image.WORKLOAD_IMAGE, "/workload")
            rt.driver("start-container", cid)
    return time.monotonic() - started


EXITED_PER_POD = 50


def grow_exited(rt, total):
    """Adds pods of EXITED_PER_POD containers that ran and exited until the
    runtime lists `total` containers."""
    started = time.monotonic()
    have = len(rt.list()["containers"])
    p = 0
    while have < total:
        sid = rt.driver("run-pod", "exited-%d" % p, str(uuid.uuid4()))
        for i in range(min(EXITED_PER_POD, total - have)):
            cid = rt.driver("create-container", sid, "x%d" % i, oci_image.WORKLOAD_IMAGE, "/workload", "0")
            rt.driver("start-container", cid)
            have += 1
        p += 1
    return time.monotonic() - started


def measure(rt, window, populate_seconds):
    out = {"runtime": rt.driver("version"), "populate_seconds": populate_seconds}
    listed = rt.list()["containers"]
    out["containers"] = len(listed)
    out["running"] = len([c for c in listed if c["state"] == "running"])
    with harness.Agent(rt.endpoint, ["--relist-period", "1s"], log_level="warn") as agent:
        probe = RuntimeProbe(agent, None)
        probe.wait_relists(3)
        w = benchlib.relist_window(probe, window)
        w.pop("durations_ms", None)
        w.pop("thread_names", None)
        w.pop("calls_by_method", None)
        out["agent"] = w
        rep = agent.get_json("/diagnose")
        out["list_containers_p99_ms"] = 1000 * rep["runtime"]["operations"]["list_containers"]["p99_seconds"]
        out["status"] = rep["status"]
    out["floor"] = benchlib.floor(Socket(rt.sock), "BM_ListPair", 60)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--window", type=float, default=30)
    ap.add_argument("--sizes", default="110,1000")
    ap.add_argument("--json")
    args = ap.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    build = harness.build_dir()
    results = {"window_seconds": args.window, "runtimes": {}}
    for name, cls in (("containerd", Containerd), ("cri-o", Crio)):
        rt = cls(build)
        try:
            if name == "cri-o":
                rt.load_images()
                rt.start()
            else:
                rt.start()
                for image, tarball in oci_image.build_e2e_images(os.path.join(rt.tmp, "images")).items():
                    rt.import_image(tarball)
            runs = []
            seconds = populate(rt)
            for n in sizes:
                if n > PODS * PER_POD:
                    seconds = grow_exited(rt, n)
                runs.append(measure(rt, args.window, seconds))
            results["runtimes"][name] = runs
        finally:
            rt.cleanup()
    print("| runtime | containers (running) | relist mean | relist p99 | agent CPU per relist | ListContainers p99 "
          "| floor pair mean | floor pair p99 | floor CPU per pair |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, runs in results["runtimes"].items():
        for r in runs:
            a, f = r["agent"], r["floor"]
            print("| %s | %d (%d) | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms |" % (
                r["runtime"], r["containers"], r["running"], a["mean_ms"], a["p99_ms"] or 0,
                a["cpu_ms_per_relist"], r["list_containers_p99_ms"], f["mean_ms"], f["p99_ms"], f["cpu_ms"]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
