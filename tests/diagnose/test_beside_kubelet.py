"""The kubelet beside the agent, end to end: a fake kubelet (HTTPS, a certificate
made by openssl, a bearer token) and a fake runtime-metrics page, with the
fake runtime healthy or hung. The kubelet's relist frozen while the
runtime answers names kubelet_internal; the runtime hung too names
runtime_hung instead; a kubelet that cannot be read (403, garbage, 50 MiB,
slow drip, unreachable) is reported in the "kubelet" section, bounded, with
no cause invented. In-cluster, the Node's Ready condition from a fake API
server (get nodes/<node>) carries the kubelet's own "PLEG is not healthy"
sentence into every format; a 403 or a 401 there is reported with its fix,
never fatal, and no cause comes from it. UpdateContainerResources in flight inside the runtime
while ListContainers hangs names container_lock_stall first; nothing in
flight leaves runtime_hung."""

import os
import socket
import tempfile
import time

import harness
from harness import Agent, FakeCri, require_tool, wait_until

from diag_common import describe, fixture, report, wait_top_cause
from fake_apiserver import PLEG_MESSAGE, READY_MESSAGE, FakeApiServer
from fake_kubelet import FakeKubelet, FakeRuntimeMetrics

FLAGS = ["--hang-threshold", "3s", "--relist-period", "1s", "--node-name", "worker-3"]


def kubelet_flags(kubelet, token_file):
    return ["--kubelet-endpoint", kubelet.url, "--kubelet-ca-file", kubelet.ca_file,
            "--kubelet-token-file", token_file]


def token_file(directory, token="t0k3n"):
    path = os.path.join(directory, "token")
    with open(path, "w") as f:
        f.write(token + "\n")
    return path


def kubelet_section(agent):
    return report(agent)["kubelet"]


def test_healthy_kubelet_no_cause_then_frozen_names_kubelet_internal():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeKubelet(d) as kubelet, \
            FakeCri("diag_healthy", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS + kubelet_flags(kubelet, token_file(d)), proc_path=fixture("healthy"),
                  log_level="info") as agent:
        wait_until(lambda: kubelet_section(agent)["reachable"] and
                   kubelet_section(agent)["relists_per_minute"] is not None, 30, "two kubelet scrapes")
        rep = report(agent)
        assert rep["causes"] == [], describe(rep)
        k = rep["kubelet"]
        assert k["version"] == "v1.30.2" and k["model"] == "generic" and k["tls_mode"] == "ca_file", k
        assert k["error"] is None and k["relists_per_minute"] > 0, k
        assert agent.metrics().get("pleg_kubelet_up") == 1
        text = agent.get("/diagnose?format=text")[1]
        assert "Kubelet beside the agent: " + kubelet.url in text, text
        html = agent.get("/diagnose?format=html")[1]
        assert 'id="kubelet-chart"' in html

        kubelet.mode = "frozen"
        rep = wait_top_cause(agent, "kubelet_internal", timeout=60, min_confidence=0.5)
        c = rep["causes"][0]
        signals = {e["signal"] for e in c["evidence"]}
        assert "agent_relist_p99_seconds" in signals, c
        assert signals & {"kubelet_last_seen_age_seconds", "kubelet_seconds_since_relist_count_advanced"}, c
        assert "-s QUIT kubelet" in c["remedy"], c["remedy"]
        print("  " + describe(rep))


def test_frozen_kubelet_with_the_runtime_hung_is_runtime_hung():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeKubelet(d) as kubelet, \
            FakeCri("diag_hang", log_level="warn", hold="healthy") as fake, \
            Agent(fake.endpoint, FLAGS + kubelet_flags(kubelet, token_file(d)), proc_path=fixture("healthy"),
                  log_level="info") as agent:
        wait_until(lambda: kubelet_section(agent)["reachable"], 20, "a kubelet scrape")
        kubelet.mode = "frozen"
        fake.phase("hang", hold=True)
        rep = wait_top_cause(agent, "runtime_hung", timeout=30)
        # Long enough for the kubelet's count to look frozen (11 s), and more.
        wait_until(lambda: (report(agent)["kubelet"]["last_seen_age_seconds"] or 0) > 15, 40, "the kubelet aging")
        rep = report(agent)
        ids = [c["id"] for c in rep["causes"]]
        assert ids[0] == "runtime_hung" and "kubelet_internal" not in ids, describe(rep)
        fake.release()


def test_unreadable_kubelets_are_reported_bounded_and_invent_no_cause():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeKubelet(d, mode="forbidden") as kubelet, \
            FakeCri("diag_healthy", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS + kubelet_flags(kubelet, token_file(d)), proc_path=fixture("healthy"),
                  log_level="info") as agent:
        wait_until(lambda: report(agent)["healthy"], 20, "a first relist")
        for mode, words in (("forbidden", "nodes/metrics"), ("garbage", "not the kubelet's metrics"),
                            ("huge", "larger than"), ("drip", "did not answer in time")):
            kubelet.mode = mode
            wait_until(lambda: words in (kubelet_section(agent)["error"] or ""), 40, "the %s kubelet reported" % mode)
            started = time.monotonic()
            rep = report(agent)
            assert time.monotonic() - started < 5, "/diagnose waited for a kubelet scrape"
            assert rep["kubelet"]["reachable"] is False, rep["kubelet"]
            assert rep["causes"] == [], describe(rep)
            assert agent.metrics().get("pleg_kubelet_up") == 0
            print("  %s: %s" % (mode, rep["kubelet"]["error"]))
        assert agent.proc.alive()
    # Unreachable: nothing listens on the port.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as d, FakeCri("diag_healthy", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS + ["--kubelet-endpoint", "https://127.0.0.1:%d" % port,
                                          "--kubelet-token-file", token_file(d)],
                  proc_path=fixture("healthy"), log_level="info") as agent:
        wait_until(lambda: "could not be reached" in (kubelet_section(agent)["error"] or ""), 20, "unreachable")
        wait_until(lambda: report(agent)["healthy"], 20, "a first relist")
        assert report(agent)["causes"] == [], describe(report(agent))


def test_wrong_token_is_401_with_its_fix():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeKubelet(d) as kubelet, \
            FakeCri("diag_healthy", log_level="warn") as fake, \
            Agent(fake.endpoint, FLAGS + kubelet_flags(kubelet, token_file(d, "wrong")),
                  proc_path=fixture("healthy"), log_level="info") as agent:
        wait_until(lambda: "401" in (kubelet_section(agent)["error"] or ""), 20, "a 401")
        assert "webhook" in kubelet_section(agent)["error"]


def api_agent(d, api, fake, token="t0k3n"):
    """The agent in-cluster beside `api`, the kubelet's metrics off, no journal."""
    flags = FLAGS + ["--api-server-ca-file", api.ca_file, "--api-server-token-file", token_file(d, token),
                     "--journal-path", os.path.join(d, "no-journal")]
    return Agent(fake.endpoint, flags, proc_path=fixture("healthy"), log_level="info", env=api.env())


def ready_section(agent):
    """Once the Ready fetch has been judged: the kubelet section."""
    return wait_until(lambda: (lambda k: k if k["ready_message"] is not None or k["ready_error"] is not None
                               else None)(kubelet_section(agent)), 20, "the Node's Ready condition read")


def test_node_ready_message_in_all_three_formats_and_no_cause_from_it():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeApiServer(d, node="worker-3") as api, \
            FakeCri("diag_healthy", log_level="warn") as fake, api_agent(d, api, fake) as agent:
        k = ready_section(agent)
        assert k["ready_message"] == PLEG_MESSAGE and k["ready_error"] is None, k
        path, auth, accept = api.requests[-1]
        assert path == "/api/v1/nodes/worker-3" and auth == "Bearer t0k3n" and "application/json" in accept, \
            api.requests[-1]
        wait_until(lambda: report(agent)["healthy"], 20, "a first relist")
        rep = report(agent)
        assert rep["causes"] == [], describe(rep)  # the kubelet's words, not a measurement
        text = agent.get("/diagnose?format=text")[1]
        assert "Node Ready: " + PLEG_MESSAGE in text, text
        html = agent.get("/diagnose?format=html")[1]
        assert '<p id="node-ready">Node Ready: ' + PLEG_MESSAGE + "</p>" in html, html[-3000:]


def test_node_ready_true_is_the_ready_message():
    require_tool("openssl")
    with tempfile.TemporaryDirectory() as d, FakeApiServer(d, node="worker-3", mode="ready") as api, \
            FakeCri("diag_healthy", log_level="warn") as fake, api_agent(d, api, fake) as agent:
        k = ready_section(agent)
        assert k["ready_message"] == READY_MESSAGE and k["ready_error"] is None, k
        wait_until(lambda: report(agent)["healthy"], 20, "a first relist")
        assert report(agent)["causes"] == [], describe(report(agent))


def test_node_ready_forbidden_and_unauthorized_are_reported_with_their_fix():
    require_tool("openssl")
    for mode, token, words in (("forbidden", "t0k3n", ["HTTP 403 Forbidden", "get on nodes", "deploy/rbac.yaml"]),
                               ("not_ready", "wrong", ["HTTP 401 Unauthorized", "--api-server-token-file"])):
        with tempfile.TemporaryDirectory() as d, FakeApiServer(d, node="worker-3", mode=mode) as api, \
                FakeCri("diag_healthy", log_level="warn") as fake, api_agent(d, api, fake, token) as agent:
            k = ready_section(agent)
            assert k["ready_message"] is None, k
            assert all(w in k["ready_error"] for w in words), k["ready_error"]
            wait_until(lambda: report(agent)["healthy"], 20, "a first relist")
            rep = report(agent)
            assert rep["causes"] == [], describe(rep)
            text = " ".join(agent.get("/diagnose?format=text")[1].split())
            assert "Node Ready: the Node's Ready condition" in text and words[0] in text, text
            html = agent.get("/diagnose?format=html")[1]
            assert words[0] in html and 'id="node-ready" class="over"' in html
            assert agent.proc.alive()
            print("  %s: %s" % (mode, k["ready_error"]))


def test_update_in_flight_while_list_hangs_is_container_lock_stall():
    with FakeRuntimeMetrics() as metrics, FakeCri("diag_hang", log_level="warn", hold="healthy") as fake, \
            Agent(fake.endpoint, FLAGS + ["--runtime-metrics-endpoint", metrics.url], proc_path=fixture("healthy"),
                  log_level="info") as agent:
        wait_until(lambda: report(agent)["runtime_metrics"]["reachable"], 20, "a runtime metrics scrape")
        assert agent.metrics().get("pleg_runtime_metrics_up") == 1
        metrics.update_in_flight = 1
        fake.phase("hang", hold=True)
        rep = wait_top_cause(agent, "container_lock_stall", timeout=40)
        ids = [c["id"] for c in rep["causes"]]
        assert ids.index("container_lock_stall") < ids.index("runtime_hung"), describe(rep)
        assert "UpdateContainerResources" in rep["causes"][0]["summary"], rep["causes"][0]["summary"]
        flights = {f["method"]: f for f in rep["runtime_metrics"]["in_flight"]}
        assert flights["UpdateContainerResources"]["seconds"] >= 3, flights
        fake.release()


def test_nothing_in_flight_while_list_hangs_is_runtime_hung():
    with FakeRuntimeMetrics() as metrics, FakeCri("diag_hang", log_level="warn", hold="healthy") as fake, \
            Agent(fake.endpoint, FLAGS + ["--runtime-metrics-endpoint", metrics.url], proc_path=fixture("healthy"),
                  log_level="info") as agent:
        wait_until(lambda: report(agent)["runtime_metrics"]["reachable"], 20, "a runtime metrics scrape")
        fake.phase("hang", hold=True)
        rep = wait_top_cause(agent, "runtime_hung", timeout=30)
        time.sleep(6)  # another runtime-metrics scrape, then judge again
        rep = report(agent)
        ids = [c["id"] for c in rep["causes"]]
        assert ids[0] == "runtime_hung" and "container_lock_stall" not in ids, describe(rep)
        fake.release()


if __name__ == "__main__":
    harness.main(globals())
