"""Where a container's cgroup lives, on cgroup v1 and v2.

The private containerd runs runc with the cgroupfs driver and a cgroup
parent of ours, so a container's cgroup is <parent>/<container id>:
  v2 (unified, /sys/fs/cgroup is cgroup2): /sys/fs/cgroup/<parent>/<id>
  v1 (and hybrid, where only systemd's tree is v2): one directory per
     hierarchy, /sys/fs/cgroup/<controller>/<parent>/<id>; processes are
     read from the pids hierarchy (memory, then systemd's, if pids is not
     mounted).
"""

import glob
import os

# Overridable to exercise the v2 code on a hybrid v1 host, whose v2 tree
# (/sys/fs/cgroup/unified) holds the containers' processes too.
ROOT = os.environ.get("PLEGSCOPE_E2E_CGROUP_ROOT", "/sys/fs/cgroup")
_V1_PROCS_HIERARCHIES = ("pids", "memory", "systemd")


def _fs_type(mount_point):
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if fields[4] == mount_point:
                return fields[fields.index("-") + 1]
    return None


def version():
    """2 when /sys/fs/cgroup is the unified hierarchy, else 1."""
    return 2 if _fs_type(ROOT) == "cgroup2" else 1


def procs_base(parent):
    """The directory under which <id>/cgroup.procs lists a container's PIDs."""
    rel = parent.lstrip("/")
    if version() == 2:
        return os.path.join(ROOT, rel)
    for hierarchy in _V1_PROCS_HIERARCHIES:
        if os.path.isdir(os.path.join(ROOT, hierarchy)):
            return os.path.join(ROOT, hierarchy, rel)
    raise AssertionError("cgroup v1 without a pids, memory or systemd hierarchy under %s" % ROOT)


def dirs(parent):
    """Every existing cgroup directory of `parent` (one on v2, one per hierarchy on v1)."""
    rel = parent.lstrip("/")
    if version() == 2:
        candidates = [os.path.join(ROOT, rel)]
    else:
        candidates = glob.glob(os.path.join(ROOT, "*", rel))
    return [d for d in candidates if os.path.isdir(d)]


def pids(parent, cid=None):
    """PIDs in one container's cgroup, or in every cgroup under `parent`."""
    base = procs_base(parent)
    if cid:
        files = [os.path.join(base, cid, "cgroup.procs")]
    else:
        files = [os.path.join(dp, "cgroup.procs") for dp, _, _ in os.walk(base)]
    found = set()
    for fn in files:
        try:
            with open(fn) as f:
                found.update(int(x) for x in f.read().split())
        except OSError:
            pass
    return sorted(found)
