"""--web-config-file (exporter-toolkit format) against the real agent with
curl: TLS with certificates made by openssl here, bcrypt basic auth, mutual
TLS, configured headers on every endpoint, plain HTTP refused, bad files
exit 2 with one line, and `plegscope diagnose --url https://...`."""

import ctypes
import os
import subprocess
import tempfile

import harness
from harness import Agent, FakeCri, wait_until

ENDPOINTS = ["/metrics", "/healthz", "/readyz", "/livez", "/diagnose", "/debug/pods", "/debug/events"]
PASSWORD = "correct horse"


def bcrypt(password, cost=10):
    """A bcrypt hash from libxcrypt, independent of the agent's code."""
    lib = ctypes.CDLL("libcrypt.so.1")
    lib.crypt_gensalt.restype = ctypes.c_char_p
    lib.crypt.restype = ctypes.c_char_p
    salt = lib.crypt_gensalt(b"$2b$", cost, None, 0)
    return lib.crypt(password.encode(), salt).decode()


def openssl(*args):
    subprocess.run([harness.require_tool("openssl")] + list(args), check=True, capture_output=True)


class Pki:
    """A CA, a server certificate for 127.0.0.1, a client signed by the CA
    and a client signed by another CA."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="plegscope-pki-")
        self.ca = self._ca("ca")
        self._ca("rogue-ca")
        self.server_cert, self.server_key = self._leaf("server", "ca", "subjectAltName=IP:127.0.0.1,DNS:localhost")
        self.client_cert, self.client_key = self._leaf("client", "ca", "extendedKeyUsage=clientAuth")
        self.rogue_cert, self.rogue_key = self._leaf("rogue", "rogue-ca", "extendedKeyUsage=clientAuth")
        self.client_pem = self.path("client-both.pem")  # civetweb's client wants key and cert in one file
        with open(self.client_pem, "w") as out:
            out.write(open(self.client_key).read() + open(self.client_cert).read())

    def path(self, name):
        return os.path.join(self.dir, name)

    def _ca(self, name):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=%s" % name,
                "-keyout", self.path(name + ".key"), "-out", self.path(name + ".crt"))
        return self.path(name + ".crt")

    def _leaf(self, name, ca, extension):
        ext = self.path(name + ".ext")
        with open(ext, "w") as f:
            f.write(extension + "\n")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=%s" % name,
                "-keyout", self.path(name + ".key"), "-out", self.path(name + ".csr"))
        openssl("x509", "-req", "-in", self.path(name + ".csr"), "-CA", self.path(ca + ".crt"),
                "-CAkey", self.path(ca + ".key"), "-CAcreateserial", "-days", "2", "-extfile", ext,
                "-out", self.path(name + ".crt"))
        return self.path(name + ".crt"), self.path(name + ".key")


_pki = []


def pki():
    if not _pki:
        _pki.append(Pki())
    return _pki[0]


def write_config(text):
    fd, path = tempfile.mkstemp(prefix="plegscope-web-", suffix=".yml")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def curl(url, *args):
    """(HTTP status, headers as one lowercase string, curl exit code); status 0 when no HTTP answer."""
    headers = tempfile.mktemp(prefix="plegscope-curl-headers-")
    result = subprocess.run([harness.require_tool("curl"), "-s", "-o", "/dev/null", "-D", headers,
                             "-w", "%{http_code}", "--max-time", "10", url] + list(args),
                            capture_output=True, text=True, timeout=20)
    try:
        text = open(headers).read().lower() if os.path.exists(headers) else ""
    finally:
        if os.path.exists(headers):
            os.unlink(headers)
    return int(result.stdout or 0), text, result.returncode


def https_agent(fake, config_text):
    agent = Agent(fake.endpoint, ["--relist-period", "200ms", "--web-config-file", write_config(config_text)],
                  wait_ready=False)
    return agent


def wait_serving(agent, *curl_args):
    def up():
        if not agent.proc.alive():
            raise AssertionError("plegscope exited with %s:\n%s" % (agent.proc.returncode, agent.proc.tail()))
        return curl("https://127.0.0.1:%d/livez" % agent.port, *curl_args)[0] == 200
    wait_until(up, 15, "plegscope to serve https /livez")


def tls_config(extra=""):
    p = pki()
    return ("tls_server_config:\n  cert_file: %s\n  key_file: %s\n" % (p.server_cert, p.server_key)) + extra


def test_tls_basic_auth_and_headers_on_every_endpoint():
    config = tls_config() + (
        "basic_auth_users:\n  alice: '%s'\n"
        "http_server_config:\n  headers:\n    X-Frame-Options: deny\n    X-Content-Type-Options: nosniff\n"
        % bcrypt(PASSWORD))
    with FakeCri("steady") as fake, https_agent(fake, config) as agent:
        ca = ["--cacert", pki().ca]
        good = ca + ["-u", "alice:" + PASSWORD]
        wait_serving(agent, *good)
        base = "https://127.0.0.1:%d" % agent.port
        wait_until(lambda: curl(base + "/healthz", *good)[0] == 200, 20, "/healthz 200 over https")
        print("%-14s %8s %8s %8s %8s" % ("endpoint", "no-auth", "wrong", "right", "http://"))
        for path in ENDPOINTS:
            none, none_headers, _ = curl(base + path, *ca)
            wrong, _, _ = curl(base + path, *(ca + ["-u", "alice:wrong"]))
            unknown, _, _ = curl(base + path, *(ca + ["-u", "mallory:" + PASSWORD]))
            right, right_headers, _ = curl(base + path, *good)
            plain, _, plain_exit = curl("http://127.0.0.1:%d%s" % (agent.port, path), "-u", "alice:" + PASSWORD)
            print("%-14s %8d %8d %8d %8d" % (path, none, wrong, right, plain))
            assert none == 401 and "www-authenticate: basic" in none_headers, (path, none, none_headers)
            assert wrong == 401 and unknown == 401, (path, wrong, unknown)
            assert right == 200, (path, right)
            assert plain == 0 and plain_exit != 0, "plain HTTP answered %d on %s" % (plain, path)
            for headers in (none_headers, right_headers):
                assert "x-frame-options: deny" in headers and "x-content-type-options: nosniff" in headers, headers
        # The client must trust the CA: an unknown server certificate is refused by curl, not by us.
        assert curl(base + "/livez", "-u", "alice:" + PASSWORD)[0] == 0


def test_mutual_tls_requires_a_certificate_signed_by_the_ca():
    p = pki()
    config = tls_config("  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: %s\n" % p.ca)
    with FakeCri("steady") as fake, https_agent(fake, config) as agent:
        ca = ["--cacert", p.ca]
        with_cert = ca + ["--cert", p.client_cert, "--key", p.client_key]
        wait_serving(agent, *with_cert)
        url = "https://127.0.0.1:%d/metrics" % agent.port
        ok, _, _ = curl(url, *with_cert)
        without, _, without_exit = curl(url, *ca)
        rogue, _, rogue_exit = curl(url, *(ca + ["--cert", p.rogue_cert, "--key", p.rogue_key]))
        print("mTLS /metrics: CA-signed client %d, no client cert %d (curl exit %d), other CA %d (curl exit %d)"
              % (ok, without, without_exit, rogue, rogue_exit))
        assert ok == 200
        assert without == 0 and without_exit != 0
        assert rogue == 0 and rogue_exit != 0
        assert agent.proc.alive()


def test_min_version_tls13_refuses_tls12():
    config = tls_config("  min_version: TLS13\n")
    with FakeCri("steady") as fake, https_agent(fake, config) as agent:
        ca = ["--cacert", pki().ca]
        wait_serving(agent, *ca)
        url = "https://127.0.0.1:%d/livez" % agent.port
        tls12, _, _ = curl(url, *(ca + ["--tls-max", "1.2"]))
        tls13, _, _ = curl(url, *(ca + ["--tlsv1.3"]))
        print("min_version TLS13: TLS 1.2 client %d, TLS 1.3 client %d" % (tls12, tls13))
        assert tls12 == 0 and tls13 == 200


def test_diagnose_url_https_with_client_cert_and_basic_auth():
    p = pki()
    config = tls_config("  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: %s\n" % p.ca) + (
        "basic_auth_users:\n  alice: '%s'\n" % bcrypt(PASSWORD))
    with FakeCri("steady") as fake, https_agent(fake, config) as agent:
        wait_serving(agent, "--cacert", p.ca, "--cert", p.client_cert, "--key", p.client_key,
                     "-u", "alice:" + PASSWORD)
        binary = harness.require_binary("plegscope")
        url = "https://127.0.0.1:%d" % agent.port
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLEGSCOPE_")}
        base = [binary, "diagnose", "--url", url, "--tls-ca-file", p.ca, "--tls-client-cert", p.client_pem,
                "--basic-auth-user", "alice", "--output", "json"]
        good = subprocess.run(base, capture_output=True, text=True, timeout=30,
                              env=dict(env, PLEGSCOPE_BASIC_AUTH_PASSWORD=PASSWORD))
        print("diagnose --url https: exit %d" % good.returncode)
        assert good.returncode in (0, 1), good.stderr
        assert '"causes"' in good.stdout, good.stdout[:300]
        wrong = subprocess.run(base, capture_output=True, text=True, timeout=30,
                               env=dict(env, PLEGSCOPE_BASIC_AUTH_PASSWORD="wrong"))
        assert wrong.returncode == 2 and "401" in wrong.stderr, (wrong.returncode, wrong.stderr)
        no_ca = subprocess.run([binary, "diagnose", "--url", url], capture_output=True, text=True, timeout=30, env=env)
        assert no_ca.returncode == 2 and "--tls-ca-file" in no_ca.stderr, no_ca.stderr


def test_deploy_example_config_loads_and_refuses_everyone_until_edited():
    """deploy/components/web-auth/web-config.yml, with this test's key pair
    in place of the Secret's: it loads, serves TLS, and its placeholder hash
    lets nobody in."""
    p = pki()
    text = open(os.path.join(harness.source_dir(), "deploy", "components", "web-auth", "web-config.yml")).read()
    assert "/etc/plegscope/tls/tls.crt" in text and "/etc/plegscope/tls/tls.key" in text
    text = text.replace("/etc/plegscope/tls/tls.crt", p.server_cert).replace("/etc/plegscope/tls/tls.key", p.server_key)
    with FakeCri("steady") as fake, https_agent(fake, text) as agent:
        def refused():
            if not agent.proc.alive():
                raise AssertionError("plegscope exited: " + agent.proc.tail())
            return curl("https://127.0.0.1:%d/metrics" % agent.port, "--cacert", p.ca, "-u", "prometheus:changeme")
        status, headers, _ = wait_until(lambda: refused()[0] != 0 and refused(), 15, "an https answer")
        assert status == 401 and "x-content-type-options: nosniff" in headers, (status, headers)


def test_bad_web_config_is_one_line_and_exit_2():
    p = pki()
    missing = "unix://" + os.path.join(tempfile.mkdtemp(), "cri.sock")
    cases = [
        ("missing file", None, "absent.yml"),
        ("bad YAML", "tls_server_config: [\n", "invalid YAML"),
        ("unknown key", "tls_server_confg: {}\n", "tls_server_confg: unknown key"),
        ("unreadable cert", "tls_server_config: {cert_file: /nonexistent.pem, key_file: %s}\n" % p.server_key,
         "cert_file: cannot read /nonexistent.pem"),
        ("not a certificate", "tls_server_config: {cert_file: %s, key_file: %s}\n" % (p.server_key, p.server_key),
         "cert_file"),
        ("key of another cert", "tls_server_config: {cert_file: %s, key_file: %s}\n" % (p.server_cert, p.client_key),
         "key_file"),
        ("not bcrypt", "basic_auth_users: {alice: '$1$salt$qJH7.N4xYta3aEG/dfqo/0'}\n",
         "basic_auth_users.alice: not a bcrypt hash"),
        ("bad client_auth_type", "tls_server_config: {cert_file: %s, key_file: %s, client_auth_type: Yes}\n"
         % (p.server_cert, p.server_key), "client_auth_type"),
    ]
    binary = harness.require_binary("plegscope")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLEGSCOPE_")}
    for name, text, expected in cases:
        path = os.path.join(tempfile.mkdtemp(), "absent.yml") if text is None else write_config(text)
        result = subprocess.run([binary, "--container-runtime-endpoint", missing, "--listen-address",
                                 "127.0.0.1:%d" % harness.free_port(), "--web-config-file", path],
                                capture_output=True, text=True, timeout=20, env=env)
        lines = result.stderr.strip().splitlines()
        print("%-20s exit %d: %s" % (name, result.returncode, lines[-1] if lines else ""))
        assert result.returncode == 2, (name, result.returncode, result.stderr)
        assert len(lines) == 1, (name, result.stderr)
        assert "--web-config-file" in lines[0] and expected in lines[0], (name, lines[0])
    # The environment variable works as the flag does.
    result = subprocess.run([binary, "--container-runtime-endpoint", missing],
                            capture_output=True, text=True, timeout=20,
                            env=dict(env, PLEGSCOPE_WEB_CONFIG_FILE=write_config("nonsense_key: 1\n")))
    assert result.returncode == 2 and "nonsense_key: unknown key" in result.stderr, result.stderr


if __name__ == "__main__":
    harness.main(globals())
