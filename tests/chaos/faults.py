"""The fault classes the chaos campaign injects on the real cluster bed
(tests/cluster/cluster.py), each for real: a signal to the runtime, a frozen
cgroup, a workload that does what a bad workload does, a configuration taken
away. Never by telling the agent.

Every class is a function fault(ctx, rng, hold) -> dict that injects, holds
and undoes its fault, returning the ground truth of what it did:
    {"class", "culprit" (a pod "namespace/name", a pid, or None),
     "start", "end" (wall times: injected, undone), "expect" (cause ids that
     name it right), "notready" (True when the kubelet is expected to turn
     the Node NotReady), plus what the class wants to say}.
"start" is taken the moment the fault is real (the signal sent, the freezer
FROZEN), "end" the moment it is undone; setup (pods created first) is before
"start" and counts as churn.

Classes the bed supports cheaply (CLASSES); the others are named in
MISSING with the reason.
"""

import json
import os
import signal
import subprocess
import time

from cluster import log  # noqa: F401  (tests/cluster on the path; tests/e2e after it)
import cgroups  # noqa: E402  tests/e2e
import oci_image  # noqa: E402  tests/e2e
from harness import wait_until  # noqa: E402

NAMESPACE = "pscl-chaos"


def _pod(name, command, labels=None, resources=None, restart="Always"):
    c = {"name": "w", "image": oci_image.WORKLOAD_IMAGE, "imagePullPolicy": "Never", "command": command}
    if resources:
        c.update(resources)
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels or {"chaos": name}},
            "spec": {"hostNetwork": True, "automountServiceAccountToken": False, "enableServiceLinks": False,
                     "terminationGracePeriodSeconds": 1, "restartPolicy": restart, "containers": [c]}}


def _deployment(name, replicas, command):
    tpl = _pod(name, command, labels={"chaos": name})
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"chaos": name}},
                     "template": {"metadata": {"labels": {"chaos": name}}, "spec": tpl["spec"]}}}


def running(c, selector):
    pods = c.get_json("pods", "-n", NAMESPACE, "-l", selector)["items"]
    return [p for p in pods if p["status"].get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")
            and all(s.get("ready") for s in p["status"].get("containerStatuses", []))]


def gone(c, selector):
    return not c.get_json("pods", "-n", NAMESPACE, "-l", selector)["items"]


def sandbox_of(c, name):
    r = subprocess.run([c.bins["crictl"], "--runtime-endpoint", c.ctd.endpoint, "pods", "--name", name,
                        "--namespace", NAMESPACE, "--state", "ready", "-q"],
                       capture_output=True, text=True, timeout=30)
    sids = r.stdout.split()
    assert r.returncode == 0 and len(sids) == 1, (name, r.returncode, r.stdout, r.stderr)
    return sids[0]


def workload_pids(c, sandbox_ids):
    """PIDs of the workload containers of these sandboxes (not their pause)."""
    r = subprocess.run([c.bins["crictl"], "--runtime-endpoint", c.ctd.endpoint, "ps", "-o", "json"],
                       capture_output=True, text=True, timeout=60)
    out = []
    for ct in json.loads(r.stdout).get("containers", []):
        if ct["podSandboxId"] in sandbox_ids and ct["state"] == "CONTAINER_RUNNING":
            out += cgroups.pids(c.ctd.cgroup_parent, ct["id"])
    return out


def setup(c):
    c.kubectl("create", "namespace", NAMESPACE, check=False)


SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
NRI_PLUGIN = "10-stall"        # the index and name NRI registers the stall plugin as
CNI_STATUS_NETWORK = "05-status.conflist"  # sorts first: the network the runtime's Status asks
CNI_STATUS_WORDS = "node agent at /run/netd/agent.sock does not answer"


def _built(cmd, what):
    """The path a scripts/build-* prints; a build that fails is a skip (a failure under CI)."""
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        import harness
        raise harness.Skip("%s failed: %s" % (what, (r.stderr.strip()[-300:] or r.returncode)))
    return r.stdout.strip().splitlines()[-1].split(": ", 1)[-1]


class Extras:
    """What containerd 2.x lets the campaign inject on top of the bed, set up
    once for the whole campaign and taken away at its end:
      * the project's NRI stall plugin (tests/nri/stallplugin), registered on
        the bed's NRI socket as NRI_PLUGIN with -reconnect, idle until its
        control file names events to stall on;
      * the project's CNI plugin (tests/e2e/cni-status-plugin) as the first
        network of the runtime's conf dir (spec 1.1.0), healthy until its
        unhealthy file exists, answering no STATUS while its hold file
        exists; the bed's pods are on the host network."""

    def __init__(self, c):
        self.c = c
        self.plugin = None
        self.tmp = os.path.join(c.dir, "chaos")
        os.makedirs(self.tmp, exist_ok=True)
        self.control = os.path.join(self.tmp, "nri-control")
        self.state = os.path.join(self.tmp, "nri-state")
        self.unhealthy = os.path.join(self.tmp, "status-plugin-unhealthy")
        self.status_hold = os.path.join(self.tmp, "status-plugin-hold")
        self.conf_dir = os.path.join(c.ctd.tmp, "cni", "conf")

    def __enter__(self):
        binary = _built([os.path.join(SCRIPTS, "build-nri-plugin")], "scripts/build-nri-plugin")
        cni_dir = _built([os.path.join(SCRIPTS, "build-cni-plugin")], "scripts/build-cni-plugin")
        self.nri_stall([])
        idx, name = NRI_PLUGIN.split("-", 1)
        self.plugin_log = open(os.path.join(self.tmp, "nri-plugin.log"), "w")
        self.plugin = subprocess.Popen([binary, "-socket", self.c.ctd.nri_socket, "-idx", idx, "-name", name,
                                        "-control", self.control, "-state", self.state, "-reconnect"],
                                       stdout=subprocess.DEVNULL, stderr=self.plugin_log)
        wait_until(lambda: self.count("registered " + NRI_PLUGIN) >= 1, 60, "the NRI plugin to register")
        bin_dir = os.path.join(self.c.ctd.tmp, "cni", "bin")
        subprocess.run(["cp", os.path.join(cni_dir, "status-plugin"), os.path.join(bin_dir, "status-plugin")],
                       check=True)
        with open(os.path.join(self.conf_dir, CNI_STATUS_NETWORK), "w") as f:
            json.dump({"cniVersion": "1.1.0", "name": "plegscope-status",
                       "plugins": [{"type": "status-plugin", "unhealthyFile": self.unhealthy,
                                    "holdFile": self.status_hold}]}, f)
        return self

    def __exit__(self, *exc):
        self.nri_stall([])
        if self.plugin and self.plugin.poll() is None:
            self.plugin.terminate()
            self.plugin.wait(30)
        if getattr(self, "plugin_log", None):
            self.plugin_log.close()
        for path in (self.unhealthy, self.status_hold):
            if os.path.exists(path):
                os.unlink(path)
        return False

    def nri_stall(self, events):
        with open(self.control, "w") as f:
            f.write(" ".join(events))

    def count(self, line):
        try:
            with open(self.state) as f:
                return sum(1 for x in f.read().splitlines() if x == line)
        except OSError:
            return 0


# ---------------------------------------------------------------- churn

def churn(c, rng, seconds):
    """Ordinary churn for SECONDS: a small Deployment scaled up and down, a
    crash-looping pod, pods deleted. Kept below the event-storm rule's 10
    pods per relist, as a busy but healthy node is."""
    t0 = time.time()
    c.apply(_pod("crashloop", ["/workload", "1500", "1"]))
    n = 0
    while time.time() - t0 < seconds:
        n = rng.choice([1, 2, 3, 4]) if n == 0 else 0
        c.apply(_deployment("churn", n, ["/workload"]))
        time.sleep(min(rng.uniform(6, 12), max(0, seconds - (time.time() - t0))))
    c.apply(_deployment("churn", 0, ["/workload"]))
    c.kubectl("delete", "pod", "-n", NAMESPACE, "crashloop", "--wait=false", check=False)
    return {"class": "churn", "start": t0, "end": time.time()}


# ---------------------------------------------------------------- faults

def runtime_stopped(c, rng, hold, during=None):
    """containerd SIGSTOPped; held HOLD seconds or, with hold None, until the
    kubelet's Ready goes False and 20 s more (the PLEG threshold is 3 min).
    DURING: a callable run while it is stopped (an overlap)."""
    pid = c.ctd.proc.pid
    os.kill(pid, signal.SIGSTOP)
    start = time.time()
    try:
        if during:
            during()
        if hold is None:
            wait_until(lambda: not c.node_ready(), 330, "the kubelet's Ready=False", interval=2.0)
            time.sleep(20)
        else:
            time.sleep(max(0, hold - (time.time() - start)))
    finally:
        os.kill(pid, signal.SIGCONT)
    return {"class": "runtime_stopped", "culprit": None, "pid": pid,
            "start": start, "end": time.time(), "expect": ["runtime_hung"], "notready": hold is None}


def runtime_killed(c, rng, hold):
    """containerd SIGKILLed, started again after HOLD seconds (its shims and
    containers keep running)."""
    pid = c.ctd.proc.pid
    os.kill(pid, signal.SIGKILL)
    c.ctd.proc.wait()
    start = time.time()
    time.sleep(hold)
    c.ctd.start(timeout=60)
    return {"class": "runtime_killed", "culprit": None, "start": start, "end": time.time(),
            "expect": ["runtime_unavailable"], "notready": False}


_resize = {"n": 0}


def shim_frozen(c, rng, hold):
    """A Burstable pod's shim frozen (cgroup v1 freezer, its tasks in D) and
    the pod resized in place: the kubelet's UpdateContainerResources waits
    on the shim holding the container's lock (containerd 1.6), and the
    kubelet's relists wait behind it. Thawed after HOLD seconds (under the
    kubelet's 2-minute request timeout)."""
    name = "stuck"
    c.apply(_pod(name, ["/workload"], resources={
        "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}},
        "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]}))
    wait_until(lambda: running(c, "chaos=" + name), 120, "pod %s Running" % name, interval=1.0)
    sid = sandbox_of(c, name)
    shims = [pid for pid, _, s in c.ctd.shim_pids() if s == sid]
    assert len(shims) == 1, shims
    freezer = cgroups.freeze(shims[0], c.ctd.name)
    start = time.time()
    try:
        _resize["n"] += 1
        cpu = "%dm" % (300 + 10 * _resize["n"])
        c.kubectl("patch", "pod", name, "-n", NAMESPACE, "--subresource", "resize", "-p",
                  '{"spec":{"containers":[{"name":"w","resources":{"limits":{"cpu":"%s"}}}]}}' % cpu)
        time.sleep(max(0, hold - (time.time() - start)))
    finally:
        cgroups.thaw(freezer)
    end = time.time()
    c.kubectl("delete", "pod", "-n", NAMESPACE, name, "--wait=false", check=False)
    return {"class": "shim_frozen", "culprit": "%s/%s" % (NAMESPACE, name), "start": start, "end": end,
            "expect": ["shim_hung"], "notready": False}


def zombies(c, rng, hold, count=150):
    """A pod whose init forks COUNT children and never reaps them (the
    workload's third argument); deleted after HOLD seconds."""
    name = "zombies"
    c.apply(_pod(name, ["/workload", "-1", "0", str(count)]))
    wait_until(lambda: running(c, "chaos=" + name), 120, "pod %s Running" % name, interval=0.5)
    start = time.time()
    time.sleep(hold)
    c.kubectl("delete", "pod", "-n", NAMESPACE, name, "--wait=false")
    wait_until(lambda: gone(c, "chaos=" + name), 120, "pod %s gone" % name, interval=1.0)
    return {"class": "zombies", "culprit": "%s/%s" % (NAMESPACE, name), "start": start, "end": time.time(),
            "expect": ["defunct_processes"], "notready": False}


def event_storm(c, rng, hold, pods=None, every=2.0):
    """A flapping rollout: two writers fighting over a Deployment's template
    (a GitOps sync against a mutating webhook, say), each change replacing
    every one of its PODS pods at once (maxSurge and maxUnavailable 100 %),
    every EVERY seconds for HOLD seconds, then the Deployment deleted. Every
    relist of the hold finds old pods dying and new ones starting: a storm
    sustained across relists, not one burst that a single relist absorbs.
    From the first create to the last pod gone."""
    name = "storm"
    pods = pods or getattr(rng, "storm_pods", 24)
    dep = _deployment(name, pods, ["/workload"])
    dep["spec"]["strategy"] = {"type": "RollingUpdate",
                               "rollingUpdate": {"maxSurge": "100%", "maxUnavailable": "100%"}}
    start = time.time()
    c.apply(dep)
    wait_until(lambda: len(running(c, "chaos=" + name)) == pods, 240, "%d storm pods Running" % pods, interval=2.0)
    rollouts = 0
    end_hold = time.time() + hold
    while time.time() < end_hold:
        rollouts += 1
        patch = {"spec": {"template": {"metadata": {"annotations": {"chaos/rollout": str(rollouts)}}}}}
        c.kubectl("patch", "deployment", "-n", NAMESPACE, name, "--type", "merge", "-p", json.dumps(patch))
        time.sleep(every)
    c.kubectl("delete", "deployment", "-n", NAMESPACE, name, "--wait=false")
    wait_until(lambda: gone(c, "chaos=" + name), 240, "storm pods gone", interval=2.0)
    return {"class": "event_storm", "culprit": None, "start": start, "end": time.time(),
            "expect": ["event_storm"], "notready": False, "pods": pods, "rollouts": rollouts}


def network_not_ready(c, rng, hold):
    """The CNI configuration taken away: containerd answers NetworkReady=false;
    the kubelet turns the Node NotReady for it within seconds. Put back after
    HOLD seconds (written, not renamed: containerd 1.6 ignores a bare create)."""
    conf_dir, aside = os.path.join(c.ctd.tmp, "cni", "conf"), os.path.join(c.dir, "cni-conf-aside")
    os.makedirs(aside, exist_ok=True)
    moved = sorted(os.listdir(conf_dir))
    for n in moved:
        os.rename(os.path.join(conf_dir, n), os.path.join(aside, n))
    start = time.time()
    try:
        time.sleep(hold)
    finally:
        for n in moved:
            with open(os.path.join(aside, n)) as src, open(os.path.join(conf_dir, n), "w") as dst:
                dst.write(src.read())
            os.unlink(os.path.join(aside, n))
    return {"class": "network_not_ready", "culprit": None, "start": start, "end": time.time(),
            "expect": ["runtime_network_not_ready"], "notready": True}


def nri_stall(c, rng, hold, every=6.0):
    """The NRI plugin stalls every CreateContainer (it ignores the runtime's
    deadline): NRI gives up on it after its 2 s plugin_request_timeout and
    disconnects it, the plugin reconnects, and the next creation stalls
    again. A pod created every EVERY seconds for HOLD seconds (the kubelet's
    CreateContainer calls); then the plugin answers again and the pods go."""
    x = c.chaos_extras
    stalls0 = x.count("stall CreateContainer")
    x.nri_stall(["CreateContainer"])
    start = time.time()
    n = 0
    try:
        while time.time() - start < hold:
            n += 1
            c.apply(_pod("nri-%d" % n, ["/workload"], labels={"chaos": "nri"}))
            time.sleep(max(0, min(every, hold - (time.time() - start))))
        wait_until(lambda: x.count("stall CreateContainer") > stalls0, 60, "the NRI plugin's first stall",
                   interval=1.0)
    finally:
        x.nri_stall([])
    end = time.time()
    stalls = x.count("stall CreateContainer") - stalls0
    c.kubectl("delete", "pod", "-n", NAMESPACE, "-l", "chaos=nri", "--wait=false", check=False)
    wait_until(lambda: gone(c, "chaos=nri"), 120, "the NRI fault's pods gone", interval=1.0)
    return {"class": "nri_stall", "culprit": NRI_PLUGIN, "start": start, "end": end, "expect": ["nri_stall"],
            "notready": False, "pods": n, "stalls": stalls}


def _control_file_held(path, line, hold):
    """The CNI plugin's control file at PATH (its first line LINE) for HOLD
    seconds, removed whatever happens: (start, end)."""
    with open(path, "w") as f:
        f.write(line + "\n")
    start = time.time()
    try:
        time.sleep(hold)
    finally:
        os.unlink(path)
    return start, time.time()


def cni_status_unhealthy(c, rng, hold):
    """The runtime's first network's CNI plugin answers STATUS unhealthy
    (CNI spec 1.1.0, error 50 in its daemon's words, which do not name it),
    as a plugin whose node daemon died does: containerd 2.x calls STATUS in
    every CRI Status and answers NetworkReady=false; the kubelet turns the
    Node NotReady. Healthy again after HOLD seconds."""
    start, end = _control_file_held(c.chaos_extras.unhealthy, CNI_STATUS_WORDS, hold)
    return {"class": "cni_status_unhealthy", "culprit": "status-plugin", "start": start, "end": end,
            "expect": ["runtime_network_not_ready"], "notready": True}


def runtime_status_hung(c, rng, hold):
    """The runtime's first network's CNI plugin stops answering STATUS (its
    hold file), as a plugin that waits on a node daemon which accepts and
    never replies does. containerd 2.x asks every network's STATUS in each
    CRI Status, without a deadline of its own (go-cni's Status passes a
    background context), so Status hangs while the lists answer; past the
    kubelet's 30 s without a good Status it says "container runtime is
    down" and the Node goes NotReady. Released after HOLD seconds: every
    STATUS waiting returns and Status answers again."""
    start, end = _control_file_held(c.chaos_extras.status_hold, "held by the campaign", hold)
    return {"class": "runtime_status_hung", "culprit": "status-plugin", "start": start, "end": end,
            "expect": ["runtime_status_hung"], "notready": True}


def _oom_kills(c, name):
    pods = c.get_json("pods", "-n", NAMESPACE, "-l", "chaos=" + name)["items"]
    kills = 0
    for p in pods:
        for s in p["status"].get("containerStatuses", []):
            for st in (s.get("state", {}), s.get("lastState", {})):
                if st.get("terminated", {}).get("reason") == "OOMKilled":
                    kills = max(kills, s.get("restartCount", 0) + (1 if "terminated" in s.get("state", {}) else 0))
    return kills


def memory_pressure_oom(c, rng, hold, limit_mib=24, alloc_mib=64):
    """A pod with a LIMIT_MIB memory limit whose container allocates and
    touches ALLOC_MIB at start: the kernel's OOM killer ends it in its
    cgroup, the kubelet starts it again (its crash-loop backoff), killed
    again. From the first OOM kill the kubelet reports to HOLD seconds
    later, then deleted. The PLEG is not at risk from it: the truth expects
    no warning, only node_pressure if the agent measures the pressure."""
    name = "oom"
    mem = "%dMi" % limit_mib
    c.apply(_pod(name, ["/workload", "-1", "0", "0", str(alloc_mib)],
                 resources={"resources": {"requests": {"memory": mem, "cpu": "10m"}, "limits": {"memory": mem}}}))
    wait_until(lambda: _oom_kills(c, name) >= 1, 120, "the first OOM kill of pod %s" % name, interval=0.5)
    start = time.time()
    time.sleep(hold)
    kills = _oom_kills(c, name)
    c.kubectl("delete", "pod", "-n", NAMESPACE, name, "--wait=false")
    wait_until(lambda: gone(c, "chaos=" + name), 120, "pod %s gone" % name, interval=1.0)
    return {"class": "memory_pressure_oom", "culprit": "%s/%s" % (NAMESPACE, name), "start": start,
            "end": time.time(), "expect": ["node_pressure"], "notready": False, "warns": False,
            "oom_kills": kills}


CLASSES = {
    "runtime_stopped": runtime_stopped,
    "runtime_killed": runtime_killed,
    "shim_frozen": shim_frozen,
    "zombies": zombies,
    "event_storm": event_storm,
    "network_not_ready": network_not_ready,
    "memory_pressure_oom": memory_pressure_oom,
    # containerd 2.x (Extras)
    "nri_stall": nri_stall,
    "cni_status_unhealthy": cni_status_unhealthy,
    "runtime_status_hung": runtime_status_hung,
}
NEEDS_V2 = ("nri_stall", "cni_status_unhealthy", "runtime_status_hung")

# What the issue lists and the campaign does not inject (yet), and why.
MISSING = {
    "runtime_disk_slow": "dm-delay needs the runtime root on a device-mapper device before containerd starts; "
                         "the containerd fixture has no hook for its root's device",
    "runtime_disk_full": "same: the runtime root is a directory on the host's disk",
    "pids_limit": "the bed's kubelet sets no podPidsLimit (a node-wide setting the zombie class's 150 children "
                  "would meet too) and its kubepods cgroup is under a private parent the agent does not read "
                  "as kubepods",
    "too_many_containers": "thousands of exited containers take longer to make than the short campaign's budget",
    "init_in_d_state": "no FUSE/NFS-like wait made by the tests yet",
    "pod_relist_hung": "no real runtime hangs one pod's filtered list alone: containerd 2.3 builds every "
                       "ListContainers answer, filtered or not, from every container's status under its lock "
                       "before it filters, so a held container hangs the unfiltered lists too (shim_frozen); "
                       "the 1.37 kubelet's per-pod relist is judged on the fake runtime "
                       "(integration_pod_relist_hung)",
}
MISSING_ON_V1 = {
    "nri_stall": "containerd 1.6 has no NRI on by default (the 2.3 bed injects it)",
    "cni_status_unhealthy": "containerd 1.6 does not call the CNI plugin's STATUS (the 2.3 bed injects it)",
    "runtime_status_hung": "containerd 1.6 does not call the CNI plugin's STATUS (the 2.3 bed injects it)",
}
