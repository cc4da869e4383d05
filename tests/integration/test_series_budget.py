"""The bill per node: what a steady, healthy agent exports on /metrics.

A fleet pays for every series on every node, so the default must stay
below node_exporter's: at most 150 series on a steady node. Counters of
errors appear with the first error (as the kubelet's do), evented families
only in evented mode, and the fine latency detail only with
--metrics-detail full."""

import collections

import harness
from harness import Agent, FakeCri, wait_until

FAST = ["--relist-period", "200ms"]
BUDGET = 150
# Every relist operation timed and three event types' lag measured, and
# the on-demand pod relists of the assumed 1.37 kubelet (7 series).
CHURN_BUDGET = 180
ERROR_FAMILIES = ("pleg_runtime_operations_errors_total", "pleg_relist_errors_total")
EVENTED_FAMILIES = ("pleg_evented_delivery_lag_seconds", "pleg_evented_connection_errors_total",
                    "pleg_evented_connection_success_total")
# The relist path under the kubelet's names: the operations whose latency
# the dashboards and rules read.
RELIST_OPERATIONS = {"list_podsandbox", "list_containers", "podsandbox_status", "container_status"}


def family_of(name, types):
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and types.get(name[: -len(suffix)]) == "histogram":
            return name[: -len(suffix)]
    return name


def steady_metrics(agent, relists=10):
    """/metrics once `relists` relists were timed and every pod was inspected."""
    def ready():
        m = agent.metrics()
        return m if m.get("pleg_relist_duration_seconds_count", 0) >= relists else None
    return wait_until(ready, 60, "%d relists" % relists)


def by_family(m):
    counts = collections.Counter(family_of(s.name, m.types) for s in m.samples)
    return counts


def report(label, m):
    counts = by_family(m)
    print("%s: %d series" % (label, len(m.samples)))
    for family, n in counts.most_common():
        print("  %4d %s" % (n, family))
    return counts


def test_steady_node_within_budget():
    with FakeCri("steady") as fake, Agent(fake.endpoint, FAST) as agent:
        m = steady_metrics(agent)
        report("steady node, default detail", m)
        assert len(m.samples) <= BUDGET, "%d series on a steady node, budget %d" % (len(m.samples), BUDGET)
        # Nothing failed, so no error series at all: the agent makes no call a
        # healthy runtime refuses (it lists unary unless the kubelet streams).
        for family in ERROR_FAMILIES:
            assert not m.find(family), m.find(family)[:3]
        assert not [s for s in m.samples if s.value == 0 and family_of(s.name, m.types) in ERROR_FAMILIES]
        for family in EVENTED_FAMILIES:
            assert family not in m.types, "%s exported in generic mode" % family
        assert m.get("pleg_evented_mode") == 0
        timed = m.label_values("pleg_runtime_operations_duration_seconds_count", "operation_type")
        assert timed and timed <= RELIST_OPERATIONS, timed
        assert {"list_podsandbox", "list_containers"} <= timed, timed
        # Still every family the shipped rules read on a healthy node.
        for family in ("pleg_last_seen_seconds", "pleg_healthy", "pleg_relist_duration_seconds",
                       "pleg_relist_interval_seconds", "pleg_runtime_operations_total",
                       "pleg_runtime_operation_oldest_in_flight_seconds", "pleg_diagnosis_cause",
                       "pleg_relist_threshold_seconds", "pleg_discard_events_total"):
            assert family in m.types, family


def test_churning_node_bill():
    """Churn adds what it measures: the per-pod status calls' latency and
    the lag of each event type that carries a runtime timestamp. Printed for
    the record; bounded by the lean buckets (CHURN_BUDGET)."""
    with FakeCri("churn") as fake, Agent(fake.endpoint, FAST) as agent:
        def churned():
            m = agent.metrics()
            ready = m.sum("pleg_events_total") > 0 and m.find("pleg_event_lag_seconds_count") \
                and m.get("pleg_relist_duration_seconds_count", 0) >= 20
            return m if ready else None
        m = wait_until(churned, 60, "events with a measured lag")
        report("churning node, default detail", m)
        assert len(m.samples) <= CHURN_BUDGET, "%d series on a churning node" % len(m.samples)


def test_first_error_creates_its_series():
    with FakeCri("errors") as fake, Agent(fake.endpoint, FAST) as agent:
        def errored():
            m = agent.metrics()
            return m if m.sum("pleg_relist_errors_total") > 0 and m.sum("pleg_runtime_operations_errors_total") > 0 else None
        m = wait_until(errored, 30, "relist and operation errors to be counted")
        for family in ERROR_FAMILIES:
            zero = [s for s in m.find(family) if s.value == 0]
            assert not zero, "%s: series at 0 %s" % (family, zero[:3])
        codes = {s.labels["code"] for s in m.find("pleg_relist_errors_total")}
        assert codes and codes <= {"UNAVAILABLE", "RESOURCE_EXHAUSTED"}, codes


def test_full_detail_times_every_operation():
    with FakeCri("steady") as fake, Agent(fake.endpoint, FAST + ["--metrics-detail", "full"]) as agent:
        m = steady_metrics(agent)
        counts = report("steady node, --metrics-detail full", m)
        timed = m.label_values("pleg_runtime_operations_duration_seconds_count", "operation_type")
        # Every operation the agent makes: the streamed lists only where the
        # kubelet streams (--cri-list-streaming), which it does not here.
        assert "version" in timed and not {"stream_containers", "stream_podsandboxes"} & timed, timed
        op_buckets = {s.labels["le"] for s in m.find("pleg_runtime_operations_duration_seconds_bucket",
                                                     operation_type="list_containers")}
        assert len(op_buckets) == 21, sorted(op_buckets)  # 0.0005 ... 600 and +Inf
        assert counts["pleg_relist_interval_seconds"] == 22, counts["pleg_relist_interval_seconds"]


def test_bad_detail_value_is_a_usage_error():
    proc = harness.Process("plegscope", [harness.require_binary("plegscope"), "--metrics-detail", "verbose"])
    assert proc.wait(10) == 2
    out = proc.output()
    assert "--metrics-detail" in out and "lean or full" in out, out


if __name__ == "__main__":
    harness.main(globals())
