#include "cri_convert.h"

namespace fakecri {

namespace {

cri::PodSandboxState to_proto(SandboxState s) {
  return s == SandboxState::Ready ? cri::SANDBOX_READY : cri::SANDBOX_NOTREADY;
}

cri::ContainerState to_proto(ContainerState s) {
  switch (s) {
    case ContainerState::Created: return cri::CONTAINER_CREATED;
    case ContainerState::Running: return cri::CONTAINER_RUNNING;
    case ContainerState::Exited: return cri::CONTAINER_EXITED;
    case ContainerState::Unknown: break;
  }
  return cri::CONTAINER_UNKNOWN;
}

ContainerState from_proto(cri::ContainerState s) {
  switch (s) {
    case cri::CONTAINER_CREATED: return ContainerState::Created;
    case cri::CONTAINER_RUNNING: return ContainerState::Running;
    case cri::CONTAINER_EXITED: return ContainerState::Exited;
    default: return ContainerState::Unknown;
  }
}

cri::ContainerEventType to_proto(EventKind k) {
  switch (k) {
    case EventKind::Created: return cri::CONTAINER_CREATED_EVENT;
    case EventKind::Started: return cri::CONTAINER_STARTED_EVENT;
    case EventKind::Stopped: return cri::CONTAINER_STOPPED_EVENT;
    case EventKind::Deleted: break;
  }
  return cri::CONTAINER_DELETED_EVENT;
}

template <typename Map>
void copy_map(const Labels& in, Map* out) {
  for (const auto& [k, v] : in) (*out)[k] = v;
}

void fill_metadata(const SandboxRecord& in, cri::PodSandboxMetadata* m) {
  m->set_name(in.pod_name);
  m->set_uid(in.pod_uid);
  m->set_namespace_(in.pod_namespace);
  m->set_attempt(in.attempt);
}

}  // namespace

void to_proto(const SandboxRecord& in, cri::PodSandbox* out) {
  out->set_id(in.id);
  fill_metadata(in, out->mutable_metadata());
  out->set_state(to_proto(in.state));
  out->set_created_at(in.created_at);
  copy_map(in.labels, out->mutable_labels());
  copy_map(in.annotations, out->mutable_annotations());
  out->set_runtime_handler("runc");
}

void to_proto(const SandboxRecord& in, cri::PodSandboxStatus* out) {
  out->set_id(in.id);
  fill_metadata(in, out->mutable_metadata());
  out->set_state(to_proto(in.state));
  out->set_created_at(in.created_at);
  if (in.state == SandboxState::Ready) out->mutable_network()->set_ip("10.88.0.2");
  copy_map(in.labels, out->mutable_labels());
  copy_map(in.annotations, out->mutable_annotations());
  out->set_runtime_handler("runc");
}

void to_proto(const ContainerRecord& in, cri::Container* out, const std::string* pad) {
  out->set_id(in.id);
  out->set_pod_sandbox_id(in.sandbox_id);
  out->mutable_metadata()->set_name(in.name);
  out->mutable_metadata()->set_attempt(in.attempt);
  out->mutable_image()->set_image(in.image);
  out->set_image_ref(in.image_ref);
  out->set_image_id(in.image_ref);
  out->set_state(to_proto(in.state));
  out->set_created_at(in.created_at);
  copy_map(in.labels, out->mutable_labels());
  copy_map(in.annotations, out->mutable_annotations());
  if (pad != nullptr && !pad->empty()) (*out->mutable_annotations())[kPadAnnotation] = *pad;
}

void to_proto(const ContainerRecord& in, cri::ContainerStatus* out, const std::string* pad) {
  out->set_id(in.id);
  out->mutable_metadata()->set_name(in.name);
  out->mutable_metadata()->set_attempt(in.attempt);
  out->set_state(to_proto(in.state));
  out->set_created_at(in.created_at);
  out->set_started_at(in.started_at);
  out->set_finished_at(in.finished_at);
  out->set_exit_code(in.exit_code);
  out->mutable_image()->set_image(in.image);
  out->set_image_ref(in.image_ref);
  out->set_image_id(in.image_ref);
  out->set_reason(in.reason);
  out->set_message(in.message);
  copy_map(in.labels, out->mutable_labels());
  copy_map(in.annotations, out->mutable_annotations());
  if (pad != nullptr && !pad->empty()) (*out->mutable_annotations())[kPadAnnotation] = *pad;
  out->set_log_path("/var/log/pods/" + in.pod_uid + "/" + in.name + "/" + std::to_string(in.attempt) + ".log");
}

void to_proto(const ModelEvent& in, cri::ContainerEventResponse* out) {
  out->set_container_id(in.container_id);
  out->set_container_event_type(to_proto(in.kind));
  out->set_created_at(in.created_at);
  if (in.sandbox) to_proto(*in.sandbox, out->mutable_pod_sandbox_status());
  for (const auto& c : in.containers) to_proto(c, out->add_containers_statuses());
}

SandboxQuery from_proto(const cri::PodSandboxFilter& filter) {
  SandboxQuery q;
  q.id = filter.id();
  if (filter.has_state()) {
    q.state = filter.state().state() == cri::SANDBOX_READY ? SandboxState::Ready : SandboxState::NotReady;
  }
  for (const auto& [k, v] : filter.label_selector()) q.label_selector[k] = v;
  return q;
}

ContainerQuery from_proto(const cri::ContainerFilter& filter) {
  ContainerQuery q;
  q.id = filter.id();
  if (filter.has_state()) q.state = from_proto(filter.state().state());
  q.sandbox_id = filter.pod_sandbox_id();
  for (const auto& [k, v] : filter.label_selector()) q.label_selector[k] = v;
  return q;
}

bool is_filtered(const cri::PodSandboxFilter& f) {
  return !f.id().empty() || f.has_state() || !f.label_selector().empty();
}

bool is_filtered(const cri::ContainerFilter& f) {
  return !f.id().empty() || f.has_state() || !f.pod_sandbox_id().empty() || !f.label_selector().empty();
}

}  // namespace fakecri
