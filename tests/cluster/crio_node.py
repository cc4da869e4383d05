"""The e2e CRI-O (tests/e2e/crio_fixture.py) as a node's runtime, for the
cluster harness's Cluster(runtime="crio").

It answers where a CRI-O node's does, /run/crio/crio.sock (CRI-O's default
listen path, /var/run being /run), so the kubelet and deploy/components/crio
find it there. /run/crio is made by make_crio() and removed by
release_run_dir(); one already there is refused, except an empty one or one
holding only a dead socket and CRI-O's seccomp dir (a killed run's). Everything else of CRI-O's stays
under the fixture's temp dir.

Two things a node has and this sandbox may lack, both met only by the
kubelet's pods, are fitted in the OCI runtime's spec at `create` (RUNC_SANDBOX; crun or runc), and
only when the host lacks them:
  CAP_SYS_RESOURCE   without it runc cannot set an oom_score_adj below its
                     own, and the kubelet asks -997 for system-node-critical
                     pods; containerd's fixture clamps with
                     restrict_oom_score_adj, a setting CRI-O lacks, so the
                     wrapper clamps the same way
  hugetlb (v1)       CRI-O passes the kubelet's hugepage limits on when the
                     kernel lists the controller (/proc/cgroups), mounted or
                     not; runc then fails "cannot set hugetlb limit" on a
                     cgroup v1 host without the hierarchy mounted
"""

import os
import shutil
import socket
import sys

import cgroups  # tests/e2e
import crio_fixture  # tests/e2e
import harness  # tests/lib

CRIO_RUN = "/run/crio"
SOCK = os.path.join(CRIO_RUN, "crio.sock")
CAP_SYS_RESOURCE = 24
RUNC_SANDBOX = """#!%(python)s
# The OCI runtime (runc or crun: the same `create --bundle` argv), with a new container's spec fitted to this sandbox at `create`: its
# oom_score_adj raised to this process's own when it asks lower without
# CAP_SYS_RESOURCE (what containerd's restrict_oom_score_adj does), its
# hugepage limits dropped when cgroup v1 has no hugetlb hierarchy mounted.
import json, os, sys
args = sys.argv[1:]
if "create" in args:
    flag = "--bundle" if "--bundle" in args else "-b" if "-b" in args else None
    path = os.path.join(args[args.index(flag) + 1] if flag else os.getcwd(), "config.json")
    with open(path) as f:
        spec = json.load(f)
    with open("/proc/self/oom_score_adj") as f:
        own = int(f.read())
    with open("/proc/self/status") as f:
        eff = int(next(x.split()[1] for x in f if x.startswith("CapEff:")), 16)
    proc, res = spec.get("process", {}), spec.get("linux", {}).get("resources", {})
    if proc.get("oomScoreAdj", own) < own and not eff >> 24 & 1:
        proc["oomScoreAdj"] = own
    v1 = not os.path.exists("/sys/fs/cgroup/cgroup.controllers")
    if res.get("hugepageLimits") and v1 and not os.path.isdir("/sys/fs/cgroup/hugetlb"):
        del res["hugepageLimits"]
    with open(path, "w") as f:
        json.dump(spec, f)
os.execv("%(runc)s", ["%(runc)s"] + args)
"""


def skip_reason():
    return crio_fixture.skip_reason()


def make_crio():
    """The e2e CRI-O, not started, configured to listen on /run/crio/crio.sock."""
    _claim_run_dir()
    try:
        crio = crio_fixture.Crio(harness.build_dir())
    except BaseException:
        shutil.rmtree(CRIO_RUN, ignore_errors=True)
        raise
    crio.node_run_dir = CRIO_RUN
    crio.sock, crio.endpoint = SOCK, "unix://" + SOCK
    crio._write_config()  # again, with the node's socket path
    if not _has_cap(CAP_SYS_RESOURCE) or not _hugetlb_mounted():
        _runc_for_sandbox(crio)
    return crio


def release_run_dir(crio):
    """Removes /run/crio if CRIO (the fixture, or None) made it."""
    if crio is not None and getattr(crio, "node_run_dir", None):
        shutil.rmtree(crio.node_run_dir, ignore_errors=True)


def _claim_run_dir():
    if os.path.exists(CRIO_RUN):
        left = sorted(os.listdir(CRIO_RUN))
        # What a CRI-O of ours leaves there: its socket and seccomp notifier dir.
        if not set(left) <= {"crio.sock", "seccomp"} or _socket_alive(SOCK):
            raise RuntimeError("%s exists (%s): another CRI-O owns this node's socket dir"
                               % (CRIO_RUN, ", ".join(left) or "empty"))
        print("[cluster] removing a dead %s left by a killed run" % CRIO_RUN, flush=True)
        shutil.rmtree(CRIO_RUN)
    os.mkdir(CRIO_RUN, 0o755)


def _runc_for_sandbox(crio):
    """Wraps the bed's default OCI runtime (crun on CRI-O 1.36, runc on the 1.34 row)."""
    runtime = getattr(crio, "runtime_path", None) or shutil.which("runc") or "/usr/sbin/runc"
    wrapper = os.path.join(crio.tmp, "runtime-sandbox")
    with open(wrapper, "w") as f:
        f.write(RUNC_SANDBOX % {"python": sys.executable, "runc": runtime})
    os.chmod(wrapper, 0o755)
    dropin = os.path.join(crio.tmp, "crio.conf.d", "10-plegscope-e2e.conf")
    with open(dropin) as f:
        text = f.read()
    line = 'runtime_path = "%s"' % runtime
    if line not in text:
        raise RuntimeError("no `%s` in %s to wrap" % (line, dropin))
    with open(dropin, "w") as f:
        f.write(text.replace(line, 'runtime_path = "%s"' % wrapper))


def _has_cap(bit):
    with open("/proc/self/status") as f:
        eff = next(line.split()[1] for line in f if line.startswith("CapEff:"))
    return bool(int(eff, 16) >> bit & 1)


def _hugetlb_mounted():
    """True on cgroup v2, or on v1 with the hugetlb hierarchy mounted."""
    return cgroups.version() == 2 or os.path.isdir("/sys/fs/cgroup/hugetlb")


def _socket_alive(path):
    """True when something accepts connections on the unix socket PATH."""
    with socket.socket(socket.AF_UNIX) as s:
        try:
            s.connect(path)
            return True
        except OSError:
            return False
