#include "fake_runtime.h"

namespace fakecri {

FakeRuntime::FakeRuntime(Scenario scenario, std::string socket_path, const Clock& clock)
    : scenario_(std::move(scenario)),
      clock_(clock),
      node_(scenario_.node, clock_, scenario_.seed),
      faults_(scenario_.seed),
      service_(scenario_.runtime, node_, faults_, calls_, events_, clock_),
      endpoint_(std::move(socket_path), service_,
                [this] { return std::make_unique<UnservedMethods>(calls_, clock_); }),
      simulator_(scenario_, clock_, node_, faults_, endpoint_) {
  node_.set_event_sink([this](const ModelEvent& e) {
    changes_.record(e, clock_.now());
    events_.publish(e);
  });
}

FakeRuntime::~FakeRuntime() { shutdown(); }

bool FakeRuntime::start(std::string* error, Duration tick) {
  if (!simulator_.step(error)) return false;
  simulator_.start(tick);
  return true;
}

void FakeRuntime::shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  simulator_.stop();
  faults_.shutdown();
  events_.shutdown();
  std::string ignored;
  endpoint_.set_serving(false, &ignored);
}

}  // namespace fakecri
