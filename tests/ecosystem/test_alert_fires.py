"""A real alert: Prometheus scrapes plegscope while fakecri hangs
ListContainers (tests/scenarios/hang.json), with alerts/plegscope.rules.yml
loaded. The agent runs with short thresholds (--relist-threshold 20s
--hang-threshold 3s) and the rules are loaded with the same thresholds
scaled to match (shorten_rules below: each substitution is asserted to hit,
so the test copy cannot silently diverge from the real file). PLEGAtRisk
must become firing through /api/v1/alerts, then PLEGNotHealthy, in that
order."""
import copy
import time

import ecolib

NODE = "eco-hang"
RELIST_THRESHOLD = 20  # agent --relist-threshold, in place of the kubelet's 180 s
HANG_THRESHOLD = 3     # agent --hang-threshold, in place of 10 s

# alert -> [(text in expr, replacement, times it must occur)]
EXPR_SUBST = {
    "PLEGNotHealthy": [(") > 180", ") > %d" % RELIST_THRESHOLD, 1),
                       ("[3m]", "[%ds]" % RELIST_THRESHOLD, 2),
                       ("offset 3m", "offset %ds" % RELIST_THRESHOLD, 2)],
    # in-flight past the hang threshold; last-seen stale past a third of the
    # relist threshold (60 of 180 -> 8 of 20).
    "PLEGAtRisk": [(") > 10,", ") > %d," % HANG_THRESHOLD, 1),
                   ('\n  ) > 60,\n  "reason", "last_seen_stale"',
                    '\n  ) > 8,\n  "reason", "last_seen_stale"', 1)],
}
FOR_SUBST = {"1m": "2s", "5m": "5s"}


def shorten_rules():
    rules = copy.deepcopy(ecolib.load_yaml("alerts/plegscope.rules.yml"))
    seen = set()
    for g in rules["groups"]:
        for r in g["rules"]:
            name = r.get("alert")
            for old, new, count in EXPR_SUBST.get(name, []):
                got = r["expr"].count(old)
                assert got == count, "%s: %r occurs %d times, expected %d: the rule changed, update " \
                    "EXPR_SUBST" % (name, old, got, count)
                r["expr"] = r["expr"].replace(old, new)
            if name in EXPR_SUBST:
                seen.add(name)
            if "for" in r:
                r["for"] = FOR_SUBST[r["for"]]
    assert seen == set(EXPR_SUBST), seen
    return rules


def test_shortened_rules_are_valid():
    import os
    import subprocess
    import tempfile
    import yaml
    promtool = ecolib.need_tool("promtool")
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        yaml.safe_dump(shorten_rules(), f, sort_keys=False)
    try:
        r = subprocess.run([promtool, "check", "rules", f.name], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        assert r.returncode == 0, r.stdout
    finally:
        os.unlink(f.name)


def test_at_risk_then_not_healthy():
    flags = ["--relist-threshold", "%ds" % RELIST_THRESHOLD, "--hang-threshold", "%ds" % HANG_THRESHOLD]
    with ecolib.Node("hang", agent_flags=flags, node_name=NODE) as node:
        with ecolib.Prometheus([node.address], scrape_interval="1s", evaluation_interval="1s",
                               rule_files=[shorten_rules()], static_labels={"node": NODE}) as prom:
            t0 = node.fakecri_started
            first = {}     # (alertname, state) -> seconds since fakecri start
            info = {}
            hang_seen = None

            def poll():
                nonlocal hang_seen
                node.agent.check_alive()
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

            ecolib.wait_until(poll, 90, "PLEGNotHealthy firing", interval=0.25)

            at_risk = first.get(("PLEGAtRisk", "firing"))
            not_healthy = first[("PLEGNotHealthy", "firing")]
            print("hang phase starts at t=5s (scenario); agent saw ListContainers in flight at t=%s" % (
                "%.1fs" % hang_seen if hang_seen is not None else "?"))
            print("alert sequence (seconds since fakecri start): PLEGAtRisk pending %.1f, firing %s; "
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
            print("PLEGNotHealthy: %s" % nh["annotations"]["description"])
            print("lead time: PLEGAtRisk fired %.1fs before PLEGNotHealthy" % (not_healthy - at_risk))


if __name__ == "__main__":
    ecolib.main(globals())
