"""plegscope installed on the one-node cluster as a user installs it.

- the image: scripts/assemble-image (the project's own assembler, what
  scripts/build-image runs last) from the build's binary and this host's
  Debian 12 root (--root /: its dpkg database names the package of every
  shared object, as in the build root), imported into the cluster's
  containerd under the name deploy/ references; nothing is pulled;
- prometheus-operator's CRDs (../shared/crds/prometheus-operator beside the
  source dir), then deploy/ with the node-condition and oncall-rbac
  components through `kubectl apply -k` (the kubectl built with the cluster,
  its kustomize v5), from an overlay in the test's temp dir;
- the DaemonSet's pod goes Ready on the real node with the shipped
  securityContext, RBAC and NetworkPolicy; its process runs as uid 65532
  with no capability;
- Debian's Prometheus scrapes the pod on its CNI address and loads the
  shipped PrometheusRule's groups as the API server stored them.

The overlay changes only what this cluster has elsewhere than a node does
(docs/development.md "real cluster"): the runtime socket's directory is the test
containerd's, the kubelet listens on a free port rather than 10250, and the
in-cluster API address is the API server's own (no kube-proxy here, so the
kubernetes Service's IP routes nowhere). The NetworkPolicy is applied but
inert: the bridge CNI enforces no policy.
"""

import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import harness
from cluster import NODE, NODE_IP, log  # first: puts tests/e2e on the path
from harness import wait_until

SOURCE = harness.source_dir()
sys.path.insert(0, os.path.join(SOURCE, "tests", "ecosystem"))
import ecolib  # noqa: E402  tests/ecosystem: the private Prometheus

NAMESPACE = "plegscope"
SELECTOR = "app.kubernetes.io/name=plegscope"
PORT = 9547


def image_ref():
    """The image deploy/ runs: the DaemonSet's name with kustomize's newTag."""
    text = open(os.path.join(SOURCE, "deploy", "kustomization.yaml")).read()
    name = re.search(r"- name: (\S+)\n\s+newTag: (\S+)", text)
    return "%s:%s" % (name.group(1), name.group(2)), name.group(2)


def assemble_image(out_dir):
    """The image archive from build/plegscope and this host's root, in OUT_DIR."""
    build = harness.build_dir()
    ref, version = image_ref()
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    out = os.path.join(out_dir, "plegscope.tar")
    # Stripped first, as scripts/build-image strips what it ships.
    binary = os.path.join(out_dir, "plegscope")
    subprocess.run(["strip", "-o", binary, os.path.join(build, "plegscope")], check=True)
    cmd = [os.path.join(SOURCE, "scripts", "assemble-image"), "--root", "/", "--arch", arch,
           "--binary", binary, "--compat", os.path.join(build, "openssl-compat"),
           "--license", os.path.join(SOURCE, "LICENSE"), "--version", version, "--tag", ref, "--out", out]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, "assemble-image: exit %d: %s" % (r.returncode, r.stderr.strip())
    return out


@contextlib.contextmanager
def image_meanwhile():
    """The image assembled while the cluster boots (it needs no cluster):
    a future of the archive's path, its dir removed after."""
    d = tempfile.mkdtemp(prefix="pscl-image-")
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        yield pool.submit(assemble_image, d)
    finally:
        pool.shutdown(wait=True)
        shutil.rmtree(d, ignore_errors=True)


def import_image(c, image):
    """The assembled image in the cluster's containerd; its reference."""
    ref, archive = image_ref()[0], image.result()
    c.ctd.import_image(archive)
    assert ref in c.ctd.ctr("images", "ls", "-q").split(), "image %s not in containerd" % ref
    log("image %s assembled from / (%.1f MiB) and imported" % (ref, os.path.getsize(archive) / 2**20))
    return ref


def cluster_patch(c):
    """The DaemonSet patch for where this cluster differs from a node: the
    runtime socket's dir is the test containerd's, the kubelet serves on a
    free port, and no kube-proxy routes the `kubernetes` Service's IP."""
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "plegscope", "namespace": NAMESPACE},
            "spec": {"template": {"spec": {
                "containers": [{"name": "plegscope", "env": [
                    {"name": "PLEGSCOPE_KUBELET_ENDPOINT", "value": "https://%s:%d" % (NODE_IP, c.kubelet_port)},
                    {"name": "KUBERNETES_SERVICE_HOST", "value": NODE_IP},
                    {"name": "KUBERNETES_SERVICE_PORT", "value": str(c.api_port)}]}],
                "volumes": [{"name": "cri-socket-dir", "hostPath": {"path": c.ctd.tmp, "type": "Directory"}}]}}}}


def overlay(c, components, patch=None, images=None):
    """The kustomization a user writes: deploy/ and COMPONENTS (kustomize
    takes bases and components by relative path only), with PATCH and
    IMAGES (kustomize `images:` entries, e.g. a registry's name and a
    digest) if any."""
    d = os.path.join(c.dir, "overlay-" + "-".join(components))
    os.makedirs(d)
    kust = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
            "resources": [os.path.relpath(os.path.join(SOURCE, "deploy"), d)],
            "components": [os.path.relpath(os.path.join(SOURCE, "deploy", "components", n), d)
                           for n in components]}
    if patch:
        kust["patches"] = [{"patch": json.dumps(patch)}]
    if images:
        kust["images"] = images
    with open(os.path.join(d, "kustomization.yaml"), "w") as f:
        json.dump(kust, f, indent=1)
    return d


def apply_monitoring_crds(c):
    """prometheus-operator's CRDs, kept unchanged beside the checkout, so
    that the PodMonitor and PrometheusRule of deploy/ are accepted."""
    c.kubectl("apply", "--server-side", "-f", os.path.join(harness.upstream_crds_dir(), "prometheus-operator"))
    for crd in ("podmonitors", "prometheusrules"):
        c.kubectl("wait", "--for=condition=Established", "crd/%s.monitoring.coreos.com" % crd, "--timeout=60s")


def agent_pod(c):
    pods = c.get_json("pods", "-n", NAMESPACE, "-l", SELECTOR)["items"]
    return pods[0] if len(pods) == 1 else None


def pod_ready(pod):
    return pod is not None and any(x["type"] == "Ready" and x["status"] == "True"
                                   for x in pod["status"].get("conditions", []))


def check_identity(c, pod):
    """The container's process as the kernel sees it: uid 65532, no capability."""
    cid = pod["status"]["containerStatuses"][0]["containerID"].split("://", 1)[1]
    tasks = c.ctd.ctr("tasks", "ls").splitlines()
    pid = next(int(t.split()[1]) for t in tasks if t.startswith(cid))
    status = dict(line.split(":", 1) for line in open("/proc/%d/status" % pid) if ":" in line)
    uids, cap_eff = status["Uid"].split(), int(status["CapEff"].strip(), 16)
    assert uids[0] == "65532" and cap_eff == 0, (uids, hex(cap_eff))
    assert pod["spec"]["nodeName"] == NODE, pod["spec"]
    sc = pod["spec"]["containers"][0]["securityContext"]
    assert sc["readOnlyRootFilesystem"] and sc["capabilities"]["drop"] == ["ALL"], sc


def install(c, image):
    """deploy/ applied through kubectl apply -k; the agent's pod, Ready.
    IMAGE: image_meanwhile()'s future."""
    ref = import_image(c, image)
    apply_monitoring_crds(c)
    c.kubectl("apply", "-k", overlay(c, ("node-condition", "oncall-rbac"), cluster_patch(c)), timeout=120)
    pod = wait_until(lambda: (lambda p: p if pod_ready(p) else None)(agent_pod(c)), 180,
                     "the DaemonSet's pod Ready on %s" % NODE, interval=1.0)
    assert pod["spec"]["containers"][0]["image"] == ref, pod["spec"]["containers"][0]["image"]
    check_identity(c, pod)
    kinds = c.kubectl("get", "networkpolicy,service,podmonitor,prometheusrule", "-n", NAMESPACE, "-o", "name").stdout
    log("installed: pod %s Ready at %s; %s" % (pod["metadata"]["name"], pod["status"]["podIP"], kinds.split()))
    return pod


def agent_url(pod, path):
    return "http://%s:%d%s" % (pod["status"]["podIP"], PORT, path)


def agent_report(pod):
    code, body = harness.http(agent_url(pod, "/diagnose"), timeout=10)
    assert code == 200, (code, body[:300])
    return json.loads(body)


def shipped_rules(c):
    """The PrometheusRule objects' groups as the API server stored them."""
    items = c.get_json("prometheusrules", "-n", NAMESPACE)["items"]
    assert items, "no PrometheusRule in namespace %s" % NAMESPACE
    return [{"groups": i["spec"]["groups"]} for i in items]


def scrape_and_rules(c, pod):
    """Debian's Prometheus scrapes the pod on its CNI address; every shipped
    rule loads and evaluates without error; `kubectl plegscope nodes
    --prometheus` reads the node's row from it."""
    docs = shipped_rules(c)
    want = {(g["name"], r.get("alert") or r.get("record")) for d in docs for g in d["groups"] for r in g["rules"]}
    target = "%s:%d" % (pod["status"]["podIP"], PORT)
    # every group at 1 s (the recording group runs every minute as shipped): what is checked is that
    # each rule evaluates, not when; the node label as the PodMonitor's relabelling sets it
    with ecolib.Prometheus([target], rule_files=docs, rule_interval="1s", static_labels={"node": NODE}) as prom:
        wait_until(lambda: len(prom.targets_up()) == 1, 60, "Prometheus scraping %s" % target, interval=0.5)
        up = prom.query('pleg_healthy{instance="%s"}' % target)["data"]["result"]
        assert up, "no pleg_healthy from %s" % target

        def loaded():
            groups = prom.api("rules")["data"]["groups"]
            got = {(g["name"], r["name"]): r for g in groups for r in g["rules"]}
            missing = want - set(got)
            bad = {k: r.get("lastError") for k, r in got.items() if r.get("health") == "err"}
            assert not bad, "rules failing: %s" % bad
            return not missing and all(r.get("health") == "ok" for r in got.values())
        wait_until(loaded, 60, "the shipped rules loaded and evaluated", interval=0.5)
        # `kubectl plegscope nodes` the other way: from Prometheus, not through the API server
        r = run_plugin(c, os.devnull, "nodes", "--prometheus", prom.url)  # no API server credentials needed
        assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
        rows = {ln.split()[0]: ln.split() for ln in r.stdout.splitlines()[1:] if ln.strip()}
        assert rows.get(NODE, [None, None])[1] == "healthy", r.stdout
    log("Prometheus scraped %s; %d shipped rules loaded and evaluated; kubectl plegscope nodes --prometheus: %s"
        % (target, len(want), rows[NODE]))


def run_plugin(c, kubeconfig, *args):
    plugin = os.path.join(SOURCE, "plugins", "kubectl-plegscope")
    env = dict(os.environ, PATH=os.path.dirname(c.bins["kubectl"]) + os.pathsep + os.environ["PATH"],
               KUBECONFIG=kubeconfig)
    return subprocess.run([sys.executable, plugin] + list(args), capture_output=True, text=True, env=env,
                          timeout=120)


def oncall_plugin(c):
    """`kubectl plegscope nodes` and `diagnose NODE` through the real pod
    proxy, as an on-call user (client certificate, group plegscope-oncall)
    whom only deploy/components/oncall-rbac's roles bind."""
    kc = c.pki.kubeconfig("oncall", c.server, *c.pki.issue("oncall", "oncall-user", ["plegscope-oncall"]))
    denied = c.kubectl("get", "pods", "-n", "default", kubeconfig=kc, check=False)
    assert denied.returncode != 0 and "forbidden" in denied.stderr, (denied.returncode, denied.stderr)
    r = run_plugin(c, kc, "nodes")
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    rows = {ln.split()[0]: ln.split() for ln in r.stdout.splitlines()[1:] if ln.strip()}
    assert rows.get(NODE, [None, None])[1] == "healthy", r.stdout
    r = run_plugin(c, kc, "diagnose", NODE, "--output", "text")
    assert r.returncode == 0, (r.returncode, r.stdout[:500], r.stderr)
    assert "plegscope diagnosis of node %s" % NODE in r.stdout and "STATUS: HEALTHY" in r.stdout, r.stdout[:500]
    log("kubectl plegscope as oncall-user: nodes -> %s; diagnose %s -> STATUS: HEALTHY" % (rows[NODE], NODE))


def causes(pod):
    return {x["id"] for x in agent_report(pod).get("causes", [])}


def network_not_ready(c, pod):
    """The runtime's Status failing beside the real kubelet: the CNI
    configuration taken away, containerd (which watches its conf dir) says
    NetworkReady=false; the kubelet's Ready goes False saying so and the
    agent names runtime_network_not_ready; put back, the node goes Ready
    (network_cleared() waits for the agent)."""
    # Every file of the conf dir: the fixture's loopback-only network too,
    # which alone would keep NetworkReady true.
    conf_dir, aside = os.path.join(c.ctd.tmp, "cni", "conf"), os.path.join(c.dir, "cni-conf-aside")
    os.makedirs(aside)
    moved = sorted(os.listdir(conf_dir))
    for name in moved:
        os.rename(os.path.join(conf_dir, name), os.path.join(aside, name))
    try:
        def kubelet_says():
            ready = c.node_condition("Ready")
            return ready if ready["status"] == "False" and \
                "container runtime network not ready" in ready.get("message", "") else None
        ready = wait_until(kubelet_says, 90, "the kubelet's Ready=False: runtime network not ready", interval=1.0)
        wait_until(lambda: "runtime_network_not_ready" in causes(pod), 60,
                   "plegscope naming runtime_network_not_ready", interval=1.0)
        log("CNI conf removed: kubelet Ready=False (%s); plegscope: %s" % (ready["message"], sorted(causes(pod))))
    finally:
        # Written back, not renamed: containerd 1.6 reloads on a write,
        # rename or removal in its conf dir and ignores a bare create, which
        # is what a file moved in looks like.
        for name in moved:
            with open(os.path.join(aside, name)) as src, open(os.path.join(conf_dir, name), "w") as dst:
                dst.write(src.read())
    wait_until(c.node_ready, 90, "node Ready again with the CNI conf back", interval=1.0)
    log("CNI conf restored: node Ready")


def network_cleared(c, pod):
    """The agent's runtime_network_not_ready gone after network_not_ready():
    it follows the runtime's Status on its own period, some 30 s, so the
    test measures something else meanwhile."""
    wait_until(lambda: "runtime_network_not_ready" not in causes(pod), 90,
               "plegscope's runtime_network_not_ready cleared", interval=1.0)
    log("CNI conf restored: runtime_network_not_ready cleared")


class PodAgent:
    """The DaemonSet's agent, read on its pod address as Prometheus reads it."""

    def __init__(self, pod):
        self.base = "http://%s:%d" % (pod["status"]["podIP"], PORT)

    def get(self, path):
        return harness.http(self.base + path, timeout=10)

    def metrics(self):
        code, body = self.get("/metrics")
        assert code == 200, (code, body[:300])
        return harness.Metrics(body)

    def get_json(self, path):
        code, body = self.get(path)
        assert code == 200, (code, body[:300])
        return json.loads(body)


HELM_NAMESPACE = "plegscope-helm"


def helm_install(c, ref):
    """The Helm chart (deploy/helm/plegscope, generated from deploy/ by
    scripts/helm-chart) installed with Helm 4's `helm install` into a
    namespace of its own (no kustomize install may hold the same
    cluster-scoped names); the cluster's differences patched in as the
    kustomize overlay patches them; its pod Ready; then `helm uninstall`
    leaves none of its objects. Returns the figures."""
    import parts
    helm = parts.tool("helm")
    t0 = time.monotonic()
    c.kubectl("create", "namespace", HELM_NAMESPACE)
    # What the chart's namespace.create would add: the base's Pod Security labels.
    c.kubectl("label", "namespace", HELM_NAMESPACE, "pod-security.kubernetes.io/enforce=privileged",
              "pod-security.kubernetes.io/warn=privileged", "pod-security.kubernetes.io/audit=privileged")
    repository, _, tag = ref.rpartition(":")
    env = dict(os.environ, KUBECONFIG=c.admin_kubeconfig, HELM_CACHE_HOME=os.path.join(c.dir, "helm-cache"),
               HELM_CONFIG_HOME=os.path.join(c.dir, "helm-config"), HELM_DATA_HOME=os.path.join(c.dir, "helm-data"))

    def run(*args):
        r = subprocess.run([helm] + list(args), capture_output=True, text=True, timeout=180, env=env)
        assert r.returncode == 0, "helm %s: %s" % (" ".join(args), r.stderr.strip() or r.stdout.strip())
        return r.stdout

    out = run("install", "plegscope", os.path.join(SOURCE, "deploy", "helm", "plegscope"), "--namespace",
              HELM_NAMESPACE, "--set", "image.repository=" + repository, "--set", "image.tag=" + tag)
    log("helm install: %s" % " ".join(out.split()[:12]))
    patch = cluster_patch(c)
    patch["metadata"]["namespace"] = HELM_NAMESPACE
    c.kubectl("patch", "daemonset", "plegscope", "-n", HELM_NAMESPACE, "--type", "strategic", "-p",
              json.dumps({"spec": patch["spec"]}))

    def helm_pod():
        pods = c.get_json("pods", "-n", HELM_NAMESPACE, "-l", SELECTOR)["items"]
        pod = next((p for p in pods if p["metadata"].get("deletionTimestamp") is None and pod_ready(p)), None)
        return pod
    pod = wait_until(helm_pod, 180, "the Helm release's pod Ready on %s" % NODE, interval=1.0)
    assert pod["spec"]["containers"][0]["image"] == ref, pod["spec"]["containers"][0]["image"]
    ready_s = time.monotonic() - t0
    status = json.loads(run("status", "plegscope", "--namespace", HELM_NAMESPACE, "-o", "json"))
    assert status["info"]["status"] == "deployed", status["info"]
    report = agent_report(pod)
    assert report["node"] == NODE, report["node"]
    run("uninstall", "plegscope", "--namespace", HELM_NAMESPACE, "--wait")
    # The namespace's own default ServiceAccount is the controller-manager's, not the chart's.
    left = [n for n in c.kubectl("get", "daemonset,service,serviceaccount,networkpolicy,podmonitor,prometheusrule",
                                 "-n", HELM_NAMESPACE, "-o", "name").stdout.split() if n != "serviceaccount/default"]
    left += [n for n in c.kubectl("get", "clusterrole,clusterrolebinding", "-o", "name").stdout.split()
             if n.endswith("/plegscope")]
    assert not left, "helm uninstall left %s" % left
    figures = {"helm_version": run("version", "--template", "{{ .Version }}").strip(),
               "pod_ready_after_install_s": round(ready_s, 1), "release_status": status["info"]["status"],
               "report_node": report["node"]}
    log("helm: %s" % figures)
    return figures
