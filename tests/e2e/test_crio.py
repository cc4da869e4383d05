#!/usr/bin/env python3
"""plegscope beside a real CRI-O (tests/e2e/crio_fixture.py): CRI-O 1.36
built from its Go module with crun built from Debian's source (1.34 with
Debian's runc on the matrix row, env PLEGSCOPE_CRIO), Debian's conmon, locally
built images.

  * the agent reads CRI-O's Version (its runtime name selects the words) and
    CRI-O's own metrics page;
  * relists at 0 and at 110 containers (10 pods of 11), counted as CRI-O
    lists them;
  * churn: containers stopped and started again, each change seen as a PLEG
    event;
  * a container that never reaps leaves zombies under its init, whose parent
    is the container's conmon: the pod is named through conmon's command line;
  * one container's conmon frozen in the kernel (cgroup v1 freezer): named
    with its pod, in CRI-O's words (conmon, no containerd, no shim), a risk
    and not a list hang, since CRI-O's ListContainers takes no lock;
  * CRI-O's own pids cgroup at its limit: no new pod, pid_exhaustion in
    CRI-O's words, recovery once released;
  * a container whose conmon was killed: CRI-O keeps saying "running", and
    the agent names it (shim_lost) with its pod, from CRI-O's own pages.

The hang, the restart during it and the recovery are test_crio_hang.py.
Exit 77 (skip) only when this machine cannot run CRI-O, never under CI."""

import json
import os
import signal
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cgroups  # noqa: E402
import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
from e2e_context import E2eContext, cause, skip_if  # noqa: E402  (tests/lib)
import oci_image  # noqa: E402
from containerd_fixture import _processes as base_processes  # noqa: E402
import crio_fixture  # noqa: E402
from crio_fixture import Crio, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, Agent, EventWatcher, log, metric, wait_until  # noqa: E402

HANG = 3  # --hang-threshold, seconds
NAMESPACE = "plegscope-e2e"
PODS, PER_POD = 10, 11  # 110 containers
# Words that must not appear on a CRI-O node: containerd's processes and tools.
CONTAINERD_WORDS = ("containerd", "shim", "ctr ", "status lock")


Ctx = E2eContext(crio=None, freezer=None)  # pods: name -> (uid, sandbox id, [container ids])
report = Ctx.report


def setup():
    if Ctx.crio is not None:
        return Ctx.crio
    skip_if(skip_reason(), "CRI-O e2e cannot run on this machine: ")
    for exe in ("plegscope", "cri-driver"):
        assert os.access(os.path.join(BUILD_DIR, exe), os.X_OK), "%s/%s not built" % (BUILD_DIR, exe)
    Ctx.crio = Crio(BUILD_DIR)
    Ctx.crio.load_images()
    Ctx.crio.start()
    log("  CRI-O: %s on %s, images %s; bed %s" % (Ctx.crio.driver("version"), Ctx.crio.endpoint, Ctx.crio.images(),
                                                 crio_fixture.bed_description(Ctx.crio.crio_bed)))
    return Ctx.crio


def start_agent():
    crio = setup()
    Ctx.stop_agent()
    flags = ["--relist-period", "1s", "--hang-threshold", "%ds" % HANG, "--host-scan-interval", "1s",
             "--proc-path", "/proc", "--sys-path", "/sys", "--runtime-metrics-endpoint", crio.metrics_url]
    Ctx.agent = Agent(crio.endpoint, flags, log_level="info").__enter__()
    wait_until(lambda: Ctx.agent.get("/healthz")[0] == 200, 20, "a first relist (/healthz 200)")
    return crio


def run_pod(name, *workload_args, containers=1):
    crio = Ctx.crio
    uid = str(uuid.uuid4())
    sid = crio.driver("run-pod", name, uid)
    cids = []
    for i in range(containers):
        cid = crio.driver("create-container", sid, "app-%d" % i if containers > 1 else "app",
                          oci_image.WORKLOAD_IMAGE, "/workload", *workload_args)
        crio.driver("start-container", cid)
        cids.append(cid)
    Ctx.pods[name] = (uid, sid, cids)
    return uid, sid, cids


def running(m):
    return metric(m, "pleg_running_containers", container_state="running") or 0


def assert_crio_words(c):
    for field in ("summary", "remedy"):
        for w in CONTAINERD_WORDS:
            assert w not in c[field], "%r in %s's %s on a CRI-O node: %s" % (w, c["id"], field, c[field])


# ---------------------------------------------------------------------------
def test_the_agent_reads_crio_and_its_metrics_page():
    start_agent()
    # Version is read within a second of the first good relist.
    rep = wait_until(lambda: report()["runtime"]["name"] and report(), 10, "the runtime's name from Version")
    log("  /diagnose runtime: %s %s on %s" % (rep["runtime"]["name"], rep["runtime"]["version"],
                                              rep["runtime"]["endpoint"]))
    assert rep["runtime"]["name"] == "cri-o", rep["runtime"]
    want = crio_fixture.bed().crio_version.lstrip("v")
    assert rep["runtime"]["version"] == want, (rep["runtime"], want)
    rm = wait_until(lambda: report()["runtime_metrics"].get("reachable") and report()["runtime_metrics"], 20,
                    "CRI-O's metrics page read by the agent")
    log("  runtime metrics: %s" % {k: rm[k] for k in rm if k in ("reachable", "kind", "endpoint")})


def test_relist_at_zero_and_110_containers():
    start_agent()
    m = Ctx.agent.metrics()
    assert running(m) == 0, "a fresh CRI-O has no containers: %s" % running(m)
    log("  0 containers: /healthz 200, relists %s" % metric(m, "pleg_relist_duration_seconds_count"))
    for p in range(PODS):
        run_pod("fleet-%d" % p, "-1", containers=PER_POD)
    n = PODS * PER_POD
    listed = len([c for c in Ctx.crio.list()["containers"] if c["state"] == "running"])
    assert listed == n, "CRI-O lists %d running containers, want %d" % (listed, n)
    wait_until(lambda: running(Ctx.agent.metrics()) == n, 30, "the agent counting %d running containers" % n)
    assert Ctx.agent.get("/healthz")[0] == 200
    rep = report()
    log("  %d containers: relist p50 %.4fs p99 %.4fs, list_containers p99 %.4fs" % (
        n, rep["relist"]["duration_p50_seconds"], rep["relist"]["duration_p99_seconds"],
        rep["runtime"]["operations"]["list_containers"]["p99_seconds"]))
    assert rep["pods"]["containers"] == n, rep["pods"]
    assert rep["status"] == "healthy", [c["id"] for c in rep["causes"]]
    assert len(Ctx.crio.conmon_pids()) == n, "one conmon per container: %d" % len(Ctx.crio.conmon_pids())


def test_churn_each_change_is_an_event():
    start_agent()
    watcher = EventWatcher(Ctx.agent).start()
    try:
        _, _, cids = Ctx.pods["fleet-0"]
        for cid in cids[:5]:
            Ctx.crio.driver("stop-container", cid, "5")
        for cid in cids[:5]:
            watcher.wait_for("ContainerDied", cid, 20)
        log("  5 containers stopped: ContainerDied seen for each")
        for cid in cids[:5]:
            Ctx.crio.driver("remove-container", cid)
            watcher.wait_for("ContainerRemoved", cid, 20)
        log("  5 removed: ContainerRemoved seen for each")
        _, sid, _ = Ctx.pods["fleet-0"]
        fresh = []
        for i in range(5):
            cid = Ctx.crio.driver("create-container", sid, "again-%d" % i, oci_image.WORKLOAD_IMAGE, "/workload")
            Ctx.crio.driver("start-container", cid)
            fresh.append(cid)
        for cid in fresh:
            watcher.wait_for("ContainerStarted", cid, 20)
        log("  5 new ones started: ContainerStarted seen for each")
    finally:
        watcher.stop()
    assert Ctx.agent.get("/healthz")[0] == 200


def test_zombies_under_conmon_named_with_their_pod():
    start_agent()
    _, sid, (cid,) = run_pod("zombies-0", "-1", "0", "150")
    conmon = Ctx.crio.conmon_of(cid)
    name = [n for p, c, n in Ctx.crio.conmon_pids() if c == cid][0]
    log("  zombies-0's conmon pid %d -n %s" % (conmon, name))
    assert "_zombies-0_%s_" % NAMESPACE in name, name

    def named():
        rep = report()
        c = cause(rep, "defunct_processes")
        parents = rep["host"]["processes"]["zombie_parents"]
        return c and parents and parents[0]["pod"] == "%s/zombies-0" % NAMESPACE and (rep, c)
    rep, c = wait_until(named, 30, "defunct_processes naming pod zombies-0")
    z = rep["host"]["processes"]["zombie_parents"][0]
    log("  %d zombies under pid %d (%s), found by %s; cause: %s" % (
        z["count"], z["pid"], z["comm"], z["found_by"], c["summary"]))
    assert z["count"] >= 150 and z["found_by"] == "ancestry", z
    assert z["sandbox_id"] == sid, (z, sid)
    assert_crio_words(c)
    assert "conmon" in c["remedy"], c["remedy"]


def test_frozen_conmon_is_named_in_crio_words():
    start_agent()
    _, _, (cid,) = run_pod("web-0", "-1")
    pid = Ctx.crio.conmon_of(cid)
    Ctx.freezer = cgroups.freeze(pid, Ctx.crio.name)
    log("  froze web-0's conmon pid %d" % pid)

    rep, c = Ctx.wait_cause("shim_hung", lambda rep, c: "%s/web-0" % NAMESPACE in c["summary"],
                            20 + HANG, "shim_hung naming pod web-0")
    log("  status %s; cause: %s" % (rep["status"], c["summary"]))
    assert_crio_words(c)
    assert "conmon" in c["summary"], c["summary"]
    assert not cause(rep, "runtime_hung"), "a frozen conmon does not hang CRI-O's lists: %s" % rep["summary"]
    t = Ctx.crio._run_driver(["list"], timeout=5)
    assert t.returncode == 0, "CRI-O's lists answer beside a frozen conmon: %s" % t.stderr
    cgroups.thaw(Ctx.freezer)
    Ctx.freezer = None
    wait_until(lambda: not cause(report(), "shim_hung"), 20, "shim_hung gone once conmon is thawed")


def test_a_container_whose_conmon_died_stays_running():
    """CRI-O learns a container's exit only from the exit file its conmon
    writes: with conmon killed first, CRI-O keeps saying "running", and the
    agent, which reads CRI-O, sees no exit either."""
    start_agent()
    watcher = EventWatcher(Ctx.agent).start()
    try:
        _, _, (cid,) = run_pod("orphan-0", "-1")
        watcher.wait_for("ContainerStarted", cid, 20)
        conmon = Ctx.crio.conmon_of(cid)
        os.kill(conmon, signal.SIGKILL)
        Ctx.crio.kill_container_process(cid, signal.SIGKILL)
        wait_until(lambda: not Ctx.crio.container_pids(cid), 10, "orphan-0's processes gone")
        relists = metric(Ctx.agent.metrics(), "pleg_relist_duration_seconds_count")
        wait_until(lambda: metric(Ctx.agent.metrics(), "pleg_relist_duration_seconds_count") >= relists + 3, 20,
                   "three relists after the kill")
        st = Ctx.crio.container_status(cid)
        log("  conmon %d and the container's processes killed; CRI-O says: %s" % (conmon, st))
        assert st["state"] == "running", "CRI-O learns an exit only from conmon's exit file: %s" % st
        assert not os.path.exists(os.path.join(Ctx.crio.exits_dir, cid)), "no exit file without conmon"
        log("  the agent's events for it: %s" % watcher.types_for(cid))
        assert "ContainerDied" not in watcher.types_for(cid), watcher.types_for(cid)

        # The agent names it: no conmon names the container while CRI-O's
        # /containers/<id> page still holds it (two reads, 10 s apart), and
        # CRI-O's own containers_stopped_monitor_count when it counted it.
        rep, c = Ctx.wait_cause("shim_lost", lambda rep, c: "%s/orphan-0" % NAMESPACE in c["summary"],
                                40, "shim_lost naming pod orphan-0")
        log("  shim_lost (%s, %.2f, %s): %s" % (c["severity"], c["confidence"], c["advice"], c["summary"]))
        log("  evidence: %s" % [(e["signal"], e["value"]) for e in c["evidence"]])
        assert_crio_words(c)
        assert "conmon" in c["summary"] and "is gone" in c["summary"], c["summary"]
        assert c["advice"] == "fix-pod", c["advice"]
        signals = [e["signal"] for e in c["evidence"]]
        assert any(s.startswith("init_process_alive{container=%s" % cid[:12]) for s in signals), signals
    finally:
        watcher.stop()


def crio_page(*args):
    import subprocess
    return subprocess.run([os.path.join(BUILD_DIR, "crio-page"), Ctx.crio.sock] + list(args),
                          capture_output=True, text=True, timeout=30)


def test_crios_read_only_pages():
    """/info and /containers/<id> on crio.sock through the agent's reader;
    a path toward the pages that act is refused before any connection."""
    setup()
    r = crio_page("info")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    log("  /info: %s" % info)
    assert info["storage_driver"] == Ctx.crio.storage_driver, info
    _, sid, (cid,) = Ctx.pods["web-0"]
    r = crio_page("container", cid)
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)
    log("  /containers/%s: pid %d sandbox %s" % (cid[:12], c["pid"], c["sandbox"][:12]))
    assert c["sandbox"] == sid and c["pid"] in Ctx.crio.container_pids(cid), (c, Ctx.crio.container_pids(cid))
    assert c["labels"].get("io.kubernetes.pod.name") in (None, "web-0"), c["labels"]
    for bad in ("../pause/" + cid, cid + "/../../unpause/" + cid, "../debug/heap"):
        r = crio_page("container", bad)
        assert r.returncode == 2 and "not a container id" in r.stderr, (bad, r.returncode, r.stderr)
    paused = Ctx.crio.container_status(cid)
    assert paused["state"] == "running", paused
    # The goroutine dump: read from CRI-O only when a person asks the agent,
    # at most once every 10 s.
    start_agent()
    code, body = Ctx.agent.get("/debug/runtime-goroutines", timeout=15)
    text = body.decode(errors="replace") if isinstance(body, bytes) else body
    log("  /debug/runtime-goroutines: HTTP %d, %d bytes, %d goroutines" % (code, len(text), text.count("goroutine ")))
    assert code == 200 and "goroutine " in text, (code, text[:200])
    again = Ctx.agent.get("/debug/runtime-goroutines", timeout=15)[0]
    assert again == 429, "a second read within 10 s: HTTP %d" % again


def release_pids():
    """CRI-O back into the root pids cgroup, and ours removed."""
    Ctx.release_pids()


def test_crios_pids_cgroup_at_its_limit_and_recovery():
    """CRI-O's own pids cgroup at pids.max: it cannot fork the pinns, conmon
    and runc a new pod needs, and the agent names the runtime's limit in
    CRI-O's words; once released, a pod runs again and the cause clears.
    (A single pod's pids.max is not read on a cgroup v1 host, which this is:
    the agent reads the runtime's, kubepods' and the node's limits there, a
    pod's own only from cgroup v2's pids.events.)"""
    crio = start_agent()
    try:
        Ctx.limit_pids(crio.proc.pid, "plegscope-e2e-crio-rt-%s" % crio.name, log)
        rep, c = Ctx.wait_cause("pid_exhaustion", lambda rep, c: "runtime" in c["summary"],
                                20, "pid_exhaustion naming CRI-O's cgroup")
        log("  cause (%s, %s): %s" % (c["severity"], c["advice"], c["summary"]))
        assert_crio_words(c)
        limits = [l for l in rep["host"]["pid_limits"] if l["scope"] == "runtime"]
        assert limits and limits[0]["current"] >= limits[0]["max"] * 0.9, limits
        r = crio._run_driver(["run-pod", "pids-0", str(uuid.uuid4())], timeout=15)
        log("  a new pod at the limit: exit %d %s" % (r.returncode, (r.stderr or "").strip()[:160]))
        assert r.returncode != 0, "CRI-O ran a pod with no pid to spare: %s" % r.stdout
    finally:
        release_pids()
    sid = crio.driver("run-pod", "pids-1", str(uuid.uuid4()))
    wait_until(lambda: not cause(report(), "pid_exhaustion"), 20, "pid_exhaustion gone once released")
    log("  released: pod %s runs, pid_exhaustion gone" % sid[:12])


def test_zz_teardown_leaves_nothing():
    """No process (conmon, crio, container), mount, cgroup or file of the
    private CRI-O is left after its cleanup."""
    crio = Ctx.crio
    if crio is None:
        raise harness.Skip("CRI-O was not started")
    Ctx.crio = None
    before = cgroups.dirs(crio.cgroup_parent)
    assert before, "no cgroup under %s: the containers' cgroups are not where the test looks" % crio.cgroup_parent
    crio.cleanup()
    left = [pid for pid, argv in base_processes() if any(crio.tmp.encode() in a for a in argv)]
    assert not left, "processes left: %s" % left
    assert not crio.container_pids(), "container processes left: %s" % crio.container_pids()
    assert not Crio._mounts_under(crio.tmp), "mounts left: %s" % Crio._mounts_under(crio.tmp)
    assert not cgroups.dirs(crio.cgroup_parent), "cgroups left: %s" % cgroups.dirs(crio.cgroup_parent)
    assert not os.path.exists(crio.tmp), "%s left" % crio.tmp
    log("  nothing left: no process, mount, cgroup or file of the private CRI-O (%d cgroups before)" % len(before))


def teardown():
    release_pids()
    if Ctx.freezer:
        try:
            cgroups.thaw(Ctx.freezer)
        except AssertionError as e:
            log("  %s" % e)
    Ctx.stop_agent()
    Ctx.end_runtime("crio")


if __name__ == "__main__":
    Ctx.run(globals(), teardown)
