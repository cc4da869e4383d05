"""A private containerd for the e2e tests.

Starts a containerd (with runc) as root with its root, state, sockets, shim
sockets, runc root, NRI socket and CNI dirs all under one temp dir, so it never
touches (or shares state with) a system containerd. Which containerd and runc
is the test bed's choice (env PLEGSCOPE_CONTAINERD, see bed()):

  2.3 (default)  containerd 2.3 with runc 1.4, built from their Go modules by
                 scripts/build-runtimes into the cache (versions:
                 tests/e2e/runtimes.env); config version 3
  2.4            containerd 2.4 (streams its lists, up to 5,000 items a message) with
                 runc 1.5, built the same way (PLEGSCOPE_CONTAINERD=2.4
                 scripts/build-runtimes), the ctest label `matrix`; config version 3
  debian-1.6     Debian 12's containerd 1.6.20 with runc 1.1.5 from PATH, the
                 ctest label `matrix`; config version 2

Drives it through CRI with build/cri-driver. Can stop and restart it with the
same root/state (containers survive, since their shims keep running).
cleanup() removes everything it started: containers via CRI, then any
leftover container processes and shims by PID, mounts under the temp dir
(lazy), the cgroups under its cgroup parent, the shim sockets, and the temp
dir.

Usage:
    skip = containerd_fixture.skip_reason()   # None, or why this machine can't
    with Containerd(build_dir) as ctd:
        ctd.import_image(tarball)
        sid = ctd.driver("run-pod", "name", "uid")
"""

import collections
import concurrent.futures
import ctypes
import glob
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import cgroups
import harness  # tests/lib
import oci_image

E2E_DIR = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    print("[containerd] " + msg, flush=True)


def pinned_versions():
    """{'CONTAINERD_VERSION': 'v2.3.x', 'RUNC_VERSION': 'v1.4.x'} from
    tests/e2e/runtimes.env, the file scripts/build-runtimes builds from."""
    return harness.read_env_file(os.path.join(E2E_DIR, "runtimes.env"))


def cache_dir():
    return os.environ.get("PLEGSCOPE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "plegscope")


# One test bed: the binaries a private containerd runs, and the config version
# it reads. bin_dirs go first on the PATH of containerd (so it starts its own
# containerd-shim-runc-v2, not one of another version on PATH) and of the
# runbook's commands (so `ctr` is this bed's own).
Bed = collections.namedtuple("Bed", "name containerd ctr shim runc bin_dirs config_version build_hint")

BEDS = ("2.3", "2.4", "debian-1.6")
DEFAULT_BED = "2.3"


def bed_name():
    """The bed the tests run: env PLEGSCOPE_CONTAINERD (2.3, 2.4 or debian-1.6), by default 2.3."""
    return harness.env_choice("PLEGSCOPE_CONTAINERD", BEDS, DEFAULT_BED)


def bed(name=None):
    name = name or bed_name()
    if name == "debian-1.6":
        w = shutil.which
        return Bed(name, w("containerd") or "containerd", w("ctr") or "ctr",
                   w("containerd-shim-runc-v2") or "containerd-shim-runc-v2", w("runc") or "runc",
                   [], 2, "Debian packages containerd and runc (scripts/install-deps test)")
    if name not in BEDS:
        raise ValueError("containerd bed %r: expected one of %s" % (name, ", ".join(BEDS)))
    v = pinned_versions()
    if name == "2.4":
        ctd_v, runc_v, hint = v["CONTAINERD_VERSION_2_4"], v["RUNC_VERSION_1_5"], \
            "PLEGSCOPE_CONTAINERD=2.4 scripts/build-runtimes"
    else:
        ctd_v, runc_v, hint = v["CONTAINERD_VERSION"], v["RUNC_VERSION"], \
            "scripts/install-deps test runs scripts/build-runtimes"
    ctd = os.path.join(cache_dir(), "containerd-" + ctd_v, "bin")
    runc = os.path.join(cache_dir(), "runc-" + runc_v, "bin")
    return Bed(name, os.path.join(ctd, "containerd"), os.path.join(ctd, "ctr"),
               os.path.join(ctd, "containerd-shim-runc-v2"), os.path.join(runc, "runc"),
               [ctd, runc], 3, hint)


def bed_path(b=None):
    """PATH with the bed's own binaries first."""
    b = b or bed()
    return os.pathsep.join(b.bin_dirs + [os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")])


def skip_reason():
    """Why this machine cannot run the containerd e2e, or None."""
    if os.geteuid() != 0:
        return "not root (containerd and runc need root)"
    b = bed()
    for exe in (b.containerd, b.ctr, b.runc, b.shim):
        if not (os.path.isabs(exe) and os.access(exe, os.X_OK)):
            return "%s not found (bed %s: %s)" % (exe, b.name, b.build_hint)
    if shutil.which("gcc") is None:
        return "gcc not found in PATH"
    return None


def _version_of(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True).stdout
    except OSError:
        return ""


def containerd_version(b=None):
    """The version containerd prints: 2.x "containerd github.com/containerd/containerd/v2
    v2.3.7 v2.3.7" gives v2.3.7; Debian's 1.6 "containerd github.com/containerd/containerd
    1.6.20~ds1 1.6.20~ds1-1+deb12u3" gives 1.6.20~ds1."""
    out = _version_of([(b or bed()).containerd, "--version"])
    parts = out.split()
    return parts[2] if len(parts) > 2 else out.strip()


def runc_version(b=None):
    """"runc version 1.4.4" (first line of `runc --version`) gives 1.4.4."""
    first = (_version_of([(b or bed()).runc, "--version"]).splitlines() or [""])[0].split()
    return first[2] if len(first) > 2 else " ".join(first)


def bed_description(b=None):
    """"containerd v2.3.7 + runc 1.4.4 (bed 2.3)", for the tests' logs and tables."""
    b = b or bed()
    return "containerd %s + runc %s (bed %s)" % (containerd_version(b), runc_version(b), b.name)


def major_version(b=None):
    """containerd's major version as an int (1 or 2)."""
    v = containerd_version(b).lstrip("v")
    try:
        return int(v.split(".")[0])
    except ValueError:
        return 0


TMP_PREFIX = "pse2e-"


def _die_with_parent():
    # In the child before exec: if the test is SIGKILLed (ctest timeout),
    # containerd goes too; shims survive and the next run reaps them.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def fs_type(path):
    """Filesystem type of the mount holding PATH (from /proc/self/mountinfo)."""
    best, best_type = "", ""
    path = os.path.realpath(path)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            mp = fields[4]
            fstype = fields[fields.index("-") + 1]
            if (path == mp or path.startswith(mp.rstrip("/") + "/")) and len(mp) >= len(best):
                best, best_type = mp, fstype
    return best_type


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def reap_stale():
    """Cleans up after earlier runs that were killed before their cleanup
    (e.g. a ctest timeout): temp dirs whose owning test process is gone."""
    for d in glob.glob(os.path.join("/tmp", TMP_PREFIX + "*")):
        try:
            with open(os.path.join(d, "owner.json")) as f:
                owner = json.load(f).get("owner_pid")
        except (OSError, ValueError):
            continue
        if owner and _alive(owner):
            continue
        log("reaping a stale e2e containerd left in %s" % d)
        Containerd("", _adopt=d).cleanup()



def _processes():
    """(pid, argv as bytes) of every process whose command line can be read."""
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/cmdline", "rb") as f:
                yield int(os.path.basename(d)), f.read().split(b"\0")
        except OSError:
            continue


def write_node_network(conf_dir):
    """A node's pod network as the runtime's Status checks it: one CNI
    configuration in the runtime's conf dir (a loopback-only network, named
    last, so a test's own configuration sorts first and is the one used).
    Without it the runtime truthfully answers NetworkReady=false, and the
    kubelet beside such a node would say "container runtime network not
    ready"."""
    with open(os.path.join(conf_dir, "99-plegscope-e2e.conflist"), "w") as f:
        json.dump({"cniVersion": "1.0.0", "name": "plegscope-e2e", "plugins": [{"type": "loopback"}]}, f)

class DriverError(RuntimeError):
    pass


def _free_loopback_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Containerd:
    def __init__(self, build_dir, sandbox_image=oci_image.PAUSE_IMAGE, snapshotter=None,
                 _adopt=None, bed_name=None, nri=True, nri_request_timeout=None):
        """NRI False: 2.x's NRI plugin disabled in the config (on by default there; 1.6 has
        it off), as on nodes that turn it off. nri_request_timeout ("30s"): NRI's
        plugin_request_timeout (2 s when unset), as on nodes that lengthen it."""
        self.build_dir = build_dir
        self.nri = nri
        self.nri_request_timeout = nri_request_timeout
        self.bed = bed(bed_name)
        self.driver_bin = os.path.join(build_dir, "cri-driver")
        if not _adopt and not os.path.exists(self.driver_bin):
            raise RuntimeError("%s not built (cmake --build ... --target cri-driver)" % self.driver_bin)
        if not _adopt:
            reap_stale()
        # Short path: unix socket paths are limited to 108 bytes.
        self.tmp = _adopt or tempfile.mkdtemp(prefix=TMP_PREFIX, dir="/tmp")
        os.chmod(self.tmp, 0o711)
        self.name = os.path.basename(self.tmp)
        self.root = os.path.join(self.tmp, "root")
        self.state = os.path.join(self.tmp, "state")
        self.sock = os.path.join(self.tmp, "containerd.sock")
        self.nri_socket = os.path.join(self.tmp, "nri", "nri.sock")
        self.endpoint = "unix://" + self.sock
        self.config_path = os.path.join(self.tmp, "config.toml")
        # The registry hosts (hosts.toml per registry) pulls read: private, so
        # the host's /etc/containerd/certs.d never steers a test's pull
        # (2.x only: write_registry_host).
        self.registry_hosts_dir = os.path.join(self.tmp, "certs.d")
        # containerd's own metrics page on a loopback port: the
        # agent reads calls in flight inside containerd from it.
        self.metrics_address = "127.0.0.1:%d" % _free_loopback_port()
        self.metrics_url = "http://%s/v1/metrics" % self.metrics_address
        self.log_path = os.path.join(self.tmp, "containerd.log")
        self.cgroup_parent = "/plegscope-e2e-" + self.name
        self.sandbox_image = sandbox_image
        # overlayfs unless the temp dir itself is on overlayfs (as in some CI
        # containers), where overlay-on-overlay fails; then native.
        self.snapshotter = (snapshotter or os.environ.get("PLEGSCOPE_E2E_SNAPSHOTTER")
                            or ("native" if fs_type(self.tmp) == "overlay" else "overlayfs"))
        self.proc = None
        self._log_file = None
        self.sandbox_ids = set()
        self.container_ids = set()
        # Shims put their sockets under /run/containerd/s on 1.6 (fixed
        # there); 2.x puts them in the shim manager's socket_dir, ours under
        # the temp dir (at most 42 bytes). Remove the /run dirs at the end if
        # we were the ones creating them.
        self.shim_socket_dir = (os.path.join(self.tmp, "s") if self.bed.config_version >= 3
                                else "/run/containerd/s")
        self._run_dirs_existed = {d: os.path.isdir(d) for d in ("/run/containerd/s", "/run/containerd")}
        self.stale_containerd_pid = None
        if _adopt:
            self._run_dirs_existed = {d: False for d in self._run_dirs_existed}
            try:
                with open(os.path.join(self.tmp, "owner.json")) as f:
                    owner = json.load(f)
                self.stale_containerd_pid = owner.get("containerd_pid")
                self.shim_socket_dir = owner.get("shim_socket_dir") or "/run/containerd/s"
            except (OSError, ValueError):
                pass
            return
        self._write_owner(None)
        self._write_config()

    def _write_owner(self, containerd_pid):
        # Lets a later run reap what a killed test (ctest timeout) left.
        with open(os.path.join(self.tmp, "owner.json"), "w") as f:
            json.dump({"owner_pid": os.getpid(), "containerd_pid": containerd_pid,
                       "config": self.config_path, "bed": self.bed.name,
                       "shim_socket_dir": self.shim_socket_dir}, f)

    # -- configuration ---------------------------------------------------
    def _write_config(self):
        t = self.tmp
        for d in ("root", "state", "runc", "cni/bin", "cni/conf", "opt", "nri/plugins", "nri/conf.d"):
            os.makedirs(os.path.join(t, d), exist_ok=True)
        write_node_network(os.path.join(t, "cni", "conf"))
        config = self._config_v3() if self.bed.config_version >= 3 else self._config_v2()
        with open(self.config_path, "w") as f:
            f.write(config)

    def _common_sections(self, version):
        """What both config versions say alike: the private root, state,
        sockets and dirs, and the plugins left out (2.x has no aufs)."""
        t = self.tmp
        disabled = (["io.containerd.snapshotter.v1.aufs"] if version == 2 else []) + [
            "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper",
            "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp",
            "io.containerd.internal.v1.tracing"]
        plugins = "".join('  "%s",\n' % p for p in disabled)
        return f"""version = {version}
root = "{self.root}"
state = "{self.state}"
oom_score = 0
disabled_plugins = [
{plugins}]

[grpc]
  address = "{self.sock}"

[ttrpc]
  address = "{self.sock}.ttrpc"

[debug]
  address = "{t}/debug.sock"
  level = "info"

[metrics]
  address = "{self.metrics_address}"

[plugins."io.containerd.internal.v1.opt"]
  path = "{t}/opt"
"""

    def _config_v2(self):
        """containerd 1.6's config (version 2): the CRI plugin is one
        io.containerd.grpc.v1.cri section."""
        t = self.tmp
        cri = 'plugins."io.containerd.grpc.v1.cri"'
        return f"""{self._common_sections(2)}
[{cri}]
  sandbox_image = "{self.sandbox_image}"
  disable_apparmor = true
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  disable_cgroup = false
  max_container_log_line_size = 16384

[{cri}.containerd]
  snapshotter = "{self.snapshotter}"
  default_runtime_name = "runc"

[{cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[{cri}.containerd.runtimes.runc.options]
  Root = "{t}/runc"
  SystemdCgroup = false

[{cri}.cni]
  bin_dir = "{t}/cni/bin"
  conf_dir = "{t}/cni/conf"
"""

    def _config_v3(self):
        """containerd 2.x's config (version 3), the same node as _config_v2:
        the CRI plugin split into io.containerd.cri.v1.runtime (containers,
        runtimes, CNI) and io.containerd.cri.v1.images (snapshotter, the
        sandbox image as pinned_images.sandbox), with only the streaming
        server left in io.containerd.grpc.v1.cri (key names read from 2.3's
        internal/cri/config). Two host paths 1.6 did not have are moved under
        the temp dir: the shim sockets (io.containerd.shim.v1.manager
        socket_dir, else /run/containerd/s) and NRI, on by default in 2.x
        (its socket, else /var/run/nri/nri.sock, its plugin and config dirs,
        else /opt/nri/plugins and /etc/nri/conf.d). runc is the bed's own,
        by absolute path (BinaryName), with cgroupfs: this host is cgroup v1."""
        t = self.tmp
        rt = 'plugins."io.containerd.cri.v1.runtime"'
        img = 'plugins."io.containerd.cri.v1.images"'
        timeout = getattr(self, "nri_request_timeout", None)
        nri_timeout = '  plugin_request_timeout = "%s"\n' % timeout if timeout else ""
        return f"""{self._common_sections(3)}
[plugins."io.containerd.shim.v1.manager"]
  socket_dir = "{self.shim_socket_dir}"

[plugins."io.containerd.nri.v1.nri"]
  disable = {"false" if getattr(self, "nri", True) else "true"}
  socket_path = "{t}/nri/nri.sock"
  plugin_path = "{t}/nri/plugins"
  plugin_config_path = "{t}/nri/conf.d"
{nri_timeout}
[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"

[{img}]
  snapshotter = "{self.snapshotter}"

[{img}.pinned_images]
  sandbox = "{self.sandbox_image}"

[{img}.registry]
  config_path = "{self.registry_hosts_dir}"

[{rt}]
  disable_apparmor = true
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  enable_selinux = false
  max_container_log_line_size = 16384

[{rt}.containerd]
  default_runtime_name = "runc"

[{rt}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
  snapshotter = "{self.snapshotter}"

[{rt}.containerd.runtimes.runc.options]
  BinaryName = "{self.bed.runc}"
  Root = "{t}/runc"
  SystemdCgroup = false

[{rt}.cni]
  bin_dirs = ["{t}/cni/bin"]
  conf_dir = "{t}/cni/conf"
"""

    # -- lifecycle ---------------------------------------------------------
    def start(self, timeout=30):
        if self.proc is not None and self.proc.poll() is None:
            return
        self._log_file = open(self.log_path, "ab")
        self.proc = subprocess.Popen([self.bed.containerd, "--config", self.config_path],
                                     env=dict(os.environ, PATH=bed_path(self.bed)),
                                     stdout=self._log_file, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True,
                                     preexec_fn=_die_with_parent)
        self._wait_for_cri("containerd", timeout)

    def _wait_for_cri(self, name, timeout):
        """Until the runtime just started answers CRI Version on its socket;
        its exit or the timeout raise with the log's tail."""
        t0 = time.monotonic()
        last = ""
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError("%s exited with %s; log tail:\n%s" % (name, self.proc.returncode, self.log_tail()))
            if os.path.exists(self.sock):
                r = self._run_driver(["version"], timeout=5)
                if r.returncode == 0:
                    self._write_owner(self.proc.pid)
                    print("[%s] %s pid %d answering CRI on %s after %.2fs: %s"
                          % (name, name, self.proc.pid, self.endpoint, time.monotonic() - t0, r.stdout.strip()),
                          flush=True)
                    return
                last = r.stderr.strip()
            time.sleep(0.1)
        raise RuntimeError("%s CRI did not answer within %ss (%s); log tail:\n%s"
                           % (name, timeout, last, self.log_tail()))

    def stop(self, timeout=20):
        """Stops containerd (SIGTERM, then SIGKILL). Shims and containers keep
        running; root and state are kept for a restart."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        log("containerd pid %d stopped (exit %s)" % (self.proc.pid, self.proc.returncode))
        self.proc = None
        if self._log_file:
            self._log_file.close()
            self._log_file = None
        # A stale socket file left by a SIGKILL would make clients see
        # "connection refused" instead of "no such file"; either is "down".

    def restart(self):
        self.stop()
        self.start()

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n=30):
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode(errors="replace").splitlines()
            return "\n".join(lines[-n:])
        except OSError:
            return "(no log)"

    def __enter__(self):
        try:
            self.start()
        except Exception:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc):
        self.cleanup()
        return False

    # -- CRI and ctr -----------------------------------------------------------
    def _run_driver(self, args, timeout=60):
        env = dict(os.environ, CRI_CGROUP_PARENT=self.cgroup_parent)
        try:
            return subprocess.run([self.driver_bin, "--endpoint", self.endpoint,
                                   "--timeout", str(int(timeout))] + list(args),
                                  capture_output=True, text=True, env=env, timeout=timeout + 5)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(args, 124, "", "cri-driver timed out")

    def driver(self, *args, timeout=60):
        """Runs cri-driver; returns its stdout stripped, raises DriverError."""
        r = self._run_driver(args, timeout=timeout)
        if r.returncode != 0:
            raise DriverError(r.stderr.strip() or "cri-driver %s: exit %d" % (args[0], r.returncode))
        out = r.stdout.strip()
        if args[0] in ("run-pod", "run-pod-net"):
            self.sandbox_ids.add(out)
        elif args[0] in ("create-container", "create-container-spec"):
            self.container_ids.add(out)
        return out

    def list(self):
        return json.loads(self.driver("list"))

    def container_status(self, cid):
        """{'state', 'exit_code', 'started_at', 'finished_at' (unix seconds,
        float; 0 if not yet), 'reason'} from CRI ContainerStatus."""
        state, code, started, finished, reason = self.driver("status-container", cid).split(" ", 4)
        return {"state": state, "exit_code": int(code), "started_at": int(started) / 1e9,
                "finished_at": int(finished) / 1e9, "reason": reason}

    def ctr(self, *args, timeout=120):
        r = subprocess.run([self.bed.ctr, "-a", self.sock, "-n", "k8s.io"] + list(args),
                           capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError("ctr %s failed: %s" % (" ".join(args), r.stderr.strip()))
        return r.stdout

    def import_image(self, tarball):
        self.ctr("images", "import", "--snapshotter", self.snapshotter, tarball)

    def write_registry_host(self, registry, server):
        """The hosts.toml a node has for a registry of its own: pulls of
        REGISTRY (host:port, as image references name it) go to SERVER
        (e.g. http://127.0.0.1:5000, plain HTTP on loopback). Read at each
        pull, so it may be written after the start; 2.x configs only."""
        if self.bed.config_version < 3:
            raise RuntimeError("registry hosts: bed %s has no config_path here" % self.bed.name)
        d = os.path.join(self.registry_hosts_dir, registry)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "hosts.toml"), "w") as f:
            f.write('server = "%s"\n\n[host."%s"]\n  capabilities = ["pull", "resolve"]\n' % (server, server))

    def images(self):
        """Image tags as the CRI image service lists them."""
        return [line.split()[0] for line in self.driver("images").splitlines() if line.strip()]

    # -- processes and cgroups --------------------------------------------------
    def container_pids(self, cid=None):
        """PIDs in the cgroups under our parent (one container's, or all), on cgroup v1 or v2."""
        return cgroups.pids(self.cgroup_parent, cid)

    def kill_container_process(self, cid, sig=signal.SIGTERM):
        """Signals a container's processes directly (not through the
        runtime): how a container dies while containerd is down."""
        pids = self.container_pids(cid)
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        return pids

    def shim_pids(self):
        """containerd-shim-runc-v2 processes serving our containerd."""
        out = []
        for pid, argv in _processes():
            if not argv or not argv[0].endswith(b"containerd-shim-runc-v2"):
                continue
            argv = [a.decode(errors="replace") for a in argv]
            if "-address" in argv and argv[argv.index("-address") + 1] == self.sock:
                sid = argv[argv.index("-id") + 1] if "-id" in argv else ""
                ns = argv[argv.index("-namespace") + 1] if "-namespace" in argv else "k8s.io"
                out.append((pid, ns, sid))
        return out

    def _shim_socket(self, ns, sid):
        # containerd 1.6 runtime/v2/shim.SocketAddress, 2.x pkg/shim.CreateSocketAddress
        # under the shim manager's socket_dir
        d = hashlib.sha256(os.path.join(self.sock, ns, sid).encode()).hexdigest()
        return os.path.join(self.shim_socket_dir, d)

    # -- teardown ------------------------------------------------------------------
    def cleanup(self):
        log("cleanup: %s" % self.tmp)
        if self.running:
            try:
                lst = self.list()
                # Eight at a time: a cluster test leaves a hundred pods, and
                # each call mostly waits on the runtime.
                with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
                    list(pool.map(lambda c: (self._run_driver(["stop-container", c["id"], "0"], timeout=20),
                                             self._run_driver(["remove-container", c["id"]], timeout=20)),
                                  lst["containers"]))
                    list(pool.map(lambda s: (self._run_driver(["stop-pod", s["id"]], timeout=20),
                                             self._run_driver(["remove-pod", s["id"]], timeout=20)),
                                  lst["sandboxes"]))
                log("cleanup: removed %d containers, %d sandboxes via CRI"
                    % (len(lst["containers"]), len(lst["sandboxes"])))
            except Exception as e:  # keep tearing down
                log("cleanup: CRI removal failed: %s" % e)
        shims = self.shim_pids()
        self.stop()
        for pid in self._clients():
            try:
                os.kill(pid, signal.SIGKILL)
                log("cleanup: killed leftover client pid %d of this socket" % pid)
            except ProcessLookupError:
                pass
        if self.stale_containerd_pid and self._is_our_containerd(self.stale_containerd_pid):
            try:
                os.kill(self.stale_containerd_pid, signal.SIGKILL)
                log("cleanup: killed stale containerd pid %d" % self.stale_containerd_pid)
            except ProcessLookupError:
                pass
        # Leftover container processes (by cgroup), then shims, by PID.
        for sig in (signal.SIGKILL,):
            for pid in self.container_pids():
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
        shims = {p[0]: p for p in shims + self.shim_pids()}
        for pid, ns, sid in shims.values():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and (self.container_pids() or
                                               any(os.path.exists("/proc/%d" % p) for p in shims)):
            time.sleep(0.05)
        if shims:
            log("cleanup: killed %d shim(s): %s" % (len(shims), sorted(shims)))
        for pid, ns, sid in shims.values():
            try:
                os.unlink(self._shim_socket(ns, sid))
            except OSError:
                pass
        for d in ("/run/containerd/s", "/run/containerd"):
            if not self._run_dirs_existed[d]:
                try:
                    os.rmdir(d)  # only if empty: another containerd may use it
                except OSError:
                    pass
        # Mounts under the temp dir, deepest first, lazily.
        mounts = self._mounts_under(self.tmp)
        for mp in sorted(mounts, key=lambda m: m.count("/"), reverse=True):
            subprocess.run(["umount", "-l", mp], capture_output=True)
        if mounts:
            log("cleanup: unmounted %d mount(s)" % len(mounts))
        left = self._mounts_under(self.tmp)
        if left:
            log("cleanup: WARNING mounts left: %s" % left)
        # cgroups under our parent (one tree on v2, one per hierarchy on v1), leaves first.
        removed = 0
        for base in cgroups.dirs(self.cgroup_parent):
            for dp, dirs, _ in sorted(os.walk(base), key=lambda w: w[0].count("/"), reverse=True):
                for _ in range(50):
                    try:
                        os.rmdir(dp)
                        removed += 1
                        break
                    except FileNotFoundError:
                        break
                    except OSError:
                        time.sleep(0.05)
        if removed:
            log("cleanup: removed %d cgroup dir(s) under %s" % (removed, self.cgroup_parent))
        shutil.rmtree(self.tmp, ignore_errors=True)
        if os.path.exists(self.tmp):
            log("cleanup: WARNING could not remove %s" % self.tmp)

    def _clients(self):
        """plegscope / cri-driver processes still pointed at our socket (left
        by a test that was killed)."""
        return [pid for pid, argv in _processes()
                if argv and os.path.basename(argv[0]) in (b"plegscope", b"cri-driver")
                and any(self.sock.encode() in a for a in argv)]

    def _is_our_containerd(self, pid):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            return False
        return bool(argv) and argv[0].endswith(b"containerd") and self.config_path.encode() in argv

    @staticmethod
    def _mounts_under(path):
        out = []
        prefix = path.rstrip("/") + "/"
        with open("/proc/self/mountinfo") as f:
            for line in f:
                mp = line.split()[4].replace("\\040", " ")
                if mp == path or mp.startswith(prefix):
                    out.append(mp)
        return out


def main():
    """Smoke test: python3 containerd_fixture.py BUILD_DIR"""
    reason = skip_reason()
    if reason:
        print("SKIP: " + reason)
        return 77
    build_dir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PLEGSCOPE_BUILD_DIR", "build")
    with Containerd(build_dir) as ctd:
        for name, tarball in oci_image.build_e2e_images(os.path.join(ctd.tmp, "images")).items():
            ctd.import_image(tarball)
            log("imported %s" % name)
        log("CRI images: %s" % ctd.images())
        sid = ctd.driver("run-pod", "smoke", "uid-smoke")
        log("sandbox %s" % sid)
        cid = ctd.driver("create-container", sid, "w", oci_image.WORKLOAD_IMAGE, "/workload", "300", "3")
        ctd.driver("start-container", cid)
        time.sleep(1)
        log("container %s: %s" % (cid, ctd.container_status(cid)))
        print(json.dumps(ctd.list(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
