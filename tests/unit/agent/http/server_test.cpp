// The civetweb server's dispatch, query parsing and web-config checks, on
// requests built by hand (no sockets).
#include "http/server.h"

#include <gtest/gtest.h>

#include "http/web/bcrypt_hashes.h"

namespace plegscope {
namespace {

using testing::kSecretHash;

TEST(HttpDispatch, UnknownPathIs404WrongMethodIs405) {
  HttpServer server;
  server.route("/metrics", [](const HttpRequest&) { return HttpResponse::text(200, "m"); });
  EXPECT_EQ(server.dispatch({"GET", "/metrics", {}}).status, 200);
  EXPECT_EQ(server.dispatch({"HEAD", "/metrics", {}}).status, 200);
  EXPECT_EQ(server.dispatch({"POST", "/metrics", {}}).status, 405);
  EXPECT_EQ(server.dispatch({"GET", "/nope", {}}).status, 404);
}

TEST(HttpDispatch, HandlerExceptionIs500NotACrash) {
  HttpServer server;
  server.route("/boom", [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("x"); });
  EXPECT_EQ(server.dispatch({"GET", "/boom", {}}).status, 500);
}

TEST(ParseQuery, DecodesPairs) {
  auto q = parse_query("format=text&x=a%20b&flag");
  EXPECT_EQ(q["format"], "text");
  EXPECT_EQ(q["x"], "a b");
  EXPECT_EQ(q.count("flag"), 1u);
  EXPECT_TRUE(parse_query("").empty());
}

TEST(HttpServerAuth, UnauthorizedAnswersCarryChallengeAndConfiguredHeaders) {
  HttpServer server;
  server.route("/metrics", [](const HttpRequest&) { return HttpResponse::text(200, "m"); });
  WebConfig web;
  web.basic_auth_users = {{"alice", kSecretHash}};
  web.headers = {{"X-Content-Type-Options", "nosniff"}};
  ASSERT_EQ(server.start("127.0.0.1:0", web), "");
  auto has = [](const HttpResponse& r, const std::string& name) {
    for (const auto& h : r.headers)
      if (h.first == name) return true;
    return false;
  };
  HttpResponse denied = server.handle({"GET", "/metrics", {}}, nullptr);
  EXPECT_EQ(denied.status, 401);
  EXPECT_TRUE(has(denied, "WWW-Authenticate"));
  EXPECT_TRUE(has(denied, "X-Content-Type-Options"));
  EXPECT_EQ(server.handle({"GET", "/nope", {}}, nullptr).status, 401);  // no path listing without credentials
  HttpResponse ok = server.handle({"GET", "/metrics", {}}, basic_authorization("alice", "secret").c_str());
  EXPECT_EQ(ok.status, 200);
  EXPECT_TRUE(has(ok, "X-Content-Type-Options"));
  EXPECT_FALSE(has(ok, "WWW-Authenticate"));
  server.stop();
}

}  // namespace
}  // namespace plegscope
