"""cni_slow end to end: the fake runtime's sandbox calls (what
the agent sees: PodSandboxStatus under a few restarts) beside a fake
runtime-metrics page whose network setup/teardown figures are slow or fast.

- containerd's containerd_cri_network_plugin_operations_duration_seconds
  histogram (set_up_pod/tear_down_pod past its highest bucket, 10 s) with
  PodSandboxStatus ~1 s: cni_slow first, with its measured figures, and
  pod_status_slow explained by it;
- CRI-O's container_runtime_crio_operations_latency_seconds_total summary
  (network_setup_pod p99 14 s), a runtime no rule was tuned on: cni_slow;
- slow CNI beside fast sandbox calls: no cause (the PLEG is not harmed);
- fast CNI beside slow PodSandboxStatus: pod_status_slow, never cni_slow.
The agent never calls RunPodSandbox (mutating): the fake's call log says so.
"""

import harness
from harness import Agent, FakeCri, wait_until

from diag_common import describe, fixture, report, wait_top_cause
from fake_kubelet import FakeRuntimeMetrics

FLAGS = ["--hang-threshold", "3s", "--relist-period", "1s", "--node-name", "worker-3"]


def agent_beside(fake, metrics):
    return Agent(fake.endpoint, FLAGS + ["--runtime-metrics-endpoint", metrics.url], proc_path=fixture("healthy"),
                 log_level="info")


def evidence(cause):
    return {e["signal"]: e["value"] for e in cause["evidence"]}


def no_mutating_call(fake):
    counts = fake.counts()
    assert counts.get("PodSandboxStatus", 0) > 0, counts  # what the agent sees of the sandboxes
    for method in ("RunPodSandbox", "StopPodSandbox", "RemovePodSandbox", "CreateContainer", "StartContainer",
                   "StopContainer", "RemoveContainer"):
        assert counts.get(method, 0) == 0, counts


def test_containerd_slow_cni_beside_slow_sandbox_status_is_cni_slow():
    with FakeRuntimeMetrics(cni_seconds=12) as metrics, FakeCri("diag_cni_slow", log_level="warn") as fake, \
            agent_beside(fake, metrics) as agent:
        rep = wait_top_cause(agent, "cni_slow", timeout=60, min_confidence=0.7)
        c = rep["causes"][0]
        figures = evidence(c)
        # Every setup took longer than containerd's highest finite bucket: 10 s is what it can say.
        network = {k: v for k, v in figures.items() if k.startswith("runtime_network_p99_seconds{")}
        assert set(network) <= {"runtime_network_p99_seconds{set_up_pod}",
                                "runtime_network_p99_seconds{tear_down_pod}"} and network, figures
        assert all(v == 10 for v in network.values()), figures
        assert figures["p99_seconds{podsandbox_status}"] >= 0.5, figures
        assert "network set_up_pod takes 10s" in c["summary"] or "network tear_down_pod takes 10s" in c["summary"], \
            c["summary"]
        assert "PodSandboxStatus at" in c["summary"], c["summary"]
        ids = [x["id"] for x in rep["causes"]]
        if "pod_status_slow" in ids:
            status = rep["causes"][ids.index("pod_status_slow")]
            assert "network plugin holds the sandbox's lock" in status["summary"], status["summary"]
        no_mutating_call(fake)
        print("  " + c["summary"])


def test_crio_slow_network_setup_beside_slow_sandbox_status_is_cni_slow():
    with FakeRuntimeMetrics(flavor="crio", cni_seconds=12.9) as metrics, \
            FakeCri("diag_cni_slow_crio", log_level="warn") as fake, agent_beside(fake, metrics) as agent:
        rep = wait_top_cause(agent, "cni_slow", timeout=60, min_confidence=0.7)
        c = rep["causes"][0]
        figures = evidence(c)
        assert abs(figures["runtime_network_p99_seconds{network_setup_pod}"] - 14.19) < 0.01, figures
        assert "network network_setup_pod takes 14s" in c["summary"], c["summary"]
        assert rep["runtime_metrics"]["reachable"] is True
        no_mutating_call(fake)
        print("  " + c["summary"])


def test_slow_cni_beside_fast_sandbox_calls_names_nothing():
    with FakeRuntimeMetrics(cni_seconds=12) as metrics, FakeCri("diag_healthy", log_level="warn") as fake, \
            agent_beside(fake, metrics) as agent:
        # Two scrapes of the slow page, and relists throughout.
        wait_until(lambda: metrics.requests >= 2 and report(agent)["healthy"], 30, "two scrapes and a relist")
        wait_until(lambda: metrics.requests >= 3, 30, "a third scrape")
        rep = report(agent)
        assert rep["causes"] == [], describe(rep)


def test_fast_cni_beside_slow_sandbox_status_is_not_cni_slow():
    with FakeRuntimeMetrics(cni_seconds=0.3) as metrics, FakeCri("diag_cni_slow", log_level="warn") as fake, \
            agent_beside(fake, metrics) as agent:
        rep = wait_top_cause(agent, "pod_status_slow", timeout=60, min_confidence=0.3)
        wait_until(lambda: metrics.requests >= 3, 30, "three scrapes")
        rep = report(agent)
        ids = [c["id"] for c in rep["causes"]]
        assert "pod_status_slow" in ids and "cni_slow" not in ids, describe(rep)


if __name__ == "__main__":
    harness.main(globals())
