#!/usr/bin/env python3
"""bench/fleet_bench.py: the fleet side at scale, on a real Prometheus.

One load generator (this process) serves N simulated agents' /metrics pages:
the pages a real agent (build/plegscope on build/fakecri) exported on a
healthy node and on a node whose runtime hangs, captured at the start, with
`node` and `cluster` set by the scrape (one node in 100 hangs). Counters keep
growing at the rate they had, pleg_last_seen_seconds keeps up with the clock
on healthy nodes and stays put on hung ones, so the rules see live data.

For N = 250, 500, 1,000, 2,000: a fresh Prometheus scrapes them every 15 s with the
mixin's rules (alerts/*.rules.yml, evaluated every 15 s). Printed: each rule
group's evaluation time (prometheus_rule_group_last_duration_seconds, mean and
max over the evaluations seen), the head series, those the recording rules
add, and the time of every fleet-dashboard query over the last hour (range
queries, 15 s step; the TSDB holds only the minutes of this run). The floor:
the same Prometheus scraping N node_exporter pages (Debian's
prometheus-node-exporter on this machine, captured once), no rules. Then
the figures extrapolated to 5,000 nodes from the measured growth (a least
squares line over the three N), and `kubectl plegscope nodes` at 1,000 nodes
both ways: --prometheus against that Prometheus, and the pod-proxy path
through tests/integration's API server stand-in, every pod answering the
captured /diagnose.

Figures only; nothing asserts. Results: bench/results/fleet.json.
Usage: bench/fleet_bench.py [--nodes 250,500,1000,2000] [--evaluations 3] [--skip-kubectl]
Needs scripts/install-deps bench and scripts/build. Takes about 10 minutes.
"""
import argparse
import http.server
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ecosystem"))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

import benchlib  # noqa: E402
import ecolib  # noqa: E402
import harness  # noqa: E402
from apiserver_standin import ApiServerStandIn, pod  # noqa: E402

SCRAPE_INTERVAL = 15
HUNG_EVERY = 100
COUNTER_SUFFIXES = ("_total", "_bucket", "_count", "_sum")


# ---------------------------------------------------------------- pages


class Page:
    """A captured /metrics page, rendered for one simulated node at a time:
    counters advance at their captured average rate, pleg_last_seen_seconds
    follows the clock unless the node is hung."""

    def __init__(self, text, uptime, captured_at):
        self.static = []   # [(kind, text)]: kind "s" static text, "c" counter line, "l" last-seen line
        self.uptime = max(uptime, 1.0)
        self.captured_at = captured_at
        for line in text.splitlines():
            if line.startswith("#") or not line.strip():
                self.static.append(("s", line + "\n", 0.0))
                continue
            name_labels, _, value = line.rpartition(" ")
            name = name_labels.split("{", 1)[0]
            try:
                v = float(value)
            except ValueError:
                self.static.append(("s", line + "\n", 0.0))
                continue
            if name == "pleg_last_seen_seconds" and v > 0:
                self.static.append(("l", name_labels + " ", v))
            elif name.endswith(COUNTER_SUFFIXES) and math.isfinite(v):
                self.static.append(("c", name_labels + " ", v))
            else:
                self.static.append(("s", line + "\n", 0.0))

    def render(self, index, hung, now):
        grow = 1.0 + (now - self.captured_at) / self.uptime
        jitter = 1.0 + (index % 13) / 100.0
        out = []
        for kind, text, v in self.static:
            if kind == "s":
                out.append(text)
            elif kind == "c":
                out.append("%s%.17g\n" % (text, v * grow * jitter))
            else:
                out.append("%s%.3f\n" % (text, v if hung else now - 0.5))
        return "".join(out).encode()


class LoadGenerator:
    """One HTTP server for every simulated target: /<kind>/<index>/metrics
    (kind pleg-healthy, pleg-hung or floor) and /diagnose (for the pod proxy)."""

    def __init__(self, pages, diagnose_json):
        self.pages = pages
        self.diagnose = diagnose_json
        self.served = 0

    def __enter__(self):
        gen = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802
                path = urllib.parse.urlsplit(self.path).path
                parts = path.strip("/").split("/")
                if parts[0] == "diagnose":
                    body, ctype = gen.diagnose, "application/json"
                elif len(parts) == 3 and parts[0] in gen.pages and parts[2] == "metrics":
                    kind = parts[0]
                    body = gen.pages[kind].render(int(parts[1]), kind == "pleg-hung", time.time())
                    ctype = "text/plain; version=0.0.4"
                else:
                    self.send_error(404)
                    return
                gen.served += 1
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = harness.LoopbackServer(Handler)
        self.address = "127.0.0.1:%d" % self.server.port
        return self

    def __exit__(self, *exc):
        self.server.stop()
        return False


def capture_agent_pages():
    """(healthy page, its uptime), (hung page, its uptime), a /diagnose JSON, from real agents."""
    # The healthy agent as shipped (the 3-minute threshold its page exports is what the at-risk and
    # unhealthy rules compare with); the hung one with short thresholds, to be unhealthy within the
    # capture. Both read a calm /proc fixture, so no cause of this machine's own (its pressure while
    # the bench runs) lands on every simulated node.
    calm = ["--node-name", "sim", "--proc-path", os.path.join(ROOT, "tests", "fixtures", "proc", "healthy")]
    short = ["--relist-threshold", "20s", "--hang-threshold", "3s"]
    pages = {}
    with harness.FakeCri("steady", log_level="warn") as healthy_cri, \
            harness.FakeCri("hang", log_level="warn") as hung_cri, \
            harness.Agent(healthy_cri.endpoint, calm, log_level="warn") as healthy, \
            harness.Agent(hung_cri.endpoint, calm + short, log_level="warn") as hung:
        t0 = time.time()

        def hung_reported():
            rep = json.loads(hung.get("/diagnose")[1])
            return rep.get("status") == "unhealthy"
        harness.wait_until(hung_reported, 120, "the hung agent to report unhealthy", interval=1)

        def relists(agent):
            found = re.search(r"^pleg_relist_duration_seconds_count (\S+)$", agent.get("/metrics")[1], re.M)
            return float(found.group(1)) if found else 0.0
        # A healthy page with half a minute of relists in its histograms: a page captured before the
        # first relist has empty buckets, whose quantiles are NaN and which the recording rules drop.
        harness.wait_until(lambda: relists(healthy) >= 30, 120, "30 relists on the healthy agent", interval=1)
        diagnose = healthy.get("/diagnose")[1].encode()
        now = time.time()
        for name, agent in (("pleg-healthy", healthy), ("pleg-hung", hung)):
            pages[name] = Page(agent.get("/metrics")[1], now - t0, now)
    return pages, diagnose


def capture_node_exporter():
    exe = shutil.which("prometheus-node-exporter") or harness.require_tool("node_exporter")
    port = harness.free_port()
    proc = harness.Process("node-exporter", [exe, "--web.listen-address=127.0.0.1:%d" % port])
    try:
        url = "http://127.0.0.1:%d/metrics" % port
        harness.wait_until(lambda: harness.http(url, timeout=2)[0] == 200, 30, "node_exporter to serve", interval=0.2)
        t0 = time.time()
        text = harness.http(url, timeout=10)[1]
        return Page(text, 3600.0, t0)  # counters of a node up for an hour: the growth is what matters
    finally:
        proc.stop(timeout=10)


# ---------------------------------------------------------------- one Prometheus


def scrape_config(gen, kind_of, n, job):
    groups = []
    for i in range(n):
        kind = kind_of(i)
        groups.append({"targets": [gen.address],
                       "labels": {"__metrics_path__": "/%s/%d/metrics" % (kind, i), "instance": "sim-%d:9547" % i,
                                  "node": "ip-10-0-%d-%d.ec2.internal" % (i // 250, i % 250),
                                  "cluster": "c%d" % (i % 2)}})
    return {"job_name": job, "scrape_interval": "%ds" % SCRAPE_INTERVAL, "scrape_timeout": "10s", "file_sd": groups}


def scalar(prom, expr):
    r = prom.query(expr)["data"]["result"]
    return float(r[0]["value"][1]) if r else 0.0


QUERY_TIMEOUT = 60


def timed_query(prom, expr, instant):
    """(seconds, series) of one dashboard query, or (None, 0) past QUERY_TIMEOUT."""
    now = time.time()
    if instant:
        params = {"query": expr, "time": "%.3f" % now}
        endpoint = "query"
    else:
        params = {"query": expr, "start": "%.3f" % (now - 3600), "end": "%.3f" % now, "step": "15"}
        endpoint = "query_range"
    t0 = time.perf_counter()
    try:
        status, body = harness.http("%s/api/v1/%s?%s" % (prom.url, endpoint, urllib.parse.urlencode(params)),
                                    timeout=QUERY_TIMEOUT)
    except OSError:
        return None, 0
    elapsed = time.perf_counter() - t0
    r = json.loads(body)
    assert r["status"] == "success", (expr, r)
    return elapsed, len(r["data"]["result"])


def dashboard_queries():
    with open(os.path.join(ROOT, "dashboards", "pleg-fleet.json")) as f:
        dash = json.load(f)
    values = {"node": ".+", "datasource": "prometheus", "__rate_interval": "1m", "__range": "1h"}
    out = []
    for panel in ecolib.iter_panels(dash["panels"]):
        for t in panel.get("targets", []):
            if t.get("expr"):
                out.append(("%s/%s" % (panel["title"], t.get("refId", "")), ecolib.substitute(t["expr"], values),
                            bool(t.get("instant")) or panel.get("type") in ("stat", "bargauge", "table")))
    return out


def measure(gen, n, floor, evaluations):
    if floor:
        sc = scrape_config(gen, lambda i: "floor", n, "node")
        rules = []
    else:
        sc = scrape_config(gen, lambda i: "pleg-hung" if i % HUNG_EVERY == 0 else "pleg-healthy", n, "plegscope")
        rules = [os.path.join(ROOT, rf) for rf in ecolib.rule_files()]
    out = {"nodes": n, "floor": floor}
    with ecolib.Prometheus([], scrape_interval="%ds" % SCRAPE_INTERVAL, evaluation_interval="%ds" % SCRAPE_INTERVAL,
                           rule_files=rules, scrape_config=sc) as prom:
        t0 = time.monotonic()
        job = sc["job_name"]
        harness.wait_until(lambda: scalar(prom, 'count(up{job="%s"} == 1)' % job) == n, 240,
                           "%d targets scraped" % n, interval=1)
        durations, per_rule = {}, {}
        intervals = rule_group_intervals(rules)
        if rules:
            # evaluations after every target's second scrape: rates exist, the recorded series are all there.
            seen = {}

            def sample():
                # /api/v1/rules: each group's last evaluation and its duration (the same figure as
                # prometheus_rule_group_last_duration_seconds, which this Prometheus does not scrape),
                # and each rule's own.
                for g in prom.api("rules")["data"]["groups"]:
                    if g.get("lastEvaluation", "").startswith("0001") or seen.get(g["name"]) == g["lastEvaluation"]:
                        continue
                    seen[g["name"]] = g["lastEvaluation"]
                    durations.setdefault(g["name"], []).append(float(g["evaluationTime"]))
                    for rule in g["rules"]:
                        key = "%s %s%s" % (g["name"], rule["name"], "".join(
                            " %s=%s" % kv for kv in sorted(rule.get("labels", {}).items()) if kv[0] == "quantile"))
                        per_rule.setdefault(key, []).append(float(rule.get("evaluationTime", 0)))
                return set(durations) >= set(intervals) and all(len(v) >= evaluations for v in durations.values())
            scraped_twice(prom, job, n)  # rates exist before the first counted evaluation
            sample()
            durations.clear()
            per_rule.clear()
            # generous: a group slower than its interval skips evaluations, which is itself a result.
            harness.wait_until(sample, (evaluations + 3) * max(intervals.values()) + 300,
                               "%d evaluations of every group" % evaluations, interval=2)
        else:
            scraped_twice(prom, job, n)  # the floor: the same two scrapes of every target
        out["head_series"] = prom.api("status/tsdb")["data"]["headStats"]["numSeries"]
        out["scraped_series_per_target"] = scalar(prom, 'avg(scrape_samples_scraped{job="%s"})' % job)
        out["recorded_series"] = scalar(prom, 'count({__name__=~".+:.+"})')
        out["scrape_duration_p99_ms"] = 1000 * scalar(prom, 'quantile(0.99, scrape_duration_seconds{job="%s"})' % job)
        out["rss_mib"] = benchlib.memory_mib(prom.proc.pid)["rss_mib"]
        out["cpu_seconds"] = benchlib.cpu_seconds(prom.proc.pid)
        out["elapsed_s"] = time.monotonic() - t0
        out["rule_groups"] = {g: {"mean_ms": 1000 * statistics.mean(v), "max_ms": 1000 * max(v), "evaluations": len(v)}
                              for g, v in sorted(durations.items())}
        out["rule_eval_total_mean_ms"] = sum(g["mean_ms"] for g in out["rule_groups"].values())
        # The share of Prometheus' time the rules take: each group's evaluation over its own interval.
        out["rule_eval_share"] = sum(g["mean_ms"] / 1000 / intervals.get(name, SCRAPE_INTERVAL)
                                     for name, g in out["rule_groups"].items())
        out["rules"] = {k: 1000 * statistics.mean(v) for k, v in sorted(per_rule.items())}
        if not floor:
            queries = []
            for name, expr, instant in dashboard_queries():
                times = []
                for _ in range(3):  # median of 3; one run when it takes over a second (bounds the run)
                    elapsed, series = timed_query(prom, expr, instant)
                    times.append(1000 * QUERY_TIMEOUT if elapsed is None else 1000 * elapsed)
                    if elapsed is None or elapsed > 1:
                        break
                queries.append({"panel": name, "instant": instant, "median_ms": statistics.median(times),
                                "runs": len(times), "timed_out": elapsed is None, "series": series})
            out["dashboard_queries"] = queries
            out["dashboard_query_max_ms"] = max(q["median_ms"] for q in queries)
            out["dashboard_query_sum_ms"] = sum(q["median_ms"] for q in queries)
            out["prometheus_url"] = prom.url
            if n == max(NODES_FOR_KUBECTL, default=0) and KUBECTL_HOOK:
                out["kubectl_prometheus_s"] = KUBECTL_HOOK(prom)
    return out


def rule_group_intervals(rule_files):
    """{group name: evaluation interval in seconds} of the rule files (the global interval where unset)."""
    out = {}
    for path in rule_files:
        for g in ecolib.load_yaml(path)["groups"]:
            out[g["name"]] = ecolib.duration_seconds(g["interval"]) if "interval" in g else SCRAPE_INTERVAL
    return out


def scraped_twice(prom, job, n):
    harness.wait_until(lambda: scalar(prom, 'count(count_over_time(up{job="%s"}[5m]) >= 2)' % job) == n,
                       8 * SCRAPE_INTERVAL, "two scrapes of all %d targets" % n, interval=1)


NODES_FOR_KUBECTL = []
KUBECTL_HOOK = None


# ---------------------------------------------------------------- kubectl plegscope nodes


def kubectl_env(workdir, standin):
    os.symlink(os.path.join(ROOT, "plugins", "kubectl-plegscope"), os.path.join(workdir, "kubectl-plegscope"))
    return dict(os.environ, KUBECONFIG=standin.kubeconfig(os.path.join(workdir, "kubeconfig")),
                PATH=workdir + os.pathsep + os.environ.get("PATH", ""), HOME=workdir)


def run_plugin(env, args):
    kubectl = harness.require_tool("kubectl")
    t0 = time.monotonic()
    r = subprocess.run([kubectl, "plegscope", "nodes"] + args, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=1800)
    return time.monotonic() - t0, r


def kubectl_via_prometheus(prom):
    with tempfile.TemporaryDirectory() as d, ApiServerStandIn([], []) as api:
        env = kubectl_env(d, api)
        elapsed, r = run_plugin(env, ["--prometheus", prom.url])
        rows = len(r.stdout.splitlines()) - 1
        print("  kubectl plegscope nodes --prometheus: %d rows in %.2fs (exit %d)" % (rows, elapsed, r.returncode))
        return {"seconds": elapsed, "rows": rows}


def kubectl_via_pod_proxy(gen, n, concurrency):
    pods = [pod("plegscope-%05d" % i, "node-%d" % i, gen.server.port) for i in range(n)]
    with tempfile.TemporaryDirectory() as d, ApiServerStandIn(pods, ["node-%d" % i for i in range(n)]) as api:
        env = kubectl_env(d, api)
        elapsed, r = run_plugin(env, ["--concurrency", str(concurrency), "--node-timeout", "10s"])
        rows = len(r.stdout.splitlines()) - 1
        print("  kubectl plegscope nodes (pod proxy, --concurrency %d): %d rows in %.1fs (exit %d)"
              % (concurrency, rows, elapsed, r.returncode))
        return {"seconds": elapsed, "rows": rows, "concurrency": concurrency, "requests": len(api.log())}


# ---------------------------------------------------------------- report


def fit(points, at):
    """Least squares line through [(x, y)], evaluated at x=at."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return my + slope * (at - mx)


def report(results):
    pleg = [r for r in results if not r["floor"]]
    floor = {r["nodes"]: r for r in results if r["floor"]}
    print("\n%-6s %-9s %12s %12s %10s %10s %10s %12s %14s" % (
        "nodes", "targets", "head series", "recorded", "per node", "RSS MiB", "CPU s", "rules ms", "dash max ms"))
    for r in pleg:
        f = floor.get(r["nodes"])
        print("%-6d %-9s %12d %12d %10.0f %10.0f %10.1f %12.1f %14.1f" % (
            r["nodes"], "plegscope", r["head_series"], r["recorded_series"], r["scraped_series_per_target"],
            r["rss_mib"], r["cpu_seconds"], r["rule_eval_total_mean_ms"], r["dashboard_query_max_ms"]))
        if f:
            print("%-6d %-9s %12d %12s %10.0f %10.0f %10.1f %12s %14s" % (
                f["nodes"], "floor", f["head_series"], "-", f["scraped_series_per_target"], f["rss_mib"],
                f["cpu_seconds"], "-", "-"))
    print("\nrule evaluation, share of Prometheus' time (each group's mean over its interval): %s"
          % "  ".join("%d: %.2f %%" % (r["nodes"], 100 * r["rule_eval_share"]) for r in pleg))
    print("\nrule groups (mean / max ms per evaluation):")
    for g in pleg[0]["rule_groups"]:
        print("  %-24s %s" % (g, "  ".join("%d: %.1f / %.1f" % (r["nodes"], r["rule_groups"][g]["mean_ms"],
                                                                     r["rule_groups"][g]["max_ms"]) for r in pleg)))
    top = pleg[-1]
    print("\nslowest rules at %d nodes (mean ms per evaluation):" % top["nodes"])
    for name, ms in sorted(top["rules"].items(), key=lambda kv: -kv[1])[:12]:
        print("  %8.1f  %s" % (ms, name))
    print("\nfleet dashboard queries (median of 3, ms; range queries over 1 h at a 15 s step unless instant):")
    for i, q in enumerate(pleg[0]["dashboard_queries"]):
        print("  %-58s %s" % (q["panel"][:58], "  ".join("%7.1f" % r["dashboard_queries"][i]["median_ms"] for r in pleg)))
    extrapolated = {}
    if len(pleg) >= 2:
        for key in ("head_series", "recorded_series", "rule_eval_total_mean_ms", "rule_eval_share",
                    "dashboard_query_max_ms", "rss_mib"):
            extrapolated[key] = fit([(r["nodes"], r[key]) for r in pleg], 5000)
        if len(floor) >= 2:
            extrapolated["floor_head_series"] = fit([(n, f["head_series"]) for n, f in floor.items()], 5000)
            extrapolated["floor_rss_mib"] = fit([(n, f["rss_mib"]) for n, f in floor.items()], 5000)
        print("\nextrapolated to 5,000 nodes (least squares over %s):" % ", ".join(str(r["nodes"]) for r in pleg))
        for k, v in extrapolated.items():
            print("  %-26s %12.1f" % (k, v))
        print("  rule evaluation share: %.2f %%" % (100 * extrapolated["rule_eval_share"]))
    return extrapolated


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", default="250,500,1000,2000")
    ap.add_argument("--evaluations", type=int, default=3)
    ap.add_argument("--skip-kubectl", action="store_true")
    ap.add_argument("--concurrency", type=int, default=16)
    args = ap.parse_args()
    sizes = [int(x) for x in args.nodes.split(",")]
    t0 = time.monotonic()
    pages, diagnose = capture_agent_pages()
    pages["floor"] = capture_node_exporter()
    for k, p in pages.items():
        print("captured %-12s %4d sample lines" % (k, sum(1 for kind, text, _ in p.static
                                                          if kind != "s" or not text.startswith("#"))))
    global KUBECTL_HOOK
    results, kubectl = [], {}
    with LoadGenerator(pages, diagnose) as gen:
        if not args.skip_kubectl:
            NODES_FOR_KUBECTL.append(max(sizes))
            KUBECTL_HOOK = kubectl_via_prometheus
        for n in sizes:
            for floor in (False, True):
                r = measure(gen, n, floor, args.evaluations)
                print("N=%d %s: head series %d, %.0f s" % (n, "floor" if floor else "plegscope", r["head_series"],
                                                          r["elapsed_s"]))
                results.append(r)
        if not args.skip_kubectl:
            kubectl["prometheus"] = next(r["kubectl_prometheus_s"] for r in results
                                         if r.get("kubectl_prometheus_s"))
            kubectl["pod_proxy"] = kubectl_via_pod_proxy(gen, max(sizes), args.concurrency)
    extrapolated = report(results)
    if kubectl:
        print("\nkubectl plegscope nodes at %d simulated nodes: --prometheus %.2fs, pod proxy %.1fs (--concurrency %d)"
              % (max(sizes), kubectl["prometheus"]["seconds"], kubectl["pod_proxy"]["seconds"], args.concurrency))
    out = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "scrape_interval_s": SCRAPE_INTERVAL,
           "hung_every": HUNG_EVERY, "results": results, "extrapolated_5000": extrapolated, "kubectl": kubectl,
           "load": os.getloadavg(), "total_s": time.monotonic() - t0}
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "results", "fleet.json"), "w") as f:
        json.dump(out, f, indent=1, default=str)
    print("\nbench/results/fleet.json written; total %.0f s" % out["total_s"])


if __name__ == "__main__":
    main()
