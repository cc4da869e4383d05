"""fakecri as a process: command line errors, scenario errors, the control
endpoint, the socket going down and up, and prompt exit on SIGTERM. (The
gRPC behaviour itself is covered by fakecri_test, which has a gRPC client.)"""

import json
import os
import signal
import subprocess
import tempfile
import time

import harness
from harness import FakeCri, wait_until


def run_fakecri(*args):
    binary = harness.require_binary("fakecri")
    return subprocess.run([binary] + list(args), capture_output=True, text=True, timeout=20)


def assert_usage_error(result, *needles):
    assert result.returncode == 2, "exit %d, stderr %r" % (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, "expected a one-line error, got %r" % result.stderr
    for needle in needles:
        assert needle in lines[0], "%r not in %r" % (needle, lines[0])


def test_bad_arguments_exit_2_with_one_line():
    sock = os.path.join(tempfile.mkdtemp(), "x.sock")
    steady = harness.scenario_path("steady")
    assert_usage_error(run_fakecri("--scenario", steady), "--socket")
    assert_usage_error(run_fakecri("--socket", sock, "--scenario", steady, "--bogus"), "--bogus")
    assert_usage_error(run_fakecri("--socket", sock, "--scenario", "/nonexistent.json"), "/nonexistent.json")
    assert_usage_error(run_fakecri("--socket", sock, "--scenario", steady, "--log-level", "loud"), "--log-level")
    assert_usage_error(run_fakecri("--socket", "/nonexistent-dir/x.sock", "--scenario", steady), "--socket")
    assert_usage_error(run_fakecri("--socket", sock, "--scenario", steady, "--control-address", "nope"),
                       "--control-address")


def test_bad_scenario_names_the_json_path():
    d = tempfile.mkdtemp()
    path = os.path.join(d, "bad.json")
    with open(path, "w") as f:
        json.dump({"phases": [{"name": "a", "latency": {"ListContainers": {"fixed": "fast"}}}]}, f)
    assert_usage_error(run_fakecri("--socket", os.path.join(d, "s.sock"), "--scenario", path),
                       "phases[0].latency.ListContainers.fixed", "invalid duration")
    with open(path, "w") as f:
        f.write("{not json")
    assert_usage_error(run_fakecri("--socket", os.path.join(d, "s.sock"), "--scenario", path), "invalid JSON")


def test_every_shipped_scenario_starts():
    d = os.path.join(harness.source_dir(), "tests", "scenarios")
    names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json"))
    assert len(names) >= 17, names
    for name in names:
        with FakeCri(name, log_level="warn") as fake:
            state = fake.state()
            assert state["scenario"] == name, state
            assert state["pods"] > 0, state


def test_state_pods_and_kill():
    with FakeCri("steady") as fake:
        state = fake.state()
        assert state["phase"] == "healthy" and state["socket"] == "up", state
        assert state["pods"] == 50 and state["containers"]["running"] == 100, state
        assert os.path.exists(fake.socket)
        pods = fake.pods()
        assert len(pods) == 50
        pod = pods[7]
        assert len(pod["containers"]) == 2 and all(c["state"] == "running" for c in pod["containers"])
        assert fake.kill(pod_uid=pod["uid"], exit_code=3) == 2
        after = [p for p in fake.pods() if p["uid"] == pod["uid"]][0]
        assert all(c["state"] == "exited" and c["exit_code"] == 3 for c in after["containers"]), after
        assert fake.kill(container_id=pods[8]["containers"][0]["id"], restart=True) == 1
        state = fake.state()
        assert state["containers"]["exited"] == 3 and state["containers"]["running"] == 98, state
        assert state["events"]["stopped"] == 3 and state["events"]["started"] == 1, state
        status, _ = harness.http(fake.control_url + "/kill?pod_uid=nope", method="POST", data=b"")
        assert status == 404
        status, _ = harness.http(fake.control_url + "/release")  # GET on a POST route
        assert status == 405
        status, _ = harness.http(fake.control_url + "/nope")
        assert status == 404
        assert fake.counts() == {}, fake.counts()  # no gRPC client talked to it


def test_phase_jump_takes_the_socket_away_and_back():
    with FakeCri("unavailable") as fake:
        fake.phase("down", hold=True)
        wait_until(lambda: not os.path.exists(fake.socket), 5, "socket file to disappear")
        state = fake.state()
        assert state["socket"] == "down" and state["phase"] == "down" and state["held"], state
        time.sleep(0.3)
        assert not os.path.exists(fake.socket), "held phase must not run out"
        fake.phase("up")
        wait_until(lambda: os.path.exists(fake.socket), 5, "socket file to come back")
        assert fake.state()["socket"] == "up"
        status, body = harness.http(fake.control_url + "/phase?name=nope", method="POST", data=b"")
        assert status == 404, (status, body)


def test_looping_phases_advance_by_themselves():
    scenario = {"node": {"pods": 1}, "loop": True,
                "phases": [{"name": "a", "duration": "300ms"}, {"name": "b", "duration": "300ms", "socket": "down"}]}
    with FakeCri(scenario) as fake:
        wait_until(lambda: fake.state()["phase"] == "b", 5, "phase b")
        wait_until(lambda: fake.state()["phase"] == "a", 5, "phase a again")
        assert fake.state()["phase_entries"] >= 3


def test_sigterm_exits_promptly_even_while_hanging():
    with FakeCri("hang", hold="hang") as fake:
        t0 = time.monotonic()
        fake.proc.send_signal(signal.SIGTERM)
        rc = fake.proc.wait(timeout=5)
        assert rc == 0, rc
        assert time.monotonic() - t0 < 2.0
        assert not os.path.exists(fake.socket), "socket file left behind"


if __name__ == "__main__":
    harness.main(globals())
