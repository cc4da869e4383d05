"""A stand-in for the Kubernetes API server on loopback, with just what
`kubectl get --raw` needs for kubectl-plegscope:

  GET /api/v1/namespaces/NS/pods?labelSelector=K=V[,K=V]&fieldSelector=spec.nodeName=N
  GET /api/v1/nodes
  GET /api/v1/namespaces/NS/pods/[SCHEME:]NAME[:PORT]/proxy/PATH?QUERY

The proxy forwards to the pod's agent as the real API server does (pod IP
and the named port; here each pod maps to a real agent's loopback port),
passes the agent's status and body through, and answers 503 with a Status
object when the agent cannot be dialled. Errors use the API server's Status
shape so kubectl prints them as it would against a cluster. Unsupported
selectors get 400, as the API server gives for a field it does not index.

Every request is recorded (method, path) so a test can check what the
plugin asked for. Thread-safe: the pod table is fixed at construction and
the request log is guarded by a lock.
"""
import http.server
import json
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request

import harness  # tests/lib, on the path of every test that imports this


def pod(name, node, port, namespace="plegscope", phase="Running", labels=None):
    """A pod object as the API server lists it; `port` is where its agent
    really listens on 127.0.0.1 (the object itself says 9547)."""
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace,
                     "labels": labels or {"app.kubernetes.io/name": "plegscope",
                                          "app.kubernetes.io/component": "node-agent"}},
        "spec": {"nodeName": node, "containers": [{"name": "plegscope",
                                                   "ports": [{"name": "metrics", "containerPort": 9547}]}]},
        "status": {"phase": phase, "podIP": "127.0.0.1" if phase == "Running" else None},
        "_agent_port": port,
    }


def _status(code, reason, message):
    return code, "application/json", json.dumps({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "code": code}).encode()


def _labels_match(selector, labels):
    for term in filter(None, selector.split(",")):
        if "=" not in term or "!" in term:
            raise ValueError("unsupported label selector term %r" % term)
        key, value = term.split("=", 1)
        if labels.get(key.strip()) != value.strip().lstrip("="):
            return False
    return True


class ApiServerStandIn:
    """Serves on 127.0.0.1:<free port> in a thread; use as a context manager."""

    def __init__(self, pods, nodes):
        self.pods = list(pods)
        self.nodes = list(nodes)
        self.requests = []
        self._lock = threading.Lock()

    def __enter__(self):
        standin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                with standin._lock:
                    standin.requests.append(("GET", self.path))
                code, ctype, body = standin.answer(self.path)
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (kubectl's --request-timeout): as the API server sees it

            def log_message(self, *args):
                pass

        self.server = harness.LoopbackServer(Handler)
        self.url = "http://127.0.0.1:%d" % self.server.port
        return self

    def __exit__(self, *exc):
        self.server.stop()
        return False

    def log(self):
        with self._lock:
            return list(self.requests)

    def kubeconfig(self, path):
        """Writes a kubeconfig whose current context points at this server."""
        with open(path, "w") as f:
            json.dump({
                "apiVersion": "v1", "kind": "Config", "current-context": "standin",
                "clusters": [{"name": "standin", "cluster": {"server": self.url}}],
                "users": [{"name": "standin", "user": {}}],
                "contexts": [{"name": "standin", "context": {"cluster": "standin", "user": "standin"}}],
            }, f)
        return path

    # ------------------------------------------------------------ routes

    def answer(self, raw_path):
        url = urllib.parse.urlsplit(raw_path)
        parts = [urllib.parse.unquote(p) for p in url.path.strip("/").split("/")]
        query = urllib.parse.parse_qs(url.query)
        if parts == ["api", "v1", "nodes"]:
            return 200, "application/json", json.dumps({
                "kind": "NodeList", "apiVersion": "v1",
                "items": [{"metadata": {"name": n}} for n in self.nodes]}).encode()
        if len(parts) == 5 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods":
            return self._list_pods(parts[3], query)
        if len(parts) >= 7 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods" and parts[6] == "proxy":
            return self._proxy(parts[3], parts[5], "/".join(parts[7:]), url.query)
        return _status(404, "NotFound", "the server could not find the requested resource")

    def _list_pods(self, namespace, query):
        items = [p for p in self.pods if p["metadata"]["namespace"] == namespace]
        try:
            for selector in query.get("labelSelector", []):
                items = [p for p in items if _labels_match(selector, p["metadata"]["labels"])]
        except ValueError as e:
            return _status(400, "BadRequest", str(e))
        for selector in query.get("fieldSelector", []):
            field, _, value = selector.partition("=")
            if field != "spec.nodeName":
                return _status(400, "BadRequest",
                               'field label not supported: %s' % field)
            items = [p for p in items if p["spec"]["nodeName"] == value.lstrip("=")]
        public = [{k: v for k, v in p.items() if not k.startswith("_")} for p in items]
        return 200, "application/json", json.dumps({"kind": "PodList", "apiVersion": "v1", "items": public}).encode()

    def _proxy(self, namespace, target, rest, query):
        scheme, name, port = "http", target, None
        if target.count(":") == 2:
            scheme, name, port = target.split(":")
        elif target.count(":") == 1:
            name, port = target.split(":")
        match = [p for p in self.pods if p["metadata"]["namespace"] == namespace and p["metadata"]["name"] == name]
        if not match:
            return _status(404, "NotFound", 'pods "%s" not found' % name)
        p = match[0]
        if p["status"]["phase"] != "Running":
            return _status(400, "BadRequest", 'pod %s is not running' % name)
        if port is not None and port not in ("9547", "metrics"):
            return _status(503, "ServiceUnavailable",
                           "error trying to reach service: dial tcp 127.0.0.1:%s: connect: connection refused" % port)
        upstream = "%s://127.0.0.1:%d/%s%s" % (scheme, p["_agent_port"], rest, "?" + query if query else "")
        try:
            with urllib.request.urlopen(upstream, timeout=10) as resp:
                return resp.status, resp.headers.get("Content-Type", "text/plain"), resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", "text/plain"), e.read()
        except (urllib.error.URLError, socket.timeout, ConnectionError) as e:
            reason = getattr(e, "reason", e)
            said = "connect: connection refused" if isinstance(reason, ConnectionRefusedError) else str(reason)
            return _status(503, "ServiceUnavailable",
                           "error trying to reach service: dial tcp 127.0.0.1:%d: %s" % (p["_agent_port"], said))
