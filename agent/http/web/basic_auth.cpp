#include "http/web/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cctype>
#include <cstring>

namespace plegscope {
namespace {

std::string sha256(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(digest), length);
}

std::optional<std::string> base64_decode(const std::string& text) {
  if (text.empty() || text.size() % 4 != 0) return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as decoded zero bytes.
  size_t padding = text.size() - text.find_last_not_of('=') - 1;
  if (padding > 2) return std::nullopt;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

}  // namespace

bool is_bcrypt_hash(const std::string& hash) {
  if (hash.size() != 60) return false;
  if (hash.rfind("$2a$", 0) != 0 && hash.rfind("$2b$", 0) != 0 && hash.rfind("$2y$", 0) != 0) return false;
  // libxcrypt's salt check does not look at the cost, which bcrypt allows from 4 to 31.
  if (!std::isdigit(static_cast<unsigned char>(hash[4])) || !std::isdigit(static_cast<unsigned char>(hash[5])) ||
      hash[6] != '$')
    return false;
  int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
  if (cost < 4 || cost > 31) return false;
  return crypt_checksalt(hash.c_str()) == CRYPT_SALT_OK;
}

bool bcrypt_matches(const std::string& password, const std::string& hash) {
  auto data = std::make_unique<crypt_data>();  // ~32 KiB: not on a worker's stack
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* result = crypt_rn(password.c_str(), hash.c_str(), data.get(), sizeof(crypt_data));
  if (result == nullptr || password.find('\0') != std::string::npos) return false;
  size_t length = std::strlen(result);
  return length == hash.size() && CRYPTO_memcmp(result, hash.data(), length) == 0;
}

std::optional<BasicCredentials> parse_basic_authorization(const std::string& header) {
  const std::string scheme = "basic ";
  if (header.size() <= scheme.size()) return std::nullopt;
  for (size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != scheme[i]) return std::nullopt;
  size_t start = header.find_first_not_of(' ', scheme.size());
  if (start == std::string::npos) return std::nullopt;
  size_t end = header.find_last_not_of(' ');
  auto decoded = base64_decode(header.substr(start, end - start + 1));
  if (!decoded) return std::nullopt;
  auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return BasicCredentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

std::string basic_authorization(const std::string& user, const std::string& password) {
  std::string plain = user + ":" + password;
  std::string encoded((plain.size() + 2) / 3 * 4 + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                          reinterpret_cast<const unsigned char*>(plain.data()), static_cast<int>(plain.size()));
  encoded.resize(static_cast<size_t>(n));
  return "Basic " + encoded;
}

BasicAuthenticator::BasicAuthenticator(std::map<std::string, std::string> users, const Clock& clock,
                                       Duration cache_ttl, size_t cache_capacity)
    : users_(std::move(users)), clock_(clock), ttl_(cache_ttl), capacity_(cache_capacity) {}

bool BasicAuthenticator::allows(const char* authorization) const {
  if (!enabled()) return true;
  if (authorization == nullptr) return false;
  auto credentials = parse_basic_authorization(authorization);
  if (!credentials) return false;
  auto user = users_.find(credentials->user);
  // An unknown user costs the same bcrypt as a known one, so timing does not
  // tell which user names exist.
  const std::string& hash = user != users_.end() ? user->second : users_.begin()->second;
  std::string key = sha256(credentials->user + '\0' + credentials->password + '\0' + hash);
  if (user != users_.end() && cached(key)) return true;
  bool ok = bcrypt_matches(credentials->password, hash) && user != users_.end();
  if (ok) remember(key);
  return ok;
}

bool BasicAuthenticator::cached(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = verified_.find(key);
  if (it == verified_.end()) return false;
  if (clock_.monotonic() < it->second) return true;
  verified_.erase(it);
  return false;
}

void BasicAuthenticator::remember(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  const MonoTime now = clock_.monotonic();
  if (verified_.size() >= capacity_) {
    for (auto it = verified_.begin(); it != verified_.end();)
      it = it->second <= now ? verified_.erase(it) : std::next(it);
    if (verified_.size() >= capacity_) verified_.clear();
  }
  verified_[key] = now + ttl_;
}

}  // namespace plegscope
