#pragma once
// GET /metrics. perf under 256 concurrent scrapers during a hang showed most
// of the agent's CPU in prometheus-cpp's text serializer, once per request.
// Requests that arrive while a text is being built wait and share the next
// one, so at most one is built at a time and every answer was collected after
// its request arrived. Only under a scrape storm (kStormWaiters or more
// waiting, or kStormRenders texts built in the last kStormWindow: with a few
// workers, hundreds of clients never make many waiters) does a request get
// the last text as it is, if it is younger than kStormMaxAge: building one
// per round for hundreds of clients kept a core busy and p99 at 250 ms. pleg_diagnosis_cause is the DiagnosisService's
// published diagnosis as it stands: a scrape never runs one (the verdict
// watch makes them; node/diagnosis_service.h), so its cost never depends on
// the node's size or on how many scrapers there are.
#include <array>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "common/clock.h"

#include "http/server.h"
#include "node/diagnosis_service.h"
#include "node/node.h"

namespace plegscope {

// Thread-safe.
class MetricsEndpoint {
 public:
  static constexpr int kStormWaiters = 8;
  static constexpr Duration kStormMaxAge = std::chrono::milliseconds(100);
  // Far beyond what Prometheus servers ask (one scrape per 15 s each).
  static constexpr size_t kStormRenders = 20;
  static constexpr Duration kStormWindow = std::chrono::seconds(1);

  MetricsEndpoint(const Node& node, const DiagnosisService& diagnosis, const Clock& clock)
      : node_(node), diagnosis_(diagnosis), clock_(clock) {}

  HttpResponse serve();
  uint64_t rendered() const;  // how many texts were built (for tests)

 private:
  std::string render() const;

  const Node& node_;
  const DiagnosisService& diagnosis_;
  const Clock& clock_;
  mutable std::mutex mu_;
  std::condition_variable done_;
  bool rendering_ = false;
  uint64_t started_ = 0;   // renders begun
  uint64_t finished_ = 0;  // number of the last render finished
  // Its text, shared by the answers: 128 workers copying 40 KiB each under
  // mu_ queued behind one another during a scrape storm.
  std::shared_ptr<const std::string> body_;
  MonoTime rendered_at_{};  // when that render began
  std::array<MonoTime, kStormRenders> render_starts_{};  // the last ones, a ring
  size_t render_count_ = 0;
  int waiting_ = 0;
};

}  // namespace plegscope
