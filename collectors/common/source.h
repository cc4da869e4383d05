#pragma once
// One shape for every evidence source beside the PLEG (the runtime's
// Version, node pressure, the host scan, the journal, the kubelet, the
// runtime's metrics page, the runtime's Status). A source owns no thread:
// its jobs run on the agent's two shared lanes, it reads time only through
// the injected Clock, and what it observed is read through one typed,
// non-blocking evidence(). The agent keeps one list of them
// (agent/node/source_list.h), which makes Node's members, the options, the
// flags and the snapshot's evidence; a new source is its folder and one line
// in that list.
#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/fd_task.h"
#include "common/flag_declaration.h"
#include "common/periodic_tasks.h"

namespace plegscope {

class GrpcRuntimeClient;
struct GrpcClientOptions;
struct ApiServerConfig;

// What every source may be built from besides its own options: the node's
// shared facts, each held once by the agent and lent by reference, so that
// no option is copied from one source's options into another's.
struct SourceContext {
  const Clock& clock;
  // The PLEG block's CRI client: a source's CRI calls are timed and tracked
  // with the relists' own (pleg_runtime_operations_*).
  GrpcRuntimeClient& runtime;
  const GrpcClientOptions& runtime_options;  // its socket and deadline
  const std::string& node_name;
  // Where the host's /proc is (--proc-path): every source that reads the
  // host's processes or pressure reads it here.
  const std::string& proc_path;
  // Whether the host is scanned: a source that explains what the scan finds
  // (CRI-O's pages on the containers without a conmon) is off without it.
  bool host_scanned;
  // A CRI call in flight this long is hung (--hang-threshold).
  Duration hang_threshold;
  // The in-cluster API server; nullptr outside a cluster.
  const ApiServerConfig* api_server;
};

// Options of a source that takes none of its own: no flags either.
struct NoOptions {};
inline void add_flags(CLI::App&, NoOptions&) {}

// The agent's shared threads. Each thread is resident on every node, so
// sources share two instead of keeping their own.
struct SourceLanes {
  // Jobs that never wait on a socket, the runtime or the network (the host
  // scan, the verdict watch): a hang must never delay the scan it asks for.
  PeriodicTasks& quick;
  // Jobs that wait, each bounded by its own timeouts (HTTP scrapes, CRI
  // calls outside the relist). Between and during its jobs this lane also
  // serves the one FdTask a source declares through waiting_task().
  PeriodicTasks& waiting;
};

// The two lanes as threads, owned by the process entry point (or a test,
// which drives them with run_due() and a fake clock instead).
class Lanes {
 public:
  explicit Lanes(const Clock& clock) : quick_("node-timers", clock), waiting_("readers", clock) {}
  SourceLanes view() { return {quick_, waiting_}; }
  PeriodicTasks& quick() { return quick_; }
  PeriodicTasks& waiting() { return waiting_; }
  // After the sources' owner stopped: each lane ends after the job it runs.
  void stop() {
    waiting_.stop();
    quick_.stop();
  }

 private:
  PeriodicTasks quick_;
  PeriodicTasks waiting_;
};

// Implementations are thread-safe: evidence() and Collect() are called from
// the HTTP server's threads while the source's jobs run on the lanes.
class Source : public prometheus::Collectable {
 public:
  // A short stable name for logs and /debug ("kubelet", "host").
  virtual std::string_view name() const = 0;
  // Off by its options (an endpoint set to off, a reader not asked for): a
  // disabled source schedules nothing and exports nothing.
  virtual bool enabled() const = 0;
  // Schedules its jobs on the lanes; called once, before the lanes start.
  virtual void start(SourceLanes lanes) = 0;
  // Ends what the source holds beyond its lane jobs; the lanes stop first.
  virtual void stop() {}
  // A descriptor-driven task the waiting lane serves (the journal's fd), or
  // nullptr. Declared here rather than found through thread state, so that
  // which thread runs whose work is visible where the lanes are built.
  virtual FdTask* waiting_task() { return nullptr; }
  // The source's own metric families, computed at scrape time.
  std::vector<prometheus::MetricFamily> Collect() const override { return {}; }
};

// A source whose observation is one plain value: the diagnoser's snapshot
// holds it as it is, without a field-by-field copy.
template <typename Evidence>
class SourceOf : public Source {
 public:
  using EvidenceType = Evidence;
  // Every source is built as Type(const Type::Options&, const SourceContext&).
  // The latest observation, copied under a short lock: never waits on I/O
  // that can hang (a socket, the runtime, a stalled disk).
  virtual Evidence evidence() const = 0;
};

}  // namespace plegscope
