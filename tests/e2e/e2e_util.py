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
