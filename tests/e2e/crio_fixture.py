"""A private CRI-O for the e2e tests.

Starts CRI-O (built from its Go module by scripts/build-crio, cached outside
the clone) as root with everything of its own under one temp dir: the CRI
socket, containers-storage root and runroot (vfs), the OCI runtime's root, conmon's exit
and attach dirs, the namespaces pinned by pinns, the pod logs, version and
shutdown files, its config (an empty crio.conf plus one drop-in), the
registries, storage and signature policy files, and its metrics page on a
loopback port. Debian's conmon monitors the containers, crun (built from Debian's
source) runs them, or runc on the 1.34 row (env PLEGSCOPE_CRIO, bed()). Images are built
locally (oci_image.py) and copied into that storage with CRI-O's own copier
(copyimg, from the same module): nothing is pulled.

Reuses the containerd fixture for what does not depend on the runtime: the
CRI driver, the list and status calls, the teardown of containers, mounts and
cgroups. What differs: CRI-O runs one conmon per container (with the pod
named in its -n argument) in crio-conmon-<id> beside the container's
crio-<id> cgroup, and conmon, not a shim, outlives a stopped CRI-O.

Usage:
    skip = crio_fixture.skip_reason()   # None, or why this machine can't
    with Crio(build_dir) as crio:
        crio.load_images()
        sid = crio.driver("run-pod", "name", "uid")
"""

import collections
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import cgroups
import containerd_fixture as base
import harness  # tests/lib
import oci_image


def log(msg):
    print("[crio] " + msg, flush=True)


TMP_PREFIX = "pscrio-"


# One CRI-O bed (env PLEGSCOPE_CRIO): the CRI-O version (a row of runtimes.env) and the
# OCI runtime it runs by default. Debian's conmon monitors the containers in every bed.
CrioBed = collections.namedtuple("CrioBed", "name crio_version runtime runtime_path build_hint")

BEDS = ("1.36", "1.36-runc", "1.34")
DEFAULT_BED = "1.36"


def bed_name():
    """The bed the tests run: env PLEGSCOPE_CRIO (1.36, 1.36-runc or 1.34), by default 1.36."""
    return harness.env_choice("PLEGSCOPE_CRIO", BEDS, DEFAULT_BED)


def crun_path():
    """crun built from Debian's source by scripts/build-crun (runtimes.env's CRUN_VERSION)."""
    upstream = base.pinned_versions()["CRUN_VERSION"].split("-")[0]
    return os.path.join(base.cache_dir(), "crun-" + upstream, "bin", "crun")


def bed(name=None):
    name = name or bed_name()
    v = base.pinned_versions()
    if name == "1.34":
        return CrioBed(name, v["CRIO_VERSION_1_34"], "runc", base.shutil.which("runc") or "/usr/sbin/runc",
                       "PLEGSCOPE_CRIO=1.34 scripts/build-crio; Debian's runc")
    if name == "1.36-runc":
        return CrioBed(name, v["CRIO_VERSION"], "runc", base.bed("2.3").runc,
                       "scripts/build-crio; runc from scripts/build-runtimes")
    return CrioBed(name, v["CRIO_VERSION"], "crun", crun_path(),
                   "scripts/install-deps test runs scripts/build-crio and scripts/build-crun")


def crio_dir(b=None):
    """Where scripts/build-crio keeps the bed's binaries (the cache, by version)."""
    src = os.environ.get("PLEGSCOPE_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                 "..", "..")
    env = dict(os.environ, CRIO_VERSION=(b or bed()).crio_version)
    r = subprocess.run([os.path.join(src, "scripts", "build-crio"), "--print-dir"], capture_output=True, text=True,
                       env=env)
    return r.stdout.strip()


def skip_reason():
    """Why this machine cannot run the CRI-O e2e, or None."""
    if os.geteuid() != 0:
        return "not root (CRI-O and its OCI runtime need root)"
    b = bed()
    d = crio_dir(b)
    for exe in ("crio", "pinns", "copyimg"):
        if not os.access(os.path.join(d, exe), os.X_OK):
            return "%s/%s not built (bed %s: %s)" % (d, exe, b.name, b.build_hint)
    if not os.access(b.runtime_path, os.X_OK):
        return "%s not found (bed %s: %s)" % (b.runtime_path, b.name, b.build_hint)
    if base.shutil.which("conmon") is None:
        return "conmon not found in PATH (Debian package conmon)"
    return None


def runtime_version(b=None):
    """"crun version 1.8.1" / "runc version 1.1.5" (first line) gives 1.8.1 / 1.1.5."""
    b = b or bed()
    first = (base._version_of([b.runtime_path, "--version"]).splitlines() or [""])[0].split()
    return first[2] if len(first) > 2 else " ".join(first)


def bed_description(b=None):
    """"CRI-O 1.36.3 + crun 1.8.1 (bed 1.36)", for the tests' logs and tables."""
    b = b or bed()
    return "CRI-O %s + %s %s (bed %s)" % (crio_version(b), b.runtime, runtime_version(b), b.name)


def crio_version(b=None):
    r = subprocess.run([os.path.join(crio_dir(b), "crio"), "--version"], capture_output=True, text=True)
    for line in r.stdout.splitlines():  # "crio version 1.34.0"
        if line.startswith("crio version") or line.strip().startswith("Version:"):
            return line.split()[-1]
    return r.stdout.strip()


class Crio(base.Containerd):
    runtime = "cri-o"

    def __init__(self, build_dir, sandbox_image=oci_image.PAUSE_IMAGE, _adopt=None):
        self.crio_bed = bed()
        self.bin_dir = crio_dir(self.crio_bed)
        # The OCI runtime CRI-O runs the containers with (crun by default, runc on the 1.34 row).
        self.oci_runtime = self.crio_bed.runtime
        self.runtime_path = self.crio_bed.runtime_path
        self.storage_driver = os.environ.get("PLEGSCOPE_E2E_CRIO_STORAGE", "vfs")
        if _adopt is None:
            self._reap_stale()
            tmp = tempfile.mkdtemp(prefix=TMP_PREFIX, dir="/tmp")
        else:
            tmp = _adopt
        # The containerd fixture lays out the temp dir, the socket and the
        # teardown bookkeeping; the config is CRI-O's own (_write_config).
        super().__init__(build_dir, sandbox_image=sandbox_image, snapshotter="native", _adopt=tmp)
        self.sock = os.path.join(self.tmp, "crio.sock")
        self.endpoint = "unix://" + self.sock
        self.config_path = os.path.join(self.tmp, "crio.conf")
        self.metrics_url = "http://%s/metrics" % self.metrics_address
        self.log_path = os.path.join(self.tmp, "crio.log")
        self.cgroup_parent = "/plegscope-crio-" + self.name
        self.exits_dir = os.path.join(self.tmp, "exits")
        # No /run/containerd dirs of ours to remove: CRI-O keeps all under tmp.
        self._run_dirs_existed = {"/run/containerd/s": True, "/run/containerd": True}
        if _adopt is None:
            self.stale_containerd_pid = None
            self._write_owner(None)
            self._write_config()

    @classmethod
    def _reap_stale(cls):
        for d in glob.glob(os.path.join("/tmp", TMP_PREFIX + "*")):
            try:
                with open(os.path.join(d, "owner.json")) as f:
                    owner = json.load(f).get("owner_pid")
            except (OSError, ValueError):
                continue
            if owner and base._alive(owner):
                continue
            log("reaping a stale e2e CRI-O left in %s" % d)
            cls("", _adopt=d).cleanup()

    # -- configuration ---------------------------------------------------
    def _hybrid_crun_wrapper(self):
        """crun (1.9 and later) refuses a hybrid cgroup host whose v2 hierarchy has controllers
        ("cgroups in hybrid mode not supported, drop all controllers from cgroupv2"): this
        machine's /sys/fs/cgroup/unified has hugetlb, which no v1 hierarchy mounts. On such a
        host crun runs through a wrapper, in a mount namespace of its own where the unified
        hierarchy is unmounted, so that it sees a cgroup v1 host and puts the containers in
        the v1 hierarchies as runc does. Nothing of the host's mounts changes. Returns the
        runtime path the config names."""
        unified = "/sys/fs/cgroup/unified"
        try:
            with open(os.path.join(unified, "cgroup.controllers")) as f:
                controllers = f.read().split()
        except OSError:
            controllers = []
        if self.oci_runtime != "crun" or not os.path.ismount(unified) or not controllers:
            return self.crio_bed.runtime_path
        wrapper = os.path.join(self.tmp, "crun-v1")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\n# crun with %s unmounted in its own mount namespace (hybrid host with %s on v2)\n"
                    "exec unshare -m --propagation private sh -c 'umount -l %s && exec \"$0\" \"$@\"' %s \"$@\"\n"
                    % (unified, ",".join(controllers), unified, self.crio_bed.runtime_path))
        os.chmod(wrapper, 0o755)
        return wrapper

    def _write_config(self):
        t = self.tmp
        self.runtime_path = self._hybrid_crun_wrapper()
        for d in ("root", "runroot", self.oci_runtime, "exits", "attach", "ns", "logs", "hooks", "cdi", "cni/conf",
                  "crio.conf.d", "lib", "run"):
            os.makedirs(os.path.join(t, d), exist_ok=True)
        base.write_node_network(os.path.join(t, "cni", "conf"))
        with open(self.config_path, "w") as f:
            f.write("# every setting is in crio.conf.d/\n")
        with open(os.path.join(t, "policy.json"), "w") as f:
            json.dump({"default": [{"type": "insecureAcceptAnything"}]}, f)
        with open(os.path.join(t, "registries.conf"), "w") as f:
            f.write("unqualified-search-registries = []\n")
        with open(os.path.join(t, "storage.conf"), "w") as f:
            f.write('[storage]\ndriver = "%s"\ngraphroot = "%s/root"\nrunroot = "%s/runroot"\n'
                    % (self.storage_driver, t, t))
        host, port = self.metrics_address.split(":")
        dropin = f"""[crio]
root = "{t}/root"
runroot = "{t}/runroot"
storage_driver = "{self.storage_driver}"
log_dir = "{t}/logs"
version_file = "{t}/run/version"
version_file_persist = "{t}/lib/version"
clean_shutdown_file = "{t}/lib/clean.shutdown"

[crio.api]
listen = "{self.sock}"
stream_address = "127.0.0.1"
stream_port = "0"

[crio.runtime]
default_runtime = "{self.oci_runtime}"
cgroup_manager = "cgroupfs"
conmon_cgroup = "pod"
selinux = false
container_exits_dir = "{self.exits_dir}"
container_attach_socket_dir = "{t}/attach"
namespaces_dir = "{t}/ns"
pinns_path = "{self.bin_dir}/pinns"
hooks_dir = ["{t}/hooks"]
cdi_spec_dirs = ["{t}/cdi"]
irqbalance_config_file = "{t}/irqbalance"
irqbalance_config_restore_file = "disable"
log_level = "info"

[crio.runtime.runtimes.{self.oci_runtime}]
runtime_path = "{self.runtime_path}"
runtime_type = "oci"
runtime_root = "{t}/{self.oci_runtime}"
monitor_path = "{base.shutil.which('conmon') or '/usr/bin/conmon'}"
monitor_cgroup = "pod"

[crio.image]
pause_image = "{self.sandbox_image}"
# No signature policy: CRI-O then checks no image against one when it
# creates a container (a policy needs the kubelet's user_specified_image,
# which the test's CRI driver does not send); nothing is pulled anyway.
signature_policy_dir = "{t}/policies"

[crio.network]
network_dir = "{t}/cni/conf"
plugin_dirs = ["/usr/lib/cni"]

[crio.metrics]
enable_metrics = true
metrics_host = "{host}"
metrics_port = {port}

[crio.nri]
enable_nri = false
"""
        with open(os.path.join(t, "crio.conf.d", "10-plegscope-e2e.conf"), "w") as f:
            f.write(dropin)

    def _env(self):
        return dict(os.environ, CONTAINERS_REGISTRIES_CONF=os.path.join(self.tmp, "registries.conf"),
                    CONTAINERS_STORAGE_CONF=os.path.join(self.tmp, "storage.conf"))

    # -- lifecycle ---------------------------------------------------------
    def start(self, timeout=60):
        if self.proc is not None and self.proc.poll() is None:
            return
        self._log_file = open(self.log_path, "ab")
        argv = [os.path.join(self.bin_dir, "crio"), "--config", self.config_path,
                "--config-dir", os.path.join(self.tmp, "crio.conf.d")]
        self.proc = subprocess.Popen(argv, stdout=self._log_file, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True, env=self._env(),
                                     preexec_fn=base._die_with_parent)
        self._wait_for_cri("crio", timeout)

    def stop(self, timeout=30, sig=signal.SIGTERM):
        """Stops crio (SIG, then SIGKILL). conmon and the containers keep
        running; storage and state are kept for a restart."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.send_signal(signal.SIGCONT)  # a crio stopped by a test handles SIGTERM only once continued
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        log("crio pid %d stopped (exit %s)" % (self.proc.pid, self.proc.returncode))
        self.proc = None
        if self._log_file:
            self._log_file.close()
            self._log_file = None

    def _run_driver(self, args, timeout=60):
        # Pods as the kubelet runs them without shareProcessNamespace (PID
        # namespace per container): CRI-O then runs no infra container, as
        # with drop_infra_ctr on a node, and none needs a pause process.
        env = dict(os.environ, CRI_CGROUP_PARENT=self.cgroup_parent, CRI_SANDBOX_PID="container")
        try:
            return subprocess.run([self.driver_bin, "--endpoint", self.endpoint, "--timeout", str(int(timeout))]
                                  + list(args), capture_output=True, text=True, env=env, timeout=timeout + 5)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(args, 124, "", "cri-driver timed out")

    # -- images --------------------------------------------------------------
    def import_image(self, tarball, name):
        """Copies an OCI archive into CRI-O's storage as NAME, with CRI-O's own
        copier (CRI-O need not run; its next image call sees it)."""
        r = subprocess.run([os.path.join(self.bin_dir, "copyimg"), "--root", os.path.join(self.tmp, "root"),
                            "--runroot", os.path.join(self.tmp, "runroot"), "--storage-driver", self.storage_driver,
                            "--signature-policy", os.path.join(self.tmp, "policy.json"),
                            "--image-name", name, "--import-from", "oci-archive:" + tarball],
                           capture_output=True, text=True, env=self._env(), timeout=120)
        if r.returncode != 0:
            raise RuntimeError("copyimg %s failed: %s" % (name, (r.stderr or r.stdout).strip()))

    def load_images(self):
        for name, tarball in oci_image.build_e2e_images(os.path.join(self.tmp, "images")).items():
            self.import_image(tarball, name)

    # -- processes and cgroups --------------------------------------------------
    def container_pids(self, cid=None):
        """PIDs in one container's cgroup (crio-<id>), or in every cgroup under our parent."""
        return cgroups.pids(self.cgroup_parent, "crio-" + cid if cid else None)

    def conmon_pids(self):
        """[(pid, container id, -n name)] of the conmons serving our CRI-O."""
        out = []
        for pid, argv in base._processes():
            if not argv or not argv[0].endswith(b"conmon"):
                continue
            args = [a.decode(errors="replace") for a in argv]
            if self.exits_dir not in args:
                continue
            cid = args[args.index("-c") + 1] if "-c" in args else ""
            name = args[args.index("-n") + 1] if "-n" in args else ""
            out.append((pid, cid, name))
        return out

    def conmon_of(self, cid):
        pids = [pid for pid, c, _ in self.conmon_pids() if c == cid]
        assert len(pids) == 1, "conmons of %s: %r" % (cid[:12], pids)
        return pids[0]

    def shim_pids(self):
        # The teardown kills these by pid, as it kills containerd's shims.
        return [(pid, "", cid) for pid, cid, _ in self.conmon_pids()]

    def _shim_socket(self, ns, sid):
        return os.path.join(self.tmp, "attach", sid)

    def cleanup(self):
        # StopPodSandbox stops a pod's containers and RemovePodSandbox removes
        # them: two calls per pod instead of two per container.
        if self.running:
            try:
                for s in self.list()["sandboxes"]:
                    self._run_driver(["stop-pod", s["id"]], timeout=60)
                    self._run_driver(["remove-pod", s["id"]], timeout=60)
            except Exception as e:  # keep tearing down
                log("cleanup: removing the pods via CRI failed: %s" % e)
        super().cleanup()

    def _is_our_containerd(self, pid):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            return False
        return bool(argv) and argv[0].endswith(b"crio") and self.config_path.encode() in argv


def main():
    """Smoke test: python3 crio_fixture.py BUILD_DIR"""
    reason = skip_reason()
    if reason:
        print("SKIP: " + reason)
        return 77
    build_dir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PLEGSCOPE_BUILD_DIR", "build")
    with Crio(build_dir) as crio:
        crio.load_images()
        log("CRI images: %s" % crio.images())
        sid = crio.driver("run-pod", "smoke", "uid-smoke")
        cid = crio.driver("create-container", sid, "w", oci_image.WORKLOAD_IMAGE, "/workload", "300", "3")
        crio.driver("start-container", cid)
        log("container %s: %s; conmons %s" % (cid[:12], crio.container_status(cid), crio.conmon_pids()))
        log("container pids %s" % crio.container_pids(cid))
        print(json.dumps(crio.list(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
