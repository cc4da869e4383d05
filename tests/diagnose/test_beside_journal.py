"""kubelet_internal from the kubelet's own journal lines:
the agent follows a private journal written by systemd-journal-remote, the
kubelet's metrics cannot be read (nothing listens at --kubelet-endpoint).
The kubelet's exact "PLEG is not healthy" line, appended while the fake
runtime answers the agent fast, names kubelet_internal at a lower
confidence, citing the lines' count and time and the agent's relist p99.
The same lines while the runtime hangs the agent's ListContainers name
runtime_hung, never kubelet_internal."""

import os
import socket
import tempfile
import time

import harness
from harness import Agent, FakeCri, wait_until
from journal_export import KUBELET_PLEG_LINE, journal_remote, unit_entry, write_journal

from diag_common import describe, fixture, report, wait_top_cause

FLAGS = ["--hang-threshold", "3s", "--relist-period", "1s", "--node-name", "worker-3"]


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def agent_beside_journal(fake, tmp):
    """The agent following tmp/journal, the kubelet unreachable."""
    d = os.path.join(tmp, "journal")
    os.makedirs(d)
    write_journal(os.path.join(d, "system.journal"),
                  [unit_entry(time.time(), "kubelet.service", 'I1124 05:00:00.000000    1234 log.go:1] "Probe succeeded"')])
    token = os.path.join(tmp, "token")
    with open(token, "w") as f:
        f.write("t0k3n\n")
    flags = FLAGS + ["--journal-path", d, "--kubelet-endpoint", "https://127.0.0.1:%d" % closed_port(),
                     "--kubelet-token-file", token]
    return d, Agent(fake.endpoint, flags, proc_path=fixture("healthy"), log_level="info")


def kubelet_says_pleg_not_healthy(d, count=2):
    now = time.time()
    write_journal(os.path.join(d, "system.journal"),
                  [unit_entry(now - (count - 1 - i) * 0.5, "kubelet.service", KUBELET_PLEG_LINE) for i in range(count)])


def pleg_marks(agent):
    return [m for m in report(agent)["journal"] if m["kind"] == "pleg_not_healthy"]


def test_pleg_lines_beside_fast_relists_and_an_unreadable_kubelet_name_kubelet_internal():
    journal_remote()
    with tempfile.TemporaryDirectory() as tmp, FakeCri("diag_healthy", log_level="warn") as fake:
        d, agent = agent_beside_journal(fake, tmp)
        with agent:
            wait_until(lambda: len(report(agent)["timeline"]) >= 5 and report(agent)["journal_source"]["reachable"],
                       30, "five relists and the journal followed")
            assert "could not be reached" in (report(agent)["kubelet"]["error"] or ""), report(agent)["kubelet"]
            assert report(agent)["causes"] == [], describe(report(agent))
            kubelet_says_pleg_not_healthy(d)
            rep = wait_top_cause(agent, "kubelet_internal", timeout=30, min_confidence=0.3)
            c = rep["causes"][0]
            assert c["confidence"] < 0.6, c  # the kubelet's words, its relist not measured
            figures = {e["signal"]: e["value"] for e in c["evidence"]}
            assert figures["kubelet_journal_pleg_not_healthy_lines"] == 2, figures
            assert figures["agent_relist_p99_seconds"] < 0.5, figures
            assert "kubelet_last_seen_age_seconds" not in figures, figures
            summary = " ".join(c["summary"].split())
            assert "the kubelet's journal says \"PLEG is not healthy\" 2 times" in summary, summary
            assert "pleg was last seen active 3m5.2s ago" in summary, summary
            assert "could not be read" in summary, summary
            print("  " + summary)


def test_pleg_lines_while_the_runtime_hangs_are_runtime_hung():
    journal_remote()
    with tempfile.TemporaryDirectory() as tmp, FakeCri("diag_hang", log_level="warn", hold="healthy") as fake:
        d, agent = agent_beside_journal(fake, tmp)
        with agent:
            wait_until(lambda: len(report(agent)["timeline"]) >= 3 and report(agent)["journal_source"]["reachable"],
                       30, "three relists and the journal followed")
            fake.phase("hang", hold=True)
            wait_top_cause(agent, "runtime_hung", timeout=30)
            kubelet_says_pleg_not_healthy(d)
            wait_until(lambda: len(pleg_marks(agent)) == 2, 30, "the kubelet's lines on /diagnose")
            rep = report(agent)
            ids = [c["id"] for c in rep["causes"]]
            assert ids and ids[0] == "runtime_hung" and "kubelet_internal" not in ids, describe(rep)
            fake.release()


if __name__ == "__main__":
    harness.main(globals())
