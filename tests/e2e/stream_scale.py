"""The parts the streamed-list tests on real runtimes share (test_containerd_stream.py,
test_crio_stream.py): the runtime's own answer read both ways by cri-driver, crictl,
the figures logged for bench/results/stream-scale.md, a fast teardown.
The agents' side of the comparison is tests/lib/list_compare.py."""

import concurrent.futures
import json
import os
import shutil
import statistics
import subprocess
import sys

import harness
from e2e_util import log


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


def remove_pods(fixture, timeout=900):
    """Stops and removes every sandbox through CRI, which removes its containers with it
    (containerd and CRI-O alike), two at a time: one call per pod instead of the fixture
    cleanup's two per container. What fails is left to the fixture's cleanup."""
    try:
        sandboxes = fixture.list()["sandboxes"]
    except Exception as e:  # the fixture's cleanup still runs
        log("  remove_pods: list failed: %s" % e)
        return

    def remove(s):
        fixture._run_driver(["stop-pod", s["id"]], timeout=timeout)
        fixture._run_driver(["remove-pod", s["id"]], timeout=timeout)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(remove, sandboxes))
