#pragma once
// Writes journal files for the tests and the bench without a running
// journald: entries in the journal export format piped into
// `systemd-journal-remote -o DIR/NAME.journal -` (Debian systemd-journal-remote).
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace plegscope::testing {

using ExportField = std::pair<std::string, std::string>;
using ExportEntry = std::vector<ExportField>;

// "" when the tool is not installed.
inline std::string journal_remote_path() {
  for (const char* p :
       {"/lib/systemd/systemd-journal-remote", "/usr/lib/systemd/systemd-journal-remote"}) {
    struct stat st {};
    if (::stat(p, &st) == 0 && (st.st_mode & S_IXUSR)) return p;
  }
  return "";
}

// Under env CI a missing dependency fails the test instead of skipping it.
inline bool under_ci() {
  const char* ci = std::getenv("CI");
  if (ci == nullptr) return false;
  const std::string v(ci);
  return !(v.empty() || v == "0" || v == "false" || v == "FALSE" || v == "False");
}

// A GoogleTest's first line where it needs the tool (the test includes gtest):
// skipped, or failed under CI, when it is missing.
#define REQUIRE_JOURNAL_REMOTE()                                                           \
  do {                                                                                     \
    if (plegscope::testing::journal_remote_path().empty()) {                               \
      if (plegscope::testing::under_ci()) FAIL() << "systemd-journal-remote is missing";   \
      GTEST_SKIP()                                                                         \
          << "systemd-journal-remote is missing (apt-get install systemd-journal-remote)"; \
    }                                                                                      \
  } while (0)

// Export format: FIELD=value lines, or for a value holding a newline or
// any byte below 0x20 (binary), FIELD\n<64-bit little-endian size><bytes>\n;
// an empty line ends the entry.
inline void append_export_entry(std::string& out, const ExportEntry& entry) {
  for (const auto& [name, value] : entry) {
    bool binary = false;
    for (unsigned char c : value) binary |= (c < 0x20 && c != '\t');
    if (!binary) {
      out += name + "=" + value + "\n";
      continue;
    }
    out += name + "\n";
    uint64_t size = value.size();
    for (int i = 0; i < 8; ++i) out.push_back(char((size >> (8 * i)) & 0xff));
    out += value + "\n";
  }
  out += "\n";
}

// A kubelet-, runtime- or systemd-style entry at realtime_usec. The boot
// id is fixed and the monotonic time grows with the realtime, so entries
// order the same way on both clocks, as one boot's do.
inline ExportEntry unit_entry(int64_t realtime_usec, const std::string& systemd_unit,
                              const std::string& message, const std::string& pid = "1234",
                              std::vector<ExportField> extra = {}) {
  ExportEntry e = {
      {"__REALTIME_TIMESTAMP", std::to_string(realtime_usec)},
      {"__MONOTONIC_TIMESTAMP", std::to_string(realtime_usec - 1'700'000'000'000'000LL)},
      {"_BOOT_ID", "2d3c9c5ba1e44d1f8a4d0c1e7f6a5b40"},
      {"_MACHINE_ID", "6e1b1c2c0a6d4f0f9b3e8a7d5c4b3a21"},
      {"_HOSTNAME", "node-1"},
      {"_PID", pid},
      {"_SYSTEMD_UNIT", systemd_unit},
      {"PRIORITY", "6"},
      {"MESSAGE", message}};
  for (auto& f : extra) e.push_back(std::move(f));
  return e;
}

// PID 1's line about a unit, as systemd 252 logs a job's result: from
// init.scope, UNIT= naming the unit, MESSAGE_ID the catalog id.
inline ExportEntry manager_entry(int64_t realtime_usec, const std::string& unit,
                                 const std::string& message, const std::string& message_id,
                                 const std::string& job_type = "start") {
  return unit_entry(realtime_usec, "init.scope", message, "1",
                    {{"SYSLOG_IDENTIFIER", "systemd"},
                     {"UNIT", unit},
                     {"MESSAGE_ID", message_id},
                     {"JOB_TYPE", job_type},
                     {"JOB_RESULT", "done"},
                     {"CODE_FILE", "src/core/job.c"}});
}

// A kernel line as journald's kernel transport stores it (one printk record
// per entry; no unit, no _PID).
inline ExportEntry kernel_entry(int64_t realtime_usec, const std::string& message) {
  const std::string mono = std::to_string(realtime_usec - 1'700'000'000'000'000LL);
  return {{"__REALTIME_TIMESTAMP", std::to_string(realtime_usec)},
          {"__MONOTONIC_TIMESTAMP", mono},
          {"_BOOT_ID", "2d3c9c5ba1e44d1f8a4d0c1e7f6a5b40"},
          {"_MACHINE_ID", "6e1b1c2c0a6d4f0f9b3e8a7d5c4b3a21"},
          {"_HOSTNAME", "node-1"},
          {"_TRANSPORT", "kernel"},
          {"SYSLOG_IDENTIFIER", "kernel"},
          {"_SOURCE_MONOTONIC_TIMESTAMP", mono},
          {"PRIORITY", "3"},
          {"MESSAGE", message}};
}

// Appends the entries to `file` (created when missing); true on success.
inline bool write_journal(const std::string& file, const std::vector<ExportEntry>& entries) {
  const std::string tool = journal_remote_path();
  if (tool.empty()) return false;
  std::string text;
  for (const ExportEntry& e : entries) append_export_entry(text, e);
  const std::string command = tool + " -o '" + file + "' - 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "w");
  if (pipe == nullptr) return false;
  const bool written = std::fwrite(text.data(), 1, text.size(), pipe) == text.size();
  const int status = ::pclose(pipe);
  return written && status == 0;
}

}  // namespace plegscope::testing
