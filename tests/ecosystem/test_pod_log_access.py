"""What the DaemonSet's identity (uid 65532, group 0, supplementary group 4,
every capability dropped, no_new_privs) reads of the pods' logs that the
/var/log mount shows it, measured with setpriv on a tree laid out with the
modes the kubelet 1.34 and containerd give it:

  /var/log/pods                          0750 root:root (kubelet setupDataDirs; 0755 where an
                                         older kubelet made it)
  /var/log/pods/<ns>_<pod>_<uid>         0755 root:root (kubelet, the sandbox's log directory)
  /var/log/pods/.../<container>          0755 root:root (kubelet, the container's)
  /var/log/pods/.../<container>/0.log    0640 root:root (containerd's CRI opens it so)
  /var/log/containers                    0755 root:root, symlinks to those files (kubelet)

and what the component hide-pod-logs changes: an empty directory mounted
over both, as the runtime mounts the DaemonSet's emptyDir volumes over the
/var/log bind mount (a mount namespace of its own here)."""
import os
import shutil
import subprocess
import tempfile

import ecolib
import harness

LINE = "password=hunter2 printed by an app\n"
IDENTITY = ["--reuid", "65532", "--regid", "0", "--groups", "4"]
WITHOUT_GROUP_0 = ["--reuid", "65532", "--regid", "65532", "--groups", "4"]


def setpriv(identity, *cmd):
    return subprocess.run(["setpriv"] + identity + ["--inh-caps", "-all", "--bounding-set", "-all",
                                                    "--no-new-privs", "--"] + list(cmd),
                          capture_output=True, text=True, timeout=30)


def pod_log_tree(var_log, pods_mode):
    pods = os.path.join(var_log, "pods")
    container = os.path.join(pods, "shop_cart-7_0f3c1d2e", "cart")
    os.makedirs(container)
    for d, mode in ((pods, pods_mode), (os.path.dirname(container), 0o755), (container, 0o755)):
        os.chmod(d, mode)
    log = os.path.join(container, "0.log")
    with open(log, "w") as f:
        f.write(LINE)
    os.chmod(log, 0o640)
    containers = os.path.join(var_log, "containers")
    os.makedirs(containers)
    os.chmod(containers, 0o755)
    link = os.path.join(containers, "cart-7_shop_cart-4b1d.log")
    os.symlink(log, link)
    for p in (var_log, pods, os.path.dirname(container), container, log, containers):
        os.chown(p, 0, 0, follow_symlinks=False)
    return log, link


def require_root_and_setpriv():
    if os.geteuid() != 0:
        raise harness.Skip("needs root (a tree owned by root:root, setpriv to another uid)")
    harness.require_tool("setpriv")


def test_the_shipped_identity_reads_every_pod_log():
    """Group 0 is in the identity for the runtime's root:root 0660 socket; the
    same group reads containerd's root:root 0640 log files."""
    require_root_and_setpriv()
    ds = ecolib.load_yaml("deploy/daemonset.yaml")["spec"]["template"]["spec"]["securityContext"]
    assert (ds["runAsUser"], ds["runAsGroup"], ds["supplementalGroups"]) == (65532, 0, [4]), ds
    for pods_mode in (0o750, 0o755):
        tmp = tempfile.mkdtemp(prefix="plegscope-podlogs-")
        try:
            os.chmod(tmp, 0o755)
            log, link = pod_log_tree(os.path.join(tmp, "var-log"), pods_mode)
            for path in (log, link):
                r = setpriv(IDENTITY, "cat", path)
                assert r.returncode == 0 and r.stdout == LINE, (oct(pods_mode), path, r.stderr)
            r = setpriv(IDENTITY, "ls", os.path.dirname(os.path.dirname(log)))
            assert r.returncode == 0 and "cart" in r.stdout, r.stderr
            r = setpriv(WITHOUT_GROUP_0, "cat", log)
            assert r.returncode != 0 and "Permission denied" in r.stderr, (oct(pods_mode), r.stdout, r.stderr)
            print("pods root %s: uid 65532 gid 0 groups [4] read %s and its /var/log/containers link; "
                  "without group 0: %s" % (oct(pods_mode), os.path.basename(log), r.stderr.strip()))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def test_hide_pod_logs_component_leaves_nothing_to_read():
    """/var/log read-only, then an empty directory over pods and containers
    (the component's emptyDir volumes): the identity finds both empty, and
    the journal beside them still reads."""
    require_root_and_setpriv()
    harness.require_tool("unshare")
    tmp = tempfile.mkdtemp(prefix="plegscope-podlogs-")
    try:
        os.chmod(tmp, 0o755)
        host = os.path.join(tmp, "host-var-log")
        log, _ = pod_log_tree(host, 0o750)
        journal = os.path.join(host, "journal")
        os.makedirs(journal)
        with open(os.path.join(journal, "system.journal"), "w") as f:
            f.write("LPKSHHRH")
        os.chmod(os.path.join(journal, "system.journal"), 0o644)
        seen = os.path.join(tmp, "var-log")
        os.makedirs(seen)
        empty = os.path.join(tmp, "empty")
        os.makedirs(empty)
        script = ("mount --bind {h} {s} && mount -o remount,bind,ro {s} && "
                  "mount --bind {e} {s}/pods && mount --bind {e} {s}/containers && "
                  "setpriv {ident} --inh-caps -all --bounding-set -all --no-new-privs -- "
                  "sh -c 'ls -A {s}/pods {s}/containers; cat {s}/journal/system.journal; echo; "
                  "cat {s}/pods/*/*/0.log 2>&1 || true'").format(h=host, s=seen, e=empty, ident=" ".join(IDENTITY))
        r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        assert LINE.strip() not in r.stdout and "LPKSHHRH" in r.stdout, r.stdout
        assert "No such file" in r.stdout, r.stdout
        spec = ecolib.load_yaml("deploy/components/hide-pod-logs/kustomization.yaml")
        text = str(spec)
        assert "/var/log/pods" in text and "/var/log/containers" in text and "emptyDir" in text, spec
        print("with the component: pods/ and containers/ empty, the journal read: %r" % r.stdout.strip())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    harness.main(globals())
