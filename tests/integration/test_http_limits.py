"""HTTP hardening (README "HTTP limits"): malformed requests and huge
headers get a 4xx, and 1,000 idle connections plus slowloris writers do not
stop /metrics from answering a real scrape within Prometheus's default
scrape timeout (10 s). Raw sockets, so nothing in between is polite."""

import os
import resource
import socket
import subprocess
import tempfile
import threading
import time

import harness
from harness import Agent, FakeCri, wait_until

IDLE_CONNECTIONS = 1000
SLOWLORIS_WRITERS = 200  # far more than the agent's 2 civetweb workers
SCRAPES = 8  # one a second, so the writers outlive the request timeout
SCRAPE_TIMEOUT = 10.0  # Prometheus's default scrape_timeout


def raise_fd_limit(needed):
    """Raises the soft RLIMIT_NOFILE (inherited by the agent) to cover `needed` fds."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            raise AssertionError("ulimit -n hard limit %d is below the %d fds this test needs" % (hard, needed))
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    print("fd limit: soft %s (was %s), hard %s" % (resource.getrlimit(resource.RLIMIT_NOFILE)[0], soft, hard))


def raw_request(port, data, timeout=10.0):
    """Sends raw bytes, returns the status code of the answer (0 if the connection closed without one)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            pass  # the server may close before reading everything; the answer still counts
        answer = b""
        try:
            while b"\r\n" not in answer:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except ConnectionResetError:
            pass
    if not answer.startswith(b"HTTP/1."):
        return 0
    return int(answer.split(b" ", 2)[1])


def timed_scrape(port):
    """(status, seconds, bytes) of GET /metrics on a fresh connection, as Prometheus does it."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=SCRAPE_TIMEOUT) as s:
        s.settimeout(max(0.1, SCRAPE_TIMEOUT - (time.monotonic() - started)))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Prometheus/2.45\r\n"
                  b"Accept: text/plain;version=0.0.4\r\nConnection: close\r\n\r\n")
        body = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
    seconds = time.monotonic() - started
    status = int(body.split(b" ", 2)[1]) if body.startswith(b"HTTP/1.") else 0
    return status, seconds, len(body)


def test_malformed_and_huge_requests_get_4xx():
    with FakeCri("steady") as fake, Agent(fake.endpoint, ["--relist-period", "200ms"]) as agent:
        cases = [
            ("garbage request line", b"\x16\x03\x01 hello there\r\n\r\n"),
            ("no HTTP version", b"GET /metrics\r\n\r\n"),
            ("header without colon", b"GET /metrics HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n"),
            ("64 KiB header", b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n"),
            ("10,000 headers", b"GET /metrics HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(10000))
             + b"\r\n"),
            ("1 MiB URL", b"GET /metrics?" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        ]
        for name, data in cases:
            status = raw_request(agent.port, data)
            print("%-22s -> %d" % (name, status))
            assert 400 <= status < 500, "%s: expected a 4xx, got %d" % (name, status)
        assert agent.proc.alive()
        assert agent.get("/metrics")[0] == 200


class Slowloris:
    """Writers that send a request's headers one line every second, never finishing."""

    def __init__(self, port, count):
        self.port, self.count = port, count
        self.stop = threading.Event()
        self.sockets = []
        self.cut_off = 0  # connections the server closed on us
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        for _ in range(self.count):
            s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            self.sockets.append(s)
        self.thread.start()
        return self

    def _run(self):
        n = 0
        while not self.stop.wait(1.0):
            n += 1
            for i, s in enumerate(self.sockets):
                if s is None:
                    continue
                try:
                    s.sendall(b"X-Slow-%d: y\r\n" % n)
                except OSError:
                    s.close()
                    self.sockets[i] = None
                    self.cut_off += 1

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        for s in self.sockets:
            if s is not None:
                s.close()


def open_idle(port, count):
    """`count` connected sockets that never send a byte."""
    sockets = []
    for _ in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(("127.0.0.1", port))
        sockets.append(s)
    return sockets


def test_metrics_answers_under_idle_connections_and_slowloris():
    raise_fd_limit(IDLE_CONNECTIONS + SLOWLORIS_WRITERS + 512)
    with FakeCri("steady") as fake, Agent(fake.endpoint, ["--relist-period", "200ms"]) as agent:
        wait_until(lambda: agent.get("/healthz")[0] == 200, 20, "a first relist (/healthz 200)")
        status, floor, size = timed_scrape(agent.port)
        assert status == 200
        print("/metrics alone: %.3f s (%d bytes)" % (floor, size))
        idle = []
        try:
            started = time.monotonic()
            idle = open_idle(agent.port, IDLE_CONNECTIONS)
            print("opened %d idle connections in %.2f s" % (len(idle), time.monotonic() - started))
            with Slowloris(agent.port, SLOWLORIS_WRITERS) as slow:
                worst = 0.0
                for attempt in range(SCRAPES):
                    if attempt:
                        time.sleep(1.0)  # Prometheus's scrape interval, shortened
                    status, seconds, size = timed_scrape(agent.port)
                    worst = max(worst, seconds)
                    print("/metrics with %d idle + %d slowloris, scrape %d: HTTP %d in %.3f s (%d bytes)"
                          % (IDLE_CONNECTIONS, SLOWLORIS_WRITERS, attempt + 1, status, seconds, size))
                    assert status == 200, "scrape %d answered %d" % (attempt + 1, status)
                    assert seconds < SCRAPE_TIMEOUT, "scrape took %.1f s, past the 10 s scrape timeout" % seconds
                print("worst scrape %.3f s (alone %.3f s); slowloris connections cut off by the server: %d of %d"
                      % (worst, floor, slow.cut_off, SLOWLORIS_WRITERS))
                # The request timeout, not the writers' patience, ended them.
                assert slow.cut_off > 0, "no slowloris connection was closed by the server"
            assert agent.proc.alive()
        finally:
            for s in idle:
                s.close()
        assert agent.get("/metrics")[0] == 200


def test_stalled_tls_handshakes_do_not_stop_https_scrapes():
    """Clients that start a TLS handshake and stop (a slowloris for HTTPS)
    are cut off by the same timeout; curl's scrape over TLS answers."""
    openssl, curl = harness.require_tool("openssl"), harness.require_tool("curl")
    d = tempfile.mkdtemp(prefix="plegscope-limits-tls-")
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", os.path.join(d, "key.pem"), "-out", os.path.join(d, "cert.pem")],
                   check=True, capture_output=True)
    config = os.path.join(d, "web.yml")
    with open(config, "w") as f:
        f.write("tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n")
    raise_fd_limit(SLOWLORIS_WRITERS + 512)

    def scrape(port):
        started = time.monotonic()
        r = subprocess.run([curl, "-sk", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", str(SCRAPE_TIMEOUT),
                            "https://127.0.0.1:%d/metrics" % port], capture_output=True, text=True, timeout=30)
        return int(r.stdout or 0), time.monotonic() - started

    with FakeCri("steady") as fake, Agent(fake.endpoint, ["--web-config-file", config], wait_ready=False) as agent:
        wait_until(lambda: scrape(agent.port)[0] == 200, 15, "https /metrics")
        stalled = []
        try:
            for _ in range(SLOWLORIS_WRITERS):
                s = socket.create_connection(("127.0.0.1", agent.port), timeout=5)
                s.sendall(b"\x16\x03\x01")  # the first bytes of a ClientHello, then nothing
                stalled.append(s)
            worst = 0.0
            for attempt in range(4):
                status, seconds = scrape(agent.port)
                print("https /metrics with %d stalled handshakes, scrape %d: HTTP %d in %.3f s"
                      % (SLOWLORIS_WRITERS, attempt + 1, status, seconds))
                assert status == 200 and seconds < SCRAPE_TIMEOUT, (status, seconds)
                worst = max(worst, seconds)
                time.sleep(1.0)
            closed = closed_by_server(stalled)
            print("worst %.3f s; stalled handshakes closed by the agent: %d of %d" % (worst, closed, len(stalled)))
            assert closed == len(stalled)
        finally:
            for s in stalled:
                s.close()


def closed_by_server(sockets):
    """How many of `sockets` the server has closed (EOF or reset)."""
    closed = 0
    for s in sockets:
        s.setblocking(False)
        try:
            if s.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    return closed


def test_metrics_answers_when_the_kernel_hands_idle_connections_over():
    """TCP_DEFER_ACCEPT keeps silent connections in the kernel for about a
    minute; then it hands them all to the agent at once, which holds each
    for the request timeout. Scrapes through that burst must still answer
    within the scrape timeout."""
    raise_fd_limit(IDLE_CONNECTIONS + 512)
    with FakeCri("steady") as fake, Agent(fake.endpoint, ["--relist-period", "1s"], log_level="info") as agent:
        wait_until(lambda: agent.get("/healthz")[0] == 200, 20, "a first relist (/healthz 200)")
        idle = open_idle(agent.port, IDLE_CONNECTIONS)
        started = time.monotonic()
        try:
            worst, scrapes, closed = 0.0, 0, 0
            while closed < IDLE_CONNECTIONS:
                assert time.monotonic() - started < 180, "the idle connections were never handed over (%d closed)" % closed
                status, seconds, _ = timed_scrape(agent.port)
                scrapes += 1
                closed = closed_by_server(idle)
                if seconds > 0.5:
                    print("t=%5.1f s: scrape took %.3f s, %d of %d idle connections closed by the agent"
                          % (time.monotonic() - started, seconds, closed, IDLE_CONNECTIONS))
                assert status == 200 and seconds < SCRAPE_TIMEOUT, (status, seconds)
                worst = max(worst, seconds)
                time.sleep(0.5)
            print("all %d idle connections handed over and closed after %.0f s; %d scrapes, worst %.3f s"
                  % (IDLE_CONNECTIONS, time.monotonic() - started, scrapes, worst))
        finally:
            for s in idle:
                s.close()


if __name__ == "__main__":
    harness.main(globals())
