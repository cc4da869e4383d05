#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "scrape/http_client.h"
#include "scrape/scrape_get.h"

namespace plegscope {
namespace {

TEST(ScrapeBuffer, KeepsTheLargestStorageAndHandsItOutOnce) {
  ScrapeBuffer buffer;
  EXPECT_EQ(buffer.take().capacity(), std::string().capacity());
  std::string page(1 << 20, 'x');
  const char* storage = page.data();
  buffer.give_back(std::move(page));
  std::string taken = buffer.take();
  EXPECT_EQ(taken.data(), storage);
  // Taken: a second scrape at the same time gets fresh storage.
  EXPECT_EQ(buffer.take().capacity(), std::string().capacity());
  buffer.give_back(std::move(taken));
  buffer.give_back(std::string(10, 'y'));  // a smaller page does not replace it
  EXPECT_EQ(buffer.take().data(), storage);
}

TEST(ScrapeBuffer, TheRequestEmptiesTheStorageItWasGiven) {
  // No server is asked: the URL is refused before any transfer, and the
  // storage comes back empty with its capacity.
  std::string storage(1 << 20, 'x');
  const char* data = storage.data();
  HttpResult result = http_get("ftp://example.invalid/", HttpRequestOptions{}, std::move(storage));
  EXPECT_EQ(result.error, HttpError::bad_url);
  EXPECT_TRUE(result.body.empty());
  EXPECT_EQ(result.body.data(), data);
  EXPECT_GE(result.body.capacity(), 1u << 20);
}

}  // namespace
}  // namespace plegscope
