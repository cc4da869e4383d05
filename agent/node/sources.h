#pragma once
// What the source list (source_list.h) makes: every source's options, the
// sources themselves, and their evidence, each by its list name.
#include <vector>

#include "node/source_list.h"

namespace plegscope {

// Every source's options, bound to its flags.
struct SourceOptions {
#define PLEGSCOPE_SOURCE_OPTIONS(Type, name) Type::Options name;
  PLEGSCOPE_SOURCES(PLEGSCOPE_SOURCE_OPTIONS)
#undef PLEGSCOPE_SOURCE_OPTIONS
};

// Every source's latest evidence, read together without waiting on I/O.
struct SourceEvidence {
#define PLEGSCOPE_SOURCE_EVIDENCE(Type, name) Type::EvidenceType name;
  PLEGSCOPE_SOURCES(PLEGSCOPE_SOURCE_EVIDENCE)
#undef PLEGSCOPE_SOURCE_EVIDENCE
};

// The sources, built once from their options and the node's context.
// Thread-safe as each source is.
class Sources {
 public:
  Sources(const SourceOptions& options, const SourceContext& context);
  Sources(const Sources&) = delete;
  Sources& operator=(const Sources&) = delete;

#define PLEGSCOPE_SOURCE_MEMBER(Type, name) Type name;
  PLEGSCOPE_SOURCES(PLEGSCOPE_SOURCE_MEMBER)
#undef PLEGSCOPE_SOURCE_MEMBER

  // All of them, in list order.
  const std::vector<Source*>& all() const { return all_; }
  SourceEvidence evidence() const;
  // A waiting task is served by lanes.waiting before any source starts;
  // then every enabled source schedules its jobs.
  void start(SourceLanes lanes);
  void stop();
  // Every enabled source's own families.
  std::vector<prometheus::MetricFamily> collect() const;

 private:
  std::vector<Source*> all_;
};

}  // namespace plegscope
