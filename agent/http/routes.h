#pragma once
// The agent's HTTP endpoints (DESIGN §5), bound to a Monitor.
#include "http_server.h"
#include "monitor.h"

namespace plegscope {

void add_routes(HttpServer& server, Monitor& monitor);

}  // namespace plegscope
