"""`plegscope diagnose`: one-shot against an endpoint, and --url of a running
agent. Exit status 0 healthy, 1 at risk or unhealthy, 2 usage or connection
error with a one-line message."""

import subprocess
import time

import harness
from harness import Agent, FakeCri, require_binary, wait_until

from diag_common import fixture, report, wait_top_cause


def run(args, timeout=60):
    p = subprocess.run([require_binary("plegscope")] + args, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def one_line_error(stderr):
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("plegscope: "), stderr
    return lines[0]


def test_one_shot_healthy_exits_0():
    with FakeCri("diag_healthy", log_level="warn") as fake:
        code, out, err = run(["diagnose", "--container-runtime-endpoint", fake.endpoint, "--duration", "3s",
                              "--output", "json", "--proc-path", fixture("healthy"), "--log-level", "warn"])
        assert code == 0, (code, out[-2000:], err)
        rep = harness.report_json(out)
        assert rep["status"] == "healthy" and rep["causes"] == [], rep["summary"]
        assert len(rep["timeline"]) >= 2, len(rep["timeline"])


def test_one_shot_text_at_risk_exits_1():
    with FakeCri("diag_unavailable", log_level="warn") as fake:
        code, out, err = run(["diagnose", "--container-runtime-endpoint", fake.endpoint, "--duration", "6s",
                              "--proc-path", fixture("healthy"), "--log-level", "warn"])
        assert code == 1, (code, out, err)
        assert out.startswith("plegscope diagnosis of node"), out[:300]
        assert "1. runtime_unavailable" in out, out
        print(out)


def test_one_shot_against_a_hung_runtime_exits_1_promptly():
    with FakeCri("diag_hang", log_level="warn", hold="hang") as fake:
        started = time.monotonic()
        code, out, err = run(["diagnose", "--container-runtime-endpoint", fake.endpoint, "--duration", "4s",
                              "--hang-threshold", "2s", "--proc-path", fixture("healthy"), "--log-level", "warn"])
        took = time.monotonic() - started
        assert code == 1, (code, out, err)
        assert "1. runtime_hung" in out, out
        assert took < 9, "diagnose took %.1fs with --duration 4s: the hung call was not cancelled" % took
        fake.release()


def test_one_shot_no_socket_exits_2():
    code, out, err = run(["diagnose", "--container-runtime-endpoint", "unix:///nonexistent/cri.sock",
                          "--duration", "2s"])
    assert code == 2, (code, out, err)
    line = one_line_error(err)
    assert "--container-runtime-endpoint" in line, line


def test_one_shot_bad_flags_exit_2():
    for args in (["diagnose", "--duration", "soon"], ["diagnose", "--output", "yaml"],
                 ["diagnose", "--url", "ftp://x"]):
        code, out, err = run(args)
        assert code == 2, (args, code, out, err)
        one_line_error(err)


def test_url_of_a_running_agent_during_a_hang():
    with FakeCri("diag_hang", log_level="warn") as fake, \
            Agent(fake.endpoint, ["--hang-threshold", "3s"], proc_path=fixture("healthy"), log_level="info") as agent:
        wait_top_cause(agent, "runtime_hung", timeout=30)
        code, out, err = run(["diagnose", "--url", agent.base_url])
        assert code == 1, (code, out, err)
        assert "STATUS: AT RISK" in out and "1. runtime_hung" in out, out
        assert "ListContainers has been in flight" in out, out
        print(out)
        code, out, err = run(["diagnose", "--url", agent.base_url + "/", "--output", "json"])
        assert code == 1, (code, err)
        rep = harness.report_json(out)
        assert rep["causes"][0]["id"] == "runtime_hung", rep["summary"]
        fake.release()


def test_url_of_a_healthy_agent_exits_0():
    with FakeCri("diag_healthy", log_level="warn") as fake, \
            Agent(fake.endpoint, [], proc_path=fixture("healthy"), log_level="info") as agent:
        wait_until(lambda: len(report(agent)["timeline"]) >= 3, 20, "three relists")
        code, out, err = run(["diagnose", "--url", agent.base_url, "--output", "json"])
        assert code == 0, (code, out[-1000:], err)
        assert harness.report_json(out)["status"] == "healthy"


def test_url_unreachable_exits_2():
    code, out, err = run(["diagnose", "--url", "http://127.0.0.1:%d" % harness.free_port()], timeout=40)
    assert code == 2, (code, out, err)
    line = one_line_error(err)
    assert "--url" in line, line


def test_url_not_plegscope_exits_2():
    with FakeCri("diag_healthy", log_level="warn") as fake:
        # The fakecri control endpoint speaks HTTP but has no /diagnose.
        code, out, err = run(["diagnose", "--url", fake.control_url])
        assert code == 2, (code, out, err)
        one_line_error(err)


if __name__ == "__main__":
    harness.main(globals())
