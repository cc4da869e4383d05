"""The install as kustomize v5 (kubectl 1.34) renders it: every component
alone; the per-cluster values in one place (each value changed there alone
changes every object that carries it, and nothing else; no values file
stops the render); the prometheus-agents and dashboards components; the
mixed-runtime overlay (two DaemonSets, one of everything else, each
DaemonSet narrowed inside its one affinity term); the admission policy's
identity following the ServiceAccount through namespace: and nameSuffix:."""
import copy
import json
import os
import re

import ecolib
import harness
import kustomize_render as kr

COMPONENTS = sorted(d for d in os.listdir(ecolib.path("deploy", "components"))
                    if os.path.exists(ecolib.path("deploy", "components", d, "kustomization.yaml")))
# The objects every value reaches, with the stacks' components that add them.
STACKS = ["deploy/components/cilium", "deploy/components/kube-prometheus",
          "deploy/components/kube-prometheus-stack", "deploy/components/cluster-values"]


def with_values(components=STACKS, **changes):
    return kr.render(components=components, files={"values.yaml": kr.values(**changes)})


def diff(a, b, path=""):
    """The paths where A and B differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            out += diff(a.get(k), b.get(k), "%s.%s" % (path, k))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i in range(len(a)) for p in diff(a[i], b[i], "%s.%d" % (path, i))]
    return [] if a == b else [path]


def changed(before, after):
    assert set(before) == set(after), set(before) ^ set(after)
    return {"%s/%s%s" % (k[0], k[1], p) for k in before for p in diff(before[k], after[k])}


def test_every_component_renders_alone():
    base = kr.by_key(kr.render_dir(ecolib.path("deploy")))
    for c in COMPONENTS:
        objects = kr.render(components=["deploy/components/" + c], files={"values.yaml": kr.values()})
        # each does something, but the values at their defaults (the base's own)
        assert (objects == base) == (c == "cluster-values"), c
        assert not [k for k in objects if k[0] == "ClusterValues"], c
        print("%-22s %d objects" % (c, len(objects)))


def test_default_values_render_the_base():
    base = kr.by_key(kr.render_dir(ecolib.path("deploy")))
    assert kr.render(components=["deploy/components/cluster-values"], files={"values.yaml": kr.values()}) == base


def test_each_value_is_set_in_one_place():
    """One key changed in values.yaml changes exactly the fields that carry it."""
    before = with_values()
    ds = "DaemonSet/plegscope.spec.template.spec.containers.0.env.%d.value"
    env = [e["name"] for e in before[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]["containers"][0]["env"]]
    cases = {
        "prometheus.namespace": ("observability", {
            "NetworkPolicy/plegscope.spec.ingress.0.from.0.namespaceSelector.matchLabels.kubernetes.io/metadata.name",
            "CiliumNetworkPolicy/plegscope.spec.ingress.0.fromEndpoints.0.matchLabels.k8s:io.kubernetes.pod.namespace",
            "RoleBinding/prometheus-k8s.subjects.0.namespace"}),
        "prometheus.podNames": (["prometheus", "otel-collector"], {
            "NetworkPolicy/plegscope.spec.ingress.0.from.0.podSelector.matchExpressions.0.values",
            "CiliumNetworkPolicy/plegscope.spec.ingress.0.fromEndpoints.0.matchExpressions.0.values"}),
        "apiServerSources": ([{"ipBlock": {"cidr": "10.0.0.10/32"}}, {"ipBlock": {"cidr": "10.0.0.11/32"}}],
                             {"NetworkPolicy/plegscope.spec.ingress.1.from"}),
        "kubelet.insecureSkipTLSVerify": ("true", {ds % env.index("PLEGSCOPE_KUBELET_INSECURE_SKIP_TLS_VERIFY")}),
        "release": ("prom-eu-1", {"PodMonitor/plegscope.metadata.labels.release",
                                  "PrometheusRule/plegscope.metadata.labels.release"}),
    }
    for key, (value, want) in cases.items():
        after = with_values(**{key: value})
        got = changed(before, after)
        assert got == want, (key, got ^ want)
        print("%s -> %s: %s" % (key, json.dumps(value), sorted(got)))


def test_a_missing_values_file_stops_the_render():
    for c in ("cluster-values", "kube-prometheus-stack"):
        with kr.Overlay(components=["deploy/components/" + c]) as o:
            err = o.error()
        assert "plegscope-cluster-values" in err, (c, err)


def test_an_unedited_values_file_stops_the_render_naming_the_value():
    """values.yaml as shipped, and its REQUIRED value left empty in each way
    a user might (null, [], nothing), stop `kubectl kustomize` (what
    `kubectl apply -k` runs) with one line naming the value; the same file
    with the value set renders."""
    shipped = kr.shipped_values()
    assert shipped["spec"]["apiServerSources"] is None
    for label, value in (("as shipped", None), ("empty list", []), ("empty string", "")):
        doc = copy.deepcopy(shipped)
        doc["spec"]["apiServerSources"] = value
        with kr.Overlay(components=STACKS, files={"values.yaml": doc}) as o:
            if value == "":
                # not a list of peers: kustomize writes it, the API server
                # refuses the NetworkPolicy; no render check catches a type
                o.render()
                continue
            err = o.error()
        (line,) = [l for l in err.splitlines() if l.strip()]
        assert "spec.apiServerSources" in line and "missing" in line, (label, err)
        print("%-12s -> %s" % (label, line[:160]))
    kr.render(components=STACKS, files={"values.yaml": kr.values()})
    # a value the overlay does not read is no error: cluster-values alone
    # still needs apiServerSources, kube-prometheus-stack alone only release
    with kr.Overlay(components=["deploy/components/kube-prometheus-stack"],
                    files={"values.yaml": shipped}) as o:
        o.render()


def test_prometheus_agents_component():
    """An agent evaluates no rule: no PrometheusRule. The cluster's name
    comes from the agent's external label alone, as for the kubelet's and
    kube-state-metrics' series: nothing in the install writes a `cluster`
    label, and the component needs no values file."""
    base = kr.by_key(kr.render_dir(ecolib.path("deploy")))
    got = kr.render(components=["deploy/components/prometheus-agents"])
    assert {k for k in base if k[0] == "PrometheusRule"} and not {k for k in got if k[0] == "PrometheusRule"}
    assert set(base) - set(got) == {k for k in base if k[0] == "PrometheusRule"}
    for k in got:
        assert got[k] == base[k], k
    text = json.dumps(got[("PodMonitor", "plegscope")])
    assert '"cluster"' not in text, text
    assert "cluster" not in kr.shipped_values()["spec"]


def test_dashboards_components_carry_the_committed_renders():
    for component, directory in (("dashboards", "dashboards"), ("dashboards/multi-cluster", "dashboards/multi-cluster")):
        objects = kr.render(components=[component])
        cm = objects[("ConfigMap", "plegscope-dashboards")]
        assert cm["metadata"]["labels"]["grafana_dashboard"] == "1" and cm["metadata"]["namespace"] == "monitoring"
        assert sorted(cm["data"]) == ["pleg-fleet.json", "pleg-node.json"], sorted(cm["data"])
        for name, text in cm["data"].items():
            with open(ecolib.path(directory, name)) as f:
                assert text == f.read(), (component, name)
            variables = {v["name"] for v in json.loads(text)["templating"]["list"]}
            assert ("cluster" in variables) == (directory != "dashboards"), (component, name, variables)
    print("dashboards ConfigMaps: single-cluster and multi-cluster renders, as committed")


def _term(ds):
    terms = ds["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert len(terms) == 1, terms
    return terms[0]["matchExpressions"]


def test_mixed_runtime_overlay():
    base = kr.by_key(kr.render_dir(ecolib.path("deploy")))
    mixed = kr.by_key(kr.render_dir(ecolib.path("overlays", "mixed-runtime")))
    kinds = [k for k, _ in mixed]
    assert kinds.count("PodMonitor") == 1 and kinds.count("PrometheusRule") == 1, kinds
    assert kinds.count("DaemonSet") == 2 and kinds.count("ServiceAccount") == 1, kinds
    assert set(mixed) - set(base) == {("DaemonSet", "plegscope-crio")}, set(mixed) ^ set(base)
    ctd, crio = mixed[("DaemonSet", "plegscope")], mixed[("DaemonSet", "plegscope-crio")]
    runtime = {"key": "plegscope.io/runtime", "values": ["cri-o"]}
    assert _term(ctd) == _term(base[("DaemonSet", "plegscope")]) + [dict(runtime, operator="NotIn")]
    assert _term(crio) == _term(base[("DaemonSet", "plegscope")]) + [dict(runtime, operator="In")]
    pod = crio["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "plegscope"
    assert {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}[
        "PLEGSCOPE_CONTAINER_RUNTIME_ENDPOINT"] == "unix:///run/crio/crio.sock"
    assert crio["spec"]["selector"] == ctd["spec"]["selector"]
    assert crio["spec"]["template"]["metadata"]["labels"] == ctd["spec"]["template"]["metadata"]["labels"]
    for k in base:
        if k[0] != "DaemonSet":
            assert mixed[k] == base[k], k
    print("mixed-runtime: %d objects, one PodMonitor, one PrometheusRule, DaemonSets plegscope and plegscope-crio"
          % len(mixed))


def test_cluster_values_reach_both_daemonsets_of_the_mixed_overlay():
    objects = kr.render(resources=["overlays/mixed-runtime"], components=["deploy/components/cluster-values"],
                        files={"values.yaml": kr.values(**{"kubelet.insecureSkipTLSVerify": "true"})})
    for name in ("plegscope", "plegscope-crio"):
        env = {e["name"]: e.get("value") for e in
               objects[("DaemonSet", name)]["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert env["PLEGSCOPE_KUBELET_INSECURE_SKIP_TLS_VERIFY"] == "true", (name, env)


def test_hide_pod_logs_reaches_both_daemonsets():
    objects = kr.render(resources=["overlays/mixed-runtime"], components=["deploy/components/hide-pod-logs"])
    for name in ("plegscope", "plegscope-crio"):
        pod = objects[("DaemonSet", name)]["spec"]["template"]["spec"]
        mounts = {m["mountPath"]: m["name"] for m in pod["containers"][0]["volumeMounts"]}
        assert mounts["/var/log/pods"] == mounts["/var/log/containers"] == "hidden-pod-logs", (name, mounts)
        assert mounts["/var/log"] == "host-var-log", mounts
        (v,) = [v for v in pod["volumes"] if v["name"] == "hidden-pod-logs"]
        assert "emptyDir" in v and "hostPath" not in v, v


def identity_render(namespace="obs", suffix="-x"):
    return kr.render(resources=["overlays/mixed-runtime"], components=["deploy/components/node-condition"],
                     extra={"namespace": namespace, "nameSuffix": suffix})


def test_policy_identity_follows_namespace_and_name_suffix():
    """The binding's paramRef is the ServiceAccount both DaemonSets run as,
    whatever namespace and suffix the overlay gives it; the ClusterRole's
    binding names it too; the PodMonitor follows them into the namespace."""
    for namespace, suffix in (("plegscope", ""), ("obs", "-x"), ("team-a-observability", "-crio")):
        objects = identity_render(namespace, suffix)
        (sa,) = [o for k, o in objects.items() if k[0] == "ServiceAccount"]
        assert (sa["metadata"]["name"], sa["metadata"]["namespace"]) == ("plegscope" + suffix, namespace)
        (binding,) = [o for k, o in objects.items() if k[0] == "ValidatingAdmissionPolicyBinding"]
        ref = binding["spec"]["paramRef"]
        assert (ref["name"], ref["namespace"]) == ("plegscope" + suffix, namespace), ref
        (policy,) = [k[1] for k in objects if k[0] == "ValidatingAdmissionPolicy"]
        assert binding["spec"]["policyName"] == policy
        subjects = objects[("ClusterRoleBinding", "plegscope-node-condition" + suffix)]["subjects"]
        assert subjects == [{"kind": "ServiceAccount", "name": "plegscope" + suffix, "namespace": namespace}]
        daemonsets = [o for k, o in objects.items() if k[0] == "DaemonSet"]
        assert len(daemonsets) == 2
        for ds in daemonsets:
            pod = ds["spec"]["template"]["spec"]
            assert pod["serviceAccountName"] == sa["metadata"]["name"], ds["metadata"]["name"]
            env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
            assert env["PLEGSCOPE_NODE_CONDITION"] == "true", ds["metadata"]["name"]
        # the one PodMonitor scrapes both DaemonSets' pods in the namespace it was moved to
        (monitor,) = [o for k, o in objects.items() if k[0] == "PodMonitor"]
        assert monitor["metadata"]["namespace"] == namespace and "namespaceSelector" not in monitor["spec"], monitor
        wanted = monitor["spec"]["selector"]["matchLabels"].items()
        for ds in daemonsets:
            assert ds["metadata"]["namespace"] == namespace
            assert wanted <= ds["spec"]["template"]["metadata"]["labels"].items(), ds["metadata"]["name"]
        print("namespace %s, suffix %r: paramRef %s/%s" % (namespace, suffix, ref["namespace"], ref["name"]))


# Kinds kustomize knows as cluster-scoped, and the cluster-scoped custom
# kinds it does not (it writes an overlay's namespace on those too, which
# the API server drops for a cluster-scoped object).
# kustomize v5.7's built-in schema predates ValidatingAdmissionPolicy, so it
# counts among the latter.
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding"}
CLUSTER_SCOPED_CUSTOM = {"SecurityContextConstraints", "K8sPSPHostFilesystem", "K8sPSPVolumeTypes",
                         "K8sPSPAllowedUsers", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
CONSTRAINTS = {"K8sPSPHostFilesystem", "K8sPSPVolumeTypes", "K8sPSPAllowedUsers"}
# Every component that adds or changes objects, in renders that can stand
# together (k3s and openshift each replace the runtime socket; openshift-
# kernel-stacks carries openshift and kernel-stacks).
MOVED_RENDERS = [
    # the index-checked patches (k3s, hide-pod-logs) before web-auth, whose
    # strategic merge puts its volumes first
    dict(resources=["deploy"], components=[
        "deploy/components/k3s", "deploy/components/cilium", "deploy/components/kube-prometheus",
        "deploy/components/cluster-values",
        "deploy/components/kube-prometheus-stack", "deploy/components/node-condition",
        "deploy/components/oncall-rbac", "deploy/components/kyverno", "deploy/components/gatekeeper",
        "deploy/components/gke", "deploy/components/hide-pod-logs", "deploy/components/web-auth",
        "deploy/components/host-port", "deploy/components/kernel-stacks", "dashboards"]),
    dict(resources=["deploy"], components=[
        "deploy/components/openshift-kernel-stacks", "deploy/components/node-condition",
        "deploy/components/prometheus-agents", "dashboards/multi-cluster"]),
    dict(resources=["overlays/mixed-runtime"], components=[
        "deploy/components/node-condition", "deploy/components/kyverno", "deploy/components/gatekeeper"]),
    dict(resources=["deploy"], components=["deploy/components/rke2", "deploy/components/gatekeeper"]),
]


def _moved(render, namespace, prefix):
    return kr.render(resources=render["resources"], components=render["components"],
                     files={"values.yaml": kr.values()}, extra={"namespace": namespace, "namePrefix": prefix})


def test_every_object_follows_the_overlays_namespace_and_prefix():
    """Every component rendered under an overlay's `namespace:` and
    `namePrefix:`: every object carries the prefix, every namespaced one the
    namespace (the dashboards' ConfigMap, the policy exceptions, the SCC's
    RoleBinding included), and every reference between objects still names
    an object of the render: ServiceAccounts, roles, the admission policy,
    the SCC, the namespace the policy exceptions match."""
    ns, prefix = "team-a-obs", "team-a-"
    components_seen = set()
    for render in MOVED_RENDERS:
        objects = _moved(render, ns, prefix)
        components_seen |= set(render["components"])
        names = {}
        for (kind, name), o in objects.items():
            assert name.startswith(prefix), (kind, name)
            names.setdefault(kind, set()).add(name)
            got = o["metadata"].get("namespace")
            if kind in CLUSTER_SCOPED:
                assert got is None, (kind, name, got)
            elif kind in CLUSTER_SCOPED_CUSTOM:
                assert got in (None, ns), (kind, name, got)
            else:
                assert got == ns, (kind, name, got)
        assert names["Namespace"] == {ns}, names["Namespace"]
        sas = {(ns, n) for n in names["ServiceAccount"]}
        for (kind, name), o in objects.items():
            for sub in o.get("subjects", []):
                if sub["kind"] == "ServiceAccount" and sub["name"].endswith("plegscope"):
                    assert (sub["namespace"], sub["name"]) in sas, (kind, name, sub)
                elif sub["kind"] == "ServiceAccount":
                    assert sub["name"] == "prometheus-k8s", (kind, name, sub)
            if "roleRef" in o:
                assert o["roleRef"]["name"] in names[o["roleRef"]["kind"]], (kind, name, o["roleRef"])
            if kind == "DaemonSet":
                assert (ns, o["spec"]["template"]["spec"]["serviceAccountName"]) in sas, name
            if kind == "ValidatingAdmissionPolicyBinding":
                ref = o["spec"]["paramRef"]
                assert (ref["namespace"], ref["name"]) in sas and o["spec"]["policyName"] in names[
                    "ValidatingAdmissionPolicy"], o["spec"]
            if kind == "ClusterRole":
                for rule in o["rules"]:
                    if "securitycontextconstraints" in rule.get("resources", []):
                        assert set(rule["resourceNames"]) <= names["SecurityContextConstraints"], rule
            if kind == "PolicyException":
                for m in o["spec"]["match"]["any"]:
                    assert m["resources"]["namespaceSelector"]["matchLabels"] == {"kubernetes.io/metadata.name": ns}
                    assert "names" not in m["resources"] and "namespaces" not in m["resources"], m
            if kind in CONSTRAINTS:
                assert o["spec"]["match"]["namespaceSelector"]["matchLabels"] == {"kubernetes.io/metadata.name": ns}
                assert "namespaces" not in o["spec"]["match"], o["spec"]["match"]
        # the policy exceptions and the PodMonitor select every agent pod by label
        pods = [o["spec"]["template"]["metadata"]["labels"] for k, o in objects.items() if k[0] == "DaemonSet"]
        for (kind, name), o in objects.items():
            sel = None
            if kind == "PolicyException":
                sel = o["spec"]["match"]["any"][0]["resources"]["selector"]["matchLabels"]
            elif kind in CONSTRAINTS:
                sel = o["spec"]["match"]["labelSelector"]["matchLabels"]
            elif kind == "PodMonitor":
                sel = o["spec"]["selector"]["matchLabels"]
            if sel is not None:
                assert all(sel.items() <= p.items() for p in pods), (kind, name, sel)
        print("%s + %s: %d objects, all %s*, namespaced ones in %s" % (
            render["resources"][0], ", ".join(c.rsplit("/", 1)[-1] for c in render["components"]),
            len(objects), prefix, ns))
    # crio and selinux are inside openshift and the mixed-runtime overlay,
    # openshift inside openshift-kernel-stacks
    every = {"deploy/components/" + c for c in COMPONENTS} - {
        "deploy/components/" + c for c in ("crio", "selinux", "openshift")}
    assert every <= components_seen, every - components_seen


# Pod Security Standards (kubernetes.io/docs/concepts/security/pod-security-standards):
# the checks of baseline and restricted that plegscope's pods touch.
BASELINE_CAPS = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
                 "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
BASELINE_SELINUX_TYPES = {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                      "projected", "secret"}


def pod_security_level(pod):
    """The least Pod Security level that admits POD (a pod spec):
    restricted, baseline or privileged, with the reasons for it."""
    baseline, restricted = [], []
    for key in ("hostPID", "hostIPC", "hostNetwork"):
        if pod.get(key):
            baseline.append(key)
    for v in pod.get("volumes", []):
        if "hostPath" in v:
            baseline.append("hostPath " + v["hostPath"]["path"])
        if not set(v) - {"name"} <= RESTRICTED_VOLUMES:
            restricted.append("volume " + v["name"])
    psc = pod.get("securityContext", {})
    for c in pod["containers"]:
        sc = c.get("securityContext", {})
        if sc.get("privileged"):
            baseline.append("privileged")
        added = set(sc.get("capabilities", {}).get("add", []))
        if added - BASELINE_CAPS:
            baseline.append("capabilities %s" % sorted(added - BASELINE_CAPS))
        if added - {"NET_BIND_SERVICE"}:
            restricted.append("capabilities %s" % sorted(added))
        if "ALL" not in sc.get("capabilities", {}).get("drop", []):
            restricted.append("drop ALL")
        if any(p.get("hostPort") for p in c.get("ports", [])):
            baseline.append("hostPort")
        for ctx in (psc, sc):
            if ctx.get("seLinuxOptions", {}).get("type", "") not in BASELINE_SELINUX_TYPES:
                baseline.append("seLinux type " + ctx["seLinuxOptions"]["type"])
            if ctx.get("seLinuxOptions", {}).get("user") or ctx.get("seLinuxOptions", {}).get("role"):
                baseline.append("seLinux user/role")
        if sc.get("allowPrivilegeEscalation") is not False:
            restricted.append("allowPrivilegeEscalation")
        if not sc.get("runAsNonRoot", psc.get("runAsNonRoot")):
            restricted.append("runAsNonRoot")
        if sc.get("runAsUser", psc.get("runAsUser")) == 0:
            restricted.append("runAsUser 0")
        seccomp = sc.get("seccompProfile", psc.get("seccompProfile", {})).get("type")
        if seccomp == "Unconfined":
            baseline.append("seccomp Unconfined")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            restricted.append("seccomp")
    if baseline:
        return "privileged", baseline
    return ("baseline", restricted) if restricted else ("restricted", [])


def _stated_level(component):
    with open(ecolib.path("deploy", "components", component, "kustomization.yaml")) as f:
        text = f.read()
    found = re.findall(r"^# Pod Security: (privileged|baseline|restricted|unchanged)\b", text, re.M)
    assert len(found) == 1, "%s: no single '# Pod Security: <level>' line" % component
    return found[0]


def test_pod_security_level_written_per_component():
    """Every component says the Pod Security level its pods need, and that
    is the least level admitting the pod it renders (checked here against
    the standard's baseline and restricted rules); "unchanged" only where
    the pod is the base's own. The namespace the install creates enforces a
    level that admits them all."""
    base_ds = kr.by_key(kr.render_dir(ecolib.path("deploy")))[("DaemonSet", "plegscope")]
    base_level, why = pod_security_level(base_ds["spec"]["template"]["spec"])
    assert base_level == "privileged" and all(w.startswith("hostPath") for w in why), why
    namespace = kr.by_key(kr.render_dir(ecolib.path("deploy")))[("Namespace", "plegscope")]
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    for c in COMPONENTS:
        objects = kr.render(components=["deploy/components/" + c], files={"values.yaml": kr.values()})
        stated = _stated_level(c)
        for (kind, name), o in objects.items():
            if kind != "DaemonSet":
                continue
            level, why = pod_security_level(o["spec"]["template"]["spec"])
            if stated == "unchanged":
                # the base's level for the base's reasons (the hostPaths, whichever they are)
                assert (level, {w.split(" ")[0] for w in why}) == ("privileged", {"hostPath"}), (c, why)
            else:
                assert level == stated, (c, stated, level, why)
            print("%-24s %-10s %s" % (c, stated if stated != "unchanged" else "unchanged",
                                      "; ".join(sorted(set(w.split(" /")[0] for w in why)))[:110]))


def _container(objects, name="plegscope"):
    return objects[("DaemonSet", name)]["spec"]["template"]["spec"]["containers"][0]


def test_k3s_and_rke2_components_read_their_containerd_as_a_stock_one():
    """k3s and RKE2: the socket's directory mounted read-only at the host's
    own path (so a shim's -address, the host's path, names the agent's
    endpoint), `type: Directory` as the base's, the endpoint there, the
    runtime root of each; nothing else of the base changes."""
    base = kr.by_key(kr.render_dir(ecolib.path("deploy")))
    for component, root in (("k3s", "/var/lib/rancher/k3s/agent/containerd"),
                            ("rke2", "/var/lib/rancher/rke2/agent/containerd")):
        got = kr.render(components=["deploy/components/" + component])
        assert set(got) == set(base)
        changes = changed(base, got)
        ds = "DaemonSet/plegscope.spec.template.spec."
        assert changes == {ds + "volumes.0.hostPath.path", ds + "containers.0.volumeMounts.0.mountPath",
                           ds + "containers.0.env.2.value", ds + "containers.0.args"}, changes
        c = _container(got)
        env = {e["name"]: e.get("value") for e in c["env"]}
        assert env["PLEGSCOPE_CONTAINER_RUNTIME_ENDPOINT"] == "unix:///run/k3s/containerd/containerd.sock"
        (mount,) = [m for m in c["volumeMounts"] if m["name"] == "cri-socket-dir"]
        (vol,) = [v for v in got[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]["volumes"]
                  if v["name"] == "cri-socket-dir"]
        assert mount == {"name": "cri-socket-dir", "mountPath": "/run/k3s/containerd", "readOnly": True}, mount
        assert vol["hostPath"] == {"path": "/run/k3s/containerd", "type": "Directory"}, vol
        assert c["args"] == _container(base)["args"] + ["--runtime-root=" + root], c["args"]
        print("%s: endpoint %s, mount %s (host path), %s" % (
            component, env["PLEGSCOPE_CONTAINER_RUNTIME_ENDPOINT"], mount["mountPath"], c["args"][-1]))


def test_gke_component_lets_system_node_critical_run_in_the_namespace():
    base = kr.by_key(kr.render_dir(ecolib.path("deploy")))
    for extra in ({}, {"namespace": "obs"}):
        got = kr.render(components=["deploy/components/gke"], extra=extra)
        ds = got[("DaemonSet", "plegscope")]
        (quota,) = [o for k, o in got.items() if k[0] == "ResourceQuota"]
        assert quota["metadata"]["namespace"] == ds["metadata"]["namespace"]
        (expr,) = quota["spec"]["scopeSelector"]["matchExpressions"]
        assert expr == {"scopeName": "PriorityClass", "operator": "In",
                        "values": [ds["spec"]["template"]["spec"]["priorityClassName"]]}, expr
        assert expr["values"] == ["system-node-critical"]
        # a ceiling no cluster reaches (GKE: 65,000 nodes), never a limit on the agents
        assert quota["spec"]["hard"] == {"pods": "1G"}, quota["spec"]["hard"]
        if not extra:
            assert {k: v for k, v in got.items() if k[0] != "ResourceQuota"} == base


PASSWD_UID = 65532


def scc_admits(scc, pod):
    """Why SCC (a SecurityContextConstraints) refuses POD (a pod spec), as
    OpenShift's SCC admission checks each strategy ([] when it admits);
    fsGroup is what OpenShift would set (MustRunAs sets the range's min)."""
    why = []
    psc = pod.get("securityContext", {})
    for key, allow in (("hostPID", "allowHostPID"), ("hostIPC", "allowHostIPC"),
                       ("hostNetwork", "allowHostNetwork")):
        if pod.get(key) and not scc[allow]:
            why.append(key)
    for v in pod["volumes"]:
        (vtype,) = set(v) - {"name"}
        if vtype not in scc["volumes"] and "*" not in scc["volumes"]:
            why.append("volume type " + vtype)
        if vtype == "hostPath" and not scc["allowHostDirVolumePlugin"]:
            why.append("hostPath")
    sel = scc["seLinuxContext"]
    if sel["type"] == "MustRunAs":
        want = sel["seLinuxOptions"]
        got = psc.get("seLinuxOptions", {})
        if want.get("level") in (None, ""):
            why.append("SCC level from the namespace: the pod's options would have to repeat it")
        for key in ("user", "role", "type", "level"):
            if want.get(key, "") != got.get(key, ""):
                why.append("seLinux %s %r, SCC %r" % (key, got.get(key, ""), want.get(key, "")))
    for group_key, ids in (("supplementalGroups", psc.get("supplementalGroups", [])),
                           ("fsGroup", [psc["fsGroup"]] if "fsGroup" in psc else [])):
        strategy = scc[group_key]
        if strategy["type"] == "MustRunAs":
            for i in ids:
                if not any(r["min"] <= i <= r["max"] for r in strategy["ranges"]):
                    why.append("%s %d" % (group_key, i))
    profiles = scc.get("seccompProfiles") or []
    for c in pod["containers"]:
        sc = c.get("securityContext", {})
        if sc.get("privileged") and not scc["allowPrivilegedContainer"]:
            why.append("privileged")
        if sc.get("allowPrivilegeEscalation", True) and not scc.get("allowPrivilegeEscalation", True):
            why.append("allowPrivilegeEscalation")
        if scc["readOnlyRootFilesystem"] and not sc.get("readOnlyRootFilesystem"):
            why.append("readOnlyRootFilesystem")
        caps = sc.get("capabilities", {})
        for cap in caps.get("add", []):
            if cap not in scc["allowedCapabilities"] + scc["defaultAddCapabilities"]:
                why.append("capability " + cap)
        for cap in scc["requiredDropCapabilities"]:
            if cap not in caps.get("drop", []):
                why.append("must drop " + cap)
        if any(p.get("hostPort") for p in c.get("ports", [])) and not scc["allowHostPorts"]:
            why.append("hostPort")
        for uid in {psc.get("runAsUser"), sc.get("runAsUser", psc.get("runAsUser"))}:
            ru = scc["runAsUser"]
            if ru["type"] == "MustRunAs" and uid != ru["uid"]:
                why.append("uid %s" % uid)
            if ru["type"] == "MustRunAsRange" and not ru["uidRangeMin"] <= uid <= ru["uidRangeMax"]:
                why.append("uid %s" % uid)
            if ru["type"] == "MustRunAsNonRoot" and uid == 0:
                why.append("uid 0")
        seccomp = sc.get("seccompProfile", psc.get("seccompProfile", {})).get("type")
        name = {"RuntimeDefault": "runtime/default"}.get(seccomp, seccomp)
        if "*" not in profiles and name not in profiles:
            why.append("seccomp " + str(name))
    return why


def scc_unused(scc, pods):
    """What SCC allows that none of PODS asks for."""
    unused = []
    for key, allow in (("hostPID", "allowHostPID"), ("hostIPC", "allowHostIPC"),
                       ("hostNetwork", "allowHostNetwork")):
        if scc[allow] and not any(p.get(key) for p in pods):
            unused.append(allow)
    asked = {c for p in pods for k in p["containers"] for c in k.get("securityContext", {}).get(
        "capabilities", {}).get("add", [])}
    if set(scc["allowedCapabilities"]) - asked:
        unused.append("capabilities %s" % sorted(set(scc["allowedCapabilities"]) - asked))
    for key in ("allowPrivilegedContainer", "allowHostPorts", "allowPrivilegeEscalation"):
        if scc.get(key):
            unused.append(key)
    if scc["runAsUser"]["type"] == "RunAsAny" or scc["seLinuxContext"]["type"] == "RunAsAny":
        unused.append("RunAsAny")
    return unused


def scc_schema():
    import harness as h
    crd = ecolib.load_yaml(os.path.join(h.upstream_crds_dir(), "openshift",
                                        "security.openshift.io_securitycontextconstraints.yaml"))
    (v,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    assert v["served"] and crd["spec"]["scope"] == "Cluster"
    return crd["spec"]["group"], crd["spec"]["names"]["kind"], v["schema"]["openAPIV3Schema"]


def test_openshift_sccs_validate_against_the_upstream_crd():
    """Each SCC as rendered validates, strictly (an unknown field is an
    error), against openshift/api's SecurityContextConstraints CRD (v1,
    ../shared/crds/openshift); the same SCC broken one way each fails."""
    import schema_check
    group, kind, schema = scc_schema()
    for component in ("openshift", "openshift-kernel-stacks"):
        objects = kr.render(components=["deploy/components/" + component])
        sccs = [o for k, o in objects.items() if k[0] == "SecurityContextConstraints"]
        assert sccs, component
        for scc in sccs:
            assert scc["apiVersion"] == group + "/v1" and scc["kind"] == kind
            errors = schema_check.validate(scc, schema, strict=True)
            assert not errors, "%s: %s" % (scc["metadata"]["name"], errors)
            print("%s: %s valid against the upstream CRD (not checked: %s)" % (
                component, scc["metadata"]["name"], ", ".join(schema_check.ignored(schema))))
    scc = kr.render(components=["deploy/components/openshift"])[("SecurityContextConstraints", "plegscope")]
    for field, value in (("allowHostPID", "no"), ("allowHostDirVolumePlugins", True), ("volumes", "hostPath"),
                         ("runAsUser", {"type": "MustRunAs", "uid": "65532"})):
        broken = dict(scc, **{field: value})
        assert schema_check.validate(broken, schema, strict=True), "%s=%r passed" % (field, value)
    broken = {k: v for k, v in scc.items() if k != "allowHostPID"}
    assert schema_check.validate(broken, schema, strict=True), "a missing required field passed"


def test_openshift_scc_admits_exactly_the_daemonset():
    """The openshift component: the DaemonSet on CRI-O with spc_t at level
    s0; its SCC admits the pod and allows nothing the pod does not ask for
    (no host namespace, capability, port, privilege); the SCC refuses the
    pod as it would be without the component's settings (container_t, or
    with kernel-stacks' hostPID and capabilities); `use` of exactly that SCC
    is granted to the DaemonSet's ServiceAccount in its namespace. With
    openshift-kernel-stacks the pod is refused by the plain SCC and admitted
    by the kernel-stacks one, which allows nothing more than it asks."""
    objects = kr.render(components=["deploy/components/openshift"])
    ds = objects[("DaemonSet", "plegscope")]
    pod = ds["spec"]["template"]["spec"]
    scc = objects[("SecurityContextConstraints", "plegscope")]
    env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
    assert env["PLEGSCOPE_CONTAINER_RUNTIME_ENDPOINT"] == "unix:///run/crio/crio.sock"
    assert pod["securityContext"]["seLinuxOptions"] == {"type": "spc_t", "level": "s0"}
    admitted = dict(pod, securityContext=dict(pod["securityContext"], fsGroup=scc["fsGroup"]["ranges"][0]["min"]))
    assert scc_admits(scc, admitted) == [], scc_admits(scc, admitted)
    assert scc_unused(scc, [pod]) == [], scc_unused(scc, [pod])
    # every hostPath it allows is mounted read-only (an SCC cannot say so)
    ro = {m["name"] for m in pod["containers"][0]["volumeMounts"] if m.get("readOnly")}
    assert all(v["name"] in ro for v in pod["volumes"] if "hostPath" in v)
    plain = kr.by_key(kr.render_dir(ecolib.path("deploy")))[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]
    assert any(w.startswith("seLinux type") for w in scc_admits(scc, plain)), scc_admits(scc, plain)
    # the base's volume types, and hide-pod-logs' and web-auth's, are allowed; no other
    used = set()
    for c in ([], ["hide-pod-logs"], ["web-auth"]):
        p = kr.render(components=["deploy/components/openshift"] + ["deploy/components/" + x for x in c])[
            ("DaemonSet", "plegscope")]["spec"]["template"]["spec"]
        used |= {t for v in p["volumes"] for t in set(v) - {"name"}}
        assert not [w for w in scc_admits(scc, p) if w.startswith("volume")], (c, scc_admits(scc, p))
    assert set(scc["volumes"]) == used, (scc["volumes"], used)
    # RBAC: use of this SCC, by name, for the DaemonSet's ServiceAccount, in its namespace
    (binding,) = [o for k, o in objects.items() if k[0] == "RoleBinding" and o["roleRef"]["kind"] == "ClusterRole"
                  and "securitycontextconstraints" in str(objects[("ClusterRole", o["roleRef"]["name"])]["rules"])]
    role = objects[("ClusterRole", binding["roleRef"]["name"])]
    assert role["rules"] == [{"apiGroups": ["security.openshift.io"], "resources": ["securitycontextconstraints"],
                              "resourceNames": [scc["metadata"]["name"]], "verbs": ["use"]}], role["rules"]
    assert binding["metadata"]["namespace"] == ds["metadata"]["namespace"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": pod["serviceAccountName"],
                                    "namespace": ds["metadata"]["namespace"]}], binding["subjects"]

    ks = kr.render(components=["deploy/components/openshift-kernel-stacks"])
    kpod = ks[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]
    assert kpod["hostPID"] is True and "--kernel-stacks" in kpod["containers"][0]["args"]
    kpod_fs = dict(kpod, securityContext=dict(kpod["securityContext"], fsGroup=65532))
    plain_scc, ks_scc = ks[("SecurityContextConstraints", "plegscope")], \
        ks[("SecurityContextConstraints", "plegscope-kernel-stacks")]
    refused = scc_admits(plain_scc, kpod_fs)
    assert "hostPID" in refused and "capability BPF" in refused, refused
    assert scc_admits(ks_scc, kpod_fs) == [], scc_admits(ks_scc, kpod_fs)
    assert scc_unused(ks_scc, [kpod]) == [], scc_unused(ks_scc, [kpod])
    uses = {r["resourceNames"][0] for k, o in ks.items() if k[0] == "ClusterRole" for r in o["rules"]
            if "securitycontextconstraints" in r.get("resources", [])}
    assert uses == {"plegscope", "plegscope-kernel-stacks"}, uses
    print("openshift: SCC plegscope admits the pod (CRI-O, spc_t:s0, uid 65532, groups 0+4), allows nothing unused; "
          "kernel-stacks pod refused there (%s), admitted by plegscope-kernel-stacks" % ", ".join(refused))


if __name__ == "__main__":
    harness.main(globals())
