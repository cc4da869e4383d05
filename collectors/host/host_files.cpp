#include "host/host_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace plegscope::host {

long read_into(const std::string& path, char* buffer, size_t size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t used = 0;
  while (used < size) {
    ssize_t n = ::read(fd, buffer + used, size - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      errno = saved;
      return -1;
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  return static_cast<long>(used);
}

FileText read_small_file(const std::string& path, size_t limit) {
  FileText out;
  out.text.resize(limit);
  long n = read_into(path, out.text.data(), limit);
  if (n < 0) {
    out.error = path + ": " + std::strerror(errno);
    out.text.clear();
    return out;
  }
  out.text.resize(static_cast<size_t>(n));
  out.ok = true;
  return out;
}

}  // namespace plegscope::host
