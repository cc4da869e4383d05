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
  * crictl's unary lists (16 MiB, as the kubelet) group the same containers, in the same
    states, under the same pods as the agents' caches;
  * the same deaths: five running containers killed, the same ContainerDied events on
    both sides.

The containers are cheap ones: 53 pods of 100 containers that ran and exited at once
(5,300), as exited containers pile up on a node, created by one cri-driver run-exited per
pod, two pods at a time (a created, never started container on CRI-O keeps its conmon
and the OCI runtime's waiting init: two processes each, where an exited one keeps none).
Creating them takes most of this file's time (label stream_scale; the time is logged).

Exit 77 (skip) only when this machine cannot run CRI-O, never under CI."""

import concurrent.futures
import os
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402  (tests/lib, on PYTHONPATH)
import oci_image  # noqa: E402
import stream_scale  # noqa: E402
from crio_fixture import Crio, bed_description, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, log  # noqa: E402

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


def test_streamed_batches_of_thousands_read_as_the_unary_lists_on_crio():
    crio = setup()
    stream_scale.crictl()  # before the minutes of creation: a missing crictl fails at once
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(exited_pod, range(PODS)))
    n = PODS * PER_POD
    created_s = time.monotonic() - started
    log("  %d containers in %d pods created, started and exited in %.1f s" % (n, PODS, created_s))
    uid, running = stream_scale.running_pod(crio, RUNNING)
    stream_scale.read_alike(crio, "cri-o", CRIO_BATCH, uid, running, n + RUNNING, PODS + 1)
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
