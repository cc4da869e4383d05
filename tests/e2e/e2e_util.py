"""Small pieces the e2e test needs around the agent: start build/plegscope,
HTTP GETs, a Prometheus text parser, wait_until, and an event watcher that
timestamps when each PLEG event first appears in /debug/events.

Kept self-contained (tests/lib/harness.py did not exist when this was
written); the Agent here has the same shape: Agent(endpoint, extra_flags),
get(path), metrics()."""

import json
import os
import re
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

BUILD_DIR = os.environ.get("PLEGSCOPE_BUILD_DIR", "build")


def log(msg=""):
    print(msg, flush=True)


def wait_until(pred, timeout, what, interval=0.05):
    """Polls pred() until it returns a truthy value (returned) or raises
    AssertionError naming WHAT after TIMEOUT seconds."""
    deadline = time.monotonic() + timeout
    last_exc = None
    while True:
        try:
            v = pred()
            if v:
                return v
        except Exception as e:  # the agent may be mid-start
            last_exc = e
        if time.monotonic() >= deadline:
            raise AssertionError("timed out after %.1fs waiting for %s%s" % (
                timeout, what, (" (last error: %s)" % last_exc) if last_exc else ""))
        time.sleep(interval)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text):
    """Prometheus text -> {name: [(labels_dict, value)]}."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            continue
        labels = dict(_LABEL.findall(m.group(3) or ""))
        try:
            value = float(m.group(4))
        except ValueError:
            continue
        out.setdefault(m.group(1), []).append((labels, value))
    return out


def metric(metrics, name, **labels):
    """Value of the sample of NAME whose labels include LABELS, or None."""
    for lbls, v in metrics.get(name, []):
        if all(lbls.get(k) == val for k, val in labels.items()):
            return v
    return None


class Agent:
    """build/plegscope serve against ENDPOINT on a free local port."""

    def __init__(self, endpoint, extra_flags=(), log_path=None):
        self.endpoint = endpoint
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        self.binary = os.path.join(BUILD_DIR, "plegscope")
        self.args = [self.binary, "--container-runtime-endpoint", endpoint,
                     "--listen-address", "127.0.0.1:%d" % self.port] + list(extra_flags)
        self.log_path = log_path
        self.proc = None

    def __enter__(self):
        self._log = open(self.log_path, "wb") if self.log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(self.args, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        try:
            wait_until(lambda: self.get("/livez")[0] == 200 or self._died(), 15,
                       "plegscope to serve on %s" % self.base)
            if self._died():
                raise AssertionError("plegscope exited with %s: %s" % (self.proc.returncode,
                                                                       self.log_tail()))
        except Exception:
            self.__exit__()
            raise
        return self

    def _died(self):
        return self.proc.poll() is not None

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log_path and self._log:
            self._log.close()
        return False

    def log_tail(self, n=20):
        if not self.log_path:
            return ""
        try:
            with open(self.log_path, "rb") as f:
                return "\n".join(f.read().decode(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def get(self, path, timeout=5):
        """(status, body) of GET PATH."""
        try:
            with urllib.request.urlopen(self.base + path, timeout=timeout) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def json(self, path):
        status, body = self.get(path)
        if status != 200:
            raise AssertionError("GET %s: %d %s" % (path, status, body[:200]))
        return json.loads(body)

    def metrics(self):
        status, body = self.get("/metrics")
        if status != 200:
            raise AssertionError("GET /metrics: %d" % status)
        return parse_metrics(body)


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
