#include "runtime_service.h"

#include <spdlog/spdlog.h>

#include "grpc_codes.h"

namespace fakecri {

namespace {

grpc::Status to_status(const MutationResult& r) {
  switch (r.error) {
    case MutationResult::Error::None: return grpc::Status::OK;
    case MutationResult::Error::NotFound: return {grpc::StatusCode::NOT_FOUND, r.message};
    case MutationResult::Error::InvalidArgument: return {grpc::StatusCode::INVALID_ARGUMENT, r.message};
    case MutationResult::Error::FailedPrecondition: return {grpc::StatusCode::FAILED_PRECONDITION, r.message};
  }
  return {grpc::StatusCode::INTERNAL, r.message};
}

Labels to_labels(const google::protobuf::Map<std::string, std::string>& m) { return Labels(m.begin(), m.end()); }

// Marks the call finished in the log however the handler returns.
class CallScope {
 public:
  CallScope(CallLog& log, Op op, const Clock& clock)
      : log_(log), op_(op), seq_(log.begin(op, clock.now())), start_(std::chrono::steady_clock::now()) {}
  grpc::Status finish(grpc::Status status) {
    const auto took = std::chrono::steady_clock::now() - start_;
    log_.end(seq_, status.error_code(), took);
    spdlog::debug("{} -> {} in {:.3f}s", op_name(op_), status_code_name(status.error_code()), to_seconds(took));
    return status;
  }

 private:
  CallLog& log_;
  Op op_;
  uint64_t seq_;
  std::chrono::steady_clock::time_point start_;
};

// What a broken runtime might send after a real event; none of it may
// change what the client concludes (the real event came first).
std::vector<cri::ContainerEventResponse> garbage_after(const cri::ContainerEventResponse& real) {
  std::vector<cri::ContainerEventResponse> junk(4, real);
  junk[0].clear_pod_sandbox_status();
  junk[1].set_container_event_type(static_cast<cri::ContainerEventType>(42));
  // Not an exact repeat: the kubelet (and plegscope, its copy) accepts an
  // observation as new as the cached one, so a repeat is a real event twice.
  junk[2].mutable_pod_sandbox_status()->clear_metadata();
  junk[3].set_created_at(real.created_at() - 1'000'000'000);  // older than what it follows
  junk[3].set_container_event_type(real.container_event_type() == cri::CONTAINER_STARTED_EVENT
                                       ? cri::CONTAINER_STOPPED_EVENT
                                       : cri::CONTAINER_STARTED_EVENT);
  return junk;
}

const grpc::Status kCancelled(grpc::StatusCode::CANCELLED, "fakecri: call cancelled");
const grpc::Status kShuttingDown(grpc::StatusCode::UNAVAILABLE, "fakecri: shutting down");

// The streamed list's next message: a new one once the last holds `batch` items.
template <typename Message, typename Count>
Message* next_batch(std::vector<Message>& out, int batch, Count count) {
  if (out.empty() || count(out.back()) >= batch) out.emplace_back();
  return &out.back();
}

template <typename Message>
grpc::Status write_all(const std::vector<Message>& out, grpc::ServerWriter<Message>* writer) {
  for (const auto& m : out)
    if (!writer->Write(m)) return kCancelled;
  return grpc::Status::OK;
}

}  // namespace

RuntimeService::RuntimeService(const RuntimeInfo& info, SimulatedNode& node, FaultInjector& faults, CallLog& calls,
                               EventBus& events, const Clock& clock)
    : info_(info), node_(node), faults_(faults), calls_(calls), events_(events), clock_(clock) {}

grpc::Status RuntimeService::serve(Op op, grpc::ServerContext* ctx, bool filtered,
                                   const FaultInjector::TargetFn& target, const Body& body) {
  CallScope call(calls_, op, clock_);
  const FaultInjector::Plan plan = faults_.plan(op);
  auto cancelled = [ctx] { return ctx->IsCancelled(); };
  auto interrupted = [&](FaultInjector::WaitEnd end) -> std::optional<grpc::Status> {
    if (end == FaultInjector::WaitEnd::Cancelled) return kCancelled;
    if (end == FaultInjector::WaitEnd::Shutdown) return kShuttingDown;
    return std::nullopt;
  };
  if (plan.behaviour.hang && FaultInjector::hangs(*plan.behaviour.hang, target)) {
    if (auto s = interrupted(faults_.hang(*plan.behaviour.hang, plan.generation, cancelled))) return call.finish(*s);
  }
  const LatencySpec& latency = plan.behaviour.latency;
  const bool slow = !(latency.unfiltered_only && filtered);
  if (slow) {
    if (auto s = interrupted(faults_.sleep(faults_.draw_latency(latency), cancelled))) return call.finish(*s);
  }
  if (auto error = faults_.pick_error(plan.behaviour.errors, target)) return call.finish(*error);
  size_t items = 0;
  grpc::Status status = body(plan, items);
  if (slow && latency.per_item.count() > 0 && items > 0) {
    if (auto s = interrupted(faults_.sleep(latency.per_item * static_cast<Duration::rep>(items), cancelled))) {
      return call.finish(*s);
    }
  }
  return call.finish(status);
}

grpc::Status RuntimeService::unimplemented(Op op) {
  CallScope call(calls_, op, clock_);
  return call.finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                  std::string("fakecri: ") + op_name(op) + " is not supported by this runtime"));
}

std::optional<int> RuntimeService::target_of(const SandboxQuery& q) const {
  if (!q.id.empty()) return node_.pod_ordinal_of_sandbox(q.id);
  auto uid = q.label_selector.find(kPodUidLabel);
  if (uid != q.label_selector.end()) return node_.pod_ordinal_of_uid(uid->second);
  return std::nullopt;
}

std::optional<int> RuntimeService::target_of(const ContainerQuery& q) const {
  if (!q.id.empty()) return node_.pod_ordinal_of_container(q.id);
  if (!q.sandbox_id.empty()) return node_.pod_ordinal_of_sandbox(q.sandbox_id);
  auto uid = q.label_selector.find(kPodUidLabel);
  if (uid != q.label_selector.end()) return node_.pod_ordinal_of_uid(uid->second);
  return std::nullopt;
}

// ---- read-only calls ------------------------------------------------------

grpc::Status RuntimeService::Version(grpc::ServerContext* ctx, const cri::VersionRequest*,
                                     cri::VersionResponse* resp) {
  return serve(Op::Version, ctx, false, nullptr, [&](const FaultInjector::Plan&, size_t&) {
    resp->set_version("0.1.0");
    resp->set_runtime_name(info_.name);
    resp->set_runtime_version(info_.version);
    resp->set_runtime_api_version("v1");
    return grpc::Status::OK;
  });
}

grpc::Status RuntimeService::RuntimeConfig(grpc::ServerContext* ctx, const cri::RuntimeConfigRequest*,
                                           cri::RuntimeConfigResponse* resp) {
  if (!info_.runtime_config) return unimplemented(Op::RuntimeConfig);
  return serve(Op::RuntimeConfig, ctx, false, nullptr, [&](const FaultInjector::Plan&, size_t&) {
    resp->mutable_linux()->set_cgroup_driver(cri::SYSTEMD);
    return grpc::Status::OK;
  });
}

grpc::Status RuntimeService::Status(grpc::ServerContext* ctx, const cri::StatusRequest*, cri::StatusResponse* resp) {
  return serve(Op::Status, ctx, false, nullptr, [&](const FaultInjector::Plan& plan, size_t&) {
    const std::pair<const char*, const ConditionSpec*> conditions[] = {
        {"RuntimeReady", &plan.conditions.runtime_ready}, {"NetworkReady", &plan.conditions.network_ready}};
    for (const auto& [type, spec] : conditions) {
      auto* c = resp->mutable_status()->add_conditions();
      c->set_type(type);
      c->set_status(spec->status);
      c->set_reason(spec->reason);
      c->set_message(spec->message);
    }
    return grpc::Status::OK;
  });
}

grpc::Status RuntimeService::ListPodSandbox(grpc::ServerContext* ctx, const cri::ListPodSandboxRequest* req,
                                            cri::ListPodSandboxResponse* resp) {
  const SandboxQuery q = from_proto(req->filter());
  return serve(Op::ListPodSandbox, ctx, is_filtered(req->filter()), [&] { return target_of(q); },
               [&](const FaultInjector::Plan&, size_t& items) {
                 items = node_.visit_sandboxes(q, [&](const SandboxRecord& sb) { to_proto(sb, resp->add_items()); });
                 return grpc::Status::OK;
               });
}

grpc::Status RuntimeService::PodSandboxStatus(grpc::ServerContext* ctx, const cri::PodSandboxStatusRequest* req,
                                              cri::PodSandboxStatusResponse* resp) {
  const std::string& id = req->pod_sandbox_id();
  return serve(Op::PodSandboxStatus, ctx, true, [&] { return node_.pod_ordinal_of_sandbox(id); },
               [&](const FaultInjector::Plan&, size_t& items) {
                 auto sb = node_.sandbox(id);
                 if (!sb) return grpc::Status(grpc::StatusCode::NOT_FOUND, "an error occurred when try to find sandbox \"" + id + "\": not found");
                 to_proto(*sb, resp->mutable_status());
                 for (const auto& c : node_.sandbox_containers(id)) to_proto(c, resp->add_containers_statuses());
                 resp->set_timestamp(unix_nanos(clock_.now()));
                 items = 1;
                 return grpc::Status::OK;
               });
}

grpc::Status RuntimeService::ListContainers(grpc::ServerContext* ctx, const cri::ListContainersRequest* req,
                                            cri::ListContainersResponse* resp) {
  const ContainerQuery q = from_proto(req->filter());
  return serve(Op::ListContainers, ctx, is_filtered(req->filter()), [&] { return target_of(q); },
               [&](const FaultInjector::Plan& plan, size_t& items) {
                 items = node_.visit_containers(
                     q, [&](const ContainerRecord& c) { to_proto(c, resp->add_containers(), plan.pad.get()); });
                 return grpc::Status::OK;
               });
}

grpc::Status RuntimeService::ContainerStatus(grpc::ServerContext* ctx, const cri::ContainerStatusRequest* req,
                                             cri::ContainerStatusResponse* resp) {
  const std::string& id = req->container_id();
  return serve(Op::ContainerStatus, ctx, true, [&] { return node_.pod_ordinal_of_container(id); },
               [&](const FaultInjector::Plan& plan, size_t& items) {
                 auto c = node_.container(id);
                 if (!c) return grpc::Status(grpc::StatusCode::NOT_FOUND, "an error occurred when try to find container \"" + id + "\": not found");
                 to_proto(*c, resp->mutable_status(), plan.pad.get());
                 items = 1;
                 return grpc::Status::OK;
               });
}

grpc::Status RuntimeService::GetContainerEvents(grpc::ServerContext* ctx, const cri::GetEventsRequest*,
                                                grpc::ServerWriter<cri::ContainerEventResponse>* writer) {
  if (!info_.container_events) return unimplemented(Op::GetContainerEvents);
  return serve(Op::GetContainerEvents, ctx, false, nullptr, [&](const FaultInjector::Plan& plan, size_t&) {
    auto sub = events_.subscribe();
    int sent = 0;
    while (true) {
      if (ctx->IsCancelled()) return kCancelled;
      if (faults_.is_shutdown()) return kShuttingDown;
      auto event = sub->next(std::chrono::milliseconds(50));
      if (!event) continue;
      if (plan.events.created_at_zero) {
        event->set_created_at(0);
      } else if (plan.events.created_at_ahead.count() > 0) {
        event->set_created_at(event->created_at() + plan.events.created_at_ahead.count());
      }
      if (!writer->Write(*event)) return kCancelled;
      if (plan.events.garbage) {
        for (const auto& junk : garbage_after(*event))
          if (!writer->Write(junk)) return kCancelled;
      }
      ++sent;
      if (plan.events.break_after > 0 && sent >= plan.events.break_after) {
        return grpc::Status(plan.events.break_code,
                            "fakecri: event stream broken after " + std::to_string(sent) + " events");
      }
    }
  });
}

grpc::Status RuntimeService::StreamPodSandboxes(grpc::ServerContext* ctx, const cri::StreamPodSandboxesRequest* req,
                                                grpc::ServerWriter<cri::StreamPodSandboxesResponse>* writer) {
  if (!info_.list_streaming) return unimplemented(Op::StreamPodSandboxes);
  const SandboxQuery q = from_proto(req->filter());
  return serve(Op::StreamPodSandboxes, ctx, is_filtered(req->filter()), [&] { return target_of(q); },
               [&](const FaultInjector::Plan&, size_t& items) {
                 std::vector<cri::StreamPodSandboxesResponse> out;
                 items = node_.visit_sandboxes(q, [&](const SandboxRecord& sb) {
                   to_proto(sb, next_batch(out, info_.list_stream_batch, [](const auto& m) {
                              return m.pod_sandboxes_size();
                            })->add_pod_sandboxes());
                 });
                 return write_all(out, writer);
               });
}

grpc::Status RuntimeService::StreamContainers(grpc::ServerContext* ctx, const cri::StreamContainersRequest* req,
                                              grpc::ServerWriter<cri::StreamContainersResponse>* writer) {
  if (!info_.list_streaming) return unimplemented(Op::StreamContainers);
  const ContainerQuery q = from_proto(req->filter());
  return serve(Op::StreamContainers, ctx, is_filtered(req->filter()), [&] { return target_of(q); },
               [&](const FaultInjector::Plan& plan, size_t& items) {
                 std::vector<cri::StreamContainersResponse> out;
                 items = node_.visit_containers(q, [&](const ContainerRecord& c) {
                   to_proto(c,
                            next_batch(out, info_.list_stream_batch, [](const auto& m) {
                              return m.containers_size();
                            })->add_containers(),
                            plan.pad.get());
                 });
                 return write_all(out, writer);
               });
}

// ---- mutating calls (never made by the agent; logged so tests can prove it) ----

grpc::Status RuntimeService::RunPodSandbox(grpc::ServerContext* ctx, const cri::RunPodSandboxRequest* req,
                                           cri::RunPodSandboxResponse* resp) {
  return serve(Op::RunPodSandbox, ctx, false, nullptr, [&](const FaultInjector::Plan&, size_t&) {
    const auto& md = req->config().metadata();
    auto r = node_.run_pod_sandbox(md.uid(), md.name(), md.namespace_(), md.attempt(),
                                   to_labels(req->config().labels()), to_labels(req->config().annotations()));
    resp->set_pod_sandbox_id(r.id);
    return to_status(r);
  });
}

grpc::Status RuntimeService::StopPodSandbox(grpc::ServerContext* ctx, const cri::StopPodSandboxRequest* req,
                                            cri::StopPodSandboxResponse*) {
  return serve(Op::StopPodSandbox, ctx, false, nullptr, [&](const FaultInjector::Plan&, size_t&) {
    return to_status(node_.stop_pod_sandbox(req->pod_sandbox_id()));
  });
}

grpc::Status RuntimeService::RemovePodSandbox(grpc::ServerContext* ctx, const cri::RemovePodSandboxRequest* req,
                                              cri::RemovePodSandboxResponse*) {
  return serve(Op::RemovePodSandbox, ctx, false, nullptr, [&](const FaultInjector::Plan&, size_t&) {
    return to_status(node_.remove_pod_sandbox(req->pod_sandbox_id()));
  });
}

grpc::Status RuntimeService::CreateContainer(grpc::ServerContext* ctx, const cri::CreateContainerRequest* req,
                                             cri::CreateContainerResponse* resp) {
  return serve(Op::CreateContainer, ctx, false, nullptr, [&](const FaultInjector::Plan&, size_t&) {
    const auto& cfg = req->config();
    auto r = node_.create_container(req->pod_sandbox_id(), cfg.metadata().name(), cfg.metadata().attempt(),
                                    cfg.image().image(), to_labels(cfg.labels()), to_labels(cfg.annotations()));
    resp->set_container_id(r.id);
    return to_status(r);
  });
}

grpc::Status RuntimeService::StartContainer(grpc::ServerContext* ctx, const cri::StartContainerRequest* req,
                                            cri::StartContainerResponse*) {
  return serve(Op::StartContainer, ctx, false, nullptr, [&](const FaultInjector::Plan&, size_t&) {
    return to_status(node_.start_container(req->container_id()));
  });
}

grpc::Status RuntimeService::StopContainer(grpc::ServerContext* ctx, const cri::StopContainerRequest* req,
                                           cri::StopContainerResponse*) {
  return serve(Op::StopContainer, ctx, false, nullptr, [&](const FaultInjector::Plan&, size_t&) {
    return to_status(node_.stop_container(req->container_id(), 0, "Completed"));
  });
}

grpc::Status RuntimeService::RemoveContainer(grpc::ServerContext* ctx, const cri::RemoveContainerRequest* req,
                                             cri::RemoveContainerResponse*) {
  return serve(Op::RemoveContainer, ctx, false, nullptr, [&](const FaultInjector::Plan&, size_t&) {
    return to_status(node_.remove_container(req->container_id()));
  });
}

}  // namespace fakecri
