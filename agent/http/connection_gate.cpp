#include "http/connection_gate.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <vector>

#include "http/connection_relay.h"

namespace plegscope {

bool head_complete(std::string_view received, bool tls, size_t max_request_size) {
  if (received.size() >= max_request_size) return true;
  if (tls) {
    if (received.size() < 5) return false;
    if (static_cast<unsigned char>(received[0]) != 0x16) return true;  // no handshake: civetweb refuses it
    const size_t record = 5 + (static_cast<size_t>(static_cast<unsigned char>(received[3])) << 8 |
                               static_cast<unsigned char>(received[4]));
    return received.size() >= record;
  }
  // civetweb's own rule: a blank line ends the head, and a control
  // character makes it malformed (civetweb answers 400 at once).
  for (size_t i = 0; i < received.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(received[i]);
    if (c < 128 && c != '\r' && c != '\n' && !std::isprint(c)) return true;
    if (c == '\n' && i + 1 < received.size() && received[i + 1] == '\n') return true;
    if (c == '\n' && i + 2 < received.size() && received[i + 1] == '\r' && received[i + 2] == '\n') return true;
  }
  return false;
}

namespace {

using gate::Clock;
using gate::End;
using gate::Relay;
using gate::kSweepPeriod;

// "HOST:PORT", "[IPV6]:PORT" or ":PORT" split into host and port.
bool split_address(const std::string& address, std::string& host, std::string& port) {
  if (!address.empty() && address[0] == '[') {
    size_t close = address.find("]:");
    if (close == std::string::npos) return false;
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    size_t colon = address.rfind(':');
    if (colon == std::string::npos) return false;
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
  }
  return !port.empty();
}

}  // namespace

ConnectionGate::~ConnectionGate() { stop(); }

std::string ConnectionGate::start(const std::string& listen_address, int upstream_port, bool tls,
                                  const GateLimits& limits) {
  limits_ = limits;
  tls_ = tls;
  upstream_port_ = upstream_port;
  std::string host, port;
  if (!split_address(listen_address, host, port)) return "cannot listen on " + listen_address + ": expected HOST:PORT";
  addrinfo hints{};
  hints.ai_family = host.empty() ? AF_INET : AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return "cannot listen on " + listen_address + ": " + ::gai_strerror(rc);
  std::string error;
  for (addrinfo* ai = found; ai && listen_fd_ < 0; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    if (ai->ai_family == AF_INET6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on));
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, limits.listen_backlog) != 0) {
      error = std::strerror(errno);
      ::close(fd);
      continue;
    }
    listen_fd_ = fd;
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0) return "cannot listen on " + listen_address + (error.empty() ? "" : ": " + error);
  if (limits.defer_accept_seconds > 0 &&
      ::setsockopt(listen_fd_, IPPROTO_TCP, TCP_DEFER_ACCEPT, &limits.defer_accept_seconds,
                   sizeof(limits.defer_accept_seconds)) != 0)
    spdlog::warn("http: cannot set TCP_DEFER_ACCEPT on {}: {}", listen_address, std::strerror(errno));
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  if (::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &length) == 0)
    port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
    return std::string("cannot start the HTTP gate: ") + std::strerror(errno);
  }
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
  return "";
}

void ConnectionGate::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof(one)) < 0) spdlog::debug("http: gate wake: {}", std::strerror(errno));
  thread_.join();
  ::close(wake_fd_);
  ::close(listen_fd_);
  wake_fd_ = listen_fd_ = -1;
  port_ = 0;
}

void ConnectionGate::run() {
  pthread_setname_np(pthread_self(), "http-gate");
  int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) {
    spdlog::error("http: cannot create an epoll instance: {}", std::strerror(errno));
    return;
  }
  // Markers for the two fds that are not connections.
  static char listener_marker, wake_marker;
  auto add = [&](int fd, void* marker) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.ptr = marker;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
  };
  add(wake_fd_, &wake_marker);
  add(listen_fd_, &listener_marker);
  bool listening = true;
  {
    Relay relay(epoll_fd, upstream_port_, tls_, limits_);
    std::vector<epoll_event> events(256);
    Clock::time_point next_sweep = Clock::now() + kSweepPeriod, resume_at{};
    while (!stopping_) {
      // With no connection held and the listener armed there is nothing to
      // sweep: an idle agent's gate sleeps until a client or stop() wakes it.
      const bool idle = relay.size() == 0 && listening;
      int n = ::epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()),
                           idle ? -1 : static_cast<int>(kSweepPeriod.count()));
      if (n < 0 && errno != EINTR) {
        spdlog::error("http: epoll_wait: {}", std::strerror(errno));
        break;
      }
      const Clock::time_point now = Clock::now();
      for (int i = 0; i < n; ++i) {
        void* target = events[i].data.ptr;
        if (target == &wake_marker) continue;
        if (target == &listener_marker) {
          while (relay.size() < limits_.max_connections) {
            int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd >= 0) {
              relay.accepted(fd, now);
              continue;
            }
            if (errno == EMFILE || errno == ENFILE) {
              // Out of fds: new connections wait in the backlog until a sweep frees some.
              spdlog::warn("http: cannot accept a connection: {}", std::strerror(errno));
              listening = false;
              resume_at = now + kSweepPeriod;
            }
            break;  // EAGAIN, or an error of that one connection
          }
          if (relay.size() >= limits_.max_connections) listening = false;
          if (!listening) ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd_, nullptr);
          continue;
        }
        relay.on_event(static_cast<End*>(target), events[i].events, now);
      }
      if (idle) {
        next_sweep = now + kSweepPeriod;  // a connection just accepted gets its full head timeout first
      } else if (now >= next_sweep) {
        relay.sweep(now);
        next_sweep = now + kSweepPeriod;
      }
      relay.collect();
      if (!listening && relay.size() < limits_.max_connections && now >= resume_at) {
        add(listen_fd_, &listener_marker);
        listening = true;
      }
    }
  }
  ::close(epoll_fd);
}

}  // namespace plegscope
