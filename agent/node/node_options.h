#pragma once
// What a Node and its DiagnosisService need to know, and nothing else: the
// CLI turns its flags into these values (cli/options.h), tests and fuzzers
// fill them by hand.
#include <cstddef>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/metric_detail.h"

namespace plegscope {

enum class EventedMode { Auto, On, Off };

struct NodeOptions {
  std::string node_name;         // the label in reports
  std::string runtime_endpoint;  // the CRI socket, "unix:///run/containerd/containerd.sock"
  Duration runtime_request_timeout = std::chrono::minutes(2);
  Duration relist_period = std::chrono::seconds(1);
  Duration relist_threshold = std::chrono::minutes(3);
  Duration relist_backoff_max = std::chrono::seconds(10);  // 0: never stretch the period
  size_t event_channel_capacity = 1000;
  EventedMode evented = EventedMode::Off;  // the kubelet's default; the CLI passes --evented-pleg
  size_t event_log_size = 1000;   // events kept for /debug/events
  size_t relist_history = 600;    // relists kept for the timeline
  MetricDetail metric_detail = MetricDetail::kLean;  // --metrics-detail
  // Node evidence: where each reader looks (host paths, passed in).
  std::string proc_path = "/proc";

  // Journal (--journal-path, --journal-kubelet-unit, --journal-runtime-units):
  // "" for /var/log/journal, then /run/log/journal.
  std::string journal_path;
  std::string journal_kubelet_unit = "kubelet.service";
  std::vector<std::string> journal_runtime_units = {"containerd.service", "crio.service",
                                                    "docker.service"};
  // The kubelet and the runtime's own metrics (issue 18): an empty endpoint
  // turns its reader off.
  std::string kubelet_endpoint;  // base URL, "https://10.0.0.5:10250"
  std::string kubelet_token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string kubelet_ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  bool kubelet_insecure_skip_tls_verify = false;
  std::string kubelet_version;  // "": the kubelet's own kubernetes_build_info
  std::string runtime_metrics_endpoint;  // the whole URL, "http://127.0.0.1:1338/v1/metrics"
  Duration scrape_interval = std::chrono::seconds(5);
  Duration node_ready_interval = std::chrono::seconds(30);
  // KUBERNETES_SERVICE_HOST and _PORT; empty: not in a cluster, no Ready message.
  std::string api_server_host;
  std::string api_server_port;
  std::string api_server_token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string api_server_ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  // Host evidence below the CRI (issue 17).
  bool host_scan = true;          // off: snapshot().host stays nullopt
  std::string sys_path = "/sys";  // --sys-path
  std::string runtime_root;       // --runtime-root; "" = resolved from the daemons seen
  Duration host_scan_interval = std::chrono::seconds(5);
  // --kernel-stacks: read the kernel stacks of the runtime's tasks in D with
  // a BPF task iterator, once per host scan.
  bool kernel_stacks = false;
  Duration hang_threshold = std::chrono::seconds(10);  // a call this old triggers a scan now
  long clock_ticks_per_second = 0;  // 0: the host's (tests: the fixture tree's)
  // Tests: a diskstats file taken 10 s before the first scan, so one scan
  // of a fixture tree has disk rates.
  std::string host_diskstats_before;
};

struct DiagnosisOptions {
  Duration hang_threshold = std::chrono::seconds(10);  // --hang-threshold
  // While no relist completes, a diagnosis older than this is made again.
  Duration max_age = std::chrono::seconds(1);
};

}  // namespace plegscope
