#pragma once
// Cause ids, generated from the one cause list (cause_list.h).
#include <optional>
#include <string>

#include "diagnoser/cause_list.h"

namespace plegscope {

// Declaration order is the tie-break when two causes are equally confident.
enum class CauseId {
#define PLEGSCOPE_CAUSE_ENUMERATOR(id, name) id,
  PLEGSCOPE_CAUSES(PLEGSCOPE_CAUSE_ENUMERATOR)
#undef PLEGSCOPE_CAUSE_ENUMERATOR
};

inline constexpr CauseId kAllCauses[] = {
#define PLEGSCOPE_CAUSE_ID(id, name) CauseId::id,
    PLEGSCOPE_CAUSES(PLEGSCOPE_CAUSE_ID)
#undef PLEGSCOPE_CAUSE_ID
};

const char* cause_name(CauseId id);  // "runtime_hung"
std::optional<CauseId> cause_from_name(const std::string& name);

}  // namespace plegscope
