// The words of container_frozen: which cgroup is frozen, whose pod it holds,
// for how long, and how to thaw it. The scan cannot read systemd's
// FreezerState (it is systemd's, not the kernel's), so the words give both
// thaws and the one command that tells them apart.
#include "diagnoser/rules/container_frozen.h"
#include "report/wording.h"

namespace plegscope {
namespace {

using FrozenCgroup = ContainerFrozenDetails::FrozenCgroup;

// The systemd unit a cgroup is ("cri-containerd-<id>.scope"), "" under the
// cgroupfs driver (no unit: only the cgroup.freeze write thaws it).
std::string unit_of(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  const auto ends = [&](const std::string& s) {
    return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".scope") || ends(".slice") ? name : "";
}

std::string cgroup_words(const FrozenCgroup& g) {
  std::string out = g.role == "kubepods" ? "kubepods' cgroup " + g.path + " (every pod on the node)"
                                         : "the " + g.role + " cgroup " + g.path + " of pod " + pod_words(g.pod);
  if (g.incomplete) out += ", asked to freeze (cgroup.freeze 1) and never frozen to the end,";
  if (g.inherited) out += ", frozen by a parent cgroup (its own cgroup.freeze is 0),";
  return out;
}

std::string thaw_words(const FrozenCgroup& g) {
  const std::string write = "`echo 0 > /sys/fs/cgroup/" + g.path + "/cgroup.freeze`";
  if (g.inherited) return "thaw the parent cgroup whose cgroup.freeze is 1 (the same way)";
  const std::string unit = unit_of(g.path);
  if (unit.empty()) return "thaw it: " + write;
  return "thaw it: `systemctl thaw " + unit + "` if `systemctl show -P FreezerState " + unit +
         "` says frozen (systemd froze it), else " + write + " (a freeze written behind systemd's back, as runc "
         "leaves one after a timed-out update)";
}

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const ContainerFrozenDetails& d = f.details<ContainerFrozenDetails>();
  CauseWords w;
  // A finding read back without its cgroups still reads as one frozen container.
  FrozenCgroup unnamed;
  unnamed.role = "container";
  unnamed.path = "(not named)";
  unnamed.seconds = f.seconds;
  const FrozenCgroup& g = d.frozen.empty() ? unnamed : d.frozen.front();
  w.reason = cgroup_words(g) + " has been frozen for " + text::elapsed(g.seconds) + " (threshold " +
             text::elapsed(d.threshold_seconds) + ")";
  if (d.frozen.size() > 1)
    w.reason += ", and " + text::count(static_cast<long>(d.frozen.size() - 1), "other cgroup", "other cgroups");
  if (d.call_in_flight)
    w.reason += "; the PLEG's " + cri_method(f.op) + " for that pod has waited " +
                text::elapsed(d.status_call_seconds) + " on it";
  w.summary = "A container is frozen by the cgroup v2 freezer: " + w.reason +
              ". Its processes cannot run: a SIGTERM waits for the thaw (StopContainer waits out its grace "
              "period), probes and execs fail, and restarting the runtime thaws nothing." +
              (d.call_in_flight ? " The relist waits on it, so the PLEG stays unhealthy until it is thawed." : "");
  w.action = thaw_words(g) + "; never restart the runtime for it";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's
// ## container_frozen once the placeholders are filled with
// runbook_command_names(). Edit both or the unit test cause_texts_test fails.
// clang-format off
const CauseWording container_frozen_wording = {
  {"`timeout 5 cat /sys/fs/cgroup/<path>/cgroup.events` says `frozen 1` for the cgroup the report names "
   "(`cgroup.freeze` `1` with `frozen 0` is a freeze that never completed); `timeout 10 systemctl show -P "
   "FreezerState <scope>` says `frozen` when systemd froze it (`systemctl freeze`) and `running` when "
   "`cgroup.freeze` was written behind systemd's back (runc leaves it so after a timed-out update). `{crictl} "
   "ps --pod <pod-id>` still lists its container running.",
   "Thaw the cgroup the report names. Where systemd froze it (`FreezerState` `frozen`): `timeout 10 systemctl "
   "thaw <scope>`. Where it did not (`FreezerState` `running`, or the cgroupfs driver): `echo 0 | timeout 5 tee "
   "/sys/fs/cgroup/<path>/cgroup.freeze`. When the report says the freeze is inherited, thaw the parent whose "
   "`cgroup.freeze` is `1`. Any container frozen past the hang threshold is named, one paused on purpose too: "
   "the kubelet never pauses a container, so whoever paused it thaws it, or it is a leftover. Then find who "
   "froze it: `timeout 20 journalctl --since -1h | grep -i -E 'freez|thaw'`.",
   "Restart the runtime or the kubelet for it: neither thaws a cgroup, and the container stays frozen after "
   "the restart. Do not expect a pod delete to be quick either: the container's SIGTERM waits for the thaw, so "
   "its stop takes the whole grace period."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
