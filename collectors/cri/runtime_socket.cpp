#include "cri/runtime_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cri/grpc_runtime_client.h"

namespace plegscope {

SocketState socket_state_at(const std::string& path) {
  if (path.empty()) return SocketState::kNotAUnixPath;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return SocketState::kMissing;
  return S_ISSOCK(st.st_mode) ? SocketState::kSocket : SocketState::kNotASocket;
}

SocketState runtime_socket_state(const std::string& endpoint) {
  auto path = unix_socket_path(endpoint);
  return path ? socket_state_at(*path) : SocketState::kNotAUnixPath;
}

ConnectProblem probe_connect(const std::string& path) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) return ConnectProblem::kNoSuchSocket;
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  // Non-blocking: a listener with a full backlog answers EAGAIN at once
  // instead of holding the caller; that still counts as reachable.
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return ConnectProblem::kOther;
  const int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  const int err = rc == 0 ? 0 : errno;
  ::close(fd);
  if (err == EAGAIN || err == EINPROGRESS) return ConnectProblem::kNone;
  return connect_problem_of(err);
}

}  // namespace plegscope
