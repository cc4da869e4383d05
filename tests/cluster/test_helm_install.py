"""Helm users on the real one-node cluster: the chart deploy/helm/plegscope,
which scripts/helm-chart generates from deploy/ (tests/ecosystem/
test_helm_chart.py shows both render the same objects), installed with
Helm 4's `helm install` (built from helm.sh/helm/v4 by scripts/build-tools)
into a namespace created and labelled first, the image assembled from the
build's binary and imported as tests/cluster/install.py does for kustomize;
the cluster's differences from a node (the test containerd's socket dir,
the kubelet's port, no kube-proxy) patched onto the DaemonSet as the
kustomize overlay patches them. Asserted: the release `deployed`, its pod
Ready on the real node with the image asked for, its /diagnose answering for
that node; `helm uninstall` leaves none of its objects, cluster-scoped ones
included. The figures go to cluster-helm.json."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import install  # noqa: E402
import parts  # noqa: E402
import sidebyside as sbs  # noqa: E402
from cluster import Cluster  # noqa: E402


def test_helm_install_on_the_real_cluster():
    parts.tool("helm")  # before a cluster starts: a missing helm is a skip (a failure under CI)
    with install.image_meanwhile() as image, Cluster() as c:
        ref = install.import_image(c, image)
        install.apply_monitoring_crds(c)
        figures = install.helm_install(c, ref)
    out = os.environ.get("PLEGSCOPE_CLUSTER_OUT") or harness._log_directory()
    sbs.dump(os.path.join(out, "cluster-helm.json"), figures)


if __name__ == "__main__":
    harness.main(globals())
