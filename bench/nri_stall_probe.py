#!/usr/bin/env python3
"""What a stalled NRI plugin does to a real containerd 2.x's CRI calls: a
probe that prints figures (no assertion; bench/results/nri-stall.md).

A private containerd (tests/e2e/containerd_fixture.py), the tests' NRI plugin
(tests/nri/stallplugin, scripts/build-nri-plugin) registered as 10-stall and
holding one event (env EV: CreateContainer, StopContainer, StopPodSandbox,
RunPodSandbox) for longer than NRI's plugin_request_timeout (env T, e.g.
"40s"; unset: containerd's 2 s default). While the held call waits it times,
every 0.5 s, ListContainers, Status and ContainerStatus (what the PLEG and
the kubelet's runtime check call), and one other call that fires an NRI
event (CreateContainer in a second pod) to see whether it waits behind the
held one. Then the runtime's NRI metric lines and its log lines about the
plugin.

Env PAGE=FILE keeps the runtime's metrics page after the hold. Run as root
after scripts/build (cri-driver) and scripts/build-nri-plugin:
  T=40s EV=StopContainer python3 bench/nri_stall_probe.py"""
import os
import subprocess
import sys
import threading
import time
import urllib.request

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "..", "tests", "e2e"), os.path.join(here, "..", "tests", "lib")]
import oci_image  # noqa: E402
from containerd_fixture import Containerd  # noqa: E402

BUILD = os.environ.get("PLEGSCOPE_BUILD_DIR", os.path.join(here, "..", "build"))
PLUGIN = subprocess.check_output([os.path.join(here, "..", "scripts", "build-nri-plugin"), "--print-path"],
                                 text=True).strip()
T = os.environ.get("T") or None
EVENT = os.environ.get("EV", "CreateContainer")


def now():
    return time.monotonic()


def main():
    ctd = Containerd(BUILD, nri_request_timeout=T)
    plug = None
    control = os.path.join(ctd.tmp, "nri-control")
    try:
        ctd.start()
        for _, tb in oci_image.build_e2e_images(os.path.join(ctd.tmp, "images")).items():
            ctd.import_image(tb)
        state = os.path.join(ctd.tmp, "nri-state")
        plug = subprocess.Popen([PLUGIN, "-socket", ctd.nri_socket, "-control", control, "-state", state],
                                stderr=subprocess.DEVNULL)
        t0 = now()
        while not (os.path.exists(state) and "registered" in open(state).read()):
            if now() - t0 > 30:
                raise SystemExit("the plugin did not register")
            time.sleep(0.05)
        sid = ctd.driver("run-pod", "p1", "uid-p1")
        sid2 = ctd.driver("run-pod", "p2", "uid-p2")
        cid0 = ctd.driver("create-container", sid, "c0", oci_image.WORKLOAD_IMAGE, "/workload")
        ctd.driver("start-container", cid0)
        with open(control, "w") as f:
            f.write(EVENT)
        held = {
            "CreateContainer": ["create-container", sid, "c1", oci_image.WORKLOAD_IMAGE, "/workload"],
            "StopContainer": ["stop-container", cid0, "1"],
            "StopPodSandbox": ["stop-pod", sid],
            "RunPodSandbox": ["run-pod", "p3", "uid-p3"],
        }[EVENT]
        result = {}

        def call():
            t = now()
            r = ctd._run_driver(held, timeout=300)
            result["held"] = (r.returncode, now() - t, (r.stdout + r.stderr).strip()[:160])
            result["ended"] = now()
        th = threading.Thread(target=call)
        th.start()
        while "stall" not in open(state).read():
            time.sleep(0.05)
        t0 = now()
        other = {}

        def other_call():  # another pod's container: its CreateContainer event reaches NRI too
            t = now()
            r = ctd._run_driver(["create-container", sid2, "other", oci_image.WORKLOAD_IMAGE, "/workload"],
                                timeout=300)
            other["create"] = (r.returncode, now() - t, t - t0, now() - t0)
        oth = None
        if EVENT != "CreateContainer":
            oth = threading.Thread(target=other_call)
            oth.start()
        samples = []
        while th.is_alive():
            for op in (["list"], ["status"], ["status-container", cid0]):
                t = now()
                r = ctd._run_driver(op, timeout=30)
                samples.append((op[0], r.returncode, now() - t))
            time.sleep(0.5)
        th.join()
        if oth:
            oth.join()
        print("containerd %s, plugin_request_timeout %s, plugin holds %s" % (
            ctd.bed.name, T or "default (2s)", EVENT))
        print("held call: exit %d after %.2fs %s" % result["held"])
        print("held call ended %.2fs into the hold" % (result["ended"] - t0))
        if other:
            print("another pod's CreateContainer during the hold: exit %d after %.2fs (from %.2fs to %.2fs "
                  "into the hold)" % other["create"])
        for op in ("list", "status", "status-container"):
            xs = [s[2] for s in samples if s[0] == op]
            bad = [s for s in samples if s[0] == op and s[1] != 0]
            print("%-17s %3d calls during the hold, slowest %.3fs, failed %d" % (op, len(xs), max(xs), len(bad)))
        page = urllib.request.urlopen(ctd.metrics_url).read().decode()
        if os.environ.get("PAGE"):  # keep the runtime's page (a parser fixture)
            with open(os.environ["PAGE"], "w") as f:
                f.write(page)
        for line in page.splitlines():
            if "nri" in line and not line.startswith("#") and "_bucket" not in line:
                print("  " + line)
        with open(ctd.log_path) as f:
            for line in f:
                if "plugin" in line and ("closing" in line or "closed" in line or "registered as" in line):
                    print("  log: " + line.strip()[:220])
        print("plugin: " + " | ".join(open(state).read().splitlines()))
    finally:
        if os.path.exists(control):
            open(control, "w").close()
        if plug:
            plug.kill()
            plug.wait()
        ctd.cleanup()


if __name__ == "__main__":
    main()
