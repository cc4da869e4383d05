#!/usr/bin/env python3
"""Streamed lists proven on a real runtime: CRI-O 1.36 (the e2e bed, crun) at more than
5,000 containers, read by two agents beside each other, one streaming
(--cri-list-streaming true: StreamPodSandboxes / StreamContainers) and one unary
(--cri-list-streaming false: ListPodSandbox / ListContainers), as
tests/evented/test_large_nodes.py does on the fake runtime.

  * CRI-O's own answer, read by cri-driver stream-sizes: the streamed containers come in
    more than one message, none over 3,000 items (CRI-O 1.36's batch), together exactly
    the unary list;
  * both agents read the same node: the same pods with the same sandboxes and containers
    (/debug/pods), the same list figures (items, response bytes, running gauges), no
    relist error, each on its own calls (the streaming agent never calls the unary lists
    and the unary agent never streams);
  * the same deaths: five running containers killed, the same ContainerDied events on
    both sides.

The containers are cheap ones: 53 pods of 100 containers that ran and exited at once
(5,300), as exited containers pile up on a node, created by one cri-driver run-exited per
pod, two pods at a time. Creating them takes most of this file's time (label
crio_scale, beside test_crio_scale.py; the time is logged).

Exit 77 (skip) only when this machine cannot run CRI-O, never under CI."""

import concurrent.futures
import json
import os
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
import oci_image  # noqa: E402
from crio_fixture import Crio, bed_description, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, Agent, log, wait_until  # noqa: E402

PODS = int(os.environ.get("PLEGSCOPE_STREAM_PODS", "53"))
PER_POD = 100  # 5,300 exited containers by default
RUNNING = 5  # running containers in one more pod, killed to compare the deaths
CRIO_BATCH = 3000  # CRI-O 1.36 sends up to 3,000 items a streamed message


class Ctx:
    crio = None


def setup():
    if Ctx.crio is None:
        reason = skip_reason()
        if reason:
            raise harness.Skip("CRI-O e2e cannot run on this machine: " + reason)
        Ctx.crio = Crio(BUILD_DIR)
        Ctx.crio.load_images()
        Ctx.crio.start()
        log("  bed: %s" % bed_description(Ctx.crio.crio_bed))
    return Ctx.crio


def exited_pod(p):
    crio = Ctx.crio
    sid = crio.driver("run-pod", "stream-%d" % p, str(uuid.uuid4()))
    r = crio._run_driver(["run-exited", sid, "c", str(PER_POD), oci_image.WORKLOAD_IMAGE, "/workload", "0"],
                         timeout=900)
    assert r.returncode == 0, "run-exited in pod %d: %s" % (p, r.stderr.strip())
    assert len(r.stdout.split()) == PER_POD, r.stdout
    return sid


def stream_sizes():
    r = Ctx.crio._run_driver(["stream-sizes"], timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def pod_cache(agent):
    """The agent's pod cache by uid, lists sorted (when each was inspected is the agent's own)."""
    pods = {}
    for p in agent.get_json("/debug/pods")["pods"]:
        p.pop("observed_at", None)
        p["sandboxes"] = sorted(p["sandboxes"], key=lambda s: s["id"])
        p["containers"] = sorted(p["containers"], key=lambda c: c["id"])
        pods[p["uid"]] = p
    return pods


def list_figures(m):
    figures = {}
    for name in ("pleg_runtime_list_items", "pleg_runtime_list_response_bytes"):
        for op in ("list_containers", "list_podsandbox"):
            figures[(name, op)] = m.get(name, operation_type=op)
    figures["pleg_running_pods"] = m.get("pleg_running_pods")
    for s in m.find("pleg_running_containers"):
        figures[("pleg_running_containers", s.labels["container_state"])] = s.value
    return figures


def calls(m, op):
    return m.get("pleg_runtime_operations_total", 0, operation_type=op) or 0


def died_events(agent, uid):
    return sorted(e["container_id"] for e in agent.get_json("/debug/events?limit=1000000")["events"]
                  if e["type"] == "ContainerDied" and e["pod_uid"] == uid)


def test_streamed_batches_of_thousands_read_as_the_unary_lists_on_crio():
    crio = setup()
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(exited_pod, range(PODS)))
    n = PODS * PER_POD
    created_s = time.monotonic() - started
    log("  %d containers in %d pods created, started and exited in %.1f s" % (n, PODS, created_s))
    uid = str(uuid.uuid4())
    sid = crio.driver("run-pod", "stream-running", uid)
    running = []
    for i in range(RUNNING):
        cid = crio.driver("create-container", sid, "r%d" % i, oci_image.WORKLOAD_IMAGE, "/workload")
        crio.driver("start-container", cid)
        running.append(cid)
    total = n + RUNNING

    sizes = stream_sizes()
    log("  CRI-O streamed containers in messages of %s, sandboxes in %s; unary %d containers (%.1f MiB), "
        "%d sandboxes" % (sizes["containers"], sizes["sandboxes"], sizes["unary_containers"],
                          sizes["unary_containers_bytes"] / 2**20, sizes["unary_sandboxes"]))
    assert isinstance(sizes["containers"], list), "CRI-O 1.36 streams its lists: %r" % sizes
    assert sizes["unary_containers"] == total, sizes["unary_containers"]
    assert sum(sizes["containers"]) == total, sizes["containers"]
    assert len(sizes["containers"]) >= 2 and max(sizes["containers"]) <= CRIO_BATCH, sizes["containers"]
    assert sum(sizes["sandboxes"]) == sizes["unary_sandboxes"] == PODS + 1, sizes

    flags = ["--evented-pleg", "false", "--relist-period", "1s", "--hang-threshold", "30s",
             "--host-scan-interval", "10s"]
    read_started = time.monotonic()
    with Agent(crio.endpoint, flags + ["--cri-list-streaming", "true"], log_level="info") as streamed, \
            Agent(crio.endpoint, flags + ["--cri-list-streaming", "false"], log_level="info") as unary:
        for agent in (streamed, unary):
            wait_until(lambda: len(pod_cache(agent)) == PODS + 1
                       and agent.metrics().get("pleg_runtime_list_items", operation_type="list_containers") == total,
                       300, "every pod inspected and %d containers listed" % total, interval=1.0)
        log("  both agents read the node %.1f s after they started" % (time.monotonic() - read_started))
        s, u = streamed.metrics(), unary.metrics()
        log("  streamed: %d containers in %.1f MiB; unary: %d in %.1f MiB" % (
            s.get("pleg_runtime_list_items", operation_type="list_containers"),
            s.get("pleg_runtime_list_response_bytes", operation_type="list_containers") / 2**20,
            u.get("pleg_runtime_list_items", operation_type="list_containers"),
            u.get("pleg_runtime_list_response_bytes", operation_type="list_containers") / 2**20))
        assert calls(s, "stream_containers") >= 1 and calls(s, "list_containers") == 0, \
            (calls(s, "stream_containers"), calls(s, "list_containers"))
        assert calls(u, "list_containers") >= 1 and calls(u, "stream_containers") == 0, \
            (calls(u, "list_containers"), calls(u, "stream_containers"))
        assert list_figures(s) == list_figures(u), (list_figures(s), list_figures(u))
        a, b = pod_cache(streamed), pod_cache(unary)
        differ = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
        assert not differ, "pods read differently, e.g. %r against %r" % (a.get(differ[0]), b.get(differ[0]))
        assert sum(len(p["containers"]) for p in a.values()) == total

        # The same deaths, read the same way by both.
        for cid in running:
            crio.kill_container_process(cid)
        for agent in (streamed, unary):
            wait_until(lambda: len(died_events(agent, uid)) == RUNNING, 120,
                       "the %d killed containers as ContainerDied" % RUNNING, interval=1.0)
        assert died_events(streamed, uid) == died_events(unary, uid) == sorted(running)
        s, u = streamed.metrics(), unary.metrics()
        assert s.sum("pleg_relist_errors_total") == 0 and u.sum("pleg_relist_errors_total") == 0
        assert streamed.get_json("/diagnose")["healthy"] and unary.get_json("/diagnose")["healthy"]
    log("  the whole test %.1f s (creation %.1f s)" % (time.monotonic() - started, created_s))


def teardown():
    if Ctx.crio is not None:
        t = time.monotonic()
        Ctx.crio.cleanup()
        log("  teardown %.1f s" % (time.monotonic() - t))
        Ctx.crio = None


if __name__ == "__main__":
    try:
        harness.main(globals())
    finally:
        teardown()
