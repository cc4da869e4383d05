"""The agent only reads (DESIGN §2): every call the fake receives, to any
method of any service (fakecri logs the ones it does not serve by their full
gRPC path, e.g. /runtime.v1.ImageService/ListImages), is in the read-only
allow-list, whatever the runtime supports and whatever it answers."""

import subprocess

import harness
from harness import Agent, FakeCri, wait_until

READ_ONLY = {"Version", "Status", "RuntimeConfig", "ListPodSandbox", "PodSandboxStatus", "ListContainers", "ContainerStatus",
             "GetContainerEvents", "StreamPodSandboxes", "StreamContainers"}

EVERYTHING_SUPPORTED = {
    "name": "read_only",
    "node": {"pods": 20, "containers_per_pod": 2, "exited_per_pod": 1},
    "runtime": {"name": "containerd", "version": "2.1.0", "container_events": True, "list_streaming": True},
    "phases": [{"name": "churn", "churn": {"crashloop_pods": 5, "crashloop_restarts_per_second": 4,
                                           "pods_created_per_second": 1, "pods_deleted_per_second": 1}}],
}


def run_and_check(scenario):
    # true: the stream wherever the runtime serves GetContainerEvents (a
    # hint for pod relists, as the assumed 1.37 kubelet's), and lists streamed
    # wherever the runtime streams, so every call the agent can make is
    # exercised (the defaults follow the kubelet: off and unary).
    with FakeCri(scenario) as fake, Agent(fake.endpoint, ["--relist-period", "200ms", "--evented-pleg", "true",
                                                           "--cri-list-streaming", "true"]) as agent:
        # Evented mode relists rarely and inspects nothing per event (as the
        # kubelet), so wait for churn to be observed rather than for relists.
        died = lambda: agent.metrics().get("pleg_events_total", 0, event_type="ContainerDied")  # noqa: E731
        first = wait_until(died, 30, "a first ContainerDied")
        wait_until(lambda: died() >= first + 3, 30, "3 more ContainerDied events under churn")
        counts = fake.counts()
        assert counts, "the agent made no calls at all"
        assert_read_only(counts)
        return counts


def assert_read_only(counts):
    outside = {m: n for m, n in counts.items() if m not in READ_ONLY}
    assert not outside, "the agent made calls outside the read-only allow-list: %r" % outside


def test_only_read_only_calls_with_events_and_streaming():
    counts = run_and_check(EVERYTHING_SUPPORTED)
    assert counts.get("GetContainerEvents", 0) > 0, counts


def test_only_read_only_calls_on_a_plain_runtime():
    counts = run_and_check("churn")
    assert counts.get("ListContainers", 0) > 0, counts


def test_only_read_only_calls_on_a_broken_runtime():
    """Garbage events, errors and restarts make a client retry and recover:
    recovery must not reach for anything but reads."""
    broken = {
        "name": "read_only_broken",
        "node": {"pods": 10, "containers_per_pod": 2},
        "runtime": {"container_events": True},
        "defaults": {"events": {"garbage": True, "break_after": 20},
                     "errors": {"lists": {"code": "UNAVAILABLE", "rate": 0.3},
                                "statuses": {"code": "NOT_FOUND", "rate": 0.3}},
                     "churn": {"crashloop_pods": 3, "crashloop_restarts_per_second": 3}},
        "loop": True,
        "phases": [{"name": "up", "duration": "2s"}, {"name": "down", "duration": "300ms", "socket": "down"}],
    }
    flags = ["--relist-period", "200ms", "--evented-pleg", "true"]
    with FakeCri(broken) as fake, Agent(fake.endpoint, flags) as agent:
        # As the kubelet, a stream broken by a restart is retried at once and
        # evented mode ends after five failures: then generic relists go on.
        wait_until(lambda: agent.metrics().get("pleg_evented_connection_errors_total", 0) >= 1, 30,
                   "a broken event stream")
        wait_until(lambda: fake.state()["phase_entries"] >= 3 and fake.counts().get("ListContainers", 0) >= 20,
                   30, "three restarts and 20 ListContainers")
        counts = fake.counts()
        print("calls on the broken runtime: %r" % counts)
        assert_read_only(counts)


def test_runtime_config_asked_once_and_unimplemented_named():
    """RuntimeConfig is the one call beside Version the agent makes to learn
    what the runtime is: asked with Version after the first good relist, not
    per relist. On a runtime that answers UNIMPLEMENTED (containerd 1.6 and
    1.7) /diagnose names runtime_losing_support as info; the node stays
    healthy."""
    old_runtime = {"name": "read_only_old_runtime", "node": {"pods": 5, "containers_per_pod": 1},
                   "runtime": {"name": "containerd", "version": "1.6.20", "runtime_config": False},
                   "phases": [{"name": "steady"}]}
    with FakeCri(old_runtime) as fake, Agent(fake.endpoint, ["--relist-period", "200ms"]) as agent:
        wait_until(lambda: fake.counts().get("RuntimeConfig", 0) >= 1, 30, "a RuntimeConfig call")
        wait_until(lambda: fake.counts().get("ListContainers", 0) >= 10, 30, "10 relists")

        def named():
            status, body = agent.get("/diagnose")
            report = harness.report_json(body) if status == 200 else {"causes": []}
            return next((c for c in report["causes"] if c["id"] == "runtime_losing_support"), None) and report
        report = wait_until(named, 30, "runtime_losing_support in /diagnose")
        cause = next(c for c in report["causes"] if c["id"] == "runtime_losing_support")
        counts = fake.counts()
        print("calls: %r; %s" % (counts, cause["summary"]))
        assert_read_only(counts)
        # Never more often than Version (which the start-up check also asks), never per relist.
        assert counts["RuntimeConfig"] <= counts["Version"] and counts["RuntimeConfig"] <= 2, counts
        assert cause["severity"] == "info" and cause["advice"] == "none", cause
        # An info cause never raises the status: anything but healthy has
        # another cause above info or a forecast behind it (a loaded machine's
        # late relists at this period).
        others = [(c["id"], c["severity"]) for c in report["causes"] if c["severity"] != "info"]
        print("status %s; other causes above info %r" % (report["status"], others))
        assert report["status"] == "healthy" or others or report["forecast"]["seconds_to_unhealthy"] is not None, \
            (report["status"], report["causes"])
        assert "containerd 1.6.20" in cause["summary"], cause["summary"]


def test_the_check_sees_calls_to_any_method():
    """The proof can fail: a client that mutates and lists images (cri-driver,
    the e2e test's own CRI client) shows up in the same counts, including
    ImageService and methods fakecri does not serve."""
    driver = harness.require_binary("cri-driver")
    with FakeCri("steady") as fake:
        for args in (["run-pod", "p", "uid-p"], ["images"]):
            subprocess.run([driver, "--endpoint", fake.endpoint] + args, capture_output=True, timeout=30)
        counts = fake.counts()
        assert counts.get("RunPodSandbox") == 1, counts
        assert counts.get("/runtime.v1.ImageService/ListImages") == 1, counts
        try:
            assert_read_only(counts)
        except AssertionError as e:
            print("as it should, the check refuses: %s" % e)
        else:
            raise AssertionError("assert_read_only accepted %r" % counts)


if __name__ == "__main__":
    harness.main(globals())
