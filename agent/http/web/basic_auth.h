#pragma once
// HTTP basic authentication against bcrypt hashes (the exporter-toolkit's
// basic_auth_users). bcrypt is libxcrypt's; base64, SHA-256 and the
// constant-time compare are OpenSSL's.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/clock.h"

namespace plegscope {

// "$2a$", "$2b$" or "$2y$" with a cost and salt libxcrypt accepts.
bool is_bcrypt_hash(const std::string& hash);

// True when `password` hashes to `hash` (compared in constant time).
bool bcrypt_matches(const std::string& password, const std::string& hash);

struct BasicCredentials {
  std::string user;
  std::string password;
};
// The value of an Authorization header ("Basic dXNlcjpwYXNz"); nullopt when
// it is not a well-formed basic credential.
std::optional<BasicCredentials> parse_basic_authorization(const std::string& header);
// The Authorization header's value for `user` and `password` (a client's side).
std::string basic_authorization(const std::string& user, const std::string& password);

// Thread-safe. A bcrypt check costs tens of milliseconds at the usual cost
// of 10, so every scrape paying it would make /metrics slow and hand a
// client an easy way to burn CPU: successful checks are remembered for
// `cache_ttl`, keyed by a SHA-256 of user, password and stored hash (so a
// changed password or hash never matches an old entry, and no password is
// kept in memory).
class BasicAuthenticator {
 public:
  BasicAuthenticator(std::map<std::string, std::string> users, const Clock& clock,
                     Duration cache_ttl = std::chrono::seconds(60), size_t cache_capacity = 256);
  bool enabled() const { return !users_.empty(); }
  // `authorization`: the header's value, nullptr when absent.
  bool allows(const char* authorization) const;

 private:
  bool cached(const std::string& key) const;
  void remember(const std::string& key) const;

  std::map<std::string, std::string> users_;
  const Clock& clock_;
  Duration ttl_;
  size_t capacity_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, MonoTime> verified_;  // key -> expiry, monotonic
};

}  // namespace plegscope
