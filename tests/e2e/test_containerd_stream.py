#!/usr/bin/env python3
"""Streamed lists proven on a real containerd 2.4 past one full batch: more than 5,000
containers, so its StreamContainers answer takes two messages (containerd 2.4 sends up
to 5,000 items a message, internal/cri/util.DefaultStreamBatchSize, with no switch in its
config; 2.3 answers UNIMPLEMENTED). Read by two agents beside each other, one streaming
(--cri-list-streaming true) and one unary (false), and by crictl:

  * containerd's own answer, read by cri-driver stream-sizes: the containers in two
    messages or more, none over 5,000 items, together exactly the unary list; the wall
    time and bytes of each way of reading (the unary answer is one message, the one the
    kubelet's 16 MiB limit applies to);
  * both agents read the same node: the same pods with the same sandboxes and containers
    (/debug/pods), the same list figures (items, response bytes, running gauges), no
    relist error, each on its own calls;
  * crictl's unary lists (16 MiB, as the kubelet) group the same containers, in the same
    states, under the same pods as the agents' caches;
  * the same deaths: five running containers killed, the same ContainerDied on both sides.

The containers are cheap ones: 6 pods of 860 created, never started (5,160): on containerd
a created container is metadata and a snapshot, no process. Label `stream_scale`
(minutes; scripts/test leaves it out).

Exit 77 (skip) only when this machine cannot run containerd 2.4, never under CI."""

import concurrent.futures
import json
import os
import sys
import time
import uuid

os.environ.setdefault("PLEGSCOPE_CONTAINERD", "2.4")  # this test is about 2.4's streaming
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
import list_compare  # noqa: E402
import oci_image  # noqa: E402
import stream_scale  # noqa: E402
from containerd_fixture import Containerd, bed_description, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, Agent, log, wait_until  # noqa: E402

PODS = int(os.environ.get("PLEGSCOPE_STREAM_PODS", "6"))
PER_POD = int(os.environ.get("PLEGSCOPE_STREAM_PER_POD", "860"))  # 5,160 created containers by default
RUNNING = 5  # running containers in one more pod, killed to compare the deaths
BATCH = 5000  # containerd 2.4 sends up to 5,000 items a streamed message


class Ctx:
    ctd = None


def setup():
    if Ctx.ctd is None:
        reason = skip_reason()
        if reason:
            raise harness.Skip("containerd 2.4 e2e cannot run on this machine: " + reason)
        Ctx.ctd = Containerd(BUILD_DIR)
        Ctx.ctd.start()
        for _, tarball in oci_image.build_e2e_images(os.path.join(Ctx.ctd.tmp, "images")).items():
            Ctx.ctd.import_image(tarball)
        log("  bed: %s" % bed_description(Ctx.ctd.bed))
    return Ctx.ctd


def created_pod(p):
    ctd = Ctx.ctd
    sid = ctd.driver("run-pod", "stream-%d" % p, str(uuid.uuid4()))
    r = ctd._run_driver(["create-many", sid, "c", str(PER_POD), oci_image.WORKLOAD_IMAGE, "/workload"], timeout=1800)
    assert r.returncode == 0, "create-many in pod %d: %s" % (p, r.stderr.strip())
    assert len(r.stdout.split()) == PER_POD, r.stdout[-200:]
    return sid


def running_pod(ctd):
    """One more pod with RUNNING running containers, killed later to compare the deaths."""
    uid = str(uuid.uuid4())
    sid = ctd.driver("run-pod", "stream-running", uid)
    running = []
    for i in range(RUNNING):
        cid = ctd.driver("create-container", sid, "r%d" % i, oci_image.WORKLOAD_IMAGE, "/workload")
        ctd.driver("start-container", cid)
        running.append(cid)
    return uid, running


def read_alike(ctd, uid, running, total, pods):
    """The node of `total` containers in `pods` pods read the same way streamed, unary and
    by crictl; the running containers' deaths seen alike."""
    sizes = stream_scale.runtime_lists(ctd._run_driver, total, pods, BATCH)
    node = list_compare.crictl_node(stream_scale.crictl(), ctd.endpoint)
    assert sum(len(p["containers"]) for p in node.values()) == total and len(node) == pods, \
        "crictl lists %d pods, %d containers" % (len(node), sum(len(p["containers"]) for p in node.values()))

    flags = ["--evented-pleg", "false", "--relist-period", "1s", "--hang-threshold", "30s",
             "--host-scan-interval", "10s", "--metrics-detail", "full"]
    read_started = time.monotonic()
    with Agent(ctd.endpoint, flags + list_compare.STREAMED, log_level="info") as streamed, \
            Agent(ctd.endpoint, flags + list_compare.UNARY, log_level="info") as unary:
        list_compare.wait_read((streamed, unary), pods, total, 600, wait_until)
        log("  both agents read the node %.1f s after they started" % (time.monotonic() - read_started))
        s, u = list_compare.assert_same_reading(streamed, unary)
        cache = list_compare.pod_cache(streamed)
        assert sum(len(p["containers"]) for p in cache.values()) == total
        assert list_compare.agent_node(cache) == node, "the agents' pods differ from crictl's"
        assert s.get("pleg_running_containers", container_state="created") == total - len(running)

        # The same deaths, read the same way by both.
        for cid in running:
            assert ctd.kill_container_process(cid, 9), "no process in container %s" % cid
        for agent in (streamed, unary):
            wait_until(lambda: len(list_compare.died_events(agent, uid)) == len(running), 120,
                       "the %d killed containers as ContainerDied" % len(running), interval=1.0)
        assert list_compare.died_events(streamed, uid) == list_compare.died_events(unary, uid) == \
            sorted((uid, c) for c in running)
        s, u = streamed.metrics(), unary.metrics()
        assert s.sum("pleg_relist_errors_total") == 0 and u.sum("pleg_relist_errors_total") == 0
        assert streamed.get_json("/diagnose")["healthy"] and unary.get_json("/diagnose")["healthy"]
        stream_scale.record("containerd", ctd.driver("version"), total, sizes, list_compare.agent_list_costs(s, u))


def test_streamed_batches_of_5000_read_as_the_unary_lists_on_containerd_2_4():
    ctd = setup()
    stream_scale.crictl()  # before the minutes of creation: a missing crictl fails at once
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(created_pod, range(PODS)))
    created_s = time.monotonic() - started
    log("  %d containers in %d pods created in %.1f s" % (PODS * PER_POD, PODS, created_s))
    uid, running = running_pod(ctd)
    read_alike(ctd, uid, running, PODS * PER_POD + RUNNING, PODS + 1)
    log("  the whole test %.1f s (creation %.1f s)" % (time.monotonic() - started, created_s))


def teardown():
    """containerd stopped first, so the fixture's cleanup skips its two CRI calls per
    container (10,000 here, many minutes): the created containers have no process, and
    the cleanup kills the running ones and the pods' shims, unmounts, removes the cgroups
    and the temp dir with containerd's root in it."""
    if Ctx.ctd is not None:
        t = time.monotonic()
        Ctx.ctd.stop()
        Ctx.ctd.cleanup()
        log("  teardown %.1f s" % (time.monotonic() - t))
        Ctx.ctd = None


if __name__ == "__main__":
    try:
        harness.main(globals())
    finally:
        teardown()
