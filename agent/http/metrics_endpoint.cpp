#include "http/metrics_endpoint.h"

#include <prometheus/text_serializer.h>

namespace plegscope {

std::string MetricsEndpoint::render() const {
  auto families = node_.collect_metrics();
  auto causes = diagnosis_.published_metrics();  // never diagnoses: the verdict watch does
  families.insert(families.end(), causes.begin(), causes.end());
  return prometheus::TextSerializer().Serialize(families);
}

HttpResponse MetricsEndpoint::serve() {
  auto answer = [](std::shared_ptr<const std::string> body) {
    HttpResponse response{200, "text/plain; version=0.0.4; charset=utf-8", {}, {}};
    response.shared_body = std::move(body);
    return response;
  };
  std::unique_lock<std::mutex> lock(mu_);
  const MonoTime now = clock_.monotonic();
  // The oldest of the last kStormRenders render starts (the ring's next slot).
  const bool many_renders =
      render_count_ >= kStormRenders && now - render_starts_[render_count_ % kStormRenders] < kStormWindow;
  if ((waiting_ >= kStormWaiters || many_renders) && finished_ > 0 && now - rendered_at_ < kStormMaxAge) {
    auto body = body_;
    lock.unlock();
    return answer(std::move(body));
  }
  // A render that begins after this request arrived.
  const uint64_t wanted = started_ + 1;
  ++waiting_;
  while (finished_ < wanted) {
    if (rendering_) {
      done_.wait(lock);
      continue;
    }
    rendering_ = true;
    const uint64_t number = ++started_;
    const MonoTime began = clock_.monotonic();
    render_starts_[render_count_++ % kStormRenders] = began;
    lock.unlock();
    auto body = std::make_shared<const std::string>(render());
    lock.lock();
    body_ = std::move(body);
    rendered_at_ = began;
    finished_ = number;
    rendering_ = false;
    done_.notify_all();
  }
  --waiting_;
  auto body = body_;
  lock.unlock();
  return answer(std::move(body));
}

uint64_t MetricsEndpoint::rendered() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_;
}

}  // namespace plegscope
