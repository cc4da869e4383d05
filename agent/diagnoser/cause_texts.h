#pragma once
// The words of each cause, in one table keyed by cause id: how to confirm
// it and what usually fixes it. docs/runbook.md says the same, and a test
// holds the two together.
#include <string>

#include "diagnoser/causes.h"
#include "diagnoser/snapshot.h"

namespace plegscope {

struct CauseText {
  CauseId id;
  const char* confirm;  // commands and signals that confirm the cause
  const char* fix;      // what usually fixes it
  const char* never;    // what not to do ("" when nothing needs saying)
};

const CauseText& cause_text(CauseId id);

// The remedy of a report: the table's text for `id` with the node's own
// endpoint, runtime service and node name put in for {crictl}, {socket},
// {service} and {node}.
std::string remedy(CauseId id, const Snapshot& s);

}  // namespace plegscope
