#pragma once
// What the journal reader's and follower's tests share: a scratch directory
// for their journal files, one instant their entries count from, and a fake
// clock set to an entry's time.
#include <stdlib.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "fake_clock.h"

namespace plegscope::testing {

// 2026-11-24T05:00:00Z in the journal's unit (microseconds since the epoch).
inline constexpr int64_t kJournalT0 = 1795928400LL * 1000000;
inline int64_t journal_at(std::chrono::seconds offset) { return kJournalT0 + offset.count() * 1000000; }

// Steps `clock` so that its wall time is `usec` (journal microseconds).
inline void set_clock_to(FakeClock& clock, int64_t usec) {
  clock.step(std::chrono::microseconds(usec) - clock.now().time_since_epoch());
}

// A fresh directory under /tmp, removed with everything in it; path() is ""
// when it could not be made.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/plegscope-journal-XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace plegscope::testing
