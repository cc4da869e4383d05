"""deploy/: every manifest parses and has what the issue asks for; the
PrometheusRules come from mixin/ (test_mixin.py); the image
scripts/build-image assembles runs plegscope as the DaemonSet's uid; kustomize
renders the base alone and with each component (crio, host-port, selinux, oncall-rbac, cilium,
web-auth, node-condition, kernel-stacks: exactly CAP_BPF, CAP_PERFMON and the flag, with root and
hostPID, and three together; kube-prometheus-stack's release label only on the
PodMonitor and the PrometheusRule, kube-prometheus' Role for prometheus-k8s),
each doing what it says; the NetworkPolicy selects the agent's pods and
admits only Prometheus and the API server's addresses; the pod runs as a
non-root uid on Linux nodes of the image's architectures; the requests sit above
the benchmark's RSS; the DaemonSet's node exclusion is the one the mixin's
PlegscopeDown honours; the image tag, the mixin's version and CMake's
project version agree."""
import json
import os
import re
import subprocess

import yaml

import ecolib
import harness
import kustomize_render


def docs():
    out = {}
    for f in sorted(os.listdir(ecolib.path("deploy"))):
        if f.endswith((".yaml", ".yml")):
            for d in ecolib.load_yaml_all(os.path.join("deploy", f)):
                out.setdefault(d["kind"], []).append((f, d))
    return out


def the(kind, name="plegscope"):
    items = [d for _, d in docs().get(kind, []) if d["metadata"]["name"] == name]
    assert len(items) == 1, "want one %s %s, got %d" % (kind, name, len(items))
    return items[0]


def test_all_manifests_parse_and_are_named():
    n = 0
    for kind, items in docs().items():
        for f, d in items:
            assert d.get("apiVersion"), f
            if kind != "Kustomization":
                assert d.get("metadata", {}).get("name"), f
            n += 1
    print("%d manifests" % n)


def test_daemonset():
    ds = the("DaemonSet")
    pod = ds["spec"]["template"]["spec"]
    assert ds["spec"]["selector"]["matchLabels"].items() <= ds["spec"]["template"]["metadata"]["labels"].items()
    assert pod["serviceAccountName"] == the("ServiceAccount")["metadata"]["name"]
    (c,) = pod["containers"]
    vols = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    # CRI socket (its directory) read-only from the host.
    env = {e["name"]: e for e in c.get("env", [])}
    endpoint = env["PLEGSCOPE_CONTAINER_RUNTIME_ENDPOINT"]["value"]
    assert endpoint.startswith("unix://")
    sock = endpoint[len("unix://"):]
    cri = [m for m in mounts.values() if sock.startswith(m["mountPath"].rstrip("/") + "/")]
    assert cri, "no mount holds " + sock
    assert cri[0]["readOnly"] is True
    assert "hostPath" in vols[cri[0]["name"]]
    # host /proc read-only at /host/proc, and the agent told so.
    proc = [m for m in mounts.values() if m["mountPath"] == "/host/proc"]
    assert proc and proc[0]["readOnly"] is True
    assert vols[proc[0]["name"]]["hostPath"]["path"] == "/proc"
    assert "--proc-path=/host/proc" in c.get("args", []) or env.get("PLEGSCOPE_PROC_PATH", {}).get("value") == "/host/proc"
    # The journal: its parents read-only at the agent's default paths, never
    # created (type "": a node without them still runs the agent), and never
    # /var/log/journal itself (creating it would turn on a persistent journal).
    for path in ("/var/log", "/run/log"):
        m = [m for m in mounts.values() if m["mountPath"] == path]
        assert m and m[0]["readOnly"] is True, (path, m)
        host = vols[m[0]["name"]]["hostPath"]
        assert host["path"] == path and host.get("type", "") == "", host
    assert not any(v.get("hostPath", {}).get("path", "").startswith("/var/log/journal") for v in vols.values())
    # /sys read-only at /host/sys for the cgroup PID limits and the runtime disk.
    sys_mounts = [m for m in mounts.values() if m["mountPath"] == "/host/sys"]
    assert len(sys_mounts) == 1 and sys_mounts[0].get("readOnly") is True, sys_mounts
    assert "--sys-path=/host/sys" in c.get("args", []), c.get("args")
    # NODE_NAME from the downward API.
    assert env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
    # requests and limits.
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(c["resources"][kind]), kind
    # every node, control planes included.
    tol = pod["tolerations"]
    assert any(t.get("operator") == "Exists" and "key" not in t for t in tol) or \
        {"node-role.kubernetes.io/control-plane"} <= {t.get("key") for t in tol}
    # hardening.
    sc = c["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"] and not sc["capabilities"].get("add")
    assert not sc.get("privileged")
    # probes: liveness on /livez only, readiness on /readyz ("serving": the
    # witness must stay in the Service while the runtime is down).
    assert c["livenessProbe"]["httpGet"]["path"] == "/livez"
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    text = open(ecolib.path("deploy/daemonset.yaml")).read()
    assert re.search(r"Readiness is /readyz, which also means \"serving\"", text), "the manifest must say why"
    # the CRI socket's hostPath fails rather than creates on a node without it.
    assert vols[cri[0]["name"]]["hostPath"].get("type") == "Directory"
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports["metrics"] == 9547


def test_service_and_podmonitor():
    svc = the("Service")
    ds = the("DaemonSet")
    labels = ds["spec"]["template"]["metadata"]["labels"]
    assert svc["spec"]["selector"].items() <= labels.items()
    assert any(p["name"] == "metrics" for p in svc["spec"]["ports"])
    pm = the("PodMonitor")
    assert pm["apiVersion"] == "monitoring.coreos.com/v1"
    assert pm["spec"]["selector"]["matchLabels"].items() <= labels.items()
    (ep,) = pm["spec"]["podMetricsEndpoints"]
    assert ep["port"] == "metrics" and ep.get("path", "/metrics") == "/metrics"
    # the node label every rule and dashboard uses.
    assert any(r.get("sourceLabels") == ["__meta_kubernetes_pod_node_name"] and r.get("targetLabel") == "node"
               for r in ep.get("relabelings", []))
    # job name PlegscopeDown matches.
    # the witness stays listed while not ready.
    assert svc["spec"].get("publishNotReadyAddresses") is True
    job = labels.get(pm["spec"].get("jobLabel", ""), "%s/%s" % (pm["metadata"]["namespace"], pm["metadata"]["name"]))
    assert job == "plegscope", job  # the mixin's default plegscopeSelector: job="plegscope"
    sa = the("ServiceAccount")
    assert sa.get("automountServiceAccountToken") is False


def test_rbac_is_exactly_nodes_metrics_and_nodes_get():
    """The kubelet's /metrics and the node's Ready message, nothing
    more; never nodes/proxy (a GET there allows exec through a WebSocket)."""
    role = the("ClusterRole")
    granted = set()
    for rule in role["rules"]:
        assert rule.get("apiGroups") == [""], rule
        assert not rule.get("resourceNames") and not rule.get("nonResourceURLs"), rule
        for resource in rule["resources"]:
            for verb in rule["verbs"]:
                granted.add((resource, verb))
    assert granted == {("nodes/metrics", "get"), ("nodes", "get")}, granted
    binding = the("ClusterRoleBinding")
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                  "name": role["metadata"]["name"]}
    sa = the("ServiceAccount")
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": sa["metadata"]["name"],
                                    "namespace": sa["metadata"]["namespace"]}]
    for kind, items in docs().items():
        for f, d in items:
            assert "nodes/proxy" not in str(d), "%s grants nodes/proxy" % f


def _component_docs(name):
    directory = os.path.join("deploy", "components", name)
    spec = ecolib.load_yaml(os.path.join(directory, "kustomization.yaml"))
    out = {}
    for resource in spec["resources"]:
        for d in ecolib.load_yaml_all(os.path.join(directory, resource)):
            out[(d["kind"], d["metadata"]["name"])] = d
    return out


def test_node_condition_component_grants_exactly_its_writes_in_its_own_role():
    """--node-condition's privileges: get and list nodes (the fleet-share
    guard), patch nodes/status, create
    and patch events, in a ClusterRole of its own bound to the agent's
    ServiceAccount; narrowed to its own node by a ValidatingAdmissionPolicy
    that reads the bound token's node claim."""
    objects = _component_docs("node-condition")
    role = objects[("ClusterRole", "plegscope-node-condition")]
    granted = {(r, v) for rule in role["rules"] for r in rule["resources"] for v in rule["verbs"]}
    assert granted == {("nodes", "get"), ("nodes", "list"), ("nodes/status", "patch"), ("events", "create"), ("events", "patch")}, granted
    for rule in role["rules"]:
        assert rule["apiGroups"] == [""] and not rule.get("resourceNames"), rule
    binding = objects[("ClusterRoleBinding", "plegscope-node-condition")]
    assert binding["roleRef"]["name"] == "plegscope-node-condition"
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "plegscope", "namespace": "plegscope"}]
    policy = objects[("ValidatingAdmissionPolicy", "plegscope-own-node-only")]["spec"]
    assert policy["failurePolicy"] == "Fail"
    rules = {(tuple(r["resources"]), tuple(r["operations"])) for r in policy["matchConstraints"]["resourceRules"]}
    # A PATCH reaches admission as UPDATE.
    assert rules == {(("nodes/status",), ("UPDATE",)), (("events",), ("CREATE", "UPDATE"))}, rules
    # whose writes: the ServiceAccount the binding names as the policy's param
    assert policy["paramKind"] == {"apiVersion": "v1", "kind": "ServiceAccount"}
    assert "params.metadata.namespace + ':' + params.metadata.name" in policy["matchConditions"][0]["expression"]
    text = json.dumps(policy)
    assert "authentication.kubernetes.io/node-name" in text and "request.name == variables.node" in text
    assert "involvedObject.name == variables.node" in text and "plegscope.io/PLEGUnhealthy" in text
    assert "plegscope.io/NodeRepairAdvised" in text
    vapb = objects[("ValidatingAdmissionPolicyBinding", "plegscope-own-node-only")]["spec"]
    assert vapb == {"policyName": "plegscope-own-node-only", "validationActions": ["Deny"],
                    "paramRef": {"name": "plegscope", "namespace": "plegscope",
                                 "parameterNotFoundAction": "Allow"}}, vapb


def test_daemonset_reaches_the_kubelet_with_a_projected_token():
    pod = the("DaemonSet")["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    env = {e["name"]: e for e in c.get("env", [])}
    assert env["NODE_IP"]["valueFrom"]["fieldRef"]["fieldPath"] == "status.hostIP"
    assert pod.get("automountServiceAccountToken") is False, "the token is projected explicitly"
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    mount = mounts["/var/run/secrets/kubernetes.io/serviceaccount"]
    assert mount["readOnly"] is True
    (vol,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    sources = vol["projected"]["sources"]
    tokens = [s["serviceAccountToken"] for s in sources if "serviceAccountToken" in s]
    assert tokens and tokens[0]["path"] == "token" and tokens[0]["expirationSeconds"] <= 3607
    cas = [s["configMap"] for s in sources if "configMap" in s]
    assert cas and cas[0]["name"] == "kube-root-ca.crt"


def test_kustomization_lists_every_manifest():
    k = ecolib.load_yaml("deploy/kustomization.yaml")
    for res in k["resources"]:
        assert os.path.exists(ecolib.path("deploy", res)), res
    kinds = set()
    for res in k["resources"]:
        kinds |= {d["kind"] for d in ecolib.load_yaml_all(os.path.join("deploy", res))}
    assert {"DaemonSet", "ServiceAccount", "Service", "PodMonitor", "PrometheusRule"} <= kinds, kinds
    images = {i["name"] for i in k.get("images", [])}
    assert the("DaemonSet")["spec"]["template"]["spec"]["containers"][0]["image"].split(":")[0] in images


def image_config():
    """The OCI config scripts/assemble-image gives every image it writes."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("assemble_image", ecolib.path("scripts/assemble-image"))
    spec = importlib.util.spec_from_loader("assemble_image", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module.image_config("amd64", "0")


def test_image_is_plegscope_alone_for_both_architectures():
    """No shell, no package manager: the entrypoint is the agent; the image
    is built for the architectures the DaemonSet admits."""
    config = image_config()["config"]
    assert config["Entrypoint"] == ["/usr/bin/plegscope"] and config["Cmd"] == ["serve"], config
    build = open(ecolib.path("scripts/build-image")).read()
    assert re.search(r"--arch amd64\|arm64\|all", build)
    term = the("DaemonSet")["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    (arch,) = [e for t in term for e in t["matchExpressions"] if e["key"] == "kubernetes.io/arch"]
    assert arch["operator"] == "In" and sorted(arch["values"]) == ["amd64", "arm64"], arch


def test_requests_above_the_measured_rss():
    """The memory request covers every agent RSS the benchmark measured (its
    peak on the 11k-object node included: the first relist decodes every
    object), and the limit leaves headroom above that."""
    with open(ecolib.path("bench/results/latest.json")) as f:
        bench = json.load(f)
    rss = dict(_agent_rss(bench))
    assert rss, "no agent RSS figure in bench/results/latest.json"
    where, worst = max(rss.items(), key=lambda kv: kv[1])
    res = the("DaemonSet")["spec"]["template"]["spec"]["containers"][0]["resources"]
    request, limit = _mib(res["requests"]["memory"]), _mib(res["limits"]["memory"])
    print("bench agent RSS up to %.1f MiB (%s); request %d MiB, limit %d MiB" % (worst, where, request, limit))
    assert request > worst, (request, worst, where)
    assert limit >= 2.5 * worst, (limit, worst)


def _agent_rss(obj, path=""):
    """(path, MiB) of every *rss_mib figure of the agent (not of the floor clients)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k.endswith("rss_mib") and isinstance(v, (int, float)) and "floor" not in path:
                yield path + "." + k, v
            else:
                yield from _agent_rss(v, path + "." + k)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _agent_rss(v, "%s[%d]" % (path, i))


def _mib(quantity):
    m = re.fullmatch(r"(\d+)(Mi|Gi)", quantity)
    assert m, quantity
    return int(m.group(1)) * (1024 if m.group(2) == "Gi" else 1)


def _jsonnet_config():
    jsonnet = harness.require_tool("jsonnet")
    out = subprocess.run([jsonnet, "-J", ecolib.path("mixin"), "-e", "(import 'mixin.libsonnet')._config"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_node_exclusion_matches_the_mixin():
    """A node the DaemonSet's nodeAffinity keeps the agent off is one the
    mixin's PlegscopeDown skips (kube-state-metrics' label_<name>): every
    NotIn is the excludedNodesSelector or one of nonAgentNodesSelectors
    (Fargate, virtual-kubelet), and the os/arch it requires are the
    agentNodesSelector's."""
    pod = the("DaemonSet")["spec"]["template"]["spec"]
    (term,) = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    ksm = lambda key: "label_" + re.sub(r"[^a-zA-Z0-9_]", "_", key)
    config = _jsonnet_config()
    skipped = {config["excludedNodesSelector"]} | set(config["nonAgentNodesSelectors"])
    not_in = ['%s="%s"' % (ksm(e["key"]), e["values"][0]) for e in term["matchExpressions"] if e["operator"] == "NotIn"]
    assert set(not_in) == skipped, (not_in, skipped)
    required = ", ".join('%s%s"%s"' % (ksm(e["key"]), "=" if len(e["values"]) == 1 else "=~", "|".join(e["values"]))
                         for e in term["matchExpressions"] if e["operator"] == "In")
    assert required == config["agentNodesSelector"], (required, config["agentNodesSelector"])


def test_daemonset_linux_nodes_of_the_image_architectures():
    """os and arch in the one nodeSelectorTerm that holds the exclusion:
    terms are ORed, so a second term would let excluded nodes back in."""
    pod = the("DaemonSet")["spec"]["template"]["spec"]
    (term,) = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    exprs = {e["key"]: e for e in term["matchExpressions"]}
    assert exprs["kubernetes.io/os"]["operator"] == "In" and exprs["kubernetes.io/os"]["values"] == ["linux"]
    assert exprs["kubernetes.io/arch"]["operator"] == "In"
    assert sorted(exprs["kubernetes.io/arch"]["values"]) == ["amd64", "arm64"], exprs["kubernetes.io/arch"]
    assert exprs["plegscope.io/exclude"]["operator"] == "NotIn"
    assert "nodeSelector" not in pod, "a nodeSelector would duplicate the affinity"


def test_daemonset_runs_as_non_root_with_the_socket_and_journal_groups():
    """Not root (what Kyverno's and Gatekeeper's baselines enforce); group 0
    for the root:root 0660 socket; adm (4) for the journal's ACL. The image's
    USER agrees, so the image alone is not root either."""
    pod = the("DaemonSet")["spec"]["template"]["spec"]
    psc = pod["securityContext"]
    sc = pod["containers"][0]["securityContext"]
    assert psc["runAsNonRoot"] is True and psc["runAsUser"] > 0 and "runAsUser" not in sc, (psc, sc)
    groups = [psc.get("runAsGroup")] + psc.get("supplementalGroups", [])
    assert 0 in groups and 4 in groups, groups
    user = image_config()["config"]["User"]
    assert user == "%d:%d" % (psc["runAsUser"], psc["runAsGroup"]), user


def test_versions_agree():
    cmake = re.search(r"project\(plegscope VERSION (\S+)", open(ecolib.path("CMakeLists.txt")).read()).group(1)
    config = _jsonnet_config()
    k = ecolib.load_yaml("deploy/kustomization.yaml")
    tags = {i.get("newTag") for i in k["images"]}
    image = the("DaemonSet")["spec"]["template"]["spec"]["containers"][0]["image"]
    assert config["version"] == cmake and tags == {cmake} and image.endswith(":" + cmake), (config["version"], tags, image)
    assert "/blob/v%s/" % cmake in config["runbookURL"], config["runbookURL"]
    # the krew sha256 is the reproducible archive's (scripts/krew-archive).
    r = subprocess.run([ecolib.path("scripts/krew-archive"), "--check"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    labels = the("DaemonSet")["metadata"]["labels"]
    assert labels["app.kubernetes.io/version"] == cmake and labels["app.kubernetes.io/part-of"] == "plegscope", labels
    # the krew manifest installs the plugin of the same release, from plugins/.
    krew = ecolib.load_yaml("plugins/plegscope.yaml")
    assert krew["kind"] == "Plugin" and krew["spec"]["version"] == "v" + cmake, krew["spec"]["version"]
    for platform in krew["spec"]["platforms"]:
        assert "v%s/" % cmake in platform["uri"], platform["uri"]
        assert os.access(ecolib.path("plugins", platform["bin"]), os.X_OK), platform["bin"]
        assert [f["from"] for f in platform["files"]] in ([platform["bin"]], [platform["bin"], "LICENSE"]), \
            platform["files"]
    for rel in ("alerts/plegscope.rules.yml", "deploy/prometheusrule.yaml"):
        urls = set(re.findall(r"runbook_url: (\S+)#", open(ecolib.path(rel)).read()))
        assert urls == {config["runbookURL"]}, (rel, urls)


def kustomize(components):
    """`kubectl kustomize` (kubectl 1.34, kustomize v5) of an overlay on deploy/
    with `components` and the cluster values' defaults: {(kind, name): object}."""
    if not components:
        # The base alone straight from deploy/ (what `kubectl apply -k deploy/` reads).
        return kustomize_render.by_key(kustomize_render.render_dir(ecolib.path("deploy")))
    files = {"values.yaml": kustomize_render.values()}
    return kustomize_render.render(components=["deploy/components/" + c for c in components], files=files)


def _container(docs):
    return docs[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]["containers"][0]


def test_kustomize_base_and_each_component():
    base = kustomize([])
    c = _container(base)
    assert {m["mountPath"] for m in c["volumeMounts"]} == {"/run/containerd", "/host/proc", "/host/sys", "/var/log",
                                                           "/run/log", "/var/run/secrets/kubernetes.io/serviceaccount"}
    assert {("ClusterRole", "plegscope"), ("ClusterRoleBinding", "plegscope")} <= set(base)
    assert "hostPort" not in c["ports"][0]
    assert base[("Service", "plegscope")]["spec"]["publishNotReadyAddresses"] is True

    crio = kustomize(["crio"])
    c = _container(crio)
    pod = crio[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]
    paths = {v["hostPath"]["path"] for v in pod["volumes"] if "hostPath" in v}
    assert paths == {"/run/crio", "/proc", "/sys", "/var/log", "/run/log"}, \
        "the containerd hostPath must be replaced, not kept: %s" % paths
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert env["PLEGSCOPE_CONTAINER_RUNTIME_ENDPOINT"] == "unix:///run/crio/crio.sock"
    sock_dir = os.path.dirname(env["PLEGSCOPE_CONTAINER_RUNTIME_ENDPOINT"][len("unix://"):])
    assert any(m["mountPath"] == sock_dir and m["readOnly"] for m in c["volumeMounts"]), c["volumeMounts"]

    hp = kustomize(["host-port"])
    (port,) = _container(hp)["ports"]
    assert port["hostPort"] == port["containerPort"] == 9547, port

    nc = kustomize(["node-condition"])
    env = {e["name"]: e.get("value") for e in _container(nc)["env"]}
    assert env["PLEGSCOPE_NODE_CONDITION"] == "true", env
    assert ("ValidatingAdmissionPolicy", "plegscope-own-node-only") in nc, sorted(nc)
    assert ("ClusterRole", "plegscope-node-condition") in nc and ("ClusterRole", "plegscope") in nc
    # The base grants no write: the component alone does.
    assert "PLEGSCOPE_NODE_CONDITION" not in {e["name"] for e in _container(base)["env"]}

    # on-call: exactly what kubectl plegscope asks (list pods, get pods/proxy
    # in the namespace; list nodes), to one group, no write.
    oc = kustomize(["oncall-rbac"])
    role = oc[("Role", "plegscope-oncall")]
    assert role["metadata"]["namespace"] == "plegscope"
    assert sorted((tuple(r["resources"]), tuple(r["verbs"])) for r in role["rules"]) == \
        [(("pods",), ("list",)), (("pods/proxy",), ("get",))], role["rules"]
    assert oc[("ClusterRole", "plegscope-oncall-nodes")]["rules"] == [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]}]
    for kind, name in (("RoleBinding", "plegscope-oncall"), ("ClusterRoleBinding", "plegscope-oncall-nodes")):
        assert [(s["kind"], s["name"]) for s in oc[(kind, name)]["subjects"]] == [("Group", "plegscope-oncall")]

    # Cilium: the same two peers as the base NetworkPolicy, by identity, on
    # the agent's port only; the base policy stays (policies add up).
    ci = kustomize(["cilium"])
    cnp = ci[("CiliumNetworkPolicy", "plegscope")]
    base_np = base[("NetworkPolicy", "plegscope")]
    assert cnp["metadata"]["namespace"] == "plegscope" and ("NetworkPolicy", "plegscope") in ci
    assert cnp["spec"]["endpointSelector"]["matchLabels"] == base_np["spec"]["podSelector"]["matchLabels"]
    (prom_rule, api_rule) = cnp["spec"]["ingress"]
    (prom_peer,) = [p for r in base_np["spec"]["ingress"] for p in r["from"] if "podSelector" in p]
    (prom_ep,) = prom_rule["fromEndpoints"]
    assert prom_ep["matchLabels"] == {
        "k8s:io.kubernetes.pod.namespace": prom_peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]}
    assert prom_ep["matchExpressions"] == prom_peer["podSelector"]["matchExpressions"]
    assert api_rule["fromEntities"] == ["kube-apiserver"]
    port = str(_container(base)["ports"][0]["containerPort"])
    for rule in (prom_rule, api_rule):
        assert rule["toPorts"] == [{"ports": [{"port": port, "protocol": "TCP"}]}], rule

    se = kustomize(["selinux"])
    pod = se[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]
    assert pod["securityContext"]["seLinuxOptions"] == {"type": "spc_t"}, pod["securityContext"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert _container(se)["securityContext"]["privileged"] is False
    assert "seLinuxOptions" not in base[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]["securityContext"]

    everything = kustomize(["crio", "host-port", "web-auth"])
    c = _container(everything)
    assert c["ports"][0]["hostPort"] == 9547 and "tcpSocket" in c["readinessProbe"]
    assert {m["mountPath"] for m in c["volumeMounts"]} >= {"/run/crio", "/etc/plegscope/web", "/etc/plegscope/tls"}
    print("rendered: base %d objects, crio %d, host-port %d, all three %d"
          % (len(base), len(crio), len(hp), len(everything)))



def _labels_everywhere(docs):
    """{(kind, name, field path): labels} of every label map in every object:
    metadata, selectors, pod templates, NetworkPolicy selectors."""
    out = {}
    for (kind, name), d in docs.items():
        out[(kind, name, "metadata.labels")] = d["metadata"].get("labels", {})
        spec = d.get("spec", {})
        if isinstance(spec.get("selector"), dict):
            out[(kind, name, "spec.selector")] = spec["selector"].get("matchLabels", spec["selector"])
        if "template" in spec:
            out[(kind, name, "spec.template.metadata.labels")] = spec["template"]["metadata"].get("labels", {})
        if "podSelector" in spec:
            out[(kind, name, "spec.podSelector")] = spec["podSelector"].get("matchLabels", {})
    return out


def test_kernel_stacks_component_adds_exactly_cap_bpf_cap_perfmon_and_the_flag():
    import copy
    base = kustomize([])
    ks = kustomize(["kernel-stacks"])
    c, before = _container(ks), _container(base)
    sc = c["securityContext"]
    assert sorted(sc["capabilities"]["add"]) == ["BPF", "PERFMON"], sc
    assert sc["capabilities"]["drop"] == ["ALL"], sc
    assert "add" not in before["securityContext"]["capabilities"], before["securityContext"]
    assert c["args"] == before["args"] + ["--kernel-stacks"], c["args"]
    assert "--kernel-stacks" not in before["args"]
    # Still no privilege escalation, no privileged mode, a read-only root.
    assert sc["allowPrivilegeEscalation"] is False and sc["privileged"] is False and sc["readOnlyRootFilesystem"]
    # What makes the two capabilities count: root in the container (no
    # ambient capabilities for a non-root uid) and the host's PID namespace
    # (the task iterator walks only its own).
    pod = ks[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]
    assert sc["runAsUser"] == 0 and sc["runAsNonRoot"] is False and pod["hostPID"] is True, (sc, pod.get("hostPID"))
    assert "hostPID" not in base[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]
    # Nothing else changes, in the DaemonSet or any other object.
    assert set(ks) == set(base), set(ks) ^ set(base)
    stripped = copy.deepcopy(ks)
    spec = stripped[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]
    del spec["hostPID"]
    ssc = spec["containers"][0]["securityContext"]
    for key in ("runAsUser", "runAsNonRoot"):
        del ssc[key]
    del ssc["capabilities"]["add"]
    spec["containers"][0]["args"].remove("--kernel-stacks")
    assert stripped == base, "the component changed more than its five fields"


def test_kube_prometheus_stack_component_labels_only_what_the_chart_selects():
    """The chart's Prometheus selects PodMonitors and PrometheusRules by
    `release`: exactly those carry it; the DaemonSet's immutable selector,
    its pod template, the Service's selector and every other object are as
    the base renders them. The release name is the cluster values' (their
    one place, test_kustomize.py changes it)."""
    base = kustomize([])
    stack = kustomize(["kube-prometheus-stack"])
    values = [kustomize_render.values()["spec"]["release"]]
    assert values == ["kube-prometheus-stack"], values
    assert set(stack) == set(base)
    labelled = set()
    before, after = _labels_everywhere(base), _labels_everywhere(stack)
    for where, labels in after.items():
        if "release" in labels:
            labelled.add(where)
            assert labels == dict(before[where], release=values[0]), (where, labels)
        else:
            assert labels == before[where], (where, labels)
    assert labelled == {(k, n, "metadata.labels") for k, n in base if k in ("PodMonitor", "PrometheusRule")}, labelled
    assert {k for k, _, _ in labelled} == {"PodMonitor", "PrometheusRule"}, labelled
    for key in base:
        if key[0] not in ("PodMonitor", "PrometheusRule"):
            assert stack[key] == base[key], key
    print("release=%s on: %s" % (values[0], sorted("%s/%s" % (k, n) for k, n, _ in labelled)))


def test_kube_prometheus_component_grants_prometheus_k8s_discovery_in_the_namespace():
    """kube-prometheus' prometheus-k8s gets what its
    prometheus-roleSpecificNamespaces gives it elsewhere (get/list/watch
    pods, services, endpoints), in plegscope only, and nothing else changes."""
    base = kustomize([])
    kp = kustomize(["kube-prometheus"])
    assert set(kp) - set(base) == {("Role", "prometheus-k8s"), ("RoleBinding", "prometheus-k8s")}, set(kp) - set(base)
    for key in base:
        assert kp[key] == base[key], key
    role, binding = kp[("Role", "prometheus-k8s")], kp[("RoleBinding", "prometheus-k8s")]
    namespace = base[("DaemonSet", "plegscope")]["metadata"]["namespace"]
    assert role["metadata"]["namespace"] == binding["metadata"]["namespace"] == namespace
    granted = {(g, r, v) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"]
               for v in rule["verbs"]}
    assert granted == {("", r, v) for r in ("pods", "services", "endpoints") for v in ("get", "list", "watch")}, granted
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "prometheus-k8s"}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "prometheus-k8s", "namespace": "monitoring"}]
    # the PodMonitor it must discover is in that namespace, and finds the pods in its own
    monitor = base[("PodMonitor", "plegscope")]
    assert monitor["metadata"]["namespace"] == namespace and "namespaceSelector" not in monitor["spec"], monitor


def test_networkpolicy_admits_only_prometheus_and_the_api_server_to_the_agent():
    base = kustomize([])
    ds = base[("DaemonSet", "plegscope")]
    pod_labels = ds["spec"]["template"]["metadata"]["labels"]
    policies = [d for (k, _), d in base.items() if k == "NetworkPolicy"]
    (np,) = policies
    assert np["metadata"]["namespace"] == ds["metadata"]["namespace"]
    # selects the agent's pods (matchLabels only: nothing else narrows it)
    assert set(np["spec"]["podSelector"]) == {"matchLabels"}
    assert np["spec"]["podSelector"]["matchLabels"].items() <= pod_labels.items()
    assert np["spec"]["policyTypes"] == ["Ingress"]
    ports = {p["name"]: p["containerPort"] for p in ds["spec"]["template"]["spec"]["containers"][0]["ports"]}
    peers = []
    for rule in np["spec"]["ingress"]:
        # every rule names the agent's port, never "any port"
        assert rule.get("ports"), rule
        for p in rule["ports"]:
            assert ports.get(p["port"], p["port"]) == 9547 and p.get("protocol", "TCP") == "TCP", p
        assert rule.get("from"), "a rule without `from` admits everyone: %s" % rule
        peers += rule["from"]
    prometheus = [p for p in peers if "podSelector" in p]
    blocks = [p["ipBlock"] for p in peers if "ipBlock" in p]
    assert len(prometheus) == 1 and len(blocks) == 1 and len(peers) == 2, peers
    # Prometheus pods (prometheus-operator labels each one so) in the monitoring namespace only
    assert prometheus[0]["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}
    # Prometheus, a PrometheusAgent, Grafana Alloy or vmagent: whichever scrapes.
    assert prometheus[0]["podSelector"] == {"matchExpressions": [{
        "key": "app.kubernetes.io/name", "operator": "In",
        "values": ["prometheus", "prometheus-agent", "alloy", "vmagent"]}]}
    # the API server's addresses: one block, not the whole internet
    assert not blocks[0]["cidr"].endswith("/0"), blocks



def test_policy_exceptions_cover_exactly_the_daemonsets_host_paths():
    """The Kyverno and Gatekeeper components admit the hostPaths the
    DaemonSet mounts (base, crio, k3s and rke2), read-only, in its namespace,
    and no other path: a path added to the DaemonSet without its exception
    fails here, not at admission on the fleet. They match the agent's pods by
    label and its namespace by name, never by a pod name a namePrefix would
    change (test_kustomize.py moves them)."""
    mounted = set()
    for components in ([], ["crio"], ["k3s"], ["rke2"]):
        pod = kustomize(components)[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]
        (c,) = pod["containers"]
        read_only = {m["name"] for m in c["volumeMounts"] if m.get("readOnly")}
        for v in pod["volumes"]:
            if "hostPath" in v:
                assert v["name"] in read_only, v
                mounted.add(v["hostPath"]["path"])
    base = kustomize([])
    pod_labels = base[("DaemonSet", "plegscope")]["spec"]["template"]["metadata"]["labels"]
    gk = {k[0]: d for k, d in kustomize(["gatekeeper"]).items() if k[0].startswith("K8sPSP")}
    assert set(gk) == {"K8sPSPHostFilesystem", "K8sPSPVolumeTypes", "K8sPSPAllowedUsers"}, set(gk)
    allowed = gk["K8sPSPHostFilesystem"]["spec"]["parameters"]["allowedHostPaths"]
    assert all(a["readOnly"] is True for a in allowed), allowed
    assert {a["pathPrefix"] for a in allowed} == mounted, ({a["pathPrefix"] for a in allowed}, mounted)
    for d in gk.values():
        match = d["spec"]["match"]
        assert match["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": "plegscope"}}, match
        assert match["labelSelector"]["matchLabels"].items() <= pod_labels.items(), match
        assert "namespaces" not in match, match
    assert "hostPath" in gk["K8sPSPVolumeTypes"]["spec"]["parameters"]["volumes"]
    (kyverno,) = [d for k, d in kustomize(["kyverno"]).items() if k[0] == "PolicyException"]
    assert kyverno["metadata"]["namespace"] == "plegscope"
    (resources,) = [m["resources"] for m in kyverno["spec"]["match"]["any"]]
    assert resources["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": "plegscope"}}
    assert resources["selector"]["matchLabels"].items() <= pod_labels.items(), resources
    assert "DaemonSet" in resources["kinds"] and "names" not in resources, resources
    policies = {e["policyName"] for e in kyverno["spec"]["exceptions"]}
    assert policies == {"disallow-host-path", "restrict-volume-types", "require-non-root-groups"}, policies
    # the group exception covers exactly what the pod runs with: primary
    # group 0, a non-root uid, supplementary group 4.
    (groups,) = [e for e in kyverno["spec"]["exceptions"] if e["policyName"] == "require-non-root-groups"]
    assert groups["ruleNames"] == ["check-runasgroup", "autogen-check-runasgroup"], groups
    sc = base[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]["securityContext"]
    users = gk["K8sPSPAllowedUsers"]["spec"]["parameters"]
    assert users["runAsGroup"]["ranges"] == [{"min": sc["runAsGroup"], "max": sc["runAsGroup"]}], (users, sc)
    assert [(r["min"], r["max"]) for r in users["supplementalGroups"]["ranges"]] == [(g, g) for g in sc["supplementalGroups"]]
    assert users["runAsUser"]["rule"] == "MustRunAsNonRoot" and sc["runAsUser"] > 0 and "fsGroup" not in sc
    print("host paths excepted, read-only: %s" % sorted(mounted))


if __name__ == "__main__":
    harness.main(globals())
