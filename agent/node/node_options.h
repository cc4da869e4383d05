#pragma once
// What a Node and its DiagnosisService need to know: the PLEG block's parts,
// the node-wide facts every source may read (SourceContext), and every
// source's own options by its list name (SourceOptions, from source_list.h),
// each declared beside its source with its defaults. The CLI binds their
// flags straight into these; tests and fuzzers fill them by hand.
#include <string>

#include "common/clock.h"
#include "common/metric_detail.h"
#include "cri/grpc_runtime_client.h"
#include "kubelet/node_ready.h"
#include "node/sources.h"
#include "pleg/pleg_options.h"

namespace plegscope {

// The sources' options are SourceOptions' members: host, journal, kubelet,
// runtime_metrics, and the rest of the list.
struct NodeOptions : SourceOptions {
  std::string node_name;      // the label in reports
  GrpcClientOptions runtime;  // the CRI socket and the per-call deadline
  PlegOptions pleg;
  MetricDetail metric_detail = MetricDetail::kLean;  // how much latency detail /metrics carries
  // A CRI call in flight this long is hung: the host scan looks at once.
  Duration hang_threshold = std::chrono::seconds(10);
  ApiServerOptions api_server;  // the Node's Ready message, and the condition writer's
};

struct DiagnosisOptions {
  Duration hang_threshold = std::chrono::seconds(10);  // --hang-threshold
  // While no relist completes, a diagnosis older than this is made again.
  Duration max_age = std::chrono::seconds(1);
};

}  // namespace plegscope
