"""`kubectl kustomize` with the kubectl 1.34 the cluster tests build (kustomize
v5: components, replacements, configurations), found the way
tests/cluster/parts.py finds it. Debian's kubectl 1.20 bundles kustomize
2.0, which has neither components nor replacements, so it is not used: a
missing part is a skip, and a failure under CI (scripts/build-cluster-parts
builds it)."""
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

import ecolib

sys.path.insert(0, ecolib.path("tests", "cluster"))
import parts  # noqa: E402  tests/cluster


def kubectl():
    return parts.binaries(("kubectl",))["kubectl"]


def render_dir(directory):
    """The objects kustomize renders from DIRECTORY, in its order."""
    out = subprocess.run([kubectl(), "kustomize", directory], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, "kubectl kustomize %s: %s" % (directory, out.stderr.strip())
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def render_error(directory):
    """kustomize's error for DIRECTORY (the render must fail)."""
    out = subprocess.run([kubectl(), "kustomize", directory], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0, "kubectl kustomize %s rendered, expected an error" % directory
    return out.stderr.strip()


def by_key(objects):
    out = {}
    for d in objects:
        key = (d["kind"], d["metadata"]["name"])
        assert key not in out, "two %s %s" % key
        out[key] = d
    return out


class Overlay:
    """A throwaway overlay directory: `resources` and `components` are paths
    from the repository root, `files` {name: object} written beside the
    kustomization and listed as resources, `extra` more kustomization fields."""

    def __init__(self, resources=("deploy",), components=(), files=None, extra=None):
        self.work = tempfile.mkdtemp(prefix="plegscope-overlay-")
        self.dir = os.path.join(self.work, "overlay")
        os.makedirs(self.dir)
        rel = lambda p: os.path.relpath(ecolib.path(p), self.dir)  # noqa: E731 - kustomize wants relative paths
        doc = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
               "resources": [rel(r) for r in resources]}
        for name, obj in (files or {}).items():
            with open(os.path.join(self.dir, name), "w") as f:
                yaml.safe_dump(obj, f)
            doc["resources"].append(name)
        if components:
            doc["components"] = [rel(c) for c in components]
        doc.update(extra or {})
        with open(os.path.join(self.dir, "kustomization.yaml"), "w") as f:
            yaml.safe_dump(doc, f)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.work, ignore_errors=True)
        return False

    def render(self):
        return render_dir(self.dir)

    def error(self):
        return render_error(self.dir)


def render(resources=("deploy",), components=(), files=None, extra=None):
    """{(kind, name): object} of an overlay (see Overlay)."""
    with Overlay(resources, components, files, extra) as o:
        return by_key(o.render())


def values(**changes):
    """deploy/components/cluster-values/values.yaml with its REQUIRED values
    set to the base's own and CHANGES applied: dotted paths under spec, e.g.
    values(**{"prometheus.namespace": "obs"})."""
    doc = ecolib.load_yaml("deploy/components/cluster-values/values.yaml")
    for key, value in REQUIRED.items():
        assert doc["spec"][key] is None, "%s is no longer shipped empty" % key
        doc["spec"][key] = value
    for dotted, value in changes.items():
        node = doc["spec"]
        *parents, leaf = dotted.split(".")
        for p in parents:
            node = node[p]
        assert leaf in node, dotted
        node[leaf] = value
    return doc


# The values values.yaml ships empty (REQUIRED: an unedited copy stops the
# render), set here to the base install's own, so that a render with
# values() reproduces the base.
REQUIRED = {"apiServerSources": [{"ipBlock": {"cidr": "192.0.2.0/24"}}]}


def shipped_values():
    """deploy/components/cluster-values/values.yaml as shipped, unedited."""
    return ecolib.load_yaml("deploy/components/cluster-values/values.yaml")
