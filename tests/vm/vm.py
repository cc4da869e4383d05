"""The cgroup v2 test bed's virtual machine, from the host's side.

A Debian 12 guest built by scripts/build-vm (systemd as PID 1, dbus,
containerd 2.3 + runc 1.4 with SystemdCgroup = true), booted under qemu's
software emulation (`-accel tcg,thread=multi`: a nested KVM guest hangs on
this machine kind) with Debian's cloud kernel, cgroup v2 unified with every
controller (`systemd.unified_cgroup_hierarchy=1 cgroup_no_v1=all`).

The host reaches the guest only through
  * a TCP port forwarded to 127.0.0.1 (qemu user networking with
    restrict=on: the guest has no route out), where the guest's
    vm-exec-server runs one command per connection (VM.run), and
  * the serial console (a unix socket, logged to console.log).

What each boot needs beyond the cached image goes on a second, read-only
disk made at boot by `mkfs.ext4 -d` from a directory (no loop device, no
mount on the host): the agent and the CRI driver with the shared libraries
they load from the host (host and guest are both Debian 12), the test images,
the guest-side scenario script. The guest mounts it at /opt/plegscope.

Whatever happens (an exception, SIGTERM/SIGINT/SIGHUP from ctest's timeout,
the test process dying), qemu is killed and the scratch directory (qcow2
overlay, payload image, sockets) removed: VM is a context manager, registers
an atexit hook and signal handlers, and qemu gets PR_SET_PDEATHSIG."""

import atexit
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
GUEST_PORT = 7000
TMP_PREFIX = "plegscope-vm-"
KERNEL_ARGS = ("root=/dev/vda rw console=ttyS0,115200 systemd.unified_cgroup_hierarchy=1 cgroup_no_v1=all "
               "psi=1 quiet loglevel=3 systemd.show_status=0 rd.udev.log_level=3 random.trust_cpu=on "
               "tsc=reliable mitigations=off")
# Libraries the guest's own glibc provides: never copied from the host.
GLIBC = ("linux-vdso", "ld-linux", "libc.so", "libm.so", "libpthread", "libdl.so", "librt.so")


def log(msg):
    print("[vm] " + msg, flush=True)


def vm_dir():
    """The cached VM (scripts/build-vm --print-dir), or None when not built."""
    r = subprocess.run([os.path.join(SOURCE_DIR, "scripts", "build-vm"), "--print-dir"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def missing():
    """Why this machine cannot boot the VM, or None."""
    for tool in ("qemu-system-x86_64", "qemu-img", "mkfs.ext4"):
        if not shutil.which(tool):
            return "%s not installed (scripts/build-vm installs it)" % tool
    if not vm_dir():
        return "the VM is not built (scripts/build-vm)"
    return None


def _die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _shared_libs(binary):
    r = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True)
    libs = []
    for line in r.stdout.splitlines():
        parts = line.split("=>")
        if len(parts) == 2 and parts[1].strip().startswith("/"):
            path = parts[1].split()[0]
            if not os.path.basename(path).startswith(GLIBC):
                libs.append(path)
    return libs


_live = set()


def _kill_all():
    for vm in list(_live):
        vm.close()


atexit.register(_kill_all)


def _on_signal(signum, _frame):
    _kill_all()
    raise SystemExit(128 + signum)


for _s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_s, _on_signal)


def _start_time(pid):
    """The kernel's start time of PID (field 22 of its stat), or None when it
    is gone: a pid alone may have been reused."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError, ValueError):
        return None


def _sweep_orphans():
    """Removes the scratch directories of runs that died without their
    cleanup (SIGKILL: no atexit, no handler; qemu itself dies with them by
    PR_SET_PDEATHSIG). Only a directory whose `owner` file names a process
    that no longer runs is taken: another run's, alive, is left alone."""
    for name in os.listdir("/tmp"):
        if not name.startswith(TMP_PREFIX):
            continue
        path = os.path.join("/tmp", name)
        try:
            pid, started = open(os.path.join(path, "owner")).read().split()
            pid = int(pid)
        except (OSError, ValueError):
            continue
        if _start_time(pid) != started:
            log("removing %s, left by run %d that died without its cleanup" % (path, pid))
            shutil.rmtree(path, ignore_errors=True)


def scratch_dir(kind=""):
    """A fresh scratch directory under /tmp, owned by this process (for
    _sweep_orphans), after sweeping what dead runs left."""
    _sweep_orphans()
    path = tempfile.mkdtemp(prefix=TMP_PREFIX + kind, dir="/tmp")
    with open(os.path.join(path, "owner"), "w") as f:
        f.write("%d %s\n" % (os.getpid(), _start_time(os.getpid())))
    return path


class VMError(RuntimeError):
    pass


class VM:
    """One boot of the cached VM. payload: {name_in_guest: host_path} copied
    onto the read-only disk at /opt/plegscope (binaries also bring their
    shared libraries into /opt/plegscope/lib)."""

    def __init__(self, payload, binaries=(), cpus=2, memory_mb=2048):
        self.image_dir = vm_dir()
        if not self.image_dir:
            raise VMError("the VM is not built: scripts/build-vm")
        self.payload = dict(payload)
        self.binaries = list(binaries)
        self.cpus = cpus
        self.memory_mb = memory_mb
        self.proc = None
        self.tmp = None
        self.port = None
        self.timings = {}

    # -- lifecycle -------------------------------------------------------------
    def _make_payload(self):
        t0 = time.monotonic()
        d = os.path.join(self.tmp, "payload")
        os.makedirs(os.path.join(d, "bin"))
        os.makedirs(os.path.join(d, "lib"))
        libs = set()
        for b in self.binaries:
            dst = os.path.join(d, "bin", os.path.basename(b))
            # Debug info stays on the host: a third of the size to copy.
            subprocess.run(["objcopy", "--strip-debug", b, dst], check=True)
            libs.update(_shared_libs(b))
        for lib in libs:
            shutil.copy2(lib, os.path.join(d, "lib", os.path.basename(lib)))
        for name, src in self.payload.items():
            dst = os.path.join(d, name)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
        size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)
        img = os.path.join(self.tmp, "payload.img")
        mb = max(32, int(size * 1.3 / 2**20) + 16)
        subprocess.run(["mkfs.ext4", "-q", "-L", "plegscope-pl", "-d", d, img, "%dM" % mb],
                       check=True, capture_output=True)
        shutil.rmtree(d)
        self.timings["payload_s"] = time.monotonic() - t0
        log("payload disk: %d MiB of files (%d libraries), made in %.2f s"
            % (size >> 20, len(libs), self.timings["payload_s"]))
        return img

    def start(self, boot_timeout=600):
        self.tmp = scratch_dir()
        _live.add(self)
        t0 = time.monotonic()
        payload = self._make_payload()
        overlay = os.path.join(self.tmp, "overlay.qcow2")
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
                        os.path.join(self.image_dir, "rootfs.img"), overlay], check=True)
        self.port = _free_port()
        self.console_log = os.path.join(self.tmp, "console.log")
        self.serial_sock = os.path.join(self.tmp, "serial.sock")
        cmd = ["qemu-system-x86_64", "-accel", "tcg,thread=multi", "-cpu", "max", "-smp", str(self.cpus),
               "-m", str(self.memory_mb), "-nodefaults", "-no-user-config", "-display", "none",
               "-no-reboot",
               "-kernel", os.path.join(self.image_dir, "vmlinuz"),
               "-initrd", os.path.join(self.image_dir, "initrd.img"),
               "-append", KERNEL_ARGS,
               "-drive", "file=%s,if=virtio,format=qcow2,cache=unsafe,discard=unmap" % overlay,
               "-drive", "file=%s,if=virtio,format=raw,readonly=on" % payload,
               "-netdev", "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:%d-:%d" % (self.port, GUEST_PORT),
               "-device", "virtio-net-pci,netdev=n0",
               "-device", "virtio-rng-pci",
               "-chardev", "socket,id=ser0,path=%s,server=on,wait=off,logfile=%s" % (self.serial_sock,
                                                                                    self.console_log),
               "-serial", "chardev:ser0"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=open(os.path.join(self.tmp, "qemu.log"), "wb"),
                                     stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_die_with_parent)
        log("qemu pid %d, guest door on 127.0.0.1:%d, scratch %s" % (self.proc.pid, self.port, self.tmp))
        deadline = time.monotonic() + boot_timeout
        while True:
            if self.proc.poll() is not None:
                raise VMError("qemu exited with %s: %s\nconsole:\n%s" % (self.proc.returncode, self._qemu_log(),
                                                                          self.console_tail()))
            try:
                r = self.run(["systemctl", "is-system-running", "--wait"], timeout=60, connect_timeout=1)
                if r["out"].strip() in ("running", "degraded"):
                    break
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise VMError("no answer from the guest within %ss; console:\n%s" % (boot_timeout,
                                                                                   self.console_tail()))
            time.sleep(0.2)
        # The payload disk, read-only (mounted here, not from fstab: udev's
        # settle under emulation outlasts any sensible device timeout).
        self.check(["sh", "-c", "mountpoint -q /opt/plegscope || mount -o ro /dev/vdb /opt/plegscope"])
        self.timings["boot_s"] = time.monotonic() - t0
        state = r["out"].strip()
        if state != "running":
            failed = self.run(["systemctl", "--failed", "--no-legend", "--plain"])["out"].strip()
            log("system %s; failed units: %s" % (state, failed))
        log("booted to systemd %s and the guest's door in %.1f s" % (state, self.timings["boot_s"]))
        return self

    def _qemu_log(self):
        try:
            with open(os.path.join(self.tmp, "qemu.log"), "rb") as f:
                return f.read().decode(errors="replace")[-2000:]
        except OSError:
            return ""

    def console_tail(self, n=40):
        try:
            with open(self.console_log, "rb") as f:
                return "\n".join(f.read().decode(errors="replace").splitlines()[-n:])
        except (OSError, AttributeError, TypeError):
            return "(no console log)"

    def shutdown(self, timeout=30):
        """systemctl poweroff in the guest and wait for qemu to exit; kill it
        past the timeout. Returns the seconds it took."""
        if self.proc is None or self.proc.poll() is not None:
            return 0.0
        t0 = time.monotonic()
        try:
            self.run(["systemctl", "--no-block", "poweroff"], timeout=10)
        except (OSError, ValueError):
            pass
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            log("qemu still running %d s after poweroff: killed" % timeout)
        self.timings["shutdown_s"] = time.monotonic() - t0
        return self.timings["shutdown_s"]

    def close(self):
        """Kills qemu (its whole session) and removes the scratch directory."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        if self.tmp and os.path.isdir(self.tmp):
            shutil.rmtree(self.tmp, ignore_errors=True)
        _live.discard(self)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc):
        try:
            if exc[0] is not None:
                log("console tail at the failure:\n" + self.console_tail())
            self.shutdown()
        finally:
            self.close()
        return False

    # -- the guest's door --------------------------------------------------------
    def run(self, argv, timeout=60, input=None, connect_timeout=5):
        """Runs argv in the guest as root; {'rc', 'out', 'err'}."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=connect_timeout) as s:
            s.settimeout(timeout + 10)
            s.sendall((json.dumps({"argv": list(argv), "timeout": timeout, "input": input}) + "\n").encode())
            buf = b""
            while not buf.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        if not buf:
            raise ValueError("the guest's door closed without a reply")
        return json.loads(buf)

    def check(self, argv, timeout=60):
        r = self.run(argv, timeout=timeout)
        if r["rc"] != 0:
            raise VMError("%s in the guest: exit %d\n%s%s" % (" ".join(argv), r["rc"], r["out"][-3000:],
                                                              r["err"][-3000:]))
        return r["out"]


def default_payload(build_dir, scratch):
    """What every scenario needs in the guest: the agent and the CRI driver
    (bin/), the e2e images and the VM's own (images/), the guest script."""
    import sys
    sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "e2e"))
    import oci_image  # noqa: E402
    images = oci_image.build_e2e_images(os.path.join(scratch, "images"))
    payload = {"images/%s" % os.path.basename(t): t for t in images.values()}
    stress = oci_image.compile_static(os.path.join(HERE, "images", "stress.c"), os.path.join(scratch, "stress"))
    tar = os.path.join(scratch, "images", "stress.tar")
    oci_image.build_oci_tarball(STRESS_IMAGE, {"/stress": (open(stress, "rb").read(), 0o755)}, ["/stress"], tar)
    payload["images/stress.tar"] = tar
    payload["guest_scenarios.py"] = os.path.join(HERE, "guest_scenarios.py")
    binaries = [os.path.join(build_dir, "plegscope"), os.path.join(build_dir, "cri-driver")]
    return payload, binaries


STRESS_IMAGE = "localhost/plegscope-vm/stress:1"

if __name__ == "__main__":
    # Development only: `vm.py hold BUILD_DIR` boots and keeps the VM up until
    # SIGTERM/SIGINT (the port in /tmp/plegscope-vm-hold.port); `vm.py run ARGV...`
    # runs a command in it.
    import sys
    if sys.argv[1] == "hold":
        scratch = scratch_dir("src-")
        try:
            payload, binaries = default_payload(sys.argv[2], scratch)
            with VM(payload, binaries) as vm:
                with open("/tmp/plegscope-vm-hold.port", "w") as f:
                    f.write(str(vm.port))
                while vm.proc.poll() is None:
                    time.sleep(1)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            if os.path.exists("/tmp/plegscope-vm-hold.port"):
                os.unlink("/tmp/plegscope-vm-hold.port")
    elif sys.argv[1] == "run":
        vm = VM.__new__(VM)
        vm.port = int(open("/tmp/plegscope-vm-hold.port").read())
        r = vm.run(sys.argv[2:], timeout=int(os.environ.get("T", "120")))
        sys.stdout.write(r["out"])
        sys.stderr.write(r["err"])
        sys.exit(r["rc"])
