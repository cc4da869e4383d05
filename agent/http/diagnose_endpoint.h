#pragma once
// GET /diagnose[?format=json|text|html]: the DiagnosisService's latest
// report, rendered. Any other format is a 400.
#include "http/server.h"
#include "node/diagnosis_service.h"

namespace plegscope {

HttpResponse diagnose_response(const DiagnosisService& diagnosis, const HttpRequest& request);

}  // namespace plegscope
