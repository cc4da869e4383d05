"""Large nodes: list answers past gRPC's 16 MiB limit, with and without CRI
list streaming. A streamed list carries lists of items per message, as the
upstream api.proto declares (thousands per message on CRI-O 1.36+ and
containerd 2.4+), and must read exactly as the unary list does. The agent
streams where the kubelet beside it does (its CRIListStreaming gate), so it
never reads a node the kubelet cannot."""
import json
import os
import subprocess
import tempfile

import harness
import list_compare
from fake_kubelet import FakeKubelet
from harness import Agent, FakeCri, wait_until

SIXTEEN_MIB = 16 * 1024 * 1024


def test_streaming_lists_survive_a_node_past_16_mib():
    flags = ["--evented-pleg", "false", "--cri-list-streaming", "true"]
    with FakeCri("streaming_large") as fake, Agent(fake.endpoint, flags) as agent:
        wait_until(lambda: agent.get("/healthz")[0] == 200, 60, "the first relist over streamed lists")
        m = agent.metrics()
        assert m.get("pleg_runtime_operations_total", operation_type="stream_containers") >= 1
        assert m.get("pleg_runtime_operations_total", operation_type="stream_podsandboxes") >= 1
        size = m.get("pleg_runtime_list_response_bytes", operation_type="list_containers")
        items = m.get("pleg_runtime_list_items", operation_type="list_containers")
        print("streamed ListContainers: %d items, %.1f MiB" % (items, size / 1048576.0))
        assert size > SIXTEEN_MIB and items == 4000
        assert m.sum("pleg_relist_errors_total") == 0
        assert m.get("pleg_healthy") == 1
        calls = fake.counts()
        relists = m.get("pleg_relist_duration_seconds_count")
        assert calls.get("StreamContainers", 0) >= relists
        assert calls.get("ListContainers", 0) == 0, "a streaming runtime never gets the unary list"


def test_without_streaming_the_cliff_is_diagnosed_and_the_agent_keeps_serving():
    with FakeCri("message_too_large") as fake, Agent(fake.endpoint, ["--evented-pleg", "false"]) as agent:
        wait_until(lambda: agent.metrics().get("pleg_relist_errors_total", code="RESOURCE_EXHAUSTED", default=0) >= 2,
                   60, "relists failing with RESOURCE_EXHAUSTED")
        m = agent.metrics()
        assert m.get("pleg_runtime_operations_errors_total", operation_type="list_containers",
                      code="RESOURCE_EXHAUSTED") >= 2
        assert fake.counts().get("StreamContainers", 0) == 0, "no streaming where the kubelet lists unary"
        report = wait_until(lambda: (lambda r: r if r["causes"] else None)(agent.get_json("/diagnose")), 30,
                            "a diagnosis")
        print("top cause: %s (%.2f): %s" % (report["causes"][0]["id"], report["causes"][0]["confidence"],
                                            report["causes"][0]["summary"]))
        assert report["causes"][0]["id"] == "message_too_large"
        assert agent.get("/metrics")[0] == 200 and agent.proc.alive()


def test_a_streaming_runtime_is_listed_unary_as_the_kubelet_lists_it():
    """Without a kubelet that streams, the agent makes the kubelet's unary
    calls: a node past 16 MiB is the cliff the kubelet meets, even though
    the runtime could stream."""
    with FakeCri("streaming_large") as fake, Agent(fake.endpoint, ["--evented-pleg", "false"]) as agent:
        wait_until(lambda: agent.metrics().get("pleg_relist_errors_total", code="RESOURCE_EXHAUSTED", default=0) >= 2,
                   60, "relists failing with RESOURCE_EXHAUSTED as the kubelet's unary lists do")
        calls = fake.counts()
        assert calls.get("StreamContainers", 0) == 0 and calls.get("StreamPodSandboxes", 0) == 0, calls
        report = wait_until(lambda: (lambda r: r if r["causes"] else None)(agent.get_json("/diagnose")), 30,
                            "a diagnosis")
        assert report["causes"][0]["id"] == "message_too_large", report["causes"][0]


# More than 5,000 containers, so a streamed list spans several messages of
# thousands: 3,000 a message (CRI-O 1.36's batch) and 5,000 (containerd 2.4's).
def big_streaming_node(runtime, version, batch, pods):
    return {
        "name": "big_streaming_node",
        "node": {"pods": pods, "containers_per_pod": 2, "exited_per_pod": 1},
        "runtime": {"name": runtime, "version": version, "list_streaming": True, "list_stream_batch": batch},
    }


def stream_messages(endpoint):
    """The items in each message the fake runtime streams, read by cri-driver."""
    r = subprocess.run([harness.require_binary("cri-driver"), "--endpoint", endpoint, "stream-sizes"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def streamed_batches_read_as_the_unary_lists(node, batch):
    pods = node["node"]["pods"]
    containers = pods * 3
    with FakeCri(node) as fake, \
            Agent(fake.endpoint, ["--evented-pleg", "false"] + list_compare.STREAMED) as streamed, \
            Agent(fake.endpoint, ["--evented-pleg", "false"] + list_compare.UNARY) as unary:
        sizes = stream_messages(fake.endpoint)
        assert sizes["containers"] == [batch] * (containers // batch) + [containers % batch], sizes["containers"]
        assert sizes["unary_containers"] == containers
        list_compare.wait_read((streamed, unary), pods, containers, 90, wait_until)
        assert fake.counts().get("StreamContainers", 0) >= 1 and fake.counts().get("ListContainers", 0) >= 1
        s, u = list_compare.assert_same_reading(streamed, unary)
        print("streamed: %d containers in %.1f MiB; unary: %d in %.1f MiB" % (
            s.get("pleg_runtime_list_items", operation_type="list_containers"),
            s.get("pleg_runtime_list_response_bytes", operation_type="list_containers") / 2**20,
            u.get("pleg_runtime_list_items", operation_type="list_containers"),
            u.get("pleg_runtime_list_response_bytes", operation_type="list_containers") / 2**20))
        assert len(list_compare.pod_cache(streamed)) == pods

        # The same deaths read the same way by both.
        uids = [p["uid"] for p in fake.pods()[:5]]
        for uid in uids:
            assert fake.kill(pod_uid=uid) >= 1
        for agent in (streamed, unary):
            wait_until(lambda: len({uid for uid, _ in list_compare.died_events(agent)} & set(uids)) == 5, 60,
                       "the 5 pods' deaths as ContainerDied")
        assert list_compare.died_events(streamed) == list_compare.died_events(unary)
        assert s.sum("pleg_relist_errors_total") == 0 and unary.metrics().sum("pleg_relist_errors_total") == 0


def test_streamed_batches_of_3000_read_as_the_unary_lists():
    streamed_batches_read_as_the_unary_lists(big_streaming_node("cri-o", "1.36.0", 3000, 2200), 3000)


def test_streamed_batches_of_5000_read_as_the_unary_lists():
    streamed_batches_read_as_the_unary_lists(big_streaming_node("containerd", "v2.4.2", 5000, 2600), 5000)


def test_the_agent_streams_where_the_kubelet_beside_streams():
    with tempfile.TemporaryDirectory() as tmp, \
            FakeKubelet(tmp, version="v1.37.2", list_streaming_gate=True) as kubelet, \
            FakeCri("streaming_large") as fake:
        token = os.path.join(tmp, "token")
        with open(token, "w") as f:
            f.write("t0k3n\n")
        flags = ["--evented-pleg", "false", "--kubelet-endpoint", kubelet.url, "--kubelet-ca-file", kubelet.ca_file,
                 "--kubelet-token-file", token]
        with Agent(fake.endpoint, flags) as agent:
            wait_until(lambda: agent.get("/healthz")[0] == 200, 60,
                       "relists over streamed lists once the kubelet shows CRIListStreaming on")
            assert fake.counts().get("StreamContainers", 0) >= 1
            assert agent.metrics().get("pleg_runtime_list_items", operation_type="list_containers") == 4000


if __name__ == "__main__":
    harness.main(globals())
