"""A fake in-cluster API server for the Node Ready fetch and the node
condition's writes: HTTPS with a certificate made by `openssl`
(fake_kubelet.make_certificate), the bearer token checked, answering as the
real API server does:

  GET   /api/v1/nodes/<name>          a Node whose status.conditions hold the
                                      kubelet's Ready condition (and whatever
                                      was patched in)
  GET   /api/v1/nodes?limit=N         a NodeList of every node, N a page, with
                                      metadata.continue to the next page
  PATCH /api/v1/nodes/<name>/status   application/strategic-merge-patch+json:
                                      status.conditions merged by `type` (the
                                      list's patchMergeKey), every other
                                      condition kept; merge-patch+json replaces
                                      the list whole, as JSON merge patch does;
                                      any other type 415
  POST  /api/v1/namespaces/<ns>/events           201, or 409 AlreadyExists
  PATCH /api/v1/namespaces/<ns>/events/<name>    200, or 404

A Status object on failure: 401 for a token it does not accept, 403 when
RBAC lacks the verb (mode "forbidden" for reads; `fail_writes` for writes),
404 for a node it does not have, and whatever `fail_writes` asks for.

    with FakeApiServer(tmpdir, node="worker-3") as api:
        api.env()       # KUBERNETES_SERVICE_HOST/_PORT for the agent
        api.ca_file
        api.mode = "ready"   # "not_ready" (default), "ready", "forbidden"
        api.requests    # [(path, authorization, accept)] of the reads
        api.fail_writes = (403, 2)   # the next two writes answer 403 (count None: all)
        api.write_delay = 6.0        # every write answers after 6 s
        api.writes()    # [{"method", "path", "content_type", "body", "code"}], oldest first
        api.condition("worker-3", "plegscope.io/PLEGUnhealthy")   # the stored condition or None
        api.events      # {name: event object}
        api.set_condition("worker-4", "plegscope.io/PLEGUnhealthy", "True")  # another agent's write
        api.lists       # the NodeList requests' paths
"""

import copy
import http.server
import json
import threading
import time

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


def strategic_merge_conditions(current, patched):
    """status.conditions after a strategic merge patch: each patched
    condition replaces the fields of the one with its type, or is appended
    (NodeStatus.Conditions: patchStrategy merge, patchMergeKey type)."""
    out = [dict(c) for c in current]
    for c in patched:
        for have in out:
            if have.get("type") == c.get("type"):
                have.update(c)
                break
        else:
            out.append(dict(c))
    return out


class FakeApiServer:
    def __init__(self, directory, node="worker-3", token="t0k3n", mode="not_ready",
                 service_account="system:serviceaccount:plegscope:plegscope", other_nodes=("worker-4",)):
        self.node = node
        self.token = token
        self.mode = mode
        self.service_account = service_account
        self.requests = []
        self.fail_writes = None   # (HTTP code, count or None for every write)
        self.write_delay = 0.0
        self.events = {}
        self.lists = []
        self._lock = threading.Lock()
        self._writes = []
        self._patched = {name: [] for name in (node,) + tuple(other_nodes)}  # conditions patched in, by node
        self._replaced = set()  # nodes whose whole condition list a merge patch replaced
        self.cert_file, self.key_file = make_certificate(directory)
        self.ca_file = self.cert_file

    def writes(self):
        with self._lock:
            return [dict(w) for w in self._writes]

    def condition(self, node, kind):
        with self._lock:
            for c in self._patched.get(node, []):
                if c.get("type") == kind:
                    return dict(c)
        return None

    def set_condition(self, node, kind, status):
        """A condition as another node's agent would have written it (None removes it)."""
        with self._lock:
            kept = [c for c in self._patched[node] if c.get("type") != kind]
            if status is not None:
                kept.append(_condition(kind, status, "RuntimeHung" if status == "True" else "PLEGHealthy", ""))
            self._patched[node] = kept

    def node_list(self, query):
        """One page of the NodeList, as ?limit= and ?continue= ask."""
        params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        names = sorted(self._patched)
        limit = int(params.get("limit", "0")) or len(names)
        start = int(params.get("continue", "0") or "0")
        page = names[start:start + limit]
        more = start + limit < len(names)
        return {"kind": "NodeList", "apiVersion": "v1",
                "metadata": {"resourceVersion": "81234", "continue": str(start + limit) if more else ""},
                "items": [self.node_object(n) for n in page]}

    def node_object(self, name):
        with self._lock:
            obj = node_object(name, ready=self.mode == "ready")
            kubelet = [] if name in self._replaced else obj["status"]["conditions"]
            obj["status"]["conditions"] = strategic_merge_conditions(kubelet, self._patched[name])
            return obj

    def _write(self, method, path, content_type, body):
        """(code, object) of one write, recorded."""
        record = {"method": method, "path": path, "content_type": content_type, "body": body, "code": None}
        with self._lock:
            self._writes.append(record)
            fail = self.fail_writes
            if fail and (fail[1] is None or fail[1] > 0):
                if fail[1] is not None:
                    self.fail_writes = (fail[0], fail[1] - 1) if fail[1] > 1 else None
                record["code"] = fail[0]
                reasons = {401: "Unauthorized", 403: "Forbidden", 409: "Conflict", 500: "InternalError"}
                return fail[0], status_object(fail[0], reasons.get(fail[0], "Failure"),
                                              "%s %s: %s" % (method, path, reasons.get(fail[0], "failed")))
        code, obj = self._apply(method, path, content_type, body)
        with self._lock:
            record["code"] = code
        return code, obj

    def _apply(self, method, path, content_type, body):
        parts = path.strip("/").split("/")
        if body is None:
            return 400, status_object(400, "BadRequest", "the body is not JSON")
        if method == "PATCH" and len(parts) == 5 and parts[:3] == ["api", "v1", "nodes"] and parts[4] == "status":
            name = parts[3]
            if name not in self._patched:
                return 404, status_object(404, "NotFound", 'nodes "%s" not found' % name)
            conditions = body.get("status", {}).get("conditions", [])
            with self._lock:
                if content_type == "application/strategic-merge-patch+json":
                    self._patched[name] = strategic_merge_conditions(self._patched[name], conditions)
                elif content_type == "application/merge-patch+json":
                    # JSON merge patch replaces a list whole: the kubelet's conditions are lost.
                    self._patched[name] = [dict(c) for c in conditions]
                    self._replaced.add(name)
                else:
                    return 415, status_object(415, "UnsupportedMediaType",
                                              "the body of the request was in an unknown format")
            return 200, self.node_object(name)
        if len(parts) >= 5 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "events":
            with self._lock:
                if method == "POST" and len(parts) == 5:
                    name = body.get("metadata", {}).get("name", "")
                    if name in self.events:
                        return 409, status_object(409, "AlreadyExists", 'events "%s" already exists' % name)
                    event = copy.deepcopy(body)
                    event["metadata"]["namespace"] = parts[3]
                    self.events[name] = event
                    return 201, event
                if method == "PATCH" and len(parts) == 6:
                    if parts[5] not in self.events:
                        return 404, status_object(404, "NotFound", 'events "%s" not found' % parts[5])
                    self.events[parts[5]].update(body)
                    return 200, self.events[parts[5]]
        return 404, status_object(404, "NotFound", "the server could not find the requested resource")

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
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (OSError, ConnectionError):
                    pass  # a slow answer the client stopped waiting for

            def do_GET(self):
                auth = self.headers.get("Authorization", "")
                fake.requests.append((self.path, auth, self.headers.get("Accept", "")))
                if auth != "Bearer " + fake.token:
                    return self._send(401, status_object(401, "Unauthorized", "Unauthorized"))
                if self.path == "/api/v1/nodes" or self.path.startswith("/api/v1/nodes?"):
                    fake.lists.append(self.path)
                    if fake.mode == "forbidden":
                        return self._send(403, status_object(
                            403, "Forbidden", 'nodes is forbidden: User "%s" cannot list resource "nodes" in API '
                                              'group "" at the cluster scope' % fake.service_account))
                    return self._send(200, fake.node_list(self.path.partition("?")[2]))
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
                return self._send(200, fake.node_object(name))

            def _write(self, method):
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                if self.headers.get("Authorization", "") != "Bearer " + fake.token:
                    return self._send(401, status_object(401, "Unauthorized", "Unauthorized"))
                if fake.write_delay:
                    time.sleep(fake.write_delay)  # a slow API server, as the client sees it
                content_type = self.headers.get("Content-Type", "").split(";")[0].strip()
                code, obj = fake._write(method, self.path, content_type, body)
                self._send(code, obj)

            def do_PATCH(self):
                self._write("PATCH")

            def do_POST(self):
                self._write("POST")

        self.server = harness.LoopbackServer(Handler, self.cert_file, self.key_file)
        self.port = self.server.port
        return self

    def __exit__(self, *exc):
        self.server.stop()
