#!/usr/bin/env python3
"""A configured CNI plugin that answers STATUS unhealthy (CNI spec 1.1.0), on
a real runtime: containerd 2.3 (PLEGSCOPE_CNI_RUNTIME=containerd, the
default) or CRI-O 1.36 (=crio). The plugin is the project's own
(tests/e2e/cni-status-plugin, built by scripts/build-cni-plugin on the CNI
module's skel): it answers ADD, DEL, CHECK and VERSION as a plugin with
nothing to set up, and STATUS with error 50 "plugin not available" in the
words of its control file while that file exists. Its network is the
runtime's first configuration (10-status.conflist, cniVersion 1.1.0), so it
is the network the runtime asks.

  * flipped unhealthy: the runtime's CRI Status says NetworkReady=false,
    reason NetworkPluginNotReady, "Network plugin returns error: " and the
    plugin's words, which do not name it (measured: how long after the flip);
  * the agent names runtime_network_not_ready in its plugin form: the
    plugin status-plugin, its network and file (from --cni-conf-dir), its
    words, its node agent to fix, not the runtime (measured: time to name);
  * flipped back: NetworkReady true again and the report all clear (measured).

containerd calls STATUS inside every CRI Status call; CRI-O only from its own
poll every 5 s, and after start-up only with cni_status_grace_period set (its
default 0 turns the poll off: a plugin that turns unhealthy after start is
never seen), so the CRI-O bed sets 1s. Exit 77 (skip) only when this
machine cannot run the runtime, never under CI."""

import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
from e2e_context import E2eContext, cause, skip_if  # noqa: E402  (tests/lib)
import containerd_fixture  # noqa: E402
import crio_fixture  # noqa: E402
from e2e_util import BUILD_DIR, Agent, log, wait_until  # noqa: E402

RUNTIME = os.environ.get("PLEGSCOPE_CNI_RUNTIME", "containerd")
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
# What a plugin whose node daemon is gone says; it does not name the plugin,
# so the agent has to name it from the configuration.
WORDS = "node agent at /run/netd/agent.sock does not answer"
GRACE = "1s"

Ctx = E2eContext(rt=None, unhealthy=None, conf_dir=None, figures={})


def build_plugin():
    r = subprocess.run([os.path.join(SOURCE, "scripts", "build-cni-plugin")], capture_output=True, text=True,
                       timeout=600)
    if r.returncode != 0:
        raise harness.Skip("scripts/build-cni-plugin failed: %s" % (r.stderr.strip()[-300:] or r.returncode))
    return os.path.join(r.stdout.strip().splitlines()[-1], "status-plugin")


def install_plugin(rt, plugin):
    """The plugin in the runtime's CNI bin dir and its network first in the conf dir."""
    bin_dir = os.path.join(rt.tmp, "cni", "bin")
    os.makedirs(bin_dir, exist_ok=True)
    shutil.copy(plugin, os.path.join(bin_dir, "status-plugin"))
    Ctx.conf_dir = os.path.join(rt.tmp, "cni", "conf")
    Ctx.unhealthy = os.path.join(rt.tmp, "status-plugin-unhealthy")
    with open(os.path.join(Ctx.conf_dir, "10-status.conflist"), "w") as f:
        json.dump({"cniVersion": "1.1.0", "name": "plegscope-status",
                   "plugins": [{"type": "status-plugin", "unhealthyFile": Ctx.unhealthy}]}, f)
    if RUNTIME == "crio":
        # A drop-in after the fixture's: CRI-O finds the plugin beside its
        # loopback, and polls STATUS after start-up.
        with open(os.path.join(rt.tmp, "crio.conf.d", "20-cni-status.conf"), "w") as f:
            f.write('[crio.network]\nplugin_dirs = ["%s", "/usr/lib/cni"]\ncni_status_grace_period = "%s"\n'
                    % (bin_dir, GRACE))


def start_runtime():
    if RUNTIME == "crio":
        skip_if(crio_fixture.skip_reason(), "CRI-O e2e cannot run on this machine: ")
        rt = crio_fixture.Crio(BUILD_DIR)
    elif RUNTIME == "containerd":
        skip_if(containerd_fixture.skip_reason())
        rt = containerd_fixture.Containerd(BUILD_DIR)
    else:
        raise AssertionError("PLEGSCOPE_CNI_RUNTIME=%s: expected containerd or crio" % RUNTIME)
    Ctx.rt = rt
    install_plugin(rt, build_plugin())
    rt.start()
    return rt


def network_condition():
    out = Ctx.rt.driver("conditions", timeout=10)
    return next(c for c in json.loads(out) if c["type"] == "NetworkReady")


def plugin_cause(rep):
    c = cause(rep, "runtime_network_not_ready")
    return c if c and "status-plugin" in c["summary"] else None


def test_a_plugin_unhealthy_is_named_and_clears():
    harness.require_binary("cri-driver")
    rt = start_runtime()
    wait_until(lambda: network_condition()["status"], 30, "NetworkReady true with the plugin healthy")
    Ctx.agent = Agent(rt.endpoint, ["--cni-conf-dir", Ctx.conf_dir, "--node-name", "e2e"], log_level="info")
    Ctx.agent.__enter__()
    wait_until(lambda: Ctx.agent.json("/diagnose")["runtime_status"]["seconds_since_success"] is not None, 30,
               "the agent's first Status")
    assert cause(Ctx.report(), "runtime_network_not_ready") is None, Ctx.report()["causes"]

    with open(Ctx.unhealthy, "w") as f:
        f.write(WORDS + "\n")
    flipped = time.monotonic()
    cond = wait_until(lambda: (lambda c: not c["status"] and c)(network_condition()), 60,
                      "the runtime's NetworkReady false", interval=0.2)
    Ctx.figures["runtime_false_s"] = time.monotonic() - flipped
    log("%s: NetworkReady false %.1fs after the flip: reason %s, message %r" % (
        RUNTIME, Ctx.figures["runtime_false_s"], cond["reason"], cond["message"]))
    assert cond["reason"] == "NetworkPluginNotReady", cond
    assert cond["message"] == "Network plugin returns error: " + WORDS, cond
    assert "status-plugin" not in cond["message"], "the runtime's message names the plugin: %r" % cond

    rep = wait_until(lambda: (lambda r: plugin_cause(r) and r)(Ctx.report()), 30,
                     "runtime_network_not_ready naming status-plugin")
    Ctx.figures["named_s"] = time.monotonic() - flipped
    c = plugin_cause(rep)
    log("%s: named %.1fs after the flip (%.1fs after the runtime said so): %s" % (
        RUNTIME, Ctx.figures["named_s"], Ctx.figures["named_s"] - Ctx.figures["runtime_false_s"], c["summary"]))
    assert rep["causes"][0]["id"] == "runtime_network_not_ready", [x["id"] for x in rep["causes"]]
    assert c["severity"] == "critical" and c["advice"] == "none", c
    assert "the CNI plugin status-plugin of the network plegscope-status" in c["summary"], c["summary"]
    assert "10-status.conflist" in c["summary"] and WORDS in c["summary"], c["summary"]
    assert "cni plugin not initialized" not in c["summary"], c["summary"]
    assert "status-plugin's node agent" in rep["summary"], rep["summary"]
    assert rep["runtime_status"]["network_ready"]["status"] is False, rep["runtime_status"]
    assert Ctx.agent.metrics().get("pleg_runtime_condition", condition="NetworkReady") == 0

    os.unlink(Ctx.unhealthy)
    cleared = time.monotonic()
    wait_until(lambda: network_condition()["status"], 60, "the runtime's NetworkReady true again", interval=0.2)
    Ctx.figures["runtime_true_s"] = time.monotonic() - cleared
    rep = wait_until(lambda: (lambda r: cause(r, "runtime_network_not_ready") is None and r)(Ctx.report()), 30,
                     "the report all clear of runtime_network_not_ready")
    Ctx.figures["clear_s"] = time.monotonic() - cleared
    log("%s: NetworkReady true %.1fs after the flip back; all clear in the report after %.1fs (status %s, "
        "causes %s)" % (RUNTIME, Ctx.figures["runtime_true_s"], Ctx.figures["clear_s"], rep["status"],
                        [x["id"] for x in rep["causes"]]))
    assert Ctx.agent.metrics().get("pleg_runtime_condition", condition="NetworkReady") == 1
    log("figures %s: %s" % (RUNTIME, json.dumps({k: round(v, 1) for k, v in Ctx.figures.items()})))


def teardown():
    Ctx.stop_agent()
    return Ctx.end_runtime("rt")


def test_zz_teardown_leaves_nothing():
    if Ctx.rt is None:
        raise harness.Skip("the runtime was not started")
    tmp = Ctx.rt.tmp
    teardown()
    assert not os.path.exists(tmp), "%s left" % tmp


if __name__ == "__main__":
    Ctx.run(globals(), teardown)
