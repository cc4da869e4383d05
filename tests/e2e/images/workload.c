/* plegscope e2e workload.
 *   workload [RUN_MS [EXIT_CODE [ZOMBIES [ALLOC_MIB]]]]
 * Prints a line, runs (sleeps) for RUN_MS milliseconds (-1 or absent:
 * forever), then exits with EXIT_CODE (default 0). SIGTERM/SIGINT end it at
 * once with 128+signal, as a shell would report. With ZOMBIES, it first
 * forks that many children that exit at once and never reaps them (a
 * container init that does not reap). With ALLOC_MIB, it then allocates
 * and touches that many MiB, one at a time (past its memory limit the
 * kernel's OOM killer ends it). Built with gcc -static. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static void on_sig(int sig) { got = sig; }

int main(int argc, char** argv) {
  long run_ms = argc > 1 ? atol(argv[1]) : -1;
  int code = argc > 2 ? atoi(argv[2]) : 0;
  long zombies = argc > 3 ? atol(argv[3]) : 0;
  long alloc_mib = argc > 4 ? atol(argv[4]) : 0;
  signal(SIGCHLD, SIG_DFL); /* an ignored SIGCHLD would reap them */
  for (long i = 0; i < zombies; ++i)
    if (fork() == 0) _exit(0);
  for (long i = 0; i < alloc_mib; ++i) {
    char* p = malloc(1 << 20);
    if (p) memset(p, 1, 1 << 20); /* touched: resident, charged to the cgroup */
  }
  struct sigaction sa = {0};
  sa.sa_handler = on_sig;
  sigaction(SIGTERM, &sa, 0);
  sigaction(SIGINT, &sa, 0);
  printf("workload: pid %d run_ms %ld exit_code %d\n", (int)getpid(), run_ms, code);
  fflush(stdout);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    if (got) return 128 + got;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (run_ms >= 0 && elapsed >= run_ms) return code;
    struct timespec slice = {0, 10 * 1000 * 1000};
    nanosleep(&slice, 0); /* interrupted by a signal: loop checks got */
  }
}
