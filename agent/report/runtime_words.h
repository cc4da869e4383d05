#pragma once
// A cause's words in the node's own runtime's terms. The cause table words
// each cause once, for any runtime; this module rewrites what it says of the
// runtime's helpers, files and remedies for the runtime the agent reads:
// on CRI-O, conmon (one per container, the pod named in its -n argument) is
// the helper and systemd's watchdog restarts a CRI-O that stops answering,
// and containerd's shims, status-lock chain and `ctr` do not exist; on
// containerd, nothing of CRI-O's is named. A runtime the agent does not know
// keeps the words that name both. Stateless.
#include <string>

#include "diagnoser/runtime_model.h"

namespace plegscope {

// `text` (a cause's reason, action, summary, or its runbook paragraphs
// before or after their placeholders are filled) for the runtime `model`
// describes: its family's names, and what its version does (CRI-O before
// 1.32 has no watchdog; only containerd 2.0.1 and 2.0.2 have the go-cni
// deadlock).
std::string in_runtime_words(std::string text, const RuntimeModel& model);
// The same for the newest release of `family`.
std::string in_runtime_words(std::string text, RuntimeFamily family);

// Words that must never appear in a cause's words or remedy on a node of
// `family`: the other runtime's processes, files and tools.
const char* const* foreign_runtime_words(RuntimeFamily family);

}  // namespace plegscope
