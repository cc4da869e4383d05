"""A list filtered by one pod's uid that hangs, beside a kubelet of 1.37 and
of 1.35 (tests/lib/fake_kubelet.py reporting its version).

From 1.36 the kubelet relists one pod on demand (generic.go relistPod: its
ListPodSandbox and ListContainers filtered by the pod's uid) on the worker and
under the lock of its global relist; the agent copies that model and relists a
pod whose containers were started anew (a restart, a new pod) the same way. The fake runtime (build/fakecri: a real
runtime cannot be made to hang one pod's filtered list on demand) hangs every
ListContainers filtered by pod 3's uid; the containers of pod 3 are killed
and restarted.
Asserted:
- beside 1.37: the agent's relist of pod 3 hangs, its global relists stop
  behind it (pleg_last_seen_age_seconds grows past the hang threshold), and
  the report's runtime_hung names the on-demand relist of that pod holding the
  global relist, with the kubelet's own relist count, frozen meanwhile, beside
  it; released, the relists go on;
- beside 1.35: no on-demand relist; the same filtered list is the inspection
  inside a global relist, named as a hung call for that pod, never as a pod
  relist.
"""

import harness
from harness import wait_until
import test_kubelet_model as km
from test_kubelet_model import kubelet_section

HUNG = 3  # the pod whose filtered lists hang
# test_kubelet_model's node (6 pods x 2 containers, containerd 2.3.0, fast calls), other phases.
SCENARIO = dict(km.SCENARIO, name="pod_relist_hung",
                description="6 pods x 2 containers; in `hung`, ListContainers filtered by pod 3's uid never answers.",
                phases=[{"name": "healthy", "duration": "1h"},
                        {"name": "hung", "hangs": {"ListContainers": {"pods": [HUNG]}}}])
HANG = 2  # --hang-threshold, seconds
FLAGS = ["--relist-period", "1s", "--node-name", "worker-3", "--hang-threshold", "%ds" % HANG]


def hung_cause(agent):
    for c in agent.get_json("/diagnose")["causes"]:
        if c["id"] == "runtime_hung":
            return c
    return None


def run_release(version):
    with km.beside(version, SCENARIO, FLAGS) as (fake, kubelet, agent, release):
        assert kubelet_section(agent)["model_release"] == release
        pod = sorted(fake.pods(), key=lambda p: p["ordinal"])[HUNG]
        name = "%s/%s" % (pod["namespace"], pod["name"])
        wait_until(lambda: agent.metrics().get("pleg_relist_duration_seconds_count", 0) >= 2, 20, "two relists")

        fake.phase("hung", hold=True)
        # The kubelet beside it stops relisting as the agent does (its worker is held the same way).
        kubelet.mode = "frozen"
        # The kubelet restarts them: the sync that started them is followed by its relist of the pod.
        assert fake.kill(pod_uid=pod["uid"], restart=True) == 2

        def named():
            c = hung_cause(agent)
            return c if c and name in c["summary"] else None
        cause = wait_until(named, 30, "runtime_hung naming %s" % name, interval=0.5)
        m = agent.metrics()
        assert m.get("pleg_runtime_operations_in_flight", 0, operation_type="list_containers") == 1, m
        signals = {e["signal"] for e in cause["evidence"]}
        if release == "1.37":
            assert "on-demand relist of %s" % name in cause["summary"], cause["summary"]
            assert "no global relist can start" in cause["summary"], cause["summary"]
            assert "pod_relist_in_progress_seconds" in signals, signals
            # Behind it, the agent's own global relists stop.
            wait_until(lambda: agent.metrics().get("pleg_last_seen_age_seconds", 0) > HANG + 1, 20,
                       "the global relist held behind the pod's")
            # The kubelet's flat count is said once the agent has seen it flat past the threshold.
            cause = wait_until(lambda: (lambda c: c if c and "kubelet_relist_flat_seconds" in
                                        {e["signal"] for e in c["evidence"]} else None)(hung_cause(agent)),
                               30, "the kubelet's flat relist count beside it", interval=0.5)
            assert "the kubelet's own relist count has not advanced" in cause["summary"], cause["summary"]
            assert not agent.metrics().has("pleg_pod_relist_duration_seconds_count") or \
                agent.metrics().get("pleg_pod_relist_duration_seconds_count") == 0, "the pod relist has not ended"
        else:
            assert "on-demand relist" not in cause["summary"], cause["summary"]
            assert "pod_relist_in_progress_seconds" not in signals, signals
        assert cause["advice"] == "restart-runtime", cause
        print("  %s: %s" % (version, cause["summary"]))

        # Released: the call answers, the relists go on.
        kubelet.mode = "healthy"
        fake.phase("healthy", hold=True)
        wait_until(lambda: agent.metrics().get("pleg_last_seen_age_seconds", 99) < HANG, 30, "relists again")
        if release == "1.37":
            wait_until(lambda: agent.metrics().get("pleg_pod_relist_duration_seconds_count", 0) >= 1, 20,
                       "the pod relist ended")


def test_kubelet_1_37_pod_relist_hung_holds_the_global_relist():
    run_release("v1.37.2")


def test_kubelet_1_35_the_same_hang_is_no_pod_relist():
    run_release("v1.35.4")


if __name__ == "__main__":
    harness.main(globals())
