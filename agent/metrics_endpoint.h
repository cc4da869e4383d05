#pragma once
// GET /metrics. The exposition text is rebuilt at most once per `max_age`
// (100 ms): perf under 256 concurrent scrapers during a hang showed most of
// the agent's CPU in prometheus-cpp's text serializer, once per request.
// Scrapers arriving together share one text; a Prometheus scraping every
// 15 s always gets a fresh one. The diagnosis behind pleg_diagnosis_cause is
// cached longer, per relist (cached_diagnosis.h).
#include <mutex>
#include <optional>
#include <string>

#include "cached_diagnosis.h"
#include "http_server.h"
#include "monitor.h"

namespace plegscope {

// Thread-safe.
class MetricsEndpoint {
 public:
  explicit MetricsEndpoint(Monitor& monitor,
                           Duration max_age = std::chrono::milliseconds(100))
      : monitor_(monitor), diagnosis_(monitor), max_age_(max_age) {}

  HttpResponse serve();
  uint64_t rendered() const;  // how many texts were built (for tests)

 private:
  Monitor& monitor_;
  CachedDiagnosis diagnosis_;
  const Duration max_age_;
  mutable std::mutex mu_;  // held while rendering: concurrent scrapes wait for one text
  std::string body_;
  std::optional<TimePoint> rendered_at_;
  uint64_t rendered_count_ = 0;
};

}  // namespace plegscope
