// The only place cause ids, statuses and severities become strings.
#include "diagnoser/report.h"

namespace plegscope {
namespace {

template <typename E, size_t N>
std::optional<E> from_name(const std::string& name, const E (&all)[N], const char* (*to_name)(E)) {
  for (E e : all)
    if (name == to_name(e)) return e;
  return std::nullopt;
}

constexpr Status kAllStatuses[] = {Status::kHealthy, Status::kAtRisk, Status::kUnhealthy};
constexpr Severity kAllSeverities[] = {Severity::kInfo, Severity::kWarning, Severity::kCritical};
constexpr Advice kAllAdvice[] = {Advice::kNone,        Advice::kFixPod,     Advice::kRestartKubelet,
                                 Advice::kRestartRuntime, Advice::kFixStorage, Advice::kReboot,
                                 Advice::kReplace};

}  // namespace

const char* cause_name(CauseId id) {
  switch (id) {
#define PLEGSCOPE_CAUSE_NAME(id, name) \
  case CauseId::id:                    \
    return #name;
    PLEGSCOPE_CAUSES(PLEGSCOPE_CAUSE_NAME)
#undef PLEGSCOPE_CAUSE_NAME
  }
  return "unknown";
}

const char* status_name(Status status) {
  switch (status) {
    case Status::kHealthy: return "healthy";
    case Status::kAtRisk: return "at_risk";
    case Status::kUnhealthy: return "unhealthy";
  }
  return "unknown";
}

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kCritical: return "critical";
  }
  return "unknown";
}

const char* advice_name(Advice advice) {
  switch (advice) {
    case Advice::kNone: return "none";
    case Advice::kFixPod: return "fix-pod";
    case Advice::kRestartKubelet: return "restart-kubelet";
    case Advice::kRestartRuntime: return "restart-runtime";
    case Advice::kFixStorage: return "fix-storage";
    case Advice::kReboot: return "reboot";
    case Advice::kReplace: return "replace";
  }
  return "unknown";
}

std::optional<CauseId> cause_from_name(const std::string& name) { return from_name(name, kAllCauses, cause_name); }
std::optional<Status> status_from_name(const std::string& name) { return from_name(name, kAllStatuses, status_name); }
std::optional<Severity> severity_from_name(const std::string& name) {
  return from_name(name, kAllSeverities, severity_name);
}
std::optional<Advice> advice_from_name(const std::string& name) { return from_name(name, kAllAdvice, advice_name); }

}  // namespace plegscope
