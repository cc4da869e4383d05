#!/usr/bin/env python3
"""Soak: the agent against fakecri's churn (tests/scenarios/soak.json) for a
while, printing its RSS and open fds at every interval.

    soak.py --seconds 600 --every 60          # scripts/soak (not CI)
    soak.py --seconds 60 --every 10 --check   # ctest soak_60s (CI)
    soak.py --seconds 3600 --everything --anon-flat-mib 1 --check
                                              # the hour: every reader on,
                                              # anonymous RSS held flat

Each sample also prints the entries of every per-pod structure
(/debug/sizes). --check fails the run if the agent died, /metrics stopped
answering, RSS or fds kept growing (last sample against the first after
warm-up), or a per-pod structure outgrew what the runtime lists plus the
agent's grace for pods gone, or (with --anon-flat-mib) anonymous RSS moved
more than that after --flat-after.

--everything turns on what a node runs with: the host scan of this machine's
/proc and /sys, the kubelet reader (a 1 MiB page over HTTPS with a token) and
the runtime-metrics reader (containerd 1.6's page), as scripts/bench's
"everything" configuration; the journal follower is on in both."""

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
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


def everything_flags(stack, tmp):
    """The readers and the host scan, as cpu_share_bench's "everything" (bench/)."""
    import cpu_share_bench
    from cpu_share_bench import BigKubelet, ContainerdPage
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write("t0k3n\n")
    runtime_root = os.path.join(tmp, "runtime-root")
    os.makedirs(runtime_root)
    kubelet = stack.enter_context(BigKubelet(tmp, token="t0k3n"))
    page = stack.enter_context(ContainerdPage())
    return cpu_share_bench.config_flags("everything", tmp, runtime_root, kubelet, token_file, page)


def flatness(series, flat_after):
    """(first t, min, max) of anonymous RSS over the samples from flat_after on."""
    after = [(t, anon) for t, anon in series if t >= flat_after]
    if not after:
        return None
    anons = [anon for _, anon in after]
    return after[0][0], min(anons), max(anons)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--every", type=int, default=60)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--relist-period", default="1s",
                        help="shorter fills the bounded histories (600 relists) sooner")
    parser.add_argument("--everything", action="store_true",
                        help="host scan of this machine, kubelet and runtime-metrics readers on")
    parser.add_argument("--flat-after", type=int, default=None,
                        help="seconds of warm-up before anonymous RSS must hold flat "
                             "(default: a quarter of the run, at most 900: the 600-relist histories fill in 10 min)")
    parser.add_argument("--anon-flat-mib", type=float, default=None,
                        help="with --check: fail if anonymous RSS moves more than this after --flat-after")
    args = parser.parse_args()
    flat_after = args.flat_after if args.flat_after is not None else min(900, args.seconds // 4)

    series, sizes, anon_series = [], [], []
    tmp = tempfile.mkdtemp(prefix="soak-")
    with contextlib.ExitStack() as stack:
        flags = ["--relist-period", args.relist_period]
        if args.everything:
            flags += everything_flags(stack, tmp)
        fake = stack.enter_context(FakeCri("soak"))
        agent = stack.enter_context(Agent(fake.endpoint, flags, log_level="info"))
        wait_until(lambda: agent.get("/healthz")[0] == 200, 30, "the first relist")
        if args.everything:
            wait_until(lambda: agent.metrics().get("pleg_kubelet_up") == 1, 30, "a kubelet scrape")
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
            anon_series.append((sample[0], now["rss_anon_mib"]))
            sizes.append(agent.get_json("/debug/sizes")["sizes"])
            print("%5ds %9.1f %5d %8d %8d %6d  anon %.1f MiB  %s" % (sample + (now["rss_anon_mib"], " ".join(
                "%s=%d" % kv for kv in sorted(sizes[-1].items())))), flush=True)
        errors = agent.metrics().sum("pleg_relist_errors_total")
        readers_up = (agent.metrics().get("pleg_kubelet_up"), agent.metrics().get("pleg_runtime_metrics_up"))
    shutil.rmtree(tmp, ignore_errors=True)
    print("soak: %d s, RSS %.1f -> %.1f MiB, fds %d -> %d, relist errors %d"
          % (series[-1][0], series[0][1], series[-1][1], series[0][2], series[-1][2], errors), flush=True)
    flat = flatness(anon_series, flat_after)
    if flat:
        print("soak: anonymous RSS from %d s on: %.1f .. %.1f MiB (moved %.2f MiB)"
              % (flat[0], flat[1], flat[2], flat[2] - flat[1]), flush=True)
    if args.everything:
        print("soak: kubelet reader up %s, runtime-metrics reader up %s at the end" % readers_up, flush=True)
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
    if args.anon_flat_mib is not None:
        if not flat:
            problems.append("no sample after %d s to judge anonymous RSS by" % flat_after)
        elif flat[2] - flat[1] > args.anon_flat_mib:
            problems.append("anonymous RSS moved %.2f MiB after %d s (limit %.2f)"
                            % (flat[2] - flat[1], flat[0], args.anon_flat_mib))
    if args.everything and readers_up != (1, 1):
        problems.append("a reader was down at the end (kubelet %s, runtime metrics %s)" % readers_up)
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        harness._kill_all()
