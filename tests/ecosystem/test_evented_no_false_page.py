"""No false page on an evented node: with --evented-pleg
true beside a runtime that serves GetContainerEvents (tests/scenarios/
evented.json) and a kubelet before 1.37 (--kubelet-version v1.36.0: from
1.37 evented PLEG is only a hint and the relist keeps 1 s), the agent
relists every 300 s against the kubelet's evented
threshold of 600 s, so pleg_last_seen_seconds ages far past the generic
180 s while PLEG is healthy. The shipped rules compare the age against the
threshold the agent exports (pleg_relist_threshold_seconds), so a real
Prometheus evaluating them must keep PLEGNotHealthy and PLEGAtRisk silent.

To make the check meaningful in well under a minute, the rules are rendered
with a _config threshold of 20 s: a rule that still compared against
_config (as before this fix) fires as soon as the age passes 20 s, and the
test proves that age was reached before it looks at the alerts."""
import contextlib
import os
import shutil
import tempfile

import ecolib
import harness

NODE = "eco-evented"
CONFIG_THRESHOLD = 20
CALM_PROC = ecolib.path("tests/fixtures/proc/healthy")


@contextlib.contextmanager
def short_rules():
    """The shipped rules with _config's threshold at 20 s and no `for:` on PLEGAtRisk."""
    out = tempfile.mkdtemp(prefix="plegscope-mixin-")
    try:
        ecolib.render_mixin(out, {"relistThresholdSeconds": CONFIG_THRESHOLD, "atRiskForSeconds": 0})
        yield os.path.join(out, "alerts", "plegscope.rules.yml")
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_evented_node_does_not_page_while_healthy():
    flags = ["--node-name", NODE, "--evented-pleg", "true", "--kubelet-version", "v1.36.0"]
    with harness.FakeCri("evented") as fake, \
            harness.Agent(fake.endpoint, flags, proc_path=CALM_PROC) as agent, \
            short_rules() as rules, \
            ecolib.Prometheus(["127.0.0.1:%d" % agent.port], scrape_interval="1s", evaluation_interval="1s",
                              rule_files=[rules], static_labels={"node": NODE}) as prom:

        def scalar(expr):
            r = prom.query(expr)
            assert r["status"] == "success", r
            return float(r["data"]["result"][0]["value"][1]) if r["data"]["result"] else None

        harness.wait_until(lambda: scalar("max(pleg_evented_mode)") == 1, 30, "evented mode on")
        # The age an older rule would have paged on, seen by Prometheus itself.
        harness.wait_until(
            lambda: (scalar("max(time() - pleg_last_seen_seconds > 0)") or 0) > 2 * CONFIG_THRESHOLD,
            120, "last seen older than twice the _config threshold")
        age = scalar("max(time() - pleg_last_seen_seconds)")
        assert scalar("min(pleg_healthy)") == 1, "PLEG must be healthy in this scenario"
        assert scalar("max(pleg_relist_threshold_seconds)") == 600, "the evented threshold is exported"
        assert scalar("max(pleg_relist_period_seconds)") == 300, "the evented relist period is exported"
        # Prometheus evaluated the rules at least a few times past that age.
        harness.wait_until(lambda: scalar("max(time() - pleg_last_seen_seconds)") > age + 3, 30,
                           "three more rule evaluations")
        active = [a for a in prom.alerts() if a["labels"].get("node") == NODE
                  and a["labels"]["alertname"] in ("PLEGNotHealthy", "PLEGAtRisk")]
        print("last seen %.0fs ago, healthy, threshold 600s: alerts %s" % (age, active))
        assert not active, "a healthy evented node paged: %s" % active


if __name__ == "__main__":
    harness.main(globals())
