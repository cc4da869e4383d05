"""Host evidence end to end: the agent on the fake runtime, its --proc-path and
--sys-path pointed at the host fixture trees (tests/fixtures/host/<case>,
CLK_TCK 100), names each host cause from its measurement, names none on the
no-alarm tree, and names the pod behind a hung per-pod call."""

import contextlib
import os
import shutil
import tempfile

import harness
from harness import Agent, FakeCri, wait_until

from diag_common import check_cause_shape, describe, report

HOST_CAUSES = ("shim_hung", "defunct_processes", "pid_exhaustion", "runtime_disk_slow")
SANDBOX = "5f1c2a9e8b7d4c3f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071"


def tree(case):
    return os.path.join(harness.source_dir(), "tests", "fixtures", "host", case)


def host_flags(root, hang="2s", interval="1s", diskstats=False):
    flags = ["--sys-path", os.path.join(root, "sys"), "--host-clock-ticks", "100", "--hang-threshold", hang,
             "--host-scan-interval", interval, "--node-name", "worker-3"]
    if diskstats:
        flags += ["--host-diskstats-before", os.path.join(root, "diskstats.before")]
    return flags


@contextlib.contextmanager
def agent_on(fake, root, **kw):
    """The agent on the fake runtime and a copy of the tree ROOT whose shims
    name the fake runtime's socket, as the shims of a watched runtime do."""
    with harness.host_tree_served_by(root, fake.endpoint) as served, \
            Agent(fake.endpoint, host_flags(served, **kw), proc_path=os.path.join(served, "proc"),
                  log_level="info") as agent:
        yield agent


def named(agent, cause, timeout=30):
    last = {}

    def found():
        rep = report(agent)
        last["rep"] = rep
        return rep if any(c["id"] == cause for c in rep["causes"]) else None

    try:
        return wait_until(found, timeout, "%s to be named" % cause, interval=0.25)
    except AssertionError as e:
        raise AssertionError("%s; last report: %s" % (e, describe(last["rep"]) if "rep" in last else "none"))


def cause(rep, cause_id):
    return next(c for c in rep["causes"] if c["id"] == cause_id)


def first_scan(agent):
    return wait_until(lambda: report(agent)["host"]["reachable"] and report(agent), 15, "a host scan")


def test_shim_in_d_on_nfs():
    with FakeCri("diag_healthy", log_level="warn") as fake, agent_on(fake, tree("shim_in_d_nfs")) as agent:
        rep = named(agent, "shim_hung")
        c = check_cause_shape(rep, "shim_hung")
        assert rep["causes"][0]["id"] == "shim_hung", describe(rep)
        assert "4242" in c["summary"] and "nfs_wait_bit_killable" in c["summary"], c["summary"]
        assert "remote storage" in c["summary"], c["summary"]
        print("  " + c["summary"])
        assert "sandbox 5f1c2a9e8b7d" in c["summary"], c["summary"]
        blocked = rep["host"]["processes"]["blocked"]
        assert {b["pid"] for b in blocked} == {4242}, blocked
        assert all(b["sandbox_id"] == SANDBOX and b["state"] == "D" for b in blocked), blocked
        assert agent.metrics().get("pleg_host_blocked_processes") == 1


def test_shim_in_d_on_another_wchan():
    """A tree no rule was tuned on: the same shim, waiting in jbd2 (an ext4
    journal commit), and in a pid namespace teardown on its thread."""
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "tree")
        shutil.copytree(tree("shim_in_d_nfs"), root, symlinks=True)
        with open(os.path.join(root, "proc", "4242", "wchan"), "w") as f:
            f.write("jbd2_log_wait_commit")
        with FakeCri("diag_healthy", log_level="warn") as fake, agent_on(fake, root, hang="3s") as agent:
            rep = named(agent, "shim_hung")
            c = cause(rep, "shim_hung")
            assert "jbd2_log_wait_commit" in c["summary"], c["summary"]
            assert "disk or unmount stall" in c["summary"], c["summary"]


def test_zombies_named_with_their_parent():
    with FakeCri("diag_healthy", log_level="warn") as fake, agent_on(fake, tree("zombies_300")) as agent:
        rep = named(agent, "defunct_processes")
        c = check_cause_shape(rep, "defunct_processes")
        assert "303 zombie" in c["summary"] and "pid 5000" in c["summary"], c["summary"]
        parents = rep["host"]["processes"]["zombie_parents"]
        assert parents[0]["pid"] == 5000 and parents[0]["count"] == 300, parents
        assert agent.metrics().get("pleg_host_zombie_processes") == 303


def test_runtime_pid_limit():
    with FakeCri("diag_healthy", log_level="warn") as fake, agent_on(fake, tree("runtime_pids_95")) as agent:
        rep = named(agent, "pid_exhaustion")
        c = check_cause_shape(rep, "pid_exhaustion")
        assert "runtime's pids cgroup" in c["summary"] and "3800 of 4000" in c["summary"], c["summary"]
        assert {"scope": "runtime", "current": 3800, "max": 4000} in rep["host"]["pid_limits"], rep["host"]
        assert abs(agent.metrics().get("pleg_host_pids_usage_ratio", scope="runtime") - 0.95) < 1e-6


def test_slow_disk_behind_slow_status_calls():
    with FakeCri("diag_pod_status_slow", log_level="warn") as fake, \
            agent_on(fake, tree("slow_disk"), interval="1h", diskstats=True) as agent:
        rep = named(agent, "runtime_disk_slow", timeout=40)
        c = check_cause_shape(rep, "runtime_disk_slow")
        assert "sdb" in c["summary"] and "250 ms" in c["summary"], c["summary"]
        assert "behind" in c["summary"], c["summary"]
        print("  " + c["summary"])
        assert any(x["id"] == "pod_status_slow" for x in rep["causes"]), describe(rep)
        assert rep["host"]["runtime_disk"]["device"] == "sdb", rep["host"]
        assert abs(agent.metrics().get("pleg_host_runtime_disk_latency_seconds") - 0.25) < 1e-6


def test_slow_disk_alone_is_no_cause():
    with FakeCri("diag_healthy", log_level="warn") as fake, \
            agent_on(fake, tree("slow_disk"), interval="1h", diskstats=True) as agent:
        rep = first_scan(agent)
        wait_until(lambda: len(report(agent)["timeline"]) >= 5, 20, "five relists")
        rep = report(agent)
        assert rep["host"]["runtime_disk"]["latency_ms"] == 250, rep["host"]
        assert rep["causes"] == [], describe(rep)


def test_no_alarm_tree_names_no_host_cause():
    """20 zombies, the runtime's cgroup at 60 %, a busy (80 %) but fast (3 ms) disk."""
    with FakeCri("diag_healthy", log_level="warn") as fake, \
            agent_on(fake, tree("no_alarm"), interval="1s", diskstats=True) as agent:
        first_scan(agent)
        wait_until(lambda: len(report(agent)["timeline"]) >= 5, 20, "five relists")
        for _ in range(3):
            rep = report(agent)
            assert not [c for c in rep["causes"] if c["id"] in HOST_CAUSES], describe(rep)
            assert rep["host"]["processes"]["zombies"] == 20, rep["host"]
        assert rep["causes"] == [], describe(rep)


def test_hung_status_call_names_its_pod():
    """PodSandboxStatus hangs for every pod; the relist is serial, so the pod
    named must be one the scenario really has (shop/web-<n>), in flight."""
    with FakeCri("diag_stuck_pod", log_level="warn") as fake, \
            Agent(fake.endpoint, ["--hang-threshold", "2s", "--node-name", "worker-3"], log_level="info") as agent:
        rep = named(agent, "runtime_hung")
        c = check_cause_shape(rep, "runtime_hung")
        assert "shop/web-" in c["summary"], c["summary"]
        assert "not the runtime" in c["summary"], c["summary"]
        stuck = [p for p in rep["runtime"]["slowest_pods"] if p["in_flight"]]
        assert stuck, rep["runtime"]
        pod = stuck[0]
        assert pod["pod"] in ["shop/web-%d" % i for i in range(7)], pod
        assert pod["op"] == "podsandbox_status" and pod["sandbox_id"] and pod["uid"], pod
        assert pod["pod"] in c["summary"], (pod, c["summary"])
        print("  " + c["summary"])
        html = agent.get("/diagnose?format=html")[1]
        html = html.decode() if isinstance(html, bytes) else html
        assert 'id="stuck-pod"' in html and pod["pod"] in html.split('id="stuck-pod"')[1][:400], "stuck pod not at top"
        fake.release()


if __name__ == "__main__":
    harness.main(globals())
