#pragma once
// Changes of the diagnosis' status (healthy, at risk, unhealthy), one record
// each, for sinks that must outlive the node: the transition log line on
// stdout, which log pipelines keep after a replaced node is gone.
//
// TransitionLimiter is the pure part: fed the status of every verdict, it
// says which changes to record. A flapping node (a runtime that stalls on
// and off) must not flood the log, and must not vanish from it either: a
// change that finds no token is counted, and the next record carries the
// count; when tokens return and the status differs from the last recorded
// one, that record is made then, even without a further change. The first
// verdict is recorded (an agent restarted in the middle of a fault says so).
//
// VerdictWatch is the adapter: each check() reads the DiagnosisService and
// hands a record to the sink. It shares diagnoses with /metrics and
// /diagnose (the service diagnoses at most once per relist), so a check
// every 2 s costs a diagnosis at most every 2 s.
#include <functional>
#include <optional>

#include "common/clock.h"
#include "diagnoser/report.h"
#include "node/diagnosis_service.h"

namespace plegscope {

struct VerdictTransition {
  std::optional<Status> previous;  // the last recorded status; nullopt for the first verdict
  Status status = Status::kHealthy;
  int64_t suppressed = 0;          // changes not recorded since the last record (rate limit)
};

struct TransitionLimits {
  int burst = 4;                                        // records in a row before the limit bites
  Duration refill = std::chrono::seconds(60);           // one more record allowed per refill
};

// Not thread-safe: one caller (VerdictWatch's thread, or a test).
class TransitionLimiter {
 public:
  explicit TransitionLimiter(TransitionLimits limits = {});
  // The record to make for this verdict, if any.
  std::optional<VerdictTransition> observe(Status status, MonoTime now);

 private:
  bool take_token(MonoTime now);

  TransitionLimits limits_;
  std::optional<Status> recorded_;  // the status of the last record
  std::optional<Status> seen_;      // the status of the last verdict observed
  int64_t changes_ = 0;             // changes observed since the last record
  double tokens_;
  std::optional<MonoTime> refilled_at_;
};

class VerdictWatch {
 public:
  using Sink = std::function<void(const VerdictTransition&, const Diagnosis&)>;
  VerdictWatch(const DiagnosisService& diagnosis, const Clock& clock, Sink sink, TransitionLimits limits = {});
  // One look at the latest verdict; the caller's timer calls it every few seconds.
  void check();

 private:
  const DiagnosisService& diagnosis_;
  const Clock& clock_;
  const Sink sink_;
  TransitionLimiter limiter_;
};

}  // namespace plegscope
