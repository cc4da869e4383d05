"""The kubelet's own words on /diagnose: the agent follows a
private journal directory written by systemd-journal-remote, holding the
kubelet's exact "PLEG is not healthy" line under _SYSTEMD_UNIT=kubelet.service
and a containerd restart; /diagnose shows them in JSON (DESIGN §6 "journal"),
text and HTML. Without a journal the report says so, and nothing else
changes: no cause is named from the marks on a node whose relists are fast."""

import json
import os
import re
import tempfile
import time

import harness
from harness import Agent, FakeCri, wait_until
from journal_export import (KUBELET_PLEG_LINE, MESSAGE_ID_UNIT_STARTED, MESSAGE_ID_UNIT_STOPPING,
                            manager_entry, unit_entry, write_journal)

FLAGS = ["--relist-period", "200ms"]
# An idle node's /proc, so the verdict depends on the runtime and the
# journal only, not on what else this machine runs.
CALM_PROC = os.path.join(harness.source_dir(), "tests", "fixtures", "proc", "healthy")


def journal_dir(tmp):
    """A journal directory as journald lays it out: one machine's files."""
    d = os.path.join(tmp, "journal")
    os.makedirs(d)
    now = time.time()
    write_journal(os.path.join(d, "system.journal"), [
        manager_entry(now - 30, "containerd.service", "Stopping containerd.service - containerd container runtime...",
                      MESSAGE_ID_UNIT_STOPPING, job_type="stop"),
        manager_entry(now - 28, "containerd.service", "Started containerd.service - containerd container runtime.",
                      MESSAGE_ID_UNIT_STARTED),
        unit_entry(now - 25, "kubelet.service", 'I1124 04:59:35.000000    1234 kubelet.go:100] "Kubelet version"'),
        unit_entry(now - 1, "kubelet.service", KUBELET_PLEG_LINE),
        # Not a mark: an ordinary line, and a unit that is neither.
        unit_entry(now - 1, "kubelet.service", 'I1124 05:00:00.000000    1234 log.go:1] "Probe succeeded"'),
        unit_entry(now - 1, "sshd.service", "PLEG is not healthy (someone typed it)"),
    ])
    return d


def report_with_journal(agent, what):
    def ready():
        r = agent.get_json("/diagnose")
        return r if r["journal"] and r["timeline"] else None
    return wait_until(ready, 30, what)


def test_the_kubelets_pleg_line_in_all_three_formats():
    with tempfile.TemporaryDirectory() as tmp:
        d = journal_dir(tmp)
        with FakeCri("steady") as fake, Agent(fake.endpoint, FLAGS + ["--journal-path", d], proc_path=CALM_PROC) as agent:
            def pleg_mark():
                r = agent.get_json("/diagnose")
                marks = [m for m in r["journal"] if m["kind"] == "pleg_not_healthy"]
                # The verdict below is the one after the first relist, not the
                # kubelet's "yet to be successful" while it runs.
                first_relist_done = r["relist"]["seconds_since_last_seen"] is not None and \
                    not any(e["in_progress"] and e["initial"] for e in r["timeline"])
                return (r, marks[0]) if marks and first_relist_done else None
            report, mark = wait_until(pleg_mark, 30, "the kubelet's PLEG line on /diagnose after the first relist")
            assert set(mark) == {"time", "unit", "kind", "message"}, mark
            assert mark["unit"] == "kubelet.service", mark
            assert mark["message"] == KUBELET_PLEG_LINE, mark
            src = report["journal_source"]
            assert src["reachable"] is True and src["path"] == d and src["error"] is None, src
            kinds = [(m["unit"], m["kind"]) for m in report["journal"]]
            assert ("containerd.service", "unit_stopping") in kinds, kinds
            assert ("containerd.service", "unit_started") in kinds, kinds
            assert ("kubelet.service", "kubelet_started") in kinds, kinds
            assert all(m["unit"] != "sshd.service" for m in report["journal"]), kinds
            assert not any("Probe succeeded" in m["message"] for m in report["journal"]), kinds
            # Evidence only: a healthy, fast node stays healthy with no cause.
            assert report["status"] == "healthy" and report["causes"] == [], report["causes"]

            status, text = agent.get("/diagnose?format=text")
            assert status == 200
            flat = " ".join(text.split())  # the text report wraps long lines
            assert "Journal: following kubelet.service" in flat, text
            assert "kubelet.service  pleg_not_healthy\n" in text, text  # a mark's header line
            assert " ".join(KUBELET_PLEG_LINE.split()) in flat, text
            status, html = agent.get("/diagnose?format=html")
            assert status == 200
            assert '<tr data-kind="pleg_not_healthy">' in html, html[-3000:]
            assert "pleg was last seen active 3m5.2s ago" in html
            assert 'class="journal-mark" data-kind="pleg_not_healthy"' in html  # on the relist chart


def test_lines_appended_while_the_agent_follows():
    with tempfile.TemporaryDirectory() as tmp:
        d = journal_dir(tmp)
        with FakeCri("steady") as fake, Agent(fake.endpoint, FLAGS + ["--journal-path", d], proc_path=CALM_PROC) as agent:
            report_with_journal(agent, "the first marks")
            line = 'E1124 05:01:00.000000    1234 pod_workers.go:1300] "Error syncing pod, skipping" pod="default/web-1"'
            write_journal(os.path.join(d, "system.journal"), [unit_entry(time.time(), "kubelet.service", line)])
            wait_until(lambda: any(m["message"] == line and m["kind"] == "error_syncing_pod"
                                   for m in agent.get_json("/diagnose")["journal"]),
                       30, "the appended line on /diagnose")


def test_without_a_journal_the_report_says_so_and_nothing_else_changes():
    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "no-such-journal")
        d = journal_dir(tmp)
        reports = {}
        for name, path in (("without", missing), ("with", d)):
            with FakeCri("steady") as fake, Agent(fake.endpoint, FLAGS + ["--journal-path", path], proc_path=CALM_PROC) as agent:
                wait_until(lambda: len(agent.get_json("/diagnose")["timeline"]) >= 5, 30, "five relists")
                if name == "with":
                    report_with_journal(agent, "the marks")
                reports[name] = (agent.get_json("/diagnose"), agent.get("/diagnose?format=text")[1],
                                 agent.get("/diagnose?format=html")[1])
        without, text, html = reports["without"]
        assert without["journal"] == [], without["journal"]
        assert without["journal_source"]["reachable"] is False, without["journal_source"]
        assert without["journal_source"]["error"] == "no journal at " + missing, without["journal_source"]
        assert "Journal: no journal at " + missing in " ".join(text.split()), text
        assert 'data-reachable="false"' in html and "no journal at " + missing in html
        with_ = reports["with"][0]
        # Same sections, same verdict: the journal adds marks, nothing else.
        assert set(without) == set(with_), (set(without) ^ set(with_))
        assert (without["status"], without["causes"]) == (with_["status"], with_["causes"]) == ("healthy", []), \
            (without["status"], without["causes"], with_["status"], with_["causes"])
        # The same sentence (the relist times are each run's own).
        words = lambda summary: re.sub(r"[0-9][0-9.]*(ms|s|m)?", "N", summary)  # noqa: E731
        assert words(without["summary"]) == words(with_["summary"]), (without["summary"], with_["summary"])


if __name__ == "__main__":
    harness.main(globals())
