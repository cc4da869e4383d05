#include "host/wchan_access.h"

#include <charconv>
#include <string>

namespace plegscope::host {
namespace {

std::string_view field_line(std::string_view text, std::string_view key) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (line.substr(0, key.size()) == key) return line.substr(key.size());
    at = end + 1;
  }
  return {};
}

std::string_view next_token(std::string_view& rest) {
  size_t b = rest.find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(b);
  size_t e = rest.find_first_of(" \t");
  std::string_view token = rest.substr(0, e);
  rest = e == std::string_view::npos ? std::string_view() : rest.substr(e);
  return token;
}

template <typename T>
bool parse_number(std::string_view s, T& out, int base) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::optional<ProcessCreds> parse_status_creds(std::string_view status) {
  ProcessCreds c;
  std::string_view uids = field_line(status, "Uid:");
  int64_t* slots[] = {&c.uid_real, &c.uid_effective, &c.uid_saved, &c.uid_fs};
  for (int64_t* slot : slots)
    if (!parse_number(next_token(uids), *slot, 10)) return std::nullopt;
  std::string_view prm = field_line(status, "CapPrm:"), eff = field_line(status, "CapEff:");
  if (!parse_number(next_token(prm), c.cap_permitted, 16) || !parse_number(next_token(eff), c.cap_effective, 16))
    return std::nullopt;
  return c;
}

WchanHidden wchan_hidden(std::string_view wchan, const std::optional<ProcessCreds>& reader,
                         const std::optional<ProcessCreds>& target) {
  if (wchan.empty()) return WchanHidden::kUnreadable;
  if (wchan != "0") return WchanHidden::kNo;
  if (!reader || !target) return WchanHidden::kUnknownCredentials;
  if (reader->cap_effective & (uint64_t{1} << kCapSysPtrace)) return WchanHidden::kDenied;
  const int64_t fsuid = reader->uid_fs;
  if (target->uid_real != fsuid || target->uid_effective != fsuid || target->uid_saved != fsuid)
    return WchanHidden::kOtherUser;
  if ((target->cap_permitted & ~reader->cap_effective) != 0) return WchanHidden::kMissingCapabilities;
  return WchanHidden::kDenied;
}

}  // namespace plegscope::host
