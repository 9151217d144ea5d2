/* startup_ref N PROG - the raw reference of the start-up benchmark: fork and
 * exec N copies of PROG (e.g. /bin/true) at once, wait for all; prints the
 * elapsed milliseconds. What the launcher cannot beat on this machine. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  if (argc < 3) { fprintf(stderr, "usage: startup_ref N PROG\n"); return 2; }
  int n = atoi(argv[1]);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < n; i++) {
    pid_t p = fork();
    if (p == 0) { execv(argv[2], argv + 2); _exit(127); }
    if (p < 0) { perror("fork"); return 1; }
  }
  while (wait(NULL) > 0) {}
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.1f\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
  return 0;
}
