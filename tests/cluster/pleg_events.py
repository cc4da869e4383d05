"""The PLEG events each side saw for the same pod churn on one containerd:
the kubelet's, from its log, against the DaemonSet's agent's, from its
/debug/events.

The kubelet (1.34 to 1.37, the same line) logs each event its sync loop takes from its PLEG at V(2),
"SyncLoop (PLEG): event for pod" pod="NS/NAME" event={"ID","Type","Data"}
(Data: the container's or the sandbox's id), but only the sync-worthy ones
(not ContainerRemoved) of a pod its pod manager still holds; an event for a
pod already gone from it is logged at V(4) only, and its generic PLEG drops
ContainerChanged before the channel. The harness runs it at V(2)
(cluster.py), so what it logs here is all it sends for live pods.

The agent keeps its last 1,000 events; it is read after each phase of the
churn, each read well under that many new events, and a read whose oldest
event was not seen before is a gap (asserted absent).

The churn runs in windows test_node.py already has, so that it adds
no wall time of its own: the creates of the 30 and then 80 more workload
pods; 5 of the 30 deleted as the 30-pod window opens (the Deployment makes 5
more: a fidelity row, both sides in the same churn, not the load figure); a
crash-looping pod (the workload image exiting 3 at once, restartPolicy
Always: the kubelet restarts it after 10 s, then 20 s) started as the
110-pod window opens and left to the teardown (its next restarts fall in
the window without the agent too).
"""

import json
import re

import sidebyside as sbs
from cluster import log
from harness import wait_until

LINE = "SyncLoop (PLEG): event for pod"
_EVENT = re.compile(r'pod="([^"]*)" event=(\{.*\})\s*$')
CRASH, CRASH_NS, CRASH_CONTAINER = "crashloop", "default", "crash"
RING = 1000
DELETED = 5
PHASES = ("create 30 pods", "create 80 more (110)", "crash loop", "delete 5 of the 30 (+5 replacements)",
          "the agent's own pod", "other pods")
SYNC_TYPES = ("ContainerStarted", "ContainerDied")


def kubelet_events(log_path):
    """{(pod uid, type, container id)} the kubelet logged, and {uid: "ns/name"}."""
    keys, names = set(), {}
    with open(log_path, errors="replace") as f:
        for line in f:
            if LINE not in line:
                continue
            m = _EVENT.search(line)
            if not m:
                continue
            e = json.loads(m.group(2))
            keys.add((e["ID"], e["Type"], e.get("Data") or ""))
            names[e["ID"]] = m.group(1)
    return keys, names


class Churn:
    """Both sides' events over the churn, classed by the pods they are of."""

    def __init__(self, c, agent, agent_pod):
        self.c, self.agent = c, agent
        self.agent_uid = agent_pod["metadata"]["uid"]
        self.seen = {}  # (time, type, uid, cid) -> the agent's event
        self.groups = {}  # pod uid -> phase
        self.deleted, self.crash_uid = set(), None

    def read_agent(self):
        events = self.agent.get_json("/debug/events?limit=%d" % RING)["events"]
        keys = [(e["time"], e["type"], e["pod_uid"], e["container_id"]) for e in events]
        gap = self.seen and len(events) >= RING and keys[0] not in self.seen
        assert not gap, "the agent's event ring turned over between two reads"
        for k, e in zip(keys, events):
            self.seen[k] = e
        return len(events)

    def workload_uids(self):
        return {p["metadata"]["uid"] for p in self.c.get_json("pods", "-n", sbs.NAMESPACE)["items"]}

    def mark(self, phase):
        """The workload pods not yet classed were made in PHASE."""
        for uid in self.workload_uids() - set(self.groups):
            self.groups[uid] = phase
        self.read_agent()

    def start_crash_loop(self):
        self.c.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": CRASH, "namespace": CRASH_NS},
                      "spec": {"hostNetwork": True, "automountServiceAccountToken": False,
                               "enableServiceLinks": False, "terminationGracePeriodSeconds": 1,
                               "restartPolicy": "Always",
                               "containers": [{"name": CRASH_CONTAINER, "image": sbs.oci_image.WORKLOAD_IMAGE,
                                               "imagePullPolicy": "Never", "command": ["/workload", "0", "3"]}]}})
        self.crash_uid = self.c.get_json("pod", "-n", CRASH_NS, CRASH)["metadata"]["uid"]

    def delete_some(self):
        """DELETED of the 30 workload pods deleted as the 30-pod window opens
        (the Deployment makes as many more); nothing waited for here."""
        pods = sorted(self.c.get_json("pods", "-n", sbs.NAMESPACE)["items"], key=lambda p: p["metadata"]["name"])
        victims = pods[:DELETED]
        self.deleted = {p["metadata"]["uid"] for p in victims}
        self.c.kubectl("delete", "pod", "-n", sbs.NAMESPACE, "--wait=false", *[p["metadata"]["name"] for p in victims])

    def mark_replacements(self):
        """After the 30-pod window: the Deployment's replacements of the
        deleted pods (made at once, so long there by now)."""
        def made():
            new = self.workload_uids() - set(self.groups) - self.deleted
            return new if len(new) >= DELETED else None
        for uid in wait_until(made, 60, "%d replacement pods" % DELETED, interval=0.5):
            self.groups[uid] = PHASES[3]
        self.read_agent()

    def phase(self, uid, etype):
        if uid in self.deleted and etype != "ContainerStarted":
            return PHASES[3]
        if uid == self.crash_uid:
            return PHASES[2]
        if uid in self.groups:
            return self.groups[uid]
        return PHASES[4] if uid == self.agent_uid else PHASES[5]

    def agent_keys(self):
        return {(uid, t, cid) for (_, t, uid, cid) in self.seen}

    def missing(self, kubelet):
        """What the kubelet logged for a workload or the crash-looping pod
        that the agent has not seen. A ContainerStarted of the crash-looping
        container is left out: it runs for milliseconds, so a relist a
        fraction of a second away sees it only exited."""
        churn = set(self.groups) | {self.crash_uid}
        names = {cid: e["container_name"] for (_, _, _, cid), e in self.seen.items()}
        return sorted(k for k in kubelet if k[0] in churn and k[1] in SYNC_TYPES and k not in self.agent_keys()
                      and not (k[1] == "ContainerStarted" and names.get(k[2]) == CRASH_CONTAINER))

    def finish(self, log_path):
        """Waits until the agent has seen every sync-worthy event the kubelet
        logged for the churn's pods (each side relists on its own second),
        asserts it and the crash loop's restarts on both sides; returns the
        figures for cluster-fidelity.json."""
        def covered():
            self.read_agent()
            kubelet, _ = kubelet_events(log_path)
            left = self.missing(kubelet)
            if left:
                raise AssertionError("the kubelet logged, the agent did not see: %s" % left[:5])
            return kubelet
        def restarted():
            st = self.c.get_json("pod", "-n", CRASH_NS, CRASH)["status"].get("containerStatuses", [])
            return st and st[0].get("restartCount", 0) >= 2
        wait_until(restarted, 120, "the crash-looping container restarted twice", interval=1.0)
        kubelet = wait_until(covered, 30, "the agent seeing every event the kubelet logged for the churn",
                             interval=1.0)
        crash = self.crash_containers(kubelet)
        log("crash-looping container instances: kubelet %d, plegscope %d" % (crash["kubelet"], crash["plegscope"]))
        assert crash["kubelet"] >= 3 and crash["plegscope"] >= 3, crash
        return {"rows": self.rows(kubelet), "crash_loop_instances": crash, "other_pods": self.others(log_path),
                "agent_only": self.agent_only(kubelet), "deleted_pods": len(self.deleted),
                "agent_events_read": len(self.seen)}

    def agent_only(self, kubelet):
        """The sync-worthy events of the churn's phases that the agent saw and
        the kubelet did not log: [phase, type, "ns/pod", container name or
        "-" for a sandbox]."""
        out = set()
        for (_, t, uid, cid), e in self.seen.items():
            phase = self.phase(uid, t)
            if t in SYNC_TYPES and (uid, t, cid) not in kubelet and phase in PHASES[:4]:
                out.add((phase, t, "%s/%s" % (e["pod_namespace"], e["pod_name"]), e["container_name"] or "-"))
        return sorted(list(x) for x in out)

    def others(self, log_path):
        """The pods of the "other pods" rows, by name: not made by the churn."""
        names = kubelet_events(log_path)[1]
        for (_, _, uid, _), e in self.seen.items():
            names.setdefault(uid, "%s/%s" % (e["pod_namespace"], e["pod_name"]))
        return sorted({names[u] for u in names if self.phase(u, "") == PHASES[5]})

    def crash_containers(self, kubelet):
        """How many instances of the crash-looping container each side saw
        (its sandbox left out): the first start and each restart."""
        ids = {cid for (_, _, uid, cid), e in self.seen.items()
               if uid == self.crash_uid and e["container_name"] == CRASH_CONTAINER}
        return {"plegscope": len(ids),
                "kubelet": len({cid for (uid, _, cid) in kubelet if uid == self.crash_uid and cid in ids})}

    def rows(self, kubelet):
        """[{phase, type, kubelet, plegscope}]: distinct events per side."""
        count = {}
        for side, keys in (("kubelet", kubelet), ("plegscope", self.agent_keys())):
            for uid, etype, _ in keys:
                cell = count.setdefault((self.phase(uid, etype), etype), {"kubelet": 0, "plegscope": 0})
                cell[side] += 1
        order = {p: i for i, p in enumerate(PHASES)}
        return [dict(phase=p, type=t, **n) for (p, t), n in sorted(count.items(), key=lambda kv: (order[kv[0][0]],
                                                                                                 kv[0][1]))]
