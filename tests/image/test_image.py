"""The image, built and run as the DaemonSet runs it.

scripts/build-image builds the distroless amd64 image without a registry
(plegscope compiled in a debootstrapped Debian 12 build root, kept under
PLEGSCOPE_CROSS_DIR, default /var/tmp/plegscope-cross, and reused; then
assembled from that root's packages); PLEGSCOPE_IMAGE_ARCHIVE=FILE uses an
archive it wrote before instead (its FILE.spdx.json beside it). The image's
SBOM is checked against that root's dpkg database (tests/image/image_check.py).
The image is imported into a private containerd (tests/e2e's fixture) and
started through CRI with the container of deploy/daemonset.yaml, translated
the way the kubelet translates a pod spec: its args and env (NODE_NAME and
NODE_IP from the downward API), read-only root filesystem, every capability
dropped, no privilege escalation, its uid, group and supplemental groups,
RuntimeDefault seccomp, every hostPath read-only as the DaemonSet mounts it
and the projected token (mode 0444, root-owned, as the kubelet writes it).

Where this differs from a cluster (no kubelet, no CNI): the pod uses the
host network, the socket directory is the fixture's (it holds
containerd.sock, root:root 0660 in a 0711 directory, as /run/containerd
does), --listen-address gets a free port instead of 9547 so parallel runs do
not collide, and --kubelet-endpoint names a stand-in kubelet (HTTPS, bearer
token checked) on a free loopback port instead of $NODE_IP:10250. The
journal is a private one with journald's modes and systemd's tmpfiles ACL
as measured on Debian 12 (root:systemd-journal, 2755 directory and 0640
file, group adm readable through the ACL).

Asserted: the agent in the container, not root, relists that containerd,
sees the test's other pod and container, serves /metrics and /diagnose,
reads the journal and scrapes the kubelet with the token; its node_pressure
comes from the /proc mounted at /host/proc (PSI, load and task count as the
kernel reports them there; the same container without that mount reports
none), and its host section finds the runtime's shims there.

Then each line of README "Privileges, and why": probe containers (the image
has no shell, so a probe image holding only Debian's static busybox as
/bin/sh, with the DaemonSet's security settings and mounts, plus a writable
/out for the answers) measure what that identity reads, as uid 65532 with the
DaemonSet's groups, with no group 0 and no journal group, and as uid 0 with
every capability dropped (the old setting), in a pod without hostPID and in
one with it.

And deploy/components/kernel-stacks as it ships: its JSON patches read from
its kustomization.yaml and applied to the DaemonSet, the RuntimeDefault
seccomp profile kept, the image's agent reads the kernel stack of a shim of
that containerd frozen with the cgroup v1 freezer; the filter containerd built
for the container is read from its OCI spec (bpf and perf_event_open with and
without the capabilities), and under that filter less its bpf rule (a
Localhost profile) the agent says the seccomp filter refused bpf(). The image
is built once for both tests."""
import atexit
import contextlib
import grp
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import cgroups  # noqa: E402
import containerd_fixture  # noqa: E402
import fake_kubelet  # noqa: E402  (tests/lib)
import harness  # noqa: E402
import image_check  # noqa: E402
import journal_export  # noqa: E402  (tests/lib)
import oci_image  # noqa: E402
import yaml  # noqa: E402

ROOT = harness.source_dir()
NODE = "image-node"
NODE_IP = "127.0.0.1"  # status.hostIP: the pod runs on the host network here
TOKEN = "image-test-token"
TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
PROBE_IMAGE = "localhost/plegscope-e2e/probe:1"
BUSYBOX = "/bin/busybox"  # Debian's busybox-static: its applets run without links
# What the registry transfers and a node stores compressed, and what the
# node's snapshotter unpacks it to.
MAX_LAYER_GZIP = 40 * 1000 * 1000
MAX_LAYER_UNCOMPRESSED = 40 * 1000 * 1000


def require(condition, why):
    if condition:
        return
    if os.environ.get("CI"):
        raise AssertionError("CI: " + why)
    raise harness.Skip(why)


def daemonset_container():
    with open(os.path.join(ROOT, "deploy", "daemonset.yaml")) as f:
        ds = yaml.safe_load(f)
    pod = ds["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    return pod, container


def container_spec(pod, c, host_paths, port, kubelet_url):
    """The CRI ContainerConfig the kubelet would build from the DaemonSet's
    container (as cri-driver create-container-spec JSON). host_paths maps a
    hostPath to the test's stand-in, and "projected:NAME" to the directory
    holding what the kubelet would project for volume NAME."""
    env = {}
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = e["value"]
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName":
            env[e["name"]] = NODE
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "status.hostIP":
            env[e["name"]] = NODE_IP
        else:
            raise AssertionError("env %s: the test knows value and the fieldRefs spec.nodeName, status.hostIP" % e)
    args = []
    for a in c.get("args", []):
        if a.startswith("--listen-address="):
            a = "--listen-address=127.0.0.1:%d" % port  # host network here: a free port
        args.append(a)
    args.append("--kubelet-endpoint=" + kubelet_url)  # instead of https://$NODE_IP:10250
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = []
    for m in c["volumeMounts"]:
        volume = volumes[m["name"]]
        host = volume["hostPath"]["path"] if "hostPath" in volume else "projected:" + m["name"]
        mounts.append({"container_path": m["mountPath"], "host_path": host_paths.get(host, host),
                       "readonly": bool(m.get("readOnly"))})
    sc, psc = c["securityContext"], pod.get("securityContext", {})
    spec = {
        "name": c["name"], "image": c["image"], "args": args, "envs": env, "mounts": mounts,
        "privileged": bool(sc.get("privileged")),
        "readonly_rootfs": bool(sc.get("readOnlyRootFilesystem")),
        "no_new_privs": sc.get("allowPrivilegeEscalation") is False,
        "drop_capabilities": sc.get("capabilities", {}).get("drop", []),
        "add_capabilities": sc.get("capabilities", {}).get("add", []),
    }
    for key, field in (("runAsUser", "run_as_user"), ("runAsGroup", "run_as_group")):
        value = sc.get(key, psc.get(key))
        if value is not None:
            spec[field] = value
    if psc.get("supplementalGroups"):
        spec["supplemental_groups"] = psc["supplementalGroups"]
    if sc.get("runAsNonRoot", psc.get("runAsNonRoot")):
        # the kubelet refuses to start the container otherwise
        assert spec.get("run_as_user", 0) != 0, "runAsNonRoot with uid 0"
    seccomp = sc.get("seccompProfile", psc.get("seccompProfile", {})).get("type")
    if seccomp:
        spec["seccomp"] = seccomp
    if pod.get("hostPID"):
        spec["host_pid"] = True  # the sandbox too: run-pod ... host-pid
    return spec


_ARCHIVE = []


def image_archive():
    """The image's OCI archive (its SBOM beside it), built once per run of
    this file: every test here starts the same image."""
    if not _ARCHIVE:
        directory = tempfile.mkdtemp(prefix="plegscope-image-archive-")
        atexit.register(shutil.rmtree, directory, True)
        out = os.path.join(directory, "plegscope-oci.tar")
        build_image(out)
        _ARCHIVE.append(out)
    return _ARCHIVE[0]


def build_image(out):
    prebuilt = os.environ.get("PLEGSCOPE_IMAGE_ARCHIVE")
    if prebuilt:  # an archive scripts/build-image wrote earlier (development only)
        shutil.copy(prebuilt, out)
        shutil.copy(prebuilt[:-4] + ".spdx.json", out[:-4] + ".spdx.json")
        print("image: prebuilt %s (PLEGSCOPE_IMAGE_ARCHIVE), not built by this run" % prebuilt)
        return
    t0 = time.monotonic()
    r = subprocess.run([os.path.join(ROOT, "scripts", "build-image"), "--arch", "amd64", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout, end="")
    assert r.returncode == 0, "scripts/build-image failed"
    print("image build: %.0fs" % (time.monotonic() - t0))


def probe_image(workdir):
    """An image with only Debian's static busybox as /bin/sh: what the probe
    containers run, since plegscope's image has no shell."""
    with open(BUSYBOX, "rb") as f:
        data = f.read()
    out = os.path.join(workdir, "probe-oci.tar")
    oci_image.build_oci_tarball(PROBE_IMAGE, {"bin/sh": (data, 0o755)}, ["/bin/sh"], out)
    return out


def loadavg(proc):
    """(load1, total scheduling entities) from a procfs's loadavg."""
    with open(os.path.join(proc, "loadavg")) as f:
        fields = f.read().split()
    return float(fields[0]), int(fields[3].split("/")[1])


def start_agent(ctd, sandbox, spec):
    cid = ctd.driver("create-container-spec", sandbox, json.dumps(spec))
    ctd.driver("start-container", cid)
    base = "http://127.0.0.1:%s" % next(a for a in spec["args"] if a.startswith("--listen-address=")).rsplit(":", 1)[1]

    def serving():
        st = ctd.container_status(cid)
        if st["state"] == "exited":
            raise RuntimeError("the agent container exited: %s" % st)
        return harness.http(base + "/readyz", timeout=2)[0] == 200
    harness.wait_until(serving, 60, "the containerised agent's /readyz", interval=0.5)
    return cid, base


# posix_acl_xattr (linux/posix_acl_xattr.h): version 2, then (tag, perm, id).
_ACL_USER_OBJ, _ACL_GROUP_OBJ, _ACL_GROUP, _ACL_MASK, _ACL_OTHER = 0x01, 0x04, 0x08, 0x10, 0x20
_ACL_NO_ID = 0xFFFFFFFF
ADM_GID = 4  # adm: fixed by Debian's base-passwd, named by systemd's tmpfiles ACL


def _acl(owner, group, adm, other):
    entries = [(_ACL_USER_OBJ, owner, _ACL_NO_ID), (_ACL_GROUP_OBJ, group, _ACL_NO_ID), (_ACL_GROUP, adm, ADM_GID),
               (_ACL_MASK, group | adm, _ACL_NO_ID), (_ACL_OTHER, other, _ACL_NO_ID)]
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


def journal_as_on_a_node(var_log):
    """The journal's owner, modes and ACL as journald and systemd's
    tmpfiles.d/systemd.conf leave them (measured on Debian 12):
    /var/log/journal root:systemd-journal 2755 with group:adm:r-x, also as
    its default ACL; journal files root:systemd-journal 0640, adm reading
    them through the inherited ACL. Returns systemd-journal's gid."""
    try:
        journal_gid = grp.getgrnam("systemd-journal").gr_gid
    except KeyError:
        journal_gid = 999  # allocated per machine (Debian's is dynamic); any gid outside the DaemonSet's
    directory = os.path.join(var_log, "journal")
    os.chown(directory, 0, journal_gid)
    os.chmod(directory, 0o2755)
    for name in ("system.posix_acl_access", "system.posix_acl_default"):
        os.setxattr(directory, name, _acl(7, 5, 5, 5))
    for f in os.listdir(directory):
        os.chown(os.path.join(directory, f), 0, journal_gid)
        os.chmod(os.path.join(directory, f), 0o640)
        os.setxattr(os.path.join(directory, f), "system.posix_acl_access", _acl(6, 4, 4, 0))
    return journal_gid


def projected_token(directory, ca_file):
    """What the kubelet writes for the DaemonSet's projected volume: the
    token and ca.crt, root-owned, mode 0444 (its defaultMode)."""
    os.makedirs(directory)
    with open(os.path.join(directory, "token"), "w") as f:
        f.write(TOKEN)
    shutil.copy(ca_file, os.path.join(directory, "ca.crt"))
    for name in ("token", "ca.crt"):
        os.chown(os.path.join(directory, name), 0, 0)
        os.chmod(os.path.join(directory, name), 0o444)
    return directory


# What a probe container reads, as one key=value per line in /out/answers.
# The stack is read with cat: busybox's head reports any read error as EIO,
# its cat says which (the kernel refuses the read, not the open, as uid 0).
# /proc/PID/stat's third field is the state ("containerd" has no space).
PROBE = r"""
h=/host/proc; p=%(pid)d
count() { n=0; for d in "$1"/[0-9]*; do n=$((n+1)); done; echo $n; }
{
echo "uid=$(id -u)"
echo "groups=$(id -G)"
echo "host_proc_pids=$(count $h)"
echo "own_proc_pids=$(count /proc)"
echo "runtime_listed=$(test -d $h/$p && echo yes || echo no)"
echo "runtime_state=$(cut -d' ' -f3 $h/$p/stat 2>&1)"
echo "runtime_comm=$(cat $h/$p/comm 2>&1)"
echo "runtime_wchan=$(cat $h/$p/wchan 2>&1)"
echo "runtime_cmdline=$(tr '\0' ' ' <$h/$p/cmdline 2>&1 | cut -c1-40)"
echo "runtime_stack=$(cat $h/$p/stack 2>&1 | head -n1)"
echo "runtime_fd=$(ls $h/$p/fd 2>&1 | head -n1)"
echo "host_mountinfo_lines=$(wc -l <$h/1/mountinfo 2>&1)"
echo "cgroup_pids_current=$(cat /host/sys/fs/cgroup/%(cgroup)s/pids.current 2>&1)"
echo "socket=$(test -w /run/containerd/containerd.sock && echo writable || echo denied)"
echo "journal=$(head -c 8 /var/log/journal/system.journal 2>&1)"
echo "token=$(cat %(token)s/token 2>&1)"
} >/out/answers 2>&1
"""


def run_probe(ctd, sandbox, spec, name, tmp, uid, gid, groups, runtime_pid, cgroup, host_pid=False):
    """Runs PROBE in the image with `spec`'s mounts and security settings as
    uid:gid with supplemental `groups`; returns its answers as a dict."""
    out = os.path.join(tmp, "probe-" + name)
    os.makedirs(out)
    os.chmod(out, 0o777)
    probe = dict(spec, name="probe-" + name, args=[], image=PROBE_IMAGE,
                 command=["/bin/sh", "-c", PROBE % {"pid": runtime_pid, "cgroup": cgroup, "token": TOKEN_PATH}],
                 mounts=spec["mounts"] + [{"container_path": "/out", "host_path": out, "readonly": False}],
                 run_as_user=uid, run_as_group=gid, supplemental_groups=groups, host_pid=host_pid)
    cid = ctd.driver("create-container-spec", sandbox, json.dumps(probe))
    ctd.driver("start-container", cid)
    harness.wait_until(lambda: ctd.container_status(cid)["state"] == "exited", 60, "probe %s to finish" % name)
    with open(os.path.join(out, "answers")) as f:
        answers = dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
    print("probe %-10s %s" % (name, json.dumps(answers)))
    return answers


def test_image_runs_as_the_daemonset():
    require(os.geteuid() == 0, "not root (debootstrap, chroot, containerd)")
    require(shutil.which("debootstrap"), "debootstrap not installed (scripts/install-deps image)")
    require(os.path.exists(BUSYBOX) and "statically linked" in subprocess.run(
        ["file", "-L", BUSYBOX], capture_output=True, text=True).stdout,
        "no static %s (busybox-static; scripts/install-deps image)" % BUSYBOX)
    reason = containerd_fixture.skip_reason()
    require(reason is None, str(reason))
    pod, c = daemonset_container()
    tmp = tempfile.mkdtemp(prefix="plegscope-image-")
    try:
        tarball = image_archive()
        root = os.path.join(image_check.cross_dir(), "amd64")
        print("SBOM: " + image_check.check_sbom(tarball, root))
        _, _, _, gz, raw = image_check.read_archive(tarball)
        print("image size: layer %d bytes gzip, %d bytes uncompressed" % (gz, raw))
        assert gz <= MAX_LAYER_GZIP, gz
        assert raw <= MAX_LAYER_UNCOMPRESSED, raw
        with contextlib.ExitStack() as stack:
            ctd = stack.enter_context(containerd_fixture.Containerd(harness.build_dir()))
            for tb in oci_image.build_e2e_images(os.path.join(tmp, "e2e-images")).values():
                ctd.import_image(tb)
            ctd.import_image(tarball)
            ctd.import_image(probe_image(tmp))
            images = ctd.images()
            print("images in containerd: %s" % images)
            assert any(i.endswith(c["image"].split("/", 1)[1]) or i == c["image"] for i in images), images

            # Another pod on the node: the agent must see it.
            web_uid = str(uuid.uuid4())
            web = ctd.driver("run-pod", "web-0", web_uid, "shop")
            web_c = ctd.driver("create-container", web, "web", oci_image.WORKLOAD_IMAGE, "/workload", "600000")
            ctd.driver("start-container", web_c)

            # The agent, as the DaemonSet runs it.
            socket_dir = os.path.dirname(ctd.sock)
            endpoint = next(e["value"] for e in c["env"] if e["name"] == "PLEGSCOPE_CONTAINER_RUNTIME_ENDPOINT")
            assert endpoint == "unix:///run/containerd/containerd.sock" and os.path.basename(ctd.sock) == "containerd.sock"
            # The host's /var/log and /run/log: a private journal with the
            # kubelet's PLEG line stands in for this machine's (never written).
            var_log, run_log = os.path.join(tmp, "var-log"), os.path.join(tmp, "run-log")
            os.makedirs(os.path.join(var_log, "journal"))
            os.makedirs(run_log)
            # and a hung-task report on the kernel transport (the 6.1 fixture: a shim in an overlayfs sync)
            with open(os.path.join(ROOT, "tests", "fixtures", "hung_task", "6.1_shim_overlay_umount.txt")) as f:
                hung_task_lines = f.read().splitlines()
            journal_export.write_journal(os.path.join(var_log, "journal", "system.journal"), [
                journal_export.unit_entry(time.time(), "kubelet.service", journal_export.KUBELET_PLEG_LINE)] +
                journal_export.kernel_report(time.time(), hung_task_lines))
            journal_gid = journal_as_on_a_node(var_log)
            # The runtime's socket as containerd leaves it, in a directory like /run/containerd.
            sock = os.stat(ctd.sock)
            print("socket %s: uid %d gid %d mode %o; directory mode %o" % (
                ctd.sock, sock.st_uid, sock.st_gid, sock.st_mode & 0o7777, os.stat(socket_dir).st_mode & 0o7777))
            assert (sock.st_uid, sock.st_gid, sock.st_mode & 0o777) == (0, 0, 0o660), sock
            assert os.stat(socket_dir).st_mode & 0o777 == 0o711
            kubelet = stack.enter_context(fake_kubelet.FakeKubelet(tmp, token=TOKEN))
            token_dir = projected_token(os.path.join(tmp, "kube-api-access"), kubelet.ca_file)
            spec = container_spec(pod, c, {"/run/containerd": socket_dir, "/var/log": var_log, "/run/log": run_log,
                                           "projected:kube-api-access": token_dir},
                                  harness.free_port(), kubelet.url)
            print("container config from deploy/daemonset.yaml: %s" % json.dumps(spec))
            agent_uid = str(uuid.uuid4())
            sandbox = ctd.driver("run-pod", "plegscope-" + agent_uid[:5], agent_uid, "plegscope")
            cid, base = start_agent(ctd, sandbox, spec)

            # the DaemonSet's hardening, as the container's process sees it.
            pids = ctd.container_pids(cid)
            assert pids, "no process in the agent container's cgroup"
            status = dict(line.split(":", 1) for line in open("/proc/%d/status" % min(pids)).read().splitlines()
                          if ":" in line)
            print("agent process %d: Uid %s CapEff %s CapBnd %s NoNewPrivs %s Seccomp %s" % (
                min(pids), status["Uid"].split()[0], status["CapEff"].strip(), status["CapBnd"].strip(),
                status["NoNewPrivs"].strip(), status["Seccomp"].strip()))
            assert int(status["CapEff"], 16) == 0 and int(status["CapBnd"], 16) == 0, status["CapEff"]
            assert status["NoNewPrivs"].strip() == "1" and status["Seccomp"].strip() == "2"
            psc = pod["securityContext"]
            assert status["Uid"].split()[0] == str(psc["runAsUser"]) != "0", status["Uid"]
            assert status["Gid"].split()[0] == str(psc["runAsGroup"]), status["Gid"]
            assert set(status["Groups"].split()) >= {str(g) for g in psc["supplementalGroups"]}, status["Groups"]
            print("agent process: Uid %s Gid %s Groups %s" % (status["Uid"].split()[0], status["Gid"].split()[0],
                                                             status["Groups"].strip()))
            mountinfo = open("/proc/%d/mountinfo" % min(pids)).read().splitlines()
            options = {line.split()[4]: line.split()[5].split(",") for line in mountinfo}
            for path in ("/", "/run/containerd", "/host/proc", "/var/log", "/run/log"):
                assert "ro" in options[path], (path, options.get(path))
            print("read-only in the container: / /run/containerd /host/proc /var/log /run/log")

            def relisted():
                m = harness.parse_metrics(harness.http(base + "/metrics")[1])
                return m if m.get("pleg_relist_duration_seconds_count", 0) >= 3 else None
            m = harness.wait_until(relisted, 30, "relists in the container")
            assert m.get("pleg_healthy") == 1
            # the projected token, read as that uid, accepted by the kubelet stand-in
            m = harness.wait_until(lambda: (lambda m: m if m.get("pleg_kubelet_up") == 1 else None)(
                harness.parse_metrics(harness.http(base + "/metrics")[1])), 30, "pleg_kubelet_up 1")
            assert kubelet.requests > 0
            info = m.find("plegscope_build_info")
            assert info and info[0].labels["runtime_name"] == "containerd", info
            print("/metrics: %d samples, pleg_healthy 1, runtime %s %s" % (
                len(m.samples), info[0].labels["runtime_name"], info[0].labels["runtime_version"]))

            def sees_web():
                pods = json.loads(harness.http(base + "/debug/pods")[1])["pods"]
                web_pod = [p for p in pods if p["uid"] == web_uid]
                return pods if web_pod and any(x["id"] == web_c for x in web_pod[0]["containers"]) else None
            pods = harness.wait_until(sees_web, 30, "the agent to see the other pod and its container")
            print("/debug/pods in the container: %s" % sorted("%s/%s" % (p["namespace"], p["name"]) for p in pods))
            assert any(p["uid"] == agent_uid for p in pods), "the agent does not see its own pod"

            status, text = harness.http(base + "/diagnose?format=text")
            assert status == 200, (status, text)
            print("/diagnose?format=text from the container:\n" + text)
            status, body = harness.http(base + "/diagnose")
            report = harness.report_json(body)
            assert report["node"] == NODE, report["node"]
            assert report["runtime"]["name"] == "containerd"
            assert report["pods"]["sandboxes"] >= 2, report["pods"]
            # The journal through the DaemonSet's read-only /var/log mount, read
            # with the image's libsystemd0.
            journal = harness.wait_until(lambda: json.loads(harness.http(base + "/diagnose")[1])["journal"], 30,
                                         "the kubelet's line from the mounted journal")
            print("journal marks from the container: %s" % json.dumps(journal))
            assert journal[0]["kind"] == "pleg_not_healthy" and journal[0]["unit"] == "kubelet.service", journal
            # The kernel's hung-task report from the same journal, as the DaemonSet's identity.
            hung = harness.wait_until(lambda: json.loads(harness.http(base + "/diagnose")[1])["host"]["hung_tasks"], 30,
                                      "the kernel's hung-task report from the mounted journal")
            print("kernel hung-task reports from the container: %s" % json.dumps(hung)[:400])
            assert hung[0]["pid"] == 4242 and hung[0]["classes"] == ["storage", "overlayfs"], hung
            pressure = report["node_pressure"]
            load1, entities = loadavg("/proc/%d/root/host/proc" % min(pids))
            print("node_pressure from the container: %s; the container's /host/proc/loadavg: load1 %.2f, "
                  "%d tasks" % (json.dumps(pressure), load1, entities))
            assert None not in (pressure["cpu_some_avg10"], pressure["load1"], pressure["pids"], pressure["pid_max"]), pressure
            assert abs(pressure["pids"] - entities) < max(50, entities // 2), (pressure["pids"], entities)
            assert abs(pressure["load1"] - load1) < max(2.0, load1), (pressure["load1"], load1)

            # Contrast: the same container without the /host/proc mount has
            # no node pressure to report (its --proc-path=/host/proc is empty).
            bare = dict(spec, name="plegscope-no-host-proc",
                        mounts=[m for m in spec["mounts"] if m["container_path"] != "/host/proc"],
                        args=[a if not a.startswith("--listen-address=") else
                              "--listen-address=127.0.0.1:%d" % harness.free_port() for a in spec["args"]])
            _, bare_base = start_agent(ctd, sandbox, bare)
            bare_pressure = json.loads(harness.http(bare_base + "/diagnose")[1])["node_pressure"]
            print("without the /host/proc mount: node_pressure %s" % json.dumps(bare_pressure))
            assert all(v is None for v in bare_pressure.values()), bare_pressure

            # The host section: the runtime's shims found in /host/proc, without hostPID.
            host = harness.wait_until(lambda: (lambda h: h if h["processes"].get("shims_total") else None)(
                json.loads(harness.http(base + "/diagnose")[1])["host"]), 30, "shims in the host section")
            print("host section from the container: %s" % json.dumps(host)[:600])
            assert host["processes"]["shims_total"] >= 1 and not host["processes"].get("error"), host
            # each shim's sandbox id comes from its cmdline, read as the DaemonSet's uid
            assert {sh["sandbox_id"] for sh in host["processes"]["shims"]} >= {sandbox}, host["processes"]["shims"]

            measure_privileges(ctd, sandbox, spec, tmp, psc, journal_gid)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure_privileges(ctd, sandbox, spec, tmp, psc, journal_gid):
    """Each line of README "Privileges, and why", as the DaemonSet's identity
    and without what each setting adds."""
    runtime_pid = ctd.proc.pid  # containerd, root with every capability, as on a node
    cgroup = ("pids" if os.path.isdir("/sys/fs/cgroup/pids") else "") + ctd.cgroup_parent
    uid, gid, groups = psc["runAsUser"], psc["runAsGroup"], psc["supplementalGroups"]
    own = run_probe(ctd, sandbox, spec, "daemonset", tmp, uid, gid, groups, runtime_pid, cgroup)
    bare = run_probe(ctd, sandbox, spec, "no-groups", tmp, uid, uid, [], runtime_pid, cgroup)
    root = run_probe(ctd, sandbox, spec, "uid0", tmp, 0, 0, [], runtime_pid, cgroup)
    host_pid_sandbox = ctd.driver("run-pod", "plegscope-hostpid", str(uuid.uuid4()), "plegscope", "host-pid")
    host_pid = run_probe(ctd, host_pid_sandbox, spec, "hostpid", tmp, uid, gid, groups, runtime_pid, cgroup,
                         host_pid=True)

    # group 0 reaches the root:root 0660 socket; without it, nothing does
    assert own["uid"] == str(uid) and own["socket"] == "writable", own
    assert bare["socket"] == "denied", bare
    # the journal (root:systemd-journal 0640) through the adm ACL, not through systemd-journal's gid
    assert journal_gid not in groups and own["journal"] == "LPKSHHRH", own
    assert "Permission denied" in bare["journal"], bare
    assert host_pid["journal"] == own["journal"], host_pid  # hostPID changes no file's permissions
    assert root["journal"] == own["journal"], root  # uid 0 owns the files: no capability needed
    # the projected token is 0444: any uid reads it
    assert own["token"] == bare["token"] == TOKEN, (own["token"], bare["token"])
    # /host/sys: cgroup files are world-readable
    assert own["cgroup_pids_current"].isdigit(), own
    # /host/proc without hostPID: every host process, the runtime's included;
    # the container's own /proc only its own
    for answers in (own, bare, root, host_pid):
        assert answers["runtime_listed"] == "yes" and answers["runtime_comm"] == "containerd", answers
        assert answers["runtime_state"] in ("R", "S", "D"), answers
        assert answers["runtime_cmdline"].startswith("containerd"), answers
        assert answers["host_mountinfo_lines"].isdigit(), answers
    assert int(own["own_proc_pids"]) < 10 < int(own["host_proc_pids"]), own
    # with hostPID the container's own /proc is the host's; /host/proc shows the same
    assert abs(int(host_pid["own_proc_pids"]) - int(host_pid["host_proc_pids"])) <= 5, host_pid
    assert abs(int(host_pid["host_proc_pids"]) - int(own["host_proc_pids"])) <= max(20, int(own["host_proc_pids"]) // 10)
    # What only ptrace rights over the runtime (CAP_SYS_PTRACE) or
    # CAP_SYS_ADMIN give: uid 0 with every capability dropped has them no
    # more than uid 65532. The runtime's wchan reads 0, its kernel stack is
    # refused, with or without hostPID.
    for answers in (own, root, host_pid):
        assert answers["runtime_wchan"] == "0", answers
        assert "Permission denied" in answers["runtime_stack"], answers
    # What uid 0 adds: listing a root process's open files (fd/, owned by
    # root, 0500), which the agent never reads.
    assert "Permission denied" in own["runtime_fd"] and "Permission denied" in host_pid["runtime_fd"], own
    assert root["runtime_fd"].isdigit(), root
    print("measured: /host/proc lists %s processes without hostPID (own /proc %s), %s with it (own /proc %s); "
          "runtime wchan %r as uid %d, %r as uid 0; fd/ %r as uid %d, %r as uid 0"
          % (own["host_proc_pids"], own["own_proc_pids"], host_pid["host_proc_pids"], host_pid["own_proc_pids"],
             own["runtime_wchan"], uid, root["runtime_wchan"], own["runtime_fd"][:40], uid, root["runtime_fd"]))


# --kernel-stacks as deploy/components/kernel-stacks ships it ------------------

FREEZER = cgroups.FREEZER
CAP_PERFMON, CAP_BPF = 38, 39


def json_patch(doc, op):
    """One RFC 6902 operation (add, replace, remove: what kustomize's JSON
    patches use) applied to `doc` in place. A missing parent raises, as
    kustomize fails the build."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:]]
    parent = doc
    for t in tokens[:-1]:
        parent = parent[int(t)] if isinstance(parent, list) else parent[t]
    last = tokens[-1]
    if op["op"] not in ("add", "replace", "remove"):
        raise AssertionError("JSON patch op %r: this test applies add, replace and remove" % op["op"])
    if isinstance(parent, list):
        if op["op"] == "add":
            parent.insert(len(parent) if last == "-" else int(last), op["value"])
        elif op["op"] == "replace":
            parent[int(last)] = op["value"]
        else:
            del parent[int(last)]
    else:
        if op["op"] != "add":
            assert last in parent, "%s: %s is not there" % (op["op"], op["path"])
        if op["op"] == "remove":
            del parent[last]
        else:
            parent[last] = op["value"]


def daemonset_with_component(component):
    """deploy/daemonset.yaml's DaemonSet with the JSON patches of
    deploy/components/COMPONENT applied to it, as kustomize applies them:
    what a cluster gets from an overlay naming that component."""
    with open(os.path.join(ROOT, "deploy", "daemonset.yaml")) as f:
        ds = yaml.safe_load(f)
    with open(os.path.join(ROOT, "deploy", "components", component, "kustomization.yaml")) as f:
        comp = yaml.safe_load(f)
    assert comp["kind"] == "Component", comp["kind"]
    # Anything but JSON patches (resources, strategic merges, generators)
    # would change the node in ways this test does not apply.
    assert set(comp) <= {"apiVersion", "kind", "patches"}, sorted(comp)
    applied = 0
    for p in comp["patches"]:
        t = p["target"]
        if t.get("kind") != ds["kind"] or t.get("name") != ds["metadata"]["name"]:
            continue
        ops = yaml.safe_load(p["patch"])
        assert isinstance(ops, list), "a patch of %s that is not a JSON patch: %r" % (component, p["patch"][:80])
        for op in ops:
            json_patch(ds, op)
            applied += 1
    assert applied, "deploy/components/%s patches no DaemonSet %s" % (component, ds["metadata"]["name"])
    pod = ds["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    return pod, container


@contextlib.contextmanager
def frozen(pid, name):
    """`pid` stopped in the kernel by the cgroup v1 freezer, every task of it
    in D (tests/e2e/cgroups.py, as tests/e2e/test_stuck_shim.py stops a
    shim); thawed, moved back and the cgroup removed on exit."""
    try:
        yield cgroups.freeze(pid, name)
    finally:
        cgroups.thaw(os.path.join(cgroups.FREEZER, "plegscope-freeze-" + name))


def seccomp_allows(oci_spec, syscall):
    """Whether the container's seccomp filter, as containerd wrote it into
    the OCI spec, lets `syscall` through: "allowed" by a rule without argument
    conditions, "conditional" by one with them, "refused" when only the
    default action (an error) applies to it."""
    seccomp = oci_spec["linux"]["seccomp"]
    verdict = "refused" if seccomp["defaultAction"] != "SCMP_ACT_ALLOW" else "allowed"
    for rule in seccomp.get("syscalls") or []:
        if syscall in rule["names"] and rule["action"] == "SCMP_ACT_ALLOW":
            verdict = "conditional" if rule.get("args") else "allowed"
            if verdict == "allowed":
                break
    return verdict


def refused_bpf(ctd, sandbox, spec, oci, tmp):
    """The component's container with the filter containerd built for it
    less the rule that lets bpf() through with CAP_BPF (the profile of a
    runtime without that rule), as a Localhost profile: the agent says why
    it cannot read kernel stacks."""
    seccomp = json.loads(json.dumps(oci["linux"]["seccomp"]))
    for rule in seccomp["syscalls"]:
        rule["names"] = [n for n in rule["names"] if n != "bpf"]
    seccomp["syscalls"] = [r for r in seccomp["syscalls"] if r["names"]]
    path = os.path.join(tmp, "no-bpf-seccomp.json")
    with open(path, "w") as f:
        json.dump(seccomp, f)
    port = harness.free_port()
    args = [a if not a.startswith("--listen-address=") else "--listen-address=127.0.0.1:%d" % port
            for a in spec["args"]]
    _, base = start_agent(ctd, sandbox, dict(spec, name="plegscope-no-bpf", args=args, seccomp="Localhost:" + path))

    def said():
        ks = json.loads(harness.http(base + "/diagnose")[1])["host"]["processes"]["kernel_stacks"]
        return ks if ks["error"] else None
    ks = harness.wait_until(said, 30, "the agent under a profile refusing bpf() to say why")
    print("under containerd's profile without its bpf rule: kernel_stacks %s" % json.dumps(ks))
    assert ks["enabled"] and not ks["available"], ks
    # the capabilities are there: the refusal is put on the profile
    assert "lacks" not in ks["error"] and "Operation not permitted" in ks["error"], ks["error"]
    assert "seccomp filter" in ks["error"] and "RuntimeDefault" in ks["error"], ks["error"]
    return ks


def test_kernel_stacks_component_reads_a_frozen_shims_stack():
    """The image's agent with deploy/components/kernel-stacks applied to the
    DaemonSet (its seccomp profile kept) reads, through the BPF task
    iterator, the kernel stack of a shim of the runtime frozen in D."""
    require(os.geteuid() == 0, "not root (debootstrap, chroot, containerd, the cgroup freezer)")
    require(shutil.which("debootstrap"), "debootstrap not installed (scripts/install-deps image)")
    reason = containerd_fixture.skip_reason()
    require(reason is None, str(reason))
    require(os.path.isfile(os.path.join(FREEZER, "freezer.state")) or os.path.isdir(FREEZER),
            "no cgroup v1 freezer at %s (the test stops a shim with it)" % FREEZER)
    require(os.path.exists("/sys/kernel/btf/vmlinux"), "this kernel has no BTF (/sys/kernel/btf/vmlinux)")
    pod, c = daemonset_with_component("kernel-stacks")
    sc, psc = c["securityContext"], pod["securityContext"]
    profile = sc.get("seccompProfile", psc.get("seccompProfile"))
    print("deploy/daemonset.yaml + deploy/components/kernel-stacks: args %s, capabilities %s, runAsUser %s, "
          "hostPID %s, seccompProfile %s" % (c["args"], sc["capabilities"], sc.get("runAsUser"), pod.get("hostPID"),
                                             profile))
    assert "--kernel-stacks" in c["args"], c["args"]
    tmp = tempfile.mkdtemp(prefix="plegscope-image-kstacks-")
    try:
        tarball = image_archive()
        with contextlib.ExitStack() as stack:
            ctd = stack.enter_context(containerd_fixture.Containerd(harness.build_dir()))
            for tb in oci_image.build_e2e_images(os.path.join(tmp, "e2e-images")).values():
                ctd.import_image(tb)
            ctd.import_image(tarball)
            web = ctd.driver("run-pod", "web-0", str(uuid.uuid4()), "shop")
            web_c = ctd.driver("create-container", web, "web", oci_image.WORKLOAD_IMAGE, "/workload", "600000")
            ctd.driver("start-container", web_c)
            (shim,) = [pid for pid, _, sid in ctd.shim_pids() if sid == web]

            var_log, run_log = os.path.join(tmp, "var-log"), os.path.join(tmp, "run-log")
            os.makedirs(os.path.join(var_log, "journal"))
            os.makedirs(run_log)
            kubelet = stack.enter_context(fake_kubelet.FakeKubelet(tmp, token=TOKEN))
            token_dir = projected_token(os.path.join(tmp, "kube-api-access"), kubelet.ca_file)
            spec = container_spec(pod, c, {"/run/containerd": os.path.dirname(ctd.sock), "/var/log": var_log,
                                           "/run/log": run_log, "projected:kube-api-access": token_dir},
                                  harness.free_port(), kubelet.url)
            print("container config: %s" % json.dumps(spec))
            agent_uid = str(uuid.uuid4())
            sandbox = ctd.driver("run-pod", "plegscope-" + agent_uid[:5], agent_uid, "plegscope",
                                 *(["host-pid"] if spec.get("host_pid") else []))
            cid, base = start_agent(ctd, sandbox, spec)

            pids = ctd.container_pids(cid)
            status = dict(line.split(":", 1) for line in open("/proc/%d/status" % min(pids)).read().splitlines()
                          if ":" in line)
            eff = int(status["CapEff"], 16)
            print("agent process %d: Uid %s CapEff %#x CapBnd %s NoNewPrivs %s Seccomp %s" % (
                min(pids), status["Uid"].split()[0], eff, status["CapBnd"].strip(), status["NoNewPrivs"].strip(),
                status["Seccomp"].strip()))
            assert eff == (1 << CAP_BPF) | (1 << CAP_PERFMON), "CapEff %#x" % eff
            assert status["NoNewPrivs"].strip() == "1", status["NoNewPrivs"]
            # The filter containerd built for this container: what its profile
            # lets through with these capabilities.
            info = json.loads(ctd.ctr("containers", "info", cid))
            oci = info["Spec"]
            has_filter = bool(oci["linux"].get("seccomp"))
            assert has_filter == (status["Seccomp"].strip() == "2"), (has_filter, status["Seccomp"])
            verdicts = {s: seccomp_allows(oci, s) for s in ("bpf", "perf_event_open")} if has_filter else {}
            print("containerd %s, seccomp %s with CAP_BPF and CAP_PERFMON: %s" % (
                containerd_fixture.containerd_version(), profile["type"] if profile else None,
                json.dumps(verdicts) if has_filter else "no filter"))
            if has_filter:
                # The same profile without the two capabilities (created, never
                # started): what lets bpf() through is the capability, not the profile.
                bare = dict(spec, name="plegscope-no-bpf-caps", add_capabilities=[])
                bare_oci = json.loads(ctd.ctr("containers", "info", ctd.driver(
                    "create-container-spec", sandbox, json.dumps(bare))))["Spec"]
                bare_verdicts = {s: seccomp_allows(bare_oci, s) for s in verdicts}
                print("the same profile without them: %s" % json.dumps(bare_verdicts))
                assert bare_verdicts["bpf"] == "refused", bare_verdicts

            def kernel_stacks():
                ks = json.loads(harness.http(base + "/diagnose")[1])["host"]["processes"]["kernel_stacks"]
                return ks if ks["available"] or ks["error"] else None
            ks = harness.wait_until(kernel_stacks, 30, "host.processes.kernel_stacks to say whether it is available")
            print("kernel_stacks before the freeze: %s" % json.dumps(ks))
            assert ks["enabled"] and ks["available"], "the component's agent cannot read kernel stacks: %s (seccomp %s)" % (
                ks, json.dumps(verdicts))
            if has_filter:
                refused_bpf(ctd, sandbox, spec, oci, tmp)

            with frozen(shim, ctd.name):
                def stack_read():
                    rep = json.loads(harness.http(base + "/diagnose")[1])
                    entries = [b for b in rep["host"]["processes"]["blocked"] if b["pid"] == shim]
                    return entries and entries[0].get("kernel_stack") and (rep, entries[0])
                rep, blocked = harness.wait_until(stack_read, 60, "the frozen shim's kernel stack in /diagnose")
                ks = rep["host"]["processes"]["kernel_stacks"]
                print("kernel_stacks: %s" % json.dumps(ks))
                print("the frozen shim's entry: %s" % json.dumps(blocked))
                shim_hung = next((x for x in rep["causes"] if x["id"] == "shim_hung"), None)
                print("shim_hung: %s" % (shim_hung["summary"] if shim_hung else None))
                assert ks["available"] and ks["tasks_read"] >= 1, ks
                k = blocked["kernel_stack"]
                assert k["class"] == "freezer", "the frozen shim's most telling stack is the freezer's: %r" % k
                assert k["frames"] and k["top"] in k["frames"], k
                assert any(w in k["top"] for w in ("refrigerator", "freezer", "freeze")), k
                assert os.path.isdir("/proc/%d/task/%d" % (shim, k["tid"])), k
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    harness.main(globals())
