"""The install and the remediation recipes on a real API server (etcd and
the bed row's kube-apiserver, 1.37 by default, alone, from
tests/cluster/cluster.py's pieces: no kubelet, no runtime):

- the upstream CRDs (../shared/crds beside the repository) install, and every recipe in
  deploy/remediation passes the API server's own validation of them
  (server-side dry run, strict fields, the CRDs' CEL rules);
- the mixed-runtime overlay with the node-condition component, rendered with
  `namespace: obs` and `nameSuffix: -x` by kubectl 1.34's kustomize, applies;
- the admission policy then holds the renamed ServiceAccount
  (system:serviceaccount:obs:plegscope-x) with a token bound to a pod on
  node-a: its own Node's plegscope conditions are admitted, another Node's
  status and another condition type are refused. A policy that kept the
  shipped name would match nobody here and admit all three.
"""
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ecosystem"))

import harness  # noqa: E402  tests/lib
import kustomize_render  # noqa: E402  tests/ecosystem
import parts  # noqa: E402
from cluster import Cluster, log  # noqa: E402
from harness import wait_until  # noqa: E402
from pki import Pki  # noqa: E402

SOURCE = harness.source_dir()
NAMESPACE, SUFFIX = "obs", "-x"
AGENT = "plegscope" + SUFFIX
OWN, OTHER = "node-a", "node-b"
CONDITIONS = ("plegscope.io/PLEGUnhealthy", "plegscope.io/NodeRepairAdvised")


class ControlPlane(Cluster):
    """etcd and kube-apiserver alone, started as Cluster starts them."""

    def __init__(self):  # noqa: super().__init__ wants the kubelet and containerd
        self.bins = parts.binaries(("etcd", "kube-apiserver", "kubectl"))
        self.ctd, self.procs, self.tunables, self.node_ip_added = None, {}, {}, False
        self.tmp = None

    def _start(self):
        self.tmp = tempfile.mkdtemp(prefix="plegscope-recipes-")
        self.dir = self.tmp
        self.pki = Pki(os.path.join(self.dir, "pki"))
        self._node_link()  # the API server listens on the node's address
        self._start_etcd()
        self._start_apiserver()

    def cleanup(self):
        super().cleanup()
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)


def crd_files():
    out = []
    for top, _, files in os.walk(harness.upstream_crds_dir()):
        out += [os.path.join(top, f) for f in sorted(files) if f.endswith(".yaml")]
    return sorted(out)


def install_crds(c):
    for f in crd_files():
        c.kubectl("apply", "--server-side", "-f", f)
    c.kubectl("wait", "--for", "condition=Established", "--timeout", "60s", "crd", "--all")
    names = c.kubectl("get", "crd", "-o", "name").stdout.split()
    log("CRDs established: %s" % ", ".join(n.split("/", 1)[1] for n in names))
    return names


def check_recipes(c):
    """Each recipe as the API server validates it. A broken one must fail
    the same way, so the dry run is not passing everything."""
    here = os.path.join(SOURCE, "deploy", "remediation")
    # The objects; the MachineDeployment merge patches and draino's args are not.
    recipes = sorted(f for f in os.listdir(here) if f.endswith(".yaml")
                     and "kind" in kustomize_render.yaml.safe_load(open(os.path.join(here, f))))
    assert len(recipes) >= 4, recipes
    for f in recipes:
        r = c.kubectl("apply", "--dry-run=server", "--validate=strict", "-f",
                      os.path.join(SOURCE, "deploy", "remediation", f), check=False)
        assert r.returncode == 0, "%s: %s" % (f, r.stderr.strip())
        log("recipe %s: %s" % (f, r.stdout.strip()))
    broken = kustomize_render.yaml.safe_load(open(os.path.join(SOURCE, "deploy", "remediation",
                                                               "nodereadinessrule.yaml")))
    broken["spec"]["taint"]["key"] = "plegscope/pleg-unhealthy"  # the CRD's CEL rule wants readiness.k8s.io/
    r = c.kubectl("apply", "--dry-run=server", "-f", "-", input=json.dumps(broken), check=False)
    assert r.returncode != 0, "a NodeReadinessRule with a foreign taint key passed: %s" % r.stdout
    return recipes


def apply_install(c):
    objects = kustomize_render.render(resources=["overlays/mixed-runtime"],
                                      components=["deploy/components/node-condition"],
                                      extra={"namespace": NAMESPACE, "nameSuffix": SUFFIX})
    docs = "\n---\n".join(json.dumps(o) for o in objects.values())
    r = c.kubectl("apply", "--server-side", "-f", "-", input=docs)
    log("install applied: %d objects" % len(objects))
    return r


def agent_token(c):
    for name in (OWN, OTHER):
        c.apply({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
    c.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "identity", "namespace": NAMESPACE},
             "spec": {"serviceAccountName": AGENT, "nodeName": OWN, "automountServiceAccountToken": False,
                      "containers": [{"name": "w", "image": "plegscope.invalid/none"}]}})
    return c.kubectl("create", "token", AGENT, "-n", NAMESPACE, "--duration", "1h",
                     "--bound-object-kind", "Pod", "--bound-object-name", "identity").stdout.strip()


def patch_status(c, token, node, ctype, dry_run=False):
    """(HTTP code, body) of the agent's own request: a strategic-merge PATCH
    of nodes/NODE/status (no GET first: the agent's role has none). A dry
    run passes admission as the write would, and writes nothing."""
    cond = {"type": ctype, "status": "False", "reason": "PLEGHealthy", "message": "admission check"}
    path = "/api/v1/nodes/%s/status" % node + ("?dryRun=All" if dry_run else "")
    return c.api(token, "PATCH", path, {"status": {"conditions": [cond]}}, "application/strategic-merge-patch+json")


def check_policy(c, token):
    # The policy reaches admission a moment after it is created: wait for
    # its first refusal of a dry run (which writes nothing if let through)
    # rather than for a fixed time, then the write itself.
    last = []

    def refused(dry_run):
        last[:] = patch_status(c, token, OTHER, CONDITIONS[0], dry_run)
        return last[0] == 422 and "only its own Node" in last[1]  # a policy denial is 422 Invalid
    try:
        wait_until(lambda: refused(True), 30, "the admission policy refusing %s on %s" % (AGENT, OTHER), interval=0.5)
    except AssertionError:
        raise AssertionError("%s writing %s's status (dry run): %s" % (AGENT, OTHER, last))
    assert refused(False), "%s writing %s's status: %s" % (AGENT, OTHER, last)
    code, body = patch_status(c, token, OWN, "Ready")
    assert code == 422 and "only its own conditions" in body, (code, body)
    for ctype in CONDITIONS:
        code, body = patch_status(c, token, OWN, ctype)
        assert code == 200, (ctype, code, body)
    got = {x["type"] for x in c.get_json("node", OWN)["status"]["conditions"]}
    assert set(CONDITIONS) <= got, got
    assert not c.get_json("node", OTHER).get("status", {}).get("conditions"), "node-b was written"
    log("policy for system:serviceaccount:%s:%s: %s refused, Ready on %s refused, %s admitted on %s"
        % (NAMESPACE, AGENT, OTHER, OWN, " and ".join(CONDITIONS), OWN))


def test_recipes_and_install_on_a_real_api_server():
    with ControlPlane() as c:
        install_crds(c)
        check_recipes(c)
        apply_install(c)
        check_policy(c, agent_token(c))


if __name__ == "__main__":
    harness.main(globals())
