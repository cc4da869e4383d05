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

The containers are cheap ones: 6 pods of 680 created, never started (on containerd
metadata, a snapshot and open FIFOs, no process) and 180 that ran and exited (5,160).
Label `stream_scale` (minutes; scripts/test leaves it out).

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
import oci_image  # noqa: E402
import stream_scale  # noqa: E402
from containerd_fixture import Containerd, bed_description, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, log  # noqa: E402

PODS = int(os.environ.get("PLEGSCOPE_STREAM_PODS", "6"))
# Per pod: 680 created, never started, and 180 that ran and exited: 5,160 by default. containerd
# keeps a created container's output FIFOs open (internal/cri/server/container_create.go; 2 to
# 4 fds each, measured) and closes them when the task is deleted on exit: this machine's
# 20,000 open files a process (no CAP_SYS_RESOURCE to raise it) ran out at 4,984 created
# ones, where a node's containerd unit has LimitNOFILE=infinity.
CREATED = int(os.environ.get("PLEGSCOPE_STREAM_CREATED", "680"))
EXITED = int(os.environ.get("PLEGSCOPE_STREAM_EXITED", "180"))
PER_POD = CREATED + EXITED
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
    for how, prefix, n, argv in (("create-many", "c", CREATED, ["/workload"]),
                                  ("run-exited", "e", EXITED, ["/workload", "0"])):
        r = ctd._run_driver([how, sid, prefix, str(n), oci_image.WORKLOAD_IMAGE] + argv, timeout=1800)
        assert r.returncode == 0, "%s in pod %d: %s" % (how, p, r.stderr.strip())
        assert len(r.stdout.split()) == n, r.stdout[-200:]
    return sid


def test_streamed_batches_of_5000_read_as_the_unary_lists_on_containerd_2_4():
    ctd = setup()
    stream_scale.crictl()  # before the minutes of creation: a missing crictl fails at once
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(created_pod, range(PODS)))
    created_s = time.monotonic() - started
    log("  %d containers in %d pods (%d created, %d exited) in %.1f s" % (
        PODS * PER_POD, PODS, PODS * CREATED, PODS * EXITED, created_s))
    uid, running = stream_scale.running_pod(ctd, RUNNING)
    stream_scale.read_alike(ctd, "containerd", BATCH, uid, running, PODS * PER_POD + RUNNING, PODS + 1,
                            created=PODS * CREATED)
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
