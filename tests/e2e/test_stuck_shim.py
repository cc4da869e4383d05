#!/usr/bin/env python3
"""The culprit on a real host, under the privileges the DaemonSet ships.

A private containerd (tests/e2e/containerd_fixture.py) with real pods, and
build/plegscope run as the DaemonSet runs it: uid 0, every capability
dropped, no_new_privs (setpriv). On that host:

  * a container that never reaps leaves real zombies: the report names its
    pod, reached from the zombies' parent through its shim;
  * one pod's shim is stopped in the kernel with the cgroup v1 freezer (its
    tasks in D, as a shim stuck on storage is): before any call hangs it is
    a risk, named with its pod, listed once with its thread count, its wchan
    hidden for the reason the kernel hides it;
  * the calls a kubelet makes for that pod are driven while it is stuck
    (UpdateContainerResources and StopContainer, which wait on the shim;
    ContainerStatus); containerd runs UpdateContainerResources holding the
    container's status lock, so every ListContainers waits: the stuck pod is
    the first cause, the chain is stated, restarting the runtime is not the
    advice, and containerd's metrics page failing meanwhile counts for it;
  * thawed, everything recovers;
  * the runtime's real pids cgroup at its limit is named as such.

Exit 77 (skip) only when this machine cannot run containers or has no cgroup
v1 freezer, and under env CI not even then."""

import json
import os
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cgroups  # noqa: E402
import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
from e2e_context import E2eContext, cause, skip_if  # noqa: E402  (tests/lib)
import oci_image  # noqa: E402
import containerd_fixture  # noqa: E402
from containerd_fixture import Containerd, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, Agent, log, shim_hung_held_without_runtime_hung, wait_until  # noqa: E402

HANG = 3  # --hang-threshold, seconds
FREEZER = cgroups.FREEZER
NAMESPACE = "plegscope-e2e"
# As the DaemonSet runs the agent: root, no capability, no new privileges.
AS_SHIPPED = ["setpriv", "--reuid=0", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]


class ShippedAgent(Agent):
    def command(self):
        return AS_SHIPPED + super().command()


Ctx = E2eContext(ctd=None,  # pods: name -> (uid, sandbox id, container id)
                 freezer=None)  # the freezer cgroup holding the stuck shim
report = Ctx.report


def setup():
    if Ctx.ctd is not None:
        return Ctx.ctd
    skip_if(skip_reason(), "containerd e2e cannot run on this machine: ")
    if not os.path.exists(os.path.join(FREEZER, "freezer.state")) and not os.path.isdir(FREEZER):
        raise harness.Skip("no cgroup v1 freezer at %s" % FREEZER)
    harness.require_tool("setpriv")
    for exe in ("plegscope", "cri-driver"):
        assert os.access(os.path.join(BUILD_DIR, exe), os.X_OK), "%s/%s not built" % (BUILD_DIR, exe)
    ctd = Containerd(BUILD_DIR)
    Ctx.ctd = ctd
    ctd.start()
    for name, tarball in oci_image.build_e2e_images(os.path.join(ctd.tmp, "images")).items():
        ctd.import_image(tarball)
    log("  containerd %s on %s" % (ctd.driver("version"), ctd.endpoint))
    for name, args in (("web-0", []), ("api-1", []), ("db-2", []), ("zombies-0", ["-1", "0", "150"])):
        uid = str(uuid.uuid4())
        sid = ctd.driver("run-pod", name, uid)
        cid = ctd.driver("create-container", sid, "app", oci_image.WORKLOAD_IMAGE, "/workload", *args)
        ctd.driver("start-container", cid)
        Ctx.pods[name] = (uid, sid, cid)
        log("  pod %s/%s sandbox %s container %s %s" % (NAMESPACE, name, sid[:12], cid[:12], " ".join(args)))
    return ctd


def start_agent():
    """A fresh agent for each step (the harness stops a test's processes at
    its end); the containerd and its pods carry over."""
    ctd = setup()
    flags = ["--relist-period", "1s", "--hang-threshold", "%ds" % HANG, "--host-scan-interval", "1s",
             "--proc-path", "/proc", "--sys-path", "/sys", "--runtime-metrics-endpoint", ctd.metrics_url]
    Ctx.agent = ShippedAgent(ctd.endpoint, flags, log_level="info").__enter__()
    status = open("/proc/%d/status" % Ctx.agent.proc.pid).read()
    caps = [l.split()[1] for l in status.splitlines() if l.startswith(("CapEff:", "CapPrm:"))]
    log("  plegscope pid %d as shipped: uid 0, CapPrm/CapEff %s, %s" % (
        Ctx.agent.proc.pid, "/".join(caps), [l for l in status.splitlines() if l.startswith("NoNewPrivs")][0]))
    assert caps == ["0000000000000000", "0000000000000000"], "the agent kept capabilities: %s" % caps
    return ctd


def pod_name(name):
    return "%s/%s" % (NAMESPACE, name)


def shim_of(name):
    sid = Ctx.pods[name][1]
    pids = [pid for pid, _, s in Ctx.ctd.shim_pids() if s == sid]
    assert len(pids) == 1, "shims of %s: %r" % (name, pids)
    return pids[0]


def task_states(pid):
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        with open("/proc/%d/task/%s/wchan" % (pid, tid)) as f:
            out[int(tid)] = (state, f.read().strip())
    return out


def freeze(pid):
    Ctx.freezer = cgroups.freeze(pid, Ctx.ctd.name)


def thaw():
    """Thaws the shim, moves it back to the root freezer cgroup and removes ours."""
    cgroups.thaw(Ctx.freezer)
    Ctx.freezer = None


def background_call(*args):
    return Ctx.background_call(Ctx.ctd, *args)


# ---------------------------------------------------------------------------
def test_zombies_named_with_their_pod():
    start_agent()
    wait_until(lambda: Ctx.agent.get("/healthz")[0] == 200, 20, "a first relist (/healthz 200)")

    def named():
        rep = report()
        c = cause(rep, "defunct_processes")
        parents = rep["host"]["processes"]["zombie_parents"]
        return c and parents and parents[0]["pod"] == pod_name("zombies-0") and (rep, c)
    rep, c = wait_until(named, 30, "defunct_processes naming pod zombies-0")
    z = rep["host"]["processes"]["zombie_parents"][0]
    log("  %d zombies; top parent %s pid %d: %d, pod %s (found by %s)" % (
        rep["host"]["processes"]["zombies"], z["comm"], z["pid"], z["count"], z["pod"], z["found_by"]))
    log("  cause: %s" % c["summary"])
    assert z["count"] >= 150, z
    assert z["found_by"] == "ancestry", "the parent is the container's init, under its shim: %r" % z
    assert z["sandbox_id"] == Ctx.pods["zombies-0"][1], z
    assert pod_name("zombies-0") in c["summary"], c["summary"]


def test_stuck_shim_before_any_hang_is_a_risk_listed_once():
    start_agent()
    wait_until(lambda: Ctx.agent.get("/healthz")[0] == 200, 20, "a first relist (/healthz 200)")
    pid = shim_of("web-0")
    freeze(pid)
    states = task_states(pid)
    log("  froze web-0's shim pid %d: %d tasks, states/wchan as root: %s" % (
        pid, len(states), sorted(set(states.values()))))
    assert all(s == "D" for s, _ in states.values()), "frozen tasks not in D on this kernel: %r" % states
    as_shipped = subprocess.run(AS_SHIPPED + ["cat", "/proc/%d/wchan" % pid], capture_output=True, text=True).stdout
    log("  the same wchan read as shipped: %r" % as_shipped)

    rep, c = Ctx.wait_cause("shim_hung", lambda rep, c: "no call hangs yet" in c["summary"],
                            15 + HANG, "shim_hung as a risk before any call hangs")
    log("  status %s; cause: %s" % (rep["status"], c["summary"]))
    assert rep["status"] == "at_risk", rep["status"]
    assert not cause(rep, "runtime_hung"), [x["id"] for x in rep["causes"]]
    assert pod_name("web-0") in c["summary"] and "unknown" not in c["summary"], c["summary"]
    blocked = [b for b in rep["host"]["processes"]["blocked"] if b["pid"] == pid]
    log("  blocked entries for pid %d: %s" % (pid, json.dumps(blocked)))
    assert len(blocked) == 1, "one entry per process: %r" % blocked
    b = blocked[0]
    assert b["threads"] == len(states) and b["tasks_in_d"] == len(states), (b, len(states))
    assert b["pod"] == pod_name("web-0"), b
    if as_shipped.strip() == "0":
        assert b["wchan"] == "0" and b["wchan_hidden"] == "missing_capabilities", b
        assert "CAP_SYS_PTRACE" in c["summary"], c["summary"]
    pids = [x["pid"] for x in rep["host"]["processes"]["blocked"]]
    assert len(pids) == len(set(pids)), "a process listed twice: %r" % pids


def test_the_kubelets_calls_on_the_stuck_pod_rank_it_first_with_the_chain():
    start_agent()
    assert Ctx.freezer, "the shim is frozen by the previous step"
    wait_until(lambda: Ctx.agent.get("/healthz")[0] == 200, 20, "a first relist (/healthz 200)")
    _, sid, cid = Ctx.pods["web-0"]
    update = background_call("update-container", cid, "256")
    stop = background_call("stop-container", cid, "30")
    t0 = time.time()
    status = Ctx.ctd._run_driver(["status-container", cid], timeout=10)
    log("  ContainerStatus of the stuck pod's container: exit %d in %.2fs: %s" % (
        status.returncode, time.time() - t0, (status.stdout or status.stderr).strip()[:80]))
    time.sleep(0.5)
    assert update.poll() is None and stop.poll() is None, "the mutating calls should wait on the frozen shim"
    listing = Ctx.ctd._run_driver(["list"], timeout=5)
    log("  a list of our own while UpdateContainerResources waits: exit %d (%s)" % (
        listing.returncode, (listing.stderr or "answered").strip()[:60]))
    if containerd_fixture.major_version() >= 2:
        # containerd 2.x runs NRI by default, and its UpdateContainerResources
        # first describes the container to NRI (internal/cri/nri nriContainer:
        # Task(), the frozen shim's State) before it takes the container's
        # status lock (Status.UpdateSync); 1.6 took the lock, then called the
        # shim. So here the call waits on the shim without the lock and the
        # lists keep answering: no chain to a list hang, no runtime_hung, and
        # shim_hung still names the pod.
        assert listing.returncode == 0, "containerd 2.x: the list should answer: %s" % listing.stderr

        # Held for 10 s (> 3x --hang-threshold).
        rep = shim_hung_held_without_runtime_hung(report)
        top = rep["causes"][0]
        log("  causes: %s" % [(c["id"], c["confidence"]) for c in rep["causes"]])
        log("  top cause: %s" % top["summary"])
        assert pod_name("web-0") in top["summary"], top["summary"]
        for other in ("api-1", "db-2", "zombies-0"):
            assert pod_name(other) not in top["summary"], "a healthy pod named: %s" % top["summary"]
        return

    def chain():
        rep = report()
        return rep["causes"] and rep["causes"][0]["id"] == "shim_hung" and cause(rep, "runtime_hung") and \
            "every list waits" in rep["causes"][0]["summary"] and rep
    rep = wait_until(chain, 40, "shim_hung first with the chain, runtime_hung below it")
    top, hung = rep["causes"][0], cause(rep, "runtime_hung")
    log("  causes: %s" % [(c["id"], c["confidence"]) for c in rep["causes"]])
    log("  summary: %s" % rep["summary"])
    log("  top cause: %s" % top["summary"])
    assert pod_name("web-0") in top["summary"], top["summary"]
    for other in ("api-1", "db-2", "zombies-0"):
        assert pod_name(other) not in top["summary"], "a healthy pod named: %s" % top["summary"]
    assert "Restarting the runtime would not fix it" in top["summary"], top["summary"]
    assert "restart the runtime" not in rep["summary"], rep["summary"]
    assert hung["confidence"] < top["confidence"], (hung, top)
    assert "shim_hung" in hung["summary"], hung["summary"]
    metrics_up = [e for e in top["evidence"] if e["signal"] == "runtime_metrics_up"]
    reachable = rep["runtime_metrics"]["reachable"]
    log("  containerd's metrics page reachable: %s; evidence %s" % (reachable, metrics_up))
    if not reachable:
        assert metrics_up and "metrics page does not answer either" in top["summary"], top


def test_thawed_everything_recovers():
    start_agent()
    thaw()
    Ctx.wait_calls(log)
    rep = Ctx.wait_recovered(log)


def test_runtime_pids_cgroup_at_its_limit():
    ctd = start_agent()
    Ctx.limit_pids(ctd.proc.pid, "plegscope-e2e-rt-%s" % ctd.name, log)
    rep, c = Ctx.wait_cause("pid_exhaustion", lambda rep, c: "runtime" in c["summary"],
                            20, "pid_exhaustion naming the runtime's cgroup")
    log("  cause: %s" % c["summary"])
    limits = [l for l in rep["host"]["pid_limits"] if l["scope"] == "runtime"]
    assert limits and limits[0]["current"] >= limits[0]["max"] * 0.9, limits
    release_pids()


def release_pids():
    Ctx.release_pids(log)


def teardown():
    try:
        thaw()
    except AssertionError as e:
        log("  %s" % e)
    Ctx.end_calls()
    release_pids()
    Ctx.stop_agent()
    Ctx.end_runtime("ctd")


if __name__ == "__main__":
    Ctx.run(globals(), teardown)
