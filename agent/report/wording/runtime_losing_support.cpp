// The words of runtime_losing_support: the runtime does not answer CRI
// RuntimeConfig, and the kubelet says which release stops falling back.
#include "diagnoser/rules/runtime_losing_support.h"
#include "report/wording.h"

namespace plegscope {
namespace {

std::string runtime_words(const Finding& f) {
  const RuntimeLosingSupportDetails& d = f.details<RuntimeLosingSupportDetails>();
  if (d.runtime_name.empty()) return "the runtime";
  return d.runtime_name + (d.runtime_version.empty() ? "" : " " + d.runtime_version);
}

// The upgrade that answers RuntimeConfig, in the runtime's own terms.
std::string upgrade_words(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return "upgrade CRI-O to the kubelet's minor release";
  if (runtime.family == RuntimeFamily::kContainerd)
    return "upgrade containerd to 2.x (its configuration file becomes version 3 or later)";
  return "upgrade the runtime to one that answers RuntimeConfig (containerd 2.x, CRI-O)";
}

CauseWords words_of(const Finding& f, const RuntimeModel& runtime) {
  const RuntimeLosingSupportDetails& d = f.details<RuntimeLosingSupportDetails>();
  CauseWords w;
  const std::string kubelet = d.kubelet_version.empty() ? "the kubelet" : "the kubelet " + d.kubelet_version;
  if (f.form == Form::kFromKubelet) {
    w.reason = kubelet + " reports kubelet_cri_losing_support{version=\"" + d.losing_support_from + "\"}: " +
               runtime_words(f) + " did not answer CRI RuntimeConfig when the kubelet started";
  } else {
    w.reason = runtime_words(f) + " answers CRI RuntimeConfig with UNIMPLEMENTED, so " + kubelet +
               " falls back to its own cgroupDriver and says it drops that fallback in Kubernetes " +
               d.losing_support_from;
  }
  w.action = upgrade_words(runtime) + " before the kubelet reaches " + d.losing_support_from;
  w.summary = "Nothing fails today, but " + w.reason + "; " + w.action + ".";
  return w;
}

// The Fix in the node's runtime's own terms; Confirm and Do not name no runtime.
constexpr RuntimeText kOnContainerd = {
  nullptr,
  "Upgrade containerd to 2.x before the kubelet (its configuration file becomes version 3 or later, "
  "docs/install.md). The kubelet asks RuntimeConfig only when it starts: restart it after containerd's upgrade "
  "and its kubelet_cri_losing_support series goes away. Until then keep the kubelet's cgroupDriver "
  "containerd's (SystemdCgroup in the runc runtime's options).",
  nullptr,
};
constexpr RuntimeText kOnCrio = {
  nullptr,
  "Upgrade CRI-O to the kubelet's minor release before the kubelet. The kubelet asks RuntimeConfig only when "
  "it starts: restart it after CRI-O's upgrade and its kubelet_cri_losing_support series goes away. Until then "
  "keep the kubelet's cgroupDriver CRI-O's (cgroup_manager in crio.conf).",
  nullptr,
};

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return kOnCrio;
  if (runtime.family == RuntimeFamily::kContainerd) return kOnContainerd;
  return {};
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## runtime_losing_support
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording runtime_losing_support_wording = {
  {"`{crictl} version` names the runtime; `timeout 10 journalctl -u kubelet -b | grep 'should be updated to "
   "support RuntimeConfig'` shows the kubelet's fallback at its start; `kubectl --request-timeout=10s get --raw "
   "/api/v1/nodes/{node}/proxy/metrics | grep kubelet_cri_losing_support` shows the release the kubelet names.",
   "Upgrade the runtime before the kubelet: containerd 2.x (its configuration file becomes version 3 or later, "
   "docs/install.md), or CRI-O at the kubelet's minor release. The kubelet asks RuntimeConfig only when it "
   "starts: restart it after the runtime's upgrade and its kubelet_cri_losing_support series goes away. Until "
   "then keep the kubelet's cgroupDriver the runtime's (containerd's SystemdCgroup, CRI-O's cgroup_manager).",
   "Upgrade the kubelet to the release it names while the runtime still does not answer. Do not take this for "
   "the cause of an unhealthy PLEG: the kubelet falls back today and no call is slower for it."},
  words_of,
  text_on,
};
// clang-format on

}  // namespace plegscope
