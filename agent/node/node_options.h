#pragma once
// What a Node and its DiagnosisService need to know: one part per block
// and source, each declared beside it with its defaults. The CLI binds its
// flags straight into these (cli/flags.h); tests and fuzzers fill them by hand.
#include <string>

#include "common/clock.h"
#include "common/metric_detail.h"
#include "cri/grpc_runtime_client.h"
#include "host/host_source.h"
#include "journal/journal_follower.h"
#include "kubelet/kubelet_reader.h"
#include "kubelet/node_ready.h"
#include "pleg/pleg_options.h"
#include "runtime_metrics/runtime_metrics_reader.h"

namespace plegscope {

struct NodeOptions {
  std::string node_name;      // the label in reports
  GrpcClientOptions runtime;  // the CRI socket and the per-call deadline
  PlegOptions pleg;
  MetricDetail metric_detail = MetricDetail::kLean;  // how much latency detail /metrics carries
  // A CRI call in flight this long is hung: the host scan looks at once.
  Duration hang_threshold = std::chrono::seconds(10);
  HostSourceOptions host;  // also where node pressure is read (proc_path)
  JournalFollowerOptions journal;
  KubeletReaderOptions kubelet;
  RuntimeMetricsOptions runtime_metrics;
  ApiServerOptions api_server;  // the Node's Ready message, and the condition writer's
};

struct DiagnosisOptions {
  Duration hang_threshold = std::chrono::seconds(10);  // --hang-threshold
  // While no relist completes, a diagnosis older than this is made again.
  Duration max_age = std::chrono::seconds(1);
};

}  // namespace plegscope
