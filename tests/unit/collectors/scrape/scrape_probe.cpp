// Test driver: one kubelet or runtime-metrics scrape per line read on stdin,
// fed into the state trackers on the real clocks; prints one JSON line each.
// Usage: scrape_probe kubelet URL TOKEN_FILE CA_FILE [insecure]
//        scrape_probe runtime URL
//        scrape_probe get URL [bearer=T] [basic=U:P] [ca=F] [cert=F] [key=F]
//                     [insecure=1] [max=BYTES] [timeout_ms=N] [parallel=N]
//                     (one request, or N at once on N threads: one line each)
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "scrape/http_client.h"
#include "kubelet/kubelet_scraper.h"
#include "kubelet/kubelet_state.h"
#include "runtime_metrics/runtime_metrics.h"

using namespace plegscope;

namespace {

template <typename T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: scrape_probe kubelet URL TOKEN_FILE CA_FILE [insecure] | runtime URL\n";
    return 2;
  }
  std::string kind = argv[1];
  std::string line;
  if (kind == "kubelet" && argc >= 5) {
    KubeletScrapeConfig config;
    config.url = argv[2];
    config.token_file = argv[3];
    config.ca_file = argv[4];
    config.insecure_skip_verify = argc > 5 && std::string(argv[5]) == "insecure";
    config.total_timeout = std::chrono::milliseconds(3000);
    KubeletScraper source(config);
    KubeletState state;
    while (std::getline(std::cin, line)) {
      auto started = std::chrono::steady_clock::now();
      KubeletScrape scrape = source.scrape();
      auto now = std::chrono::steady_clock::now();
      if (scrape.outcome.ok()) state.observe(scrape.sample, now, WallClock::now());
      KubeletView v = state.view(now);
      nlohmann::json out = {
          {"error", scrape_error_name(scrape.outcome.error)},
          {"status", scrape.outcome.http_status},
          {"detail", scrape.outcome.detail},
          {"body_bytes", scrape.body_bytes},
          {"elapsed_seconds", std::chrono::duration<double>(now - started).count()},
          {"tls_mode", kubelet_tls_mode(config)},
          {"relist_count", opt(v.relist_count)},
          {"seconds_since_relist_advanced", opt(v.seconds_since_relist_advanced)},
          {"relists_per_minute", opt(v.relists_per_minute)},
          {"relist_p99_seconds", opt(v.relist_p99_seconds)},
          {"last_seen_age_seconds", opt(v.last_seen_age_seconds)},
          {"version", v.version ? v.version->git_version : ""},
          {"model", pleg_model_name(v.model.kind)},
      };
      std::cout << out.dump() << std::endl;
    }
    return 0;
  }
  if (kind == "get") {
    HttpRequestOptions options;
    int parallel = 1;
    for (int k = 3; k < argc; ++k) {
      std::string arg = argv[k];
      auto eq = arg.find('=');
      std::string name = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
      if (name == "bearer") options.bearer_token = value;
      else if (name == "basic") {
        options.basic_auth_user = value.substr(0, value.find(':'));
        options.basic_auth_password = value.substr(value.find(':') + 1);
      } else if (name == "ca") options.ca_file = value;
      else if (name == "cert") options.client_cert_file = value;
      else if (name == "key") options.client_key_file = value;
      else if (name == "insecure") options.insecure_skip_verify = value == "1";
      else if (name == "max") options.max_body_bytes = std::stoull(value);
      else if (name == "timeout_ms") options.total_timeout = std::chrono::milliseconds(std::stol(value));
      else if (name == "parallel") parallel = std::stoi(value);
      else {
        std::cerr << "scrape_probe: unknown option '" << name << "'\n";
        return 2;
      }
    }
    std::vector<HttpResult> results(static_cast<size_t>(std::max(parallel, 1)));
    std::vector<std::thread> threads;
    for (auto& r : results) threads.emplace_back([&r, &argv, &options] { r = http_get(argv[2], options); });
    for (auto& t : threads) t.join();
    for (const auto& r : results) {
      std::cout << nlohmann::json{{"status", r.status}, {"error", http_error_name(r.error)},
                                  {"detail", r.error_detail}, {"body_bytes", r.body.size()}}.dump()
                << std::endl;
    }
    return 0;
  }
  if (kind == "runtime") {
    RuntimeMetricsScrapeConfig config;
    config.url = argv[2];
    RuntimeMetricsScraper source(config);
    RuntimeMetricsState state;
    while (std::getline(std::cin, line)) {
      RuntimeMetricsScrape scrape = source.scrape();
      auto now = std::chrono::steady_clock::now();
      if (scrape.outcome.ok()) state.observe(scrape.sample, now);
      nlohmann::json calls = nlohmann::json::array();
      for (const auto& c : state.in_flight(now)) {
        calls.push_back({{"method", c.method}, {"count", c.count}, {"seconds", c.seconds}});
      }
      std::cout << nlohmann::json{{"error", scrape_error_name(scrape.outcome.error)},
                                  {"kind", runtime_kind_name(scrape.sample.kind)},
                                  {"in_flight", calls}}.dump()
                << std::endl;
    }
    return 0;
  }
  std::cerr << "scrape_probe: unknown mode '" << kind << "'\n";
  return 2;
}
