"""The kubelet and runtime-metrics readers (collectors/kubelet,
collectors/runtime_metrics) and the libcurl client under them, driven
through build/scrape_probe against tests/lib/fake_kubelet.py: HTTPS with a
certificate made by openssl, a bearer token, and the page scripted over
time (healthy, frozen, 403, garbage, 50 MiB, slow drip)."""

import json
import os
import subprocess
import tempfile

import harness
from harness import require_binary, require_tool, wait_until
from fake_kubelet import FakeKubelet, FakeRuntimeMetrics


class Probe:
    """build/scrape_probe kept running; each scrape() is one line in, one JSON line out."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([require_binary("scrape_probe")] + list(args),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     start_new_session=True)

    def scrape(self):
        self.proc.stdin.write("scrape\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "scrape_probe exited (status %s)" % self.proc.poll()
        return json.loads(line)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def get_all(url, *options):
    out = subprocess.run([require_binary("scrape_probe"), "get", url] + list(options),
                         capture_output=True, text=True, timeout=60, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def get(url, *options):
    return get_all(url, *options)[0]


def token_file(directory, token):
    path = os.path.join(directory, "token")
    with open(path, "w") as f:
        f.write(token + "\n")
    return path


def test_kubelet_frozen_relist_is_seen_aging():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as tmp, FakeKubelet(tmp) as kubelet, \
            Probe("kubelet", kubelet.url, token_file(tmp, "t0k3n"), kubelet.ca_file) as probe:
        first = probe.scrape()
        assert first["error"] == "none", first
        assert first["tls_mode"] == "ca_file"
        assert first["version"] == "v1.30.2" and first["model"] == "generic", first
        # Healthy: the relist count moves between scrapes, last-seen is fresh.
        healthy = wait_until(lambda: (lambda r: r if r["relists_per_minute"] else None)(probe.scrape()),
                             20, "a relist rate")
        assert healthy["relists_per_minute"] > 60, healthy
        assert healthy["seconds_since_relist_advanced"] < 1, healthy
        assert abs(healthy["last_seen_age_seconds"]) < 5, healthy
        assert healthy["relist_p99_seconds"] is not None
        # The kubelet's relist stops: count flat, last-seen ages.
        kubelet.mode = "frozen"
        stuck = wait_until(lambda: (lambda r: r if r["seconds_since_relist_advanced"] >= 2 else None)(probe.scrape()),
                           30, "the kubelet's relist count to stay flat for 2 s")
        assert stuck["last_seen_age_seconds"] >= 2, stuck
        assert stuck["error"] == "none"


def test_kubelet_errors_are_reported_not_fatal():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as tmp, FakeKubelet(tmp) as kubelet:
        with Probe("kubelet", kubelet.url, token_file(tmp, "wrong"), kubelet.ca_file) as probe:
            r = probe.scrape()
            assert (r["error"], r["status"]) == ("unauthorized", 401), r
        with Probe("kubelet", kubelet.url, token_file(tmp, "t0k3n"), kubelet.ca_file) as probe:
            kubelet.mode = "forbidden"
            r = probe.scrape()
            assert (r["error"], r["status"]) == ("forbidden", 403), r
            kubelet.mode = "garbage"
            assert probe.scrape()["error"] == "unexpected_content"
            kubelet.mode = "huge"
            r = probe.scrape()
            assert r["error"] == "too_large", r
            assert r["body_bytes"] <= 32 << 20, r
            kubelet.mode = "huge_declared"
            assert probe.scrape()["error"] == "too_large"
            kubelet.mode = "redirect"
            r = probe.scrape()
            assert (r["error"], r["status"]) == ("http_status", 302), r  # not followed
            kubelet.mode = "drip"
            assert probe.scrape()["error"] == "timeout"
            # The same reader recovers once the kubelet answers again.
            kubelet.mode = "healthy"
            assert probe.scrape()["error"] == "none"
        with Probe("kubelet", kubelet.url, "/nonexistent/token", kubelet.ca_file) as probe:
            assert probe.scrape()["error"] == "credentials_unreadable"
        # Verification is on by default: the system store does not know the
        # fake's certificate; skip-verify accepts it and says so.
        with Probe("kubelet", kubelet.url, token_file(tmp, "t0k3n"), "") as probe:
            assert probe.scrape()["error"] == "tls_verify_failed"
        with Probe("kubelet", kubelet.url, token_file(tmp, "t0k3n"), "", "insecure") as probe:
            r = probe.scrape()
            assert r["error"] == "none" and r["tls_mode"] == "skip_verify", r
    port = harness.free_port()
    with Probe("kubelet", "https://127.0.0.1:%d" % port, "", "") as probe:
        assert probe.scrape()["error"] == "unreachable"


def test_http_client_checks_host_names_and_takes_basic_auth_and_client_certs():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as tmp:
        # A client CA and a client certificate+key in one PEM, as
        # `plegscope diagnose --tls-client-cert` takes it.
        ca_key, ca_crt = os.path.join(tmp, "ca.key"), os.path.join(tmp, "ca.crt")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=client-ca", "-keyout", ca_key, "-out", ca_crt],
                       check=True, capture_output=True)
        c_key, c_csr, c_crt = (os.path.join(tmp, n) for n in ("c.key", "c.csr", "c.crt"))
        subprocess.run(["openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=me",
                        "-keyout", c_key, "-out", c_csr], check=True, capture_output=True)
        subprocess.run(["openssl", "x509", "-req", "-in", c_csr, "-CA", ca_crt, "-CAkey", ca_key,
                        "-CAcreateserial", "-days", "1", "-out", c_crt], check=True, capture_output=True)
        combined = os.path.join(tmp, "client.pem")
        with open(combined, "w") as f:
            f.write(open(c_crt).read() + open(c_key).read())
        with FakeKubelet(tmp, token=None, basic_auth="alice:s3cret", client_ca=ca_crt) as server:
            by_ip = server.url + "/get"
            by_name = "https://localhost:%d/get" % server.port
            assert get(by_ip, "ca=" + server.ca_file, "cert=" + combined, "basic=alice:s3cret")["status"] == 200
            assert get(by_name, "ca=" + server.ca_file, "cert=" + c_crt, "key=" + c_key,
                       "basic=alice:s3cret")["status"] == 200
            assert get(by_ip, "ca=" + server.ca_file, "cert=" + combined, "basic=alice:wrong")["status"] == 401
            r = get(by_ip, "ca=" + server.ca_file, "basic=alice:s3cret")  # no client cert
            assert r["error"] in ("tls_failed", "transfer_failed"), r
            assert get(by_ip, "ca=/nonexistent.pem")["error"] == "ca_file_unusable"
            assert get(by_ip, "ca=" + server.ca_file, "cert=/nonexistent.pem")["error"] == "client_cert_unusable"
            assert get("ftp://127.0.0.1/")["error"] == "bad_url"
            # Calls on several threads at once are independent.
            answers = get_all(by_ip, "ca=" + server.ca_file, "cert=" + combined, "basic=alice:s3cret",
                              "parallel=8")
            assert [a["status"] for a in answers] == [200] * 8, answers
        # A certificate naming only localhost, reached by IP: the chain is
        # trusted but the host name is not, and that alone must fail.
        with FakeKubelet(tmp, token=None, san="DNS:localhost") as server:
            by_name = "https://localhost:%d/get" % server.port
            assert get(by_name, "ca=" + server.ca_file)["status"] == 200
            r = get(server.url + "/get", "ca=" + server.ca_file)
            assert r["error"] == "tls_verify_failed", r
            assert get(server.url + "/get", "insecure=1")["status"] == 200


def test_runtime_metrics_update_in_flight_ages():
    with FakeRuntimeMetrics() as page, Probe("runtime", page.url) as probe:
        r = probe.scrape()
        assert r["error"] == "none" and r["kind"] == "containerd" and r["in_flight"] == [], r
        page.update_in_flight = 1
        page.list_in_flight = 2
        aged = wait_until(lambda: (lambda r: r if r["in_flight"] and r["in_flight"][0]["seconds"] >= 1 else None)(probe.scrape()),
                          20, "UpdateContainerResources in flight for 1 s")
        methods = {c["method"]: c["count"] for c in aged["in_flight"]}
        assert methods == {"UpdateContainerResources": 1, "ListContainers": 2}, aged
        page.update_in_flight = 0
        page.list_in_flight = 0
        assert probe.scrape()["in_flight"] == []


if __name__ == "__main__":
    harness.main(globals())
