#!/usr/bin/env python3
"""The cgroup v2 witness on a real host, the agent run as the DaemonSet runs
it (uid 65532, gid 0, every capability dropped, no_new_privs).

This project's machines mount cgroup v1 per controller and the v2 hierarchy
at /sys/fs/cgroup/unified (hybrid). The agent is started in a private mount
namespace where that v2 hierarchy is bind-mounted over /sys/fs/cgroup, so it
sees the node a current cluster runs: cgroup v2 only. On a private
containerd (tests/e2e/containerd_fixture.py) with real pods:

  * containerd itself is moved into a v2 cgroup of ours: its unit's PSI
    totals give a stall over the interval between two scans, and the pids
    and memory files this host's v2 tree lacks (only hugetlb is free to
    enable there) are "unavailable" with null figures, never 0;
  * kubepods/besteffort/pod<uid>/<container id> is laid out as the cgroupfs
    driver does, api-1's process moved into its container's cgroup and
    db-2's left empty: db-2's container, Running for the runtime with no
    process in its cgroup, is reported as diverging, named by pod;
  * web-0's shim is moved into a v2 cgroup and frozen there (its tasks sleep
    in S, not D): before any call hangs it is shim_hung's risk, named by pod,
    with its frozen cgroup; the kubelet's calls for that pod
    (UpdateContainerResources and StopContainer, which wait on the shim)
    make every list wait: shim_hung first, with the chain, runtime_hung
    below it;
  * thawed, everything recovers. Every cgroup made is removed.

Exit 77 (skip) only when this machine cannot run containers or has no
cgroup2 hierarchy with cgroup.freeze, and under env CI not even then."""

import os
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
NAMESPACE = "plegscope-e2e"
# As the DaemonSet runs the agent: uid 65532, group 0, no capability.
AS_SHIPPED = ["setpriv", "--reuid=65532", "--regid=0", "--clear-groups", "--inh-caps=-all",
              "--bounding-set=-all", "--no-new-privs"]


class V2Agent(Agent):
    """The agent in a mount namespace of its own where /sys/fs/cgroup is the
    host's cgroup2 hierarchy (the namespace, and the bind, end with it)."""

    def command(self):
        return (["unshare", "--mount", "--propagation", "private", "sh", "-c",
                 'mount --bind "$0" /sys/fs/cgroup && exec "$@"', Ctx.root] + AS_SHIPPED + super().command())


Ctx = E2eContext(ctd=None,  # pods: name -> (uid, sandbox id, container id)
                 root=None,  # the host's cgroup2 mount
                 ours=[],  # top-level v2 cgroups made here, removed at the end
                 rt=None,  # containerd's v2 cgroup, relative to the root
                 frozen=None)  # the frozen cgroup holding web-0's shim
report = Ctx.report


def setup():
    if Ctx.ctd is not None:
        return Ctx.ctd
    skip_if(skip_reason(), "containerd e2e cannot run on this machine: ")
    Ctx.root = cgroups.unified_root()
    if not Ctx.root or not os.path.exists(os.path.join(Ctx.root, "cgroup.procs")):
        raise harness.Skip("no cgroup2 hierarchy mounted")
    harness.require_tool("setpriv")
    harness.require_tool("unshare")
    for exe in ("plegscope", "cri-driver"):
        assert os.access(os.path.join(BUILD_DIR, exe), os.X_OK), "%s/%s not built" % (BUILD_DIR, exe)
    ctd = Containerd(BUILD_DIR)
    Ctx.ctd = ctd
    ctd.start()
    for _, tarball in oci_image.build_e2e_images(os.path.join(ctd.tmp, "images")).items():
        ctd.import_image(tarball)
    for name in ("web-0", "api-1", "db-2"):
        uid = str(uuid.uuid4())
        sid = ctd.driver("run-pod", name, uid)
        cid = ctd.driver("create-container", sid, "app", oci_image.WORKLOAD_IMAGE, "/workload")
        ctd.driver("start-container", cid)
        Ctx.pods[name] = (uid, sid, cid)
    # containerd in a unit of ours, as systemd would put it.
    Ctx.rt = "plegscope-e2e-rt-" + ctd.name
    Ctx.ours.append(os.path.join(Ctx.root, Ctx.rt))
    cgroups.v2_move([ctd.proc.pid], Ctx.ours[-1])
    # kubepods as the cgroupfs driver lays it out (it must not exist already).
    kubepods = os.path.join(Ctx.root, "kubepods")
    assert not os.path.exists(kubepods), "%s exists: another run's leftovers?" % kubepods
    Ctx.ours.append(kubepods)
    for name in ("api-1", "db-2"):
        uid, _, cid = Ctx.pods[name]
        d = os.path.join(kubepods, "besteffort", "pod" + uid, cid)
        os.makedirs(d)
        if name == "api-1":
            cgroups.v2_move(cgroups.pids(ctd.cgroup_parent, cid), d)
    log("  containerd %s on %s; v2 root %s" % (ctd.driver("version"), ctd.endpoint, Ctx.root))
    return ctd


def start_agent():
    ctd = setup()
    flags = ["--relist-period", "1s", "--hang-threshold", "%ds" % HANG, "--host-scan-interval", "1s",
             "--proc-path", "/proc", "--sys-path", "/sys", "--runtime-metrics-endpoint", ctd.metrics_url]
    Ctx.agent = V2Agent(ctd.endpoint, flags, log_level="info").__enter__()
    status = open("/proc/%d/status" % Ctx.agent.proc.pid).read()
    ids = [l.split()[1] for l in status.splitlines() if l.startswith(("Uid:", "Gid:"))]
    caps = [l.split()[1] for l in status.splitlines() if l.startswith(("CapEff:", "CapPrm:"))]
    log("  plegscope pid %d: uid %s gid %s, CapPrm/CapEff %s" % (Ctx.agent.proc.pid, ids[0], ids[1], "/".join(caps)))
    assert ids == ["65532", "0"] and caps == ["0000000000000000", "0000000000000000"], (ids, caps)
    wait_until(lambda: Ctx.agent.get("/healthz")[0] == 200, 30, "a first relist (/healthz 200)")
    return ctd


def pod_name(name):
    return "%s/%s" % (NAMESPACE, name)


def background_call(*args):
    return Ctx.background_call(Ctx.ctd, *args)


# ---------------------------------------------------------------------------
def test_the_runtimes_unit_and_the_pods_as_v2_shows_them():
    start_agent()

    def seen():
        v2 = report()["host"].get("cgroup_v2")
        if not v2 or v2["mode"] != "unified" or v2["driver"] != "cgroupfs":
            return None
        rt = next((u for u in v2["units"] if u["role"] == "runtime"), None)
        stalls = rt and [p for p in rt["pressure"] if p["interval_seconds"] > 0]
        return stalls and v2["divergences"] and (v2, rt)
    v2, rt = wait_until(seen, 30, "the v2 view: containerd's unit with a PSI delta, a divergence")
    log("  runtime unit: %s" % {k: rt[k] for k in ("path", "owner", "populated", "frozen", "pids_current",
                                                     "memory_oom_kill", "unavailable", "pressure")})
    assert rt["path"] == Ctx.rt and rt["owner"] == "containerd", rt
    assert rt["populated"] is True and rt["frozen"] is False, rt
    for f in ("pids.current", "pids.events", "memory.events"):
        assert f in rt["unavailable"], (f, rt["unavailable"])
    assert rt["pids_current"] is None and rt["memory_oom_kill"] is None, "unavailable must be null, not 0: %r" % rt
    assert {p["resource"] for p in rt["pressure"]} == {"cpu", "io", "memory"}, rt["pressure"]
    log("  %d pods, %d containers read; divergences: %s" % (v2["pods_read"], v2["containers"], v2["divergences"]))
    assert v2["pods_read"] == 2 and v2["containers"] == 2, v2
    d = v2["divergences"]
    assert len(d) == 1 and d[0]["kind"] == "running_without_process", d
    assert d[0]["container_id"] == Ctx.pods["db-2"][2] and d[0]["pod"] == pod_name("db-2"), d


def test_frozen_shim_before_any_hang_is_a_risk_named_by_pod():
    start_agent()
    sid = Ctx.pods["web-0"][1]
    pid = next(p for p, _, s in Ctx.ctd.shim_pids() if s == sid)
    Ctx.frozen = os.path.join(Ctx.root, "plegscope-e2e-freeze-" + Ctx.ctd.name)
    Ctx.ours.append(Ctx.frozen)
    cgroups.v2_move([pid], Ctx.frozen)
    cgroups.v2_freeze(Ctx.frozen)
    state = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]
    log("  froze web-0's shim pid %d in %s: state %s, wchan as root %r" % (
        pid, Ctx.frozen, state, open("/proc/%d/wchan" % pid).read()))
    assert state == "S", "a v2-frozen task sleeps in S: %s" % state

    rep, c = Ctx.wait_cause("shim_hung", lambda rep, c: "no call hangs yet" in c["summary"],
                            15 + HANG, "shim_hung as a risk before any call hangs")
    log("  status %s; cause: %s" % (rep["status"], c["summary"]))
    assert pod_name("web-0") in c["summary"] and os.path.basename(Ctx.frozen) in c["summary"], c["summary"]
    blocked = [b for b in rep["host"]["processes"]["blocked"] if b["pid"] == pid]
    assert len(blocked) == 1 and blocked[0]["state"] == "S", blocked
    assert blocked[0]["frozen_cgroup"] == os.path.basename(Ctx.frozen) and blocked[0]["pod"] == pod_name("web-0"), \
        blocked
    assert any(e["signal"].startswith("seconds_frozen{pid=%d" % pid) for e in c["evidence"]), c["evidence"]


def test_the_kubelets_calls_on_the_frozen_pod_rank_it_first_with_the_chain():
    start_agent()
    assert Ctx.frozen, "the shim is frozen by the previous step"
    cid = Ctx.pods["web-0"][2]
    update = background_call("update-container", cid, "256")
    stop = background_call("stop-container", cid, "30")
    if containerd_fixture.major_version() >= 2:
        # containerd 2.x runs NRI by default, and its UpdateContainerResources
        # first describes the container to NRI (internal/cri/nri nriContainer:
        # Task(), the frozen shim's State) before it takes the container's
        # status lock; 1.6 took the lock, then called the shim. So the calls
        # wait on the shim without the lock and the lists keep answering: no
        # chain, no runtime_hung; shim_hung names the pod and its frozen cgroup.
        # Held for 10 s (> 3x --hang-threshold).
        rep = shim_hung_held_without_runtime_hung(report)
        top = rep["causes"][0]
        log("  causes: %s" % [(c["id"], c["confidence"]) for c in rep["causes"]])
        log("  top cause: %s" % top["summary"])
        assert pod_name("web-0") in top["summary"], top["summary"]
        for other in ("api-1", "db-2"):
            assert pod_name(other) not in top["summary"], "a healthy pod named: %s" % top["summary"]
        assert os.path.basename(Ctx.frozen) in top["summary"], top["summary"]
        return

    def chain():
        rep = report()
        return rep["causes"] and rep["causes"][0]["id"] == "shim_hung" and cause(rep, "runtime_hung") and \
            "every list waits" in rep["causes"][0]["summary"] and rep
    rep = wait_until(chain, 40, "shim_hung first with the chain, runtime_hung below it")
    assert update.poll() is None and stop.poll() is None, "the calls should wait on the frozen shim"
    top, hung = rep["causes"][0], cause(rep, "runtime_hung")
    log("  causes: %s" % [(c["id"], c["confidence"]) for c in rep["causes"]])
    log("  top cause: %s" % top["summary"])
    log("  report summary: %s" % rep["summary"])
    assert pod_name("web-0") in top["summary"], top["summary"]
    for other in ("api-1", "db-2"):
        assert pod_name(other) not in top["summary"], "a healthy pod named: %s" % top["summary"]
    assert "frozen" in top["summary"] and "cgroup.freeze" in rep["summary"], (top, rep["summary"])
    assert hung["confidence"] < top["confidence"] and "shim_hung" in hung["summary"], hung


def test_thawed_everything_recovers():
    with open(os.path.join(Ctx.frozen, "cgroup.freeze"), "w") as f:
        f.write("0")
    start_agent()
    Ctx.wait_calls(log)
    rep = Ctx.wait_recovered(log)
    # (the daemon's own threads may pass through D for an instant: not ours to judge here)
    frozen = [b for b in rep["host"]["processes"]["blocked"] if b.get("frozen_cgroup")]
    assert not frozen, frozen


def teardown():
    Ctx.end_calls()
    Ctx.stop_agent()
    for d in reversed(Ctx.ours):
        try:
            cgroups.v2_remove(d, Ctx.root)
        except (AssertionError, OSError) as e:
            log("  could not remove %s: %s" % (d, e))
    Ctx.ours = []
    Ctx.end_runtime("ctd")


if __name__ == "__main__":
    Ctx.run(globals(), teardown)
