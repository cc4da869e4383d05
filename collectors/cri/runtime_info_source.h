#pragma once
// The runtime's name and version (CRI Version) and its RuntimeConfig, as a
// source: asked on the
// waiting lane after the first good relist and after every recovery (the
// runtime may have been upgraded while it was away), never on every relist.
#include <atomic>
#include <mutex>
#include <string>

#include "common/source.h"
#include "cri/grpc_runtime_client.h"
#include "cri/runtime_config_evidence.h"

namespace plegscope {

struct RuntimeInfo {
  std::string name;         // "containerd", "cri-o"
  std::string version;
  std::string api_version;  // the CRI version it speaks
  // Asked with Version, as the kubelet asks it at start: the same runtime
  // answers the same until it is restarted or upgraded.
  RuntimeConfigEvidence config;
};

// Thread-safe.
class RuntimeInfoSource final : public SourceOf<RuntimeInfo> {
 public:
  using Options = NoOptions;
  // The endpoint only names the runtime in the log line.
  RuntimeInfoSource(const Options&, const SourceContext& context)
      : client_(context.runtime), endpoint_(context.runtime_options.endpoint) {}

  std::string_view name() const override { return "runtime_info"; }
  bool enabled() const override { return true; }
  void start(SourceLanes lanes) override;
  void stop() override { stopping_ = true; }
  RuntimeInfo evidence() const override;

  // The relist observer's word after each relist; never calls the runtime
  // (it runs under the relist's lock): the lane asks within a second.
  void after_relist(bool failed);
  // One look on the calling thread: asks Version when a relist wanted it.
  void refresh();

 private:
  RuntimeConfigEvidence ask_runtime_config();

  GrpcRuntimeClient& client_;
  const std::string endpoint_;
  mutable std::mutex mu_;
  RuntimeInfo info_;
  bool last_relist_failed_ = true;
  bool wanted_ = false;
  std::atomic<bool> stopping_{false};
};

}  // namespace plegscope
