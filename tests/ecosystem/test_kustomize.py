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
    for c in ("cluster-values", "kube-prometheus-stack", "prometheus-agents"):
        with kr.Overlay(components=["deploy/components/" + c]) as o:
            err = o.error()
        assert "plegscope-cluster-values" in err, (c, err)


def test_prometheus_agents_component():
    """An agent evaluates no rule: no PrometheusRule; every scraped series
    carries the cluster's name."""
    base = kr.by_key(kr.render_dir(ecolib.path("deploy")))
    got = with_values(["deploy/components/prometheus-agents"], cluster="eu-west-7")
    assert {k for k in base if k[0] == "PrometheusRule"} and not {k for k in got if k[0] == "PrometheusRule"}
    assert set(base) - set(got) == {k for k in base if k[0] == "PrometheusRule"}
    want = copy.deepcopy(base[("PodMonitor", "plegscope")])
    want["spec"]["podMetricsEndpoints"][0]["relabelings"].append(
        {"action": "replace", "targetLabel": "cluster", "replacement": "eu-west-7"})
    assert got[("PodMonitor", "plegscope")] == want
    for k in got:
        if k[0] != "PodMonitor":
            assert got[k] == base[k], k


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


if __name__ == "__main__":
    harness.main(globals())
