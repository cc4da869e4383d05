"""A fake kubelet /metrics endpoint over HTTPS for the scraper tests.

The certificate is made by `openssl` at start (SAN IP:127.0.0.1 and
DNS:localhost), the bearer token is checked (401 on a wrong or missing one),
and the page is scripted by `mode`, which a test changes while the server
runs:

    healthy   relist count advancing (one relist per 0.1 s), last-seen now
    frozen    count and last-seen stop where they were
    forbidden 403, as a kubelet whose authorizer refuses `get nodes/metrics`
    garbage   200 with an HTML page
    huge      200 with a 50 MiB body and no Content-Length
    huge_declared  the same with a Content-Length
    drip      200, then one byte every 0.5 s, never finishing
    redirect  302 to another host

    with FakeKubelet(tmpdir, token="t0k3n") as kubelet:
        kubelet.url, kubelet.ca_file
        kubelet.mode = "frozen"
        kubelet.freeze(200)   # frozen, as since 200 s ago
"""

import http.server
import os
import subprocess
import threading
import time

import harness
import kubelet_exposition

HUGE_BYTES = 50 << 20


def make_certificate(directory, san="IP:127.0.0.1,DNS:localhost"):
    """Self-signed cert and key for the names in `san`; returns (cert, key)."""
    tag = str(abs(hash(san)))
    cert = os.path.join(directory, "kubelet-%s.crt" % tag)
    key = os.path.join(directory, "kubelet-%s.key" % tag)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=fake-kubelet", "-addext",
                    "subjectAltName=" + san,
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


class FakeKubelet:
    def __init__(self, directory, token="t0k3n", version="v1.30.2", mode="healthy",
                 basic_auth=None, client_ca=None, san="IP:127.0.0.1,DNS:localhost", list_streaming_gate=None):
        self.directory = directory
        self.token = token
        self.version = version
        self.list_streaming_gate = list_streaming_gate  # CRIListStreaming on the page (None: absent)
        self.basic_auth = basic_auth  # "user:password" accepted instead of the token
        self.client_ca = client_ca    # require a client certificate signed by this CA
        self._mode = mode
        self._lock = threading.Lock()
        self._start = time.time()
        self._frozen_at = None
        self.requests = 0
        self.cert_file, self.key_file = make_certificate(directory, san)
        self.ca_file = self.cert_file

    @property
    def mode(self):
        return self._mode

    @mode.setter
    def mode(self, value):
        with self._lock:
            if value == "frozen" and self._frozen_at is None:
                self._frozen_at = time.time()
            elif value != "frozen":
                self._frozen_at = None
            self._mode = value

    def freeze(self, seconds_ago):
        """Frozen since `seconds_ago`: its PLEG last seen that long ago, its
        relist count flat since (a kubelet stuck before the agent started)."""
        with self._lock:
            now = time.time()
            self._start -= seconds_ago
            self._frozen_at = now - seconds_ago
            self._mode = "frozen"

    def page(self):
        with self._lock:
            now = self._frozen_at or time.time()
        relists = int((now - self._start) / 0.1) + 100
        durations = [0.004] * (relists - 3) + [0.3, 0.6, 1.2]
        return kubelet_exposition.exposition(durations, now, version=self.version,
                                             list_streaming_gate=self.list_streaming_gate)

    def __enter__(self):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _authorized(self):
                auth = self.headers.get("Authorization", "")
                if fake.token and auth == "Bearer " + fake.token:
                    return True
                if fake.basic_auth:
                    import base64
                    return auth == "Basic " + base64.b64encode(fake.basic_auth.encode()).decode()
                return not fake.token and not fake.basic_auth

            def _send(self, status, body, content_type="text/plain; version=0.0.4"):
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                fake.requests += 1
                if not self._authorized():
                    return self._send(401, "Unauthorized\n")
                mode = fake.mode
                if self.path not in ("/metrics", "/get"):
                    return self._send(404, "404 page not found\n")
                if mode in ("healthy", "frozen"):
                    return self._send(200, fake.page())
                if mode == "forbidden":
                    return self._send(403, "Forbidden (user=system:serviceaccount:x:y, verb=get, "
                                           "resource=nodes, subresource(s)=[metrics])\n")
                if mode == "garbage":
                    return self._send(200, "<html><body>\x00\x01 hello {{{ }}}</body></html>\n",
                                      "text/html")
                if mode in ("huge", "huge_declared"):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    if mode == "huge_declared":
                        self.send_header("Content-Length", str(HUGE_BYTES))
                    else:
                        self.send_header("Connection", "close")
                    self.end_headers()
                    chunk = b"# " + b"x" * 65533 + b"\n"
                    try:
                        for _ in range(HUGE_BYTES // len(chunk)):
                            self.wfile.write(chunk)
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                if mode == "redirect":
                    self.send_response(302)
                    self.send_header("Location", "https://example.invalid/metrics")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if mode == "drip":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    try:
                        for _ in range(600):
                            self.wfile.write(b"#")
                            self.wfile.flush()
                            time.sleep(0.5)
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                return self._send(500, "unknown mode\n")

        self.server = harness.LoopbackServer(Handler, self.cert_file, self.key_file, self.client_ca)
        self.port = self.server.port
        self.url = "https://127.0.0.1:%d" % self.port
        return self

    def __exit__(self, *exc):
        self.server.stop()


# Prometheus's default buckets, which containerd's go-metrics timers use.
DEFAULT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)


class FakeRuntimeMetrics:
    """A runtime's own metrics page over plain HTTP, scripted by attributes a
    test changes while it serves:

        update_in_flight, list_in_flight   containerd's gRPC calls in flight
        cni_seconds     each network setup/teardown takes this long (None: no
                        network figures); two of each per second since start
        flavor          "containerd": grpc_server_* and the CRI plugin's
                        network_plugin_operations histogram (its real name,
                        ..._duration_seconds_seconds); "crio": CRI-O's
                        operations_latency summary (operation="network_setup_pod",
                        "network_stop_pod") and no gRPC families
    """

    def __init__(self, flavor="containerd", cni_seconds=None):
        self.update_in_flight = 0
        self.list_in_flight = 0
        self.flavor = flavor
        self.cni_seconds = cni_seconds
        self.requests = 0
        self._start = time.time()

    def _operations(self):
        return int((time.time() - self._start) * 2) + 10

    def _containerd_network(self):
        name = "containerd_cri_network_plugin_operations_duration_seconds_seconds"
        lines = ["# HELP %s cumulative latency of network plugin operations" % name, "# TYPE %s histogram" % name]
        n = self._operations()
        for op in ("set_up_pod", "tear_down_pod"):
            for le in DEFAULT_BUCKETS:
                lines.append('%s_bucket{operation_type="%s",le="%g"} %d' % (name, op, le,
                                                                            n if self.cni_seconds <= le else 0))
            lines.append('%s_bucket{operation_type="%s",le="+Inf"} %d' % (name, op, n))
            lines.append('%s_sum{operation_type="%s"} %g' % (name, op, n * self.cni_seconds))
            lines.append('%s_count{operation_type="%s"} %d' % (name, op, n))
        return lines

    def _crio_page(self):
        name = "container_runtime_crio_operations_latency_seconds_total"
        lines = ["# HELP %s Latency of a CRI-O operation." % name, "# TYPE %s summary" % name]
        n = self._operations()
        ops = [("RunPodSandbox", 0.4), ("PodSandboxStatus", 0.002), ("ListPodSandbox", 0.001)]
        if self.cni_seconds is not None:
            ops += [("network_setup_pod", self.cni_seconds), ("network_stop_pod", self.cni_seconds * 0.8)]
        for op, seconds in ops:
            for q, f in (("0.5", 0.9), ("0.9", 1.0), ("0.99", 1.1)):
                lines.append('%s{operation="%s",quantile="%s"} %g' % (name, op, q, seconds * f))
            lines.append('%s_sum{operation="%s"} %g' % (name, op, n * seconds))
            lines.append('%s_count{operation="%s"} %d' % (name, op, n))
        lines.append("# TYPE container_runtime_crio_processes_defunct gauge")
        lines.append("container_runtime_crio_processes_defunct 0")
        return "\n".join(lines) + "\n"

    def page(self):
        if self.flavor == "crio":
            return self._crio_page()
        lines = ["# TYPE grpc_server_started_total counter"]
        for method, flight in (("UpdateContainerResources", self.update_in_flight),
                               ("ListContainers", self.list_in_flight), ("Version", 0)):
            lines.append('grpc_server_started_total{grpc_method="%s",grpc_service="runtime.v1.RuntimeService",grpc_type="unary"} %d' % (method, 100 + flight))
        lines.append("# TYPE grpc_server_handled_total counter")
        for method in ("UpdateContainerResources", "ListContainers", "Version"):
            lines.append('grpc_server_handled_total{grpc_code="OK",grpc_method="%s",grpc_service="runtime.v1.RuntimeService",grpc_type="unary"} 100' % method)
        lines.append('containerd_build_info_total{revision="x",version="v1.7.20"} 1')
        if self.cni_seconds is not None:
            lines += self._containerd_network()
        return "\n".join(lines) + "\n"

    def __enter__(self):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake.requests += 1
                data = fake.page().encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = harness.LoopbackServer(Handler)
        self.url = "http://127.0.0.1:%d/v1/metrics" % self.server.port
        return self

    def __exit__(self, *exc):
        self.server.stop()
