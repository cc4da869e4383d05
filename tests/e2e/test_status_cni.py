#!/usr/bin/env python3
"""The runtime's CRI Status beside a CNI plugin that blocks, on a real
containerd: 2.3 (go-cni 1.1.13) by default, Debian 12's 1.6.20 (go-cni
1.1.7) in the `matrix` label.

containerd's Status asks go-cni whether the network is ready, under go-cni's
lock; a CNI configuration reload takes that lock to write. Where a plugin
call holds the lock for its whole run (go-cni before 1.0, and the deadlock
of containerd 2.0.1 and 2.0.2), a plugin that blocks hangs Status while the
lists answer, and the kubelet says "container runtime is down". In go-cni
1.1.7 a plugin's ADD runs without the lock, so on this containerd it should
not: measured here, with a pod-network RunPodSandbox waiting in a CNI ADD
that blocks and a configuration reload meanwhile, for longer than the
kubelet's 30 s:

  * Status answers every time within its deadline (cri-driver status), with
    NetworkReady true;
  * the agent's probe keeps its sync fresh: no runtime_status_hung, the
    report's runtime_status not down, pleg_runtime_status_healthy 1;
  * released, the plugin's ADD returns and RunPodSandbox ends.

containerd 2.x (go-cni 1.1.13, read in its cni.go) is such a runtime: Setup
holds go-cni's read lock for the whole ADD, the reload's Load waits for the
write lock, and Status's read lock queues behind that writer (Go's RWMutex),
so Status hangs until the ADD returns. There the test asserts that instead:
Status misses its deadline, the agent ranks runtime_status_hung first ("its
container lists answer") and, past the kubelet's 30 s, says the runtime is
down for the kubelet (pleg_runtime_status_healthy 0, PLEG itself healthy);
released, Status answers again. The fake runtime's diag_status_hang
(tests/diagnose/test_runtime_status.py) stands in for other runtimes whose
Status hangs. Exit 77 (skip) only when
this machine cannot run containers."""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
from e2e_context import E2eContext, skip_if  # noqa: E402  (tests/lib)
import oci_image  # noqa: E402
import containerd_fixture  # noqa: E402
from containerd_fixture import Containerd, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, Agent, log, wait_until  # noqa: E402

KUBELET_DOWN = 30.0
WATCH = KUBELET_DOWN + 10

PLUGIN = """#!/bin/sh
# A CNI plugin whose ADD blocks until {release} exists (at most 300 s).
case "$CNI_COMMAND" in
VERSION) echo '{{"cniVersion":"0.4.0","supportedVersions":["0.3.0","0.3.1","0.4.0"]}}' ;;
ADD)
  cat >/dev/null
  touch {mark}
  i=0
  while [ ! -e {release} ] && [ $i -lt 1500 ]; do sleep 0.2; i=$((i+1)); done
  echo '{{"cniVersion":"0.4.0","interfaces":[{{"name":"eth0"}}],"ips":[{{"version":"4","address":"10.88.0.2/16","interface":0}}]}}'
  ;;
*) cat >/dev/null ;;
esac
"""

LOOPBACK = """#!/bin/sh
# Stands in for the loopback plugin containerd adds beside every network.
cat >/dev/null
[ "$CNI_COMMAND" = VERSION ] && echo '{"cniVersion":"0.4.0","supportedVersions":["0.3.0","0.3.1","0.4.0"]}'
[ "$CNI_COMMAND" = ADD ] && echo '{"cniVersion":"0.4.0"}'
exit 0
"""


def conflist(name):
    return '{"cniVersion": "0.4.0", "name": "%s", "plugins": [{"type": "blocker"}]}\n' % name


Ctx = E2eContext(ctd=None, pod=None, mark=None, release=None)


def write_plugin(ctd):
    Ctx.mark = os.path.join(ctd.tmp, "cni-add-started")
    Ctx.release = os.path.join(ctd.tmp, "cni-add-release")
    for name, text in (("blocker", PLUGIN.format(mark=Ctx.mark, release=Ctx.release)), ("loopback", LOOPBACK)):
        path = os.path.join(ctd.tmp, "cni", "bin", name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    with open(os.path.join(ctd.tmp, "cni", "conf", "10-blocker.conflist"), "w") as f:
        f.write(conflist("blocker"))


def start():
    if Ctx.ctd is not None:
        return
    skip_if(skip_reason())
    harness.require_binary("cri-driver")
    Ctx.ctd = Containerd(BUILD_DIR)
    write_plugin(Ctx.ctd)
    Ctx.ctd.start()
    for name, tarball in oci_image.build_e2e_images(os.path.join(Ctx.ctd.tmp, "images")).items():
        Ctx.ctd.import_image(tarball)
    wait_until(lambda: "NetworkReady=true" in Ctx.ctd.driver("status"), 30, "containerd to load the CNI configuration")
    Ctx.agent = Agent(Ctx.ctd.endpoint, ["--hang-threshold", "3s", "--node-name", "e2e"], log_level="info")
    Ctx.agent.__enter__()
    wait_until(lambda: Ctx.agent.json("/diagnose")["runtime_status"]["seconds_since_success"] is not None, 30,
               "the agent's first Status")


def status_seconds():
    t0 = time.monotonic()
    r = Ctx.ctd._run_driver(["status"], timeout=5)
    return r.returncode, time.monotonic() - t0, (r.stdout + r.stderr).strip()


def test_status_answers_while_a_cni_plugin_blocks():
    start()
    env = dict(os.environ, CRI_CGROUP_PARENT=Ctx.ctd.cgroup_parent)
    Ctx.pod = subprocess.Popen([Ctx.ctd.driver_bin, "--endpoint", Ctx.ctd.endpoint, "--timeout", "240",
                                "run-pod-net", "cni-blocked", "uid-cni-blocked"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    wait_until(lambda: os.path.exists(Ctx.mark), 60, "RunPodSandbox to reach the CNI plugin's ADD")
    blocked_at = time.monotonic()
    log("CNI ADD blocked; reloading the CNI configuration meanwhile")
    with open(os.path.join(Ctx.ctd.tmp, "cni", "conf", "20-reload.conflist"), "w") as f:
        f.write(conflist("reload"))
    if containerd_fixture.major_version() >= 2:
        return status_hangs_behind_the_reload(blocked_at)
    answers, worst_report = [], None
    while time.monotonic() - blocked_at < WATCH:
        rc, seconds, out = status_seconds()
        answers.append((rc, seconds, out))
        rep = Ctx.agent.json("/diagnose")
        rs = rep["runtime_status"]
        if worst_report is None or (rs["seconds_since_success"] or 0) > (worst_report["seconds_since_success"] or 0):
            worst_report = rs
        assert rc == 0, "Status failed while the plugin blocks: %s" % out
        assert "runtime_status_hung" not in [c["id"] for c in rep["causes"]], rep["causes"]
        assert not rs["runtime_down"], rs
        time.sleep(2)
    assert Ctx.pod.poll() is None, "RunPodSandbox returned while the plugin blocks: %s" % (Ctx.pod.communicate(),)
    m = Ctx.agent.metrics()
    assert m.get("pleg_runtime_status_healthy") == 1
    slowest = max(a[1] for a in answers)
    log("%d Status calls over %.0fs of a blocked CNI ADD: all answered, slowest %.3fs; the agent's sync at most "
        "%.1fs old; last answer: %s" % (len(answers), WATCH, slowest, worst_report["seconds_since_success"],
                                        answers[-1][2]))
    assert worst_report["seconds_since_success"] < 10, worst_report


def status_hangs_behind_the_reload(blocked_at):
    """containerd 2.x: Status queues behind the reload's write lock, which
    waits for the blocked ADD's read lock (see the module's docstring)."""
    def status_hung():
        rc, seconds, out = status_seconds()
        return rc != 0 and (rc, seconds, out)
    rc, seconds, out = wait_until(status_hung, 30, "Status to miss its deadline behind the CNI reload")
    log("Status %.1fs after the ADD blocked: exit %d after %.1fs: %s" % (time.monotonic() - blocked_at, rc, seconds,
                                                                        out[:120]))
    assert "DEADLINE_EXCEEDED" in out, out

    def top_is_status_hung():
        rep = Ctx.agent.json("/diagnose")
        return rep["causes"] and rep["causes"][0]["id"] == "runtime_status_hung" and rep
    rep = wait_until(top_is_status_hung, 30, "runtime_status_hung first")
    top = rep["causes"][0]
    log("runtime_status_hung first %.1fs after the ADD blocked: %s" % (time.monotonic() - blocked_at, top["summary"]))
    assert "its container lists answer" in top["summary"], top["summary"]
    assert rep["healthy"], "PLEG itself is healthy: %s" % rep["causes"]

    def down():
        r = Ctx.agent.json("/diagnose")
        return r["runtime_status"]["runtime_down"] and r
    rep = wait_until(down, KUBELET_DOWN + 20, "the kubelet's 30 s rule")
    rs = rep["runtime_status"]
    log("runtime down for the kubelet %.1fs after the ADD blocked: %s; %s" % (
        time.monotonic() - blocked_at, rs["kubelet_errors"], rep["causes"][0]["summary"][:160]))
    assert rep["causes"][0]["id"] == "runtime_status_hung", rep["causes"]
    assert rs["kubelet_errors"][0] == "container runtime is down", rs
    m = Ctx.agent.metrics()
    assert m.get("pleg_runtime_status_healthy") == 0
    assert m.get("pleg_healthy") == 1
    assert Ctx.pod.poll() is None, "RunPodSandbox returned while the plugin blocks: %s" % (Ctx.pod.communicate(),)


def test_released_the_add_returns():
    start()
    if Ctx.pod is None:
        raise harness.Skip("the blocking step did not run")
    open(Ctx.release, "w").close()
    out, err = Ctx.pod.communicate(timeout=120)
    log("RunPodSandbox after the release: exit %d %s" % (Ctx.pod.returncode, (out or err).strip()[:200]))
    if Ctx.pod.returncode == 0:
        Ctx.ctd.sandbox_ids.add(out.strip())
    if containerd_fixture.major_version() >= 2:
        rc, seconds, out = wait_until(lambda: (lambda a: a[0] == 0 and a)(status_seconds()), 30,
                                      "Status to answer once the ADD returned")
        log("Status answers again after the release (%.3fs): %s" % (seconds, out[:80]))


def teardown():
    if Ctx.release and not os.path.exists(Ctx.release) and Ctx.ctd is not None:
        open(Ctx.release, "w").close()
    if Ctx.pod is not None and Ctx.pod.poll() is None:
        Ctx.pod.kill()
        Ctx.pod.communicate()
    Ctx.stop_agent()
    return Ctx.end_runtime("ctd")


def test_zz_teardown_leaves_nothing():
    if Ctx.ctd is None:
        raise harness.Skip("containerd was not started")
    tmp = Ctx.ctd.tmp
    teardown()
    assert not os.path.exists(tmp), "%s left" % tmp


if __name__ == "__main__":
    Ctx.run(globals(), teardown)
