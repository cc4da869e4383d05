#pragma once
// The kubelet's version and the PLEG model it implies, as values (kubelet_metrics.h reads them).
#include <string>

#include "pleg/kubelet_model.h"

namespace plegscope {

struct KubeletVersion {
  int major = 0;
  int minor = 0;
  std::string git_version;  // as reported: "v1.30.2", "v1.36.0-alpha.1+abc"
};

enum class PlegModelKind {
  generic,         // relist every 1 s, unhealthy after 3 min
  evented_legacy,  // before 1.37 with EventedPLEG on: relist every 300 s, 10 min
  evented_hint,    // 1.37+ with EventedPLEG on: events are a hint, 1 s / 3 min
};
constexpr const char* pleg_model_name(PlegModelKind kind) {
  switch (kind) {
    case PlegModelKind::generic: return "generic";
    case PlegModelKind::evented_legacy: return "evented_legacy";
    case PlegModelKind::evented_hint: return "evented_hint";
  }
  return "unknown";
}

// Where the model's release came from: the kubelet's own build info, the
// --kubelet-version flag, or nothing (the newest released kubelet assumed).
enum class ModelSource { read, flag, assumed };
constexpr const char* model_source_name(ModelSource source) {
  switch (source) {
    case ModelSource::read: return "read";
    case ModelSource::flag: return "flag";
    case ModelSource::assumed: return "assumed";
  }
  return "assumed";
}

struct KubeletPlegModel {
  PlegModelKind kind = PlegModelKind::generic;
  double relist_period_seconds = 1;
  double relist_threshold_seconds = 180;
  // Per release: how pods are inspected, on-demand pod relists, what a
  // re-inspection sends, evented as a hint (pleg/kubelet_model.h). Every release
  // re-inspects a pod whose inspection failed at every relist until one
  // succeeds (generic.go: needsReinspection up to 1.35, podsToReinspect
  // from 1.36), so that is no field. KubeletModel's defaults are the newest
  // released kubelet's (newest_kubelet_model()).
  KubeletModel behaviour;
  ModelSource source = ModelSource::assumed;
};

}  // namespace plegscope
