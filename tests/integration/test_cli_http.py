"""Command line and HTTP contract (DESIGN §3, §5): bad flags exit 2 with a
one-line error naming the flag; a missing runtime keeps the agent serving
but not ready; unknown paths, wrong methods and bad query values get 404,
405 and 400; SIGTERM ends the agent cleanly."""

import os
import signal
import subprocess
import tempfile
import time

import harness
from harness import Agent, FakeCri, wait_until


def run_agent(*args):
    binary = harness.require_binary("plegscope")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLEGSCOPE_")}
    return subprocess.run([binary] + list(args), capture_output=True, text=True, timeout=20, env=env)


def assert_flag_error(flag, *args):
    missing = "unix://" + os.path.join(tempfile.mkdtemp(), "cri.sock")
    result = run_agent("--container-runtime-endpoint", missing, "--listen-address", "127.0.0.1:%d" % harness.free_port(),
                       *args)
    assert result.returncode == 2, "%s: exit %d, stderr %r" % (args, result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, "%s: expected a one-line error, got %r" % (args, result.stderr)
    assert flag in lines[0], "%s: error does not name %s: %r" % (args, flag, lines[0])


def test_bad_flags_exit_2_naming_the_flag():
    assert_flag_error("--relist-period", "--relist-period", "banana")
    assert_flag_error("--evented-pleg", "--evented-pleg", "maybe")
    assert_flag_error("--no-such-flag", "--no-such-flag")
    assert_flag_error("--relist-threshold", "--relist-threshold", "3 minutes")


def test_missing_runtime_serves_but_is_not_ready():
    missing = "unix://" + os.path.join(tempfile.mkdtemp(), "nope.sock")
    with Agent(missing, ["--relist-period", "200ms", "--runtime-request-timeout", "1s"]) as agent:
        time.sleep(1.0)  # several relist attempts against nothing
        assert agent.proc.alive(), "the agent must keep running without a runtime"
        status, body = agent.get("/metrics")
        assert status == 200 and "pleg_" in body
        status, body = agent.get("/healthz")
        assert status == 500 and "pleg has yet to be successful" in body, (status, body)
        assert agent.get("/livez")[0] == 200
        assert agent.get("/readyz")[0] == 200, "the witness stays in the Service while the runtime is down"


def test_http_errors():
    with FakeCri("steady") as fake, Agent(fake.endpoint, ["--relist-period", "200ms"]) as agent:
        wait_until(lambda: agent.get("/healthz")[0] == 200, 20, "a first relist (/healthz 200)")
        assert agent.get("/no-such-path")[0] == 404
        assert agent.get("/metrics", method="POST")[0] == 405
        status, body = agent.get("/diagnose?format=bogus")
        assert status == 400, (status, body[:200])
        assert len(body.strip().splitlines()) == 1, "400 should carry a one-line reason: %r" % body[:300]
        assert agent.get("/metrics")[0] == 200, "the agent must survive bad requests"


def test_sigterm_exits_cleanly():
    with FakeCri("steady") as fake, Agent(fake.endpoint, ["--relist-period", "200ms"]) as agent:
        wait_until(lambda: agent.get("/healthz")[0] == 200, 20, "a first relist (/healthz 200)")
        t0 = time.monotonic()
        agent.proc.send_signal(signal.SIGTERM)
        rc = agent.proc.wait(timeout=5)
        assert rc == 0, "exit status %s after SIGTERM" % rc
        took = time.monotonic() - t0
        assert took < 2.0, "SIGTERM took %.2fs" % took


if __name__ == "__main__":
    harness.main(globals())
