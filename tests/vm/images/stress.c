/* plegscope VM test bed stress workload (tests/vm/). Built with gcc -static.
 *   stress fork N      fork up to N children that sleep; report the first
 *                      failure (EAGAIN at pids.max) and keep retrying each 50 ms
 *   stress mem MB      allocate and touch MB MiB (the OOM killer ends it at
 *                      memory.max), then sleep
 *   stress cpu N       N processes spinning
 *   stress io MB       write and fsync MB MiB to /data, over and over
 *   stress cache MB    write MB MiB into the page cache (/cache), then exit 0
 * Prints what it does on stdout; sleeps forever at the end. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void nap(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, 0);
}

static void forever(void) {
  for (;;) pause();
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  long n = argc > 2 ? atol(argv[2]) : 0;
  setvbuf(stdout, 0, _IOLBF, 0);
  if (!strcmp(mode, "fork")) {
    long made = 0, failed = 0;
    while (made < n) {
      pid_t p = fork();
      if (p == 0) forever();
      if (p > 0) {
        ++made;
        continue;
      }
      if (failed++ == 0) printf("stress: fork failed after %ld children: %s\n", made, strerror(errno));
      nap(50);
    }
    printf("stress: %ld children\n", made);
    forever();
  }
  if (!strcmp(mode, "mem")) {
    printf("stress: allocating %ld MiB\n", n);
    for (long i = 0; i < n; ++i) {
      char* p = malloc(1 << 20);
      if (!p) break;
      memset(p, 1, 1 << 20);
    }
    printf("stress: %ld MiB touched\n", n);
    forever();
  }
  if (!strcmp(mode, "cpu")) {
    for (long i = 1; i < n; ++i)
      if (fork() == 0) break;
    for (volatile unsigned long x = 0;; ++x) {
    }
  }
  if (!strcmp(mode, "io") || !strcmp(mode, "cache")) {
    const int io = !strcmp(mode, "io");
    const char* dir = io ? "/data" : "/cache";
    mkdir(dir, 0755);
    static char buf[1 << 20];
    memset(buf, 'x', sizeof buf);
    char path[64];
    snprintf(path, sizeof path, "%s/f", dir);
    do {
      int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
      if (fd < 0) {
        printf("stress: open %s: %s\n", path, strerror(errno));
        return 1;
      }
      for (long i = 0; i < n; ++i)
        if (write(fd, buf, sizeof buf) < 0) break;
      if (io) fsync(fd);
      close(fd);
    } while (io);
    printf("stress: %ld MiB in the page cache\n", n);
    return 0;
  }
  fprintf(stderr, "usage: stress fork N | mem MB | cpu N | io MB | cache MB\n");
  return 2;
}
