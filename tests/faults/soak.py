#!/usr/bin/env python3
"""Soak: the agent against fakecri's churn (tests/scenarios/soak.json) for a
while, printing its RSS and open fds at every interval.

    soak.py --seconds 600 --every 60          # scripts/soak (not CI)
    soak.py --seconds 60 --every 10 --check   # ctest soak_60s (CI)

Each sample also prints the entries of every per-pod structure
(/debug/sizes). --check fails the run if the agent died, /metrics stopped
answering, RSS or fds kept growing (last sample against the first after
warm-up), or a per-pod structure outgrew what the runtime lists plus the
agent's grace for pods gone."""

import argparse
import sys
import time

import harness
from harness import Agent, FakeCri, wait_until
from fault_lib import footprint  # scripts/bench's measurement (bench/benchlib.py)

RSS_GROWTH_LIMIT_MIB = 16
FD_GROWTH_LIMIT = 4
GONE_PODS_KEPT = 256  # PodDirectory's max_unlisted: the last pods gone stay nameable
IDS_PER_POD = 8  # sandboxes and containers the runtime lists for one pod here, with room
ENTRY_GROWTH_LIMIT = 16  # for the structures that hold only listed pods


def size_problems(warm, last):
    """What in the last /debug/sizes sample exceeds what churn may leave."""
    problems = []
    listed = last["pod_records"]
    if last["pod_directory_pods"] > listed + GONE_PODS_KEPT:
        problems.append("the pod directory holds %d pods, %d listed" % (last["pod_directory_pods"], listed))
    if last["pod_directory_ids"] > IDS_PER_POD * max(1, last["pod_directory_pods"]):
        problems.append("the pod directory holds %d ids for %d pods" % (last["pod_directory_ids"],
                                                                         last["pod_directory_pods"]))
    for name in ("pod_records", "pod_status_cache", "pods_to_reinspect"):
        if last[name] - warm[name] > ENTRY_GROWTH_LIMIT:
            problems.append("%s grew from %d to %d entries" % (name, warm[name], last[name]))
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--every", type=int, default=60)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--relist-period", default="1s",
                        help="shorter fills the bounded histories (600 relists) sooner")
    args = parser.parse_args()

    series, sizes = [], []
    with FakeCri("soak") as fake, Agent(fake.endpoint, ["--relist-period", args.relist_period], log_level="info") as agent:
        wait_until(lambda: agent.get("/healthz")[0] == 200, 30, "the first relist")
        pid = agent.proc.pid
        t0 = time.monotonic()
        print("%6s %9s %5s %8s %8s %6s" % ("t", "RSS_MiB", "fds", "relists", "events", "pods"), flush=True)
        for n in range(args.seconds // args.every + 1):
            # Sample on a fixed schedule: the interval itself is the measurement.
            time.sleep(max(0.0, t0 + n * args.every - time.monotonic()))
            if not agent.proc.alive():
                print("the agent died:\n" + agent.proc.tail())
                return 1
            m = agent.metrics()
            now = footprint(pid)
            sample = (round(time.monotonic() - t0), now["rss_mib"], now["fds"],
                      int(m.get("pleg_relist_duration_seconds_count", 0)), int(m.sum("pleg_events_total")),
                      int(m.get("pleg_running_pods", 0)))
            series.append(sample)
            sizes.append(agent.get_json("/debug/sizes")["sizes"])
            print("%5ds %9.1f %5d %8d %8d %6d  anon %.1f MiB  %s" % (sample + (now["rss_anon_mib"], " ".join(
                "%s=%d" % kv for kv in sorted(sizes[-1].items())))), flush=True)
        errors = agent.metrics().sum("pleg_relist_errors_total")
    print("soak: %d s, RSS %.1f -> %.1f MiB, fds %d -> %d, relist errors %d"
          % (series[-1][0], series[0][1], series[-1][1], series[0][2], series[-1][2], errors), flush=True)
    if not args.check:
        return 0
    warm = series[1] if len(series) > 2 else series[0]
    problems = size_problems(sizes[1] if len(sizes) > 2 else sizes[0], sizes[-1])
    if series[-1][1] - warm[1] > RSS_GROWTH_LIMIT_MIB:
        problems.append("RSS grew %.1f MiB after warm-up" % (series[-1][1] - warm[1]))
    if series[-1][2] - warm[2] > FD_GROWTH_LIMIT:
        problems.append("fds grew from %d to %d" % (warm[2], series[-1][2]))
    if series[-1][4] <= series[0][4]:
        problems.append("no PLEG events during the soak: the churn was not observed")
    if errors:
        problems.append("%d relist errors" % errors)
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        harness._kill_all()
