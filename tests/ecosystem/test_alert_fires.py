"""A real alert: Prometheus scrapes plegscope while fakecri hangs
ListContainers (tests/scenarios/hang.json), with the mixin's rules rendered
for the agent's short thresholds (--relist-threshold 20s --hang-threshold
3s: the same numbers as _config overrides, `for:` shortened too). PLEGAtRisk
must become firing through /api/v1/alerts, then PLEGNotHealthy, in that
order. Both alerts' top_cause annotation must name runtime_hung: the agent
reads node pressure from a calm fixture (tests/fixtures/proc/healthy) so a
busy test host cannot make node_pressure outrank the hang."""
import os
import shutil
import tempfile
import time

import ecolib
import harness

NODE = "eco-hang"
RELIST_THRESHOLD = 20  # agent --relist-threshold, in place of the kubelet's 180 s
HANG_THRESHOLD = 3     # agent --hang-threshold, in place of 10 s
CALM_PROC = ecolib.path("tests/fixtures/proc/healthy")
CONFIG = {
    # the recording group at the tests' pace (every minute as shipped)
    "recordingIntervalSeconds": 1,
    "relistThresholdSeconds": RELIST_THRESHOLD,
    "hangThresholdSeconds": HANG_THRESHOLD,
    "atRiskForSeconds": 2,
    "relistDurationHighForSeconds": 5,
    "criErrorsForSeconds": 5,
    "runtimeUnavailableForSeconds": 2,
    "listNearLimitForSeconds": 5,
    "plegscopeDownForSeconds": 5,
}


class ShortRules:
    """The mixin rendered with CONFIG into a temp dir; .rules is the rule file."""

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="plegscope-mixin-")
        ecolib.render_mixin(self.dir, CONFIG)
        self.rules = os.path.join(self.dir, "alerts", "plegscope.rules.yml")
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)
        return False


def test_short_rules_are_valid_and_their_unit_tests_pass():
    promtool = harness.require_tool("promtool")
    with ShortRules() as short:
        r = ecolib.run([promtool, "check", "rules", short.rules])
        assert r.returncode == 0, r.stdout
        r = ecolib.run([promtool, "test", "rules", "alerts/tests/plegscope_test.yml"], cwd=short.dir)
        assert r.returncode == 0, r.stdout


def test_at_risk_then_not_healthy():
    flags = ["--node-name", NODE, "--relist-threshold", "%ds" % RELIST_THRESHOLD,
             "--hang-threshold", "%ds" % HANG_THRESHOLD]
    # Rendering the mixin takes seconds to tens of seconds on a loaded machine:
    # done before the runtime exists, so it cannot eat into the hang's timeline.
    with ShortRules() as short, harness.FakeCri("hang") as fake, \
            harness.Agent(fake.endpoint, flags, proc_path=CALM_PROC) as agent:
        # Hold the healthy phase (ending any hang that started while the agent
        # came up) until Prometheus scrapes the agent, then start the hang: the
        # order of the two alerts is then measured from the hang, whatever the
        # start-up took.
        fake.phase("healthy", hold=True)
        fake.release()
        with ecolib.Prometheus(
                ["127.0.0.1:%d" % agent.port], scrape_interval="1s", evaluation_interval="1s",
                rule_files=[short.rules], static_labels={"node": NODE}) as prom:
            harness.wait_until(
                lambda: prom.query('pleg_last_seen_seconds{node="%s"}' % NODE)["data"]["result"],
                60, "Prometheus scraping the agent", interval=0.25)
            fake.phase("hang", hold=True)
            t0 = time.monotonic()
            first = {}     # (alertname, state) -> seconds since the hang started
            info = {}
            hang_seen = None

            def poll():
                nonlocal hang_seen
                if not agent.proc.alive():  # not an AssertionError: wait_until would keep polling
                    raise RuntimeError("plegscope exited with %s" % agent.proc.returncode)
                now = time.monotonic() - t0
                if hang_seen is None:
                    r = prom.query('max(pleg_runtime_operation_oldest_in_flight_seconds{operation_type="list_containers"}) > 0')
                    if r["status"] == "success" and r["data"]["result"]:
                        hang_seen = now
                for a in prom.alerts():
                    if a["labels"].get("node") != NODE:
                        continue
                    key = (a["labels"]["alertname"], a["state"])
                    if key not in first:
                        first[key] = now
                        info[key] = a
                        print("t=%5.1fs  %-16s %-8s %s" % (now, key[0], key[1],
                              {k: v for k, v in a["labels"].items() if k not in ("alertname", "node")}),
                              flush=True)
                return ("PLEGNotHealthy", "firing") in first

            harness.wait_until(poll, 90, "PLEGNotHealthy firing", interval=0.25)

            at_risk = first.get(("PLEGAtRisk", "firing"))
            not_healthy = first[("PLEGNotHealthy", "firing")]
            print("hang phase starts at t=0; agent saw ListContainers in flight at t=%s" % (
                "%.1fs" % hang_seen if hang_seen is not None else "?"))
            print("alert sequence (seconds since the hang started): PLEGAtRisk pending %.1f, firing %s; "
                  "PLEGNotHealthy firing %.1f" % (
                      first.get(("PLEGAtRisk", "pending"), float("nan")),
                      "%.1f" % at_risk if at_risk is not None else "never", not_healthy))
            assert at_risk is not None, "PLEGAtRisk never fired"
            assert at_risk < not_healthy, "PLEGAtRisk (%.1f) did not fire before PLEGNotHealthy (%.1f)" % (
                at_risk, not_healthy)
            ar = info[("PLEGAtRisk", "firing")]
            assert ar["labels"]["reason"] == "cri_call_hung", ar["labels"]
            assert ar["labels"]["severity"] == "warning"
            nh = info[("PLEGNotHealthy", "firing")]
            assert nh["labels"]["severity"] == "critical"
            assert "was last seen active" in nh["annotations"]["description"], nh["annotations"]
            print("PLEGAtRisk: %s | top_cause=%s" % (ar["annotations"]["description"], ar["annotations"]["top_cause"]))
            print("PLEGNotHealthy: %s | top_cause=%s" % (nh["annotations"]["description"],
                                                         nh["annotations"]["top_cause"]))
            print("lead time: PLEGAtRisk fired %.1fs before PLEGNotHealthy" % (not_healthy - at_risk))
            # the diagnoser's verdict reaches the page through node_cause:pleg_diagnosis_cause:max.
            for a in (ar, nh):
                assert a["annotations"]["top_cause"] == "runtime_hung", (a["labels"]["alertname"], a["annotations"])
                assert "Top diagnosed cause: runtime_hung (confidence " in a["annotations"]["description"], \
                    a["annotations"]["description"]


if __name__ == "__main__":
    harness.main(globals())
