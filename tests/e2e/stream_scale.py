"""The parts the streamed-list tests on real runtimes share (test_containerd_stream.py,
test_crio_stream.py): the runtime's own answer read both ways by cri-driver, crictl,
the two agents side by side, the figures logged for bench/results/stream-scale.md.
The agents' side of the comparison is tests/lib/list_compare.py."""

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid

import harness
import list_compare
import oci_image
from e2e_util import Agent, log, wait_until


def crictl():
    """crictl on PATH, else the one scripts/build-cluster-parts built from its Go module;
    harness.Skip (a failure under CI) when there is none."""
    path = shutil.which("crictl")
    if not path:
        sys.path.insert(0, os.path.join(harness.source_dir(), "tests", "cluster"))
        import parts  # noqa: E402  tests/cluster
        path = parts.crictl()
    if not path:
        raise harness.Skip("no crictl (scripts/build-cluster-parts builds it)")
    log("  crictl: %s (%s)" % (path, subprocess.run([path, "--version"], capture_output=True, text=True,
                                                     timeout=30).stdout.strip()))
    return path


def _median(xs):
    return statistics.median(xs) if xs else None


def runtime_lists(run_driver, total, pods, batch, repeats=5):
    """The runtime's own answer read by cri-driver stream-sizes, each list read `repeats`
    times both ways: the streamed containers come in more than one message, none over
    `batch` items, together exactly the unary list of `total`; the sandboxes likewise.
    Returns the figures (bytes, messages, median seconds), logged."""
    r = run_driver(["stream-sizes", str(repeats)], timeout=600)
    assert r.returncode == 0, r.stderr
    sizes = json.loads(r.stdout)
    assert isinstance(sizes["containers"], list), "the runtime streams its lists: %r" % sizes
    figures = {
        "containers": total, "sandboxes": pods,
        "stream_messages": sizes["containers"], "stream_sandbox_messages": sizes["sandboxes"],
        "unary_containers_bytes": sizes["unary_containers_bytes"],
        "stream_containers_bytes": sizes["stream_containers_bytes"],
        "unary_containers_s": _median(sizes["unary_containers_seconds"]),
        "stream_containers_s": _median(sizes["stream_containers_seconds"]),
        "unary_sandboxes_s": _median(sizes["unary_sandboxes_seconds"]),
        "stream_sandboxes_s": _median(sizes["stream_sandboxes_seconds"]),
    }
    log("  streamed containers in messages of %s (%d bytes, median %.3f s), sandboxes in %s; unary %d containers "
        "in one message of %d bytes (%.1f MiB; median %.3f s), %d sandboxes" % (
            sizes["containers"], sizes["stream_containers_bytes"], figures["stream_containers_s"],
            sizes["sandboxes"], sizes["unary_containers"], sizes["unary_containers_bytes"],
            sizes["unary_containers_bytes"] / 2**20, figures["unary_containers_s"], sizes["unary_sandboxes"]))
    assert sizes["unary_containers"] == total, sizes["unary_containers"]
    assert sum(sizes["containers"]) == total, sizes["containers"]
    assert len(sizes["containers"]) >= 2 and max(sizes["containers"]) <= batch, sizes["containers"]
    assert sum(sizes["sandboxes"]) == sizes["unary_sandboxes"] == pods, sizes
    return figures


def record(runtime, version, total, figures, agent_costs):
    """One line a reader copies into bench/results/stream-scale.md."""
    line = dict(figures, runtime=runtime, version=version, containers=total, **agent_costs)
    log("  STREAM_SCALE %s" % json.dumps(line, sort_keys=True))


def running_pod(fixture, n):
    """One more pod with n running containers, killed later to compare the deaths:
    (its uid, the container ids)."""
    uid = str(uuid.uuid4())
    sid = fixture.driver("run-pod", "stream-running", uid)
    running = []
    for i in range(n):
        cid = fixture.driver("create-container", sid, "r%d" % i, oci_image.WORKLOAD_IMAGE, "/workload")
        fixture.driver("start-container", cid)
        running.append(cid)
    return uid, running


def read_alike(fixture, runtime, batch, uid, running, total, pods, created=None):
    """The node of `total` containers in `pods` pods read alike streamed and unary by the
    runtime's own answer (runtime_lists), by crictl and by two agents side by side; the
    running containers' deaths seen alike. `created`: how many are created, never started."""
    sizes = runtime_lists(fixture._run_driver, total, pods, batch)
    node = list_compare.crictl_node(crictl(), fixture.endpoint)
    assert sum(len(p["containers"]) for p in node.values()) == total and len(node) == pods, \
        "crictl lists %d pods, %d containers" % (len(node), sum(len(p["containers"]) for p in node.values()))

    flags = ["--evented-pleg", "false", "--relist-period", "1s", "--hang-threshold", "30s",
             "--host-scan-interval", "10s", "--metrics-detail", "full"]
    read_started = time.monotonic()
    with Agent(fixture.endpoint, flags + list_compare.STREAMED, log_level="info") as streamed, \
            Agent(fixture.endpoint, flags + list_compare.UNARY, log_level="info") as unary:
        list_compare.wait_read((streamed, unary), pods, total, 600, wait_until)
        log("  both agents read the node %.1f s after they started" % (time.monotonic() - read_started))
        s, u = list_compare.assert_same_reading(streamed, unary)
        cache = list_compare.pod_cache(streamed)
        assert sum(len(p["containers"]) for p in cache.values()) == total
        assert list_compare.agent_node(cache) == node, "the agents' pods differ from crictl's"
        if created is not None:
            assert s.get("pleg_running_containers", container_state="created") == created

        # The same deaths, read the same way by both.
        for cid in running:
            assert fixture.kill_container_process(cid), "no process in container %s" % cid
        for agent in (streamed, unary):
            wait_until(lambda: len(list_compare.died_events(agent, uid)) == len(running), 120,
                       "the %d killed containers as ContainerDied" % len(running), interval=1.0)
        assert list_compare.died_events(streamed, uid) == list_compare.died_events(unary, uid) == \
            sorted((uid, c) for c in running)
        s, u = streamed.metrics(), unary.metrics()
        assert s.sum("pleg_relist_errors_total") == 0 and u.sum("pleg_relist_errors_total") == 0
        assert streamed.get_json("/diagnose")["healthy"] and unary.get_json("/diagnose")["healthy"]
        record(runtime, fixture.driver("version"), total, sizes, list_compare.agent_list_costs(s, u))
