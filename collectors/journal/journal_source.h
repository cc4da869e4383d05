#pragma once
// The systemd journal (the kubelet's and the runtime's own lines, the
// kernel's hung-task reports), as a source. The follower spends its life
// waiting on the journal's descriptor, so it owns no thread: the waiting
// lane serves it between and during its other jobs (waiting_task()).
#include "common/source.h"
#include "journal/journal_follower.h"

namespace plegscope {

// Thread-safe.
class JournalSource final : public SourceOf<JournalStatus> {
 public:
  using Options = JournalFollowerOptions;
  JournalSource(const Options& options, const SourceContext& context) : follower_(options, context.clock) {}
  std::string_view name() const override { return "journal"; }
  bool enabled() const override { return true; }
  void start(SourceLanes) override {}  // the lane serves waiting_task() from its start
  FdTask* waiting_task() override { return &follower_; }
  JournalStatus evidence() const override { return follower_.status(); }

 private:
  JournalFollower follower_;
};

}  // namespace plegscope
