#include "journal/journal_reader.h"

#include <systemd/sd-journal.h>
#include <time.h>

#include <cerrno>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string_view>

#include "journal/journal_follower.h"

namespace plegscope {

namespace {

// The value of FIELD=value as sd_journal_get_data returns it, "" when the
// entry lacks the field (or it cannot be read: a corrupt or compressed
// object the library rejects is no reason to lose the entry).
std::string_view field(sd_journal* j, const char* name, size_t name_len) {
  const void* data = nullptr;
  size_t length = 0;
  if (sd_journal_get_data(j, name, &data, &length) < 0 || length <= name_len) return {};
  return std::string_view(static_cast<const char*>(data) + name_len + 1, length - name_len - 1);
}

#define JOURNAL_FIELD(j, name) field(j, name, sizeof(name) - 1)

std::string errno_text(int negative_errno) { return std::strerror(-negative_errno); }

// sd-messages.h SD_MESSAGE_JOURNAL_MISSED: journald's "Missed N kernel
// messages" when /dev/kmsg's records outran it.
constexpr const char* kJournalMissedMessageId = "e9bf28e6e834481bb6f48f548ad13606";

// journalctl -u's matches, per unit: the unit's own lines
// (_SYSTEMD_UNIT=u), or systemd's lines about it (_PID=1 and UNIT=u: PID 1
// logs "Started"/"Stopping"/"Stopped" from init.scope with UNIT= naming the
// unit). Same-field matches are ORed, different fields ANDed, terms split
// by a disjunction.
int add_unit_matches(sd_journal* j, const UnitRoles& roles, bool kernel) {
  std::vector<std::string> units;
  if (!roles.kubelet_unit.empty()) units.push_back(roles.kubelet_unit);
  for (const std::string& u : roles.runtime_units) {
    if (!u.empty()) units.push_back(u);
  }
  int r = 0;
  for (const std::string& u : units) {
    const std::string m = "_SYSTEMD_UNIT=" + u;
    if ((r = sd_journal_add_match(j, m.data(), m.size())) < 0) return r;
  }
  if ((r = sd_journal_add_disjunction(j)) < 0) return r;
  if ((r = sd_journal_add_match(j, "_PID=1", 0)) < 0) return r;
  for (const std::string& u : units) {
    const std::string m = "UNIT=" + u;
    if ((r = sd_journal_add_match(j, m.data(), m.size())) < 0) return r;
  }
  // The kernel's lines, for its hung-task reports: journalctl -k's match;
  // and journald's own word that it missed some of them.
  if (kernel) {
    if ((r = sd_journal_add_disjunction(j)) < 0) return r;
    if ((r = sd_journal_add_match(j, "_TRANSPORT=kernel", 0)) < 0) return r;
    if ((r = sd_journal_add_disjunction(j)) < 0) return r;
    const std::string missed = std::string("MESSAGE_ID=") + kJournalMissedMessageId;
    if ((r = sd_journal_add_match(j, missed.data(), missed.size())) < 0) return r;
  }
  return 0;
}

}  // namespace

namespace {
host::HungTaskAssemblerOptions hung_task_options(const JournalFollowerOptions& o) {
  host::HungTaskAssemblerOptions h;
  h.max_reports = std::max<size_t>(1, o.max_hung_tasks);
  return h;
}
}  // namespace

JournalReader::JournalReader(const JournalFollowerOptions& options)
    : options_(options), hung_tasks_(hung_task_options(options)) {}

JournalReader::~JournalReader() { close(); }

void JournalReader::close() {
  if (journal_ != nullptr) sd_journal_close(journal_);
  journal_ = nullptr;
  fd_ = -1;
}

std::string JournalReader::open(const std::string& dir, int64_t since_usec) {
  close();
  sd_journal* j = nullptr;
  int r = sd_journal_open_directory(&j, dir.c_str(), 0);
  if (r < 0) return "cannot open the journal at " + dir + ": " + errno_text(r);
  // The inotify watches are set up by the first sd_journal_get_fd: asked for
  // at once, so no file created between open and the first wait is missed.
  const int fd = sd_journal_get_fd(j);
  if (fd < 0) {
    sd_journal_close(j);
    return "cannot watch the journal at " + dir + ": " + errno_text(fd);
  }
  sd_journal_set_data_threshold(j, options_.max_field_bytes);
  if ((r = add_unit_matches(j, options_.units, options_.kernel)) < 0) {
    sd_journal_close(j);
    return "cannot match the units in the journal at " + dir + ": " + errno_text(r);
  }
  bool resumed = false;
  if (!cursor_.empty() && sd_journal_seek_cursor(j, cursor_.c_str()) >= 0) {
    // seek_cursor lands on the entry itself when it still exists: skip it.
    if (sd_journal_next(j) > 0 && sd_journal_test_cursor(j, cursor_.c_str()) <= 0) {
      sd_journal_previous(j);
    }
    resumed = true;
  }
  if (!resumed) sd_journal_seek_realtime_usec(j, since_usec > 0 ? since_usec : 0);
  journal_ = j;
  fd_ = fd;
  return "";
}

JournalReader::ReadResult JournalReader::read(size_t max_entries,
                                              const std::function<void(JournalMark&&)>& on_mark) {
  ReadResult result;
  if (journal_ == nullptr) return result;
  while (result.entries < max_entries) {
    const int r = sd_journal_next(journal_);
    if (r == 0) break;
    if (r < 0) {
      result.error = r;
      break;
    }
    ++result.entries;
    // sd_journal_get_data's pointer may be reused by the next call (a
    // compressed field is decompressed into one shared buffer), so the small
    // fields are copied and MESSAGE, read last, is used before any other
    // call on the handle.
    const std::string systemd_unit(JOURNAL_FIELD(journal_, "_SYSTEMD_UNIT"));
    const std::string unit(JOURNAL_FIELD(journal_, "UNIT"));
    const std::string message_id(JOURNAL_FIELD(journal_, "MESSAGE_ID"));
    const std::string pid(JOURNAL_FIELD(journal_, "_PID"));
    if (options_.kernel && (JOURNAL_FIELD(journal_, "_TRANSPORT") == "kernel" || message_id == kJournalMissedMessageId)) {
      // Fields are read one at a time: the transport's view is used up
      // before MESSAGE is read into the shared buffer.
      ++kernel_lines_;
      uint64_t usec = 0;
      if (sd_journal_get_realtime_usec(journal_, &usec) < 0) usec = 0;
      hung_tasks_.feed(JOURNAL_FIELD(journal_, "MESSAGE"), int64_t(usec));
      continue;
    }
    EntryFields entry{JOURNAL_FIELD(journal_, "MESSAGE"), systemd_unit, unit, message_id, pid};
    const std::optional<Classified> c = classify_entry(entry, options_.units);
    if (!c) continue;
    JournalMark mark;
    mark.kind = c->kind;
    mark.unit = std::string(c->unit);
    mark.message = printable_message(entry.message, options_.max_message_bytes, &mark.message_cut);
    uint64_t usec = 0;
    if (sd_journal_get_realtime_usec(journal_, &usec) >= 0) mark.realtime_usec = int64_t(usec);
    on_mark(std::move(mark));
  }
  if (result.entries > 0) {
    char* cursor = nullptr;
    if (sd_journal_get_cursor(journal_, &cursor) >= 0) {
      cursor_ = cursor;
      free(cursor);
    }
  }
  return result;
}

uint64_t JournalReader::wait_limit_usec() const {
  uint64_t deadline = UINT64_MAX;  // absolute, on CLOCK_MONOTONIC
  if (journal_ == nullptr || sd_journal_get_timeout(journal_, &deadline) < 0 ||
      deadline == UINT64_MAX) {
    return UINT64_MAX;
  }
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const uint64_t now = uint64_t(ts.tv_sec) * 1000000 + uint64_t(ts.tv_nsec) / 1000;
  return deadline > now ? deadline - now : 0;
}

void JournalReader::process() {
  if (journal_ != nullptr) sd_journal_process(journal_);
}

}  // namespace plegscope
