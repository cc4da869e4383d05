#pragma once
// What the kubelet and the runtime say that deserves a mark on the /diagnose
// timeline: a short table of named patterns kept as data (as
// node-problem-detector keeps config/kernel-monitor.json) and a pure
// classifier over one journal entry's fields. No I/O here; the follower
// (journal_follower.h) feeds it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plegscope {

enum class MarkKind {
  kPlegNotHealthy,        // "PLEG is not healthy: pleg was last seen active 3m5s ago; ..."
  kSkippingPodSync,       // "Skipping pod synchronization" for another reason (runtime down, ...)
  kErrorSyncingPod,       // pod_workers: "Error syncing pod, skipping"
  kRelistError,           // "GenericPLEG: Unable to retrieve pods"
  kCriDeadlineExceeded,   // a CRI call that ran out of time
  kCriError,              // any other "rpc error: code = ..."
  kKubeletStarted,        // the kubelet's first line: "Kubelet version"
  kRuntimeStarted,        // containerd's "containerd successfully booted in ..."
  kNriPluginClosed,       // containerd's NRI: "closing plugin 10-stall, failed to handle ... request"
  kUnitStarted,           // systemd: "Started kubelet.service - ..."
  kUnitStopping,          // systemd: "Stopping kubelet.service - ..."
  kUnitStopped,           // systemd: "Stopped kubelet.service - ..."
  kUnitFailed,            // systemd: main process exited badly, failed result, failed start
  kUnitRestartScheduled,  // systemd: "Scheduled restart job, restart counter is at N."
};

// The id used in JSON and text ("pleg_not_healthy", ...); stable, part of
// the /diagnose contract.
std::string_view mark_kind_name(MarkKind kind);

// One mark: bounded (the message is cut), valid UTF-8 (safe for JSON).
struct JournalMark {
  int64_t realtime_usec = 0;  // the entry's __REALTIME_TIMESTAMP
  std::string unit;           // the unit the line is about: kubelet.service, containerd.service
  MarkKind kind = MarkKind::kCriError;
  std::string message;       // the MESSAGE field, cut to a bound, invalid bytes replaced
  bool message_cut = false;  // true when the message was longer than the bound
};

// Who wrote the line, as far as the patterns care.
enum class MarkSource {
  kKubelet,  // _SYSTEMD_UNIT is the kubelet's unit
  kRuntime,  // _SYSTEMD_UNIT is one of the runtime's units
  kManager,  // systemd itself (_PID=1, _SYSTEMD_UNIT=init.scope) about a unit named in UNIT=
};

// One named pattern. Manager lines are recognised by their catalog
// MESSAGE_ID when the entry carries one (the wording changed across systemd
// versions: "Started kubelet: The Kubernetes Node Agent." before 250,
// "Started kubelet.service - kubelet: The Kubernetes Node Agent." since);
// the text is the fallback and, for the units' own lines, the only test.
struct MarkPattern {
  MarkKind kind;
  MarkSource source;
  std::string_view message_ids;  // comma-separated sd-messages.h ids, "" for none
  std::string_view text;         // substring of MESSAGE (a prefix when at_start)
  bool at_start = false;
};

// The table, in priority order: the first pattern that matches names the
// mark, so the specific ("PLEG is not healthy" inside "Skipping pod
// synchronization") comes before the general.
const std::vector<MarkPattern>& mark_patterns();

// Fields of one entry the classifier reads; views valid during the call.
struct EntryFields {
  std::string_view message;
  std::string_view systemd_unit;  // _SYSTEMD_UNIT (trusted: the writer's cgroup)
  std::string_view unit;          // UNIT (set by PID 1 on its lines about a unit)
  std::string_view message_id;    // MESSAGE_ID, 32 hex digits
  std::string_view pid;           // _PID
};

// Which units are the kubelet's and the runtime's (overridable by flags).
struct UnitRoles {
  std::string kubelet_unit = "kubelet.service";
  std::vector<std::string> runtime_units = {"containerd.service", "crio.service", "docker.service"};
};

struct Classified {
  MarkKind kind;
  std::string_view unit;  // a view into the entry's fields
};

// nullopt for a line that is no mark (most lines), or from a unit that is
// neither the kubelet nor the runtime.
std::optional<Classified> classify_entry(
    const EntryFields& entry, const UnitRoles& roles,
    const std::vector<MarkPattern>& patterns = mark_patterns());

// The message as a mark keeps it: at most max_bytes of valid UTF-8, invalid
// bytes and control characters other than tab replaced by U+FFFD, cut on a
// character boundary with "…" appended when longer (the "…" counts in the
// bound). *cut says whether anything was dropped.
std::string printable_message(std::string_view raw, size_t max_bytes, bool* cut);

}  // namespace plegscope
