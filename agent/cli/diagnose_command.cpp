#include "diagnose_command.h"

#include <civetweb.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "basic_auth.h"
#include "cri/grpc_runtime_client.h"
#include "monitor.h"
#include "diagnosis_endpoint.h"
#include "report/json.h"
#include "report/text.h"

namespace plegscope {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "plegscope: %s\n", message.c_str());
  return 2;
}

// After a Monitor ran, as serve() does: gRPC's own threads may still hold its
// internal locks and tearing the channel down under them aborts; nothing is
// left to save, so exit without destructors.
[[noreturn]] void leave(int code) {
  spdlog::shutdown();
  std::fflush(nullptr);
  std::_Exit(code);
}

int print(const Report& report, const std::string& output) {
  std::string body = output == "json" ? report_to_json(report).dump(2) + "\n" : render_text(report);
  std::fwrite(body.data(), 1, body.size(), stdout);
  std::fflush(stdout);
  return report.status == Status::kHealthy ? 0 : 1;
}

mg_connection* connect(const HttpUrl& url, const Config& config, char* ebuf, size_t ebuf_size) {
  if (!url.tls) return mg_connect_client(url.host.c_str(), url.port, 0, ebuf, ebuf_size);
  // civetweb verifies the chain against the CA file; it does not check the host name.
  mg_client_options options{};
  options.host = url.host.c_str();
  options.port = url.port;
  options.server_cert = config.tls_ca_file.c_str();
  options.client_cert = config.tls_client_cert.empty() ? nullptr : config.tls_client_cert.c_str();
  options.host_name = url.host.c_str();
  return mg_connect_client_secure(&options, ebuf, ebuf_size);
}

// GET with civetweb's client; the body, or an error message in `error`.
std::optional<std::string> http_get(const HttpUrl& url, const Config& config, const std::string& target,
                                    std::string& error) {
  char ebuf[256] = {};
  mg_connection* conn = connect(url, config, ebuf, sizeof(ebuf));
  if (!conn) {
    error = std::string("cannot connect: ") + (ebuf[0] ? ebuf : "connection failed");
    return std::nullopt;
  }
  std::string authorization;
  if (!config.basic_auth_user.empty())
    authorization = "Authorization: " + basic_authorization(config.basic_auth_user, config.basic_auth_password) + "\r\n";
  mg_printf(conn, "GET %s HTTP/1.0\r\nHost: %s:%d\r\nAccept: application/json\r\n%s\r\n", target.c_str(),
            url.host.c_str(), url.port, authorization.c_str());
  if (mg_get_response(conn, ebuf, sizeof(ebuf), 30000) < 0) {
    error = std::string("no answer: ") + (ebuf[0] ? ebuf : "timeout");
    mg_close_connection(conn);
    return std::nullopt;
  }
  const mg_response_info* info = mg_get_response_info(conn);
  int status = info ? info->status_code : 0;
  std::string body;
  char buf[16384];
  int n;
  while ((n = mg_read(conn, buf, sizeof(buf))) > 0) body.append(buf, static_cast<size_t>(n));
  mg_close_connection(conn);
  if (status != 200) {
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
    error = "GET " + target + " answered HTTP " + std::to_string(status) + (body.empty() ? "" : ": " + body.substr(0, 200));
    return std::nullopt;
  }
  return body;
}

int diagnose_url(const Config& config) {
  auto url = parse_agent_url(config.diagnose_url);
  if (!url) return fail("--url: invalid value \"" + config.diagnose_url + "\" (expected http[s]://HOST:PORT)");
  if ((mg_init_library(url->tls ? MG_FEATURES_TLS : 0) & MG_FEATURES_TLS) == 0 && url->tls)
    return fail("--url " + config.diagnose_url + ": TLS is not available: civetweb could not load OpenSSL (libssl.so)");
  // A peer that closes mid-write (a refused TLS handshake) must be an error, not SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  std::string error;
  auto body = http_get(*url, config, (url->path.empty() || url->path == "/" ? "" : url->path) + "/diagnose?format=json", error);
  mg_exit_library();
  if (!body) return fail("--url " + config.diagnose_url + ": " + error);
  Report report;
  try {
    report = report_from_json(nlohmann::json::parse(*body));
  } catch (const std::exception& e) {
    return fail("--url " + config.diagnose_url + ": not a plegscope report: " + std::string(e.what()).substr(0, 160));
  }
  return print(report, config.diagnose_output);
}

int diagnose_endpoint(const Config& config) {
  auto path = unix_socket_path(config.runtime_endpoint);
  struct stat st {};
  if (!path || ::stat(path->c_str(), &st) != 0 || !S_ISSOCK(st.st_mode))
    return fail("--container-runtime-endpoint: no CRI socket at " + config.runtime_endpoint +
                " (expected the runtime's unix socket, e.g. unix:///run/containerd/containerd.sock)");
  SystemClock clock;
  Monitor monitor(config, clock);
  monitor.start();
  const TimePoint deadline = clock.now() + config.diagnose_duration;
  // Fail fast on an endpoint that is not a working CRI runtime: the first
  // relist fails as UNAVAILABLE (nobody listening) or UNIMPLEMENTED (not CRI).
  while (clock.now() < deadline) {
    auto records = monitor.recorder().snapshot();
    if (!records.empty()) {
      const auto& first = records.front();
      if (first.error_code && !monitor.ready() &&
          (*first.error_code == GrpcCode::kUnavailable || *first.error_code == GrpcCode::kUnimplemented)) {
        monitor.stop();
        leave(fail("--container-runtime-endpoint: " + config.runtime_endpoint + " did not answer as a CRI runtime: " +
                    grpc_code_name(*first.error_code) + (first.error_message.empty() ? "" : " (" + first.error_message + ")")));
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  while (clock.now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Report report = current_report(monitor);
  monitor.stop();  // cancels a hung call, so this returns promptly
  leave(print(report, config.diagnose_output));
}

}  // namespace

std::optional<HttpUrl> parse_http_url(const std::string& url) {
  auto out = parse_agent_url(url);
  if (out && out->tls) return std::nullopt;
  return out;
}

std::optional<HttpUrl> parse_agent_url(const std::string& url) {
  HttpUrl out;
  out.tls = url.rfind("https://", 0) == 0;
  const std::string scheme = out.tls ? "https://" : "http://";
  if (url.rfind(scheme, 0) != 0) return std::nullopt;
  if (out.tls) out.port = 443;
  std::string rest = url.substr(scheme.size());
  auto slash = rest.find('/');
  if (slash != std::string::npos) {
    out.path = rest.substr(slash);
    while (!out.path.empty() && out.path.back() == '/') out.path.pop_back();
    rest = rest.substr(0, slash);
  }
  auto colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find(']') == std::string::npos) {
    std::string port = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    out.port = std::stoi(port);
    if (out.port < 1 || out.port > 65535) return std::nullopt;
  }
  if (rest.empty()) return std::nullopt;
  out.host = rest;
  return out;
}

int run_diagnose(const Config& config) {
  if (!config.diagnose_url.empty()) return diagnose_url(config);
  return diagnose_endpoint(config);
}

}  // namespace plegscope
