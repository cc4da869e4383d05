"""The host scan on a real containerd: every shim of the test's containerd in
/diagnose host.processes.shims, mapped to the sandbox the runtime lists and
to that pod's namespace/name. The shims are found here independently of the
agent: live processes whose comm is containerd-shim* and whose command line
names this containerd's socket (-address), with the sandbox of their -id."""

import glob
import os


def read(path, mode="r"):
    try:
        with open(path, mode) as f:
            return f.read()
    except OSError:
        return None


def comm_of(pid):
    comm = read("/proc/%d/comm" % pid)
    return comm.strip() if comm is not None else None


def our_shims(socket_path):
    """{pid: sandbox id} of the live containerd-shim* processes of the
    containerd listening on `socket_path`."""
    shims = {}
    for d in glob.glob("/proc/[0-9]*"):
        pid = int(os.path.basename(d))
        comm = comm_of(pid)
        if not comm or not comm.startswith("containerd-shim"):
            continue
        raw = read(d + "/cmdline", "rb")
        if not raw:
            continue
        args = raw.decode(errors="replace").split("\0")
        if socket_path not in args:
            continue
        sandbox = args[args.index("-id") + 1] if "-id" in args[:-1] else ""
        shims[pid] = sandbox
    return shims


def problems(report, sandboxes, socket_path):
    """What is wrong with report["host"]["processes"]["shims"] against the
    runtime's READY sandboxes ([{"id", "namespace", "name"}]) and this
    containerd's real shims; [] when every sandbox has its live shim, mapped."""
    out = []
    procs = report["host"]["processes"]
    shims = procs.get("shims", [])
    real = our_shims(socket_path)
    by_sandbox = {}
    for s in shims:
        by_sandbox.setdefault(s["sandbox_id"], []).append(s)
    for sb in sandboxes:
        want = "%s/%s" % (sb["namespace"], sb["name"])
        entries = by_sandbox.get(sb["id"], [])
        if not entries:
            out.append("sandbox %s (%s): no shim in host.processes.shims" % (sb["id"][:12], want))
            continue
        for e in entries:
            comm = comm_of(e["pid"])
            if not comm or not comm.startswith("containerd-shim"):
                out.append("sandbox %s: pid %d is not a live containerd-shim (comm %r)" % (sb["id"][:12], e["pid"], comm))
            elif real.get(e["pid"]) != sb["id"]:
                out.append("sandbox %s: pid %d serves %r by its command line" % (sb["id"][:12], e["pid"],
                                                                                 real.get(e["pid"])))
            if e["pod"] != want:
                out.append("sandbox %s: pod %r, expected %r" % (sb["id"][:12], e["pod"], want))
    listed = {s["pid"]: s for s in shims}
    for pid, sandbox in real.items():
        if pid not in listed:
            out.append("shim pid %d (sandbox %s) of this containerd missing from host.processes.shims"
                       % (pid, sandbox[:12]))
        elif not listed[pid]["pod"]:
            out.append("shim pid %d (sandbox %s) of this containerd is unmapped" % (pid, sandbox[:12]))
    if procs.get("shims_total", 0) < len(shims):
        out.append("shims_total %r < %d listed" % (procs.get("shims_total"), len(shims)))
    return out
