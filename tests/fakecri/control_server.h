#pragma once
// The fake's control endpoint (HTTP on loopback, civetweb), for tests and
// the demo:
//   GET  /calls[?method=M][&since=SEQ]   call log + counts
//   POST /calls/clear                    forget calls so far
//   POST /release                        end hangs, disarm them for the phase
//   POST /phase?name=X[&hold=1]          jump to a phase (hold: stay there)
//   POST /resume                         let a held phase run out again
//   GET  /state                          phase, socket, pod/container counts
//   GET  /pods                           pods with their sandboxes/containers
//   POST /kill?container_id=ID|pod_uid=UID[&exit_code=N][&restart=1]
//   GET  /healthz                        ok
// JSON rendering lives here; the components know nothing of HTTP.
#include <string>

#include "fake_runtime.h"

struct mg_context;
struct mg_connection;

namespace fakecri {

class ControlServer {
 public:
  explicit ControlServer(FakeRuntime& runtime);
  ~ControlServer();

  // address "HOST:PORT"; false + error if it cannot listen.
  bool start(const std::string& address, std::string* error);
  void stop();

 private:
  static int dispatch(mg_connection* conn, void* self);
  int handle(mg_connection* conn);

  FakeRuntime& rt_;
  mg_context* ctx_ = nullptr;
  int port_ = 0;
};

}  // namespace fakecri
