#pragma once
// The connection gate's relay: the epoll-driven copy of bytes between each
// admitted client and its loopback connection to civetweb, with the head
// and read deadlines that cut off slow or stuck clients. Only
// connection_gate.cpp includes it; it runs on the gate's one thread.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <list>
#include <memory>
#include <string>

#include "http/connection_gate.h"

namespace plegscope::gate {

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

inline bool would_block() { return errno == EAGAIN || errno == EWOULDBLOCK; }

// Closes a loopback connection to civetweb with a reset: it is read to its
// end or abandoned, and a reset leaves no TIME_WAIT behind on either side
// at hundreds of answers a second.
inline void reset_close(int fd) {
  linger abort{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof(abort));
  ::close(fd);
}

// Reads what `fd` has into `into`, up to `cap` bytes held; false on an error
// other than "nothing more now"; sets `eof` at the end of the stream.
inline bool read_available(int fd, std::string& into, size_t cap, bool& eof) {
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
inline bool write_available(int fd, std::string& from, bool& progressed) {
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

}  // namespace plegscope::gate
