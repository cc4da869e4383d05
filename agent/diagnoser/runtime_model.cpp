#include "diagnoser/runtime_model.h"

#include <cctype>

namespace plegscope {
namespace {

// CRI-O's shipped unit and its goroutine page since this release.
constexpr RuntimeVersion kCrioWatchdogSince{1, 32, 0};
// containerd's go-cni deadlock: in these releases only.
constexpr RuntimeVersion kGoCniFirst{2, 0, 1};
constexpr RuntimeVersion kGoCniLast{2, 0, 2};

// Reads digits at `at`; false when there are none.
bool read_number(const std::string& s, size_t& at, int& out) {
  size_t start = at;
  long value = 0;
  while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at])) && at - start < 6)
    value = value * 10 + (s[at++] - '0');
  out = static_cast<int>(value);
  return at > start;
}

}  // namespace

std::optional<RuntimeVersion> parse_runtime_version(const std::string& text) {
  size_t at = !text.empty() && (text[0] == 'v' || text[0] == 'V') ? 1 : 0;
  RuntimeVersion v{0, 0, 0};
  if (!read_number(text, at, v[0]) || at >= text.size() || text[at] != '.') return std::nullopt;
  ++at;
  if (!read_number(text, at, v[1])) return std::nullopt;
  if (at < text.size() && text[at] == '.') {
    ++at;
    if (!read_number(text, at, v[2])) v[2] = 0;
  }
  return v;
}

RuntimeModel runtime_model(const std::string& name, const std::string& version, const std::string& endpoint) {
  RuntimeModel m;
  m.family = runtime_family(name, endpoint);
  m.version = parse_runtime_version(version);
  switch (m.family) {
    case RuntimeFamily::kCrio:
      m.lists_wait_on_container_locks = false;
      m.watchdog_restarts = !m.version || *m.version >= kCrioWatchdogSince;
      m.goroutines_page = m.watchdog_restarts;
      break;
    case RuntimeFamily::kContainerd:
      m.go_cni_deadlock_possible = !m.version || (*m.version >= kGoCniFirst && *m.version <= kGoCniLast);
      break;
    case RuntimeFamily::kOther:
      // Neither runtime's chain is ruled out for a runtime the agent does
      // not know: the lists may wait on a container's lock.
      break;
  }
  return m;
}

}  // namespace plegscope
