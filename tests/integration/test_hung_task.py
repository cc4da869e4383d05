"""The kernel's own words on a stuck shim: the agent follows a private
journal directory (written by systemd-journal-remote, no journald) holding
the kernel's hung-task reports under _TRANSPORT=kernel, one line per entry
with unrelated kernel lines between them, beside a host tree whose shim
(pid 4242) is in D (tests/fixtures/host/shim_in_d_nfs). /diagnose ties the
report to that blocked process and to shim_hung's evidence with what its
frames wait on, and says a report printed before the agent saw the stall
may be an older one."""

import json
import os
import shutil
import tempfile
import time

import harness
import schema_check
from harness import Agent, FakeCri, wait_until
from journal_export import kernel_entry, kernel_report, unit_entry, write_journal

FIXTURES = os.path.join(harness.source_dir(), "tests", "fixtures")


def nfs_report_lines(pid):
    """tests/fixtures/hung_task/6.7_nfs_tgid.txt's first report, on `pid` (its own process)."""
    with open(os.path.join(FIXTURES, "hung_task", "6.7_nfs_tgid.txt")) as f:
        lines = f.read().splitlines()[:24]
    lines[0] = lines[0].replace("containerd-shim:5120", "containerd-shim:%d" % pid)
    lines[3] = lines[3].replace("pid:5120  tgid:5118", "pid:%d  tgid:%d" % (pid, pid))
    return lines


def interleaved(entries, at):
    """Unrelated kernel lines between a report's lines, as a busy node logs them."""
    out = []
    for i, e in enumerate(entries):
        out.append(e)
        if i % 5 == 2:
            out.append(kernel_entry(at + i * 50e-6 + 1e-6, "eth0: renamed from veth3a1b2c", priority="6"))
    return out


def blocked_4242(agent):
    r = agent.get_json("/diagnose")
    blocked = [b for b in r["host"]["processes"]["blocked"] if b["pid"] == 4242]
    return (r, blocked[0]) if blocked else None


def test_the_kernels_report_on_the_stuck_shim():
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "tree")
        shutil.copytree(os.path.join(FIXTURES, "host", "shim_in_d_nfs"), root, symlinks=True)
        jdir = os.path.join(tmp, "journal")
        os.makedirs(jdir)
        journal = os.path.join(jdir, "system.journal")
        older = time.time() - 600
        # Ten minutes ago, before the agent runs: a report on the same pid.
        write_journal(journal, [unit_entry(older - 1, "kubelet.service", "I1124 05:00:00.000000 1 log.go:1] \"Probe\"")] +
                      interleaved(kernel_report(older, nfs_report_lines(4242)), older))
        flags = ["--sys-path", os.path.join(root, "sys"), "--host-clock-ticks", "100", "--hang-threshold", "2s",
                 "--host-scan-interval", "1s", "--journal-path", jdir]
        with FakeCri("diag_healthy", log_level="warn") as fake, \
                harness.host_tree_served_by(root, fake.endpoint) as served, \
                Agent(fake.endpoint, flags, proc_path=os.path.join(served, "proc")) as agent:
            def with_report():
                got = blocked_4242(agent)
                return got if got and got[1]["hung_task"] else None
            report, blocked = wait_until(with_report, 30, "the older kernel report on pid 4242's blocked entry")
            k = blocked["hung_task"]
            print("  older report: %s" % json.dumps(k)[:300])
            assert k["pid"] == 4242 and k["comm"] == "containerd-shim", k
            assert k["classes"] == ["network_fs"], k
            assert "nfs4_proc_getattr" in k["frames"] and "rpc_wait_bit_killable" in k["frames"], k
            assert k["truncated"] is False, k
            # Printed before the agent first saw 4242 in D: said to be older.
            assert k["predates_stall_seconds"] is not None and k["predates_stall_seconds"] > 500, k

            # A fresh report now, while the scan watches the stall.
            now = time.time()
            write_journal(journal, interleaved(kernel_report(now, nfs_report_lines(4242)), now))

            def fresh():
                got = blocked_4242(agent)
                if not got or not got[1]["hung_task"] or got[1]["hung_task"]["predates_stall_seconds"] is not None:
                    return None
                shim = [c for c in got[0]["causes"] if c["id"] == "shim_hung"]
                return (got[0], got[1], shim[0]) if shim else None
            report, blocked, cause = wait_until(fresh, 30, "the fresh kernel report, within the stall, and shim_hung")
            print("  " + cause["summary"])
            assert blocked["hung_task"]["classes"] == ["network_fs"], blocked
            signals = [e["signal"] for e in cause["evidence"]]
            assert "kernel_hung_task_blocked_seconds{pid=4242,class=network_fs}" in signals, signals
            assert "the kernel's hung-task report on pid 4242" in cause["summary"], cause["summary"]
            assert "a network filesystem" in cause["summary"], cause["summary"]
            assert len(report["host"]["hung_tasks"]) == 2, report["host"]["hung_tasks"]
            # The report, reports and all, is what docs/report.schema.json says.
            with open(os.path.join(harness.source_dir(), "docs", "report.schema.json")) as f:
                assert schema_check.validate(report, json.load(f)) == []

            status, text = agent.get("/diagnose?format=text")
            assert status == 200
            assert "kernel: the kernel's hung-task report on pid 4242" in text, text
            assert "waiting on a network filesystem" in text, text


if __name__ == "__main__":
    harness.main(globals())
