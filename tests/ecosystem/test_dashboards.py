"""Dashboard JSON lint: current schemaVersion, datasource and node template
variables, no hard-coded datasource uid, every panel has a query, every
variable used is defined, unique ids (drift from mixin/: test_mixin.py).
Also: docs/runbook.md has a section per cause id."""
import json
import re

import ecolib
import harness

MIN_SCHEMA = 36


def dashboards():
    for f in ecolib.dashboard_files():
        with open(f) as fh:
            yield f, json.load(fh)


def test_two_dashboards():
    names = {d["title"] for _, d in dashboards()}
    assert {"PLEG fleet", "PLEG node"} <= names, names


def test_schema_and_variables():
    for f, d in dashboards():
        assert d["schemaVersion"] >= MIN_SCHEMA, f
        tmpl = {v["name"]: v for v in d["templating"]["list"]}
        assert tmpl["datasource"]["type"] == "datasource" and tmpl["datasource"]["query"] == "prometheus", f
        assert tmpl["node"]["type"] == "query", f
        assert d.get("uid") and d.get("id") is None, f


def walk(obj):
    if isinstance(obj, dict):
        yield obj
        for v in obj.values():
            yield from walk(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from walk(v)


def test_no_hard_coded_datasource_uid():
    for f, d in dashboards():
        for o in walk(d):
            ds = o.get("datasource")
            if isinstance(ds, dict):
                assert ds.get("uid") in ("${datasource}", "-- Grafana --"), (f, ds)
            elif ds is not None:
                assert ds in ("${datasource}", "$datasource"), (f, ds)


def test_every_panel_has_a_query():
    total = 0
    for f, d in dashboards():
        ids = set()
        for p in ecolib.iter_panels(d["panels"]):
            assert p["id"] not in ids, (f, p["id"])
            ids.add(p["id"])
            g = p["gridPos"]
            assert g["x"] + g["w"] <= 24, (f, p["title"])
            if p["type"] in ("row", "text"):
                continue
            assert p.get("targets"), (f, p["title"])
            for t in p["targets"]:
                assert t.get("expr", "").strip(), (f, p["title"], t.get("refId"))
                assert t["datasource"]["uid"] == "${datasource}", (f, p["title"])
                total += 1
        print("%s: %d panels" % (f, len(ids)))
    print("%d queries" % total)


def test_variables_defined():
    for f, d in dashboards():
        defined = {v["name"] for v in d["templating"]["list"]} | ecolib.GRAFANA_BUILTINS
        text = json.dumps(d)
        used = ecolib.variables_used(text)
        assert used <= defined, (f, used - defined)
        for p in ecolib.iter_panels(d["panels"]):
            for t in p.get("targets", []):
                # every query is pinned to the chosen node(s).
                assert "$node" in t["expr"], (f, p["title"], t["expr"])


def test_queries_use_only_known_metrics():
    for f, d in dashboards():
        for title, ref, expr in ecolib.dashboard_queries(d):
            for m in re.findall(r"\b(pleg(?:scope)?_[a-z_]+)\b", expr):
                base = re.sub(r"_(bucket|count|sum)$", "", m)
                assert base in ecolib.AGENT_METRICS, (f, title, m)


def test_runbook_has_every_cause_and_alert():
    anchors = ecolib.runbook_anchors()
    for cause in ecolib.CAUSE_IDS:
        assert cause in anchors, "docs/runbook.md: no section for cause " + cause
    for rf in ecolib.rule_files():
        for a in ecolib.alerts_in(rf):
            assert ecolib.github_slug(a["alert"]) in anchors, a["alert"]
    text = open(ecolib.path("docs/runbook.md")).read()
    # each cause section says how to confirm, how to fix and what not to do.
    for cause in ecolib.CAUSE_IDS:
        sec = text.split("## " + cause, 1)[1].split("\n## ", 1)[0]
        for word in ("**Meaning.**", "**Confirm.**", "**Fix.**", "**Do not.**"):
            assert word in sec, (cause, word)


if __name__ == "__main__":
    harness.main(globals())
