"""plegscope installed on a real CRI-O node as docs/install.md says for CRI-O
clusters (docs/install.md "CRI-O and mixed clusters").

- the one-node cluster (tests/cluster/cluster.py) with the bed's kubelet
  (1.37 by default) on the e2e CRI-O (tests/e2e/crio_fixture.py), which answers where a
  CRI-O node's does, /run/crio/crio.sock: the Node registers with
  containerRuntimeVersion cri-o://<that version> and goes Ready;
- the image assembled by scripts/assemble-image from build/plegscope and
  this host's Debian root (--root /), copied into CRI-O's storage with
  CRI-O's own copier under the name deploy/ references; nothing is pulled;
- prometheus-operator's CRDs, then an overlay in the test's temp dir with
  `resources: [deploy]` and `components: [deploy/components/crio]` and
  nothing else, applied with `kubectl apply -k` (the kubectl built with
  the cluster, its kustomize v5);
- the DaemonSet's pod goes Ready on the node with the shipped
  securityContext (its process uid 65532, no capability), mounts the host's
  /run/crio and reads unix:///run/crio/crio.sock: its /diagnose, read
  through the API server's pod proxy, names the runtime cri-o at the
  cluster's CRI-O version, says healthy, and words any cause in CRI-O's
  terms (no containerd, no shim); the same with deploy/components/selinux
  added (spc_t, what SELinux-enforcing CRI-O nodes need; ignored here);
- the teardown leaves no process, mount, cgroup, link, address, dir or
  /run/crio behind.

The cluster differs from a node where the README's overlay does not patch
it: the kubelet listens on a free port rather than 10250, so the agent's
kubelet section says unreachable; that is not what this test judges.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import install  # noqa: E402
from cluster import NODE, Cluster, iptables_rules, leftovers, log  # noqa: E402
from crio_node import CRIO_RUN  # noqa: E402
import cgroups  # noqa: E402  tests/e2e (on the path once cluster is imported)
from containerd_fixture import _processes  # noqa: E402  tests/e2e
from crio_fixture import crio_version  # noqa: E402  tests/e2e
from harness import wait_until  # noqa: E402

from install import NAMESPACE, PORT, agent_pod  # noqa: E402
ENDPOINT = "unix:///run/crio/crio.sock"
# Words that must not appear on a CRI-O node: containerd's processes and tools.
CONTAINERD_WORDS = ("containerd", "shim", "ctr ", "status lock")


def assemble_image(c):
    """The image from build/plegscope and this host's root, copied into
    CRI-O's storage under the name deploy/ references."""
    ref = install.image_ref()[0]
    d = os.path.join(c.dir, "image")
    os.makedirs(d)
    out = install.assemble_image(d)
    c.ctd.import_image(out, ref)
    assert ref in c.ctd.images(), "image %s not listed by CRI-O: %s" % (ref, c.ctd.images())
    log("image %s assembled from / (%.1f MiB) and copied into CRI-O's storage" % (ref, os.path.getsize(out) / 2**20))
    return ref


def pod_ready(c, selinux_type=None):
    pod = agent_pod(c)
    if pod is None or pod["spec"]["securityContext"].get("seLinuxOptions", {}).get("type") != selinux_type:
        return None
    for s in pod["status"].get("containerStatuses", []):
        waiting = s.get("state", {}).get("waiting", {})
        if waiting.get("reason") in ("CreateContainerError", "CreateContainerConfigError", "CrashLoopBackOff"):
            raise AssertionError("the agent's container: %s: %s" % (waiting["reason"], waiting.get("message")))
    ready = any(x["type"] == "Ready" and x["status"] == "True" for x in pod["status"].get("conditions", []))
    return pod if ready else None


def install_on_crio(c):
    ref = assemble_image(c)
    install.apply_monitoring_crds(c)
    r = c.kubectl("apply", "-k", install.overlay(c, ("crio",)), timeout=120)
    log("kubectl apply -k: %s" % " ".join(r.stdout.split()))

    def ready():
        p = pod_ready(c)
        if p is None:
            events = c.kubectl("get", "events", "-n", NAMESPACE, "--field-selector", "type=Warning",
                               "-o", "jsonpath={range .items[*]}{.reason}: {.message}{'\\n'}{end}").stdout
            if "FailedMount" in events:
                raise AssertionError("the agent's volumes on a CRI-O node: %s" % events.strip())
        return p
    pod = wait_until(ready, 120, "the DaemonSet's pod Ready on %s" % NODE, interval=1.0)
    spec = pod["spec"]
    assert spec["nodeName"] == NODE and spec["containers"][0]["image"] == ref, spec
    return pod


def container_pids(c, cid):
    """PIDs in the container's crio-<id> cgroup, wherever the kubelet's pod
    cgroup put it under the node's cgroup root."""
    name = "crio-" + cid
    for top, dirs, _ in os.walk(cgroups.procs_base(c.ctd.cgroup_parent)):
        if name in dirs:
            with open(os.path.join(top, name, "cgroup.procs")) as f:
                return [int(x) for x in f.read().split()]
    return []


def check_shipped_spec(c, pod):
    """What the component set, as the API server stored it, and the
    container's process as the kernel sees it."""
    spec = pod["spec"]
    ctr = spec["containers"][0]
    vols = {v["name"]: v for v in spec["volumes"]}
    assert vols["cri-socket-dir"]["hostPath"] == {"path": CRIO_RUN, "type": "Directory"}, vols["cri-socket-dir"]
    mounts = {m["name"]: m for m in ctr["volumeMounts"]}
    assert mounts["cri-socket-dir"]["mountPath"] == CRIO_RUN and mounts["cri-socket-dir"]["readOnly"], mounts
    env = {e["name"]: e.get("value") for e in ctr["env"]}
    assert env["PLEGSCOPE_CONTAINER_RUNTIME_ENDPOINT"] == ENDPOINT, env
    sc = ctr["securityContext"]
    assert sc["readOnlyRootFilesystem"] and sc["capabilities"]["drop"] == ["ALL"] and \
        not sc["allowPrivilegeEscalation"], sc
    cid = pod["status"]["containerStatuses"][0]["containerID"]
    assert cid.startswith("cri-o://"), cid
    pids = container_pids(c, cid.split("://", 1)[1])
    assert pids, "no process in the agent's container cgroup"
    status = dict(line.split(":", 1) for line in open("/proc/%d/status" % pids[0]) if ":" in line)
    uids, cap_eff = status["Uid"].split(), int(status["CapEff"].strip(), 16)
    assert uids[0] == "65532" and cap_eff == 0, (uids, hex(cap_eff))
    # What the agent's group 0 connects through: CRI-O's own socket mode.
    st = os.stat(os.path.join(CRIO_RUN, "crio.sock"))
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (0, 0, 0o660), (st.st_uid, st.st_gid, oct(st.st_mode))
    log("pod %s: hostPath %s read-only, %s (root:root %o), pid %d uid %s CapEff %#x"
        % (pod["metadata"]["name"], CRIO_RUN, ENDPOINT, st.st_mode & 0o777, pids[0], uids[0], cap_eff))


def diagnose(c, pod):
    path = "/api/v1/namespaces/%s/pods/%s:%d/proxy/diagnose" % (NAMESPACE, pod["metadata"]["name"], PORT)
    return json.loads(c.kubectl("get", "--raw", path).stdout)


def with_selinux_component(c, want_version):
    """The OpenShift-style install on the same node: deploy/components/crio
    with deploy/components/selinux (spc_t). On a node without SELinux the
    option is ignored: the rolled pod is Ready and reads the runtime alike."""
    c.kubectl("apply", "-k", install.overlay(c, ("crio", "selinux")), timeout=120)
    pod = wait_until(lambda: pod_ready(c, "spc_t"), 120, "the spc_t pod Ready on %s" % NODE, interval=1.0)
    check_report(c, pod, want_version)
    log("with deploy/components/selinux: pod %s (seLinuxOptions type spc_t) Ready and healthy"
        % pod["metadata"]["name"])


def check_report(c, pod, want_version):
    def read():
        rep = diagnose(c, pod)
        return rep if rep["runtime"].get("name") and rep["relist"].get("seconds_since_last_seen") is not None \
            else None
    rep = wait_until(read, 60, "the agent's /diagnose through the pod proxy naming its runtime", interval=1.0)
    rt = rep["runtime"]
    log("/diagnose via the API server: status %s, runtime %s %s on %s, causes %s"
        % (rep["status"], rt["name"], rt["version"], rt["endpoint"], [x["id"] for x in rep["causes"]]))
    assert rt["endpoint"] == ENDPOINT and rt["name"] == "cri-o" and rt["version"] == want_version, rt
    for cause in rep["causes"]:
        for field in ("summary", "remedy"):
            for w in CONTAINERD_WORDS:
                assert w not in cause[field], "%r in %s's %s on a CRI-O node: %s" % (w, cause["id"], field,
                                                                                       cause[field])
    assert rep["status"] == "healthy" and rep["healthy"], (rep["status"], rep.get("summary"), rep["causes"])
    return rep


def crio_processes(tmp):
    """crio, conmon and plegscope processes of this cluster still alive."""
    out = []
    for pid, argv in _processes():
        if argv and os.path.basename(argv[0]) in (b"crio", b"conmon") and any(tmp.encode() in a for a in argv):
            out.append("process %d %s" % (pid, argv[0].decode()))
    return out


def test_crio_node():
    t0 = time.monotonic()
    rules = iptables_rules()
    want = crio_version()
    with Cluster(runtime="crio") as c:
        tmp, cg = c.ctd.tmp, c.ctd.cgroup_parent
        info = c.get_json("node", NODE)["status"]["nodeInfo"]
        log("node %s: kubelet %s, %s" % (NODE, info["kubeletVersion"], info["containerRuntimeVersion"]))
        assert info["containerRuntimeVersion"] == "cri-o://" + want, info
        pod = install_on_crio(c)
        check_shipped_spec(c, pod)
        check_report(c, pod, want)
        with_selinux_component(c, want)
        log("installed and healthy %.1fs after the start" % (time.monotonic() - t0))
    left = leftovers(tmp, cg, rules) + crio_processes(tmp)
    if os.path.exists(CRIO_RUN):
        left.append("dir " + CRIO_RUN)
    assert not left, "the CRI-O cluster left behind: %s" % left
    log("wall time %.1fs, nothing left behind" % (time.monotonic() - t0))


if __name__ == "__main__":
    harness.main(globals())
