#pragma once
// The words of a diagnosis, in one module keyed by cause id. The diagnoser
// returns typed findings; this module turns them into what the operator
// reads: each cause's summary, reason, action and remedy, and the report's
// one-sentence summary ("PLEG is not healthy because …: …").
//
// Each cause's words are one row, <name>_wording, in wording/<name>.cpp
// (the row list is generated from diagnoser/cause_list.h): the sentence for
// each form of its finding, and the runbook's Confirm / Fix / Do not
// paragraphs (docs/runbook.md # Causes says exactly the same; the unit test
// cause_texts_test holds the two together).
//
// The renderers word a report themselves (render_text, render_html,
// report_to_json), so callers pass the diagnoser's report as it is. Stateless.
#include <string>

#include "diagnoser/finding.h"
#include "diagnoser/report.h"
#include "diagnoser/runtime_model.h"
#include "report/format.h"

namespace plegscope {

// The sentence parts of one finding.
struct CauseWords {
  std::string reason;   // the clause after "because", with the numbers
  std::string action;   // what to do first
  std::string summary;  // one sentence, usually built on the reason
};

// The runbook's paragraphs of one cause, with placeholders ({crictl},
// {socket}, {service}, {state_dir}, {node}) for the node's own names.
struct CauseText {
  const char* confirm;  // the runbook's **Confirm.** paragraph
  const char* fix;      // its **Fix.** paragraph
  const char* never;    // its **Do not.** paragraph
};

// The paragraphs of a cause that a runtime's reader needs said otherwise
// (its helper, its files, its tools, how it is restarted); nullptr where
// the words for any runtime stand.
struct RuntimeText {
  const char* confirm = nullptr;
  const char* fix = nullptr;
  const char* never = nullptr;
};

// One row of the wording table.
struct CauseWording {
  // For any runtime: the runbook's words, naming both runtimes' ways where
  // they differ (a runtime the agent does not know reads these).
  CauseText text;
  // The words of the cause's own forms, in the node's runtime's terms; the
  // forms every cause can take when attributed after the rules
  // (Form::kLateIn…, kNoRelistYet) and the relations to other causes are
  // worded in wording.cpp.
  CauseWords (*words)(const Finding& finding, const RuntimeModel& runtime);
  // The paragraphs said otherwise on the node's runtime; nullptr: none.
  RuntimeText (*text_on)(const RuntimeModel& runtime);
};

#define PLEGSCOPE_CAUSE_WORDING(id, name) extern const CauseWording name##_wording;
PLEGSCOPE_CAUSES(PLEGSCOPE_CAUSE_WORDING)
#undef PLEGSCOPE_CAUSE_WORDING

const CauseWording& cause_wording(CauseId id);
// The runbook's paragraphs (any runtime), and as the node's runtime needs them.
const CauseText& cause_text(CauseId id);
CauseText cause_text(CauseId id, const RuntimeModel& runtime);

// The words of a finding, the relations to other causes included: for any
// runtime, and in the node's runtime's terms.
CauseWords words(const Finding& finding);
CauseWords words(const Finding& finding, const RuntimeModel& runtime);

// What the causes' words share of a runtime: its helper, "shim" (one per
// pod: containerd, and a runtime the agent does not know) or "conmon" (one
// per container: CRI-O); what follows "capture its goroutine dump" (who
// restarts it: CRI-O's watchdog from 1.32, else the operator); and "the
// runtime is hung; capture its goroutine dump, then restart it" in full.
const char* helper_name(const RuntimeModel& runtime);
std::string restart_words(const RuntimeModel& runtime);
std::string hung_runtime_words(const RuntimeModel& runtime);

// True while a cause or the report's summary still lacks its words.
bool needs_words(const Report& report);
// Fills in every missing word: each cause's summary, reason, action and
// remedy (in the node's own names, from report.runtime and report.node) and
// the report's summary. Words already there (a report read back from JSON)
// stay as they are.
void word(Report& report);
Report worded(Report report);

// A blind agent (Report::blind) in words: why it cannot see the runtime at
// `endpoint` ("permission denied on unix:///…") and the fix on the agent's
// side (the mount, the SELinux component, the endpoint flag), by
// pleg_runtime_unreachable's reason.
std::string blind_why(const std::string& reason, const std::string& endpoint);
std::string blind_fix(const std::string& reason);

// The CRI method behind an operation label, as operators know it from crictl
// and runtime logs: "list_containers" -> "ListContainers".
std::string cri_method(const std::string& op);

// A pod as operators name it: "default/web-0 (uid 1f2e…, sandbox
// 4c5d…, container app)"; a pod the agent never inspected by its ids alone.
std::string pod_words(const PodRef& pod);
// Several pods, the first few named, "and N more".
std::string pods_words(const std::vector<PodRef>& pods, size_t named = 3);
// What a wchan usually means: "a disk or unmount stall", "remote storage
// (NFS) not answering", ...; "" when unknown.
std::string wchan_meaning(const std::string& wchan);
// Where a blocked task waits, for a sentence: "in ovl_sync_fs, usually ...",
// or, when the kernel function is not shown, why not and what would show it.
std::string wchan_words(const std::string& wchan, host::WchanHidden hidden);

// What a class of kernel frames (host::frame_class_name) waits on, in
// words: "a network filesystem (NFS/RPC, CIFS, FUSE or the like)", ...
std::string frame_class_words(const std::string& frame_class);
// The kernel's hung-task report on a blocked process, for a sentence: when,
// how long the kernel said, what its frames wait on and which frames say
// so; and, when it was printed before plegscope first saw the task in D,
// that it may tell of an earlier stall.
std::string hung_task_words(const KernelHungTask& report);

}  // namespace plegscope
