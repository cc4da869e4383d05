#pragma once
// What the readers of other components' metrics pages (the kubelet's, the
// runtime's) do around each scrape, written once: the outcome booked as
// evidence and logged only when what went wrong changes, and a minute of
// histogram samples for a recent p99 of figures that only ever grow.
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "prom_text/histogram.h"
#include "scrape/scrape_error.h"
#include "scrape/scrape_outcome.h"

namespace plegscope {

// Books `outcome` into `record` and logs "<what> at <endpoint>: ..." on the
// first scrape and whenever the error changes, never on every scrape.
void record_scrape(const char* what, const std::string& endpoint, const ScrapeOutcome& outcome, bool& logged_once,
                   ScrapeRecord& record);

// What the observations of one histogram family added between two scrapes:
// when they were read, and the difference by name.
struct HistogramStep {
  MonoTime from{}, to{};
  std::map<std::string, Histogram> added;
};

// Histograms by name as sampled over the last `window`, oldest first.
// Not thread-safe: its reader's lock guards it.
class HistogramWindow {
 public:
  explicit HistogramWindow(Duration window = std::chrono::seconds(60)) : window_(window) {}
  void add(MonoTime now, std::map<std::string, Histogram> sample);
  // p99 per name over what the window's samples added (recent_p99).
  std::map<std::string, double> recent_p99() const;
  // What the window added by name, names that added nothing left out. One
  // sample alone adds nothing: a count read once has no known age.
  std::map<std::string, Histogram> added() const;
  // The same window scrape by scrape, oldest first: when in it a figure
  // grew, which a p99 over the whole window cannot tell. Names that added
  // nothing in a step are left out of it.
  std::vector<HistogramStep> steps() const;

 private:
  Duration window_;
  std::deque<std::pair<MonoTime, std::map<std::string, Histogram>>> samples_;
};

// Counters by name (ever growing, reset by a restart) as sampled over the
// last `window`: what each grew by. Not thread-safe: its reader's lock guards it.
class CounterWindow {
 public:
  explicit CounterWindow(Duration window) : window_(window) {}
  void add(MonoTime now, std::map<std::string, double> sample);
  // Growth by name over the window, names that did not grow left out; a
  // counter that went down (its process restarted) counts from zero. One
  // sample alone adds nothing.
  std::map<std::string, double> added() const;

 private:
  Duration window_;
  std::deque<std::pair<MonoTime, std::map<std::string, double>>> samples_;
};

// p99 per name over what changed between the oldest and newest sample; a
// name with no new observations has none. Pure.
std::map<std::string, double> recent_p99(const std::map<std::string, Histogram>& oldest,
                                         const std::map<std::string, Histogram>& newest);

}  // namespace plegscope
