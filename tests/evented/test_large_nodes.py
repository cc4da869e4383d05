"""Large nodes: list answers past gRPC's 16 MiB limit, with and without CRI
list streaming."""
import harness
from harness import Agent, FakeCri, wait_until

SIXTEEN_MIB = 16 * 1024 * 1024


def test_streaming_lists_survive_a_node_past_16_mib():
    with FakeCri("streaming_large") as fake, Agent(fake.endpoint, ["--evented-pleg", "false"]) as agent:
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
        assert m.get("pleg_runtime_operations_errors_total", operation_type="stream_containers",
                     code="UNIMPLEMENTED") == 1, "streaming tried once, then remembered as unsupported"
        report = wait_until(lambda: (lambda r: r if r["causes"] else None)(agent.get_json("/diagnose")), 30,
                            "a diagnosis")
        print("top cause: %s (%.2f): %s" % (report["causes"][0]["id"], report["causes"][0]["confidence"],
                                            report["causes"][0]["summary"]))
        assert report["causes"][0]["id"] == "message_too_large"
        assert agent.get("/metrics")[0] == 200 and agent.proc.alive()


if __name__ == "__main__":
    harness.main(globals())
