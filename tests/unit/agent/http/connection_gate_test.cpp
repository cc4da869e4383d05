// The gate in front of civetweb: when a connection's head counts as arrived,
// and, on loopback sockets, that clients which never finish their request
// neither reach a worker nor stop others from being answered.
#include "http/connection_gate.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <dirent.h>
#include <fstream>
#include <thread>
#include <string>
#include <vector>

#include "http/server.h"

namespace plegscope {
namespace {

TEST(HeadComplete, PlainHttpWaitsForTheBlankLine) {
  EXPECT_FALSE(head_complete("", false, 16384));
  EXPECT_FALSE(head_complete("GET /metrics HTTP/1.1\r\nHost: x\r\n", false, 16384));
  EXPECT_TRUE(head_complete("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", false, 16384));
  EXPECT_TRUE(head_complete("GET / HTTP/1.0\n\n", false, 16384));
}

TEST(HeadComplete, WhatCivetwebRefusesAtOnceIsHandedOver) {
  EXPECT_TRUE(head_complete(std::string("\x16\x03\x01 hello"), false, 16384));  // a TLS hello on the plain port
  EXPECT_TRUE(head_complete(std::string(100, 'a'), false, 100));               // as much as a head may be
  EXPECT_FALSE(head_complete(std::string(99, 'a'), false, 100));
}

TEST(HeadComplete, TlsWaitsForTheWholeFirstRecord) {
  const std::string header("\x16\x03\x01\x00\x04", 5);
  EXPECT_FALSE(head_complete(header.substr(0, 3), true, 16384));
  EXPECT_FALSE(head_complete(header + "abc", true, 16384));
  EXPECT_TRUE(head_complete(header + "abcd", true, 16384));
  EXPECT_TRUE(head_complete("GET / HTTP/1.1", true, 16384));  // not a handshake: civetweb refuses it
}

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Everything the server sends until it closes, or until `timeout_ms` passes.
std::string read_all(int fd, int timeout_ms) {
  std::string out;
  char buffer[4096];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, timeout_ms) > 0) {
    ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

std::string get(int port, const std::string& path) {
  int fd = connect_to(port);
  if (fd < 0) return "";
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string answer = read_all(fd, 5000);
  ::close(fd);
  return answer;
}

TEST(ConnectionGate, UnfinishedRequestsHoldNoWorkerAndAreCutOff) {
  HttpServer server;
  std::atomic<int> answered{0};
  const std::string page(200000, 'm');  // more than a socket buffer: relayed in pieces
  server.route("/metrics", [&](const HttpRequest&) {
    ++answered;
    return HttpResponse::text(200, page);
  });
  HttpLimits limits;
  limits.worker_threads = 1;
  limits.request_timeout_ms = 300;
  limits.defer_accept_seconds = 0;  // the silent clients below reach the gate at once
  ASSERT_EQ(server.start("127.0.0.1:0", {}, limits), "");
  ASSERT_GT(server.port(), 0);

  std::vector<int> stalled;
  for (int i = 0; i < 20; ++i) {
    int fd = connect_to(server.port());
    ASSERT_GE(fd, 0);
    if (i % 2 == 0) ::send(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n", 32, MSG_NOSIGNAL);  // never finished
    stalled.push_back(fd);
  }
  // One worker, twenty clients ahead of this one that never finish.
  std::string answer = get(server.port(), "/metrics");
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer.substr(0, 80);
  EXPECT_NE(answer.find(page), std::string::npos) << "answer of " << answer.size() << " bytes";
  EXPECT_EQ(answered.load(), 1);
  for (int fd : stalled) {
    EXPECT_EQ(read_all(fd, 3000), "") << "a client that never finished its request got an answer";
    ::close(fd);
  }
  EXPECT_EQ(answered.load(), 1);
  EXPECT_EQ(get(server.port(), "/nope").rfind("HTTP/1.1 404", 0), 0u);
  server.stop();
  EXPECT_EQ(server.port(), 0);
}

TEST(ConnectionGate, AClientThatReadsLateGetsTheWholeAnswerAndHoldsNoWorker) {
  HttpServer server;
  std::string page(3 << 20, ' ');  // far more than the sockets between hold: most waits in the gate
  for (size_t i = 0; i < page.size(); ++i) page[i] = static_cast<char>('a' + (i * 7919) % 26);
  server.route("/metrics", [&](const HttpRequest&) { return HttpResponse::text(200, page); });
  HttpLimits limits;
  limits.worker_threads = 1;
  limits.request_timeout_ms = 5000;
  ASSERT_EQ(server.start("127.0.0.1:0", {}, limits), "");

  int late = connect_to(server.port());
  ASSERT_GE(late, 0);
  int window = 65536;  // a fixed window: the kernel does not grow this client's buffer to hold the page
  ::setsockopt(late, SOL_SOCKET, SO_RCVBUF, &window, sizeof(window));
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  ::send(late, request.data(), request.size(), MSG_NOSIGNAL);
  // While that client reads nothing, the one worker is already free for the next.
  std::string other = get(server.port(), "/metrics");
  EXPECT_EQ(other.rfind("HTTP/1.1 200", 0), 0u) << other.substr(0, 80);
  EXPECT_NE(other.find(page), std::string::npos) << "answer of " << other.size() << " bytes";

  std::string answer = read_all(late, 5000);
  ::close(late);
  const size_t body = answer.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos) << answer.substr(0, 80);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer.substr(0, 80);
  EXPECT_EQ(answer.size() - body - 4, other.size() - other.find("\r\n\r\n") - 4);
  EXPECT_TRUE(answer.compare(body + 4, page.size(), page) == 0) << "the late client's answer differs";
  server.stop();
}

// Voluntary context switches of this process's thread named `name`; -1 when none is.
long switches_of_thread(const std::string& name) {
  DIR* dir = ::opendir("/proc/self/task");
  if (!dir) return -1;
  long found = -1;
  while (dirent* entry = ::readdir(dir)) {
    std::string task = std::string("/proc/self/task/") + entry->d_name;
    std::ifstream comm(task + "/comm");
    std::string thread_name;
    if (!std::getline(comm, thread_name) || thread_name != name) continue;
    std::ifstream status(task + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) found = std::stol(line.substr(24));
    }
  }
  ::closedir(dir);
  return found;
}

TEST(ConnectionGate, AnIdleGateSleepsUntilAClientComes) {
  HttpServer server;
  server.route("/metrics", [](const HttpRequest&) { return HttpResponse::text(200, "m 1\n"); });
  ASSERT_EQ(server.start("127.0.0.1:0", {}), "");
  EXPECT_EQ(get(server.port(), "/metrics").rfind("HTTP/1.1 200", 0), 0u);
  // The answered connection is closed and swept within a sweep period or two.
  long before = -1;
  for (int i = 0; i < 50 && before < 0; ++i) before = switches_of_thread("http-gate");
  ASSERT_GE(before, 0) << "no thread named http-gate";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  before = switches_of_thread("http-gate");
  // An interval that would hold ten sweeps of a gate that woke on a timer.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_LE(switches_of_thread("http-gate") - before, 1);
  EXPECT_EQ(get(server.port(), "/metrics").rfind("HTTP/1.1 200", 0), 0u);  // and it still answers
  server.stop();
}

TEST(ConnectionGate, BadAddressIsAOneLineError) {
  HttpServer server;
  EXPECT_EQ(server.start("nonsense", {}).rfind("cannot listen on nonsense", 0), 0u);
  HttpServer taken;
  ASSERT_EQ(taken.start("127.0.0.1:0", {}), "");
  HttpServer second;
  std::string error = second.start("127.0.0.1:" + std::to_string(taken.port()), {});
  EXPECT_EQ(error.rfind("cannot listen on 127.0.0.1:", 0), 0u) << error;
  EXPECT_EQ(second.port(), 0);
}

}  // namespace
}  // namespace plegscope
