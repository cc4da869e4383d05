"""The agent copies the kubelet release it reads beside it (DESIGN §2): the
fake runtime (build/fakecri) and a fake kubelet /metrics
(tests/lib/fake_kubelet.py) reporting v1.35.4 or v1.37.2, and the CRI calls
the agent makes counted.

Two pods whose ContainerStatus always fails are owed a re-inspection at
every relist (every release retries them). A 1.35 kubelet's GetPodStatus
lists each of them again first (a ListPodSandbox and a ListContainers
filtered by its uid): four calls per pod per relist. A 1.37 kubelet takes the
ids from the relist: PodSandboxStatus and the failing ContainerStatus, two
calls. A container that dies in a healthy pod is relisted on demand from
1.36 (pleg_pod_relist_duration_seconds), never before. Without a kubelet to
read, the report says the 1.37 model is assumed, and `--evented-pleg auto`
keeps the relist at 1 s although the runtime serves GetContainerEvents."""

import contextlib
import os
import tempfile

import harness
from harness import Agent, FakeCri, require_tool, wait_until
from fake_kubelet import FakeKubelet

SCENARIO = {
    "name": "kubelet_model",
    "description": "6 pods x 2 containers; in `failing`, pods 0 and 1's ContainerStatus fails.",
    "node": {"pods": 6, "containers_per_pod": 2},
    "runtime": {"name": "containerd", "version": "2.3.0"},
    "defaults": {"latency": {"*": {"fixed": "200us", "jitter": "300us"}}},
    "phases": [
        {"name": "healthy", "duration": "1h"},
        {"name": "failing",
         "errors": {"ContainerStatus": [{"code": "UNKNOWN", "pods": [0, 1], "message": "no shim state"}]}},
    ],
}

FLAGS = ["--relist-period", "1s", "--node-name", "worker-3"]


def token_file(directory, token="t0k3n"):
    path = os.path.join(directory, "token")
    with open(path, "w") as f:
        f.write(token + "\n")
    return path


def kubelet_flags(kubelet, directory):
    return ["--kubelet-endpoint", kubelet.url, "--kubelet-ca-file", kubelet.ca_file,
            "--kubelet-token-file", token_file(directory)]


def kubelet_section(agent):
    return agent.get_json("/diagnose")["kubelet"]


@contextlib.contextmanager
def beside(version, scenario=SCENARIO, flags=FLAGS):
    """fakecri in SCENARIO's `healthy` phase, a fake kubelet reporting VERSION,
    the agent reading both with FLAGS; yields (fake, kubelet, agent, release "1.37")
    once the agent has read the kubelet's version."""
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeKubelet(d, version=version) as kubelet, \
            FakeCri(scenario, log_level="warn", hold="healthy") as fake, \
            Agent(fake.endpoint, flags + kubelet_flags(kubelet, d), log_level="info") as agent:
        wait_until(lambda: kubelet_section(agent)["model_source"] == "read", 30, "the kubelet's version read")
        yield fake, kubelet, agent, version.lstrip("v").rsplit(".", 1)[0]


def run_release(version, per_pod_calls):
    with beside(version) as (fake, kubelet, agent, release):
        k = kubelet_section(agent)
        assert k["model_release"] == release and k["model"] == "generic", k

        pods = sorted(fake.pods(), key=lambda p: p["ordinal"])
        fake.phase("failing", hold=True)
        for pod in pods[:2]:
            assert fake.kill(pod_uid=pod["uid"]) == 2
        wait_until(lambda: agent.metrics().get("pleg_pods_to_reinspect") == 2, 20, "two pods owed an inspection")
        # Relists that started after both were owed: each re-inspects the two.
        before = len(agent.get_json("/diagnose")["timeline"])
        timeline = wait_until(lambda: (lambda t: len(t) >= before + 3 and t)(agent.get_json("/diagnose")["timeline"]),
                              20, "three more relists")
        for r in timeline[-2:]:
            assert r["status_calls"] == 2 * per_pod_calls, (version, r)

        # The runtime's own count over whole relists: the unfiltered list of
        # each relist, plus the re-inspections' filtered ones (1.35 only).
        fake.clear_calls()
        relists_before = agent.metrics().get("pleg_relist_duration_seconds_count")
        wait_until(lambda: agent.metrics().get("pleg_relist_duration_seconds_count") >= relists_before + 4, 20,
                   "four relists")
        counts = fake.counts()
        sandbox_status = counts.get("PodSandboxStatus", 0)
        list_sandboxes = counts.get("ListPodSandbox", 0)
        # PodSandboxStatus is two per relist in both releases; ListPodSandbox
        # is one per relist plus two per relist up to 1.35.
        ratio = list_sandboxes / max(1, sandbox_status)
        if per_pod_calls == 4:
            assert 1.2 <= ratio <= 1.8, (version, counts)
        else:
            assert 0.3 <= ratio <= 0.8, (version, counts)

        # A death alone asks no relist of the pod (the kubelet's sync after
        # it acts only when it starts the container again) ...
        fake.phase("healthy", hold=True)
        wait_until(lambda: agent.metrics().get("pleg_pods_to_reinspect") == 0, 20, "the re-inspections to succeed")
        assert fake.kill(pod_uid=pods[3]["uid"]) == 2
        died = wait_until(lambda: agent.metrics().get("pleg_events_total", 0, event_type="ContainerDied") >= 6 and
                          agent.metrics(), 20, "the deaths delivered")
        harness.wait_until(lambda: agent.metrics().get("pleg_relist_duration_seconds_count") >=
                           died.get("pleg_relist_duration_seconds_count") + 2, 10, "two more relists")
        assert agent.metrics().get("pleg_pod_relist_duration_seconds_count", 0) == 0, version
        # ... a restart does: relisted on demand from 1.36, as after the kubelet's sync that started it.
        assert fake.kill(pod_uid=pods[4]["uid"], restart=True) == 2
        died = wait_until(lambda: agent.metrics().get("pleg_events_total", 0, event_type="ContainerDied") >= 8 and
                          agent.metrics(), 20, "the restarts delivered")
        if per_pod_calls == 4:
            harness.wait_until(lambda: agent.metrics().get("pleg_relist_duration_seconds_count") >=
                               died.get("pleg_relist_duration_seconds_count") + 2, 10, "two more relists")
            assert not agent.metrics().has("pleg_pod_relist_duration_seconds_count"), version
        else:
            wait_until(lambda: agent.metrics().get("pleg_pod_relist_duration_seconds_count", 0) >= 1, 10,
                       "an on-demand relist of the pod")
        text = agent.get("/diagnose?format=text")[1]
        assert "copying the %s kubelet (its version, read)" % release in text, text
        print("  %s: %s per relist of two owed pods; runtime counts %s" % (version, timeline[-1]["status_calls"],
                                                                          counts))


def test_kubelet_1_35_inspection_lists_each_pod():
    run_release("v1.35.4", per_pod_calls=4)


def test_kubelet_1_37_inspection_takes_the_ids_from_the_relist():
    run_release("v1.37.2", per_pod_calls=2)


def test_without_a_kubelet_the_newest_model_is_assumed_and_auto_stays_generic():
    with FakeCri("steady", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS + ["--evented-pleg", "auto"], log_level="info") as agent:
        rep = agent.get_json("/diagnose")
        k = rep["kubelet"]
        assert (k["model"], k["model_release"], k["model_source"]) == ("generic", "1.37", "assumed"), k
        wait_until(lambda: agent.metrics().get("pleg_relist_duration_seconds_count", 0) >= 3, 20, "three relists")
        m = agent.metrics()
        assert m.get("pleg_relist_period_seconds") == 1, "auto without a kubelet relists every second"
        assert m.get("pleg_evented_mode") == 0
        assert agent.get_json("/diagnose")["relist"]["mode"] == "generic"
        assert fake.counts().get("GetContainerEvents", 0) == 0, "the 1.37 default has the gate off: no stream"
        text = agent.get("/diagnose?format=text")[1]
        assert "copying the 1.37 kubelet (assumed" in text, text


if __name__ == "__main__":
    harness.main(globals())
