#pragma once
// The agent's public listening socket. civetweb serves each connection on a
// worker thread from the moment it accepts it, so a client that sends its
// request slowly, or nothing at all, holds a worker until the request
// timeout: without this gate the agent needed 128 workers to keep /metrics
// answering beside 1,000 idle and 200 trickling clients. The gate holds every
// new connection in one epoll thread until its request head (or, with TLS,
// its ClientHello record) has arrived, cuts off those that take longer than
// the request timeout, and only then connects it to civetweb, which listens
// on loopback, relaying the bytes both ways. A worker is then busy only for
// the milliseconds an answer takes, so a few suffice.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <thread>

namespace plegscope {

// Whether `received` (the first bytes of a connection) is enough to hand the
// connection to civetweb: a whole request head for plain HTTP, a whole first
// TLS record for HTTPS, or as much as civetweb accepts (it answers 4xx).
bool head_complete(std::string_view received, bool tls, size_t max_request_size);

struct GateLimits {
  std::chrono::milliseconds head_timeout{1000};   // from accept to a complete head
  std::chrono::milliseconds stall_timeout{1000};  // an answer the client does not read
  size_t max_request_size = 16384;
  int listen_backlog = 4096;
  int defer_accept_seconds = 60;  // TCP_DEFER_ACCEPT: silent connections stay in the kernel
  size_t max_connections = 8192;  // held at once; beyond, new ones wait in the kernel's backlog
};

// Thread-safe to start and stop from one owner thread.
class ConnectionGate {
 public:
  ConnectionGate() = default;
  ~ConnectionGate();
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;

  // Binds "HOST:PORT" (HOST empty for every IPv4 address, "[::1]" for IPv6)
  // and relays admitted connections to 127.0.0.1:`upstream_port`; returns a
  // one-line error on failure.
  std::string start(const std::string& listen_address, int upstream_port, bool tls, const GateLimits& limits);
  void stop();
  int port() const { return port_; }

 private:
  void run();

  GateLimits limits_;
  bool tls_ = false;
  int upstream_port_ = 0;
  int listen_fd_ = -1;
  int wake_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace plegscope
