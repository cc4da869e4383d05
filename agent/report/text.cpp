#include "report/text.h"

#include <algorithm>
#include <sstream>

#include "report/format.h"
#include "report/sections/section.h"
#include "report/wording.h"

namespace plegscope {
namespace {

using report::SectionId;
using report::Slot;
using text::elapsed;

// The text's order: the runtime's Status between the status line and the
// summary, where the operator reads which NotReady path the node is on.
constexpr std::array kTextLayout = {
    Slot{SectionId::kStatus, 0},         Slot{SectionId::kRuntimeStatus},
    Slot{SectionId::kStatus, 1},         Slot{SectionId::kCauses},
    Slot{SectionId::kRelist},            Slot{SectionId::kKubelet},
    Slot{SectionId::kRuntimeMetrics},    Slot{SectionId::kNodeCondition},
    Slot{SectionId::kRuntime, 0, "\n"},  Slot{SectionId::kEvents},
    Slot{SectionId::kJournal, 0, "\n"},  Slot{SectionId::kHost},
};
static_assert(report::covers_every_part(kTextLayout, report::Format::kText), "the text misses a report section");

}  // namespace

const TimelineEntry* relist_in_progress(const Report& r) {
  if (r.timeline.empty() || !r.timeline.back().in_progress) return nullptr;
  return &r.timeline.back();
}

// The in-progress entry carries what the relist found so far: list time once
// ListPodSandbox answered, pods and containers once both lists did, then
// status calls and events as the changed pods are inspected.
std::string describe_in_progress(const TimelineEntry& e) {
  std::string out = "running for " + elapsed(e.duration_seconds);
  if (e.initial) out += " (the first relist: every pod is inspected once)";
  if (e.lists_done == 0) return out + "; waiting for ListPodSandbox";
  if (e.lists_done == 1)
    return out + "; ListPodSandbox answered after " + elapsed(e.list_seconds) +
           ", waiting for ListContainers";
  out += "; lists done in " + elapsed(e.list_seconds) + " (" + text::count(e.pods, "pod", "pods") +
         ", " + text::count(e.containers, "container", "containers") + ")";
  if (e.pods_changed > 0)
    out += "; " + std::to_string(std::min(e.pods_inspected, e.pods_changed)) + "/" +
           text::count(e.pods_changed, "changed pod", "changed pods") + " inspected";
  if (e.events > 0 || e.status_calls > 0)
    out += "; " + text::count(e.status_calls, "status call", "status calls") + " so far (" +
           elapsed(e.status_seconds) + ") for " + text::count(e.events, "event", "events");
  return out;
}

std::vector<std::string> remedy_parts(const std::string& remedy) {
  std::vector<std::string> parts;
  size_t from = 0;
  for (const char* label : {" Fix: ", " Do not: "}) {
    size_t at = remedy.find(label, from);
    if (at == std::string::npos) continue;
    parts.push_back(remedy.substr(from, at - from));
    from = at + 1;
  }
  parts.push_back(remedy.substr(from));
  return parts;
}

std::string lateness(double late_by_seconds) {
  return "events reach the kubelet up to " + elapsed(late_by_seconds) + " late";
}

std::string status_label(Status status) {
  switch (status) {
    case Status::kHealthy:
      return "HEALTHY";
    case Status::kAtRisk:
      return "AT RISK";
    case Status::kUnhealthy:
      return "UNHEALTHY";
  }
  return status_name(status);
}

std::string status_label(const Report& r) { return r.blind ? "BLIND" : status_label(r.status); }

std::string render_text(const Report& r) {
  if (needs_words(r)) return render_text(worded(r));
  std::ostringstream out;
  report::render_layout(kTextLayout, report::Format::kText, r, out);
  return out.str();
}

}  // namespace plegscope
