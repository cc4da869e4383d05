"""Large nodes: list answers past gRPC's 16 MiB limit, with and without CRI
list streaming. A streamed list carries lists of items per message, as the
upstream api.proto declares (thousands per message on CRI-O 1.36+ and
containerd 2.4+), and must read exactly as the unary list does. The agent
streams where the kubelet beside it does (its CRIListStreaming gate), so it
never reads a node the kubelet cannot."""
import os
import tempfile

import harness
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
# thousands (3,000 a message, CRI-O 1.36's batch).
BIG_STREAMING_NODE = {
    "name": "big_streaming_node",
    "node": {"pods": 2200, "containers_per_pod": 2, "exited_per_pod": 1},
    "runtime": {"name": "cri-o", "version": "1.36.0", "list_streaming": True, "list_stream_batch": 3000},
}


def pod_cache(agent):
    """The agent's pod cache, keyed by uid, lists sorted: order is the runtime's
    business, and when the agent inspected a pod is its own."""
    pods = {}
    for p in agent.get_json("/debug/pods")["pods"]:
        p.pop("observed_at", None)
        p["sandboxes"] = sorted(p["sandboxes"], key=lambda s: s["id"])
        p["containers"] = sorted(p["containers"], key=lambda c: c["id"])
        pods[p["uid"]] = p
    return pods


def died_events(agent):
    return sorted((e["pod_uid"], e["container_id"]) for e in agent.get_json("/debug/events?limit=1000000")["events"]
                  if e["type"] == "ContainerDied")


def list_figures(m):
    figures = {}
    for name in ("pleg_runtime_list_items", "pleg_runtime_list_response_bytes"):
        for op in ("list_containers", "list_podsandbox"):
            figures[(name, op)] = m.get(name, operation_type=op)
    figures["pleg_running_pods"] = m.get("pleg_running_pods")
    for s in m.find("pleg_running_containers"):
        figures[("pleg_running_containers", s.labels["container_state"])] = s.value
    return figures


def test_streamed_batches_of_thousands_read_as_the_unary_lists():
    with FakeCri(BIG_STREAMING_NODE) as fake, \
            Agent(fake.endpoint, ["--evented-pleg", "false", "--cri-list-streaming", "true"]) as streamed, \
            Agent(fake.endpoint, ["--evented-pleg", "false", "--cri-list-streaming", "false"]) as unary:
        for agent in (streamed, unary):
            wait_until(lambda: len(pod_cache(agent)) == 2200, 90, "every pod inspected once")
        assert fake.counts().get("StreamContainers", 0) >= 1 and fake.counts().get("ListContainers", 0) >= 1
        s, u = streamed.metrics(), unary.metrics()
        print("streamed: %d containers in %.1f MiB; unary: %d in %.1f MiB" % (
            s.get("pleg_runtime_list_items", operation_type="list_containers"),
            s.get("pleg_runtime_list_response_bytes", operation_type="list_containers") / 2**20,
            u.get("pleg_runtime_list_items", operation_type="list_containers"),
            u.get("pleg_runtime_list_response_bytes", operation_type="list_containers") / 2**20))
        assert s.get("pleg_runtime_list_items", operation_type="list_containers") == 2200 * 3
        assert list_figures(s) == list_figures(u)
        a, b = pod_cache(streamed), pod_cache(unary)
        differ = [uid for uid in set(a) | set(b) if a.get(uid) != b.get(uid)]
        assert not differ, "pods read differently, e.g. %r against %r" % (
            a.get(differ[0]), b.get(differ[0]))
        assert len(pod_cache(streamed)) == 2200

        # The same deaths read the same way by both.
        uids = [p["uid"] for p in fake.pods()[:5]]
        for uid in uids:
            assert fake.kill(pod_uid=uid) >= 1
        for agent in (streamed, unary):
            wait_until(lambda: len({uid for uid, _ in died_events(agent)} & set(uids)) == 5, 60,
                       "the 5 pods' deaths as ContainerDied")
        assert died_events(streamed) == died_events(unary)
        assert s.sum("pleg_relist_errors_total") == 0 and unary.metrics().sum("pleg_relist_errors_total") == 0


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
