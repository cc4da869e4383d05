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

using Clock = std::chrono::steady_clock;
constexpr size_t kToUpstreamCap = 65536;  // bytes of a request held while civetweb reads
constexpr auto kSweepPeriod = std::chrono::milliseconds(100);

struct Connection;

// What an epoll event points at: one end of a relayed connection.
struct End {
  Connection* connection = nullptr;
  int fd = -1;
  uint32_t interest = 0;
};

struct Connection {
  End client, upstream;
  std::string to_upstream, to_client;
  bool admitted = false, connecting = false, client_eof = false, upstream_eof = false, upstream_shut = false;
  bool closed = false;
  Clock::time_point deadline;  // the head's, then (with bytes for the client pending) the client's to read them
};

bool would_block() { return errno == EAGAIN || errno == EWOULDBLOCK; }

// Closes a loopback connection to civetweb with a reset: it is read to its
// end or abandoned, and a reset leaves no TIME_WAIT behind on either side
// at hundreds of answers a second.
void reset_close(int fd) {
  linger abort{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof(abort));
  ::close(fd);
}

// Reads what `fd` has into `into`, up to `cap` bytes held; false on an error
// other than "nothing more now"; sets `eof` at the end of the stream.
bool read_available(int fd, std::string& into, size_t cap, bool& eof) {
  char buffer[16384];
  while (into.size() < cap) {
    ssize_t n = ::recv(fd, buffer, std::min(sizeof(buffer), cap - into.size()), 0);
    if (n > 0) {
      into.append(buffer, static_cast<size_t>(n));
    } else if (n == 0) {
      eof = true;
      return true;
    } else if (errno == EINTR) {
      continue;
    } else {
      return would_block();
    }
  }
  return true;
}

// Writes what it can of `from`; false on an error; sets `progressed`.
bool write_available(int fd, std::string& from, bool& progressed) {
  size_t sent = 0;
  while (sent < from.size()) {
    ssize_t n = ::send(fd, from.data() + sent, from.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n < 0 && !would_block()) return false;
      break;
    }
  }
  if (sent > 0) progressed = true;
  from.erase(0, sent);
  return true;
}

class Relay {
 public:
  Relay(int epoll_fd, int upstream_port, bool tls, const GateLimits& limits)
      : epoll_(epoll_fd), upstream_port_(upstream_port), tls_(tls), limits_(limits) {}
  ~Relay() {
    for (auto& connection : connections_) close(connection);
  }

  size_t size() const { return connections_.size(); }

  void accepted(int fd, Clock::time_point now) {
    connections_.emplace_back();
    Connection& c = connections_.back();
    c.client = {&c, fd, 0};
    c.upstream.connection = &c;
    c.deadline = now + limits_.head_timeout;
    watch(c.client, EPOLLIN);
  }

  void on_event(End* end, uint32_t events, Clock::time_point now) {
    Connection& c = *end->connection;
    if (c.closed || end->fd < 0) return;  // an event queued before that end was closed
    if (end == &c.client) {
      on_client(c, events, now);
    } else {
      on_upstream(c, events, now);
    }
    if (!c.closed) update_interest(c);
  }

  // Cuts off heads that did not arrive in time and answers the client does not read.
  void sweep(Clock::time_point now) {
    for (auto& c : connections_) {
      if (c.closed) continue;
      if (!c.admitted && now >= c.deadline) close(c);
      else if (c.admitted && !c.to_client.empty() && now >= c.deadline) close(c);
    }
  }

  // Frees the connections closed since the last call (never during a batch
  // of events, which may still point at them).
  void collect() {
    connections_.remove_if([](const Connection& c) { return c.closed; });
  }

 private:
  void on_client(Connection& c, uint32_t events, Clock::time_point now) {
    if (events & EPOLLERR) return close(c);
    if ((events & (EPOLLIN | EPOLLHUP)) && !c.client_eof) {
      if (!read_available(c.client.fd, c.to_upstream, kToUpstreamCap, c.client_eof)) return close(c);
      if (!c.admitted) {
        if (head_complete(c.to_upstream, tls_, limits_.max_request_size)) {
          if (!admit(c)) return close(c);
        } else if (c.client_eof) {
          return close(c);
        }
      }
    } else if (events & EPOLLHUP) {
      return close(c);
    }
    if ((events & EPOLLOUT) && !c.to_client.empty()) {
      bool progressed = false;
      if (!write_available(c.client.fd, c.to_client, progressed)) return close(c);
      if (progressed) c.deadline = now + limits_.stall_timeout;
    }
    finish(c);
  }

  void on_upstream(Connection& c, uint32_t events, Clock::time_point now) {
    if (c.connecting) {
      int error = 0;
      socklen_t length = sizeof(error);
      if (::getsockopt(c.upstream.fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) return close(c);
      c.connecting = false;
    }
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !c.upstream_eof) {
      const bool was_empty = c.to_client.empty();
      if (!pass_answer(c)) return close(c);
      if (was_empty && !c.to_client.empty()) c.deadline = now + limits_.stall_timeout;
      if (c.upstream_eof) {
        // The whole answer is here: civetweb's worker, which waits for this
        // end to close, is free at once, whatever the client's pace.
        reset_close(c.upstream.fd);
        c.upstream.fd = -1;
      }
    }
    if ((events & EPOLLOUT) && !c.to_upstream.empty() && c.upstream.fd >= 0) {
      bool progressed = false;
      if (!write_available(c.upstream.fd, c.to_upstream, progressed)) c.upstream_eof = true;
    }
    finish(c);
  }

  // Reads what civetweb has sent and writes it on to the client through the
  // relay's one buffer: a client that keeps up (wrk, Prometheus) costs no
  // copy into the connection, whose buffer would be allocated, faulted in
  // and freed for every answer; what the client does not take yet waits in
  // `to_client`. Reading goes on to the end either way, so civetweb's worker
  // is not held by a slow client. False when the client's end failed.
  bool pass_answer(Connection& c) {
    for (;;) {
      ssize_t n = ::recv(c.upstream.fd, chunk_.get(), kChunk, 0);
      if (n > 0) {
        size_t sent = 0;
        while (c.to_client.empty() && sent < static_cast<size_t>(n)) {
          ssize_t w = ::send(c.client.fd, chunk_.get() + sent, static_cast<size_t>(n) - sent, MSG_NOSIGNAL);
          if (w > 0) sent += static_cast<size_t>(w);
          else if (w < 0 && errno == EINTR) continue;
          else if (w < 0 && !would_block()) return false;
          else break;
        }
        c.to_client.append(chunk_.get() + sent, static_cast<size_t>(n) - sent);
      } else if (n == 0) {
        c.upstream_eof = true;
        return true;
      } else if (errno != EINTR) {
        // civetweb closes with a reset; what it sent before has been read.
        if (!would_block()) c.upstream_eof = true;
        return true;
      }
    }
  }

  // Closes a connection whose answer is delivered, and passes a client's end
  // of requests on to civetweb.
  void finish(Connection& c) {
    if (c.closed || !c.admitted) return;
    if (c.upstream_eof && c.to_client.empty()) return close(c);
    if (c.client_eof && c.to_upstream.empty() && !c.connecting && !c.upstream_shut && c.upstream.fd >= 0) {
      ::shutdown(c.upstream.fd, SHUT_WR);
      c.upstream_shut = true;
    }
  }

  bool admit(Connection& c) {
    c.admitted = true;
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      spdlog::warn("http: cannot open a connection to the server: {}", std::strerror(errno));
      return false;
    }
    c.upstream.fd = fd;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(upstream_port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool pending = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0;
    if (pending && errno != EINPROGRESS) return false;
    // A loopback connect has usually completed by the time it returns
    // EINPROGRESS: the request goes at once, saving a wait for writability
    // on every connection; a send that finds it still connecting gets EAGAIN.
    bool progressed = false;
    if (!write_available(fd, c.to_upstream, progressed)) return false;
    c.connecting = pending && !progressed;
    return true;
  }

  void update_interest(Connection& c) {
    uint32_t client = 0, upstream = 0;
    if (!c.client_eof && c.to_upstream.size() < kToUpstreamCap) client |= EPOLLIN;
    if (!c.to_client.empty()) client |= EPOLLOUT;
    if (c.upstream.fd >= 0) {
      if (c.connecting) {
        upstream = EPOLLOUT;
      } else {
        if (!c.upstream_eof) upstream |= EPOLLIN;
        if (!c.to_upstream.empty()) upstream |= EPOLLOUT;
      }
    }
    watch(c.client, client);
    if (c.upstream.fd >= 0) watch(c.upstream, upstream);
  }

  void watch(End& end, uint32_t interest) {
    if (end.interest == interest && interest != 0) return;
    epoll_event event{};
    event.events = interest;
    event.data.ptr = &end;
    if (::epoll_ctl(epoll_, EPOLL_CTL_MOD, end.fd, &event) != 0 && errno == ENOENT)
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, end.fd, &event);
    end.interest = interest;
  }

  void close(Connection& c) {
    if (c.closed) return;
    c.closed = true;
    if (c.client.fd >= 0) ::close(c.client.fd);
    if (c.upstream.fd >= 0) reset_close(c.upstream.fd);
    c.client.fd = c.upstream.fd = -1;
  }

  int epoll_;
  int upstream_port_;
  bool tls_;
  GateLimits limits_;
  static constexpr size_t kChunk = 65536;
  std::unique_ptr<char[]> chunk_ = std::make_unique<char[]>(kChunk);
  std::list<Connection> connections_;  // stable addresses: epoll events point into them
};

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
