#!/usr/bin/env python3
"""Two containerds on one host: a shim of the other is not this node's cause.

Two private containerds (tests/e2e/containerd_fixture.py), A and B, each
with one real pod, and one agent watching each. B's pod's shim is stopped
in the kernel with the cgroup v1 freezer (its tasks in D, as a shim stuck on
storage is). Every shim on the host is visible to both agents; each shim's
command line names the containerd it serves (-address <its grpc socket>):

  * the agent watching B reports shim_hung naming B's pod (the positive
    control: the frozen shim is a cause where it belongs);
  * the agent watching A, once it has scanned the host for longer than the
    hang threshold after the freeze (its own shim's age, from its scans,
    says so), reports no shim_hung, and neither lists nor blocks on B's shim,
    while it still lists its own.

Exit 77 (skip) only when this machine cannot run containers or has no
cgroup v1 freezer, and under env CI not even then."""

import json
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cgroups  # noqa: E402
import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
from e2e_context import E2eContext, cause, skip_if  # noqa: E402  (tests/lib)
import oci_image  # noqa: E402
from containerd_fixture import Containerd, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, Agent, log, wait_until  # noqa: E402

HANG = 3  # --hang-threshold, seconds


Ctx = E2eContext(ctds={},  # "a"/"b" -> Containerd
                 agents={},  # "a"/"b" -> Agent
                 freezer=None)  # pods: "a"/"b" -> (pod name, sandbox id)


def setup():
    skip_if(skip_reason(), "containerd e2e cannot run on this machine: ")
    if not os.path.isdir(cgroups.FREEZER):
        raise harness.Skip("no cgroup v1 freezer at %s" % cgroups.FREEZER)
    for exe in ("plegscope", "cri-driver"):
        assert os.access(os.path.join(BUILD_DIR, exe), os.X_OK), "%s/%s not built" % (BUILD_DIR, exe)
    for key in ("a", "b"):
        ctd = Containerd(BUILD_DIR)
        Ctx.ctds[key] = ctd
        ctd.start()
        for _, tarball in oci_image.build_e2e_images(os.path.join(ctd.tmp, "images")).items():
            ctd.import_image(tarball)
        name = "web-" + key
        sid = ctd.driver("run-pod", name, str(uuid.uuid4()))
        cid = ctd.driver("create-container", sid, "app", oci_image.WORKLOAD_IMAGE, "/workload")
        ctd.driver("start-container", cid)
        Ctx.pods[key] = (name, sid)
        log("  containerd %s on %s: pod %s sandbox %s" % (key, ctd.endpoint, name, sid[:12]))
    for key, ctd in Ctx.ctds.items():
        flags = ["--relist-period", "1s", "--hang-threshold", "%ds" % HANG, "--host-scan-interval", "1s",
                 "--proc-path", "/proc", "--sys-path", "/sys"]
        Ctx.agents[key] = Agent(ctd.endpoint, flags, log_level="info").__enter__()


def shim_of(key):
    sid = Ctx.pods[key][1]
    pids = [pid for pid, _, s in Ctx.ctds[key].shim_pids() if s == sid]
    assert len(pids) == 1, "shims of %s: %r" % (key, pids)
    return pids[0]


def listed_shim(rep, pid):
    return next((s for s in rep["host"]["processes"]["shims"] if s["pid"] == pid), None)


# ---------------------------------------------------------------------------
def test_a_frozen_shim_is_a_cause_only_for_its_own_containerd():
    setup()
    a, b = Ctx.agents["a"], Ctx.agents["b"]
    for agent in (a, b):
        wait_until(lambda: agent.get("/healthz")[0] == 200, 30, "a first relist (/healthz 200)")
    shim_a, shim_b = shim_of("a"), shim_of("b")
    log("  shims: A's %d, B's %d; argv of B's: %r" % (
        shim_a, shim_b, open("/proc/%d/cmdline" % shim_b).read().split("\0")))
    # A lists its own shim (with an age from its scans) before the freeze.
    try:
        own = wait_until(lambda: listed_shim(a.json("/diagnose"), shim_a), 20, "A's scan listing A's shim")
    except AssertionError:
        log("  A's host processes: %s" % json.dumps(a.json("/diagnose")["host"]["processes"]))
        raise
    before = own["seconds"]
    Ctx.freezer = cgroups.freeze(shim_b, Ctx.ctds["b"].name)
    log("  froze B's shim %d; A's own shim age %.1f s in A's scan before" % (shim_b, before))

    def b_reports():
        rep = b.json("/diagnose")
        c = cause(rep, "shim_hung")
        return c and Ctx.pods["b"][0] in c["summary"] and c
    c = wait_until(b_reports, 20 + HANG, "the agent watching B reporting shim_hung naming its pod")
    log("  B's agent: %s" % c["summary"][:160])

    # A's scans have run for longer than the hang threshold past the freeze.
    def a_scanned_past_threshold():
        rep = a.json("/diagnose")
        s = listed_shim(rep, shim_a)
        return s and s["seconds"] >= before + HANG + 2 and rep
    rep = wait_until(a_scanned_past_threshold, 20 + HANG, "A's scans %d s past the freeze" % (HANG + 2))
    log("  A's agent: status %s, causes %s, shims %s, blocked %s" % (
        rep["status"], [x["id"] for x in rep["causes"]], [s["pid"] for s in rep["host"]["processes"]["shims"]],
        [x["pid"] for x in rep["host"]["processes"]["blocked"]]))
    assert not cause(rep, "shim_hung"), cause(rep, "shim_hung")["summary"]
    assert listed_shim(rep, shim_b) is None, "B's shim listed by A: %r" % listed_shim(rep, shim_b)
    assert shim_b not in [x["pid"] for x in rep["host"]["processes"]["blocked"]], rep["host"]["processes"]
    assert listed_shim(rep, shim_a)["pod"].endswith("/" + Ctx.pods["a"][0]), listed_shim(rep, shim_a)


def teardown():
    try:
        cgroups.thaw(Ctx.freezer)
    except AssertionError as e:
        log("  %s" % e)
    Ctx.freezer = None
    for agent in Ctx.agents.values():
        agent.__exit__(None, None, None)
    Ctx.agents = {}
    for ctd in Ctx.ctds.values():
        ctd.cleanup()
    Ctx.ctds = {}


if __name__ == "__main__":
    Ctx.run(globals(), teardown)
