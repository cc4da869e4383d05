// The words of message_too_large: a list answer over (or near) the gRPC message limit.
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f) {
  CauseWords w;
  const std::string limit = text::bytes(f.limit_bytes);
  if (f.form == Form::kNearLimit) {
    w.reason = "the last " + cri_method(f.op) + " answer was " + text::bytes(f.bytes) + ", " +
               text::fmt("%.0f", f.share * 100) + "% of the " + limit + " gRPC limit past which every relist fails";
    w.action = f.mostly_exited ? "remove exited containers before it crosses the limit"
                               : "find the containers with oversized labels or annotations before it crosses the limit";
    w.summary = "The node is approaching the list size cliff: " + w.reason + ".";
  } else {  // Form::kOverLimit
    w.reason = "the runtime's list answer is over the " + limit + " gRPC message limit (RESOURCE_EXHAUSTED in " +
               text::count(f.calls, "call", "calls") + ")";
    w.action = f.mostly_exited ? "remove exited containers so the list fits again"
                               : "find the containers with oversized labels or annotations";
    w.summary = "Relists fail because " + w.reason + ".";
  }
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## message_too_large
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording message_too_large_wording = {
  {"The kubelet's log says `grpc: received message larger than max`, and "
   "`pleg_runtime_list_response_bytes` (the last answer that still fit) is near 16 MiB. Count what the list "
   "returns: `{crictl} ps -a -q | wc -l` and `{crictl} ps -a --state exited -q | wc -l`; `{crictl} inspect "
   "<container-id>` on a few containers shows oversized labels or annotations.",
   "Remove exited containers: `{crictl} ps -a --state exited -q | xargs -r {crictl} rm` (exited containers "
   "only). Then fix what creates them (a CronJob without `successfulJobsHistoryLimit`, a crash loop), tighten "
   "the kubelet's container GC (`maxPerPodContainer`, `maxContainers`) and trim huge labels and annotations.",
   "Remove running containers or sandboxes. Do not raise the message limit on one side only: the kubelet and "
   "the runtime must agree."},
  words_of,
};
// clang-format on

}  // namespace plegscope
