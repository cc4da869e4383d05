#!/usr/bin/env python3
"""plegscope beside a real CRI-O at scale and at the gRPC message limit, one
CRI-O for the whole file (tests/e2e/crio_fixture.py), an agent per test.

  * the 16 MiB message limit seen from the client side: CRI-O's server
    allows 80 MiB, so with a list answer past 16 MiB CRI-O still answers (a
    64 MiB client reads it) while the agent, whose client takes 16 MiB as the
    kubelet's does, fails with RESOURCE_EXHAUSTED "received message larger
    than max", and names message_too_large in CRI-O's words;
  * recovery: the large containers removed, the lists answer again and the
    report turns healthy;
  * relist at 1,000 containers (20 pods of 50 that ran and exited, as
    exited containers pile up on a node): counted as CRI-O lists them, the
    relist healthy, its figures logged. Creating them takes most of this
    file's time (about 3 minutes on two shared cores): label crio_scale, so
    that `scripts/test -L crio` stays short.

Exit 77 (skip) only when this machine cannot run CRI-O, never under CI."""

import concurrent.futures
import json
import os
import re
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from e2e_context import E2eContext, cause, skip_if  # noqa: E402  (tests/lib, on PYTHONPATH)
import oci_image  # noqa: E402
from crio_fixture import Crio, skip_reason  # noqa: E402
from e2e_util import BUILD_DIR, Agent, log, metric, wait_until  # noqa: E402

PODS, PER_POD = 20, 50  # 1,000 containers
BIG_CONTAINERS, BIG_ANNOTATION = 90, 200 * 1024  # ~18 MiB of annotations in one list answer
LIMIT = 16 * 1024 * 1024
CONTAINERD_WORDS = ("containerd", "shim", "ctr ", "status lock")


Ctx = E2eContext(crio=None)
report = Ctx.report


def setup():
    if Ctx.crio is None:
        skip_if(skip_reason(), "CRI-O e2e cannot run on this machine: ")
        Ctx.crio = Crio(BUILD_DIR)
        Ctx.crio.load_images()
        Ctx.crio.start()
    # The harness ends what a test started: an agent per test, on the one CRI-O.
    if Ctx.agent is None or not Ctx.agent.alive:
        flags = ["--relist-period", "1s", "--hang-threshold", "3s", "--host-scan-interval", "5s"]
        Ctx.agent = Agent(Ctx.crio.endpoint, flags, log_level="info").__enter__()
        wait_until(lambda: Ctx.agent.get("/healthz")[0] == 200, 20, "a first relist (/healthz 200)")
    return Ctx.crio


def exited_pod(p):
    """One pod of PER_POD containers that ran and exited at once."""
    crio = Ctx.crio
    sid = crio.driver("run-pod", "fleet-%d" % p, str(uuid.uuid4()))
    for i in range(PER_POD):
        cid = crio.driver("create-container", sid, "c%d" % i, oci_image.WORKLOAD_IMAGE, "/workload", "0")
        crio.driver("start-container", cid)
    return sid


def big_container(sid, i):
    spec = {"name": "big-%d" % i, "image": oci_image.WORKLOAD_IMAGE, "command": ["/workload"], "args": ["0"],
            "pad_annotation_bytes": BIG_ANNOTATION}
    return Ctx.crio.driver("create-container-spec", sid, json.dumps(spec))


def remove_pod(sid):
    # 90 containers stopped and removed in one call each: over a minute on a loaded
    # 2-core machine (seen on CRI-O 1.36.3 + crun at load average 60-95).
    t = time.monotonic()
    for op in ("stop-pod", "remove-pod"):
        r = Ctx.crio._run_driver([op, sid], timeout=300)
        assert r.returncode == 0, "%s %s: %s" % (op, sid[:12], r.stderr.strip())
    log("  pod %s stopped and removed in %.1f s" % (sid[:12], time.monotonic() - t))


def test_message_limit_seen_from_the_client_side_and_recovery():
    setup()
    sid = Ctx.crio.driver("run-pod", "big-0", str(uuid.uuid4()))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda i: big_container(sid, i), range(BIG_CONTAINERS)))
    # CRI-O answers the whole list to a client that takes 64 MiB: its
    # server's limit is 80 MiB, so nothing fails on its side.
    r = Ctx.crio._run_driver(["list"], timeout=60)
    assert r.returncode == 0, "CRI-O's own answer past 16 MiB: %s" % r.stderr
    listed = len(json.loads(r.stdout)["containers"])
    log("  CRI-O answered a 64 MiB client: %d containers" % listed)
    assert listed >= BIG_CONTAINERS, listed

    try:
        past_the_limit(sid)
    finally:
        remove_pod(sid)  # whatever happened, the next test relists a small list
    # Recovery: the large containers removed, the lists answer again.
    rep = wait_until(lambda: (lambda r: r["healthy"] and not cause(r, "message_too_large") and r)(report()), 60,
                     "the report healthy again without message_too_large")
    log("  recovered: %d containers, status %s" % (rep["pods"]["containers"], rep["status"]))
    assert Ctx.agent.get("/healthz")[0] == 200


def past_the_limit(sid):
    # Past the limit, not its "approaching" form (which a list read while
    # the containers were still being created gives, with its
    # RESOURCE_EXHAUSTED count at zero).
    rep, c = Ctx.wait_cause("message_too_large", lambda rep, c: any("RESOURCE_EXHAUSTED" in e["signal"] and e["value"] > 0 for e in c["evidence"]),
                            30, "message_too_large from the agent's own client")
    errors = rep["runtime"]["operations"]["list_containers"]["errors"]
    log("  agent: list_containers errors %d; %s" % (errors, c["summary"]))
    assert errors > 0, rep["runtime"]["operations"]["list_containers"]
    # The client's own words, as the kubelet's client says them, with the size.
    m = re.search(r"Received message larger than max \((\d+) vs\. (\d+)\)", Ctx.agent.log_tail(200000))
    assert m, "the client's words in the agent's log"
    log("  agent's client: %s" % m.group(0))
    assert int(m.group(2)) == LIMIT and int(m.group(1)) > LIMIT, m.group(0)
    for w in CONTAINERD_WORDS:
        assert w not in c["summary"] and w not in c["remedy"], (w, c["summary"], c["remedy"])
    assert "80 MiB" in c["remedy"], c["remedy"]


def test_relist_at_1000_containers():
    setup()
    started = time.monotonic()
    # Two drivers at a time: CRI-O serves calls in parallel, the machine has two cores.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(exited_pod, range(PODS)))
    n = PODS * PER_POD
    log("  %d containers created and started in %.1f s" % (n, time.monotonic() - started))
    listed = len(Ctx.crio.list()["containers"])
    assert listed == n, "CRI-O lists %d containers, want %d" % (listed, n)
    rep = wait_until(lambda: (lambda r: r["pods"]["containers"] == n and r)(report()), 60,
                     "the agent counting %d containers" % n)
    relists = metric(Ctx.agent.metrics(), "pleg_relist_duration_seconds_count")
    wait_until(lambda: metric(Ctx.agent.metrics(), "pleg_relist_duration_seconds_count") >= relists + 10, 60,
               "ten relists at %d containers" % n)
    rep = report()
    ops = rep["runtime"]["operations"]
    log("  %d containers: relist p50 %.4fs p99 %.4fs; list_containers p99 %.4fs; list bytes %s" % (
        n, rep["relist"]["duration_p50_seconds"], rep["relist"]["duration_p99_seconds"],
        ops["list_containers"]["p99_seconds"],
        metric(Ctx.agent.metrics(), "pleg_runtime_list_response_bytes", operation_type="list_containers")))
    log("  causes: %s" % [(c["id"], c["severity"]) for c in rep["causes"]])
    assert Ctx.agent.get("/healthz")[0] == 200
    assert rep["healthy"], rep["summary"]
    assert rep["pods"]["exited_containers"] == n, rep["pods"]


def teardown():
    Ctx.stop_agent()
    Ctx.end_runtime("crio")


if __name__ == "__main__":
    Ctx.run(globals(), teardown)
