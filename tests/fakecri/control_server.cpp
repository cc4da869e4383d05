#include "control_server.h"

#include <civetweb.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "grpc_codes.h"

namespace fakecri {

namespace {

using nlohmann::json;

struct Request {
  std::string method;
  std::string path;
  std::string query;

  std::optional<std::string> param(const char* name) const {
    std::string buf(4096, '\0');
    int n = mg_get_var(query.c_str(), query.size(), name, buf.data(), buf.size());
    if (n < 0) return std::nullopt;
    buf.resize(static_cast<size_t>(n));
    return buf;
  }
};

struct Reply {
  int status = 200;
  std::string body;
  std::string type = "application/json";
};

Reply json_reply(const json& j, int status = 200) { return {status, j.dump() + "\n"}; }
Reply error_reply(int status, const std::string& message) { return json_reply({{"error", message}}, status); }

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    default: return "Error";
  }
}

std::optional<long long> parse_int(const std::string& s) {
  try {
    size_t used = 0;
    long long v = std::stoll(s, &used);
    if (used != s.size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

bool truthy(const std::optional<std::string>& v) { return v && (*v == "1" || *v == "true" || *v == "yes"); }

json calls_json(const CallLogSnapshot& s) {
  json calls = json::array();
  for (const auto& r : s.calls) {
    json c = {{"seq", r.seq}, {"method", r.served ? op_name(r.op) : r.unserved_method}, {"time", r.start_unix}};
    if (r.code) {
      c["code"] = status_code_name(*r.code);
      c["duration_seconds"] = r.duration_seconds;
    } else {
      c["code"] = nullptr;
      c["in_flight"] = true;
    }
    calls.push_back(std::move(c));
  }
  json counts = json::object(), in_flight = json::object();
  for (size_t i = 0; i < kOpCount; ++i) {
    if (s.counts[i]) counts[op_name(static_cast<Op>(i))] = s.counts[i];
    if (s.in_flight[i]) in_flight[op_name(static_cast<Op>(i))] = s.in_flight[i];
  }
  for (const auto& [path, n] : s.unserved_counts) counts[path] = n;
  return {{"calls", calls}, {"counts", counts}, {"in_flight", in_flight}, {"next_seq", s.next_seq}};
}

}  // namespace

ControlServer::ControlServer(FakeRuntime& runtime) : rt_(runtime) {}

ControlServer::~ControlServer() { stop(); }

bool ControlServer::start(const std::string& address, std::string* error) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || !parse_int(address.substr(colon + 1))) {
    if (error) *error = "--control-address " + address + ": expected HOST:PORT, e.g. 127.0.0.1:9999";
    return false;
  }
  mg_init_library(0);
  const char* options[] = {"listening_ports", address.c_str(), "num_threads", "8", "enable_keep_alive", "no",
                           nullptr};
  mg_callbacks callbacks{};
  ctx_ = mg_start(&callbacks, nullptr, options);
  if (ctx_ == nullptr) {
    if (error) *error = "--control-address " + address + ": cannot listen (port in use?)";
    return false;
  }
  mg_set_request_handler(ctx_, "/", &ControlServer::dispatch, this);
  mg_server_port ports[1]{};
  if (mg_get_server_ports(ctx_, 1, ports) >= 1) port_ = ports[0].port;
  spdlog::info("control endpoint on http://{}", address);
  return true;
}

void ControlServer::stop() {
  if (ctx_ == nullptr) return;
  // mg_stop() returns only once civetweb's listener leaves poll(), which
  // has a 2 s quantum; a connection to ourselves wakes it at once.
  std::atomic<bool> done{false};
  std::thread stopper([this, &done] {
    mg_stop(ctx_);
    done = true;
  });
  for (int i = 0; i < 100 && !done; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) break;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::close(fd);
  }
  stopper.join();
  ctx_ = nullptr;
}

int ControlServer::dispatch(mg_connection* conn, void* self) {
  return static_cast<ControlServer*>(self)->handle(conn);
}

int ControlServer::handle(mg_connection* conn) {
  const mg_request_info* info = mg_get_request_info(conn);
  Request req{info->request_method ? info->request_method : "", info->local_uri ? info->local_uri : "",
              info->query_string ? info->query_string : ""};
  auto route = [&]() -> Reply {
    auto expect = [&](const char* method) { return req.method == method; };
    if (req.path == "/healthz") return {200, "ok\n", "text/plain"};
    if (req.path == "/calls") {
      if (!expect("GET")) return error_reply(405, "use GET");
      std::optional<Op> op;
      if (auto m = req.param("method")) {
        op = parse_op(*m);
        if (!op) return error_reply(400, "unknown method " + *m);
      }
      uint64_t since = 0;
      if (auto s = req.param("since")) {
        auto v = parse_int(*s);
        if (!v || *v < 0) return error_reply(400, "since must be a sequence number");
        since = static_cast<uint64_t>(*v);
      }
      return json_reply(calls_json(rt_.calls().snapshot(since, op)));
    }
    if (req.path == "/calls/clear") {
      if (!expect("POST")) return error_reply(405, "use POST");
      rt_.calls().clear();
      return json_reply({{"cleared", true}});
    }
    if (req.path == "/release") {
      if (!expect("POST")) return error_reply(405, "use POST");
      return json_reply({{"released", rt_.faults().release()}});
    }
    if (req.path == "/phase") {
      if (!expect("POST")) return error_reply(405, "use POST");
      auto name = req.param("name");
      if (!name) return error_reply(400, "name is required");
      if (!rt_.simulator().jump(*name, truthy(req.param("hold")))) return error_reply(404, "no phase " + *name);
      return json_reply({{"phase", *name}});
    }
    if (req.path == "/resume") {
      if (!expect("POST")) return error_reply(405, "use POST");
      rt_.simulator().resume();
      return json_reply({{"resumed", true}});
    }
    if (req.path == "/state") {
      if (!expect("GET")) return error_reply(405, "use GET");
      const PhaseStatus ph = rt_.simulator().status();
      const NodeSummary s = rt_.node().summary();
      json containers = json::object();
      size_t total = 0;
      for (int i = 0; i < 4; ++i) {
        containers[state_name(static_cast<ContainerState>(i))] = s.containers[i];
        total += s.containers[i];
      }
      containers["total"] = total;
      return json_reply({
          {"scenario", rt_.scenario().name},
          {"phase", ph.name},
          {"phase_index", ph.index},
          {"phase_elapsed_seconds", ph.elapsed_seconds},
          {"phase_entries", ph.entries},
          {"held", ph.held},
          {"socket", rt_.endpoint().serving() ? "up" : "down"},
          {"released", rt_.faults().released()},
          {"hanging_calls", rt_.faults().hanging()},
          {"pods", s.pods},
          {"sandboxes", {{"ready", s.sandboxes_ready}, {"notready", s.sandboxes_notready}}},
          {"containers", containers},
          {"events",
           {{"created", s.events[0]}, {"started", s.events[1]}, {"stopped", s.events[2]}, {"deleted", s.events[3]},
            {"published", rt_.events().published()}, {"subscribers", rt_.events().subscribers()}}},
      });
    }
    if (req.path == "/changes") {
      if (!expect("GET")) return error_reply(405, "use GET");
      uint64_t since = 0;
      if (auto v = req.param("since")) {
        auto n = parse_int(*v);
        if (!n || *n < 0) return error_reply(400, "since must be a sequence number");
        since = static_cast<uint64_t>(*n);
      }
      json changes = json::array();
      for (const auto& c : rt_.changes().since(since))
        changes.push_back({{"seq", c.seq}, {"time", c.time_unix}, {"kind", event_kind_name(c.kind)},
                           {"id", c.id}, {"sandbox", c.sandbox}, {"pod_uid", c.pod_uid}});
      return json_reply({{"changes", changes}});
    }
    if (req.path == "/pods") {
      if (!expect("GET")) return error_reply(405, "use GET");
      json pods = json::array();
      for (const auto& pod : rt_.node().pods()) {
        json containers = json::array();
        for (const auto& id : pod.container_ids) {
          if (auto c = rt_.node().container(id)) {
            containers.push_back({{"id", c->id}, {"name", c->name}, {"attempt", c->attempt},
                                  {"state", state_name(c->state)}, {"exit_code", c->exit_code},
                                  {"sandbox_id", c->sandbox_id}});
          }
        }
        pods.push_back({{"uid", pod.uid}, {"name", pod.name}, {"namespace", pod.pod_namespace},
                        {"ordinal", pod.ordinal}, {"sandboxes", pod.sandbox_ids}, {"containers", containers}});
      }
      return json_reply({{"pods", pods}});
    }
    if (req.path == "/kill") {
      if (!expect("POST")) return error_reply(405, "use POST");
      long long exit_code = 137;
      if (auto e = req.param("exit_code")) {
        auto v = parse_int(*e);
        if (!v) return error_reply(400, "exit_code must be an integer");
        exit_code = *v;
      }
      const bool restart = truthy(req.param("restart"));
      size_t killed = 0;
      if (auto id = req.param("container_id")) {
        killed = rt_.node().kill_container(*id, static_cast<int32_t>(exit_code), restart);
      } else if (auto uid = req.param("pod_uid")) {
        killed = rt_.node().kill_pod(*uid, static_cast<int32_t>(exit_code), restart);
      } else {
        return error_reply(400, "container_id or pod_uid is required");
      }
      if (killed == 0) return error_reply(404, "no running container matched");
      return json_reply({{"killed", killed}});
    }
    return error_reply(404, "unknown path " + req.path);
  };
  Reply r;
  try {
    r = route();
  } catch (const std::exception& e) {
    r = error_reply(500, e.what());
  }
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
            r.status, reason_phrase(r.status), r.type.c_str(), r.body.size());
  mg_write(conn, r.body.data(), r.body.size());
  return r.status;
}

}  // namespace fakecri
