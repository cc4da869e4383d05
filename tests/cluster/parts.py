"""Where the real Kubernetes parts are: the cache scripts/build-cluster-parts
fills, keyed by the versions in tests/cluster/versions.env, one row per kubelet
release (env PLEGSCOPE_KUBERNETES, default 1.37; 1.36 and 1.34 are matrix rows)."""

import os
import subprocess

import harness  # tests/lib

HERE = os.path.dirname(os.path.abspath(__file__))


ROWS = ("1.34", "1.36", "1.37")
DEFAULT_ROW = "1.37"
KEYS = ("KUBERNETES_VERSION", "ETCD_VERSION", "CRICTL_VERSION", "KWOK_VERSION")


def row():
    """The row the tests run: env PLEGSCOPE_KUBERNETES (1.34, 1.36 or 1.37), by default 1.37."""
    return harness.env_choice("PLEGSCOPE_KUBERNETES", ROWS, DEFAULT_ROW)


def all_versions():
    """Every key of versions.env as written (rows as suffixed keys)."""
    return harness.read_env_file(os.path.join(HERE, "versions.env"))


def versions(name=None):
    """{KUBERNETES_VERSION, ETCD_VERSION, CRICTL_VERSION, KWOK_VERSION} of one row (by default
    row()), under the plain keys whatever the row."""
    name = name or row()
    every = all_versions()
    if name == DEFAULT_ROW:
        return {k: every[k] for k in KEYS}
    suffix = "_" + name.replace(".", "_")
    return {k: every[k + suffix] for k in KEYS}


def kubelet_minor(name=None):
    """The row's minor release as an int (34 for v1.34.4)."""
    return int(versions(name)["KUBERNETES_VERSION"].lstrip("v").split(".")[1])


def cache_dir():
    base = os.environ.get("PLEGSCOPE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "plegscope")
    return os.path.join(base, "cluster")


def crictl():
    """The cached crictl's path, or None when it is not built."""
    path = os.path.join(cache_dir(), "crictl-" + versions()["CRICTL_VERSION"], "bin", "crictl")
    return path if os.access(path, os.X_OK) else None


CLUSTER = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kubectl")


def binaries(required=CLUSTER):
    """{name: path} of every part; raises harness.Skip (a failure under CI)
    naming the build command when one of REQUIRED is missing."""
    v = versions()
    c = cache_dir()
    out = {b: os.path.join(c, "kubernetes-" + v["KUBERNETES_VERSION"], "bin", b)
           for b in ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kubectl")}
    out["etcd"] = os.path.join(c, "etcd-" + v["ETCD_VERSION"], "bin", "etcd")
    out["crictl"] = os.path.join(c, "crictl-" + v["CRICTL_VERSION"], "bin", "crictl")
    out["kwok"] = os.path.join(c, "kwok-" + v["KWOK_VERSION"], "bin", "kwok")
    missing = [out[n] for n in required if not os.access(out[n], os.X_OK)]
    if missing:
        raise harness.Skip("the real cluster parts are not built (%s): run PLEGSCOPE_KUBERNETES=%s "
                           "scripts/build-cluster-parts" % (", ".join(missing), row()))
    return out


def version_of(path):
    r = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    return (r.stdout or r.stderr).strip().splitlines()[0] if (r.stdout or r.stderr).strip() else ""


def tool(name):
    """The path of a Go-built tool scripts/build-tools keeps in the cache
    (helm, cosign, registry), by the versions in scripts/tools.env; raises
    harness.Skip (a failure under CI) naming the build command when missing."""
    env = {}
    with open(os.path.join(HERE, "..", "..", "scripts", "tools.env")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                env[k] = v
    base = os.environ.get("PLEGSCOPE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "plegscope")
    path = os.path.join(base, "tools", "%s-%s" % (name, env[name.upper() + "_VERSION"]), "bin", name)
    if not os.access(path, os.X_OK):
        raise harness.Skip("%s is not built (%s): run scripts/build-tools %s" % (name, path, name))
    return path
