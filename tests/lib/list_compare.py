"""Two agents reading one node, one streaming its lists (StreamPodSandboxes /
StreamContainers) and one listing unary, compared on what each exports: the
pod cache (/debug/pods), the list figures and running gauges (/metrics), the
PLEG events (/debug/events), and which list calls each made. Shared by the
large-node tests on the fake runtime and on real runtimes.

Also the node as a third reader sees it: crictl's own unary lists, grouped
per pod the way the agent groups them, for a comparison with the agent's
pod cache that does not go through plegscope's client."""

import json
import subprocess

LIST_OPS = ("list_containers", "list_podsandbox")


def pod_cache(agent):
    """The agent's pod cache by uid, lists sorted: order is the runtime's
    business, and when the agent inspected a pod is its own."""
    pods = {}
    for p in agent.get_json("/debug/pods")["pods"]:
        p.pop("observed_at", None)
        p["sandboxes"] = sorted(p["sandboxes"], key=lambda s: s["id"])
        p["containers"] = sorted(p["containers"], key=lambda c: c["id"])
        pods[p["uid"]] = p
    return pods


def list_figures(m):
    """The list figures both ways of reading must agree on: items and response
    bytes per list, and the running pods and containers by state."""
    figures = {}
    for name in ("pleg_runtime_list_items", "pleg_runtime_list_response_bytes"):
        for op in LIST_OPS:
            figures[(name, op)] = m.get(name, operation_type=op)
    figures["pleg_running_pods"] = m.get("pleg_running_pods")
    for s in m.find("pleg_running_containers"):
        figures[("pleg_running_containers", s.labels["container_state"])] = s.value
    return figures


def calls(m, op):
    """How many calls of one CRI operation the agent made."""
    return m.get("pleg_runtime_operations_total", 0, operation_type=op) or 0


def died_events(agent, uid=None):
    """(pod uid, container id) of every ContainerDied the agent generated,
    sorted; of one pod only when uid is given."""
    return sorted((e["pod_uid"], e["container_id"]) for e in agent.get_json("/debug/events?limit=1000000")["events"]
                  if e["type"] == "ContainerDied" and (uid is None or e["pod_uid"] == uid))


def pods_differ(a, b):
    """The uids whose cached pods differ between two pod caches."""
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def assert_same_reading(streamed, unary):
    """The streaming agent read the node exactly as the unary one, each on its
    own calls. Returns both agents' metrics."""
    s, u = streamed.metrics(), unary.metrics()
    assert calls(s, "stream_containers") >= 1 and calls(s, "list_containers") == 0, \
        ("the streaming agent's calls", calls(s, "stream_containers"), calls(s, "list_containers"))
    assert calls(u, "list_containers") >= 1 and calls(u, "stream_containers") == 0, \
        ("the unary agent's calls", calls(u, "list_containers"), calls(u, "stream_containers"))
    assert list_figures(s) == list_figures(u), (list_figures(s), list_figures(u))
    a, b = pod_cache(streamed), pod_cache(unary)
    differ = pods_differ(a, b)
    assert not differ, "%d pods read differently, e.g. %r against %r" % (len(differ), a.get(differ[0]),
                                                                         b.get(differ[0]))
    return s, u


def crictl_node(crictl, endpoint, timeout=300):
    """The node as crictl lists it (its unary ListPodSandbox and ListContainers,
    with the kubelet's 16 MiB limit): {pod uid: {"sandboxes": {id: state},
    "containers": {id: state}}}, the containers grouped by their sandbox's pod."""
    def run(*args):
        r = subprocess.run([crictl, "--runtime-endpoint", endpoint, "--timeout", "%ds" % timeout] + list(args),
                           capture_output=True, text=True, timeout=timeout + 30)
        assert r.returncode == 0, "crictl %s: %s" % (" ".join(args), r.stderr.strip())
        return json.loads(r.stdout)
    pods, by_sandbox = {}, {}
    for s in run("pods", "-o", "json")["items"]:
        uid = s["metadata"]["uid"]
        pod = pods.setdefault(uid, {"sandboxes": {}, "containers": {}})
        pod["sandboxes"][s["id"]] = s["state"]
        by_sandbox[s["id"]] = uid
    for c in run("ps", "-a", "-o", "json")["containers"]:
        pods[by_sandbox[c["podSandboxId"]]]["containers"][c["id"]] = c["state"]
    return pods


def agent_node(cache):
    """An agent's pod cache (pod_cache()) in crictl_node()'s shape."""
    return {uid: {"sandboxes": {s["id"]: s["state"] for s in p["sandboxes"]},
                  "containers": {c["id"]: c["state"] for c in p["containers"]}}
            for uid, p in cache.items()}


STREAMED = ["--cri-list-streaming", "true"]
UNARY = ["--cri-list-streaming", "false"]


def wait_read(agents, pods, containers, timeout, wait_until):
    """Waits until every agent has inspected `pods` pods and listed
    `containers` containers."""
    for agent in agents:
        wait_until(lambda: len(pod_cache(agent)) == pods
                   and agent.metrics().get("pleg_runtime_list_items", operation_type="list_containers") == containers,
                   timeout, "every pod inspected and %d containers listed" % containers, interval=1.0)


def mean_seconds(m, name, **labels):
    """A histogram's mean (sum / count), or None before its first sample."""
    count = m.get(name + "_count", 0, **labels) or 0
    return (m.get(name + "_sum", 0, **labels) or 0) / count if count else None


def agent_list_costs(s, u):
    """What each agent paid for its lists (--metrics-detail full times the
    streamed calls too): mean seconds of a whole container and sandbox list,
    streamed and unary, and of a relist on each side."""
    d = "pleg_runtime_operations_duration_seconds"
    return {"stream_containers_mean_s": mean_seconds(s, d, operation_type="stream_containers"),
            "list_containers_mean_s": mean_seconds(u, d, operation_type="list_containers"),
            "stream_podsandboxes_mean_s": mean_seconds(s, d, operation_type="stream_podsandboxes"),
            "list_podsandbox_mean_s": mean_seconds(u, d, operation_type="list_podsandbox"),
            "streamed_relist_mean_s": mean_seconds(s, "pleg_relist_duration_seconds"),
            "unary_relist_mean_s": mean_seconds(u, "pleg_relist_duration_seconds")}
