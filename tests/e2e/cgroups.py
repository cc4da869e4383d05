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

import harness  # tests/lib, on PYTHONPATH

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


FREEZER = "/sys/fs/cgroup/freezer"  # the cgroup v1 freezer hierarchy


def freeze(pid, name):
    """Stops `pid` in the kernel with the cgroup v1 freezer, every task of it
    in D, in a freezer cgroup of its own (FREEZER/plegscope-freeze-NAME: not
    the containers' cgroup parent, whose children freezing would stop too);
    returns that cgroup's directory, for thaw()."""
    d = os.path.join(FREEZER, "plegscope-freeze-" + name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "cgroup.procs"), "w") as f:
        f.write(str(pid))
    with open(os.path.join(d, "freezer.state"), "w") as f:
        f.write("FROZEN")
    harness.wait_until(lambda: open(os.path.join(d, "freezer.state")).read().strip() == "FROZEN", 10,
                "pid %d frozen" % pid)
    return d


def thaw(d):
    """Thaws freeze()'s cgroup `d`, moves its tasks back to the root freezer
    cgroup and removes it."""
    if not d or not os.path.isdir(d):
        return
    with open(os.path.join(d, "freezer.state"), "w") as f:
        f.write("THAWED")
    for task in open(os.path.join(d, "cgroup.procs")).read().split():
        try:
            with open(os.path.join(FREEZER, "cgroup.procs"), "w") as f:
                f.write(task)
        except OSError:
            pass  # exited meanwhile

    def removed():  # EBUSY until the kernel has moved every task out
        try:
            os.rmdir(d)
            return True
        except OSError:
            return False
    harness.wait_until(removed, 10, "the freezer cgroup %s removed" % d)



def unified_root():
    """The cgroup2 hierarchy this host mounts: /sys/fs/cgroup (unified), or
    /sys/fs/cgroup/unified (hybrid, as on this project's machines), or None."""
    for d in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
        if _fs_type(d) == "cgroup2":
            return d
    return None


def v2_move(pids, d):
    """Moves `pids` (whole processes) into the v2 cgroup `d`, made if needed."""
    os.makedirs(d, exist_ok=True)
    for pid in pids:
        with open(os.path.join(d, "cgroup.procs"), "w") as f:
            f.write(str(pid))


def v2_freeze(d):
    """Freezes the v2 cgroup `d` and waits for the kernel to say it is done
    (cgroup.events "frozen 1"): its tasks then sleep in S, not D."""
    with open(os.path.join(d, "cgroup.freeze"), "w") as f:
        f.write("1")
    harness.wait_until(lambda: "frozen 1" in open(os.path.join(d, "cgroup.events")).read(), 10,
                       "%s frozen" % d)


def v2_remove(d, root):
    """Thaws the v2 cgroup `d` and everything below it, moves their processes
    back to `root` and removes the cgroups, deepest first."""
    if not d or not os.path.isdir(d):
        return
    for dp, _, _ in sorted(os.walk(d), key=lambda w: -w[0].count("/")):
        with open(os.path.join(dp, "cgroup.freeze"), "w") as f:
            f.write("0")
        for pid in open(os.path.join(dp, "cgroup.procs")).read().split():
            try:
                with open(os.path.join(root, "cgroup.procs"), "w") as f:
                    f.write(pid)
            except OSError:
                pass  # exited meanwhile

        def removed(dp=dp):  # EBUSY until the kernel has moved every task out
            try:
                os.rmdir(dp)
                return True
            except OSError:
                return False
        harness.wait_until(removed, 10, "the cgroup %s removed" % dp)
