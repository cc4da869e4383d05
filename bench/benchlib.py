"""Process-level measurements for scripts/bench (python3 stdlib + tests/lib/harness.py).

Each function measures one thing against processes the harness started and
returns plain numbers; scripts/bench puts them in a table and a JSON file.
"""

import calendar
import json
import os
import re
import subprocess
import time

import harness

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User+system CPU of a process (all its threads), seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def memory_mib(pid):
    """{"rss_mib", "rss_anon_mib", "peak_rss_mib"} of a process (VmRSS, RssAnon,
    VmHWM), MiB. RssAnon leaves out the pages of the binary and its shared
    libraries, so a new library shows apart from heap growth."""
    names = {"VmRSS": "rss_mib", "RssAnon": "rss_anon_mib", "VmHWM": "peak_rss_mib"}
    values = dict.fromkeys(names.values(), 0.0)
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in names:
                values[names[key]] = int(rest.split()[0]) / 1024.0
    return values


def clear_referenced(pid):
    """Clears the kernel's referenced bits of a process's pages
    (/proc/PID/clear_refs), so that referenced_kib() later counts only the
    pages touched since."""
    with open("/proc/%d/clear_refs" % pid, "w") as f:
        f.write("1")


def referenced_kib(pid, top=8):
    """Mapped (Rss) against referenced KiB since clear_referenced(), from
    /proc/PID/smaps: {"file_rss", "file_referenced", "anon_rss",
    "anon_referenced", "files": [(name, rss, referenced), ...] largest first}.
    A file page stays in the RSS once mapped; the referenced count says how
    much of it the process works with."""
    by_name = {}
    name = None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            parts = line.split()
            if not parts[0].endswith(":"):
                name = parts[5] if len(parts) > 5 and parts[5].startswith("/") else "[anon]"
                by_name.setdefault(name, [0, 0])
            elif parts[0] in ("Rss:", "Referenced:"):
                by_name[name][0 if parts[0] == "Rss:" else 1] += int(parts[1])
    files = [(os.path.basename(n), v[0], v[1]) for n, v in by_name.items() if n != "[anon]"]
    anon = by_name.get("[anon]", [0, 0])
    return {"file_rss": sum(f[1] for f in files), "file_referenced": sum(f[2] for f in files),
            "anon_rss": anon[0], "anon_referenced": anon[1],
            "files": sorted(files, key=lambda f: -f[1])[:top]}


def _fd_targets(pid):
    targets = []
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            targets.append(os.readlink("/proc/%d/fd/%s" % (pid, fd)))
        except OSError:
            pass  # closed meanwhile
    return targets


def _kept_stat_file(target):
    """A process's or thread's stat file under /proc, as the host scan keeps
    them open between scans (docs/host-scan.md)."""
    parts = target.split("/")
    return len(parts) >= 4 and parts[-1] == "stat" and "proc" in parts and parts[-2].isdigit()


def fd_count(pid):
    """Open file descriptors of a process, without the /proc stat files the
    host scan keeps open: those follow the host's own processes (at most
    4,096, and a quarter of the soft limit), counted by kept_stat_fds."""
    return sum(1 for t in _fd_targets(pid) if not _kept_stat_file(t))


def kept_stat_fds(pid):
    """The /proc stat files the host scan keeps open between scans."""
    return sum(1 for t in _fd_targets(pid) if _kept_stat_file(t))


def thread_names(pid):
    """{thread name: count} of a process's threads (/proc/PID/task/*/comm)."""
    names = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
        except OSError:
            continue  # the thread ended while listed
        names[name] = names.get(name, 0) + 1
    return names


def footprint(pid):
    """The agent's footprint at one moment: RSS and peak RSS (MiB), open fds,
    threads, CPU seconds. scripts/bench and scripts/soak both read it here."""
    return dict(memory_mib(pid), fds=fd_count(pid), kept_stat_fds=kept_stat_fds(pid),
                threads=sum(thread_names(pid).values()), cpu_seconds=cpu_seconds(pid))


def node_scenario(name, pods, containers_per_pod, churn_pods, extra_phases=(), container_events=False):
    """A fakecri scenario: a steady phase, then (when jumped to) 10 % of pods crash-looping."""
    return {
        "name": name,
        "description": "scripts/bench: %d pods x %d containers" % (pods, containers_per_pod),
        "node": {"pods": pods, "containers_per_pod": containers_per_pod, "namespaces": ["default", "kube-system"]},
        "runtime": {"name": "containerd", "version": "1.7.2", "container_events": container_events},
        "phases": [
            {"name": "steady", "duration": "24h"},
            # Crash-looping pods restart round-robin, so at one relist a second
            # about churn_pods pods change between two relists.
            {"name": "churn", "duration": "24h", "churn": {"crashloop_pods": churn_pods,
                                        "crashloop_restarts_per_second": churn_pods,
                                        "keep_exited_attempts": 1}},
        ] + list(extra_phases),
    }


def floor(fake, benchmark, iterations, inspect_pods=0, pause_ms=50):
    """Runs build/bench/floor_client's `benchmark` on fakecri; its figures in ms/MiB."""
    binary = os.path.join(harness.build_dir(), "bench", "floor_client")
    out = subprocess.run(
        [binary, "--socket", fake.socket, "--inspect-pods", str(inspect_pods),
         "--iterations", str(iterations), "--pause-ms", str(pause_ms),
         "--benchmark_filter=^%s(/|$)" % benchmark,
         "--benchmark_format=json"],
        check=True, capture_output=True, text=True).stdout
    b = json.loads(out)["benchmarks"][0]
    if b.get("error_occurred"):
        raise RuntimeError("floor_client %s: %s" % (benchmark, b.get("error_message")))
    return {"mean_ms": b["real_time"], "p99_ms": b["p99_ms"], "cpu_ms": b["cpu_time"],
            "peak_rss_mib": b["peak_rss_mib"], "threads": b.get("threads"), "calls": b["calls"],
            "iterations": b["iterations"]}


class AgentProbe:
    """Reads an agent's relist counters, CPU and fakecri's call log at one moment."""

    def __init__(self, agent, fake):
        self.agent, self.fake = agent, fake

    def sample(self):
        m = self.agent.metrics()
        log = self.fake.call_log(since=1 << 62)
        return {"t": time.monotonic(), "cpu": cpu_seconds(self.agent.proc.pid),
                "relists": m.get("pleg_relist_duration_seconds_count", 0),
                "relist_sum": m.get("pleg_relist_duration_seconds_sum", 0),
                "calls": log["next_seq"] - 1, "counts": log["counts"]}

    def wait_relists(self, n, timeout=120):
        start = self.sample()["relists"]
        harness.wait_until(lambda: self.sample()["relists"] >= start + n, timeout, "%d relists" % n, interval=0.2)


def relist_window(probe, seconds):
    """Mean and p99 relist, CPU and calls per relist over `seconds` of relisting."""
    a = probe.sample()
    time.sleep(seconds)
    b = probe.sample()
    # The timeline is read after the CPU sample so rendering it is not counted.
    relists = b["relists"] - a["relists"]
    timeline = probe.agent.get_json("/diagnose")["timeline"]
    since = time.time() - (time.monotonic() - a["t"])
    durations = sorted(1000 * r["duration_seconds"] for r in timeline
                       if _unix(r["start"]) >= since and r.get("error") is None)
    if relists <= 0:
        raise RuntimeError("no relist in %ss" % seconds)
    by_method = {k: b["counts"].get(k, 0) - a["counts"].get(k, 0) for k in b["counts"]}
    return {
        "relists": relists,
        "mean_ms": 1000 * (b["relist_sum"] - a["relist_sum"]) / relists,
        "p99_ms": durations[min(len(durations) - 1, int(0.99 * len(durations)))] if durations else None,
        "cpu_ms_per_relist": 1000 * (b["cpu"] - a["cpu"]) / relists,
        "calls_per_relist": (b["calls"] - a["calls"]) / relists,
        "calls_by_method": by_method,
        **memory_mib(probe.agent.proc.pid),
        "thread_names": thread_names(probe.agent.proc.pid),
        "durations_ms": durations,
    }


def rate_window(probe, seconds):
    """Agent CPU and runtime calls per minute over `seconds`, however few relists ran."""
    a = probe.sample()
    time.sleep(seconds)
    b = probe.sample()
    minutes = (b["t"] - a["t"]) / 60
    return {"relists": b["relists"] - a["relists"],
            "cpu_ms_per_minute": 1000 * (b["cpu"] - a["cpu"]) / minutes,
            "calls_per_minute": (b["calls"] - a["calls"]) / minutes,
            "calls_by_method": {k: b["counts"].get(k, 0) - a["counts"].get(k, 0) for k in b["counts"]},
            "rss_mib": memory_mib(probe.agent.proc.pid)["rss_mib"]}


def _unix(rfc3339):
    """Seconds since the epoch of "2026-11-23T15:00:00.123Z"."""
    match = re.match(r"(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)(\.\d+)?Z", rfc3339)
    y, mo, d, h, mi, s = (int(x) for x in match.groups()[:6])
    return calendar.timegm((y, mo, d, h, mi, s)) + float(match.group(7) or 0)


def metrics_scrape_cpu(probe, scrapes, cpu_ms_per_relist):
    """Agent CPU per /metrics scrape: CPU over a burst of scrapes, less the relists' share."""
    a = probe.sample()
    start = time.monotonic()
    for _ in range(scrapes):
        status, _ = probe.agent.get("/metrics")
        if status != 200:
            raise RuntimeError("/metrics -> %d" % status)
    elapsed = time.monotonic() - start
    b = probe.sample()
    relists = b["relists"] - a["relists"]
    # The two probe samples are scrapes too.
    spent = 1000 * (b["cpu"] - a["cpu"]) - relists * cpu_ms_per_relist
    return {"cpu_ms_per_scrape": max(0.0, spent) / (scrapes + 2), "wall_ms_per_scrape": 1000 * elapsed / scrapes}


def wrk_metrics(agent, connections, seconds):
    """wrk against /metrics: requests/s and latency percentiles (ms)."""
    wrk = harness.require_tool("wrk")
    out = subprocess.run([wrk, "-t2", "-c%d" % connections, "-d%ds" % seconds, "--latency",
                          agent.url("/metrics")], check=True, capture_output=True, text=True).stdout
    result = {"connections": connections, "seconds": seconds}
    units = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    for pct in ("50", "90", "99"):
        m = re.search(r"^\s+%s%%\s+([\d.]+)(us|ms|s)\s*$" % pct, out, re.M)
        if m:
            result["p%s_ms" % pct] = float(m.group(1)) * units[m.group(2)]
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    result["requests_per_second"] = float(m.group(1)) if m else None
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    result["non_2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors:.*", out)
    result["socket_errors"] = m.group(0) if m else ""
    return result
