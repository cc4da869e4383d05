"""Whole-agent CPU share of one core for scripts/bench: a
steady 110x2 node relisted every second, over a window, in four
configurations, beside the floor client's share at the same one pair of list
calls a second and beside the budget (whole agent <= 0.5 % of one core
with the host scan on). The agent's CPU is its process's utime+stime from
/proc/PID/stat; the fake kubelet and the fake runtime-metrics page run in this
Python process and are not counted. Figures only; nothing asserts.
"""

import os
import shutil
import tempfile
import time

import benchlib
import harness
from fake_kubelet import FakeKubelet, FakeRuntimeMetrics
import kubelet_exposition
from harness import Agent, FakeCri

BUDGET_PERCENT = 0.5  # Whole agent, host scan on, steady 110-pod node
KUBELET_PAGE_BYTES = 1 << 20  # A realistic kubelet exposition is >= 1 MiB
CONFIGS = ("plain", "host_scan", "scrapers", "everything")


class BigKubelet(FakeKubelet):
    """The fake kubelet with its page padded past KUBELET_PAGE_BYTES by the
    families a busy kubelet exports beside PLEG's (rest client series)."""

    padding = None

    def page(self):
        with self._lock:
            now = self._frozen_at or time.time()
        relists = int((now - self._start) / 1.0) + 100  # the kubelet's one relist a second
        durations = [0.004] * relists
        if self.padding is None:
            probe = len(kubelet_exposition.exposition(durations, now, padding_series=100))
            base = len(kubelet_exposition.exposition(durations, now))
            self.padding = int(100 * (KUBELET_PAGE_BYTES - base) / (probe - base)) + 10
        return kubelet_exposition.exposition(durations, now, version=self.version, padding_series=self.padding)


class ContainerdPage(FakeRuntimeMetrics):
    """containerd 1.6's real metrics page (tests/fixtures/runtime_metrics)."""

    def __init__(self):
        super().__init__()
        with open(os.path.join(harness.source_dir(), "tests", "fixtures", "runtime_metrics", "containerd-1.6.txt")) as f:
            self.text = f.read()

    def page(self):
        return self.text  # the server counts each request (self.requests)


def steady_scenario():
    return {"name": "bench-cpu-share", "description": "scripts/bench: 110 pods x 2, steady",
            "node": {"pods": 110, "containers_per_pod": 2, "namespaces": ["default", "kube-system"]},
            "runtime": {"name": "containerd", "version": "1.7.2"},
            "phases": [{"name": "steady", "duration": "24h"}]}


def config_flags(config, empty_dir, runtime_root, kubelet, token_file, runtime_metrics):
    # The host scan cannot be switched off by a flag (it is always on); "off"
    # is an empty tree, so the scanner runs and finds nothing to read.
    host = config in ("host_scan", "everything")
    flags = ["--proc-path", "/proc" if host else empty_dir, "--sys-path", "/sys" if host else empty_dir,
             "--runtime-root", runtime_root if host else empty_dir]
    if config in ("scrapers", "everything"):
        flags += ["--kubelet-endpoint", kubelet.url, "--kubelet-token-file", token_file,
                  "--kubelet-ca-file", kubelet.ca_file, "--runtime-metrics-endpoint", runtime_metrics.url]
    else:
        flags += ["--kubelet-endpoint", "off"]
    return flags


def measure(window, floor_iterations, agent_flags, configs=CONFIGS):
    tmp = tempfile.mkdtemp(prefix="bench-share-")
    empty_dir = os.path.join(tmp, "empty")
    runtime_root = os.path.join(tmp, "runtime-root")  # an existing directory on this machine's disk
    os.makedirs(empty_dir)
    os.makedirs(runtime_root)
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write("t0k3n\n")
    out = {"shape": "110x2", "window_seconds": window, "budget_percent": BUDGET_PERCENT, "configs": {}}
    try:
        with BigKubelet(tmp, token="t0k3n") as kubelet, ContainerdPage() as runtime_metrics, \
                FakeCri(steady_scenario(), log_level="warn", hold="steady") as fake:
            out["kubelet_page_bytes"] = len(kubelet.page())
            out["runtime_metrics_page_bytes"] = len(runtime_metrics.text)
            out["floor"] = benchlib.floor(fake, "BM_ListPair", floor_iterations)
            # One pair a second: the floor client's CPU per pair is its share of one core per second.
            out["floor_percent"] = out["floor"]["cpu_ms"] / 10.0
            for config in configs:
                flags = agent_flags + config_flags(config, empty_dir, runtime_root, kubelet, token_file,
                                                   runtime_metrics)
                with Agent(fake.endpoint, flags, log_level="warn") as agent:
                    probe = benchlib.AgentProbe(agent, fake)
                    probe.wait_relists(3)  # the initial relist inspects every pod
                    if config in ("scrapers", "everything"):
                        harness.wait_until(lambda: agent.metrics().get("pleg_kubelet_up") == 1, 30, "a kubelet scrape")
                    k0, r0 = kubelet.requests, runtime_metrics.requests
                    pid = agent.proc.pid
                    benchlib.clear_referenced(pid)
                    c0, t0 = benchlib.cpu_seconds(pid), time.monotonic()
                    time.sleep(window)
                    c1, t1 = benchlib.cpu_seconds(pid), time.monotonic()
                    m = agent.metrics()
                    out["configs"][config] = {
                        "percent_of_one_core": 100 * (c1 - c0) / (t1 - t0),
                        "cpu_seconds": c1 - c0, "seconds": t1 - t0,
                        "kubelet_scrapes": kubelet.requests - k0, "runtime_metrics_scrapes": runtime_metrics.requests - r0,
                        "kubelet_up": m.get("pleg_kubelet_up"), "runtime_metrics_up": m.get("pleg_runtime_metrics_up"),
                        **benchlib.memory_mib(pid),
                        "thread_names": benchlib.thread_names(pid),
                        "pages": benchlib.referenced_kib(pid),
                    }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    plain, scrapers = out["configs"].get("plain"), out["configs"].get("scrapers")
    if plain and scrapers:
        scrapes = scrapers["kubelet_scrapes"] + scrapers["runtime_metrics_scrapes"]
        extra = scrapers["cpu_seconds"] / scrapers["seconds"] - plain["cpu_seconds"] / plain["seconds"]
        out["agent_cpu_ms_per_scrape"] = 1000 * extra * scrapers["seconds"] / scrapes if scrapes else None
    return out


def print_table(r):
    print("\n## Whole agent, share of one core, 110x2 steady, 1 s relist, %d s window "
          "(floor: bare client, one list pair a second; budget: 0.5 %% of one core)\n" % r["window_seconds"])
    print("| configuration | agent CPU | floor | ratio | budget | kubelet scrapes | runtime-metrics scrapes "
          "| RSS (anon) | peak RSS | threads |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    labels = {"plain": "plain (host scan on an empty tree, no scrapers)",
              "host_scan": "host scan on (/proc, /sys)",
              "scrapers": "kubelet (%.1f MiB page, HTTPS, token) + containerd page (%d KiB)" % (
                  r["kubelet_page_bytes"] / 1048576.0, r["runtime_metrics_page_bytes"] // 1024),
              "everything": "everything on"}
    for config in CONFIGS:
        c = r["configs"].get(config)
        if not c:
            continue
        budget = "%.1f %%" % r["budget_percent"] if config in ("host_scan", "everything") else "-"
        print("| %s | %.3f %% | %.3f %% | %.1f | %s | %d | %d | %.1f MiB (%.1f) | %.1f MiB | %s |" % (
            labels[config], c["percent_of_one_core"], r["floor_percent"],
            c["percent_of_one_core"] / r["floor_percent"] if r["floor_percent"] else 0, budget,
            c["kubelet_scrapes"], c["runtime_metrics_scrapes"], c["rss_mib"], c.get("rss_anon_mib", 0),
            c.get("peak_rss_mib", 0), sum(c["thread_names"].values()) if "thread_names" in c else "-"))
    f = r.get("floor", {})
    if f.get("threads") is not None:
        print("| floor: bare gRPC client, same fakecri | | | | | | | peak %.1f MiB | | %d |" % (
            f["peak_rss_mib"], f["threads"]))
    everything = r["configs"].get("everything", {}).get("thread_names")
    if everything:
        print("\nThreads with everything on, by name: " +
              ", ".join("%s %d" % (name, n) for name, n in sorted(everything.items(), key=lambda kv: (-kv[1], kv[0]))))
    pages = r["configs"].get("everything", {}).get("pages")
    if pages:
        print("\nPages with everything on, mapped (RSS) against referenced during the window, KiB: "
              "files %d / %d, anonymous and private %d / %d; largest files: " % (
                  pages["file_rss"], pages["file_referenced"], pages["anon_rss"], pages["anon_referenced"]) +
              ", ".join("%s %d / %d" % f for f in pages["files"]))
    if r.get("agent_cpu_ms_per_scrape") is not None:
        print("\nAgent CPU per scrape with both readers (TLS, HTTP, parse; scrapers minus plain, per request): "
              "%.2f ms" % r["agent_cpu_ms_per_scrape"])
