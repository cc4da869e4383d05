#include "diagnosis_endpoint.h"

#include "common/metric_family.h"
#include "report/html.h"
#include "report/json.h"
#include "report/text.h"

namespace plegscope {

DiagnoserThresholds thresholds_from(const Config& config) {
  DiagnoserThresholds t;
  t.hang_seconds = to_seconds(config.hang_threshold);
  return t;
}

Report current_report(Monitor& monitor) {
  NodePressureReader pressure(monitor.config().proc_path);
  return diagnose(gather_snapshot(monitor, &pressure), thresholds_from(monitor.config()));
}

HttpResponse diagnose_response(Monitor& monitor, const HttpRequest& request) {
  std::string format = "json";
  if (auto it = request.query.find("format"); it != request.query.end()) format = it->second;
  if (format != "json" && format != "text" && format != "html")
    return HttpResponse::text(400, "bad format \"" + format + "\": expected json, text or html");
  Report report = current_report(monitor);
  if (format == "text") return {200, "text/plain; charset=utf-8", render_text(report)};
  if (format == "html") return {200, "text/html; charset=utf-8", render_html(report)};
  return {200, "application/json", report_to_json(report).dump(2) + "\n"};
}

}  // namespace plegscope
