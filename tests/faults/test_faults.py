"""Faults a real runtime can show, on fakecri (tests/scenarios/fault_*.json):
restarting 100 times a minute, garbage in the event stream, bytes trickling
slowly, 20 MiB answers, a socket that accepts and never answers, a Version
call that never returns. In each the agent stays up, /metrics answers
throughout, RSS and fds stay bounded, and (where the runtime is usable at
all) its PLEG events agree with the fake's own record of state changes."""

import os
import socket
import tempfile
import threading
import time

import harness
from harness import Agent, FakeCri, wait_until
from fault_lib import Watch, agent_events, check_events_agree, invented, lost

FAST = ["--relist-period", "200ms", "--runtime-request-timeout", "5s"]


def relists(agent):
    return agent.metrics().get("pleg_relist_duration_seconds_count", 0)


def test_the_comparison_can_fail():
    """The checks below rest on invented() and lost(): each must flag what it is for."""
    pod = {"sandboxes": ["s1"], "containers": [{"id": "c1", "state": "running"}]}
    changes = [{"kind": "stopped", "id": "c1", "sandbox": False},
               {"kind": "deleted", "id": "c2", "sandbox": False}]
    ev = lambda t, c: {"type": t, "container_id": c}  # noqa: E731
    assert invented([pod], changes, [ev("ContainerStarted", "c1"), ev("ContainerDied", "c1")]) == []
    assert invented([pod], changes, [ev("ContainerStarted", "zz")]), "an unknown id"
    assert invented([pod], changes, [ev("ContainerRemoved", "c1")]), "removed, but never deleted"
    exited = {"sandboxes": ["s1"], "containers": [{"id": "c1", "state": "exited"}]}
    assert lost([exited], changes, [ev("ContainerStarted", "c1"), ev("ContainerDied", "c1")]) == []
    assert lost([exited], changes, [ev("ContainerStarted", "c1")]), "the death was lost"
    assert lost([exited], changes, [ev("ContainerStarted", "c2"), ev("ContainerDied", "c1")]), \
        "c2 was seen, then its removal lost"


def test_runtime_restarting_100_times_a_minute():
    with FakeCri("fault_restart_storm") as fake:
        initial = fake.pods()
        with Agent(fake.endpoint, FAST) as agent, Watch(agent) as watch:
            t0 = time.monotonic()
            downs = 0
            was_up = True
            # Count the restarts the fake really made, by watching its socket.
            while time.monotonic() - t0 < 60:
                up = fake.state()["socket"] == "up"
                downs += was_up and not up
                was_up = up
                time.sleep(0.03)
            print("socket went down %d times in 60 s" % downs)
            assert downs >= 80, "the fake restarted only %d times" % downs
            m = agent.metrics()
            errors = m.sum("pleg_relist_errors_total")
            print("relists %d, failed %d (%s)" % (relists(agent), errors,
                  {s.labels["code"]: s.value for s in m.find("pleg_relist_errors_total")}))
            assert errors > 0, "no relist ever failed: the restarts were not seen"
            check_events_agree(fake, agent, initial)
            wait_until(lambda: agent.get("/healthz")[0] == 200, 10, "/healthz 200 after the storm")
            watch.check("restart storm")


def test_garbage_in_the_event_stream():
    with FakeCri("fault_garbage_events") as fake:
        initial = fake.pods()
        # Beside a kubelet before 1.37, whose evented PLEG the stream drives
        # (from 1.37 its events are only a hint for pod relists).
        with Agent(fake.endpoint, FAST + ["--evented-pleg", "true", "--kubelet-version", "v1.36.0"]) as agent, \
                Watch(agent) as watch:
            wait_until(lambda: agent.metrics().get("pleg_evented_mode") == 1, 10, "evented mode")
            died = lambda: len([e for e in agent_events(agent) if e["type"] == "ContainerDied"])  # noqa: E731
            wait_until(lambda: died() >= 10, 40, "10 ContainerDied events from the stream")
            m = agent.metrics()
            assert m.get("pleg_evented_mode") == 1, "garbage must not end evented mode"
            assert m.get("pleg_evented_connection_errors_total") == 0
            check_events_agree(fake, agent, initial)
            # The stream really carried garbage: the agent logged what it dropped.
            assert "has no pod sandbox status; ignored" in agent.proc.output()
            watch.check("garbage events")


class TrickleProxy:
    """A unix socket in front of fakecri that passes bytes on both ways a
    few at a time: every call takes seconds instead of microseconds."""

    def __init__(self, target, chunk=64, pause=0.01):
        self.target, self.chunk, self.pause = target, chunk, pause
        self.dir = tempfile.mkdtemp(prefix="trickle-")
        self.path = os.path.join(self.dir, "cri.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(64)
        self.stopped = False
        self.bytes = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _pump(self, src, dst):
        try:
            while not self.stopped:
                data = src.recv(self.chunk)
                if not data:
                    break
                dst.sendall(data)
                self.bytes += len(data)
                time.sleep(self.pause)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _accept(self):
        while not self.stopped:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                upstream.connect(self.target)
            except OSError:
                client.close()
                continue
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    def close(self):
        self.stopped = True
        self.listener.close()


def test_calls_that_trickle_bytes_slowly():
    with FakeCri("fault_trickle") as fake:
        initial = fake.pods()
        proxy = TrickleProxy(fake.socket)
        try:
            flags = ["--relist-period", "1s", "--runtime-request-timeout", "20s"]
            with Agent("unix://" + proxy.path, flags) as agent, Watch(agent) as watch:
                wait_until(lambda: agent.get("/healthz")[0] == 200, 60, "a first relist through the trickle")
                calls = fake.calls()
                slow = max(c.get("duration_seconds", 0) for c in calls)
                wait_until(lambda: relists(agent) >= 3, 60, "3 relists through the trickle")
                p50 = agent.get_json("/diagnose")["relist"]["duration_p50_seconds"]
                print("through the trickle: %d bytes, relist p50 %.2fs (fake's own answers at most %.4fs)"
                      % (proxy.bytes, p50, slow))
                assert p50 > 0.5, "the trickle did not slow the relist (p50 %.3fs)" % p50
                check_events_agree(fake, agent, initial, timeout=90)
                watch.check("trickle")
        finally:
            proxy.close()


def test_answers_of_20_mib_unary():
    with FakeCri("fault_large_answers") as fake:
        initial = fake.pods()
        with Agent(fake.endpoint, ["--relist-period", "1s"]) as agent, Watch(agent) as watch:
            wait_until(lambda: agent.metrics().get("pleg_relist_errors_total", 0, code="RESOURCE_EXHAUSTED") >= 3,
                       60, "3 relists refused as RESOURCE_EXHAUSTED")
            assert "pleg has yet to be successful" in agent.get("/healthz")[1], "no relist can have succeeded"
            assert agent.get("/readyz")[0] == 200, "ready while serving (DESIGN 5)"
            assert agent_events(agent) == [], "events from lists the agent could not read"
            check_events_agree(fake, agent, initial, timeout=60)  # quiet: answers small again
            watch.check("20 MiB unary")


def test_answers_of_20_mib_streamed():
    with FakeCri("fault_large_streamed") as fake:
        initial = fake.pods()
        with Agent(fake.endpoint, ["--relist-period", "1s", "--cri-list-streaming", "true"]) as agent, \
                Watch(agent) as watch:
            wait_until(lambda: relists(agent) >= 5, 90, "5 relists over 20 MiB streamed lists")
            m = agent.metrics()
            size = m.get("pleg_runtime_list_response_bytes", 0, operation_type="list_containers")
            print("streamed container list: %.1f MiB" % (size / 2**20))
            assert size > 20 * 10**6, size
            assert fake.counts().get("StreamContainers", 0) >= 5, fake.counts()
            assert m.sum("pleg_relist_errors_total") == 0
            check_events_agree(fake, agent, initial, timeout=60)
            watch.check("20 MiB streamed")


def test_socket_that_accepts_and_never_answers():
    tmp = tempfile.mkdtemp(prefix="silent-")
    path = os.path.join(tmp, "cri.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    held = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)  # accepted, never read, never answered
    threading.Thread(target=accept, daemon=True).start()
    try:
        flags = ["--relist-period", "200ms", "--runtime-request-timeout", "2s"]
        with Agent("unix://" + path, flags) as agent, Watch(agent) as watch:
            wait_until(lambda: agent.metrics().sum("pleg_relist_errors_total") >= 3, 30,
                       "3 relists failing against the silent socket")
            time.sleep(10)  # keep it hung: nothing may pile up meanwhile
            m = agent.metrics()
            # Every code is exported from the start at 0: only those that counted matter.
            codes = {s.labels["code"]: s.value for s in m.find("pleg_relist_errors_total") if s.value > 0}
            print("silent socket: relist errors %r, %d connections accepted" % (codes, len(held)))
            assert set(codes) <= {"DEADLINE_EXCEEDED", "UNAVAILABLE"}, codes
            assert "pleg has yet to be successful" in agent.get("/healthz")[1]
            assert agent.get("/readyz")[0] == 200, "ready while serving (DESIGN 5)"
            assert agent.get("/healthz")[0] in (200, 500)
            assert agent_events(agent) == []
            assert len(held) < 50, "%d connections: the agent reconnects without back-off" % len(held)
            watch.check("silent socket")
    finally:
        stop.set()
        listener.close()
        for c in held:
            c.close()


def test_version_that_never_answers():
    with FakeCri("fault_version_hang") as fake:
        initial = fake.pods()
        with Agent(fake.endpoint, FAST) as agent, Watch(agent) as watch:
            wait_until(lambda: fake.in_flight().get("Version", 0) >= 1, 20, "a hung Version call")
            before = relists(agent)
            wait_until(lambda: relists(agent) >= before + 10, 20,
                       "relisting to go on while Version hangs (the kubelet never waits for Version)")
            assert agent.get("/healthz")[0] == 200
            check_events_agree(fake, agent, initial)
            watch.check("Version hang")


if __name__ == "__main__":
    harness.main(globals())
