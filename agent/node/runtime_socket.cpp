#include "node/runtime_socket.h"

#include <sys/stat.h>

#include "cri/grpc_runtime_client.h"

namespace plegscope {

SocketState runtime_socket_state(const std::string& endpoint) {
  auto path = unix_socket_path(endpoint);
  if (!path) return SocketState::kNotAUnixPath;
  struct stat st {};
  if (::stat(path->c_str(), &st) != 0) return SocketState::kMissing;
  return S_ISSOCK(st.st_mode) ? SocketState::kSocket : SocketState::kNotASocket;
}

}  // namespace plegscope
