#pragma once
// A real child process the live tests hold still: named, it first does what
// the test asks (fork zombies, nothing), says "ready" on a pipe, then sleeps
// in a read of another until the test closes `release_fd`, and exits (the
// test reaps it, or not). It dies with the test if the test dies first.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

namespace plegscope::host {

// The child's pid once it is ready, -1 when it could not be started.
template <typename Prepare>
pid_t start_held_child(const char* name, int& release_fd, Prepare prepare) {
  int ready[2], release[2];
  if (::pipe(ready) != 0 || ::pipe(release) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_NAME, name);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::close(ready[0]);
    ::close(release[1]);
    prepare();
    char byte = 'r';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
    while (::read(release[0], &byte, 1) > 0) {
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(release[0]);
  char byte = 0;
  bool ok = ::read(ready[0], &byte, 1) == 1;
  ::close(ready[0]);
  release_fd = release[1];
  return ok ? pid : -1;
}

}  // namespace plegscope::host
