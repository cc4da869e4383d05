"""What every fault scenario checks: the agent is alive, /metrics answers,
its resources stay bounded, and its PLEG events agree with the fake's own
record of state changes (GET /changes): nothing invented, nothing lost."""

import collections
import os
import sys
import threading
import time

import harness
from harness import wait_until

# One footprint measurement: the bench's (bench/benchlib.py).
sys.path.insert(0, os.path.join(harness.source_dir(), "bench"))
from benchlib import fd_count, footprint  # noqa: E402

# Generous bounds: a leak or an unbounded buffer crosses them within a
# scenario; normal use (a 20 MiB answer decoded once) stays far below.
RSS_LIMIT_MIB = 256
FD_LIMIT = 256


def rss_mib(pid):
    return footprint(pid)["rss_mib"]


class Watch:
    """Samples the agent in the background while a fault runs: RSS, fds,
    whether /metrics answered (and how long it took)."""

    def __init__(self, agent, interval=0.5):
        self.agent = agent
        self.interval = interval
        self.samples = []          # (seconds since start, rss MiB, fds)
        self.metrics_failures = []  # (seconds, error)
        self.metrics_ok = 0
        self.metrics_slowest = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._t0 = time.monotonic()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(10)
        return False

    def _run(self):
        pid = self.agent.proc.pid
        while not self._stop.is_set():
            now = time.monotonic() - self._t0
            try:
                self.samples.append((now, rss_mib(pid), fd_count(pid)))
            except (OSError, AssertionError):
                pass
            t = time.monotonic()
            try:
                status, _ = self.agent.get("/metrics", timeout=10)
                took = time.monotonic() - t
                self.metrics_slowest = max(self.metrics_slowest, took)
                if status == 200:
                    self.metrics_ok += 1
                else:
                    self.metrics_failures.append((now, "HTTP %d" % status))
            except OSError as e:
                self.metrics_failures.append((now, str(e)))
            self._stop.wait(self.interval)

    def report(self, name):
        rss = [s[1] for s in self.samples]
        fds = [s[2] for s in self.samples]
        print("%s: %d /metrics answers, %d failures, slowest %.3fs; RSS %.1f..%.1f MiB; fds %d..%d"
              % (name, self.metrics_ok, len(self.metrics_failures), self.metrics_slowest,
                 min(rss), max(rss), min(fds), max(fds)), flush=True)

    def check(self, name):
        """The agent stayed up, /metrics always answered, resources bounded."""
        assert self.samples, "no samples of the agent"
        self.report(name)
        assert self.agent.proc.alive(), "the agent died:\n%s" % self.agent.proc.tail()
        assert not self.metrics_failures, "/metrics failed: %r" % self.metrics_failures[:5]
        assert self.metrics_ok > 0
        peak_rss = max(s[1] for s in self.samples)
        peak_fds = max(s[2] for s in self.samples)
        assert peak_rss < RSS_LIMIT_MIB, "RSS reached %.1f MiB" % peak_rss
        assert peak_fds < FD_LIMIT, "%d open fds" % peak_fds


def agent_events(agent):
    return agent.get_json("/debug/events?limit=1000000")["events"]


def _known(initial_pods, changes):
    known = collections.defaultdict(lambda: {"kinds": set(), "initial": None, "sandbox": False})
    for pod in initial_pods:
        for sid in pod["sandboxes"]:
            known[sid]["sandbox"] = True
            known[sid]["initial"] = "ready"
        for c in pod["containers"]:
            known[c["id"]]["initial"] = c["state"]
    for ch in changes:
        known[ch["id"]]["kinds"].add(ch["kind"])
        known[ch["id"]]["sandbox"] |= ch["sandbox"]
    return known


# Which fake changes make an agent event plausible.
_EVIDENCE = {
    "ContainerStarted": ({"started"}, {"running", "ready"}),
    "ContainerDied": ({"stopped", "deleted"}, {"exited", "running"}),
    "ContainerRemoved": ({"deleted"}, set()),
}


def invented(initial_pods, changes, events):
    """Agent events about ids the fake never had, or of a kind it never made."""
    known = _known(initial_pods, changes)
    bad = []
    for e in events:
        if e["type"] not in _EVIDENCE:
            continue  # PodSync and the like carry no container claim
        cid = e["container_id"]
        if cid not in known:
            bad.append(("unknown id", e))
            continue
        k = known[cid]
        kinds, initial_states = _EVIDENCE[e["type"]]
        if k["sandbox"]:
            continue  # sandboxes: the id is real; their lifecycle is not the point here
        if not (k["kinds"] & kinds or k["initial"] in initial_states):
            bad.append(("no matching change (%s, initially %s)" % (sorted(k["kinds"]), k["initial"]), e))
    return bad


def lost(final_pods, changes, events):
    """Containers whose final state the agent's last event about them does not reflect."""
    last = {}
    for e in events:
        if e["type"] in _EVIDENCE:
            last[e["container_id"]] = e["type"]
    expected = {}
    for pod in final_pods:
        for c in pod["containers"]:
            if c["state"] == "running":
                expected[c["id"]] = "ContainerStarted"
            elif c["state"] == "exited":
                expected[c["id"]] = "ContainerDied"
    present = {c["id"] for pod in final_pods for c in pod["containers"]} | \
              {s for pod in final_pods for s in pod["sandboxes"]}
    for ch in changes:
        # Deleted and never back: if the agent spoke of it, it saw it go.
        if ch["kind"] == "deleted" and not ch["sandbox"] and ch["id"] not in present and ch["id"] in last:
            expected[ch["id"]] = "ContainerRemoved"
    return [(cid, want, last.get(cid)) for cid, want in sorted(expected.items()) if last.get(cid) != want]


def check_events_agree(fake, agent, initial_pods, timeout=30):
    """Stops the churn (phase "quiet", held), waits until the agent's last
    event about every container matches the fake's final state, and checks
    no event was invented. Returns (events, changes)."""
    fake.phase("quiet", hold=True)
    final_pods = fake.pods()

    def caught_up():
        events = agent_events(agent)
        missing = lost(final_pods, fake.changes(), events)
        if missing:
            raise AssertionError("%d containers not reflected, e.g. %r" % (len(missing), missing[:3]))
        return events

    events = wait_until(caught_up, timeout, "the agent's events to reflect the fake's final state")
    changes = fake.changes()
    bad = invented(initial_pods, changes, events)
    assert not bad, "%d invented events, e.g. %r" % (len(bad), bad[:3])
    assert len(events) < 1000, "the event log (1000) overflowed: the comparison would be partial"
    print("events agree: %d agent events, %d fake state changes, %d containers at the end"
          % (len(events), len(changes), sum(len(p["containers"]) for p in final_pods)), flush=True)
    return events, changes
