"""DESIGN §4: every metric family is exposed with its type and labels, the
values describe the simulated node, and `promtool check metrics` is silent."""

import os
import subprocess

import harness
from harness import Agent, FakeCri, wait_until

FAST = ["--relist-period", "200ms"]

# name -> (type, labels every sample carries). pleg_evented_* and
# pleg_diagnosis_cause are covered elsewhere; the error counters, which appear
# with the first error, in test_error_families_under_errors.
FAMILIES = {
    "pleg_relist_duration_seconds": ("histogram", set()),
    "pleg_relist_interval_seconds": ("histogram", set()),
    "pleg_last_seen_seconds": ("gauge", set()),
    "pleg_healthy": ("gauge", set()),
    "pleg_discard_events_total": ("counter", set()),
    "pleg_events_total": ("counter", {"event_type"}),
    "pleg_pods_to_reinspect": ("gauge", set()),
    "pleg_running_pods": ("gauge", set()),
    "pleg_running_containers": ("gauge", {"container_state"}),
    "pleg_runtime_operations_total": ("counter", {"operation_type"}),
    "pleg_runtime_operations_duration_seconds": ("histogram", {"operation_type"}),
    "pleg_runtime_operations_in_flight": ("gauge", {"operation_type"}),
    "pleg_runtime_operation_oldest_in_flight_seconds": ("gauge", {"operation_type"}),
    "pleg_runtime_list_response_bytes": ("gauge", {"operation_type"}),
    "pleg_runtime_list_items": ("gauge", {"operation_type"}),
    "plegscope_build_info": ("gauge", {"version", "runtime_name", "runtime_version"}),
}
EVENT_TYPES = {"ContainerStarted", "ContainerDied", "ContainerRemoved", "ContainerChanged", "PodSync"}
KUBELET_OPERATION_TYPES = {"list_podsandbox", "list_containers", "podsandbox_status", "container_status",
                           "version", "status", "get_container_events", "runtime_config",
                           # CRI list streaming (DESIGN §2), named in the kubelet's style
                           "stream_podsandboxes", "stream_containers"}


def samples_of(m, family, kind):
    names = [family] if kind != "histogram" else [family + "_bucket", family + "_sum", family + "_count"]
    return [s for s in m.samples if s.name in names]


def relisted(agent, n):
    """Metrics once at least n relists were timed."""
    def ready():
        m = agent.metrics()
        return m if m.get("pleg_relist_duration_seconds_count", 0) >= n else None
    return wait_until(ready, 30, "%d relists" % n)


def test_every_family_with_type_and_labels():
    with FakeCri("steady") as fake, Agent(fake.endpoint, FAST) as agent:
        m = relisted(agent, 3)
        problems = []
        for family, (kind, labels) in FAMILIES.items():
            if m.type_of(family) != kind:
                problems.append("%s: # TYPE %r, want %r" % (family, m.type_of(family), kind))
                continue
            samples = samples_of(m, family, kind)
            if not samples:
                problems.append("%s: no samples" % family)
            for s in samples:
                have = set(s.labels) - {"le"}
                if have != labels:
                    problems.append("%s: labels %s, want %s" % (s.name, sorted(have), sorted(labels)))
                    break
        assert not problems, "\n".join(problems)


def test_labelled_counters_on_a_healthy_node():
    """Event types are few and known: exported at 0 from the first scrape.
    Error counters appear with the first error of a code, as the kubelet's
    do, so a healthy node pays for none (tests/integration/test_series_budget.py)."""
    with FakeCri("steady") as fake, Agent(fake.endpoint, FAST) as agent:
        m = agent.metrics()  # the very first scrape, before any relist need have finished
        assert {s.labels["event_type"] for s in m.find("pleg_events_total")} == EVENT_TYPES
        m = relisted(agent, 3)
        assert not m.find("pleg_relist_errors_total")
        # No call a healthy runtime refuses: the lists are unary, as the kubelet's.
        failed = m.find("pleg_runtime_operations_errors_total")
        assert not failed, failed
        ops = {s.labels["operation_type"] for s in m.find("pleg_runtime_operations_total")}
        assert {"list_podsandbox", "list_containers"} <= ops <= KUBELET_OPERATION_TYPES, ops


def test_error_families_under_errors():
    with FakeCri("errors") as fake, Agent(fake.endpoint, FAST) as agent:
        def errored():
            m = agent.metrics()
            return m if m.sum("pleg_relist_errors_total") > 0 and m.sum("pleg_runtime_operations_errors_total") > 0 else None
        m = wait_until(errored, 30, "relist and operation errors to be counted")
        assert m.type_of("pleg_relist_errors_total") == "counter"
        assert m.type_of("pleg_runtime_operations_errors_total") == "counter"
        codes = {s.labels["code"] for s in m.find("pleg_relist_errors_total") if s.value > 0}
        assert codes <= {"UNAVAILABLE", "RESOURCE_EXHAUSTED"}, codes
        for s in m.find("pleg_runtime_operations_errors_total"):
            assert set(s.labels) == {"operation_type", "code"}, s
            assert s.labels["operation_type"] in KUBELET_OPERATION_TYPES, s
        injected = {s.labels["code"] for s in m.find("pleg_runtime_operations_errors_total")
                    if s.labels["operation_type"] in ("list_podsandbox", "list_containers") and s.value > 0}
        assert injected & {"UNAVAILABLE", "RESOURCE_EXHAUSTED"}, injected


def test_values_describe_the_node():
    with FakeCri("steady") as fake, Agent(fake.endpoint, FAST) as agent:
        m = relisted(agent, 3)
        assert m.get("pleg_healthy") == 1
        assert m.get("pleg_running_pods") == 50, m.find("pleg_running_pods")
        assert m.get("pleg_running_containers", container_state="running") == 100
        states = m.label_values("pleg_running_containers", "container_state")
        assert states <= {"created", "running", "exited", "unknown"}, states
        ops = m.label_values("pleg_runtime_operations_total", "operation_type")
        assert ops <= KUBELET_OPERATION_TYPES, ops - KUBELET_OPERATION_TYPES
        assert {"list_podsandbox", "list_containers", "podsandbox_status", "container_status"} <= ops, ops
        for family in ("pleg_runtime_operations_in_flight", "pleg_runtime_operation_oldest_in_flight_seconds",
                       "pleg_runtime_operations_duration_seconds_count"):
            assert m.label_values(family, "operation_type") <= KUBELET_OPERATION_TYPES, family
        assert m.get("pleg_runtime_list_items", operation_type="list_containers") == 100
        assert m.get("pleg_runtime_list_items", operation_type="list_podsandbox") == 50
        assert m.get("pleg_runtime_list_response_bytes", operation_type="list_containers") > 0
        # Histogram buckets reach past the kubelet's 3m threshold (DESIGN §4).
        for family in ("pleg_relist_duration_seconds", "pleg_runtime_operations_duration_seconds"):
            bounds = {float(s.labels["le"]) for s in m.find(family + "_bucket")}
            assert float("inf") in bounds and max(b for b in bounds if b != float("inf")) >= 600, (family, bounds)
        t = wait_until(lambda: agent.metrics().get("pleg_last_seen_seconds", 0) > m.get("pleg_last_seen_seconds"),
                       10, "pleg_last_seen_seconds to advance")
        assert t


def test_build_info_names_the_runtime():
    with FakeCri("steady") as fake, Agent(fake.endpoint, FAST) as agent:
        def info():
            found = agent.metrics().find("plegscope_build_info", runtime_name="containerd")
            return found[0] if found else None
        s = wait_until(info, 20, "plegscope_build_info{runtime_name=\"containerd\"}")
        assert s.value == 1
        assert s.labels["runtime_version"] == "1.6.20", s.labels
        assert s.labels["version"], s.labels


def test_every_thread_of_the_agent_is_named():
    # The footprint census (CHANGELOG.md, "Measurement log") names each thread's owner by its
    # name: only the main thread keeps the binary's; gRPC's, civetweb's and
    # ours each carry one.
    with FakeCri("steady") as fake, Agent(fake.endpoint, FAST) as agent:
        wait_until(lambda: agent.metrics().find("plegscope_build_info", runtime_name="containerd"), 20,
                   "the runtime's Version, read on the readers' thread")
        pid = agent.proc.pid
        names = {}
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                    names[int(tid)] = f.read().strip()
            except OSError:
                continue  # the thread ended while listed
        unnamed = sorted(tid for tid, name in names.items() if name == "plegscope" and tid != pid)
        assert not unnamed, names
        for ours in ("relist", "pleg-events", "readers", "http-gate"):
            assert ours in names.values(), (ours, names)
        # The journal follower is served by the readers' thread, not one of its own.
        assert "journal" not in names.values(), names
        # gRPC's 7 (8 when its event engine starts a third pool thread), civetweb's 3, ours 5.
        assert len(names) <= 16, names


def test_promtool_check_metrics_is_silent():
    promtool = harness.require_tool("promtool")
    with FakeCri("churn") as fake, Agent(fake.endpoint, FAST) as agent:
        wait_until(lambda: agent.metrics().sum("pleg_events_total") > 0, 30, "some PLEG events")
        status, body = agent.get("/metrics")
        assert status == 200
        result = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True, text=True,
                                timeout=30)
        report = (result.stdout + result.stderr).strip()
        assert result.returncode == 0 and report == "", "promtool check metrics:\n%s" % report


if __name__ == "__main__":
    harness.main(globals())
