"""The image, built and run as the DaemonSet runs it.

scripts/build-image builds deploy/Dockerfile without a registry (debootstrap
minbase bookworm -> buildah commit as debian:bookworm-slim -> buildah bud);
PLEGSCOPE_IMAGE_WORK=DIR keeps its base image between runs,
PLEGSCOPE_IMAGE_ARCHIVE=FILE uses an archive it wrote before instead.
The image is imported into a private containerd (tests/e2e's fixture) and
started through CRI with the container of deploy/daemonset.yaml, translated
the way the kubelet translates a pod spec: its args and env (NODE_NAME from
the downward API), read-only root filesystem, every capability dropped, no
privilege escalation, uid/gid 0, RuntimeDefault seccomp, the runtime's
socket directory mounted read-only and the host's /proc at /host/proc.

Where this differs from a cluster (no kubelet, no CNI): the pod uses the
host network, the socket directory is the fixture's (it holds
containerd.sock, as /run/containerd does), and --listen-address gets a free
port instead of 9547 so parallel runs do not collide.

Asserted: the agent in the container relists that containerd, sees the
test's other pod and container, serves /metrics and /diagnose, and its
node_pressure comes from the /proc mounted at /host/proc (PSI, load and
task count as the kernel reports them there; the same container without
that mount reports none)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import containerd_fixture  # noqa: E402
import harness  # noqa: E402
import journal_export  # noqa: E402  (tests/lib)
import oci_image  # noqa: E402
import yaml  # noqa: E402

ROOT = harness.source_dir()
NODE = "image-node"


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


def container_spec(pod, c, host_paths, port):
    """The CRI ContainerConfig the kubelet would build from the DaemonSet's
    container (as cri-driver create-container-spec JSON)."""
    env = {}
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = e["value"]
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName":
            env[e["name"]] = NODE
        else:
            raise AssertionError("env %s: the test knows value and fieldRef spec.nodeName only" % e)
    args = []
    for a in c.get("args", []):
        if a.startswith("--listen-address="):
            a = "--listen-address=127.0.0.1:%d" % port  # host network here: a free port
        args.append(a)
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = []
    for m in c["volumeMounts"]:
        host = volumes[m["name"]]["hostPath"]["path"]
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
    seccomp = sc.get("seccompProfile", psc.get("seccompProfile", {})).get("type")
    if seccomp:
        spec["seccomp"] = seccomp
    return spec


def build_image(out):
    prebuilt = os.environ.get("PLEGSCOPE_IMAGE_ARCHIVE")
    if prebuilt:  # an archive scripts/build-image wrote earlier (development only)
        shutil.copy(prebuilt, out)
        print("image: prebuilt %s (PLEGSCOPE_IMAGE_ARCHIVE), not built by this run" % prebuilt)
        return
    work = os.environ.get("PLEGSCOPE_IMAGE_WORK")
    env = dict(os.environ)
    if work:
        env["PLEGSCOPE_IMAGE_WORK"] = work
    t0 = time.monotonic()
    r = subprocess.run([os.path.join(ROOT, "scripts", "build-image"), out], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout, end="")
    assert r.returncode == 0, "scripts/build-image failed"
    print("image build: %.0fs%s" % (time.monotonic() - t0,
                                    " (base image reused from %s)" % work if work and "debootstrap" not in r.stdout else ""))


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


def test_image_runs_as_the_daemonset():
    require(os.geteuid() == 0, "not root (debootstrap, buildah, containerd)")
    for tool in ("debootstrap", "buildah"):
        require(shutil.which(tool), "%s not installed (scripts/install-deps image)" % tool)
    reason = containerd_fixture.skip_reason()
    require(reason is None, str(reason))
    pod, c = daemonset_container()
    tmp = tempfile.mkdtemp(prefix="plegscope-image-")
    try:
        tarball = os.path.join(tmp, "plegscope-oci.tar")
        build_image(tarball)
        with containerd_fixture.Containerd(harness.build_dir()) as ctd:
            for tb in oci_image.build_e2e_images(os.path.join(tmp, "e2e-images")).values():
                ctd.import_image(tb)
            ctd.import_image(tarball)
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
            journal_export.write_journal(os.path.join(var_log, "journal", "system.journal"), [
                journal_export.unit_entry(time.time(), "kubelet.service", journal_export.KUBELET_PLEG_LINE)])
            spec = container_spec(pod, c, {"/run/containerd": socket_dir, "/var/log": var_log, "/run/log": run_log},
                                  harness.free_port())
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
            assert status["Uid"].split()[0] == "0"
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
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    harness.main(globals())
