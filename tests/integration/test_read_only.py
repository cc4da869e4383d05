"""The agent only reads (DESIGN §2): the fake's call log never shows a
mutating call, whatever the runtime supports."""

import harness
from harness import Agent, FakeCri, wait_until

READ_ONLY = {"Version", "Status", "ListPodSandbox", "PodSandboxStatus", "ListContainers", "ContainerStatus",
             "GetContainerEvents", "StreamPodSandboxes", "StreamContainers"}

EVERYTHING_SUPPORTED = {
    "name": "read_only",
    "node": {"pods": 20, "containers_per_pod": 2, "exited_per_pod": 1},
    "runtime": {"name": "containerd", "version": "2.1.0", "container_events": True, "list_streaming": True},
    "phases": [{"name": "churn", "churn": {"crashloop_pods": 5, "crashloop_restarts_per_second": 4,
                                           "pods_created_per_second": 1, "pods_deleted_per_second": 1}}],
}


def run_and_check(scenario):
    with FakeCri(scenario) as fake, Agent(fake.endpoint, ["--relist-period", "200ms"]) as agent:
        # Evented mode relists rarely and inspects nothing per event (as the
        # kubelet), so wait for churn to be observed rather than for relists.
        died = lambda: agent.metrics().get("pleg_events_total", 0, event_type="ContainerDied")  # noqa: E731
        first = wait_until(died, 30, "a first ContainerDied")
        wait_until(lambda: died() >= first + 3, 30, "3 more ContainerDied events under churn")
        counts = fake.counts()
        assert counts, "the agent made no calls at all"
        mutating = {m: n for m, n in counts.items() if m not in READ_ONLY}
        assert not mutating, "the agent made mutating CRI calls: %r" % mutating
        return counts


def test_only_read_only_calls_with_events_and_streaming():
    counts = run_and_check(EVERYTHING_SUPPORTED)
    assert counts.get("GetContainerEvents", 0) > 0, counts


def test_only_read_only_calls_on_a_plain_runtime():
    counts = run_and_check("churn")
    assert counts.get("ListContainers", 0) > 0, counts


if __name__ == "__main__":
    harness.main(globals())
