"""A one-node Kubernetes cluster of real parts, for the cluster tests.

etcd, kube-apiserver, kube-controller-manager, kube-scheduler and a kubelet
(1.37 by default; env PLEGSCOPE_KUBERNETES=1.36 or 1.34 picks a matrix row of
versions.env, parts.row()) registered as a Node, on the e2e tests' private
containerd (tests/e2e/containerd_fixture.py; its bed by env PLEGSCOPE_CONTAINERD,
2.3 by default), built from Go modules by scripts/build-cluster-parts.
Everything listens on 127.0.0.1 (the API server and the kubelet on the
node's address, on lo) and lives under the containerd fixture's temp dir, so
its cleanup (containers, shims, mounts, the cgroups under its cgroup parent,
the dir) takes the kubelet's pods and volumes too; the CNI bridge is removed
here. Nothing is pulled: the pause and workload images are built locally and
imported under containerd's sandbox_image name.

    with Cluster() as c:
        c.kubectl("get", "nodes")

Cluster(runtime="crio"): the kubelet on the e2e CRI-O, /run/crio/crio.sock (crio_node.py).

Settings the sandbox needs, each named where it is set (KubeletConfiguration):
  failSwapOn: false            a host with swap on still starts the kubelet
  failCgroupV1: false          kubelets from 1.35 on refuse a cgroup v1 host without it
  cgroupDriver: cgroupfs       containerd's runc runs with SystemdCgroup = false
  cgroupRoot: <fixture parent> QoS cgroups under a private parent, removed after
  imageGC*ThresholdPercent     containerd 1.6.20 does not protect the sandbox
                               image from the kubelet's image GC (1.6.22 does)
  evictionHard (tiny)          a busy shared disk must not evict the test pods
  makeIPTablesUtilChains: false  no iptables rules on the host
  podLogsDir                   pod logs under the temp dir, not /var/log/pods
  kernel tunables              the kubelet sets vm.overcommit_memory, kernel.panic
                               and others (protectKernelDefaults: false); the
                               harness restores the host's values after
  --v 2                        the sync loop logs each PLEG event of a live pod at V(2)
                               (pleg_events.py); V(4) would flood the log with every sync
  --node-ip on lo              the kubelet refuses a loopback node IP, and the
                               API server will not proxy to one; a TEST-NET-1
                               address added to lo (this kernel has no dummy
                               links) is neither and routes nowhere
"""

import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))

import cgroups  # noqa: E402  tests/e2e
import harness  # noqa: E402  tests/lib
import oci_image  # noqa: E402  tests/e2e
import parts  # noqa: E402
from containerd_fixture import Containerd, skip_reason  # noqa: E402
import crio_node  # noqa: E402
from harness import Process, free_port, wait_until  # noqa: E402
from pki import Pki  # noqa: E402

NODE = "pscl-node"
# One slot per test process: cluster tests of several checkouts (and CI) on
# one machine never share a bridge, a node address or a pod subnet, nor tear
# down each other's. A test that runs a second cluster in a child process
# hands it a slot of its own (slot_for_child), never its parent's.
_SLOT = int(os.environ.get("PLEGSCOPE_CLUSTER_SLOT", os.getpid() % 60))
BRIDGE = "pscl-%d" % _SLOT
NODE_IP = "192.0.2.%d" % (130 + _SLOT)
AGENT_USER = "system:serviceaccount:plegscope:plegscope"
# The bridge plugin, as the pods' gateway, turns on IPv4 forwarding.
KERNEL_TUNABLES = ("vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
                   "kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes", "net/ipv4/ip_forward")
POD_SUBNET = "10.244.%d.0/24" % (100 + _SLOT)
SERVICE_RANGE = "10.0.0.0/24"


_T0 = time.monotonic()


def slot_for_child():
    """A child's env for a cluster beside ours: the slot half the range away."""
    return {"PLEGSCOPE_CLUSTER_SLOT": str((_SLOT + 30) % 60)}


def read_tunables():
    """The host's values of the kernel tunables a kubelet sets."""
    out = {}
    for t in KERNEL_TUNABLES:
        with open("/proc/sys/" + t) as f:
            out[t] = f.read().strip()
    return out


def restore_tunables(saved):
    for t, v in saved.items():
        try:
            with open("/proc/sys/" + t, "w") as f:
                f.write(v)
        except OSError as e:
            log("could not restore %s to %s: %s" % (t, v, e))


def log(msg):
    # Seconds since the test started: where a test's time goes.
    print("[cluster +%.0fs] %s" % (time.monotonic() - _T0, msg), flush=True)


class Cluster:
    def __init__(self, kubelet_flags=(), runtime="containerd", own_tunables=True, containerd_nri=True):
        """RUNTIME "containerd" (the e2e containerd fixture) or "crio" (the
        e2e CRI-O fixture, on /run/crio/crio.sock). OWN_TUNABLES False: the
        caller saves the kernel tunables before any kubelet and restores them after.
        CONTAINERD_NRI False: containerd 2.x with its NRI plugin disabled (no effect on 1.6,
        which has none on)."""
        self.containerd_nri = containerd_nri
        self.bins = parts.binaries()
        if runtime not in ("containerd", "crio"):
            raise ValueError("runtime %r: containerd or crio" % runtime)
        self.runtime = runtime
        reason = skip_reason() if runtime == "containerd" else crio_node.skip_reason()
        if reason:
            raise harness.Skip(reason)
        self.kubelet_flags = list(kubelet_flags)
        self.ctd = None
        self.procs = {}
        self.tunables, self.own_tunables = {}, own_tunables
        self.node_ip_added = False

    # -- lifecycle ----------------------------------------------------------
    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc):
        self.cleanup()
        return False

    def _start(self):
        t0 = time.monotonic()
        self.ctd = (Containerd(harness.build_dir(), nri=self.containerd_nri) if self.runtime == "containerd"
                    else crio_node.make_crio())
        self.dir = os.path.join(self.ctd.tmp, "cluster")
        os.makedirs(self.dir)
        self._cni_config()
        self._node_link()
        self.ctd.start()
        for name, tarball in oci_image.build_e2e_images(os.path.join(self.dir, "images")).items():
            if self.runtime == "crio":
                self.ctd.import_image(tarball, name)  # CRI-O's copyimg names what it stores
            else:
                self.ctd.import_image(tarball)
        self.pki = Pki(os.path.join(self.dir, "pki"))
        self._start_etcd()
        self._start_apiserver()
        self._start_controllers()
        self._start_kubelet()
        wait_until(self.node_ready, 120, "node %s Ready" % NODE, interval=0.5)
        log("cluster up in %.1fs: node %s Ready" % (time.monotonic() - t0, NODE))

    def _cni_config(self):
        # Debian's plugins live in /usr/lib/cni; the fixture's containerd reads
        # its own bin dir, so link them there. A bridge of our own, the pods'
        # gateway (its address and the pod subnet's route go with the link),
        # no masquerade: no iptables rule on the host. Pods reach the node's
        # address and the host reaches the pods (Prometheus, the pod proxy).
        bin_dir = os.path.join(self.ctd.tmp, "cni", "bin")
        os.makedirs(bin_dir, exist_ok=True)  # CRI-O reads /usr/lib/cni itself; the links stay unused
        for p in ("bridge", "host-local", "loopback"):
            src = os.path.join("/usr/lib/cni", p)
            if not os.path.exists(src):
                raise harness.Skip("%s missing (Debian's containernetworking-plugins)" % src)
            os.symlink(src, os.path.join(bin_dir, p))
        conf = {"cniVersion": "0.4.0", "name": "pscl", "plugins": [
            {"type": "bridge", "bridge": BRIDGE, "isGateway": True, "ipMasq": False,
             "ipam": {"type": "host-local", "ranges": [[{"subnet": POD_SUBNET}]],
                      # Through the gateway, the node's address only; the
                      # gateway named, since CRI-O's CNI CHECK compares the
                      # route it finds in the pod with this one as written.
                      "routes": [{"dst": NODE_IP + "/32", "gw": POD_SUBNET.rsplit(".", 1)[0] + ".1"}],
                      "dataDir": os.path.join(self.ctd.tmp, "cni", "ipam")}}]}
        with open(os.path.join(self.ctd.tmp, "cni", "conf", "10-pscl.conflist"), "w") as f:
            json.dump(conf, f)

    def _node_link(self):
        cmd = ["ip", "addr", "add", NODE_IP + "/32", "dev", "lo"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s: %s" % (" ".join(cmd), r.stderr.strip()))
        self.node_ip_added = True

    def _proc(self, name, args, ready, timeout=60):
        p = Process(name, args)
        self.procs[name] = p

        def up():
            if not p.alive():
                raise AssertionError("%s exited with %s:\n%s" % (name, p.returncode, p.tail(30)))
            return ready()
        wait_until(up, timeout, "%s ready" % name, interval=0.2)
        return p

    def _start_etcd(self):
        self.etcd_port, peer = free_port(), free_port()
        url = "http://127.0.0.1:%d" % self.etcd_port
        peer_url = "http://127.0.0.1:%d" % peer
        args = [self.bins["etcd"], "--name", "pscl", "--data-dir", os.path.join(self.dir, "etcd"),
                "--listen-client-urls", url, "--advertise-client-urls", url,
                "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
                "--initial-cluster", "pscl=" + peer_url, "--unsafe-no-fsync",
                "--log-level", "warn"]
        self._proc("etcd", args, lambda: harness.http(url + "/health")[0] == 200)

    def _start_apiserver(self):
        pki = self.pki
        cert, key = pki.issue("apiserver", "kube-apiserver", dns=["localhost", "kubernetes",
                              "kubernetes.default", "kubernetes.default.svc"],
                              ips=["127.0.0.1", "10.0.0.1", NODE_IP], server=True)
        kcert, kkey = pki.issue("apiserver-kubelet", "kube-apiserver-kubelet-client", ["system:masters"])
        self.api_port = free_port()
        # On the node's address, which the pods reach through their gateway.
        self.server = "https://%s:%d" % (NODE_IP, self.api_port)
        # Every request of the shipped ServiceAccount, and nothing else, in
        # the audit log: what plegscope asks of the API server, counted exactly.
        policy = os.path.join(self.dir, "audit-policy.json")
        with open(policy, "w") as f:
            json.dump({"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "omitStages": ["RequestReceived"],
                       "rules": [{"level": "Metadata", "users": [AGENT_USER]}, {"level": "None"}]}, f)
        self.audit_log = os.path.join(self.dir, "audit.log")
        args = [self.bins["kube-apiserver"], "--etcd-servers", "http://127.0.0.1:%d" % self.etcd_port,
                "--bind-address", NODE_IP, "--advertise-address", NODE_IP,
                "--secure-port", str(self.api_port), "--tls-cert-file", cert, "--tls-private-key-file", key,
                "--client-ca-file", pki.ca_cert,
                "--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file", pki.sa_pub, "--service-account-signing-key-file", pki.sa_key,
                "--service-cluster-ip-range", SERVICE_RANGE, "--authorization-mode", "Node,RBAC",
                "--enable-admission-plugins", "NodeRestriction", "--allow-privileged=true",
                "--kubelet-client-certificate", kcert, "--kubelet-client-key", kkey,
                "--kubelet-certificate-authority", pki.ca_cert,
                "--kubelet-preferred-address-types", "InternalIP",
                "--endpoint-reconciler-type", "none", "--profiling=false",
                "--audit-policy-file", policy, "--audit-log-path", self.audit_log]
        self.procs["kube-apiserver"] = Process("kube-apiserver", args)
        acert, akey = pki.issue("admin", "pscl-admin", ["system:masters"])
        self.admin_kubeconfig = pki.kubeconfig("admin", self.server, acert, akey)
        self._proc_wait("kube-apiserver", lambda: self.kubectl("get", "--raw", "/readyz", check=False)
                        .returncode == 0, 120)

    def _proc_wait(self, name, ready, timeout):
        p = self.procs[name]

        def up():
            if not p.alive():
                raise AssertionError("%s exited with %s:\n%s" % (name, p.returncode, p.tail(30)))
            return ready()
        wait_until(up, timeout, "%s ready" % name, interval=0.5)

    def _start_controllers(self):
        pki = self.pki
        cm = pki.kubeconfig("controller-manager", self.server,
                            *pki.issue("controller-manager", "system:kube-controller-manager"))
        args = [self.bins["kube-controller-manager"], "--kubeconfig", cm,
                "--authentication-kubeconfig", cm, "--authorization-kubeconfig", cm,
                "--bind-address", "127.0.0.1", "--secure-port", str(free_port()),
                "--service-account-private-key-file", pki.sa_key, "--root-ca-file", pki.ca_cert,
                "--use-service-account-credentials=true", "--leader-elect=false",
                "--cluster-signing-cert-file", pki.ca_cert, "--cluster-signing-key-file", pki.ca_key,
                "--service-cluster-ip-range", SERVICE_RANGE, "--allocate-node-cidrs=false"]
        self.procs["kube-controller-manager"] = Process("kube-controller-manager", args)
        sc = pki.kubeconfig("scheduler", self.server, *pki.issue("scheduler", "system:kube-scheduler"))
        args = [self.bins["kube-scheduler"], "--kubeconfig", sc, "--authentication-kubeconfig", sc,
                "--authorization-kubeconfig", sc, "--leader-elect=false",
                "--bind-address", "127.0.0.1", "--secure-port", str(free_port())]
        self.procs["kube-scheduler"] = Process("kube-scheduler", args)
        # The default ServiceAccount is what the controller-manager makes first.
        self._proc_wait("kube-controller-manager",
                        lambda: self.kubectl("get", "serviceaccount", "default", check=False).returncode == 0,
                        120)

    def _kubelet_config(self, root):
        self.kubelet_port, self.kubelet_healthz_port = free_port(), free_port()
        cert, key = self.pki.issue("kubelet-serving", NODE, dns=[NODE, "localhost"],
                                   ips=["127.0.0.1", NODE_IP], server=True)
        cfg = {
            "apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
            "address": NODE_IP, "port": self.kubelet_port, "readOnlyPort": 0,
            "healthzBindAddress": "127.0.0.1", "healthzPort": self.kubelet_healthz_port,
            "tlsCertFile": cert, "tlsPrivateKeyFile": key,
            "authentication": {"anonymous": {"enabled": False}, "webhook": {"enabled": True},
                               "x509": {"clientCAFile": self.pki.ca_cert}},
            "authorization": {"mode": "Webhook"},
            "containerRuntimeEndpoint": self.ctd.endpoint,
            "cgroupDriver": "cgroupfs",
            "cgroupRoot": self.ctd.cgroup_parent,
            "failSwapOn": False,
            "imageGCHighThresholdPercent": 100, "imageGCLowThresholdPercent": 99,
            "evictionHard": {"memory.available": "1Mi", "nodefs.available": "1%",
                             "imagefs.available": "1%", "nodefs.inodesFree": "1%"},
            "makeIPTablesUtilChains": False,
            "maxPods": 130, "clusterDomain": "cluster.local", "resolvConf": "/etc/resolv.conf",
            "nodeStatusUpdateFrequency": "10s", "rotateCertificates": False,
            "podLogsDir": os.path.join(root, "pod-logs"),
        }
        if parts.kubelet_minor() >= 35 and cgroups.version() == 1:
            # Kubelets from 1.35 on refuse to start on a cgroup v1 host unless told not to.
            cfg["failCgroupV1"] = False
        path = os.path.join(root, "config.json")  # JSON is YAML: the kubelet reads it as its config file
        with open(path, "w") as f:
            json.dump(cfg, f, indent=1)
        return path

    def _make_cgroup_root(self):
        # The kubelet refuses a cgroupRoot that does not exist in every
        # hierarchy; cpuset children start empty on v1, so copy the root's.
        for base in ["/sys/fs/cgroup"] if cgroups.version() == 2 else \
                [d for d in (os.path.join("/sys/fs/cgroup", n) for n in os.listdir("/sys/fs/cgroup"))
                 if os.path.isdir(d) and not os.path.islink(d)]:
            d = os.path.join(base, self.ctd.cgroup_parent.lstrip("/"))
            os.makedirs(d, exist_ok=True)
            for knob in ("cpuset.cpus", "cpuset.mems"):
                if os.path.exists(os.path.join(d, knob)):
                    with open(os.path.join(base, knob)) as src, open(os.path.join(d, knob), "w") as dst:
                        dst.write(src.read())

    def _start_kubelet(self):
        root = os.path.join(self.ctd.tmp, "kubelet")
        os.makedirs(root)
        cfg = self._kubelet_config(root)
        kc = self.pki.kubeconfig("kubelet", self.server,
                                 *self.pki.issue("kubelet", "system:node:" + NODE, ["system:nodes"]))
        self._make_cgroup_root()
        if self.own_tunables:
            self.tunables = read_tunables()
        args = [self.bins["kubelet"], "--config", cfg, "--kubeconfig", kc, "--root-dir", root,
                "--hostname-override", NODE, "--node-ip", NODE_IP, "--cert-dir", os.path.join(root, "pki"), "--v", "2"] + self.kubelet_flags
        self.procs["kubelet"] = Process("kubelet", args)
        self._proc_wait("kubelet", lambda: harness.http(
            "http://127.0.0.1:%d/healthz" % self.kubelet_healthz_port)[0] == 200, 120)

    # -- queries -------------------------------------------------------------
    def kubectl(self, *args, check=True, input=None, kubeconfig=None, timeout=60):
        r = subprocess.run([self.bins["kubectl"], "--kubeconfig", kubeconfig or self.admin_kubeconfig]
                           + list(args), capture_output=True, text=True, input=input, timeout=timeout)
        if check and r.returncode != 0:
            raise AssertionError("kubectl %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        return r

    def api(self, token, method, path, body, content_type="application/json"):
        """(status, body) of one request with TOKEN, shaped as the agent's own
        (a strategic-merge PATCH of nodes/NAME/status, a POST of an Event): no
        GET first, as kubectl patch would make."""
        req = urllib.request.Request(self.server + path, method=method, data=json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + token, "Content-Type": content_type})
        ctx = ssl.create_default_context(cafile=self.pki.ca_cert)
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def get_json(self, *args):
        return json.loads(self.kubectl("get", "-o", "json", *args).stdout)

    def node_condition(self, ctype):
        for c in self.get_json("node", NODE).get("status", {}).get("conditions", []):
            if c["type"] == ctype:
                return c
        return None

    def node_ready(self):
        c = self.node_condition("Ready")
        return c is not None and c["status"] == "True"

    def audit(self):
        """(verb, resource, subresource, code, pod) of each of the shipped
        ServiceAccount's requests so far, from the audit log; pod: the pod
        its token is bound to, or None."""
        out = []
        try:
            with open(self.audit_log) as f:
                for line in f:
                    e = json.loads(line)
                    ref = e.get("objectRef", {})
                    pod = (e.get("user", {}).get("extra", {}).get("authentication.kubernetes.io/pod-name")
                           or [None])[0]
                    out.append((e.get("verb"), ref.get("resource"), ref.get("subresource", ""),
                                e.get("responseStatus", {}).get("code"), pod))
        except FileNotFoundError:
            pass
        return out

    def apply(self, obj):
        return self.kubectl("apply", "-f", "-", input=json.dumps(obj))

    # -- teardown ------------------------------------------------------------
    def cleanup(self):
        # The kubelet first, so it does not restart what containerd's cleanup removes.
        for name in ("kubelet", "kube-scheduler", "kube-controller-manager", "kube-apiserver", "etcd"):
            p = self.procs.pop(name, None)
            if p is not None:
                p.stop(sig=signal.SIGTERM, timeout=10)
        if self.ctd is not None:
            self.ctd.cleanup()
            crio_node.release_run_dir(self.ctd)  # /run/crio, when a CRI-O node made it
        if os.path.exists("/sys/class/net/" + BRIDGE):
            subprocess.run(["ip", "link", "del", BRIDGE], capture_output=True)
        if self.node_ip_added:
            subprocess.run(["ip", "addr", "del", NODE_IP + "/32", "dev", "lo"], capture_output=True)
        restore_tunables(self.tunables)


def iptables_rules():
    """The host's iptables rules (iptables-save's -A lines), to compare before and after."""
    try:
        r = subprocess.run(["iptables-save"], capture_output=True, text=True, timeout=30)
    except OSError:
        return set()
    return {line for line in r.stdout.splitlines() if line.startswith("-A")}


def leftovers(tmp, cgroup_parent, rules_before):
    """What a torn-down cluster left on the host: processes of the parts,
    mounts under its dir, its cgroups, its links, iptables rules it added;
    [] when clean."""
    left = ["iptables " + r for r in sorted(iptables_rules() - rules_before)]
    names = {b"etcd", b"kube-apiserver", b"kube-controller-manager", b"kube-scheduler", b"kubelet"}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv and os.path.basename(argv[0]) in names and any(tmp.encode() in a for a in argv):
            left.append("process %s %s" % (d, argv[0].decode()))
    with open("/proc/self/mountinfo") as f:
        left += ["mount " + line.split()[4] for line in f if line.split()[4].startswith(tmp)]
    left += ["cgroup " + d for d in cgroups.dirs(cgroup_parent)]
    if os.path.exists("/sys/class/net/" + BRIDGE):
        left.append("link " + BRIDGE)
    if NODE_IP + "/" in subprocess.run(["ip", "-o", "addr", "show", "dev", "lo"], capture_output=True,
                                       text=True).stdout:
        left.append("address %s on lo" % NODE_IP)
    if os.path.exists(tmp):
        left.append("dir " + tmp)
    return left


def which_or_skip(tool):
    path = shutil.which(tool)
    if not path:
        raise harness.Skip("%s not installed" % tool)
    return path
