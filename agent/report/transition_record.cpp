#include "report/transition_record.h"

#include "report/json.h"

namespace plegscope {

using nlohmann::json;

json transition_record(const Report& report, std::optional<Status> previous, int64_t suppressed,
                       const std::string& version) {
  // Built from the /diagnose JSON, so names, words and rounding are the report's own.
  json full = report_to_json(report);
  json causes = json::array();
  for (const json& cause : full["causes"]) {
    if (causes.size() == kTransitionRecordCauses) break;
    json kept = {{"id", cause["id"]},
                 {"severity", cause["severity"]},
                 {"confidence", cause["confidence"]},
                 {"summary", cause["summary"]},
                 {"evidence", cause["evidence"]}};
    if (cause.contains("culprit")) kept["culprit"] = cause["culprit"];
    causes.push_back(std::move(kept));
  }
  return {{"event", "plegscope_verdict"},
          {"time", full["generated_at"]},
          {"node", report.node},
          {"status", status_name(report.status)},
          {"previous_status", previous ? json(status_name(*previous)) : json(nullptr)},
          {"healthy", report.healthy},
          {"summary", full["summary"]},
          {"causes", std::move(causes)},
          {"causes_total", report.causes.size()},
          {"seconds_to_unhealthy", full["forecast"]["seconds_to_unhealthy"]},
          {"suppressed_transitions", suppressed},
          {"version", version}};
}

}  // namespace plegscope
