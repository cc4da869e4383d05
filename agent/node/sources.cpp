#include "node/sources.h"

namespace plegscope {

#define PLEGSCOPE_SOURCE_BUILD(Type, name) name(options.name, context),
#define PLEGSCOPE_SOURCE_POINTER(Type, name) &name,
Sources::Sources(const SourceOptions& options, const SourceContext& context)
    : PLEGSCOPE_SOURCES(PLEGSCOPE_SOURCE_BUILD) all_{PLEGSCOPE_SOURCES(PLEGSCOPE_SOURCE_POINTER)} {}
#undef PLEGSCOPE_SOURCE_POINTER
#undef PLEGSCOPE_SOURCE_BUILD

SourceEvidence Sources::evidence() const {
  SourceEvidence e;
#define PLEGSCOPE_SOURCE_READ(Type, name) e.name = name.evidence();
  PLEGSCOPE_SOURCES(PLEGSCOPE_SOURCE_READ)
#undef PLEGSCOPE_SOURCE_READ
  return e;
}

void Sources::start(SourceLanes lanes) {
  // The waiting lane serves a source's descriptor task between and during
  // its jobs (the journal's fd beside the scrapes' sockets): declared before
  // any source asks the lane for it.
  for (Source* source : all_)
    if (FdTask* task = source->waiting_task()) lanes.waiting.serve(*task);
  for (Source* source : all_)
    if (source->enabled()) source->start(lanes);
}

void Sources::stop() {
  for (Source* source : all_) source->stop();
}

std::vector<prometheus::MetricFamily> Sources::collect() const {
  std::vector<prometheus::MetricFamily> families;
  for (const Source* source : all_) {
    if (!source->enabled()) continue;
    auto more = source->Collect();
    families.insert(families.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return families;
}

}  // namespace plegscope
