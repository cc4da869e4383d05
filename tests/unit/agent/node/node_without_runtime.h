#pragma once
// A Node whose runtime socket does not exist: every relist fails at once
// (UNAVAILABLE), so tests drive it with Node::relist() and a fake clock.
#include "node/node_options.h"

namespace plegscope::testing {

inline NodeOptions node_without_runtime() {
  NodeOptions o;
  o.runtime.endpoint = "unix:///nonexistent/plegscope-test.sock";
  o.host.proc_path = "/nonexistent";
  o.node_name = "test";
  return o;
}

}  // namespace plegscope::testing
