"""deploy/remediation/: each recipe validates against its remediator's
upstream CRD (../shared/crds beside the repository, unchanged; the served version's openAPIV3Schema) with
tests/lib/schema_check.py, strictly (an unknown field is an error: the API
server would prune it silently); each matches plegscope's condition in its
polarity (True is a problem); each keeps its remediator's guard against
mass remediation at the fleet-veto share (more than 20 % of nodes); and the
docs/operate.md's Remediation section names them all."""
import os
import re

import ecolib
import harness
import schema_check

CONDITION = "plegscope.io/PLEGUnhealthy"          # the broad one: the Node Readiness Controller's
REPAIR = "plegscope.io/NodeRepairAdvised"         # node-level causes held past a window: the repairers'
FLEET_PERCENT = 20  # PLEGFleetWideCause: the same cause on more than this share of nodes


def crd_schema(filename, version):
    crd = ecolib.load_yaml(os.path.join(harness.upstream_crds_dir(), filename))
    for v in crd["spec"]["versions"]:
        if v["name"] == version:
            assert v["served"], "%s %s is not served" % (filename, version)
            return crd["spec"]["group"], crd["spec"]["names"]["kind"], v["schema"]["openAPIV3Schema"]
    raise AssertionError("%s has no version %s" % (filename, version))


def recipe(name):
    return ecolib.load_yaml(os.path.join("deploy", "remediation", name))


def check_against_crd(name, crd_file):
    r = recipe(name)
    group, version = r["apiVersion"].split("/")
    crd_group, kind, schema = crd_schema(crd_file, version)
    assert (group, r["kind"]) == (crd_group, kind), (r["apiVersion"], r["kind"], crd_group, kind)
    errors = schema_check.validate(r, schema, strict=True)
    assert not errors, "%s against %s:\n  %s" % (name, crd_file, "\n  ".join(errors))
    print("  %s: valid %s/%s %s (not checked here: %s)" % (name, group, version, kind,
                                                         ", ".join(schema_check.ignored(schema))))
    return r


def test_the_validator_catches_what_it_should():
    """The same recipes, broken one way each, fail: a validator that passes
    everything would pass the recipes too."""
    _, _, schema = crd_schema("remediation.medik8s.io_nodehealthchecks.yaml", "v1alpha1")
    good = recipe("nodehealthcheck.yaml")
    assert schema_check.validate(good, schema, strict=True) == []
    bad = [("spec", "minHealthy", "eighty"), ("spec", "unhealthyConditions", [{"type": CONDITION, "status": "True"}]),
           ("spec", "minHelthy", "80%")]
    for path, field, value in bad:
        broken = dict(good, spec=dict(good["spec"], **{field: value}))
        assert schema_check.validate(broken, schema, strict=True), "%s=%r passed" % (field, value)
    _, _, mhc = crd_schema("cluster.x-k8s.io_machinehealthchecks.yaml", "v1beta2")
    broken = recipe("machinehealthcheck.yaml")
    broken["spec"]["remediation"]["triggerIf"]["unhealthyInRange"] = "1-3"
    assert any("unhealthyInRange" in e for e in schema_check.validate(broken, mhc, strict=True))


def test_node_health_check():
    r = check_against_crd("nodehealthcheck.yaml", "remediation.medik8s.io_nodehealthchecks.yaml")
    terms = {(c["type"], c["status"]) for c in r["spec"]["unhealthyConditions"]}
    assert (REPAIR, "True") in terms and CONDITION not in {t for t, _ in terms}, terms
    assert r["spec"]["minHealthy"] == "%d%%" % (100 - FLEET_PERCENT), r["spec"]


def test_machine_health_check():
    r = check_against_crd("machinehealthcheck.yaml", "cluster.x-k8s.io_machinehealthchecks.yaml")
    terms = {(c["type"], c["status"]) for c in r["spec"]["checks"]["unhealthyNodeConditions"]}
    assert (REPAIR, "True") in terms and CONDITION not in {t for t, _ in terms}, terms
    assert r["spec"]["remediation"]["triggerIf"]["unhealthyLessThanOrEqualTo"] == "%d%%" % FLEET_PERCENT
    old = check_against_crd("machinehealthcheck-v1beta1.yaml", "cluster.x-k8s.io_machinehealthchecks.yaml")
    assert old["apiVersion"] == "cluster.x-k8s.io/v1beta1"
    terms = {(c["type"], c["status"]) for c in old["spec"]["unhealthyConditions"]}
    assert (REPAIR, "True") in terms and CONDITION not in {t for t, _ in terms}, terms
    assert old["spec"]["maxUnhealthy"] == "%d%%" % FLEET_PERCENT
    assert old["spec"]["selector"] == r["spec"]["selector"] and old["spec"]["clusterName"] == r["spec"]["clusterName"]


def test_machine_drain_is_bounded():
    """Cluster API drains a Machine before replacing it, forever by default:
    the merge patches bound it for the MachineDeployments the checks select,
    in each API version's field."""
    v1beta2 = recipe("machinedeployment-drain.yaml")
    assert v1beta2 == {"spec": {"template": {"spec": {"deletion": {"nodeDrainTimeoutSeconds": 600}}}}}, v1beta2
    v1beta1 = recipe("machinedeployment-drain-v1beta1.yaml")
    assert v1beta1 == {"spec": {"template": {"spec": {"nodeDrainTimeout": "10m"}}}}, v1beta1
    for name in ("machinehealthcheck.yaml", "machinehealthcheck-v1beta1.yaml"):
        text = open(ecolib.path("deploy", "remediation", name)).read()
        assert "machinedeployment-drain" in text, name


def test_node_readiness_rule():
    r = check_against_crd("nodereadinessrule.yaml", "readiness.node.x-k8s.io_nodereadinessrules.yaml")
    # defaultStatus needs the controller's v0.4.0 or later, and the recipe says so.
    assert "v0.4.0 or later" in open(ecolib.path("deploy", "remediation", "nodereadinessrule.yaml")).read()
    (c,) = r["spec"]["conditions"]
    # Untainted only while the condition is False; a node without it counts as False.
    assert (c["type"], c["requiredStatus"], c["defaultStatus"]) == (CONDITION, "False", "False"), c
    taint = r["spec"]["taint"]
    # The CRD's CEL rules on the taint, which the validator does not run.
    prefix, name = taint["key"].split("/")
    assert prefix == "readiness.k8s.io" and re.match(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$", name), taint
    assert len(name) <= 63 and len(taint.get("value", "")) <= 63
    assert taint["effect"] == "NoSchedule" and r["spec"]["enforcementMode"] == "continuous"


def test_draino_flags():
    assert open(ecolib.path("deploy", "remediation", "draino.yaml")).read().startswith("# LEGACY: draino")
    args = recipe("draino.yaml")["container"]["args"]
    positional = [a for a in args if not a.startswith("-")]
    assert positional == [REPAIR], args
    assert any(a.startswith("--drain-buffer=") for a in args), args


def test_operate_remediation_section_names_every_recipe_and_privilege():
    readme = open(ecolib.path("docs", "operate.md")).read()
    section = readme.split("## Remediation", 1)[1].split("\n## ", 1)[0]
    recipes = sorted(f for f in os.listdir(ecolib.path("deploy", "remediation")) if f.endswith(".yaml"))
    assert len(recipes) >= 4, recipes
    own_readme = open(ecolib.path("deploy", "remediation", "README.md")).read()
    for f in recipes:
        assert f in section, "docs/operate.md's Remediation section does not name %s" % f
        assert f in own_readme, "deploy/remediation/README.md does not name %s" % f
    for words in ("PLEGFleetWideCause", "deploy/components/node-condition", "patch nodes/status",
                  "ValidatingAdmissionPolicy", "--node-condition", "advice", "%d%%" % FLEET_PERCENT):
        assert words in section, words


if __name__ == "__main__":
    harness.main(globals())
