"""A fake in-cluster API server for the Node Ready fetch: HTTPS with a
certificate made by `openssl` (fake_kubelet.make_certificate), the bearer
token checked, serving `GET /api/v1/nodes/<name>` as the real API server
does: a Node object whose status.conditions hold the kubelet's Ready
condition, or a Status object on failure (401 for a token it does not
accept, 403 when RBAC lacks `get nodes`, 404 for another node).

    with FakeApiServer(tmpdir, node="worker-3") as api:
        api.env()       # KUBERNETES_SERVICE_HOST/_PORT for the agent
        api.ca_file
        api.mode = "ready"   # "not_ready" (default), "ready", "forbidden"
        api.requests    # [(path, authorization, accept)]
"""

import http.server
import json

import harness
from fake_kubelet import make_certificate

# The kubelet's own words when its PLEG health check fails (runtime_state.go).
PLEG_MESSAGE = "PLEG is not healthy: pleg was last seen active 3m5.2s ago; threshold is 3m0s"
READY_MESSAGE = "kubelet is posting ready status"


def _condition(kind, status, reason, message):
    return {"type": kind, "status": status, "reason": reason, "message": message,
            "lastHeartbeatTime": "2026-11-24T05:00:00Z", "lastTransitionTime": "2026-11-24T04:57:00Z"}


def node_object(name, ready):
    conditions = [
        _condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        _condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        _condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        _condition("Ready", "True", "KubeletReady", READY_MESSAGE) if ready else
        _condition("Ready", "False", "KubeletNotReady", PLEG_MESSAGE),
    ]
    return {"kind": "Node", "apiVersion": "v1",
            "metadata": {"name": name, "uid": "5d0f5a8e-8d5c-4a53-9d4f-1c1f0e0b6a11", "resourceVersion": "81234",
                         "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
            "spec": {"podCIDR": "10.244.3.0/24"},
            "status": {"capacity": {"cpu": "4", "memory": "16318436Ki", "pods": "110"},
                       "conditions": conditions,
                       "addresses": [{"type": "InternalIP", "address": "10.0.0.5"},
                                     {"type": "Hostname", "address": name}],
                       "nodeInfo": {"kubeletVersion": "v1.30.2", "containerRuntimeVersion": "containerd://1.7.20"}}}


def status_object(code, reason, message):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "details": {"kind": "nodes"}, "code": code}


class FakeApiServer:
    def __init__(self, directory, node="worker-3", token="t0k3n", mode="not_ready",
                 service_account="system:serviceaccount:plegscope:plegscope"):
        self.node = node
        self.token = token
        self.mode = mode
        self.service_account = service_account
        self.requests = []
        self.cert_file, self.key_file = make_certificate(directory)
        self.ca_file = self.cert_file

    def env(self):
        return {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": str(self.port)}

    def __enter__(self):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, code, obj):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                auth = self.headers.get("Authorization", "")
                fake.requests.append((self.path, auth, self.headers.get("Accept", "")))
                if auth != "Bearer " + fake.token:
                    return self._send(401, status_object(401, "Unauthorized", "Unauthorized"))
                prefix = "/api/v1/nodes/"
                if not self.path.startswith(prefix):
                    return self._send(404, status_object(404, "NotFound", "the server could not find the requested resource"))
                name = self.path[len(prefix):]
                if fake.mode == "forbidden":
                    return self._send(403, status_object(
                        403, "Forbidden", 'nodes "%s" is forbidden: User "%s" cannot get resource "nodes" in API group '
                                          '"" at the cluster scope' % (name, fake.service_account)))
                if name != fake.node:
                    return self._send(404, status_object(404, "NotFound", 'nodes "%s" not found' % name))
                return self._send(200, node_object(name, ready=fake.mode == "ready"))

        self.server = harness.LoopbackServer(Handler, self.cert_file, self.key_file)
        self.port = self.server.port
        return self

    def __exit__(self, *exc):
        self.server.stop()
