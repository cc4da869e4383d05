/* plegscope e2e pause: the sandbox's infra process. Sleeps until SIGTERM or
 * SIGINT (PID 1 in a container has no default signal actions), reaps any
 * children, exits 0. Built with gcc -static by the test. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_stop(int sig) { (void)sig; stop = 1; }
static void on_child(int sig) {
  (void)sig;
  while (waitpid(-1, 0, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_stop;
  sigaction(SIGTERM, &sa, 0);
  sigaction(SIGINT, &sa, 0);
  sa.sa_handler = on_child;
  sa.sa_flags = SA_NOCLDSTOP;
  sigaction(SIGCHLD, &sa, 0);
  while (!stop) pause();
  return 0;
}
