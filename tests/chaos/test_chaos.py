#!/usr/bin/env python3
"""The short chaos campaign on the real one-node cluster (tests/chaos/
campaign.py, seed SEED: every supported fault class once, one overlap held
past the kubelet's NotReady), scored (tests/chaos/score.py) against its
truth and the kubelet's verdict, with floors. The recording and the table
(chaos-<seed>.md) go to PLEGSCOPE_CLUSTER_OUT or the test's log directory.

test_recorded (label unit, seconds): every saved campaign under
tests/chaos/recorded/ re-scored, at the floors the issue's goals allow for
what it was (its expected.json: the score it had when saved)."""

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

import harness  # noqa: E402
import score  # noqa: E402

SEED = 1
# The floors the short campaign must keep (measured: bench/results/chaos-1.md:
# precision 0.951 on containerd 2.3.7 + kubelet 1.37.2 on this 2-core machine
# beside a long campaign). The goal is 0.95; the floor keeps a margin for a
# loaded node, where real pressure may rank first for a few samples. Recall
# and zero false alarms are the goals themselves.
FLOORS = {"precision": 0.8, "recall_notready": 1.0, "recall_sub": 1.0}
RECORDED = os.path.join(HERE, "recorded")


def check_floors(m):
    bad = []
    for k, floor in FLOORS.items():
        if m[k] is None or m[k] < floor:
            bad.append("%s %s < %s" % (k, m[k], floor))
    if m["false_alarms"]:
        bad.append("%d false alarms (%s; critical alerts %s)" % (m["false_alarms"], m["false"],
                                                                  m["critical_alert_names"]))
    return bad


def test_short_campaign():
    import campaign  # the cluster parts; a missing part skips (fails under CI) there
    out = os.path.join(os.environ.get("PLEGSCOPE_CLUSTER_OUT") or harness._log_directory(), "chaos-%d" % SEED)
    t0 = time.monotonic()
    campaign.campaign(SEED, "short", out)
    wall = time.monotonic() - t0
    scores, m = score.score_dirs([out])
    text = score.table(m, "Chaos campaign, short (seed %d, the default test run)" % SEED)
    print(text, flush=True)
    with open(os.path.join(out, "..", "chaos-%d.md" % SEED), "w") as f:
        f.write(text)
    print("short campaign wall time: %.0f s" % wall, flush=True)
    bad = check_floors(m)
    assert not bad, "below the floors: %s" % "; ".join(bad)


def test_recorded():
    if not os.path.isdir(RECORDED):
        raise harness.Skip("no recorded campaigns")
    dirs = sorted(os.path.join(RECORDED, d) for d in os.listdir(RECORDED)
                  if os.path.exists(os.path.join(RECORDED, d, "truth.json")))
    assert dirs, "no recorded campaigns under %s" % RECORDED
    for d in dirs:
        _, m = score.score_dirs([d])
        with open(os.path.join(d, "expected.json")) as f:
            exp = json.load(f)
        got = {k: m[k] for k in exp}
        print("%s: %s" % (os.path.basename(d), got), flush=True)
        assert got == exp, "%s re-scored differently: %s, saved %s" % (d, got, exp)


if __name__ == "__main__":
    only = os.environ.get("PLEGSCOPE_CHAOS_TESTS")
    harness.main(globals(), ["test_" + only] if only else None)
