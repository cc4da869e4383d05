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

std::optional<CauseId> cause_from_name(const std::string& name) { return from_name(name, kAllCauses, cause_name); }
std::optional<Status> status_from_name(const std::string& name) { return from_name(name, kAllStatuses, status_name); }
std::optional<Severity> severity_from_name(const std::string& name) {
  return from_name(name, kAllSeverities, severity_name);
}

}  // namespace plegscope
