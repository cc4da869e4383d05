#pragma once
// Why /proc/<pid>/wchan reads "0". The kernel prints a task's wait channel
// only to a reader with ptrace access to it (proc_pid_wchan calls
// ptrace_may_access with PTRACE_MODE_READ_FSCREDS) and prints "0" otherwise,
// the same "0" as a task that is running. For a task in D, "0" therefore
// means "hidden", and the reason follows from the two processes' credentials
// (/proc/<pid>/status), as the kernel decides it:
//   - without CAP_SYS_PTRACE, the reader's fsuid must equal the target's
//     real, effective and saved uid;
//   - and the target's permitted capabilities must be a subset of the
//     reader's effective ones (cap_ptrace_access_check, FSCREDS mode).
// Beyond those, an LSM (AppArmor's ptrace rules) or a target marked
// non-dumpable can still deny: both are invisible in /proc, so a "0" that
// the credentials do not explain is reported as denied otherwise.
// Pure functions over bytes; nothing here touches the filesystem.
#include <cstdint>
#include <optional>
#include <string_view>

#include "host/wchan_evidence.h"

namespace plegscope::host {

struct ProcessCreds {
  int64_t uid_real = 0, uid_effective = 0, uid_saved = 0, uid_fs = 0;
  uint64_t cap_permitted = 0;
  uint64_t cap_effective = 0;
};

// The Uid: and CapPrm:/CapEff: lines of /proc/<pid>/status; nullopt when
// either is missing or malformed.
std::optional<ProcessCreds> parse_status_creds(std::string_view status);

inline constexpr int kCapSysPtrace = 19;

// Why a D task's wchan read `wchan` ("" when the file could not be read).
WchanHidden wchan_hidden(std::string_view wchan, const std::optional<ProcessCreds>& reader,
                         const std::optional<ProcessCreds>& target);

}  // namespace plegscope::host
