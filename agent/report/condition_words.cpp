#include "report/condition_words.h"

#include "report/wording.h"

namespace plegscope {
namespace {

// The API server keeps a condition's message whole, but kubectl describe
// and the remediators' logs show one line: cut long ones.
constexpr size_t kMaxMessageBytes = 1024;

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (text.size() > kMaxMessageBytes) {
    text.resize(kMaxMessageBytes - 3);
    // Not in the middle of a UTF-8 sequence: a last character cut short goes.
    size_t start = text.size();
    while (start > 0 && (static_cast<unsigned char>(text[start - 1]) & 0xC0) == 0x80) --start;
    if (start > 0) {
      const auto lead = static_cast<unsigned char>(text[start - 1]);
      const size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
      if (text.size() - (start - 1) < length) text.resize(start - 1);
    }
    text += "...";
  }
  return text;
}

}  // namespace

std::string condition_message(const Report& raw, std::optional<CauseId> cause) {
  const Report report = worded(raw);
  const std::string where = " Full report: kubectl plegscope diagnose " + (report.node.empty() ? "<node>" : report.node) +
                            " (or /diagnose on the agent).";
  if (!cause) return one_line("PLEG is healthy: the relist runs every " +
                              text::elapsed(report.relist.period_seconds) + " and no cause is named." + where);
  for (const Cause& c : report.causes)
    if (c.id == *cause)
      return one_line(c.summary + " Advice: " + advice_name(c.advice) + "." + where);
  // Still written, no longer named: the heartbeat of a condition held True.
  return one_line(std::string("The last named cause was ") + cause_name(*cause) + "; the diagnosis is now " +
                  status_name(report.status) + "." + where);
}

std::string node_condition_error_words(const WriteOutcome& o) {
  const std::string what = "the node condition or its Events (--node-condition) were not written: ";
  const std::string status = "HTTP " + std::to_string(o.http_status);
  switch (o.error) {
    case ScrapeError::none: return "";
    case ScrapeError::credentials_unreadable:
      return what + "the ServiceAccount token could not be read (" + o.detail +
             "): mount it (a projected volume) or pass --api-server-token-file";
    case ScrapeError::unauthorized:
      return what + "the API server answered " + status +
             " Unauthorized: it did not accept the token (expired, or from another cluster); check "
             "--api-server-token-file";
    case ScrapeError::forbidden:
      return what + "the API server answered " + status +
             " Forbidden: apply the component deploy/components/node-condition (ClusterRole: get nodes, patch "
             "nodes/status, create and patch events), or the admission policy refused a write to another node";
    case ScrapeError::not_found:
      return what + "the API server answered " + status + " Not Found: --node-name does not name a Node of this cluster";
    case ScrapeError::tls_verify_failed:
    case ScrapeError::tls_failed:
      return what + "the API server's certificate did not verify against --api-server-ca-file (" + o.detail + ")";
    case ScrapeError::unreachable:
    case ScrapeError::timeout:
      return what + "the API server (KUBERNETES_SERVICE_HOST and _PORT) did not answer (" + o.detail +
             "); the agent keeps relisting and tries again";
    case ScrapeError::bad_input: return what + "--node-name is not a Node name";
    case ScrapeError::http_status:
      if (o.http_status == 409)
        return what + "the API server answered " + status + " Conflict; the agent writes again at its next step";
      return what + "the API server answered " + status;
    default: return what + scrape_error_name(o.error) + " (" + o.detail + ")";
  }
}

}  // namespace plegscope
