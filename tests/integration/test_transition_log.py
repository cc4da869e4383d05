"""The transition log line (DESIGN §3): on every change of the verdict's
status the agent writes one JSON object on stdout, which log pipelines keep
after the node is gone. Read here from the agent's stdout during a hang of the
fake runtime and after its recovery: each line says the node, the status and
the one before, the top causes with evidence and culprit, the version and the
time; nothing else is on stdout, and the lines follow one another."""

import json
import subprocess

import harness
from harness import Agent, FakeCri, wait_until

FLAGS = ["--relist-period", "200ms", "--relist-threshold", "3s", "--hang-threshold", "1s",
         "--node-name", "worker-7"]


def records(agent):
    lines = agent.stdout_lines()
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            raise AssertionError("stdout carries only transition records, got %r" % line)
    return parsed


def first_with(agent, predicate, timeout, what):
    return wait_until(lambda: next((r for r in records(agent) if predicate(r)), None), timeout, what)


def test_hang_and_recovery_are_logged_once_each_with_their_cause():
    version = subprocess.run([harness.require_binary("plegscope"), "version"], capture_output=True,
                             text=True, check=True).stdout.split()[1]
    with FakeCri("hang", hold="healthy") as fake, \
            Agent(fake.endpoint, FLAGS, separate_stdout=True) as agent:
        first = first_with(agent, lambda r: True, 20, "a first verdict on stdout")
        assert first["previous_status"] is None, first
        assert first["status"] != "unhealthy", "a starting agent logs no fault before a relist: %r" % first
        fake.phase("hang", hold=True)

        unhealthy = first_with(agent, lambda r: r["status"] == "unhealthy", 30, "the hang logged as unhealthy")
        assert unhealthy["node"] == "worker-7"
        assert unhealthy["version"] == version
        assert unhealthy["healthy"] is False
        top = unhealthy["causes"][0]
        assert top["id"] == "runtime_hung", unhealthy["causes"]
        assert top["culprit"]["operation"] == "list_containers", top
        assert top["culprit"]["seconds"] >= 1.0, "in flight past the 1 s hang threshold: %r" % top
        signals = {e["signal"] for e in top["evidence"]}
        assert "oldest_in_flight_seconds{list_containers}" in signals, signals
        assert unhealthy["summary"], unhealthy
        # The agent's own clock: the record's time is an RFC 3339 instant of this run.
        assert unhealthy["time"].endswith("Z") and unhealthy["time"][:4].isdigit(), unhealthy["time"]

        fake.release()
        # Recovered: the record after the hang's that no longer names it. On a
        # node loaded by other work it may be at_risk for node pressure instead
        # of healthy, which is the verdict the agent owes that node.
        def recovered():
            log = records(agent)
            after = log[[r["status"] for r in log].index("unhealthy") + 1:]
            return next((r for r in after if r["status"] != "unhealthy" and
                         "runtime_hung" not in [c["id"] for c in r["causes"]]), None)
        back = wait_until(recovered, 30, "the recovery logged")
        if back["status"] == "healthy":
            assert back["causes"] == [] or all(c["severity"] == "info" for c in back["causes"]), back

        log = records(agent)
        statuses = [r["status"] for r in log]
        # One line per transition: consecutive records differ, each names the one before.
        for before, after in zip(log, log[1:]):
            assert after["previous_status"] == before["status"], statuses
            assert after["status"] != before["status"] or after["suppressed_transitions"] > 0, statuses
        assert "unhealthy" in statuses
        # healthy -> (at_risk ->) unhealthy -> (at_risk ->) healthy: a handful, not one per relist.
        assert len(log) <= 6, statuses
        times = [r["time"] for r in log]
        assert times == sorted(times), times


if __name__ == "__main__":
    harness.main(globals())
