"""What the e2e test adds to tests/lib/harness.py: an Agent with a few
conveniences, metric lookups on harness.Metrics, and an event watcher that
timestamps when each PLEG event first appears in /debug/events."""

import json
import os
import threading
import time

import harness
from harness import wait_until  # noqa: F401  (re-exported for the tests)

BUILD_DIR = harness.build_dir()


def log(msg=""):
    print(msg, flush=True)


def cause_of(report, cause_id):
    return next((c for c in report["causes"] if c["id"] == cause_id), None)


def shim_hung_held_without_runtime_hung(report, seconds=10):
    """containerd 2.x with a frozen shim: a lifecycle call waits in NRI on the
    shim before it takes the container's status lock (1.6 took the lock, then
    called the shim), so the lists keep answering: no chain, no runtime_hung.
    Measured on 2.3.7: the agent keeps shim_hung first as the risk ("no call
    hangs yet"), the waiting UpdateContainerResources / StopContainer are not
    linked to it, and nothing says the runtime hangs. Where the host's own load
    raises node_pressure (a 2-core machine under other builds), that ranks above
    it at times, so shim_hung must stay listed throughout and never become
    runtime_hung. Returns the last report with shim_hung first."""
    wait_until(lambda: (lambda r: r["causes"] and r["causes"][0]["id"] == "shim_hung")(report()), 20,
               "shim_hung first")
    t_end, rep, ranks = time.time() + seconds, None, set()
    while time.time() < t_end:
        rep = report()
        ids = [c["id"] for c in rep["causes"]]
        assert "shim_hung" in ids, ids
        assert cause_of(rep, "runtime_hung") is None, "the lists answer on 2.x: %s" % cause_of(rep, "runtime_hung")
        ranks.add(ids.index("shim_hung") + 1)
        time.sleep(1)
    log("  shim_hung ranked %s over %d s while the calls waited" % (sorted(ranks), seconds))
    rep["causes"].sort(key=lambda c: c["id"] != "shim_hung")
    return rep


def metric(metrics, name, **labels):
    """Value of the first sample of NAME whose labels include LABELS, or None."""
    found = metrics.find(name, **labels)
    return found[0].value if found else None


def samples(metrics, name):
    """[(labels, value)] of every sample of NAME."""
    return [(s.labels, s.value) for s in metrics.find(name)]


class Agent(harness.Agent):
    """harness.Agent plus json(), log_tail(), alive and base."""

    @property
    def base(self):
        return self.base_url

    @property
    def alive(self):
        return self.proc is not None and self.proc.alive()

    def json(self, path):
        return self.get_json(path)

    def log_tail(self, n=40):
        return self.proc.tail(n) if self.proc else ""


class EventWatcher:
    """Polls /debug/events in the background and records, for every event
    (identified by type, container id and its occurrence number), the wall
    time it was first seen. Delays are measured against runtime timestamps,
    so the poll interval (50 ms) bounds the measurement error."""

    def __init__(self, agent, interval=0.05):
        self.agent = agent
        self.interval = interval
        self.lock = threading.Lock()
        self.first_seen = {}    # (type, cid, n) -> wall time
        self.events = []        # latest snapshot, oldest first
        self.errors = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(5)

    def _run(self):
        while not self._stop.is_set():
            try:
                status, body = self.agent.get("/debug/events", timeout=2)
                now = time.time()
                if status == 200:
                    evs = json.loads(body).get("events", [])
                    counts = {}
                    with self.lock:
                        self.events = evs
                        for e in evs:
                            k = (e.get("type"), e.get("container_id"))
                            counts[k] = counts.get(k, 0) + 1
                            self.first_seen.setdefault(k + (counts[k],), now)
                else:
                    self.errors += 1
            except Exception:
                self.errors += 1
            self._stop.wait(self.interval)

    def for_container(self, cid):
        with self.lock:
            return [e for e in self.events if e.get("container_id") == cid]

    def types_for(self, cid):
        return [e["type"] for e in self.for_container(cid)]

    def count(self, etype, cid):
        return self.types_for(cid).count(etype)

    def wait_for(self, etype, cid, timeout, n=1):
        """Waits until the N-th ETYPE event for CID has been seen; returns the
        event and the wall time it was first seen."""
        def seen():
            with self.lock:
                t = self.first_seen.get((etype, cid, n))
                if t is None:
                    return None
                evs = [e for e in self.events if e.get("type") == etype and e.get("container_id") == cid]
                return (evs[n - 1] if len(evs) >= n else {}), t
        return wait_until(seen, timeout, "%s for %s" % (etype, cid[:12]))
