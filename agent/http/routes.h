#pragma once
// The agent's HTTP endpoints (docs/operate.md): what the Node observed and what
// the DiagnosisService published. Both must outlive the server.
#include "http/server.h"
#include "node/diagnosis_service.h"
#include "node/node.h"

namespace plegscope {

void add_routes(HttpServer& server, const Node& node, const DiagnosisService& diagnosis, const Clock& clock);

}  // namespace plegscope
