#include "report/beside.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "report/containerd_config.h"
#include "report/format.h"
#include "report/html.h"
#include "report/sections/section.h"

namespace plegscope {
namespace {

std::string status_text(const ScrapeOutcome& o) { return "HTTP " + std::to_string(o.http_status); }

std::string with_detail(std::string words, const ScrapeOutcome& o) {
  if (!o.detail.empty()) words += " (" + o.detail + ")";
  return words;
}

}  // namespace

std::string tls_mode_words(const std::string& tls_mode) {
  if (tls_mode == "skip_verify") return "TLS not verified (--kubelet-insecure-skip-tls-verify)";
  if (tls_mode == "ca_file") return "TLS verified against --kubelet-ca-file, host name or IP checked";
  if (tls_mode == "system_ca") return "TLS verified against the system's CAs, host name or IP checked";
  return tls_mode;
}

std::string kubelet_error_words(const Report::Kubelet& k) {
  if (k.endpoint.empty())
    return "off: pass --kubelet-endpoint https://NODE_IP:10250 (the DaemonSet sets NODE_IP from status.hostIP)";
  const ScrapeOutcome& o = k.outcome;
  switch (o.error) {
    case ScrapeError::none: return "";
    case ScrapeError::credentials_unreadable:
      return with_detail("the token file could not be read: mount the ServiceAccount token (a projected volume) "
                         "or pass --kubelet-token-file", o);
    case ScrapeError::unreachable:
      return with_detail("the kubelet could not be reached: check --kubelet-endpoint (NODE_IP from "
                         "status.hostIP, port 10250) and that the agent runs with hostNetwork or can reach the node",
                         o);
    case ScrapeError::timeout:
      return with_detail("the kubelet did not answer in time: it may be overloaded; its own PLEG figures are unknown",
                         o);
    case ScrapeError::tls_verify_failed:
      return with_detail("the kubelet's certificate did not verify (" + tls_mode_words(k.tls_mode) +
                             "): pass the CA that signs it with --kubelet-ca-file, or make its serving certificate "
                             "name the node's IP (serverTLSBootstrap), or as a last resort "
                             "--kubelet-insecure-skip-tls-verify",
                         o);
    case ScrapeError::tls_failed:
      return with_detail("the TLS handshake with the kubelet failed: check --kubelet-ca-file and the endpoint's scheme",
                         o);
    case ScrapeError::unauthorized:
      return "the kubelet answered " + status_text(o) +
             " Unauthorized: it did not accept the token; enable the kubelet's webhook authentication "
             "(authentication.webhook.enabled) and check --kubelet-token-file";
    case ScrapeError::forbidden:
      return "the kubelet answered " + status_text(o) +
             " Forbidden: grant the agent's ServiceAccount get on nodes/metrics (the ClusterRole in "
             "deploy/rbac.yaml); the kubelet's authorization mode must be Webhook";
    case ScrapeError::not_found:
      return "the kubelet answered " + status_text(o) + " Not Found for /metrics: check --kubelet-endpoint";
    case ScrapeError::http_status:
      return with_detail("the kubelet answered " + status_text(o), o);
    case ScrapeError::too_large:
      return "the kubelet's /metrics was larger than the agent reads (32 MiB): not read";
    case ScrapeError::unexpected_content:
      return with_detail("the answer at --kubelet-endpoint /metrics was not the kubelet's metrics", o);
    case ScrapeError::bad_input: return with_detail("--kubelet-endpoint is not a usable URL", o);
  }
  return scrape_error_name(o.error);
}

std::string ready_error_words(const ScrapeOutcome& o) {
  const std::string what = "the Node's Ready condition (get nodes/<node> from the API server) was not read: ";
  switch (o.error) {
    case ScrapeError::none: return "";
    case ScrapeError::credentials_unreadable:
      return with_detail(what + "the ServiceAccount token could not be read: mount it (a projected volume) or pass "
                                "--api-server-token-file", o);
    case ScrapeError::unauthorized:
      return what + "the API server answered " + status_text(o) +
             " Unauthorized: it did not accept the token (expired, or from another cluster); check "
             "--api-server-token-file";
    case ScrapeError::forbidden:
      return what + "the API server answered " + status_text(o) +
             " Forbidden: grant the agent's ServiceAccount get on nodes (the ClusterRole in deploy/rbac.yaml)";
    case ScrapeError::not_found:
      return what + "the API server answered " + status_text(o) +
             " Not Found: --node-name does not name a Node of this cluster";
    case ScrapeError::tls_verify_failed:
    case ScrapeError::tls_failed:
      return with_detail(what + "the API server's certificate did not verify against --api-server-ca-file", o);
    case ScrapeError::unreachable:
    case ScrapeError::timeout:
      return with_detail(what + "the API server (KUBERNETES_SERVICE_HOST and _PORT) did not answer", o);
    case ScrapeError::bad_input: return with_detail(what + "--node-name is not a Node name", o);
    default: return with_detail(what + scrape_error_name(o.error), o);
  }
}

// Where the runtime's metrics address is set, for the release the node runs
// (containerd_config.h): a CRI-O node reads CRI-O's key only.
std::string metrics_switch_words(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return "CRI-O's [crio.metrics] enable_metrics";
  const std::string containerd = "containerd's " + containerd_metrics_table(runtime) + " address";
  if (runtime.family == RuntimeFamily::kContainerd) return containerd;
  return containerd + ", CRI-O's [crio.metrics] enable_metrics";
}

std::string runtime_metrics_error_words(const Report::RuntimeMetrics& m, const RuntimeModel& runtime) {
  if (m.endpoint.empty())
    return "off: turn on the runtime's metrics (" + metrics_switch_words(runtime) +
           ") and pass --runtime-metrics-endpoint";
  const ScrapeOutcome& o = m.outcome;
  switch (o.error) {
    case ScrapeError::none: return "";
    case ScrapeError::unreachable:
      return with_detail("nothing answers at --runtime-metrics-endpoint: is the runtime's metrics address on (" +
                             metrics_switch_words(runtime) + ") and reachable from the agent?",
                         o);
    case ScrapeError::timeout: return with_detail("the runtime's metrics page did not answer in time", o);
    case ScrapeError::not_found:
      return "the runtime's metrics address answered " + status_text(o) +
             ": containerd serves its metrics at /v1/metrics, CRI-O at /metrics";
    case ScrapeError::too_large: return "the runtime's metrics page was larger than the agent reads (32 MiB)";
    case ScrapeError::unexpected_content:
      return with_detail("the page at --runtime-metrics-endpoint holds none of the runtime's metric families", o);
    case ScrapeError::unauthorized:
    case ScrapeError::forbidden:
    case ScrapeError::http_status:
      return with_detail("the runtime's metrics address answered " + status_text(o), o);
    default: return with_detail(std::string("the runtime's metrics could not be read: ") + scrape_error_name(o.error), o);
  }
}

namespace {

bool ready_needs_words(const Report::Kubelet& k) {
  return k.ready_outcome && !k.ready_outcome->ok() && !k.ready_error;
}

}  // namespace

bool beside_needs_words(const Report& r) {
  return (!r.kubelet.reachable && !r.kubelet.error) || ready_needs_words(r.kubelet) ||
         (!r.runtime_metrics.reachable && !r.runtime_metrics.error);
}

void word_beside(Report& r) {
  if (!r.kubelet.reachable && !r.kubelet.error) r.kubelet.error = kubelet_error_words(r.kubelet);
  if (ready_needs_words(r.kubelet)) r.kubelet.ready_error = ready_error_words(*r.kubelet.ready_outcome);
  if (!r.runtime_metrics.reachable && !r.runtime_metrics.error)
    r.runtime_metrics.error =
        runtime_metrics_error_words(r.runtime_metrics, runtime_model(r.runtime.name, r.runtime.version, r.runtime.endpoint));
}

std::string model_words(const Report::Kubelet& k) {
  std::string out = (k.model.empty() ? "unknown" : k.model);
  if (k.model_release.empty()) return out;
  out += ", copying the " + k.model_release + " kubelet";
  if (k.model_source == "read") return out + " (its version, read)";
  if (k.model_source == "flag") return out + " (--kubelet-version)";
  return out + " (assumed: no kubelet version read, so the newest released kubelet's)";
}

void beside_text(const Report& r, std::ostream& out) {
  report::kubelet_section().text(r, 0, out);
  report::runtime_metrics_section().text(r, 0, out);
}

std::string kubelet_beside_chart(const Report& r) {
  struct Group {
    const char* label;
    std::optional<double> agent, kubelet;
  };
  const Group groups[] = {
      {"relist p99", r.relist.duration_p99_seconds, r.kubelet.relist_p99_seconds},
      {"last seen age", r.relist.seconds_since_last_seen, r.kubelet.last_seen_age_seconds},
  };
  const double W = 560, H = 200, left = 110, right = 16, top = 12, bottom = 28;
  const double pw = W - left - right;
  const double vmin = 0.001, vmax = std::max(1.0, r.relist.threshold_seconds * 1.5);
  auto x = [&](double v) {
    v = std::clamp(v, vmin, vmax);
    return left + pw * (std::log10(v) - std::log10(vmin)) / (std::log10(vmax) - std::log10(vmin));
  };
  std::ostringstream s;
  s << "<svg id=\"kubelet-chart\" viewBox=\"0 0 " << W << " " << H << "\" width=\"100%\" role=\"img\">";
  const double band = (H - top - bottom) / 2;
  for (int i = 0; i < 2; ++i) {
    const double y0 = top + band * i;
    s << "<text x=\"4\" y=\"" << y0 + band / 2 << "\" font-size=\"12\">" << groups[i].label << "</text>";
    const std::optional<double> values[] = {groups[i].agent, groups[i].kubelet};
    const char* colors[] = {"#2b63c6", "#e08a00"};
    const char* series[] = {"agent", "kubelet"};
    for (int j = 0; j < 2; ++j) {
      const double y = y0 + 8 + j * (band / 2 - 4);
      if (!values[j]) {
        s << "<text x=\"" << left + 4 << "\" y=\"" << y + 12 << "\" font-size=\"11\" fill=\"#777\">" << series[j]
          << ": n/a</text>";
        continue;
      }
      s << "<rect class=\"" << series[j] << "\" x=\"" << left << "\" y=\"" << y << "\" width=\""
        << std::max(1.0, x(*values[j]) - left) << "\" height=\"" << band / 2 - 10 << "\" fill=\"" << colors[j]
        << "\"><title>" << series[j] << " " << groups[i].label << " " << text::elapsed(*values[j])
        << "</title></rect><text x=\"" << x(*values[j]) + 4 << "\" y=\"" << y + 12 << "\" font-size=\"11\">"
        << series[j] << " " << text::elapsed(*values[j]) << "</text>";
    }
  }
  const double tx = x(r.relist.threshold_seconds);
  s << "<line x1=\"" << tx << "\" x2=\"" << tx << "\" y1=\"" << top << "\" y2=\"" << H - bottom
    << "\" stroke=\"#c62828\" stroke-width=\"2\"/><text x=\"" << tx - 4 << "\" y=\"" << H - 10
    << "\" font-size=\"11\" text-anchor=\"end\">threshold " << text::elapsed(r.relist.threshold_seconds)
    << "</text></svg>";
  return s.str();
}

std::string beside_html(const Report& r) {
  std::ostringstream h;
  h << "<div class=\"two\"><div>";
  report::kubelet_section().html(r, 0, h);
  h << "</div><div>";
  report::runtime_metrics_section().html(r, 0, h);
  h << "</div></div>\n";
  return h.str();
}

}  // namespace plegscope
