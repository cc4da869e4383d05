"""Test harness for plegscope's integration tests (python3 stdlib only).

Starts the fake runtime (build/fakecri) and the agent (build/plegscope) as
child processes in their own process groups, talks to them over HTTP, parses
Prometheus text, polls instead of sleeping, and always cleans up:

    import harness
    from harness import Agent, FakeCri, wait_until

    def test_events_move():
        with FakeCri("churn") as fake, Agent(fake.endpoint, ["--relist-period", "200ms"]) as agent:
            wait_until(lambda: agent.metrics().sum("pleg_events_total") > 0, 20, "PLEG events")

    if __name__ == "__main__":
        harness.main(globals())

Every child gets PR_SET_PDEATHSIG=SIGKILL and its own session, is killed
(whole group) when its context manager exits, and again when the test ends
or the runner is interrupted. When a test fails, the runner prints the
stderr tail of every process the test started. The last output line is
"N passed, N failed[, N skipped]", followed by each skipped test and why.

Skips are for a missing dependency (a tool, a binary, root). Under env CI a
skip is a failure naming what is missing: CI must install everything, and a
test that cannot run there has not passed. Exit status: 1 when any test
failed (or, under CI, skipped); 77 (ctest "Skipped") when every test was
skipped outside CI; else 0.
"""

import collections
import contextlib
import ctypes
from http.server import ThreadingHTTPServer  # not `import http`: http() below is ours
import json
import math
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

import schema_check  # tests/lib: the report's JSON Schema, checked on every report a test reads

SKIP_EXIT = 77


class Skip(Exception):
    """Raised by a test (or a require_* helper) to skip it for a missing
    dependency. Under env CI it fails the test instead."""


def under_ci():
    """True when env CI is set (to anything but "", "0" or "false")."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


# ---------------------------------------------------------------- locations


_report_schema = None


def check_report(report):
    """`report` (a /diagnose JSON object) validated against
    docs/report.schema.json; every JSON report the suite reads goes through
    here (Agent.get_json, report_json). Returns it."""
    global _report_schema
    if _report_schema is None:
        with open(os.path.join(source_dir(), "docs", "report.schema.json")) as f:
            _report_schema = json.load(f)
    errors = schema_check.validate(report, _report_schema)
    if errors:
        raise AssertionError("the report does not conform to docs/report.schema.json:\n  " +
                             "\n  ".join(errors[:20]))
    return report


def report_json(text):
    """A JSON report printed by `plegscope diagnose --output json` or the
    kubectl plugin, parsed and validated."""
    return check_report(json.loads(text))


def source_dir():
    """The repository root (PLEGSCOPE_SOURCE_DIR, else derived from this file)."""
    env = os.environ.get("PLEGSCOPE_SOURCE_DIR")
    if env:
        return os.path.abspath(env)
    return os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def upstream_crds_dir():
    """The upstream CRDs kept unchanged beside the repository (../shared/crds:
    the remediators' and prometheus-operator's), for validating recipes and
    applying on a real API server; a Skip (a failure under CI) when absent."""
    d = os.path.join(os.path.dirname(source_dir()), "shared", "crds")
    if not os.path.isdir(d):
        raise Skip("%s missing (the upstream CRDs kept beside the repository)" % d)
    return d


def build_dir():
    """The build directory holding `plegscope` and `fakecri` (PLEGSCOPE_BUILD_DIR, else <src>/build)."""
    env = os.environ.get("PLEGSCOPE_BUILD_DIR")
    if env:
        return os.path.abspath(env)
    return os.path.join(source_dir(), "build")


def cause_ids():
    """Every cause id (DESIGN section 6), in tie-break order, from the agent's one
    cause list: the X(kEnumerator, name) rows of agent/diagnoser/cause_list.h."""
    path = os.path.join(source_dir(), "agent", "diagnoser", "cause_list.h")
    with open(path) as f:
        ids = re.findall(r"^\s*X\(k\w+,\s*(\w+)\)", f.read(), re.M)
    if not ids:
        raise RuntimeError("no X(kId, name) rows in " + path)
    return ids


def scenario_path(name):
    """tests/scenarios/<name>.json, or `name` itself if it is a path."""
    if os.sep in name or name.endswith(".json"):
        return os.path.abspath(name)
    return os.path.join(source_dir(), "tests", "scenarios", name + ".json")


def env_choice(variable, choices, default):
    """The value of env `variable`, one of `choices` (a test bed, a version row); `default`
    when it is unset or empty. Anything else is a ValueError naming the variable."""
    name = os.environ.get(variable) or default
    if name not in choices:
        raise ValueError("%s=%r: expected one of %s" % (variable, name, ", ".join(choices)))
    return name


def read_env_file(path):
    """{KEY: VALUE} of a KEY=VALUE file (tests/e2e/runtimes.env, tests/cluster/versions.env):
    blank lines and comments skipped, each side stripped, the value's double quotes dropped."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                out[k.strip()] = v.strip().strip('"')
    return out


def require_binary(name):
    """Path of build/<name>; skips the test if it has not been built."""
    path = os.path.join(build_dir(), name)
    if not os.access(path, os.X_OK):
        raise Skip("%s not built (looked for %s)" % (name, path))
    return path


def require_tool(name):
    """Path of a tool on PATH; skips the test if it is missing."""
    path = shutil.which(name)
    if not path:
        raise Skip("required tool %r is not installed" % name)
    return path


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


@contextlib.contextmanager
def host_tree_served_by(src, endpoint):
    """A copy of the host fixture tree SRC (proc/, sys/, ...) whose containerd
    shims name ENDPOINT's socket as their containerd (`-address`), as the
    shims of the runtime an agent watches do: the agent counts a shim for its
    runtime only when the shim names that runtime's socket. Yields the copy's
    path; removed after."""
    socket_path = endpoint[len("unix://"):] if endpoint.startswith("unix://") else endpoint
    with tempfile.TemporaryDirectory(prefix="plegscope-host-tree-") as tmp:
        root = os.path.join(tmp, "tree")
        shutil.copytree(src, root, symlinks=True)
        proc = os.path.join(root, "proc")
        for pid in os.listdir(proc) if os.path.isdir(proc) else ():
            path = os.path.join(proc, pid, "cmdline")
            if not os.path.isfile(path) or os.path.islink(path):
                continue
            with open(path, "rb") as f:
                argv = f.read().split(b"\0")
            if b"-address" not in argv[:-1]:
                continue
            argv[argv.index(b"-address") + 1] = socket_path.encode()
            with open(path, "wb") as f:
                f.write(b"\0".join(argv))
        yield root


def free_port():
    """A TCP port on 127.0.0.1 that was free a moment ago.

    Taken below the kernel's ephemeral range: a port bind(0) hands out comes
    from that range, where any process' outgoing connection may take it
    before the service the port is for binds it.
    """
    import random
    low, high = 10000, _ephemeral_low() - 1
    for _ in range(200):
        port = random.randint(low, high) if high > low else 0
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_taken(proc):
    """True when `proc` ended because its port was taken in the meantime."""
    if proc is None or proc.alive():
        return False
    tail = proc.tail()
    return "Address already in use" in tail or "port in use" in tail


# ---------------------------------------------------------------- polling


def wait_until(predicate, timeout, what, interval=0.1):
    """Polls predicate() until it returns something truthy, and returns that.

    Exceptions raised by the predicate count as "not yet" (the service may not
    be up). On timeout raises AssertionError naming `what`, with the last
    value and the last exception seen.
    """
    deadline = time.monotonic() + timeout
    last_value, last_error = None, None
    while True:
        try:
            last_value = predicate()
            if last_value:
                return last_value
        except (AssertionError, OSError, ValueError, KeyError, urllib.error.URLError) as e:
            last_error = e
        if time.monotonic() >= deadline:
            msg = "timed out after %.1fs waiting for %s (last value: %r" % (timeout, what, last_value)
            if last_error is not None:
                msg += "; last error: %s: %s" % (type(last_error).__name__, last_error)
            raise AssertionError(msg + ")")
        time.sleep(interval)


# ---------------------------------------------------------------- HTTP


def http(url, method="GET", data=None, timeout=5.0):
    """(status, body as str) for any HTTP status; raises OSError if unreachable."""
    req = urllib.request.Request(url, method=method, data=data)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


# ---------------------------------------------------------------- processes

_PR_SET_PDEATHSIG = 1
_live = []           # every Process still possibly running
_test_procs = []     # processes started by the current test (for stderr dumps)
_log_dir = None
_proc_seq = [0]


class LoopbackServer:
    """An HTTP server on a free loopback port, serving on its own thread;
    HTTPS with `cert`/`key`, client certificates required when `client_ca`
    is set. The stand-ins for the kubelet, the API server and webhooks."""

    def __init__(self, handler, cert=None, key=None, client_ca=None):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        if cert:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            if client_ca:
                context.verify_mode = ssl.CERT_REQUIRED
                context.load_verify_locations(client_ca)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def _log_directory():
    global _log_dir
    if _log_dir is None:
        _log_dir = tempfile.mkdtemp(prefix="plegscope-test-logs-")
    return _log_dir


def _die_with_parent():
    # Runs in the child between fork and exec: if the test runner dies (even
    # by SIGKILL from a ctest timeout), the kernel kills the child.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


class Process:
    """A child in its own session; stdout+stderr go to a log file kept for dumps.

    separate_stdout: stdout goes to its own file (stdout_path) instead, for
    tests of what a program writes there.
    """

    def __init__(self, name, args, env=None, separate_stdout=False):
        self.name = name
        self.args = list(args)
        _proc_seq[0] += 1
        self.log_path = os.path.join(_log_directory(), "%s-%d.log" % (name, _proc_seq[0]))
        self._log = open(self.log_path, "wb")
        self.stdout_path = None
        stdout = self._log
        if separate_stdout:
            self.stdout_path = os.path.join(_log_directory(), "%s-%d.stdout" % (name, _proc_seq[0]))
            stdout = self._stdout = open(self.stdout_path, "wb")
        self.popen = subprocess.Popen(
            self.args, stdin=subprocess.DEVNULL, stdout=stdout, stderr=self._log if separate_stdout else subprocess.STDOUT,
            start_new_session=True, preexec_fn=_die_with_parent, env=env)
        self.pid = self.popen.pid
        _live.append(self)
        _test_procs.append(self)

    def alive(self):
        return self.popen.poll() is None

    @property
    def returncode(self):
        return self.popen.poll()

    def wait(self, timeout):
        """Exit status, or raises subprocess.TimeoutExpired."""
        return self.popen.wait(timeout=timeout)

    def send_signal(self, sig):
        if self.alive():
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, sig=signal.SIGTERM, timeout=5.0):
        """Signals the group, waits, then SIGKILLs the group. Returns the exit status."""
        if self.alive():
            self.send_signal(sig)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        # Whatever is left of the group (the leader may be gone, its children not).
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.popen.poll() is None:
            self.popen.wait(timeout=5)
        if not self._log.closed:
            self._log.close()
        if self.stdout_path and not self._stdout.closed:
            self._stdout.close()
        if self in _live:
            _live.remove(self)
        return self.popen.returncode

    def output(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def tail(self, lines=40):
        return "\n".join(self.output().splitlines()[-lines:])


def _kill_all():
    for p in list(_live):
        try:
            p.stop(sig=signal.SIGKILL, timeout=2)
        except Exception:  # noqa: BLE001 - best effort during teardown
            pass


# ---------------------------------------------------------------- fakecri


class FakeCri:
    """build/fakecri on a temporary socket with a control port.

    scenario: a name from tests/scenarios ("steady"), a path, or a dict
    (written to a temporary file). hold: a phase to jump to and stay in
    right after start.
    """

    def __init__(self, scenario, log_level="info", hold=None, start_timeout=15.0, extra_args=()):
        self.scenario = scenario
        self.log_level = log_level
        self.hold = hold
        self.start_timeout = start_timeout
        self.extra_args = list(extra_args)
        self.proc = None
        self.dir = None

    def __enter__(self):
        binary = require_binary("fakecri")
        self.dir = tempfile.mkdtemp(prefix="fakecri-")
        if isinstance(self.scenario, dict):
            path = os.path.join(self.dir, "scenario.json")
            with open(path, "w") as f:
                json.dump(self.scenario, f)
        else:
            path = scenario_path(self.scenario)
        self.socket = os.path.join(self.dir, "cri.sock")
        self.endpoint = "unix://" + self.socket
        for attempt in range(3):
            self.port = free_port()
            self.control_url = "http://127.0.0.1:%d" % self.port
            try:
                self.proc = Process("fakecri", [binary, "--socket", self.socket, "--scenario", path,
                                                "--control-address", "127.0.0.1:%d" % self.port,
                                                "--log-level", self.log_level] + self.extra_args)

                def up():
                    if not self.proc.alive():
                        raise AssertionError("fakecri exited with %s:\n%s" % (self.proc.returncode, self.proc.tail()))
                    return self._request("GET", "/state")

                wait_until(up, self.start_timeout, "fakecri control endpoint %s" % self.control_url, interval=0.05)
                if self.hold:
                    self.phase(self.hold, hold=True)
                return self
            except BaseException:
                retry = attempt < 2 and port_taken(self.proc)
                if not retry:
                    self.__exit__(None, None, None)
                    raise
                self.proc.stop()
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.stop()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def _request(self, method, path, timeout=5.0):
        status, body = http(self.control_url + path, method=method, data=b"" if method == "POST" else None,
                            timeout=timeout)
        if status != 200:
            raise AssertionError("fakecri %s %s -> %d %s" % (method, path, status, body.strip()))
        return json.loads(body)

    def call_log(self, method=None, since=None):
        """The whole /calls answer: {"calls": [...], "counts": {...}, "in_flight": {...}, "next_seq": n}."""
        query = []
        if method:
            query.append("method=" + method)
        if since is not None:
            query.append("since=%d" % since)
        return self._request("GET", "/calls" + ("?" + "&".join(query) if query else ""))

    def calls(self, method=None, since=None):
        """[{"seq", "method", "time", "code", "duration_seconds" | "in_flight"}], oldest first."""
        return self.call_log(method, since)["calls"]

    def counts(self):
        """{"ListContainers": n, ...}: calls received per method since start (or clear_calls)."""
        return self.call_log(since=1 << 62)["counts"]

    def in_flight(self):
        return self.call_log(since=1 << 62)["in_flight"]

    def clear_calls(self):
        return self._request("POST", "/calls/clear")

    def release(self):
        """Ends hangs in progress and disarms them for the rest of the phase."""
        return self._request("POST", "/release")

    def phase(self, name, hold=False):
        return self._request("POST", "/phase?name=%s%s" % (name, "&hold=1" if hold else ""))

    def resume(self):
        return self._request("POST", "/resume")

    def state(self):
        return self._request("GET", "/state")

    def pods(self):
        return self._request("GET", "/pods")["pods"]

    def changes(self, since=0):
        """The fake's record of state changes it made: [{"seq", "time", "kind"
        (created|started|stopped|deleted), "id", "sandbox", "pod_uid"}]."""
        return self._request("GET", "/changes?since=%d" % since)["changes"]

    def kill(self, container_id=None, pod_uid=None, exit_code=137, restart=False):
        """Makes running containers die; returns how many did."""
        if container_id:
            query = "container_id=" + container_id
        elif pod_uid:
            query = "pod_uid=" + pod_uid
        else:
            raise ValueError("container_id or pod_uid")
        query += "&exit_code=%d" % exit_code + ("&restart=1" if restart else "")
        return self._request("POST", "/kill?" + query)["killed"]


# ---------------------------------------------------------------- metrics

Sample = collections.namedtuple("Sample", "name labels value")

_SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?\s*$')
_LABEL_RE = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


def _unescape(value):
    return re.sub(r'\\(.)', lambda m: {"n": "\n", "\\": "\\", '"': '"'}.get(m.group(1), m.group(0)), value)


def _parse_value(text):
    lowered = text.lower()
    if lowered in ("+inf", "inf"):
        return math.inf
    if lowered == "-inf":
        return -math.inf
    if lowered == "nan":
        return math.nan
    return float(text)


class Metrics:
    """Parsed Prometheus text exposition.

    samples: [Sample(name, labels dict, value)]; types: {family: "counter"|...};
    helps: {family: text}; text: the raw exposition.
    """

    def __init__(self, text):
        self.text = text
        self.samples = []
        self.types = {}
        self.helps = {}
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            if line.startswith("#"):
                parts = line.split(None, 3)
                if len(parts) >= 3 and parts[1] == "TYPE":
                    self.types[parts[2]] = parts[3].strip() if len(parts) > 3 else ""
                elif len(parts) >= 3 and parts[1] == "HELP":
                    self.helps[parts[2]] = parts[3] if len(parts) > 3 else ""
                continue
            m = _SAMPLE_RE.match(line)
            if not m:
                raise ValueError("unparsable metrics line %d: %r" % (lineno, line))
            labels = {}
            if m.group(3):
                rest = m.group(3)
                pos = 0
                while pos < len(rest):
                    lm = _LABEL_RE.match(rest, pos)
                    if not lm:
                        raise ValueError("unparsable labels on line %d: %r" % (lineno, line))
                    labels[lm.group(1)] = _unescape(lm.group(2))
                    pos = lm.end()
            self.samples.append(Sample(m.group(1), labels, _parse_value(m.group(4))))

    def find(self, name, **labels):
        """Samples called `name` whose labels include `labels`."""
        return [s for s in self.samples
                if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]

    def get(self, name, default=None, **labels):
        """The value of the single sample matching; default if none; error if several."""
        found = self.find(name, **labels)
        if not found:
            return default
        if len(found) > 1:
            raise AssertionError("%d samples match %s%r" % (len(found), name, labels))
        return found[0].value

    def sum(self, name, **labels):
        return sum(s.value for s in self.find(name, **labels))

    def has(self, name, **labels):
        return bool(self.find(name, **labels))

    def type_of(self, family):
        return self.types.get(family)

    def label_values(self, name, label):
        return {s.labels[label] for s in self.find(name) if label in s.labels}


def parse_metrics(text):
    return Metrics(text)


# ---------------------------------------------------------------- agent


class Agent:
    """build/plegscope pointed at `endpoint`, serving HTTP on a free loopback port.

    extra_flags are appended to the command line (e.g. ["--relist-period", "200ms"]).
    wait_ready: wait for /livez 200 (the process serves) before returning.
    """

    def __init__(self, endpoint, extra_flags=(), proc_path=None, log_level="debug", wait_ready=True,
                 start_timeout=15.0, env=None, separate_stdout=False):
        self.endpoint = endpoint
        self.extra_flags = list(extra_flags)
        self.proc_path = proc_path
        self.log_level = log_level
        self.wait_ready = wait_ready
        self.start_timeout = start_timeout
        self.env = env
        self.separate_stdout = separate_stdout
        self.proc = None

    def command(self):
        args = [require_binary("plegscope"), "--container-runtime-endpoint", self.endpoint,
                "--listen-address", "127.0.0.1:%d" % self.port, "--log-level", self.log_level]
        if self.proc_path:
            args += ["--proc-path", self.proc_path]
        return args + self.extra_flags

    def __enter__(self):
        env = dict(os.environ)
        for key in list(env):
            if key.startswith("PLEGSCOPE_") and key not in ("PLEGSCOPE_BUILD_DIR", "PLEGSCOPE_SOURCE_DIR"):
                del env[key]  # flags only: no surprise configuration from the caller's environment
        env.update(self.env or {})
        for attempt in range(3):
            self.port = free_port()
            self.base_url = "http://127.0.0.1:%d" % self.port
            try:
                self.proc = Process("plegscope", self.command(), env=env, separate_stdout=self.separate_stdout)
                if self.wait_ready:
                    def serving():
                        if not self.proc.alive():
                            raise AssertionError("plegscope exited with %s:\n%s" %
                                                 (self.proc.returncode, self.proc.tail()))
                        return self.get("/livez")[0] == 200
                    wait_until(serving, self.start_timeout, "plegscope to serve /livez on %s" % self.base_url,
                               interval=0.05)
                return self
            except BaseException:
                retry = attempt < 2 and self.wait_ready and port_taken(self.proc)
                self.__exit__(None, None, None)
                if not retry:
                    raise
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.stop()
        return False

    def url(self, path):
        return self.base_url + path

    def stdout_lines(self):
        """The lines the agent wrote on stdout so far (separate_stdout=True), complete lines only."""
        with open(self.proc.stdout_path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        return text.split("\n")[:-1]

    def get(self, path, method="GET", timeout=5.0):
        """(status, body) of an HTTP request to the agent."""
        return http(self.url(path), method=method, data=b"" if method in ("POST", "PUT") else None, timeout=timeout)

    def get_json(self, path):
        status, body = self.get(path)
        if status != 200:
            raise AssertionError("GET %s -> %d %s" % (path, status, body[:300]))
        out = json.loads(body)
        if path.split("?")[0] == "/diagnose":
            check_report(out)  # the report's contract, on every report a test reads
        return out

    def metrics(self):
        status, body = self.get("/metrics")
        if status != 200:
            raise AssertionError("GET /metrics -> %d %s" % (status, body[:300]))
        return Metrics(body)

    def stop(self, sig=signal.SIGTERM, timeout=5.0):
        return self.proc.stop(sig=sig, timeout=timeout)


# ---------------------------------------------------------------- runner


def _dump(procs):
    for p in procs:
        print("---- output tail of %s (pid %d, exit %s): %s" % (p.name, p.pid, p.returncode, " ".join(p.args)))
        print(p.tail(60))
        print("---- end of %s" % p.name)


def main(namespace, argv=None):
    """Runs every test_* function in `namespace` (definition order); exits.

    Command-line arguments, if any, select tests by name (substring).
    """
    argv = sys.argv[1:] if argv is None else argv
    tests = [(name, fn) for name, fn in namespace.items() if name.startswith("test_") and callable(fn)]
    if argv:
        tests = [(n, f) for n, f in tests if any(a in n for a in argv)]

    def on_signal(signum, frame):
        _kill_all()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    passed, failed, skipped = 0, [], []
    for name, fn in tests:
        del _test_procs[:]
        started = time.monotonic()
        print("=== %s" % name, flush=True)
        try:
            fn()
        except Skip as e:
            if under_ci():
                failed.append(name)
                print("--- FAIL %s: skipped under CI: %s (install it: scripts/install-deps test)" % (name, e),
                      flush=True)
            else:
                skipped.append((name, str(e)))
                print("--- SKIP %s: %s" % (name, e), flush=True)
        except BaseException as e:  # noqa: BLE001 - report every failure, keep going
            if isinstance(e, KeyboardInterrupt):
                _kill_all()
                raise
            failed.append(name)
            traceback.print_exc(file=sys.stdout)
            _dump(_test_procs)
            print("--- FAIL %s (%.1fs)" % (name, time.monotonic() - started), flush=True)
        else:
            passed += 1
            print("--- PASS %s (%.1fs)" % (name, time.monotonic() - started), flush=True)
        finally:
            _kill_all()
    if _log_dir and not failed:
        shutil.rmtree(_log_dir, ignore_errors=True)
    elif _log_dir:
        print("logs kept in %s" % _log_dir)
    if failed:
        print("failed: %s" % ", ".join(failed))
    summary = "%d passed, %d failed" % (passed, len(failed))
    if skipped:
        summary += ", %d skipped" % len(skipped)
    print(summary, flush=True)
    for name, reason in skipped:
        print("skipped %s: %s" % (name, reason), flush=True)
    sys.exit(exit_status(passed, len(failed), len(skipped)))


def exit_status(passed, failed, skipped):
    """1 on any failure; 77 when everything skipped (never under CI, where a
    skip is already a failure); else 0."""
    if failed:
        return 1
    if skipped and not passed:
        return SKIP_EXIT
    return 0
