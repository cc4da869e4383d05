#include "cri/runtime_socket.h"

#include <sys/stat.h>

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

}  // namespace plegscope
