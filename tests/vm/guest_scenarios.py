#!/usr/bin/python3
"""The cgroup v2 witness's scenarios, run INSIDE the test bed's VM as root
(tests/vm/test_vm.py puts this file on the payload disk, /opt/plegscope, and
runs it through the guest's door). Every time here is the guest's own clock:
emulation is ~15x slower than the host, so times are compared only with
each other (ratios inside the VM), never with the host's.

  guest_scenarios.py setup          images imported, the agent started as the
                                     DaemonSet runs it; prints JSON
  guest_scenarios.py SCENARIO ...   runs each, prints one JSON line per scenario:
                                     {"scenario", "ok", "seconds_to_name",
                                      "excerpt", "notes", "error"}

The node is laid out as the kubelet's systemd cgroup driver lays it out:
pods get CgroupParent kubepods-<qos>-pod<uid with _>.slice, so runc (through
systemd, over dbus) makes kubepods.slice/kubepods-burstable.slice/
kubepods-burstable-pod<uid>.slice/cri-containerd-<id>.scope; limits are set
on the pod's slice with `systemctl set-property --runtime` (TasksMax,
MemoryMax), as the kubelet sets them through systemd."""

import json
import os
import signal
import subprocess
import sys
import time
import traceback
import urllib.request
import uuid

PL = "/opt/plegscope"
ENDPOINT = "unix:///run/containerd/containerd.sock"
AGENT_PORT = 9300
AGENT_UNIT = "plegscope-agent"
NAMESPACE = "plegscope-vm"
PAUSE = "localhost/plegscope-e2e/pause:1"
WORKLOAD = "localhost/plegscope-e2e/workload:1"
STRESS = "localhost/plegscope-vm/stress:1"
CGROOT = "/sys/fs/cgroup"
HANG = 5  # --hang-threshold, seconds
POLL = 0.5


def log(msg):
    print("  " + msg, file=sys.stderr, flush=True)


def sh(*argv, timeout=120, check=True, env=None):
    r = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, env=env)
    if check and r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv), r.returncode, (r.stderr or r.stdout).strip()))
    return r.stdout.strip()


def wait_until(fn, timeout, what, interval=POLL):
    t_end = time.monotonic() + timeout
    last = None
    while True:
        try:
            v = fn()
            if v:
                return v
        except Exception as e:  # noqa: BLE001 - retried until the deadline
            last = e
        if time.monotonic() > t_end:
            raise AssertionError("timed out after %ss waiting for %s%s" % (timeout, what,
                                                                          " (last error: %r)" % last if last else ""))
        time.sleep(interval)


# -- CRI as the kubelet drives it ---------------------------------------------
def driver(*args, parent=None, timeout=120):
    env = dict(os.environ, LD_LIBRARY_PATH=PL + "/lib")
    if parent:
        env["CRI_CGROUP_PARENT"] = parent
    return sh(PL + "/bin/cri-driver", "--endpoint", ENDPOINT, "--timeout", str(timeout), *args,
              timeout=timeout + 10, env=env)


def background(*args, timeout=600):
    env = dict(os.environ, LD_LIBRARY_PATH=PL + "/lib")
    return subprocess.Popen([PL + "/bin/cri-driver", "--endpoint", ENDPOINT, "--timeout", str(timeout)] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def pod_slice(uid, qos="burstable"):
    return "kubepods-%s-pod%s.slice" % (qos, uid.replace("-", "_"))


def pod_slice_path(uid, qos="burstable"):
    return "%s/kubepods.slice/kubepods-%s.slice/%s" % (CGROOT, qos, pod_slice(uid, qos))


class Pod:
    def __init__(self, name, qos="burstable"):
        self.name = name
        self.full = "%s/%s" % (NAMESPACE, name)
        self.uid = str(uuid.uuid4())
        self.qos = qos
        self.slice = pod_slice(self.uid, qos)
        self.sid = driver("run-pod", name, self.uid, NAMESPACE, parent=self.slice)
        self.cids = []

    def container(self, name, image, *cmd, start=True):
        # The sandbox config the kubelet sends with CreateContainer carries the
        # pod's cgroup parent too: containerd takes the container's from it.
        cid = driver("create-container", self.sid, name, image, *cmd, parent=self.slice)
        if start:
            driver("start-container", cid)
        self.cids.append(cid)
        return cid

    def cgroup(self):
        return pod_slice_path(self.uid, self.qos)

    def scope(self, cid):
        return "%s/cri-containerd-%s.scope" % (self.cgroup(), cid)

    def remove(self):
        try:
            driver("stop-pod", self.sid, timeout=60)
            driver("remove-pod", self.sid, timeout=60)
        except Exception as e:  # noqa: BLE001
            log("remove %s: %s" % (self.name, e))


# -- the agent ------------------------------------------------------------------
def agent_flags():
    return ["--container-runtime-endpoint", ENDPOINT, "--listen-address", "127.0.0.1:%d" % AGENT_PORT,
            "--log-level", "info", "--proc-path", "/host/proc", "--sys-path", "/host/sys",
            "--relist-period", "1s", "--hang-threshold", "%ds" % HANG, "--host-scan-interval", "1s"]


def start_agent():
    """The agent as the DaemonSet runs it: uid 65532, gid 0, no capability
    (bounding, ambient, inheritable all empty), no_new_privs, the node's
    /proc and /sys read-only at /host/proc and /host/sys. A transient unit of
    its own (systemd-run talks to PID 1 on its private socket, not dbus)."""
    sh("systemctl", "reset-failed", AGENT_UNIT + ".service", check=False)
    sh("systemd-run", "--unit", AGENT_UNIT, "--slice", "plegscope-test.slice", "--collect",
       "-p", "User=65532", "-p", "Group=0", "-p", "NoNewPrivileges=yes", "-p", "CapabilityBoundingSet=",
       "-p", "AmbientCapabilities=", "-p", "SupplementaryGroups=",
       "--setenv", "LD_LIBRARY_PATH=%s/lib" % PL, os.environ.get("PLEGSCOPE_VM_AGENT", PL + "/bin/plegscope"),
       *agent_flags())
    pid = wait_until(lambda: int(sh("systemctl", "show", "-P", "MainPID", AGENT_UNIT)) or None, 30, "the agent's pid")
    wait_until(lambda: http("/livez")[0] == 200, 60, "the agent serving /livez")
    st = open("/proc/%d/status" % pid).read()
    ids = [l.split()[1] for l in st.splitlines() if l.startswith(("Uid:", "Gid:"))]
    caps = {l.split(":")[0]: l.split()[1] for l in st.splitlines() if l.startswith("Cap")}
    assert ids == ["65532", "0"], ids
    assert caps["CapEff"] == caps["CapPrm"] == caps["CapBnd"] == "0000000000000000", caps
    return {"pid": pid, "uid_gid": ids, "caps": caps}


def http(path, timeout=5):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (AGENT_PORT, path), timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def report():
    status, body = http("/diagnose", timeout=20)
    assert status == 200, (status, body[:300])
    return json.loads(body)






def v2_view(rep):
    return (rep.get("host") or {}).get("cgroup_v2") or {}


# -- setup -----------------------------------------------------------------------
def setup():
    t0 = time.monotonic()
    wait_until(lambda: driver("version", timeout=10), 60, "containerd answering CRI")
    for f in sorted(os.listdir(PL + "/images")):
        sh("ctr", "-n", "k8s.io", "images", "import", os.path.join(PL, "images", f), timeout=120)
    t_img = time.monotonic() - t0
    info = start_agent()
    t_agent = time.monotonic() - t0 - t_img
    wait_until(lambda: http("/healthz")[0] == 200, 60, "a first relist (/healthz 200)")
    rep = report()
    v2 = v2_view(rep)
    ctrls = open(CGROOT + "/cgroup.controllers").read().split()
    sub = open(CGROOT + "/cgroup.subtree_control").read().split()
    out = {"images_s": round(t_img, 2), "agent_s": round(t_agent, 2), "agent": info,
           "controllers": ctrls, "subtree_control": sub, "v1_mounted": any(l.split()[2] == "cgroup" for l in open("/proc/mounts")),
           "mode": v2.get("mode"), "driver": v2.get("driver"),
           "runtime_unit": [u.get("path") for u in v2.get("units", []) if u.get("role") == "runtime"],
           "kernel": os.uname().release, "containerd": driver("version")}
    print(json.dumps(out), flush=True)


# -- scenarios ----------------------------------------------------------------------
# Each returns (seconds_to_name, excerpt, notes). seconds_to_name: from the
# fault's injection to the first report whose evidence shows it (guest clock).
# excerpt: what the report says then: its status, every cause (id, summary),
# the cause that names the pod if one does ("named_by"), the cgroup v2 unit.


def unit_of(rep, pred):
    return next((u for u in v2_view(rep).get("units", []) if pred(u)), None)


def causes_of(rep):
    return [{"id": c["id"], "severity": c["severity"], "summary": c["summary"],
             "evidence": [e["signal"] + "=" + ("%g" % e["value"]) for e in c["evidence"]][:8],
             "remedy": c["remedy"], "advice": c.get("advice")} for c in rep["causes"]]


def witness(rep, unit, names=()):
    """The excerpt: status, causes, the unit, and the first cause whose
    summary names one of NAMES (a pod, a unit) if any."""
    named_by = next((c["id"] for c in rep["causes"] for n in names if n and n in c["summary"]), None)
    return {"status": rep["status"], "summary": rep["summary"], "causes": causes_of(rep), "named_by": named_by,
            "unit": unit}


def wait_unit(pred, timeout, what):
    def seen():
        rep = report()
        u = unit_of(rep, pred)
        return u and (rep, u)
    return wait_until(seen, timeout, what)


def frozen_scenario(freeze, thaw, pod_name):
    """A container frozen (by FREEZE(unit, scope_dir)), the kubelet's
    StopContainer (grace 30 s) waiting on it; then thawed."""
    web = Pod(pod_name)
    cid = web.container("app", WORKLOAD, "/workload")
    unit = "cri-containerd-%s.scope" % cid
    scope = web.scope(cid)
    assert os.path.isdir(scope), "no scope %s" % scope
    t0 = time.monotonic()
    freeze(unit, scope)
    stop = background("stop-container", cid, "30")
    t_stop = time.monotonic()
    try:
        rep, u = wait_unit(lambda u: u["role"] == "container" and u["path"].endswith(unit) and u["frozen"], 60,
                           "the frozen container's scope in the report")
        t = time.monotonic() - t0
        # Held past --hang-threshold: container_frozen names the pod and the
        # scope (polled a while longer: the emulated node's reports lag).
        time.sleep(2 * HANG)

        def named():
            r = report()
            c = next((c for c in r["causes"] if c["id"] == "container_frozen"), None)
            return c and web.full in c["summary"] and unit in c["summary"] and r
        rep2 = wait_until(named, 6 * HANG, "container_frozen naming %s and %s" % (web.full, unit))
        t_cause = time.monotonic() - t0
        u2 = unit_of(rep2, lambda u: u["role"] == "container" and u["path"].endswith(unit)) or u
        ex = witness(rep2, u2, (web.full, cid[:12], unit))
        notes = {"stop_waiting_after_s": round(time.monotonic() - t_stop, 1), "stop_returned": stop.poll() is not None,
                 "container_frozen_after_s": round(t_cause, 1),
                 "systemd_freezer_state": sh("systemctl", "show", "-P", "FreezerState", unit),
                 "cgroup.freeze": open(scope + "/cgroup.freeze").read().strip()}
        return t, ex, notes
    finally:
        thaw(unit, scope)
        t_thaw = time.monotonic()
        try:
            stop.wait(180)
            log("StopContainer returned %.1f s after the thaw (rc %s)" % (time.monotonic() - t_thaw, stop.returncode))
        except subprocess.TimeoutExpired:
            log("StopContainer still waiting 180 s after the thaw: abandoned")
            stop.kill()
        web.remove()


def write_freeze(scope, v):
    with open(scope + "/cgroup.freeze", "w") as f:
        f.write(v)


def scenario_frozen_systemd():
    """`systemctl freeze` of the container's scope (systemd's FreezerState
    frozen), StopContainer waiting on it."""
    return frozen_scenario(lambda unit, scope: sh("systemctl", "freeze", unit),
                           lambda unit, scope: sh("systemctl", "thaw", unit, check=False), "web-0")


def scenario_frozen_runc():
    """The freezer write runc leaves behind after a freeze times out
    (runc#5325: cgroup.freeze = 1 written straight into the scope, systemd
    not told: FreezerState stays running), StopContainer waiting on it."""
    return frozen_scenario(lambda unit, scope: write_freeze(scope, "1"),
                           lambda unit, scope: write_freeze(scope, "0"), "web-1")


def scenario_pids_max():
    """A pod at its pids.max (TasksMax=12 on its slice, as the kubelet's
    podPidsLimit sets it), its container forking 40. Kernel 6.1 counts the
    refused forks in pids.events of the forking task's own cgroup (the
    container's scope), not of the slice whose limit refused them (seen in
    the ctest run of 2026-12-07: the slice's stayed 0): the kernel's count is
    taken from both, and the report is searched for the pod for 30 s.
    seconds_to_name is None when the report never lists it."""
    pod = Pod("forker-0")
    sh("systemctl", "set-property", "--runtime", pod.slice, "TasksMax=12")
    cid = pod.container("app", STRESS, "/stress", "fork", "40")

    def events(path):
        try:
            return int(open(path + "/pids.events").read().split()[1])
        except (OSError, IndexError, ValueError):
            return None
    try:
        wait_until(lambda: (events(pod.scope(cid)) or 0) > 0 or (events(pod.cgroup()) or 0) > 0, 120,
                   "a refused fork in the pod's or its container's pids.events (the kernel's own count)")
        t0 = time.monotonic()
        t, rep, u = None, None, None
        while time.monotonic() - t0 < 30:
            rep = report()
            u = unit_of(rep, lambda u: u["pod_uid"] == pod.uid and (u.get("pids_events_max") or 0) > 0)
            if u:
                t = time.monotonic() - t0
                break
            time.sleep(POLL)
        notes = {"pod_limit": 12, "slice pids.events max": events(pod.cgroup()),
                 "scope pids.events max": events(pod.scope(cid)),
                 "slice pids.current": open(pod.cgroup() + "/pids.current").read().strip()}
        return t, witness(rep, u, (pod.full,)), notes
    finally:
        pod.remove()


def scenario_oom_restart_loop():
    """A pod with MemoryMax=24M on its slice whose container allocates 64
    MiB: the OOM killer ends it, and it is started again, as the kubelet's
    restart loop does, three times: memory.events oom_kill rises."""
    pod = Pod("hog-0")
    sh("systemctl", "set-property", "--runtime", pod.slice, "MemoryMax=24M", "MemorySwapMax=0")
    kills = []
    def oom_kills():
        return int(dict(l.split() for l in open(pod.cgroup() + "/memory.events"))["oom_kill"])
    try:
        for attempt in range(3):
            # Started again as soon as the kernel killed it: the kubelet's
            # restart loop, without its back-off.
            pod.container("app-%d" % attempt, STRESS, "/stress", "mem", "64")
            wait_until(lambda: oom_kills() > attempt, 120, "OOM kill %d (the kernel's count)" % (attempt + 1))
            kills.append(oom_kills())
            if attempt == 0:
                t0 = time.monotonic()  # from the first kill the kernel counted
        def seen():
            rep = report()
            k = unit_of(rep, lambda u: u["role"] == "kubepods")
            p = unit_of(rep, lambda u: u["pod_uid"] == pod.uid and (u.get("memory_oom_kill") or 0) >= 3)
            return p and (rep, p if p else k)
        rep, u = wait_until(seen, 120, "the pod's three OOM kills in the report")
        t = time.monotonic() - t0
        events = open(pod.cgroup() + "/memory.events").read().split()
        return t, witness(rep, u, (pod.full,)), {"oom_kill_after_each_start": kills, "pod_memory.events": dict(zip(events[::2], events[1::2]))}
    finally:
        pod.remove()


def scenario_runtime_cpu_pressure():
    """A pod spinning 4 processes (no CPU limit, burstable) starves
    containerd's cgroup while the kubelet's calls go on: PSI cpu some of
    system.slice/containerd.service against kubepods.slice."""
    pod = Pod("spinner-0")
    t0 = time.monotonic()
    pod.container("app", STRESS, "/stress", "cpu", "4")
    try:
        stop = time.monotonic() + 60
        def seen():
            driver("list", timeout=30)  # the kubelet's relists keep containerd working
            rep = report()
            u = unit_of(rep, lambda u: u["role"] == "runtime")
            share = max([p["some_seconds"] / p["interval_seconds"] for p in u["pressure"]
                         if p["resource"] == "cpu" and p["interval_seconds"] and p["some_seconds"] is not None] or [0])
            return share >= 0.1 and (rep, u, share)
        rep, u, share = wait_until(seen, stop - time.monotonic(), "containerd's cpu stall share >= 0.1")
        t = time.monotonic() - t0
        cpu = open(CGROOT + "/system.slice/containerd.service/cpu.pressure").read()
        kp = open(CGROOT + "/kubepods.slice/cpu.pressure").read()
        return t, witness(rep, u, ("containerd",)), {"runtime_cpu_some_share": round(share, 2),
                                                    "containerd.service cpu.pressure": cpu.strip(),
                                                    "kubepods.slice cpu.pressure": kp.strip()}
    finally:
        pod.remove()


def scenario_dbus_stopped():
    """dbus-daemon stopped (SIGSTOP): runc's StartTransientUnit to systemd
    goes through the system bus with no deadline, so `runc create` waits (in
    S, on a futex) and RunPodSandbox with it. The report must name
    systemd_bus_stalled with the daemon's pid and the waiting runc, within
    12x --hang-threshold (the emulated node's scans lag); seconds_to_name is
    from the SIGSTOP to that report."""
    pid = int(sh("systemctl", "show", "-P", "MainPID", "dbus.service"))
    t0 = time.monotonic()
    os.kill(pid, signal.SIGSTOP)
    uid = str(uuid.uuid4())
    env = dict(os.environ, LD_LIBRARY_PATH=PL + "/lib", CRI_CGROUP_PARENT=pod_slice(uid))
    run = subprocess.Popen([PL + "/bin/cri-driver", "--endpoint", ENDPOINT, "--timeout", "300", "run-pod",
                            "late-0", uid, NAMESPACE], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env)
    try:
        def named():
            r = report()
            c = next((c for c in r["causes"] if c["id"] == "systemd_bus_stalled"), None)
            return (c and "dbus-daemon (pid %d)" % pid in c["summary"]
                    and any(e["signal"].startswith("helper_waiting_seconds{") and "comm=runc" in e["signal"]
                            for e in c["evidence"])
                    and r)
        rep = wait_until(named, 12 * HANG, "systemd_bus_stalled naming dbus-daemon %d and the waiting runc" % pid)
        t = time.monotonic() - t0
        assert run.poll() is None, "RunPodSandbox returned while dbus-daemon was stopped"
        state = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]
        runc = sh("sh", "-c", "ps -eo pid,ppid,stat,etimes,wchan:30,args | grep -E '[r]unc .*create' | head -5",
                  check=False)
        ex = witness(rep, None, ("dbus-daemon", "late-0"))
        return t, ex, {"run_pod_waiting": run.poll() is None, "dbus_daemon_state": state, "runc_create": runc}
    finally:
        os.kill(pid, signal.SIGCONT)
        t_cont = time.monotonic()
        try:
            out, err = run.communicate(timeout=180)
            log("RunPodSandbox returned %.1f s after dbus-daemon was continued: rc %s %s"
                % (time.monotonic() - t_cont, run.returncode, err.strip()[:200]))
            if run.returncode == 0:
                driver("stop-pod", out.strip(), timeout=60)
                driver("remove-pod", out.strip(), timeout=60)
        except subprocess.TimeoutExpired:
            run.kill()


def scenario_dying_descendants():
    """Churn: 4 short containers in one pod, each writing 8 MiB into the page
    cache and exiting, removed at once: their scopes die with memory still
    charged, and kubepods.slice's cgroup.stat nr_dying_descendants rises."""
    pod = Pod("churn-0")
    before = int(dict(l.split() for l in open(CGROOT + "/kubepods.slice/cgroup.stat"))["nr_dying_descendants"])
    t0 = time.monotonic()
    try:
        for i in range(4):
            cid = pod.container("job-%d" % i, STRESS, "/stress", "cache", "8")
            wait_until(lambda: driver("status-container", cid).split()[0] == "exited", 120, "job exited")
            driver("remove-container", cid)
        now = int(dict(l.split() for l in open(CGROOT + "/kubepods.slice/cgroup.stat"))["nr_dying_descendants"])
        churn = time.monotonic() - t0
        t0 = time.monotonic()  # the time to name it: from the churn's end
        rep, u = wait_unit(lambda u: u["role"] == "kubepods" and (u.get("nr_dying_descendants") or 0) >= now > before,
                           60, "kubepods' nr_dying_descendants in the report")
        t = time.monotonic() - t0
        return t, witness(rep, u, (pod.full, "kubepods")), {"nr_dying_descendants_before": before,
                                                            "after_churn": now, "churn_s": round(churn, 1)}
    finally:
        pod.remove()


SCENARIOS = {
    "frozen_systemd": scenario_frozen_systemd,
    "frozen_runc": scenario_frozen_runc,
    "pids_max": scenario_pids_max,
    "oom_restart_loop": scenario_oom_restart_loop,
    "runtime_cpu_pressure": scenario_runtime_cpu_pressure,
    "dbus_stopped": scenario_dbus_stopped,
    "dying_descendants": scenario_dying_descendants,
}


def main(argv):
    if argv[0] == "setup":
        return setup()
    if argv[0] == "restart-agent":
        sh("systemctl", "stop", AGENT_UNIT, check=False)
        print(json.dumps(start_agent()))
        return
    if argv[0] == "report":
        print(json.dumps(report(), indent=1))
        return
    ok = True
    for name in argv:
        t0 = time.monotonic()
        out = {"scenario": name}
        try:
            t, ex, notes = SCENARIOS[name]()
            out.update(ok=True, seconds_to_name=None if t is None else round(t, 2), excerpt=ex, notes=notes)
        except Exception as e:  # noqa: BLE001 - reported to the host
            ok = False
            try:
                last = report()
                last = {"status": last["status"], "summary": last["summary"],
                        "causes": [(c["id"], c["summary"]) for c in last["causes"]],
                        "cgroup_v2": v2_view(last)}
            except Exception:  # noqa: BLE001
                last = None
            out.update(ok=False, error="%s: %s" % (type(e).__name__, e), trace=traceback.format_exc()[-2000:],
                       last_report=last)
        out["wall_s"] = round(time.monotonic() - t0, 2)
        print(json.dumps(out), flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    main(sys.argv[1:])
