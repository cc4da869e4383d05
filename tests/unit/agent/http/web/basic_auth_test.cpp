// HTTP basic authentication against bcrypt hashes.
#include "http/web/basic_auth.h"

#include <gtest/gtest.h>

#include "fake_clock.h"
#include "http/web/bcrypt_hashes.h"

namespace plegscope {
namespace {

using testing::kOtherHash;
using testing::kSecretHash;

TEST(Bcrypt, RecognisesAndChecksHashes) {
  EXPECT_TRUE(is_bcrypt_hash(kSecretHash));
  EXPECT_TRUE(is_bcrypt_hash(kOtherHash));
  EXPECT_FALSE(is_bcrypt_hash("secret"));
  EXPECT_FALSE(is_bcrypt_hash(kSecretHash.substr(0, 59)));
  EXPECT_FALSE(is_bcrypt_hash("$2b$99" + kSecretHash.substr(6)));  // cost out of range
  EXPECT_TRUE(bcrypt_matches("secret", kSecretHash));
  EXPECT_FALSE(bcrypt_matches("Secret", kSecretHash));
  EXPECT_FALSE(bcrypt_matches("", kSecretHash));
  EXPECT_FALSE(bcrypt_matches(std::string("secret\0x", 8), kSecretHash));
}

TEST(BasicAuthorization, ParsesTheHeader) {
  auto c = parse_basic_authorization(basic_authorization("alice", "pa:ss word"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->user, "alice");
  EXPECT_EQ(c->password, "pa:ss word");
  EXPECT_EQ(basic_authorization("a", "b"), "Basic YTpi");
  EXPECT_TRUE(parse_basic_authorization("basic YTpi"));
  EXPECT_EQ(parse_basic_authorization("Basic YWxpY2U6")->password, "");  // "alice:"
  for (const char* bad : {"", "Basic", "Basic ", "Bearer YTpi", "Basic YTpi!", "Basic YWxpY2U=", "Basic ====",
                          "Basic YTp"})
    EXPECT_FALSE(parse_basic_authorization(bad)) << bad;
}

TEST(BasicAuthenticator, ChecksUsersAndCachesOnlySuccessBriefly) {
  testing::FakeClock clock;
  BasicAuthenticator auth({{"alice", kSecretHash}, {"bob", kOtherHash}}, clock, std::chrono::seconds(60), 2);
  EXPECT_TRUE(auth.enabled());
  EXPECT_FALSE(auth.allows(nullptr));
  EXPECT_FALSE(auth.allows("Basic garbage"));
  EXPECT_TRUE(auth.allows(basic_authorization("alice", "secret").c_str()));
  EXPECT_TRUE(auth.allows(basic_authorization("alice", "secret").c_str()));  // cached
  EXPECT_FALSE(auth.allows(basic_authorization("alice", "other").c_str()));  // bob's password
  EXPECT_FALSE(auth.allows(basic_authorization("carol", "secret").c_str()));  // unknown user, known password
  EXPECT_TRUE(auth.allows(basic_authorization("bob", "other").c_str()));
  EXPECT_FALSE(auth.allows(basic_authorization("bob", "secret").c_str()));
  clock.step(std::chrono::minutes(5));
  EXPECT_TRUE(auth.allows(basic_authorization("alice", "secret").c_str()));  // expired, checked again
  BasicAuthenticator none({}, clock);
  EXPECT_FALSE(none.enabled());
  EXPECT_TRUE(none.allows(nullptr));
}

}  // namespace
}  // namespace plegscope
