#include "host/host_files.h"

#include <cctype>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace plegscope::host {

namespace {

long read_fd(int fd, char* buffer, size_t size) {
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

}  // namespace

long read_into(const std::string& path, char* buffer, size_t size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  return fd < 0 ? -1 : read_fd(fd, buffer, size);
}

long read_into_at(int dir_fd, const char* relative, char* buffer, size_t size) {
  int fd = ::openat(dir_fd, relative, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n;
  do {
    n = ::read(fd, buffer, size);
  } while (n < 0 && errno == EINTR);
  int saved = errno;
  ::close(fd);
  errno = saved;
  return static_cast<long>(n);
}

FileText read_small_file(const std::string& path, size_t limit) {
  // Grown as read (no zero-filled `limit`-sized buffer: mountinfo's bound is
  // 1 MiB, its text a few KiB).
  FileText out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out.error = path + ": " + std::strerror(errno);
    return out;
  }
  char chunk[4096];
  while (out.text.size() < limit) {
    ssize_t n = ::read(fd, chunk, std::min(sizeof chunk, limit - out.text.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      out.error = path + ": " + std::strerror(errno);
      out.text.clear();
      ::close(fd);
      return out;
    }
    if (n == 0) break;
    out.text.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  out.ok = true;
  return out;
}

bool parse_u64(std::string_view s, uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;  // overflow
    v = v * 10 + digit;
  }
  out = v;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace plegscope::host
