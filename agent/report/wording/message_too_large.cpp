// The words of message_too_large: a list answer over (or near) the gRPC message limit.
#include "diagnoser/rules/message_too_large.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const MessageTooLargeDetails& d = f.details<MessageTooLargeDetails>();
  CauseWords w;
  const std::string limit = text::bytes(d.limit_bytes);
  if (f.form == Form::kNearLimit) {
    w.reason = "the last " + cri_method(f.op) + " answer was " + text::bytes(d.bytes) + ", " +
               text::fmt("%.0f", d.share * 100) + "% of the " + limit + " gRPC limit past which every relist fails";
    w.action = d.mostly_exited ? "remove exited containers before it crosses the limit"
                               : "find the containers with oversized labels or annotations before it crosses the limit";
    w.summary = "The node is approaching the list size cliff: " + w.reason + ".";
  } else {  // Form::kOverLimit
    w.reason = "the runtime's list answer is over the " + limit + " gRPC message limit (RESOURCE_EXHAUSTED in " +
               text::count(d.calls, "call", "calls") + ")";
    w.action = d.mostly_exited ? "remove exited containers so the list fits again"
                               : "find the containers with oversized labels or annotations";
    w.summary = "Relists fail because " + w.reason + ".";
  }
  return w;
}

// What a runtime's reader needs said otherwise. The runbook's words above
// name both runtimes' ways; these name only the node's.
// clang-format off
// On CRI-O.
constexpr RuntimeText kOnCrio = {
  "The kubelet's log says `grpc: received message larger than max`, and "
  "`pleg_runtime_list_response_bytes` (the last answer that still fit) is near 16 MiB. Count without "
  "the list that fails: `{crictl} pods -q | wc -l`, then `{crictl} ps -a --pod <pod-id> -q | wc -l` "
  "pod by pod; `ls /var/run/crio/exits | wc -l` and the conmon processes count them without CRI; "
  "`{crictl} inspect <container-id>` on a few containers shows oversized labels or annotations.",
  "Remove exited containers a slice at a time, so that no answer is as large as the whole list: "
  "`{crictl} ps -a --state exited --label io.kubernetes.pod.namespace=<namespace> -q | xargs -r "
  "{crictl} rm`, namespace by namespace, or `--pod <pod-id>` pod by pod (the runtime applies the "
  "state, label and pod filters before it answers; crictl applies `--name` and `--namespace` itself, "
  "after the whole list arrived). CRI-O's server allows 80 MiB, so it is the kubelet's client that "
  "fails first. Then fix what creates them (a CronJob without `successfulJobsHistoryLimit`, a crash "
  "loop), tighten the kubelet's container GC (`maxPerPodContainer`, `maxContainers`) and trim huge "
  "labels and annotations.",
  nullptr,
};
// clang-format on

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return kOnCrio;
  return {};
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## message_too_large
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording message_too_large_wording = {
  {"The kubelet's log says `grpc: received message larger than max`, and `pleg_runtime_list_response_bytes` "
   "(the last answer that still fit) is near 16 MiB. Count without the list that fails: `{crictl} pods -q | wc "
   "-l`, then `{crictl} ps -a --pod <pod-id> -q | wc -l` pod by pod; on containerd, `ctr -a {socket} -n k8s.io "
   "--connect-timeout 5s --timeout 60s containers ls -q | wc -l` counts through containerd's own API, which "
   "streams one container per message; `{crictl} inspect <container-id>` on a few containers shows oversized "
   "labels or annotations.",
   "Remove exited containers a slice at a time, so that no answer is as large as the whole list: `{crictl} ps "
   "-a --state exited --label io.kubernetes.pod.namespace=<namespace> -q | xargs -r {crictl} rm`, namespace by "
   "namespace, or `--pod <pod-id>` pod by pod (the runtime applies the state, label and pod filters before it "
   "answers; crictl applies `--name` and `--namespace` itself, after the whole list arrived). On containerd the "
   "runbook's \"On the node\" finds them through `ctr`, without CRI's list. Then fix what creates them (a "
   "CronJob without `successfulJobsHistoryLimit`, a crash loop), tighten the kubelet's container GC "
   "(`maxPerPodContainer`, `maxContainers`) and trim huge labels and annotations.",
   "Remove running containers or sandboxes. Do not raise the message limit on one side only: the kubelet and "
   "the runtime must agree."},
  words_of,
  text_on,
};
// clang-format on

}  // namespace plegscope
