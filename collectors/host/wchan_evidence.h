#pragma once
// Why a task's wait channel is not a kernel function, as the host scan hands
// it over: told apart by host/wchan_access.h from the two processes'
// credentials.

namespace plegscope::host {

enum class WchanHidden {
  kNo,                   // the wchan was read
  kMissingCapabilities,  // the target holds capabilities the reader lacks, and no CAP_SYS_PTRACE
  kOtherUser,            // another uid, and no CAP_SYS_PTRACE
  kDenied,               // credentials allow it: an LSM or a non-dumpable target denies it
  kUnknownCredentials,   // reads "0", and either side's status could not be read
  kUnreadable,           // the wchan file itself could not be read
};

// The snake_case id the report carries ("" for kNo).
constexpr const char* wchan_hidden_name(WchanHidden h) {
  switch (h) {
    case WchanHidden::kNo: return "";
    case WchanHidden::kMissingCapabilities: return "missing_capabilities";
    case WchanHidden::kOtherUser: return "other_user";
    case WchanHidden::kDenied: return "denied";
    case WchanHidden::kUnknownCredentials: return "unknown_credentials";
    case WchanHidden::kUnreadable: return "unreadable";
  }
  return "";
}

}  // namespace plegscope::host
