// The thread-shared pieces under real threads, for ThreadSanitizer. They
// touch no protobuf map: Debian's libprotobuf is not built for TSan, and its
// inline map code crashes under it, so the PLEG tests run under ASan only.
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "common/bounded_channel.h"
#include "common/bounded_history.h"
#include "cri/operation_tracker.h"
#include "http/server.h"

namespace plegscope {
namespace {

TEST(Concurrency, ChannelDeliversEverySentItemOnceAcrossProducers) {
  BoundedChannel<int> channel(64);
  std::atomic<int> sent{0};
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p)
    producers.emplace_back([&] {
      for (int i = 0; i < 1000; ++i)
        if (channel.try_send(i)) sent++;
    });
  std::atomic<bool> done{false};
  int received = 0;
  std::thread consumer([&] {
    while (!done || channel.size() > 0)
      if (channel.receive(std::chrono::milliseconds(5))) received++;
  });
  for (auto& t : producers) t.join();
  done = true;
  consumer.join();
  EXPECT_EQ(received, sent.load());
}

// The agent's event consumer: blocks with no timeout, and close() is what
// ends it, after every queued item was delivered.
TEST(Concurrency, BlockingReceiveDrainsThenEndsOnClose) {
  BoundedChannel<int> channel(4096);
  std::atomic<int> received{0};
  std::thread consumer([&] {
    while (channel.receive()) received++;
  });
  int sent = 0;
  for (int i = 0; i < 3000; ++i) sent += channel.try_send(i);
  channel.close();
  consumer.join();
  EXPECT_EQ(received.load(), sent);
  EXPECT_FALSE(channel.try_send(1)) << "closed";
}

TEST(Concurrency, HistoryKeepsTheLastItems) {
  BoundedHistory<int> history(10);
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        history.add(i);
        history.snapshot();
      }
    });
  for (auto& t : writers) t.join();
  EXPECT_EQ(history.snapshot().size(), 10u);
}

TEST(Concurrency, TrackerCallsScrapesAndCancelsFromManyThreads) {
  SystemClock clock;
  prometheus::Registry registry;
  OperationTracker tracker(registry, clock);
  std::atomic<int> cancelled{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int i = 0; i < 300; ++i) {
        auto id = tracker.begin("list_containers", [&] { cancelled++; });
        tracker.end(id, i % 7 == 0 ? 14 : 0);
      }
    });
  std::thread scraper([&] {
    for (int i = 0; i < 100; ++i) {
      tracker.Collect();
      registry.Collect();
      tracker.all_stats();
      tracker.cancel_all();
    }
  });
  for (auto& t : callers) t.join();
  scraper.join();
  EXPECT_EQ(tracker.stats("list_containers").count, 1200u);
  EXPECT_EQ(tracker.stats("list_containers").in_flight, 0);
}

// A plain HTTP/1.0 GET over a socket; returns the status line.
std::string get_status_line(int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return "";
  }
  std::string request = "GET " + path + " HTTP/1.0\r\n\r\n";
  ::send(fd, request.data(), request.size(), 0);
  std::string response;
  char buf[512];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) response.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return response.substr(0, response.find("\r\n"));
}

TEST(Concurrency, HttpServerAnswersParallelClientsAndStops) {
  HttpServer server;
  std::atomic<int> served{0};
  server.route("/x", [&](const HttpRequest&) {
    served++;
    return HttpResponse::text(200, "ok");
  });
  ASSERT_EQ(server.start("127.0.0.1:0"), "");
  int port = server.port();
  ASSERT_GT(port, 0);
  std::atomic<int> ok{0}, missing{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c)
    clients.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        if (get_status_line(port, "/x") == "HTTP/1.1 200 OK") ok++;
        if (get_status_line(port, "/nope").find(" 404 ") != std::string::npos) missing++;
      }
    });
  for (auto& t : clients) t.join();
  server.stop();
  EXPECT_EQ(ok.load(), 80);
  EXPECT_EQ(missing.load(), 80);
  EXPECT_EQ(served.load(), 80);
}

}  // namespace
}  // namespace plegscope
