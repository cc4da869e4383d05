#include "metrics_endpoint.h"

#include <prometheus/text_serializer.h>

namespace plegscope {

HttpResponse MetricsEndpoint::serve() {
  std::lock_guard<std::mutex> lock(mu_);
  const TimePoint now = monitor_.clock().now();
  if (!rendered_at_ || now - *rendered_at_ >= max_age_ || now < *rendered_at_) {
    auto families = monitor_.collect_all();
    auto causes = diagnosis_.Collect();
    families.insert(families.end(), causes.begin(), causes.end());
    body_ = prometheus::TextSerializer().Serialize(families);
    rendered_at_ = now;
    rendered_count_++;
  }
  return HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8", body_};
}

uint64_t MetricsEndpoint::rendered() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rendered_count_;
}

}  // namespace plegscope
