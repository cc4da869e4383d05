"""The Helm chart deploy/helm/plegscope against the kustomize base it is
generated from (scripts/helm-chart): committed as the script renders it,
the same objects field for field from `helm template` as from `kubectl
kustomize deploy/`, also in another namespace (an overlay's `namespace:`
against the release's), the prometheus-operator objects switchable, and
`helm lint --strict` without a warning. Helm 4 is built from helm.sh/helm/v4
by scripts/build-tools into the cache outside the clone."""
import os
import subprocess
import sys

import yaml

import ecolib
import harness
import kustomize_render

sys.path.insert(0, ecolib.path("tests", "cluster"))
import parts  # noqa: E402  tests/cluster

CHART = ecolib.path("deploy", "helm", "plegscope")


def helm(*args):
    out = subprocess.run([parts.tool("helm")] + list(args), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, "helm %s: %s" % (" ".join(args), out.stderr.strip() or out.stdout.strip())
    return out.stdout


def helm_objects(namespace, *values):
    args = ["template", "plegscope", CHART, "--namespace", namespace]
    for v in values:
        args += ["--set", v]
    return kustomize_render.by_key(d for d in yaml.safe_load_all(helm(*args)) if d)


def test_the_committed_chart_is_what_the_script_renders():
    env = dict(os.environ, PLEGSCOPE_KUBECTL=kustomize_render.kubectl())
    out = subprocess.run([sys.executable, ecolib.path("scripts", "helm-chart"), "--check"], capture_output=True,
                         text=True, timeout=120, env=env)
    assert out.returncode == 0, "deploy/helm/plegscope is stale: run scripts/helm-chart\n" + out.stdout[-3000:]


def test_helm_and_kustomize_render_the_same_objects():
    base = kustomize_render.by_key(kustomize_render.render_dir(ecolib.path("deploy")))
    chart = helm_objects("plegscope", "namespace.create=true")
    assert sorted(chart) == sorted(base), (sorted(chart), sorted(base))
    for key in base:
        assert chart[key] == base[key], "%s %s differs:\nhelm: %s\nkustomize: %s" % (
            key[0], key[1], yaml.safe_dump(chart[key])[:3000], yaml.safe_dump(base[key])[:3000])
    print("  %d objects equal: %s" % (len(base), ", ".join("%s/%s" % k for k in sorted(base))))
    # The alert templates reach Prometheus as written, not as Helm read them.
    rules = chart[("PrometheusRule", "plegscope")]["spec"]["groups"]
    assert any("{{ $labels." in r.get("annotations", {}).get("summary", "") for g in rules for r in g["rules"])


def test_the_release_namespace_is_the_overlays_namespace():
    with kustomize_render.Overlay(extra={"namespace": "obs"}) as overlay:
        base = kustomize_render.by_key(overlay.render())
    chart = helm_objects("obs", "namespace.create=true")
    assert chart == base, [k for k in base if chart.get(k) != base[k]]
    subjects = chart[("ClusterRoleBinding", "plegscope")]["subjects"]
    assert subjects == [{"kind": "ServiceAccount", "name": "plegscope", "namespace": "obs"}], subjects


def test_values_switch_the_optional_objects_and_the_image():
    default = helm_objects("plegscope")
    assert ("Namespace", "plegscope") not in default  # helm install needs it beforehand
    assert ("PodMonitor", "plegscope") in default and ("PrometheusRule", "plegscope") in default
    bare = helm_objects("plegscope", "podMonitor.enabled=false", "prometheusRule.enabled=false",
                        "image.repository=registry.local:5000/plegscope", "image.tag=0.1.0-rc1")
    assert not {("PodMonitor", "plegscope"), ("PrometheusRule", "plegscope")} & set(bare), sorted(bare)
    (container,) = [c for c in bare[("DaemonSet", "plegscope")]["spec"]["template"]["spec"]["containers"]
                    if c["name"] == "plegscope"]
    assert container["image"] == "registry.local:5000/plegscope:0.1.0-rc1", container["image"]


def test_helm_lint_is_clean():
    out = helm("lint", "--strict", CHART)
    print("  " + out.strip().replace("\n", "\n  "))
    assert "0 chart(s) failed" in out, out
    assert "[WARNING]" not in out and "[ERROR]" not in out, out
    version = helm("version", "--template", "{{ .Version }}").strip()
    assert version.startswith("v4."), version


if __name__ == "__main__":
    harness.main(globals())
