#include "cri/runtime_info_source.h"

#include <spdlog/spdlog.h>

namespace plegscope {
namespace {

// Version shares the waiting lane with the HTTP scrapes: bounded like them
// (a runtime that takes longer is asked again after the next good relist).
constexpr Duration kVersionTimeout = std::chrono::seconds(5);

}  // namespace

void RuntimeInfoSource::start(SourceLanes lanes) {
  stopping_ = false;
  lanes.waiting.every(std::chrono::seconds(1), [this] { refresh(); });
}

void RuntimeInfoSource::after_relist(bool failed) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!failed && (last_relist_failed_ || info_.name.empty())) wanted_ = true;
  last_relist_failed_ = failed;
}

void RuntimeInfoSource::refresh() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!wanted_ || stopping_) return;
    wanted_ = false;
  }
  auto version = client_.version_within(kVersionTimeout);
  if (!version.ok()) return;  // asked again after the next good relist
  const RuntimeConfigEvidence config = ask_runtime_config();
  std::lock_guard<std::mutex> lock(mu_);
  info_ = {version.value.runtime_name(), version.value.runtime_version(), version.value.runtime_api_version(),
           config};
  spdlog::info("runtime at {}: {} {} (CRI {})", endpoint_, info_.name, info_.version, info_.api_version);
  if (config.answer == RuntimeConfigAnswer::kUnimplemented)
    spdlog::warn("runtime at {} answers RuntimeConfig UNIMPLEMENTED: the kubelet falls back to its own cgroup "
                 "driver and counts kubelet_cri_losing_support",
                 endpoint_);
}

RuntimeConfigEvidence RuntimeInfoSource::ask_runtime_config() {
  auto answer = client_.runtime_config_within(kVersionTimeout);
  if (answer.ok()) {
    const bool cgroupfs = answer.value.linux().cgroup_driver() == cri::CGROUPFS;
    return {RuntimeConfigAnswer::kAnswered, cgroupfs ? "cgroupfs" : "systemd"};
  }
  if (answer.status.code == GrpcCode::kUnimplemented) return {RuntimeConfigAnswer::kUnimplemented, ""};
  return {};
}

RuntimeInfo RuntimeInfoSource::evidence() const {
  std::lock_guard<std::mutex> lock(mu_);
  return info_;
}

}  // namespace plegscope
