#pragma once
// A hand-written runtime for PLEG scenarios (the kubelet tests its PLEG the
// same way): lists and statuses from plain tables, errors injected per call.
#include <gmock/gmock.h>

#include <map>
#include <string>
#include <vector>

#include "cri/runtime_client.h"
#include "pleg/runtime_pods.h"

namespace plegscope::testing {

class FakeRuntime : public RuntimeClient {
 public:
  std::vector<cri::PodSandbox> sandboxes;
  std::vector<cri::Container> containers;
  // Error codes to answer with, per operation name (op::k...), while set.
  std::map<std::string, GrpcCode> fail;
  // What Status answers (its conditions) when it does not fail.
  cri::StatusResponse status_answer;
  // ContainerStatus fails for these container ids while set.
  std::map<std::string, GrpcCode> fail_container_status;
  std::map<std::string, int> calls;
  // The runtime's own timestamps (unix ns) in ContainerStatus, per container
  // id; a sandbox's created_at in PodSandboxStatus. Absent: all zero.
  struct Times {
    int64_t created_at = 0;
    int64_t started_at = 0;
    int64_t finished_at = 0;
  };
  std::map<std::string, Times> times;
  std::function<void(const std::string& op)> on_call;  // e.g. advance a fake clock
  bool failures_not_sent = false;  // injected failures look like a missing socket

  void add_sandbox(const std::string& id, const std::string& uid,
                   cri::PodSandboxState state = cri::SANDBOX_READY) {
    cri::PodSandbox s;
    s.set_id(id);
    s.mutable_metadata()->set_uid(uid);
    s.mutable_metadata()->set_name("pod-" + uid);
    s.mutable_metadata()->set_namespace_("default");
    s.set_state(state);
    (*s.mutable_labels())[kPodUidLabel] = uid;
    sandboxes.push_back(s);
  }
  void add_container(const std::string& id, const std::string& uid, cri::ContainerState state,
                     const std::string& sandbox_id = "", bool with_uid_label = true) {
    cri::Container c;
    c.set_id(id);
    c.set_pod_sandbox_id(sandbox_id);
    c.mutable_metadata()->set_name("c-" + id);
    c.set_state(state);
    if (with_uid_label) (*c.mutable_labels())[kPodUidLabel] = uid;
    containers.push_back(c);
  }
  void set_state(const std::string& id, cri::ContainerState state) {
    for (auto& c : containers)
      if (c.id() == id) c.set_state(state);
  }
  void set_sandbox_state(const std::string& id, cri::PodSandboxState state) {
    for (auto& s : sandboxes)
      if (s.id() == id) s.set_state(state);
  }
  void remove(const std::string& id) {
    containers.erase(std::remove_if(containers.begin(), containers.end(),
                                    [&](const auto& c) { return c.id() == id; }),
                     containers.end());
    sandboxes.erase(std::remove_if(sandboxes.begin(), sandboxes.end(),
                                   [&](const auto& s) { return s.id() == id; }),
                    sandboxes.end());
  }

  CallResult<cri::VersionResponse> version() override {
    CallResult<cri::VersionResponse> r{status_for(op::kVersion), {}};
    r.value.set_runtime_name("fake");
    r.value.set_runtime_version("1.0");
    return r;
  }
  CallResult<cri::StatusResponse> status() override {
    CallResult<cri::StatusResponse> r{status_for(op::kStatus), {}};
    if (r.ok()) r.value = status_answer;
    return r;
  }
  CallResult<ListAnswer<cri::PodSandbox>> list_pod_sandboxes(
      const cri::PodSandboxFilter& filter) override {
    CallResult<ListAnswer<cri::PodSandbox>> r{status_for(op::kListPodSandbox), {}};
    if (!r.ok()) return r;
    std::vector<cri::PodSandbox> items;
    for (const auto& s : sandboxes)
      if (matches(s.labels(), filter.label_selector())) items.push_back(s);
    r.value = std::move(items);
    return r;
  }
  CallResult<ListAnswer<cri::Container>> list_containers(
      const cri::ContainerFilter& filter) override {
    CallResult<ListAnswer<cri::Container>> r{status_for(op::kListContainers), {}};
    if (!r.ok()) return r;
    std::vector<cri::Container> items;
    for (const auto& c : containers)
      if (matches(c.labels(), filter.label_selector())) items.push_back(c);
    r.value = std::move(items);
    return r;
  }
  CallResult<cri::PodSandboxStatusResponse> pod_sandbox_status(const std::string& id) override {
    CallResult<cri::PodSandboxStatusResponse> r{status_for(op::kPodSandboxStatus), {}};
    for (const auto& s : sandboxes)
      if (s.id() == id) {
        r.value.mutable_status()->set_id(id);
        *r.value.mutable_status()->mutable_metadata() = s.metadata();
        r.value.mutable_status()->set_state(s.state());
        if (auto t = times.find(id); t != times.end())
          r.value.mutable_status()->set_created_at(t->second.created_at);
        return r;
      }
    if (r.ok()) r.status = {GrpcCode::kNotFound, "sandbox " + id + " not found"};
    return r;
  }
  CallResult<cri::ContainerStatusResponse> container_status(const std::string& id) override {
    CallResult<cri::ContainerStatusResponse> r{status_for(op::kContainerStatus), {}};
    if (auto it = fail_container_status.find(id); it != fail_container_status.end())
      r.status = {it->second, "injected"};
    if (!r.ok()) return r;
    for (const auto& c : containers)
      if (c.id() == id) {
        r.value.mutable_status()->set_id(id);
        *r.value.mutable_status()->mutable_metadata() = c.metadata();
        r.value.mutable_status()->set_state(c.state());
        if (auto t = times.find(id); t != times.end()) {
          r.value.mutable_status()->set_created_at(t->second.created_at);
          r.value.mutable_status()->set_started_at(t->second.started_at);
          r.value.mutable_status()->set_finished_at(t->second.finished_at);
        }
        return r;
      }
    r.status = {GrpcCode::kNotFound, "container " + id + " not found"};
    return r;
  }
  CallStatus watch_container_events(const ContainerEventHandler&) override {
    return status_for(op::kGetContainerEvents).ok() ? CallStatus{GrpcCode::kUnimplemented, "unimplemented"}
                                                    : status_for(op::kGetContainerEvents);
  }

 private:
  CallStatus status_for(const std::string& op) {
    calls[op]++;
    if (on_call) on_call(op);
    if (auto it = fail.find(op); it != fail.end())
      return {it->second, "injected " + op, failures_not_sent};
    return CallStatus::Ok();
  }
  static bool matches(const google::protobuf::Map<std::string, std::string>& labels,
                      const google::protobuf::Map<std::string, std::string>& selector) {
    for (const auto& [k, v] : selector) {
      auto it = labels.find(k);
      if (it == labels.end() || it->second != v) return false;
    }
    return true;
  }
};

// For call counts and injected failures where a table is clumsy.
class MockRuntime : public RuntimeClient {
 public:
  MOCK_METHOD(CallResult<cri::VersionResponse>, version, (), (override));
  MOCK_METHOD(CallResult<cri::StatusResponse>, status, (), (override));
  MOCK_METHOD(CallResult<ListAnswer<cri::PodSandbox>>, list_pod_sandboxes,
              (const cri::PodSandboxFilter&), (override));
  MOCK_METHOD(CallResult<ListAnswer<cri::Container>>, list_containers,
              (const cri::ContainerFilter&), (override));
  MOCK_METHOD(CallResult<cri::PodSandboxStatusResponse>, pod_sandbox_status, (const std::string&),
              (override));
  MOCK_METHOD(CallResult<cri::ContainerStatusResponse>, container_status, (const std::string&),
              (override));
  MOCK_METHOD(CallStatus, watch_container_events, (const ContainerEventHandler&), (override));
};

}  // namespace plegscope::testing
