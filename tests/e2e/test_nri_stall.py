#!/usr/bin/env python3
"""An NRI plugin that stops answering, on a real containerd 2.x (NRI on by
default there), and what plegscope names.

The plugin is real: tests/nri/stallplugin, built from github.com/containerd/nri
by scripts/build-nri-plugin, registered on the private containerd's NRI socket
as "10-stall" and started with -reconnect (a plugin run by a DaemonSet comes
back after NRI disconnects it). It stalls on the events its control file
names, ignoring the runtime's deadline.

  1. The runtime's default plugin_request_timeout (2 s): a CreateContainer
     whose event the plugin holds. NRI gives up on the plugin at its timeout
     and disconnects it, and the creation goes on without it. The agent,
     reading containerd's metrics page, names nri_stall with the plugin as
     NRI registered it and the event, while the PLEG stays healthy and
     nothing names the runtime hung or slow. The time from
     the plugin's stall to the name is logged.
  2. The same containerd restarted with plugin_request_timeout = 15 s, as on
     nodes that raise it: a StopContainer held by the plugin for the whole
     15 s. Meanwhile the agent's relists keep completing (its relist count
     grows while the plugin still holds the call) and its report names no
     cause of its own calls; once NRI gives up, nri_stall names the plugin
     and StopContainer.

Exit 77 (skip) only when this machine cannot run containers or the plugin is
not built (scripts/build-nri-plugin), and under env CI not even then."""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
from e2e_context import E2eContext, cause, skip_if  # noqa: E402  (tests/lib)
import oci_image  # noqa: E402
import containerd_fixture  # noqa: E402
from containerd_fixture import Containerd, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, Agent, log, wait_until  # noqa: E402

PLUGIN_NAME = "10-stall"  # the index and name NRI registers it as
HELD_TIMEOUT = "15s"      # phase 2's plugin_request_timeout

Ctx = E2eContext(ctd=None, plugin=None, control=None, state=None, sid=None, cid=None)


def plugin_binary():
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "build-nri-plugin")
    r = subprocess.run([script, "--print-path"], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def state_lines():
    try:
        with open(Ctx.state) as f:
            return f.read().splitlines()
    except OSError:
        return []


def count_of(line):
    return sum(1 for l in state_lines() if l == line)


def hold(*events):
    with open(Ctx.control, "w") as f:
        f.write(" ".join(events))


def start():
    if Ctx.ctd is not None:
        return
    skip_if(skip_reason())
    if containerd_fixture.major_version() < 2:
        raise harness.Skip("containerd %s has no NRI on by default" % containerd_fixture.containerd_version())
    harness.require_binary("cri-driver")
    binary = plugin_binary()
    skip_if(None if binary else "the NRI plugin is not built (scripts/build-nri-plugin)")
    Ctx.ctd = Containerd(BUILD_DIR)
    Ctx.ctd.start()
    for _, tarball in oci_image.build_e2e_images(os.path.join(Ctx.ctd.tmp, "images")).items():
        Ctx.ctd.import_image(tarball)
    Ctx.control = os.path.join(Ctx.ctd.tmp, "nri-control")
    Ctx.state = os.path.join(Ctx.ctd.tmp, "nri-state")
    hold()
    idx, name = PLUGIN_NAME.split("-", 1)
    Ctx.plugin = subprocess.Popen([binary, "-socket", Ctx.ctd.nri_socket, "-idx", idx, "-name", name,
                                   "-control", Ctx.control, "-state", Ctx.state, "-reconnect"],
                                  stdout=subprocess.DEVNULL, stderr=open(os.path.join(Ctx.ctd.tmp, "plugin.log"), "w"))
    wait_until(lambda: count_of("registered " + PLUGIN_NAME) >= 1, 30, "the plugin to register with NRI")
    Ctx.sid = Ctx.ctd.driver("run-pod", "nri-web", "uid-nri-web")
    Ctx.cid = Ctx.ctd.driver("create-container", Ctx.sid, "app", oci_image.WORKLOAD_IMAGE, "/workload")
    Ctx.ctd.driver("start-container", Ctx.cid)


def start_agent():
    """The step's own agent (the harness ends a step's processes with it)."""
    Ctx.agent = Agent(Ctx.ctd.endpoint, ["--hang-threshold", "3s", "--node-name", "e2e",
                                         "--runtime-metrics-endpoint", Ctx.ctd.metrics_url], log_level="info")
    Ctx.agent.__enter__()
    wait_until(lambda: Ctx.agent.json("/diagnose")["runtime_metrics"]["reachable"], 30,
               "the agent's first read of containerd's metrics page")


def own_call_causes(rep):
    """Causes that say the PLEG's own calls hang or are slow."""
    return [c["id"] for c in rep["causes"] if c["id"] in ("runtime_hung", "runtime_slow", "pod_status_slow",
                                                          "container_lock_stall", "runtime_status_hung")]


def names_the_plugin(operation):
    signal = "nri_plugin_timeouts{plugin=%s,operation=%s}" % (PLUGIN_NAME, operation)

    def holds(rep, c):
        return any(e["signal"] == signal and e["value"] >= 1 for e in c["evidence"])
    return holds


def test_default_timeout_the_plugin_is_named():
    start()
    start_agent()
    closed_before = count_of("closed")
    hold("CreateContainer")
    t0 = time.monotonic()
    r = Ctx.ctd._run_driver(["create-container", Ctx.sid, "held", oci_image.WORKLOAD_IMAGE, "/workload"])
    created_in = time.monotonic() - t0
    assert r.returncode == 0, "CreateContainer failed: %s" % r.stderr.strip()
    Ctx.ctd.container_ids.add(r.stdout.strip())
    assert count_of("stall CreateContainer") >= 1, state_lines()
    wait_until(lambda: count_of("closed") > closed_before, 30, "NRI to disconnect the stalled plugin")
    rep, c = Ctx.wait_cause("nri_stall", names_the_plugin("CreateContainer"), 60,
                            "nri_stall naming %s and CreateContainer" % PLUGIN_NAME)
    named_in = time.monotonic() - t0
    log("CreateContainer returned after %.1fs; nri_stall named %.1fs after the plugin stalled: %s"
        % (created_in, named_in, c["summary"]))
    log("causes, highest first: %s" % [(x["id"], x["severity"], x["confidence"]) for x in rep["causes"]])
    assert PLUGIN_NAME in c["summary"] and "CreateContainer" in c["summary"], c["summary"]
    assert c["severity"] == "warning" and c["advice"] == "none", c
    assert rep["healthy"], rep["health_message"]
    assert not own_call_causes(rep), rep["causes"]
    hold()


def restart_with_a_longer_timeout():
    Ctx.ctd.nri_request_timeout = HELD_TIMEOUT
    Ctx.ctd._write_config()
    registered = count_of("registered " + PLUGIN_NAME)
    Ctx.ctd.restart()
    wait_until(lambda: count_of("registered " + PLUGIN_NAME) > registered, 30,
               "the plugin to register again after the restart")


def relists(m):
    return m.get("pleg_relist_duration_seconds_count") or 0


def test_lists_answer_while_the_plugin_holds_a_call():
    start()
    restart_with_a_longer_timeout()
    start_agent()
    held_before, closed_before = count_of("stall StopContainer"), count_of("closed")
    hold("StopContainer")
    t0 = time.monotonic()
    call = Ctx.background_call(Ctx.ctd, "stop-container", Ctx.cid, "1")
    wait_until(lambda: count_of("stall StopContainer") > held_before, 30, "the plugin to hold StopContainer")
    start_count = relists(Ctx.agent.metrics())
    # Relists complete while the call still waits on the plugin.
    wait_until(lambda: relists(Ctx.agent.metrics()) >= start_count + 3, 30, "three relists during the hold")
    rep = Ctx.report()
    still_held = call.poll() is None and count_of("closed") == closed_before
    log("%d relists done %.1fs into the hold (StopContainer still waiting: %s); causes %s"
        % (relists(Ctx.agent.metrics()) - start_count, time.monotonic() - t0, still_held,
           [x["id"] for x in rep["causes"]]))
    assert still_held, "the plugin's hold ended before the relists were counted: %s" % state_lines()
    assert rep["healthy"], rep["health_message"]
    assert not own_call_causes(rep), rep["causes"]
    assert cause(rep, "nri_stall") is None or "StopContainer" not in cause(rep, "nri_stall")["summary"], \
        "named before the runtime recorded the call: %s" % cause(rep, "nri_stall")
    out, err = call.communicate(timeout=120)
    log("StopContainer returned %d after %.1fs %s" % (call.returncode, time.monotonic() - t0, (out + err).strip()[:160]))
    rep, c = Ctx.wait_cause("nri_stall", names_the_plugin("StopContainer"), 60,
                            "nri_stall naming %s and StopContainer" % PLUGIN_NAME)
    log("nri_stall named %.1fs after the hold began: %s" % (time.monotonic() - t0, c["summary"]))
    assert rep["healthy"], rep["health_message"]
    hold()


def teardown():
    if Ctx.control and Ctx.ctd is not None:
        hold()
    Ctx.end_calls()
    if Ctx.plugin is not None:
        Ctx.plugin.kill()
        Ctx.plugin.wait()
    Ctx.stop_agent()
    return Ctx.end_runtime("ctd")


def test_zz_teardown_leaves_nothing():
    if Ctx.ctd is None:
        raise harness.Skip("containerd was not started")
    tmp = Ctx.ctd.tmp
    plugin = Ctx.plugin
    teardown()
    assert plugin.poll() is not None, "the plugin still runs"
    assert not os.path.exists(tmp), "%s left" % tmp


if __name__ == "__main__":
    Ctx.run(globals(), teardown)
