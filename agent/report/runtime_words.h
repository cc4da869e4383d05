#pragma once
// The words that never belong on a node of a given runtime: the other
// runtime's processes, files and tools. Each cause says its own words for
// each runtime (report/wording/<cause>.cpp: its `text_on` and its words'
// runtime argument); this list is what the tests hold those words to.
// Stateless.
#include "diagnoser/runtime_family.h"

namespace plegscope {

// Words that must never appear in a cause's words or remedy on a node of
// `family`; nullptr-terminated.
const char* const* foreign_runtime_words(RuntimeFamily family);

}  // namespace plegscope
