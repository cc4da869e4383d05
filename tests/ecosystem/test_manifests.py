"""deploy/: every manifest parses and has what the issue asks for; the
PrometheusRules come from mixin/ (test_mixin.py); the
Dockerfile is multi-stage on Debian slim and builds with CMake."""
import os
import re

import ecolib
import harness


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
    # probes: liveness on /livez only, readiness on /readyz.
    assert c["livenessProbe"]["httpGet"]["path"] == "/livez"
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
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
    job = labels.get(pm["spec"].get("jobLabel", ""), "%s/%s" % (pm["metadata"]["namespace"], pm["metadata"]["name"]))
    assert job == "plegscope", job  # the mixin's default plegscopeSelector: job="plegscope"
    sa = the("ServiceAccount")
    assert sa.get("automountServiceAccountToken") is False


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


def test_dockerfile_multistage_debian_slim_cmake():
    text = open(ecolib.path("deploy/Dockerfile")).read()
    froms = re.findall(r"^FROM\s+(\S+)", text, re.M)
    assert len(froms) >= 2, froms
    assert all(f.startswith("debian:") and "slim" in f for f in froms), froms
    assert "cmake -S" in text and "cmake --build" in text
    assert re.search(r"^COPY --from=", text, re.M)
    assert re.search(r'^ENTRYPOINT \["/usr/bin/plegscope"\]', text, re.M)


if __name__ == "__main__":
    harness.main(globals())
