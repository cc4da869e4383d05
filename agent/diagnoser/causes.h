#pragma once
// Cause ids, fixed by DESIGN §6: dashboards and alerts use their names.
#include <optional>
#include <string>

namespace plegscope {

// Declaration order is the tie-break when two causes are equally confident.
enum class CauseId {
  kRuntimeUnavailable,
  kRuntimeHung,
  kRuntimeSlow,
  kMessageTooLarge,
  kTooManyContainers,
  kEventStorm,
  kPodStatusSlow,
  kReinspectBacklog,
  kNodePressure,
};
inline constexpr CauseId kAllCauses[] = {
    CauseId::kRuntimeUnavailable, CauseId::kRuntimeHung,       CauseId::kRuntimeSlow,
    CauseId::kMessageTooLarge,    CauseId::kTooManyContainers, CauseId::kEventStorm,
    CauseId::kPodStatusSlow,      CauseId::kReinspectBacklog,  CauseId::kNodePressure};

const char* cause_name(CauseId id);  // "runtime_hung"
std::optional<CauseId> cause_from_name(const std::string& name);

}  // namespace plegscope
