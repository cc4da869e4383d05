#pragma once
// containerd configuration as the node's containerd reads it. Its file
// format changed twice: 1.x writes `version = 2`; 2.0 to 2.2 `version = 3`
// (the CRI plugin split into io.containerd.cri.v1.runtime and
// io.containerd.cri.v1.images); 2.3 `version = 4`, where the server's own
// tables ([grpc], [ttrpc], [debug] address, [metrics]) became the plugins
// io.containerd.server.v1.grpc, .ttrpc, .debug and .metrics. containerd 2.3
// moves those tables into the plugins only in a file older than version 4
// (cmd/containerd/server/config: serviceMigrate), so a [metrics] table in a
// version 4 file, the one `containerd config default` writes, is ignored
// without a word; a plugin table is read from a file of any version. The
// advice is given for the release the runtime's Version names. Stateless.
#include <string>

#include "diagnoser/runtime_model.h"

namespace plegscope {

// The table that holds containerd's metrics address on this release:
// "[metrics]" before 2.3, "[plugins.'io.containerd.server.v1.metrics']" from
// 2.3; both, named as such, when the release is not known.
std::string containerd_metrics_table(const RuntimeModel& runtime);
// The lines to add to /etc/containerd/config.toml for a metrics page at
// `address` ("127.0.0.1:1338"), served at /v1/metrics. Before 2.3 the
// top-level table; from 2.3, and when the release is unknown (the newest
// behaviour, as runtime_model() takes), the plugin's.
std::string containerd_metrics_snippet(const RuntimeModel& runtime, const std::string& address);

}  // namespace plegscope
