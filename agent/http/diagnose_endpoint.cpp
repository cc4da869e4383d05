#include "http/diagnose_endpoint.h"

#include "report/html.h"
#include "report/json.h"
#include "report/text.h"

namespace plegscope {

HttpResponse diagnose_response(const DiagnosisService& diagnosis, const HttpRequest& request) {
  std::string format = "json";
  if (auto it = request.query.find("format"); it != request.query.end()) format = it->second;
  if (format != "json" && format != "text" && format != "html")
    return HttpResponse::text(400, "bad format \"" + format + "\": expected json, text or html");
  const auto latest = diagnosis.latest();
  const Report& report = latest->report;
  if (format == "text") return {200, "text/plain; charset=utf-8", render_text(report)};
  if (format == "html") return {200, "text/html; charset=utf-8", render_html(report)};
  return {200, "application/json", report_to_json(report).dump(2) + "\n"};
}

}  // namespace plegscope
