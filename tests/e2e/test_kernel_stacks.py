#!/usr/bin/env python3
"""--kernel-stacks on a real host: the kernel stack of a frozen shim.

The set-up of test_stuck_shim.py (a private containerd with real pods, one
pod's shim stopped in the kernel with the cgroup v1 freezer, all its tasks in
D), and build/plegscope --kernel-stacks run three times as uid 0:

  * with every capability dropped but CAP_BPF and CAP_PERFMON: the BPF task
    iterator loads, the shim's entry in /diagnose carries its kernel stack,
    whose class is the freezer's, and shim_hung says where it waits from the
    stack's top frame (its wchan still reads 0 at this level);
  * with every capability dropped: the agent says once in its log and in the
    report's host section that the mode is unavailable and why, and the wchan
    path stands in (wchan hidden for missing capabilities, shim_hung still
    named).

Exit 77 (skip) only when this machine cannot run containers, has no cgroup v1
freezer, or this build has no BPF support, and under env CI not even then."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
import test_stuck_shim as stuck  # noqa: E402
from e2e_util import Agent, log, wait_until  # noqa: E402

# uid 0, no_new_privs, and of all capabilities only these two.
BPF_ONLY = ["setpriv", "--reuid=0", "--inh-caps=-all,+bpf,+perfmon", "--bounding-set=-all,+bpf,+perfmon",
            "--no-new-privs"]
CAP_SYS_PTRACE, CAP_PERFMON, CAP_BPF = 19, 38, 39


class BpfOnlyAgent(stuck.ShippedAgent):
    def command(self):
        return BPF_ONLY + super(stuck.ShippedAgent, self).command()


def start(agent_class):
    ctd = stuck.setup()
    if stuck.Ctx.agent is not None:
        stuck.Ctx.agent.__exit__(None, None, None)  # the previous step's agent
    flags = ["--relist-period", "1s", "--hang-threshold", "%ds" % stuck.HANG, "--host-scan-interval", "1s",
             "--proc-path", "/proc", "--sys-path", "/sys", "--kernel-stacks"]
    stuck.Ctx.agent = agent_class(ctd.endpoint, flags, log_level="info").__enter__()
    status = open("/proc/%d/status" % stuck.Ctx.agent.proc.pid).read()
    eff = int([l.split()[1] for l in status.splitlines() if l.startswith("CapEff:")][0], 16)
    log("  plegscope pid %d, CapEff %#x" % (stuck.Ctx.agent.proc.pid, eff))
    wait_until(lambda: stuck.Ctx.agent.get("/healthz")[0] == 200, 20, "a first relist (/healthz 200)")
    return eff


def frozen_shim():
    """web-0's shim, frozen once for both steps."""
    pid = stuck.shim_of("web-0")
    if not stuck.Ctx.freezer:
        stuck.freeze(pid)
    return pid


def blocked_entry(rep, pid):
    entries = [b for b in rep["host"]["processes"]["blocked"] if b["pid"] == pid]
    return entries[0] if entries else None


def test_frozen_shims_kernel_stack_with_cap_bpf_and_cap_perfmon_only():
    eff = start(BpfOnlyAgent)
    assert eff == (1 << CAP_BPF) | (1 << CAP_PERFMON), "CapEff %#x" % eff
    pid = frozen_shim()
    ks0 = stuck.report()["host"]["processes"]["kernel_stacks"]
    if not ks0["available"] and "built without BPF support" in (ks0["error"] or ""):
        raise harness.Skip(ks0["error"])

    def stack_read():
        rep = stuck.report()
        b = blocked_entry(rep, pid)
        c = stuck.cause(rep, "shim_hung")
        return b and b.get("kernel_stack") and c and (rep, b, c)
    rep, b, c = wait_until(stack_read, 15 + stuck.HANG, "the frozen shim's kernel stack in /diagnose")
    ks = rep["host"]["processes"]["kernel_stacks"]
    log("  kernel_stacks: %s" % json.dumps(ks))
    log("  blocked entry: %s" % json.dumps(b))
    log("  shim_hung: %s" % c["summary"])
    log("  evidence: %s" % [e["signal"] for e in c["evidence"]])
    assert ks["enabled"] and ks["available"] and ks["tasks_read"] >= 1, ks
    k = b["kernel_stack"]
    assert k["class"] == "freezer", "the frozen shim's most telling stack is the freezer's: %r" % k
    assert k["frames"] and k["top"] in k["frames"], k
    # The top frame itself is the freezer's, not the scheduler's.
    assert any(w in k["top"] for w in ("refrigerator", "freezer", "freeze")), k
    assert k["tid"] > 0 and os.path.isdir("/proc/%d/task/%d" % (pid, k["tid"])), k
    assert "in the kernel at %s, by its kernel stack" % k["top"] in c["summary"], c["summary"]
    assert stuck.pod_name("web-0") in c["summary"], c["summary"]
    signals = [e["signal"] for e in c["evidence"]]
    assert any(s.startswith("kernel_stack{pid=%d," % pid) and "class=freezer" in s for s in signals), signals
    # At this level the wchan is still hidden: the stack comes from BPF alone.
    assert b["wchan"] == "0" and b["wchan_hidden"] == "missing_capabilities", b


def test_every_capability_dropped_says_why_and_falls_back_to_wchan():
    eff = start(stuck.ShippedAgent)
    assert eff == 0, "CapEff %#x" % eff
    pid = frozen_shim()

    def named():
        rep = stuck.report()
        b = blocked_entry(rep, pid)
        c = stuck.cause(rep, "shim_hung")
        return b and c and (rep, b, c)
    rep, b, c = wait_until(named, 15 + stuck.HANG, "shim_hung for the frozen shim without capabilities")
    ks = rep["host"]["processes"]["kernel_stacks"]
    log("  kernel_stacks: %s" % json.dumps(ks))
    log("  blocked entry: %s" % json.dumps(b))
    assert ks["enabled"] and not ks["available"], ks
    assert "lacks CAP_BPF and CAP_PERFMON" in ks["error"], ks
    assert "kernel_stack" not in b, b
    assert b["wchan"] == "0" and b["wchan_hidden"] == "missing_capabilities", b
    assert "its kernel stack" not in c["summary"] and "CAP_SYS_PTRACE" in c["summary"], c["summary"]
    said = [l for l in stuck.Ctx.agent.log_tail(400).splitlines() if "--kernel-stacks unavailable" in l]
    log("  log: %s" % said)
    assert len(said) == 1 and "CAP_BPF" in said[0], said


def test_root_with_every_capability_reads_the_wchan_and_the_stack():
    eff = start(Agent)  # as this test runs: uid 0, every capability
    assert eff & (1 << CAP_SYS_PTRACE) and eff & (1 << CAP_BPF), "CapEff %#x" % eff
    pid = frozen_shim()

    def both_read():
        rep = stuck.report()
        b = blocked_entry(rep, pid)
        c = stuck.cause(rep, "shim_hung")
        return b and c and b.get("kernel_stack") and b["wchan"] not in ("0", "") and (rep, b, c)
    rep, b, c = wait_until(both_read, 15 + stuck.HANG, "shim_hung with the frozen shim's wchan and stack as root")
    log("  blocked entry as root: %s" % json.dumps(b))
    log("  shim_hung as root: %s" % c["summary"])
    assert not b.get("wchan_hidden"), b
    assert b["kernel_stack"]["class"] == "freezer", b
    assert stuck.pod_name("web-0") in c["summary"], c["summary"]


def teardown():
    stuck.teardown()


if __name__ == "__main__":
    try:
        harness.main(globals())
    finally:
        teardown()
