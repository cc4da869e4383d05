#!/usr/bin/env python3
"""The cgroup v2 witness on a real cgroup v2 node, in a virtual machine:
systemd as PID 1, dbus, every controller, containerd 2.3 + runc
1.4 with the systemd cgroup driver, pods made through CRI as the kubelet
makes them (kubepods.slice/kubepods-burstable.slice/...-pod<uid>.slice,
cri-containerd-<id>.scope), the agent as the DaemonSet runs it (uid 65532,
gid 0, no capability, /host/proc and /host/sys read-only).

The VM (scripts/build-vm, cached) boots under qemu's software emulation;
tests/vm/vm.py has the host's side (the forwarded door, the console, the
cleanup), tests/vm/guest_scenarios.py runs inside the guest and times each
scenario on the guest's clock (times are compared inside the VM only).

Which scenarios: env PLEGSCOPE_VM_SCENARIOS (comma-separated), by default
all of them (label `vm`); the `vm-short` test runs frozen_systemd only
(boot, one frozen container named by container_frozen, shutdown). The results, each scenario's
report excerpt and time to name it with the boot and shutdown times, go to
$PLEGSCOPE_BUILD_DIR/vm-results/<test>.json.

A skip (exit 77) only when qemu or the built VM is missing, and under env CI
not even then (scripts/install-deps test builds it)."""

import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
import vm as vmlib  # noqa: E402

ALL = ["frozen_systemd", "frozen_runc", "pids_max", "oom_restart_loop", "runtime_cpu_pressure",
       "dbus_stopped", "dying_descendants"]
SCENARIOS = [s for s in os.environ.get("PLEGSCOPE_VM_SCENARIOS", ",".join(ALL)).split(",") if s]
NAME = os.environ.get("PLEGSCOPE_VM_TEST", "vm")


class Ctx:
    vm = None
    booted = False
    scratch = None
    results = {"scenarios": {}}
    t0 = None


def log(msg):
    print(msg, flush=True)


def guest(*args, timeout=600):
    r = Ctx.vm.run(["python3", "/opt/plegscope/guest_scenarios.py"] + list(args), timeout=timeout)
    if r["err"].strip():
        log(r["err"].rstrip())
    return r


def test_boot():
    Ctx.t0 = time.monotonic()
    reason = vmlib.missing()
    if reason:
        raise harness.Skip(reason)
    build = harness.build_dir()
    for exe in ("plegscope", "cri-driver"):
        assert os.access(os.path.join(build, exe), os.X_OK), "%s/%s not built" % (build, exe)
    Ctx.scratch = vmlib.scratch_dir("src-")
    payload, binaries = vmlib.default_payload(build, Ctx.scratch)
    vm = vmlib.VM(payload, binaries)
    Ctx.vm = vm  # stopped and removed at the end, booted or not
    vm.start()
    Ctx.booted = True
    Ctx.results["boot_s"] = round(Ctx.vm.timings["boot_s"], 1)
    Ctx.results["payload_s"] = round(Ctx.vm.timings["payload_s"], 2)
    r = guest("setup", timeout=300)
    assert r["rc"] == 0, "setup in the guest failed: %s%s" % (r["out"][-3000:], r["err"][-3000:])
    setup = json.loads(r["out"].strip().splitlines()[-1])
    Ctx.results["setup"] = setup
    log("  guest: kernel %s, %s; controllers %s (subtree %s), v1 mounted: %s"
        % (setup["kernel"], setup["containerd"], setup["controllers"], setup["subtree_control"],
           setup["v1_mounted"]))
    log("  agent: %s; the report's v2 view: mode %s, driver %s, runtime unit %s"
        % (setup["agent"], setup["mode"], setup["driver"], setup["runtime_unit"]))
    log("  images imported in %.1f s, the agent serving %.1f s later (guest clock)"
        % (setup["images_s"], setup["agent_s"]))
    for c in ("cpuset", "cpu", "io", "memory", "hugetlb", "pids", "rdma", "misc"):
        assert c in setup["controllers"], (c, setup["controllers"])
    for c in ("cpu", "io", "memory", "pids"):
        assert c in setup["subtree_control"], (c, setup["subtree_control"])
    assert not setup["v1_mounted"], "a cgroup v1 hierarchy is mounted"
    assert setup["mode"] == "unified", setup
    assert setup["runtime_unit"] == ["system.slice/containerd.service"], setup["runtime_unit"]


def test_scenarios():
    assert Ctx.booted, "the VM did not boot"
    failed = []
    for name in SCENARIOS:
        r = guest(name, timeout=600)
        lines = [l for l in r["out"].splitlines() if l.startswith("{")]
        assert lines, "scenario %s printed nothing: rc %d %s" % (name, r["rc"], r["err"][-2000:])
        res = json.loads(lines[-1])
        Ctx.results["scenarios"][name] = res
        if res["ok"]:
            ex = res["excerpt"]
            t = res["seconds_to_name"]
            log("  %s: in the report after %s (guest clock), scenario wall %.1f s; status %s; named by a cause: %s"
                % (name, "%.1f s" % t if t is not None else "never", res["wall_s"], ex["status"], ex["named_by"]))
            for c in ex["causes"]:
                log("    cause %s (%s): %s" % (c["id"], c["severity"], c["summary"][:400]))
                log("      evidence %s" % c["evidence"])
            if ex.get("unit"):
                u = ex["unit"]
                log("    unit %s: %s" % (u["path"], {k: u.get(k) for k in (
                    "role", "pod", "frozen", "freeze", "pids_max", "pids_events_max", "memory_oom_kill",
                    "nr_dying_descendants", "pressure")}))
            if res.get("notes"):
                log("    notes: %s" % res["notes"])
            if name.startswith("frozen_"):
                assert ex["unit"]["frozen"] and ex["unit"]["pod"].startswith("plegscope-vm/"), ex["unit"]
                assert ex["unit"]["path"].startswith("kubepods.slice/kubepods-burstable.slice/"), ex["unit"]
                # Past --hang-threshold the freeze is a cause naming the pod and its scope.
                scope = ex["unit"]["path"].rsplit("/", 1)[-1]
                frozen = [c for c in ex["causes"] if c["id"] == "container_frozen"]
                assert frozen, "no container_frozen: %s" % [c["id"] for c in ex["causes"]]
                c = frozen[0]
                assert ex["unit"]["pod"] in c["summary"] and scope in c["summary"], c["summary"]
                assert c["severity"] in ("warning", "critical"), c
                assert any(e.startswith("seconds_frozen{cgroup=") for e in c["evidence"]), c["evidence"]
                assert "systemctl thaw" in c["remedy"] and "cgroup.freeze" in c["remedy"], c["remedy"]
            if name == "dbus_stopped":
                # The stopped bus is named with the daemon and the runc that waits on it, advice none:
                # the runtime is fine.
                bus = [c for c in ex["causes"] if c["id"] == "systemd_bus_stalled"]
                assert bus, "no systemd_bus_stalled: %s" % [c["id"] for c in ex["causes"]]
                c = bus[0]
                assert c["severity"] == "warning" and c["advice"] == "none", c
                assert "state T" in c["summary"] and "runc (pid " in c["summary"], c["summary"]
                assert any(e.startswith("bus_stalled_seconds{") for e in c["evidence"]), c["evidence"]
                assert "kill -CONT" in c["remedy"] and "restart" not in c["remedy"].split("Do not:")[0], c["remedy"]
                assert res["notes"]["run_pod_waiting"] and res["notes"]["dbus_daemon_state"] == "T", res["notes"]
        else:
            failed.append(name)
            log("  %s FAILED: %s\n%s\n  last report: %s" % (name, res["error"], res.get("trace", ""),
                                                           json.dumps(res.get("last_report"))[:4000]))
    assert not failed, "scenarios failed: %s" % failed


def test_shutdown():
    assert Ctx.booted, "the VM did not boot"
    pid, tmp = Ctx.vm.proc.pid, Ctx.vm.tmp
    Ctx.results["shutdown_s"] = round(Ctx.vm.shutdown(), 1)
    Ctx.vm.close()
    Ctx.vm = None
    log("  poweroff to qemu's exit: %.1f s" % Ctx.results["shutdown_s"])
    assert not os.path.exists("/proc/%d" % pid) or "qemu" not in open("/proc/%d/cmdline" % pid).read(), \
        "qemu %d still running" % pid
    assert not os.path.exists(tmp), "%s left behind" % tmp
    Ctx.results["wall_s"] = round(time.monotonic() - Ctx.t0, 1)
    out = os.path.join(harness.build_dir(), "vm-results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, NAME + ".json"), "w") as f:
        json.dump(Ctx.results, f, indent=1)
    log("  boot %.1f s, wall %.1f s; results in %s/%s.json" % (Ctx.results["boot_s"], Ctx.results["wall_s"],
                                                              out, NAME))


def teardown():
    if Ctx.vm is not None:
        Ctx.vm.close()
    if Ctx.scratch:
        shutil.rmtree(Ctx.scratch, ignore_errors=True)
    leftovers = subprocess.run(["sh", "-c", "ls -d /tmp/%s* 2>/dev/null" % vmlib.TMP_PREFIX],
                               capture_output=True, text=True).stdout.split()
    if leftovers:
        log("  note: other %s* directories exist (another run's?): %s" % (vmlib.TMP_PREFIX, leftovers))


if __name__ == "__main__":
    try:
        harness.main(globals())
    finally:
        teardown()
