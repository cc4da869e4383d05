#pragma once
// The terminal rendering of a Report: `/diagnose?format=text` and
// `plegscope diagnose`. Also the phrases the HTML page shares with it.
#include <string>
#include <vector>

#include "diagnoser/report.h"

namespace plegscope {

std::string render_text(const Report& report);

// "HEALTHY", "AT RISK", "UNHEALTHY"
std::string status_label(Status status);
// The report's status word: BLIND when the agent cannot see the runtime
// (the JSON's status stays the contract's at_risk: the node is not judged,
// and a reader of the text must not take it for a node at risk).
std::string status_label(const Report& r);
// The relist running now, as far as it got: "running for 42s; lists done in
// 8s (20 pods, 40 containers); 14 status calls so far (3.1s) for 20 events".
std::string describe_in_progress(const TimelineEntry& relist);
// "events reach the kubelet up to 9.6s late"
std::string lateness(double late_by_seconds);
// A remedy cut before each of its parts ("Confirm: …", "Fix: …", "Do not: …"),
// one line each on screen; a remedy without them is one part.
std::vector<std::string> remedy_parts(const std::string& remedy);
// The relist in progress: the timeline's last entry when it says so.
const TimelineEntry* relist_in_progress(const Report& report);

}  // namespace plegscope
