#pragma once
// The only caller of the diagnoser. /metrics (pleg_diagnosis_cause, from the
// published diagnosis alone),
// /healthz, /diagnose and `plegscope diagnose` read the Diagnosis it
// published; none of them diagnoses.
//
// A diagnosis is made from the Node's snapshot at most once per completed
// relist, or once per `max_age` while no relist completes (a hung runtime:
// time alone moves the report), and only when someone reads: readers that
// arrive while one is being made wait for it and share it, so 256
// concurrent scrapes cost one diagnosis, and a scrape costs the same on a
// 10,000-container node as on an empty one. Not on a thread of its own after
// every relist: a diagnosis over a full 600-relist timeline costs about 3 ms
// of CPU, twice the agent's own CPU per relist on a 110-pod node (1.3 ms,
// bench/results/latest.json); made when read, its cost follows the scrape
// interval, not the relist period.
#include <prometheus/metric_family.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "common/clock.h"
#include "diagnoser/diagnoser.h"
#include "node/node.h"
#include "node/node_options.h"

namespace plegscope {

// One published diagnosis; never changed once published.
struct Diagnosis {
  Report report;
  std::map<CauseId, double> confidences;  // every cause id, 0 when absent
  MonoTime made_at{};                     // the snapshot's time, monotonic: its age decides freshness
  uint64_t relists = 0;                   // relists completed before the snapshot

  // Whether this is a verdict to act on or record. Until a relist has
  // succeeded or failed, the kubelet's rule says "pleg has yet to be
  // successful" (unhealthy) and the causes are guesses from node pressure:
  // a starting agent must not log or publish that as a fault. A critical
  // cause meanwhile (a call hung past the threshold) is a verdict.
  bool has_verdict() const;
};

// Thread-safe.
class DiagnosisService {
 public:
  DiagnosisService(const Node& node, const Clock& clock, DiagnosisOptions options);
  // Where the acting side's state comes from (the node condition writer's),
  // read into every snapshot for the report; none: the writer is off.
  void read_condition_from(std::function<NodeConditionState()> reader);

  // The latest diagnosis; made first when a relist completed since the last
  // one or it is older than max_age. Never null.
  std::shared_ptr<const Diagnosis> latest() const;
  // pleg_diagnosis_cause{cause} for every cause id, from latest().
  std::vector<prometheus::MetricFamily> collect_metrics() const;
  // The same from the diagnosis already published (every id 0 before the
  // first): what /metrics serves, so that a scrape never runs a diagnosis.
  // The verdict watch makes them, every few seconds, as it looks.
  std::vector<prometheus::MetricFamily> published_metrics() const;
  // How many diagnoses were made (tests: readers share them).
  uint64_t diagnoses() const;

 private:
  bool fresh(const Diagnosis& d, MonoTime now, uint64_t relists) const;
  std::shared_ptr<const Diagnosis> published() const;
  static std::vector<prometheus::MetricFamily> cause_metrics(const Diagnosis* diagnosis);

  const Node& node_;
  const Clock& clock_;
  const DiagnosisOptions options_;
  const DiagnoserThresholds thresholds_;
  mutable std::mutex diagnose_mu_;  // held while one is made: the others wait and share it
  mutable std::mutex mu_;           // guards the two below, held only to copy them
  mutable std::shared_ptr<const Diagnosis> published_;
  mutable uint64_t diagnoses_ = 0;
  std::function<NodeConditionState()> condition_;
};

}  // namespace plegscope
