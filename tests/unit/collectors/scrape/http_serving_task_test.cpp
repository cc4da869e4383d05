// An HTTP request made on a thread that serves an FdTask (the readers'
// thread serving the journal follower): the task runs while the request
// waits for its answer, from the same wait, and the request stays bounded.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "scrape/http_client.h"
#include "pipe_task.h"

namespace plegscope {
namespace {

using namespace std::chrono_literals;
using testing::PipeTask;

// Accepts one connection, reads the request and answers only once told to
// (or never: the request then meets its own timeout).
class HeldServer {
 public:
  HeldServer() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(listen_fd_, 1), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~HeldServer() {
    release();
    ::shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    ::close(listen_fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/metrics"; }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
  }

 private:
  void serve() {
    const int conn = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) return;
    char buf[4096];
    (void)::read(conn, buf, sizeof(buf));
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return released_; });
    }
    const std::string answer =
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
    (void)::write(conn, answer.data(), answer.size());
    ::close(conn);
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
};

HttpRequestOptions bounded() {
  HttpRequestOptions o;
  o.connect_timeout = 2s;
  o.total_timeout = 10s;  // bounds a failure only
  return o;
}

TEST(HttpServingTask, TheTaskRunsWhileTheRequestWaitsForItsAnswer) {
  HeldServer server;
  PipeTask task;
  task.on_run = [&] { server.release(); };  // the answer comes only after the task ran
  task.poke();
  HttpRequestOptions o = bounded();
  o.serve_while_waiting = &task;
  const HttpResult result = http_get(server.url(), o);
  ASSERT_TRUE(result.ok()) << http_error_name(result.error) << ": " << result.error_detail;
  EXPECT_EQ(result.body, "ok");
  EXPECT_EQ(task.runs(), 1);
}

TEST(HttpServingTask, ATaskThatComesDueRunsDuringTheRequest) {
  HeldServer server;
  PipeTask task;
  task.on_run = [&] { server.release(); };
  task.due_now = true;  // no fd activity: its deadline alone
  HttpRequestOptions o = bounded();
  o.serve_while_waiting = &task;
  const HttpResult result = http_get(server.url(), o);
  ASSERT_TRUE(result.ok()) << http_error_name(result.error) << ": " << result.error_detail;
  EXPECT_EQ(task.runs(), 1);
}

TEST(HttpServingTask, TheRequestKeepsItsOwnTimeout) {
  HeldServer server;  // never told to answer
  PipeTask task;
  HttpRequestOptions o = bounded();
  o.serve_while_waiting = &task;
  o.total_timeout = 300ms;
  const HttpResult result = http_get(server.url(), o);
  EXPECT_EQ(result.error, HttpError::timeout) << result.error_detail;
  EXPECT_EQ(task.runs(), 0) << "neither readable nor due";
}

}  // namespace
}  // namespace plegscope
