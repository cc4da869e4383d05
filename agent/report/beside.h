#pragma once
// The words of the report's "kubelet" and "runtime_metrics" sections (issue
// 18): why a reader could not read its source, with the fix, and which TLS
// mode the kubelet scrape uses. Stateless.
#include <ostream>
#include <string>

#include "diagnoser/report.h"
#include "diagnoser/runtime_model.h"

namespace plegscope {

// "the kubelet answered 403 Forbidden: grant the agent's ServiceAccount ..."
std::string kubelet_error_words(const Report::Kubelet& kubelet);
// The words, with its fix, of a failed get nodes/<node> (the Ready message).
std::string ready_error_words(const ScrapeOutcome& outcome);
// Where to turn the metrics on is said for the node's runtime and release
// (containerd's table moved in 2.3: containerd_config.h).
std::string runtime_metrics_error_words(const Report::RuntimeMetrics& metrics, const RuntimeModel& runtime);
// "verified against the CA file", "not verified (--kubelet-insecure-skip-tls-verify)", ...
std::string tls_mode_words(const std::string& tls_mode);

// Which kubelet's PLEG the agent copies, and whether it read or assumed it:
// "generic, copying the 1.33 kubelet (its version, read)".
std::string model_words(const Report::Kubelet& kubelet);

// True while a reader that could not read lacks its error's words.
bool beside_needs_words(const Report& report);
// Fills in kubelet.error and runtime_metrics.error where missing.
void word_beside(Report& report);

// The kubelet and runtime_metrics sections (report/sections/) side by side,
// as the text and HTML reports show them.
void beside_text(const Report& report, std::ostream& out);
std::string beside_html(const Report& report);
// One SVG chart, both series: the agent's and the kubelet's relist p99 and
// last-seen age, on a log scale against the PLEG threshold.
std::string kubelet_beside_chart(const Report& report);

}  // namespace plegscope
