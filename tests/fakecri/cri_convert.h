#pragma once
// Model records <-> CRI runtime.v1 messages. No state.
#include <string>

#include "cri_runtime_v1.pb.h"
#include "node_model.h"

namespace fakecri {

namespace cri = runtime::v1;

// Annotation carrying scenario padding (pad_bytes) on containers.
inline constexpr const char* kPadAnnotation = "fakecri.example/padding";

void to_proto(const SandboxRecord& in, cri::PodSandbox* out);
void to_proto(const SandboxRecord& in, cri::PodSandboxStatus* out);
// `pad` non-null and non-empty: added as the kPadAnnotation annotation.
void to_proto(const ContainerRecord& in, cri::Container* out, const std::string* pad = nullptr);
void to_proto(const ContainerRecord& in, cri::ContainerStatus* out, const std::string* pad = nullptr);
void to_proto(const ModelEvent& in, cri::ContainerEventResponse* out);

SandboxQuery from_proto(const cri::PodSandboxFilter& filter);
ContainerQuery from_proto(const cri::ContainerFilter& filter);
bool is_filtered(const cri::PodSandboxFilter& filter);
bool is_filtered(const cri::ContainerFilter& filter);

}  // namespace fakecri
