// Writes seed inputs for fuzz_relist and fuzz_evented (fuzz_runtime.h's
// format) built from realistic CRI answers, so the fuzzer starts from a node
// with pods and mutates from there. Usage: fuzz_seeds CORPUS_ROOT
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "fuzz_runtime.h"
#include "pleg/runtime_pods.h"

namespace {

using namespace plegscope;
using fuzz::InputWriter;

cri::PodSandbox sandbox(const std::string& id, const std::string& uid, cri::PodSandboxState state) {
  cri::PodSandbox s;
  s.set_id(id);
  s.mutable_metadata()->set_uid(uid);
  s.mutable_metadata()->set_name("pod-" + uid);
  s.mutable_metadata()->set_namespace_("default");
  s.set_state(state);
  s.set_created_at(1'790'000'000'000'000'000LL);
  (*s.mutable_labels())[kPodUidLabel] = uid;
  (*s.mutable_labels())[kPodNameLabel] = "pod-" + uid;
  (*s.mutable_labels())[kPodNamespaceLabel] = "default";
  return s;
}

cri::Container container(const std::string& id, const std::string& sandbox_id, const std::string& uid,
                         cri::ContainerState state) {
  cri::Container c;
  c.set_id(id);
  c.set_pod_sandbox_id(sandbox_id);
  c.mutable_metadata()->set_name("c-" + id);
  c.set_state(state);
  (*c.mutable_labels())[kPodUidLabel] = uid;
  (*c.mutable_labels())[kContainerNameLabel] = "c-" + id;
  return c;
}

struct Node {
  std::vector<cri::PodSandbox> sandboxes;
  std::vector<cri::Container> containers;
};

// The answers of one relist of `node`, then of inspecting every pod in it.
void relist(InputWriter& w, const Node& node) {
  cri::ListPodSandboxResponse sandboxes;
  for (const auto& s : node.sandboxes) *sandboxes.add_items() = s;
  cri::ListContainersResponse containers;
  for (const auto& c : node.containers) *containers.add_containers() = c;
  w.answer(sandboxes);
  w.answer(containers);
  for (const auto& s : node.sandboxes) {
    cri::ListPodSandboxResponse one;
    *one.add_items() = s;
    w.answer(one);
    cri::PodSandboxStatusResponse status;
    status.mutable_status()->set_id(s.id());
    *status.mutable_status()->mutable_metadata() = s.metadata();
    status.mutable_status()->set_state(s.state());
    w.answer(status);
    cri::ListContainersResponse mine;
    for (const auto& c : node.containers)
      if (c.pod_sandbox_id() == s.id()) *mine.add_containers() = c;
    w.answer(mine);
    for (const auto& c : mine.containers()) {
      cri::ContainerStatusResponse cs;
      cs.mutable_status()->set_id(c.id());
      *cs.mutable_status()->mutable_metadata() = c.metadata();
      cs.mutable_status()->set_state(c.state());
      cs.mutable_status()->set_exit_code(c.state() == cri::CONTAINER_EXITED ? 137 : 0);
      w.answer(cs);
    }
  }
}

cri::ContainerEventResponse event(const cri::Container& c, const cri::PodSandbox& s,
                                  cri::ContainerEventType type, int64_t at) {
  cri::ContainerEventResponse e;
  e.set_container_id(c.id());
  e.set_container_event_type(type);
  e.set_created_at(at);
  auto* ps = e.mutable_pod_sandbox_status();
  ps->set_id(s.id());
  *ps->mutable_metadata() = s.metadata();
  ps->set_state(s.state());
  auto* cs = e.add_containers_statuses();
  cs->set_id(c.id());
  *cs->mutable_metadata() = c.metadata();
  cs->set_state(c.state());
  return e;
}

void write(const std::string& dir, const std::string& name, const InputWriter& w) {
  std::ofstream(dir + "/" + name, std::ios::binary) << w.bytes();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_seeds CORPUS_ROOT\n";
    return 2;
  }
  const std::string root = argv[1];
  Node a;
  a.sandboxes = {sandbox("s1", "u1", cri::SANDBOX_READY), sandbox("s2", "u2", cri::SANDBOX_READY)};
  a.containers = {container("c1", "s1", "u1", cri::CONTAINER_RUNNING),
                  container("c2", "s2", "u2", cri::CONTAINER_CREATED)};
  Node b = a;  // c1 died, c2 started, an orphan appeared, a duplicate id
  b.containers[0].set_state(cri::CONTAINER_EXITED);
  b.containers[1].set_state(cri::CONTAINER_RUNNING);
  b.containers.push_back(container("c3", "gone", "u3", cri::CONTAINER_RUNNING));
  b.containers.push_back(container("c1", "s2", "u2", cri::CONTAINER_UNKNOWN));
  Node c = b;  // pod u1 removed
  c.sandboxes.erase(c.sandboxes.begin());
  c.containers.erase(c.containers.begin());

  {
    InputWriter w;
    relist(w, a);
    relist(w, b);
    relist(w, c);
    write(root + "/fuzz_relist", "seed-three-relists", w);
  }
  {
    InputWriter w;  // a relist fails, then the node comes back
    relist(w, a);
    w.answer(cri::ListPodSandboxResponse(), 14);
    relist(w, b);
    write(root + "/fuzz_relist", "seed-unavailable", w);
  }
  {
    InputWriter w;  // inspection fails: the pod waits for reinspection
    relist(w, a);
    cri::ListPodSandboxResponse list;
    for (const auto& s : b.sandboxes) *list.add_items() = s;
    cri::ListContainersResponse containers;
    for (const auto& ct : b.containers) *containers.add_containers() = ct;
    w.answer(list);
    w.answer(containers);
    w.answer(cri::ListPodSandboxResponse(), 4);
    relist(w, b);
    write(root + "/fuzz_relist", "seed-reinspect", w);
  }
  for (int mode = 0; mode < 2; ++mode) {
    InputWriter w;
    w.byte(static_cast<uint8_t>(mode));
    relist(w, a);
    std::vector<cri::ContainerEventResponse> events = {
        event(a.containers[1], a.sandboxes[1], cri::CONTAINER_CREATED_EVENT, 100),
        event(b.containers[1], a.sandboxes[1], cri::CONTAINER_STARTED_EVENT, 200),
        event(b.containers[0], a.sandboxes[0], cri::CONTAINER_STOPPED_EVENT, 300),
        event(b.containers[0], a.sandboxes[0], cri::CONTAINER_STARTED_EVENT, 250),  // stale
        event(b.containers[2], a.sandboxes[0], cri::CONTAINER_STARTED_EVENT, 400),
        event(b.containers[0], a.sandboxes[0], cri::CONTAINER_DELETED_EVENT, 500)};
    w.byte(static_cast<uint8_t>(events.size()));
    for (const auto& e : events) w.answer(e);
    w.answer(cri::StatusResponse(), mode == 0 ? 12 : 14);  // UNIMPLEMENTED, UNAVAILABLE
    relist(w, b);  // the catch-up relist after a broken stream
    write(root + "/fuzz_evented", "seed-stream-" + std::to_string(mode), w);
  }
  return 0;
}
