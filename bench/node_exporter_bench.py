"""Beside node_exporter for scripts/bench: the agent every node
already runs, Debian's prometheus-node-exporter with its default
collectors, against plegscope with everything on (host scan, the kubelet
and runtime-metrics readers; a steady 110x2 node relisted every second),
on the same machine in the same minutes, each scraped every 15 s as
Prometheus would. RSS, anonymous RSS, peak RSS (VmHWM), threads and CPU
share of one core for both, with plegscope's ratio to node_exporter.

The thread-heavy host (measure_thread_heavy) is the same, with a real tree
of sleeping processes and threads held by `build/bench/host_scan_real_bench
--hold PxT` for the window (600 processes of 46 threads by default), and
node_exporter's `processes` collector on (off by default): it walks every
process's stat and its task/ directory, so both agents read the same /proc.
The agent's host scan runs every 5 s, so its CPU per scan beside the quiet
run is (CPU share difference) x 5 s, an upper bound (everything else the
agent does grows a little with the host too).
Figures only; nothing asserts.
"""

import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import benchlib
import cpu_share_bench
import harness
from harness import Agent, FakeCri

SCRAPE_INTERVAL = 15.0


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.status, len(answer.read())


def start_node_exporter(port, extra_flags=()):
    binary = harness.require_tool("prometheus-node-exporter")
    proc = subprocess.Popen([binary, "--web.listen-address=127.0.0.1:%d" % port] + list(extra_flags),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = "http://127.0.0.1:%d/metrics" % port

    def answers():
        try:
            return scrape(url)[0] == 200
        except OSError:
            return False
    harness.wait_until(answers, 20, "node_exporter's /metrics")
    return proc, url


class HeldTree:
    """A real tree of sleeping processes and threads for the window, made and
    reaped by build/bench/host_scan_real_bench --hold (it refuses a shape
    that would crowd pid_max). Closing its stdin ends it."""

    def __init__(self, shape):
        self.shape = shape
        self.proc = None

    def __enter__(self):
        # This checkout's build when the agent under test is another's (PLEGSCOPE_BUILD_DIR of an older build).
        binary = os.path.join(harness.build_dir(), "bench", "host_scan_real_bench")
        if not os.access(binary, os.X_OK):
            binary = os.path.join(harness.source_dir(), "build", "bench", "host_scan_real_bench")
        self.proc = subprocess.Popen([binary, "--hold", self.shape], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("ready"):
            self.__exit__(None, None, None)
            raise RuntimeError("host_scan_real_bench --hold %s: %s" % (self.shape, line))
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=120)
            self.proc = None


def measure(window, agent_flags, tree_shape=None, exporter_flags=()):
    tmp = tempfile.mkdtemp(prefix="bench-beside-")
    empty_dir = os.path.join(tmp, "empty")
    runtime_root = os.path.join(tmp, "runtime-root")
    os.makedirs(empty_dir)
    os.makedirs(runtime_root)
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write("t0k3n\n")
    exporter = None
    tree = HeldTree(tree_shape) if tree_shape else None
    try:
        if tree:
            tree.__enter__()
        with cpu_share_bench.BigKubelet(tmp, token="t0k3n") as kubelet, cpu_share_bench.ContainerdPage() as page, \
                FakeCri(cpu_share_bench.steady_scenario(), log_level="warn", hold="steady") as fake:
            flags = agent_flags + cpu_share_bench.config_flags("everything", empty_dir, runtime_root, kubelet,
                                                               token_file, page)
            with Agent(fake.endpoint, flags, log_level="warn") as agent:
                benchlib.AgentProbe(agent, fake).wait_relists(3)
                harness.wait_until(lambda: agent.metrics().get("pleg_kubelet_up") == 1, 30, "a kubelet scrape")
                exporter, exporter_url = start_node_exporter(harness.free_port(), exporter_flags)
                targets = {"node_exporter": (exporter.pid, exporter_url), "plegscope": (agent.proc.pid,
                                                                                         agent.url("/metrics"))}
                for _, url in targets.values():
                    scrape(url)  # the first scrape of each, before the window
                cpu0 = {name: benchlib.cpu_seconds(pid) for name, (pid, _) in targets.items()}
                started = time.monotonic()
                scrapes, page_bytes = 0, {}
                while True:
                    for name, (_, url) in targets.items():
                        page_bytes[name] = scrape(url)[1]
                    scrapes += 1
                    next_scrape = started + scrapes * SCRAPE_INTERVAL
                    if next_scrape > started + window:
                        break
                    time.sleep(max(0.0, next_scrape - time.monotonic()))
                time.sleep(max(0.0, started + window - time.monotonic()))
                elapsed = time.monotonic() - started
                out = {"window_seconds": elapsed, "scrape_interval_seconds": SCRAPE_INTERVAL, "scrapes": scrapes,
                       "tree": tree_shape or "", "node_exporter_flags": list(exporter_flags)}
                for name, (pid, _) in targets.items():
                    out[name] = dict(benchlib.memory_mib(pid),
                                     percent_of_one_core=100 * (benchlib.cpu_seconds(pid) - cpu0[name]) / elapsed,
                                     threads=sum(benchlib.thread_names(pid).values()),
                                     page_bytes=page_bytes[name])
                return out
    finally:
        if exporter is not None:
            exporter.terminate()
            exporter.wait(timeout=10)
        if tree:
            tree.__exit__(None, None, None)
        shutil.rmtree(tmp, ignore_errors=True)


PROCESSES_COLLECTOR = ("--collector.processes",)


def measure_thread_heavy(window, agent_flags, shape="600x46"):
    """The quiet host and the thread-heavy one, node_exporter with its
    processes collector on in both, one after the other."""
    return {"quiet": measure(window, agent_flags, None, PROCESSES_COLLECTOR),
            "thread_heavy": measure(window, agent_flags, shape, PROCESSES_COLLECTOR)}


def print_thread_heavy(r, scan_interval=5.0):
    q, h = r["quiet"], r["thread_heavy"]
    print("\n## Beside node_exporter (processes collector on) on a quiet and a thread-heavy host (+%s, a real tree), "
          "%.0f s windows\n" % (h["tree"], h["window_seconds"]))
    print("| host | node_exporter CPU | plegscope CPU | ratio | plegscope RSS | node_exporter RSS |")
    print("|---|---|---|---|---|---|")
    for name, x in (("quiet", q), ("+" + h["tree"], h)):
        ne, ps = x["node_exporter"], x["plegscope"]
        print("| %s | %.3f %% | %.3f %% | %.2f | %.1f MiB | %.1f MiB |" % (
            name, ne["percent_of_one_core"], ps["percent_of_one_core"],
            ps["percent_of_one_core"] / ne["percent_of_one_core"] if ne["percent_of_one_core"] else 0,
            ps["rss_mib"], ne["rss_mib"]))
    extra = (h["plegscope"]["percent_of_one_core"] - q["plegscope"]["percent_of_one_core"]) / 100 * scan_interval
    print("\nplegscope's extra CPU per host scan (every %.0f s) on the thread-heavy host, from the shares: "
          "%.1f ms (an upper bound: the whole agent's difference)" % (scan_interval, extra * 1000))


def print_table(r):
    print("\n## Beside node_exporter: same machine, same minutes, each scraped every %.0f s, %.0f s window "
          "(plegscope: 110x2 steady, 1 s relist, host scan and both readers on)\n"
          % (r["scrape_interval_seconds"], r["window_seconds"]))
    print("| | RSS | anonymous RSS | peak RSS | CPU, share of one core | threads | page |")
    print("|---|---|---|---|---|---|---|")
    rows = (("rss_mib", "%.1f MiB"), ("rss_anon_mib", "%.1f MiB"), ("peak_rss_mib", "%.1f MiB"),
            ("percent_of_one_core", "%.3f %%"), ("threads", "%d"), ("page_bytes", "%d B"))
    ne, ps = r["node_exporter"], r["plegscope"]
    for name, figures in (("node_exporter", ne), ("plegscope", ps)):
        print("| %s | %s |" % (name, " | ".join(fmt % figures[key] for key, fmt in rows)))
    print("| ratio | %s |" % " | ".join("%.2f" % (ps[key] / ne[key]) if ne[key] else "-" for key, _ in rows))
