// cri-driver: a tiny CRI client used only by the e2e tests to drive a real
// runtime (containerd) through the mutating CRI calls. The agent itself is
// read-only and never links this.
//
// Usage: cri-driver [--endpoint unix:///path.sock] [--timeout SECONDS] COMMAND ...
//   version                                   runtime name and version
//   status                                    "RuntimeReady=true NetworkReady=false ..."
//   conditions                                JSON: [{"type", "status", "reason", "message"}] from Status
//   run-pod NAME UID [NAMESPACE] [host-pid]   host-network sandbox -> prints id (host-pid: hostPID: true)
//   run-pod-net NAME UID [NAMESPACE]          pod-network sandbox (CNI ADD); status: "RuntimeReady=true ..."
//   create-container SANDBOX NAME IMAGE CMD...  -> prints container id
//   create-container-spec SANDBOX JSON        -> prints container id; JSON:
//       {"name", "image", "command": [], "args": [], "envs": {K: V},
//        "mounts": [{"container_path", "host_path", "readonly"}],
//        "privileged", "readonly_rootfs", "no_new_privs", "drop_capabilities": [],
//        "add_capabilities": [], "run_as_user", "run_as_group",
//        "supplemental_groups": [],
//        "seccomp": "RuntimeDefault"|"Unconfined"|"Localhost:/ABSOLUTE/PROFILE.json",
//        "host_pid": false}
//       (host_pid: the pod's hostPID, for a sandbox made with host-pid)
//       (what the kubelet makes of a pod spec's container and securityContext)
//   start-container ID | stop-container ID [TIMEOUT_S] | remove-container ID
//   stop-pod ID | remove-pod ID
//   status-container ID                       state exit_code started_at_ns finished_at_ns reason
//   list                                      JSON: sandboxes and containers
//   stream-sizes [REPEATS]                    JSON: items per streamed message, bytes and seconds
//                                             of each list streamed and unary (REPEATS reads)
//   run-exited SANDBOX PREFIX COUNT IMAGE CMD...  COUNT containers created and started
//   create-many SANDBOX PREFIX COUNT IMAGE CMD... COUNT containers created, never started
//   images                                    image tags, one per line
// The endpoint may also come from CRI_ENDPOINT; CRI_CGROUP_PARENT sets the
// sandboxes' cgroup parent, CRI_SANDBOX_PID=container their PID namespace mode. Exit 0 on success; 1 with a
// one-line "cri-driver: OP: CODE: message" on an RPC error; 2 on bad usage.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/grpc_code.h"
#include "cri_runtime_v1.grpc.pb.h"

namespace {

using runtime::v1::ImageService;
using runtime::v1::RuntimeService;

// The spec's spelling of a code, from the wire's int.
const char* code_name(int code) {
  return code >= 0 && code < plegscope::kGrpcCodeCount ? plegscope::grpc_code_name(static_cast<plegscope::GrpcCode>(code))
                                                        : "?";
}

int timeout_s = 60;

struct Ctx {
  grpc::ClientContext ctx;
  Ctx() { ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(timeout_s)); }
};

int fail(const std::string& op, const grpc::Status& s) {
  const char* name = code_name(s.error_code());
  std::string msg = s.error_message();
  for (auto& ch : msg)
    if (ch == '\n') ch = ' ';
  std::fprintf(stderr, "cri-driver: %s: %s: %s\n", op.c_str(), name, msg.c_str());
  return 1;
}

int usage() {
  std::fprintf(stderr,
               "usage: cri-driver [--endpoint unix:///sock] [--timeout S] "
               "version|run-pod NAME UID [NS]|create-container SANDBOX NAME IMAGE CMD...|"
               "create-container-spec SANDBOX JSON|"
               "start-container ID|stop-container ID [T]|update-container ID [CPU_SHARES]|remove-container ID|stop-pod ID|"
               "remove-pod ID|status-container ID|list|stream-sizes [REPEATS]|run-exited SANDBOX PREFIX COUNT IMAGE CMD...|"
               "create-many SANDBOX PREFIX COUNT IMAGE CMD...|"
               "images|events-probe\n");
  return 2;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += c;
        }
    }
  }
  return o;
}

const char* container_state(runtime::v1::ContainerState s) {
  switch (s) {
    case runtime::v1::CONTAINER_CREATED: return "created";
    case runtime::v1::CONTAINER_RUNNING: return "running";
    case runtime::v1::CONTAINER_EXITED: return "exited";
    default: return "unknown";
  }
}

std::string seconds_json(const std::vector<double>& v) {
  std::ostringstream t;
  t << "[";
  for (size_t i = 0; i < v.size(); ++i) t << (i ? ", " : "") << v[i];
  return t.str() + "]";
}

// One streamed list read in turn `repeats` times (stopping at an error): the items in each
// message of the last read, that read's bytes, the seconds of every read.
struct StreamedList {
  std::string sizes;
  size_t bytes = 0;
  std::vector<double> seconds;
  grpc::Status status;

  // `"NAME": [items per message], "PREFIX_bytes": N, "PREFIX_seconds": [...]`, or
  // `"NAME": "unimplemented"` for a runtime that does not stream.
  std::string json(const std::string& name, const std::string& prefix) const {
    if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) return "\"" + name + "\": \"unimplemented\"";
    return "\"" + name + "\": [" + sizes + "], \"" + prefix + "_bytes\": " + std::to_string(bytes) + ", \"" +
           prefix + "_seconds\": " + seconds_json(seconds);
  }
};

template <typename Response, typename Open, typename Items>
StreamedList read_stream(int repeats, Open open, Items items) {
  StreamedList out;
  for (int r = 0; r < repeats; ++r) {
    Ctx c;
    out.sizes.clear();
    out.bytes = 0;
    const auto t0 = std::chrono::steady_clock::now();
    auto stream = open(&c.ctx);
    Response m;
    while (stream->Read(&m)) {
      out.sizes += (out.sizes.empty() ? "" : ", ") + std::to_string(items(m));
      out.bytes += m.ByteSizeLong();
    }
    out.status = stream->Finish();
    out.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!out.status.ok()) break;
  }
  return out;
}

runtime::v1::PodSandboxConfig sandbox_config(const std::string& name, const std::string& uid, const std::string& ns,
                                             runtime::v1::NamespaceMode pid = runtime::v1::POD,
                                             runtime::v1::NamespaceMode network = runtime::v1::NODE) {
  runtime::v1::PodSandboxConfig cfg;
  auto* md = cfg.mutable_metadata();
  md->set_name(name);
  md->set_uid(uid);
  md->set_namespace_(ns);
  md->set_attempt(0);
  // Host network: no CNI, no private UTS namespace, so no hostname; a pod network has both.
  cfg.set_hostname(network == runtime::v1::NODE ? "" : name);
  (*cfg.mutable_labels())["io.kubernetes.pod.name"] = name;
  (*cfg.mutable_labels())["io.kubernetes.pod.namespace"] = ns;
  (*cfg.mutable_labels())["io.kubernetes.pod.uid"] = uid;
  (*cfg.mutable_labels())["plegscope.e2e"] = "true";
  auto* nso = cfg.mutable_linux()->mutable_security_context()->mutable_namespace_options();
  nso->set_network(network);
  // CRI_SANDBOX_PID=container: the kubelet's own default for a pod without
  // shareProcessNamespace, with which CRI-O runs no infra container.
  const char* sandbox_pid = std::getenv("CRI_SANDBOX_PID");
  if (pid == runtime::v1::POD && sandbox_pid && std::string(sandbox_pid) == "container") pid = runtime::v1::CONTAINER;
  nso->set_pid(pid);
  nso->set_ipc(runtime::v1::POD);
  if (const char* parent = std::getenv("CRI_CGROUP_PARENT")) cfg.mutable_linux()->set_cgroup_parent(parent);
  return cfg;
}

// A pod spec's container as the kubelet hands it to the runtime.
bool apply_spec(const nlohmann::json& spec, runtime::v1::ContainerConfig* cfg) {
  try {
    cfg->mutable_metadata()->set_name(spec.at("name").get<std::string>());
    cfg->mutable_image()->set_image(spec.at("image").get<std::string>());
    for (const auto& c : spec.value("command", nlohmann::json::array())) cfg->add_command(c.get<std::string>());
    for (const auto& a : spec.value("args", nlohmann::json::array())) cfg->add_args(a.get<std::string>());
    const nlohmann::json envs = spec.value("envs", nlohmann::json::object());  // items() needs it alive
    for (const auto& [k, v] : envs.items()) {
      auto* kv = cfg->add_envs();
      kv->set_key(k);
      kv->set_value(v.get<std::string>());
    }
    // Annotations come back in every list answer: what makes a list large.
    const nlohmann::json annotations = spec.value("annotations", nlohmann::json::object());
    for (const auto& [k, v] : annotations.items()) (*cfg->mutable_annotations())[k] = v.get<std::string>();
    // One annotation of N bytes, made here: one argument holds at most 128 KiB.
    if (spec.contains("pad_annotation_bytes"))
      (*cfg->mutable_annotations())["plegscope.io/padding"] = std::string(spec["pad_annotation_bytes"].get<size_t>(), 'x');
    for (const auto& m : spec.value("mounts", nlohmann::json::array())) {
      auto* mount = cfg->add_mounts();
      mount->set_container_path(m.at("container_path").get<std::string>());
      mount->set_host_path(m.at("host_path").get<std::string>());
      mount->set_readonly(m.value("readonly", false));
    }
    auto* sc = cfg->mutable_linux()->mutable_security_context();
    sc->set_privileged(spec.value("privileged", false));
    sc->set_readonly_rootfs(spec.value("readonly_rootfs", false));
    sc->set_no_new_privs(spec.value("no_new_privs", false));
    for (const auto& c : spec.value("drop_capabilities", nlohmann::json::array()))
      sc->mutable_capabilities()->add_drop_capabilities(c.get<std::string>());
    for (const auto& c : spec.value("add_capabilities", nlohmann::json::array()))
      sc->mutable_capabilities()->add_add_capabilities(c.get<std::string>());
    if (spec.contains("run_as_user")) sc->mutable_run_as_user()->set_value(spec["run_as_user"].get<int64_t>());
    if (spec.contains("run_as_group")) sc->mutable_run_as_group()->set_value(spec["run_as_group"].get<int64_t>());
    for (const auto& g : spec.value("supplemental_groups", nlohmann::json::array()))
      sc->add_supplemental_groups(g.get<int64_t>());
    const std::string seccomp = spec.value("seccomp", "");
    if (seccomp == "RuntimeDefault")
      sc->mutable_seccomp()->set_profile_type(runtime::v1::SecurityProfile::RuntimeDefault);
    else if (seccomp == "Unconfined")
      sc->mutable_seccomp()->set_profile_type(runtime::v1::SecurityProfile::Unconfined);
    else if (seccomp.rfind("Localhost:/", 0) == 0) {
      // as the kubelet sends a Localhost profile: the file's absolute path
      sc->mutable_seccomp()->set_profile_type(runtime::v1::SecurityProfile::Localhost);
      sc->mutable_seccomp()->set_localhost_ref(seccomp.substr(std::string("Localhost:").size()));
    } else if (!seccomp.empty())
      throw std::invalid_argument("seccomp: want RuntimeDefault, Unconfined or Localhost:/PATH, got " + seccomp);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cri-driver: create-container-spec: %s\n", e.what());
    return false;
  }
  return true;
}

}  // namespace

// One unary call under a fresh deadline.
template <typename Stub, typename Req, typename Resp>
grpc::Status call(Stub& stub, grpc::Status (Stub::*method)(grpc::ClientContext*, const Req&, Resp*), const Req& req,
                  Resp* resp) {
  Ctx c;
  return (stub.*method)(&c.ctx, req, resp);
}

// A command whose call answers nothing it prints: 0 when the call answered OK.
template <typename Stub, typename Req, typename Resp>
int act(const std::string& cmd, Stub& stub, grpc::Status (Stub::*method)(grpc::ClientContext*, const Req&, Resp*),
        const Req& req) {
  Resp resp;
  grpc::Status s = call(stub, method, req, &resp);
  return s.ok() ? 0 : fail(cmd, s);
}

// The metadata a sandbox was made with: a container's sandbox config must
// match it for the labels containerd copies.
int sandbox_metadata(RuntimeService::Stub& rt, const std::string& sandbox, const std::string& cmd,
                     runtime::v1::PodSandboxMetadata* md) {
  runtime::v1::PodSandboxStatusRequest req;
  req.set_pod_sandbox_id(sandbox);
  runtime::v1::PodSandboxStatusResponse resp;
  grpc::Status s = call(rt, &RuntimeService::Stub::PodSandboxStatus, req, &resp);
  if (!s.ok()) return fail(cmd + ": sandbox status", s);
  *md = resp.status().metadata();
  return 0;
}

// A container named and labelled as the kubelet makes it in its pod, on the
// host's network, in its own PID namespace unless the pod has the host's.
void set_identity(runtime::v1::ContainerConfig* cfg, const std::string& name, const runtime::v1::PodSandboxMetadata& md,
                  bool host_pid) {
  cfg->mutable_metadata()->set_name(name);
  cfg->mutable_metadata()->set_attempt(0);
  (*cfg->mutable_labels())["io.kubernetes.container.name"] = name;
  (*cfg->mutable_labels())["io.kubernetes.pod.name"] = md.name();
  (*cfg->mutable_labels())["io.kubernetes.pod.namespace"] = md.namespace_();
  (*cfg->mutable_labels())["io.kubernetes.pod.uid"] = md.uid();
  auto* nso = cfg->mutable_linux()->mutable_security_context()->mutable_namespace_options();
  nso->set_network(runtime::v1::NODE);
  nso->set_pid(host_pid ? runtime::v1::NODE : runtime::v1::CONTAINER);
  nso->set_ipc(runtime::v1::POD);
}

// Both unary lists, unfiltered.
int list_all(RuntimeService::Stub& rt, const std::string& cmd, runtime::v1::ListPodSandboxResponse* pods,
             runtime::v1::ListContainersResponse* ctrs) {
  grpc::Status s = call(rt, &RuntimeService::Stub::ListPodSandbox, runtime::v1::ListPodSandboxRequest(), pods);
  if (!s.ok()) return fail(cmd + ": ListPodSandbox", s);
  s = call(rt, &RuntimeService::Stub::ListContainers, runtime::v1::ListContainersRequest(), ctrs);
  return s.ok() ? 0 : fail(cmd + ": ListContainers", s);
}

int main(int argc, char** argv) {
  std::string endpoint = std::getenv("CRI_ENDPOINT") ? std::getenv("CRI_ENDPOINT") : "";
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--endpoint" && i + 1 < argc) {
      endpoint = argv[++i];
    } else if (a.rfind("--endpoint=", 0) == 0) {
      endpoint = a.substr(11);
    } else if (a == "--timeout" && i + 1 < argc) {
      timeout_s = std::atoi(argv[++i]);
    } else {
      args.push_back(a);
    }
  }
  if (endpoint.empty() || args.empty()) return usage();
  if (endpoint.rfind("unix://", 0) != 0 && endpoint[0] == '/') endpoint = "unix://" + endpoint;

  grpc::ChannelArguments chargs;
  chargs.SetMaxReceiveMessageSize(64 * 1024 * 1024);
  auto channel = grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), chargs);
  auto rt = RuntimeService::NewStub(channel);
  auto img = ImageService::NewStub(channel);
  const std::string& cmd = args[0];
  auto need = [&](size_t n) { return args.size() >= n + 1; };

  if (cmd == "version") {
    runtime::v1::VersionRequest req;
    req.set_version("v1");
    runtime::v1::VersionResponse resp;
    auto s = call(*rt, &RuntimeService::Stub::Version, req, &resp);
    if (!s.ok()) return fail(cmd, s);
    std::printf("%s %s %s\n", resp.runtime_name().c_str(), resp.runtime_version().c_str(),
                resp.runtime_api_version().c_str());
    return 0;
  }
  if (cmd == "status") {
    runtime::v1::StatusResponse resp;
    if (auto s = call(*rt, &RuntimeService::Stub::Status, runtime::v1::StatusRequest(), &resp); !s.ok())
      return fail(cmd, s);
    for (const auto& k : resp.status().conditions())
      std::printf("%s=%s ", k.type().c_str(), k.status() ? "true" : "false");
    return std::printf("\n") < 0;
  }
  if (cmd == "conditions") {
    runtime::v1::StatusResponse resp;
    Ctx c;
    if (auto s = rt->Status(&c.ctx, runtime::v1::StatusRequest(), &resp); !s.ok()) return fail(cmd, s);
    nlohmann::json out = nlohmann::json::array();
    for (const auto& k : resp.status().conditions())
      out.push_back({{"type", k.type()}, {"status", k.status()}, {"reason", k.reason()}, {"message", k.message()}});
    return std::printf("%s\n", out.dump().c_str()) < 0;
  }
  if (cmd == "run-pod" || cmd == "run-pod-net") {
    if (!need(2)) return usage();
    runtime::v1::RunPodSandboxRequest req;
    if (need(4) && (cmd == "run-pod-net" || args[4] != "host-pid")) return usage();
    *req.mutable_config() = sandbox_config(args[1], args[2], need(3) ? args[3] : "plegscope-e2e",
                                           need(4) ? runtime::v1::NODE : runtime::v1::POD,
                                           cmd == "run-pod-net" ? runtime::v1::POD : runtime::v1::NODE);
    runtime::v1::RunPodSandboxResponse resp;
    auto s = call(*rt, &RuntimeService::Stub::RunPodSandbox, req, &resp);
    if (!s.ok()) return fail(cmd, s);
    std::printf("%s\n", resp.pod_sandbox_id().c_str());
    return 0;
  }
  if (cmd == "create-container" || cmd == "create-container-spec") {
    if (cmd == "create-container" ? !need(4) : !need(2)) return usage();
    const std::string& sandbox = args[1];
    runtime::v1::PodSandboxMetadata md;
    if (int failed = sandbox_metadata(*rt, sandbox, "create-container", &md)) return failed;
    runtime::v1::CreateContainerRequest req;
    req.set_pod_sandbox_id(sandbox);
    // hostPID as the kubelet asks for it: NODE in the sandbox's config and
    // the container's (create-container-spec's "host_pid").
    bool host_pid = false;
    nlohmann::json spec;
    if (cmd == "create-container-spec") {
      spec = nlohmann::json::parse(args[2], nullptr, false);
      if (spec.is_discarded() || !spec.is_object()) {
        std::fprintf(stderr, "cri-driver: create-container-spec: JSON: not an object\n");
        return 2;
      }
      host_pid = spec.value("host_pid", false);
    }
    const auto pid_mode = host_pid ? runtime::v1::NODE : runtime::v1::POD;
    *req.mutable_sandbox_config() = sandbox_config(md.name(), md.uid(), md.namespace_(), pid_mode);
    auto* cfg = req.mutable_config();
    std::string name;
    if (cmd == "create-container") {
      name = args[2];
      cfg->mutable_image()->set_image(args[3]);
      cfg->add_command(args[4]);
      for (size_t i = 5; i < args.size(); ++i) cfg->add_args(args[i]);
    } else {
      if (!apply_spec(spec, cfg)) return 2;
      name = cfg->metadata().name();
    }
    set_identity(cfg, name, md, host_pid);
    runtime::v1::CreateContainerResponse resp;
    auto s = call(*rt, &RuntimeService::Stub::CreateContainer, req, &resp);
    if (!s.ok()) return fail(cmd, s);
    std::printf("%s\n", resp.container_id().c_str());
    return 0;
  }
  if (cmd == "start-container") {
    if (!need(1)) return usage();
    runtime::v1::StartContainerRequest req;
    req.set_container_id(args[1]);
    return act(cmd, *rt, &RuntimeService::Stub::StartContainer, req);
  }
  if (cmd == "stop-container") {
    if (!need(1)) return usage();
    runtime::v1::StopContainerRequest req;
    req.set_container_id(args[1]);
    req.set_timeout(need(2) ? std::atoll(args[2].c_str()) : 10);
    return act(cmd, *rt, &RuntimeService::Stub::StopContainer, req);
  }
  if (cmd == "update-container") {
    if (!need(1)) return usage();
    runtime::v1::UpdateContainerResourcesRequest req;
    req.set_container_id(args[1]);
    req.mutable_linux()->set_cpu_shares(need(2) ? std::atoll(args[2].c_str()) : 512);
    return act(cmd, *rt, &RuntimeService::Stub::UpdateContainerResources, req);
  }
  if (cmd == "remove-container") {
    if (!need(1)) return usage();
    runtime::v1::RemoveContainerRequest req;
    req.set_container_id(args[1]);
    return act(cmd, *rt, &RuntimeService::Stub::RemoveContainer, req);
  }
  if (cmd == "stop-pod") {
    if (!need(1)) return usage();
    runtime::v1::StopPodSandboxRequest req;
    req.set_pod_sandbox_id(args[1]);
    return act(cmd, *rt, &RuntimeService::Stub::StopPodSandbox, req);
  }
  if (cmd == "remove-pod") {
    if (!need(1)) return usage();
    runtime::v1::RemovePodSandboxRequest req;
    req.set_pod_sandbox_id(args[1]);
    return act(cmd, *rt, &RuntimeService::Stub::RemovePodSandbox, req);
  }
  if (cmd == "status-container") {
    if (!need(1)) return usage();
    runtime::v1::ContainerStatusRequest req;
    req.set_container_id(args[1]);
    runtime::v1::ContainerStatusResponse resp;
    auto s = call(*rt, &RuntimeService::Stub::ContainerStatus, req, &resp);
    if (!s.ok()) return fail(cmd, s);
    const auto& st = resp.status();
    std::printf("%s %d %lld %lld %s\n", container_state(st.state()), st.exit_code(),
                static_cast<long long>(st.started_at()), static_cast<long long>(st.finished_at()),
                st.reason().empty() ? "-" : st.reason().c_str());
    return 0;
  }
  if (cmd == "list") {
    runtime::v1::ListPodSandboxResponse pods;
    runtime::v1::ListContainersResponse ctrs;
    if (int failed = list_all(*rt, cmd, &pods, &ctrs)) return failed;
    std::ostringstream o;
    o << "{\"sandboxes\": [";
    for (int i = 0; i < pods.items_size(); ++i) {
      const auto& p = pods.items(i);
      o << (i ? ", " : "") << "{\"id\": \"" << json_escape(p.id()) << "\", \"name\": \""
        << json_escape(p.metadata().name()) << "\", \"namespace\": \"" << json_escape(p.metadata().namespace_())
        << "\", \"uid\": \"" << json_escape(p.metadata().uid()) << "\", \"state\": \""
        << (p.state() == runtime::v1::SANDBOX_READY ? "ready" : "notready") << "\", \"created_at\": "
        << p.created_at() << "}";
    }
    o << "], \"containers\": [";
    for (int i = 0; i < ctrs.containers_size(); ++i) {
      const auto& ct = ctrs.containers(i);
      auto lbl = ct.labels().find("io.kubernetes.pod.uid");
      o << (i ? ", " : "") << "{\"id\": \"" << json_escape(ct.id()) << "\", \"pod_sandbox_id\": \""
        << json_escape(ct.pod_sandbox_id()) << "\", \"name\": \"" << json_escape(ct.metadata().name())
        << "\", \"pod_uid\": \"" << json_escape(lbl == ct.labels().end() ? "" : lbl->second)
        << "\", \"state\": \"" << container_state(ct.state()) << "\", \"created_at\": " << ct.created_at()
        << "}";
    }
    o << "]}";
    std::printf("%s\n", o.str().c_str());
    return 0;
  }
  if (cmd == "stream-sizes") {
    // How the runtime streams its lists: the items in each StreamPodSandboxes and
    // StreamContainers message, beside the unary lists' counts, and what each way of
    // reading costs a client: the bytes on the wire (the unary answer is one message, the
    // one gRPC's 16 MiB limit applies to) and the wall time of a whole list, read REPEATS
    // times in turn (default 1) so a median can be taken. UNIMPLEMENTED from the first
    // Recv (a runtime that does not stream) prints "unimplemented" for that list.
    const int repeats = need(1) ? std::max(1, std::atoi(args[1].c_str())) : 1;
    using Clock = std::chrono::steady_clock;
    auto seconds_since = [](Clock::time_point t) {
      return std::chrono::duration<double>(Clock::now() - t).count();
    };
    std::ostringstream o;
    o << "{";
    const auto sandboxes = read_stream<runtime::v1::StreamPodSandboxesResponse>(
        repeats, [&](grpc::ClientContext* ctx) {
          return rt->StreamPodSandboxes(ctx, runtime::v1::StreamPodSandboxesRequest());
        },
        [](const runtime::v1::StreamPodSandboxesResponse& m) { return m.pod_sandboxes_size(); });
    if (!sandboxes.status.ok() && sandboxes.status.error_code() != grpc::StatusCode::UNIMPLEMENTED)
      return fail("stream-sizes: StreamPodSandboxes", sandboxes.status);
    o << sandboxes.json("sandboxes", "stream_sandboxes");
    const auto containers = read_stream<runtime::v1::StreamContainersResponse>(
        repeats, [&](grpc::ClientContext* ctx) {
          return rt->StreamContainers(ctx, runtime::v1::StreamContainersRequest());
        },
        [](const runtime::v1::StreamContainersResponse& m) { return m.containers_size(); });
    if (!containers.status.ok() && containers.status.error_code() != grpc::StatusCode::UNIMPLEMENTED)
      return fail("stream-sizes: StreamContainers", containers.status);
    o << ", " << containers.json("containers", "stream_containers");
    runtime::v1::ListPodSandboxResponse pods;
    runtime::v1::ListContainersResponse ctrs;
    std::vector<double> pod_secs, ctr_secs;
    for (int r = 0; r < repeats; ++r) {
      Ctx c;
      const auto t0 = Clock::now();
      auto s = rt->ListPodSandbox(&c.ctx, runtime::v1::ListPodSandboxRequest(), &pods);
      pod_secs.push_back(seconds_since(t0));
      if (!s.ok()) return fail("stream-sizes: ListPodSandbox", s);
    }
    for (int r = 0; r < repeats; ++r) {
      Ctx c;
      const auto t0 = Clock::now();
      auto s = rt->ListContainers(&c.ctx, runtime::v1::ListContainersRequest(), &ctrs);
      ctr_secs.push_back(seconds_since(t0));
      if (!s.ok()) return fail("stream-sizes: ListContainers", s);
    }
    o << ", \"unary_sandboxes\": " << pods.items_size() << ", \"unary_containers\": " << ctrs.containers_size()
      << ", \"unary_sandboxes_bytes\": " << pods.ByteSizeLong()
      << ", \"unary_containers_bytes\": " << ctrs.ByteSizeLong()
      << ", \"unary_sandboxes_seconds\": " << seconds_json(pod_secs)
      << ", \"unary_containers_seconds\": " << seconds_json(ctr_secs) << "}";
    std::printf("%s\n", o.str().c_str());
    return 0;
  }
  if (cmd == "run-exited" || cmd == "create-many") {
    // COUNT containers PREFIX-0.. in SANDBOX, each created with the same image and command;
    // run-exited also starts each in turn (one that exits at once leaves an exited
    // container, as they pile up on a node), create-many leaves them created, never
    // started (on containerd only metadata and a snapshot, no process). One sandbox status
    // read, one process for them all.
    if (!need(5)) return usage();
    const bool start = cmd == "run-exited";
    const std::string& sandbox = args[1];
    const int count = std::atoi(args[3].c_str());
    runtime::v1::PodSandboxMetadata md;
    if (int failed = sandbox_metadata(*rt, sandbox, cmd, &md)) return failed;
    for (int i = 0; i < count; ++i) {
      runtime::v1::CreateContainerRequest req;
      req.set_pod_sandbox_id(sandbox);
      *req.mutable_sandbox_config() = sandbox_config(md.name(), md.uid(), md.namespace_(), runtime::v1::POD);
      auto* cfg = req.mutable_config();
      const std::string name = args[2] + "-" + std::to_string(i);
      cfg->mutable_image()->set_image(args[4]);
      cfg->add_command(args[5]);
      for (size_t a = 6; a < args.size(); ++a) cfg->add_args(args[a]);
      set_identity(cfg, name, md, false);
      runtime::v1::CreateContainerResponse resp;
      auto s = call(*rt, &RuntimeService::Stub::CreateContainer, req, &resp);
      if (!s.ok()) return fail(cmd + ": CreateContainer " + name, s);
      if (start) {
        runtime::v1::StartContainerRequest st;
        st.set_container_id(resp.container_id());
        if (int failed = act(cmd + ": StartContainer " + name, *rt, &RuntimeService::Stub::StartContainer, st))
          return failed;
      }
      std::printf("%s\n", resp.container_id().c_str());
    }
    return 0;
  }
  if (cmd == "events-probe") {
    // Whether the runtime implements GetContainerEvents, by asking it: a
    // stream that is still open after 2 s (or delivers an event) is served.
    // The stream's end at our deadline reads DEADLINE_EXCEEDED, or CANCELLED
    // when containerd 2.x's handler sees its context end first (seen under
    // load): either way it stayed open until then. UNIMPLEMENTED comes at once.
    grpc::ClientContext ctx;
    const auto started = std::chrono::steady_clock::now();
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    auto stream = rt->GetContainerEvents(&ctx, runtime::v1::GetEventsRequest());
    runtime::v1::ContainerEventResponse event;
    if (stream->Read(&event)) {
      ctx.TryCancel();
      stream->Finish();
      std::printf("IMPLEMENTED\n");
      return 0;
    }
    auto s = stream->Finish();
    const bool open_until_deadline =
        s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
        (s.error_code() == grpc::StatusCode::CANCELLED &&
         std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(1900));
    std::printf("%s\n", open_until_deadline ? "IMPLEMENTED" : code_name(s.error_code()));
    return 0;
  }
  if (cmd == "images") {
    runtime::v1::ListImagesResponse resp;
    auto s = call(*img, &ImageService::Stub::ListImages, runtime::v1::ListImagesRequest(), &resp);
    if (!s.ok()) return fail(cmd, s);
    for (const auto& im : resp.images()) {
      for (const auto& t : im.repo_tags()) std::printf("%s %s\n", t.c_str(), im.id().c_str());
      if (im.repo_tags_size() == 0) std::printf("<none> %s\n", im.id().c_str());
    }
    return 0;
  }
  return usage();
}
