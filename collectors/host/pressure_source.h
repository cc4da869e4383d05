#pragma once
// Node pressure (/proc/pressure/*, loadavg, pid counts), as a source. The
// kernel's pressure files are computed on read and never block, so
// evidence() reads them at the moment it is asked: the report's pressure is
// as fresh as the report, with no job on a lane.
#include "common/source.h"
#include "host/node_pressure.h"

namespace plegscope {

// Thread-safe: holds only the path.
class PressureSource final : public SourceOf<NodePressure> {
 public:
  using Options = NoOptions;
  PressureSource(const Options&, const SourceContext& context) : reader_(context.proc_path) {}
  std::string_view name() const override { return "pressure"; }
  bool enabled() const override { return true; }
  void start(SourceLanes) override {}
  NodePressure evidence() const override { return reader_.read(); }

 private:
  NodePressureReader reader_;
};

}  // namespace plegscope
