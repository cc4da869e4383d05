#include "journal/journal_marks.h"

#include <algorithm>

namespace plegscope {

std::string_view mark_kind_name(MarkKind kind) {
  switch (kind) {
    case MarkKind::kPlegNotHealthy:
      return "pleg_not_healthy";
    case MarkKind::kSkippingPodSync:
      return "skipping_pod_sync";
    case MarkKind::kErrorSyncingPod:
      return "error_syncing_pod";
    case MarkKind::kRelistError:
      return "relist_error";
    case MarkKind::kCriDeadlineExceeded:
      return "cri_deadline_exceeded";
    case MarkKind::kCriError:
      return "cri_error";
    case MarkKind::kKubeletStarted:
      return "kubelet_started";
    case MarkKind::kRuntimeStarted:
      return "runtime_started";
    case MarkKind::kNriPluginClosed:
      return "nri_plugin_closed";
    case MarkKind::kUnitStarted:
      return "unit_started";
    case MarkKind::kUnitStopping:
      return "unit_stopping";
    case MarkKind::kUnitStopped:
      return "unit_stopped";
    case MarkKind::kUnitFailed:
      return "unit_failed";
    case MarkKind::kUnitRestartScheduled:
      return "unit_restart_scheduled";
  }
  return "unknown";
}

const std::vector<MarkPattern>& mark_patterns() {
  using K = MarkKind;
  using S = MarkSource;
  // Catalog ids from systemd's sd-messages.h (SD_MESSAGE_UNIT_*).
  static const std::vector<MarkPattern> patterns = {
      // The kubelet (klog lines: E1124 05:00:00.000000 1234 file.go:N] "msg" key=value).
      // runtime_state.go words a failed PLEG health check "PLEG is not healthy: <why>";
      // the sync loop logs it inside "Skipping pod synchronization", the node
      // status inside "container runtime is down, PLEG is not healthy".
      {K::kPlegNotHealthy, S::kKubelet, "", "PLEG is not healthy"},
      {K::kSkippingPodSync, S::kKubelet, "", "Skipping pod synchronization"},
      {K::kRelistError, S::kKubelet, "", "GenericPLEG: Unable to retrieve pods"},
      {K::kErrorSyncingPod, S::kKubelet, "", "Error syncing pod"},
      {K::kCriDeadlineExceeded, S::kKubelet, "", "DeadlineExceeded"},
      {K::kCriDeadlineExceeded, S::kKubelet, "", "context deadline exceeded"},
      {K::kCriError, S::kKubelet, "", "rpc error"},
      {K::kKubeletStarted, S::kKubelet, "", "\"Kubelet version\""},
      // The runtime's own start line (containerd; CRI-O and dockerd are
      // covered by systemd's "Started" line).
      {K::kRuntimeStarted, S::kRuntime, "", "containerd successfully booted in"},
      // containerd 2.x's NRI giving up on a plugin that missed its request
      // timeout (or broke its connection): the line names the plugin and the event.
      {K::kNriPluginClosed, S::kRuntime, "", "closing plugin "},
      // systemd (PID 1) about a unit: job results and unit results.
      {K::kUnitStarted, S::kManager, "39f53479d3a045ac8e11786248231fbf", "Started ", true},
      {K::kUnitStopping, S::kManager, "de5b426a63be47a7b6ac3eaac82e2f6f", "Stopping ", true},
      {K::kUnitStopped, S::kManager, "9d1aaa27d60140bd96365438aad20286", "Stopped ", true},
      {K::kUnitFailed, S::kManager, "be02cf6855d2428ba40df7e9d022f03d", "Failed to start ", true},
      {K::kUnitFailed, S::kManager, "d9b373ed55a64feb8242e02dbe79a49c", "Failed with result"},
      {K::kUnitRestartScheduled, S::kManager, "5eb03494b6584870a536b337290809b3",
       "Scheduled restart job"},
  };
  return patterns;
}

namespace {

bool id_listed(std::string_view ids, std::string_view id) {
  while (!ids.empty()) {
    size_t comma = ids.find(',');
    if (ids.substr(0, comma) == id) return true;
    if (comma == std::string_view::npos) break;
    ids.remove_prefix(comma + 1);
  }
  return false;
}

bool pattern_matches(const MarkPattern& p, const EntryFields& e) {
  // A catalog id, when both sides have one, is the whole test: it does not
  // change with the wording or the language.
  if (!p.message_ids.empty() && !e.message_id.empty())
    return id_listed(p.message_ids, e.message_id);
  if (p.at_start) return e.message.substr(0, p.text.size()) == p.text;
  return e.message.find(p.text) != std::string_view::npos;
}

bool is_one_of(std::string_view unit, const std::vector<std::string>& units) {
  return std::find(units.begin(), units.end(), unit) != units.end();
}

}  // namespace

std::optional<Classified> classify_entry(const EntryFields& entry, const UnitRoles& roles,
                                         const std::vector<MarkPattern>& patterns) {
  MarkSource source;
  std::string_view unit;
  if (entry.pid == "1" && !entry.unit.empty()) {
    source = MarkSource::kManager;
    unit = entry.unit;
    if (unit != roles.kubelet_unit && !is_one_of(unit, roles.runtime_units)) return std::nullopt;
  } else if (!roles.kubelet_unit.empty() && entry.systemd_unit == roles.kubelet_unit) {
    source = MarkSource::kKubelet;
    unit = entry.systemd_unit;
  } else if (is_one_of(entry.systemd_unit, roles.runtime_units)) {
    source = MarkSource::kRuntime;
    unit = entry.systemd_unit;
  } else {
    return std::nullopt;
  }
  for (const MarkPattern& p : patterns) {
    if (p.source == source && pattern_matches(p, entry)) return Classified{p.kind, unit};
  }
  return std::nullopt;
}

namespace {

// Length of the valid UTF-8 sequence at s[i], 0 when invalid (overlongs,
// surrogates and code points past U+10FFFF included).
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  size_t n;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
  }
  if (c == 0xE0 && b(1) < 0xA0) return 0;  // overlong
  if (c == 0xED && b(1) > 0x9F) return 0;  // surrogate
  if (c == 0xF0 && b(1) < 0x90) return 0;  // overlong
  if (c == 0xF4 && b(1) > 0x8F) return 0;  // past U+10FFFF
  return n;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kEllipsis = "\xE2\x80\xA6";     // U+2026

}  // namespace

std::string printable_message(std::string_view raw, size_t max_bytes, bool* cut) {
  std::string out;
  // Room kept for the ellipsis, so a cut message still fits the bound.
  const size_t budget = max_bytes >= kEllipsis.size() ? max_bytes - kEllipsis.size() : 0;
  size_t cut_at = 0;  // the longest prefix, on a character boundary, within budget
  size_t i = 0;
  while (i < raw.size() && out.size() <= max_bytes) {
    size_t n = utf8_sequence_length(raw, i);
    if (n == 0 || (n == 1 && static_cast<unsigned char>(raw[i]) < 0x20 && raw[i] != '\t')) {
      out.append(kReplacement);  // invalid bytes; NUL, newline, escape: one line per mark
      n = 1;
    } else {
      out.append(raw.substr(i, n));
    }
    i += n;
    if (out.size() <= budget) cut_at = out.size();
  }
  const bool dropped = i < raw.size() || out.size() > max_bytes;
  if (dropped) {
    out.resize(cut_at);
    if (max_bytes >= kEllipsis.size()) out.append(kEllipsis);
  }
  if (cut) *cut = dropped;
  return out;
}

}  // namespace plegscope
