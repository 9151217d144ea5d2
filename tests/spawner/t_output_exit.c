/*
 * t_output_exit.c MODE ... - output at the end of a job (issue 41): what a
 * rank wrote before the job ended reaches the launcher's output.
 *   barrier             the idiom of spec 2.1.0.5: a barrier, one line
 *                       "rank R of N: after the barrier", gasnet_exit(0).
 *   reply               rank 1 asks rank 2 for a reply, which rank 2's
 *                       handler sends after 600 ms of work (a rank slow to
 *                       answer, as on a host with many more ranks than
 *                       cores); meanwhile, 100 ms after a barrier, rank 0
 *                       calls gasnet_exit(0). Rank 1, waiting asleep when
 *                       the exit notice comes, gets its reply, prints
 *                       "rank 1: got the reply" and exits: the line must
 *                       arrive. The other ranks poll until the job ends.
 *   print DIR poll|nopoll  after a barrier, every rank but the last prints
 *                       numbered lines "rank R line I ....", and after each
 *                       one writes how many it has printed to DIR/R (so the
 *                       script compares what arrived with what was
 *                       written); 200 ms after the barrier the last rank
 *                       calls gasnet_exit(0). poll: the printers call
 *                       gasnet_AMPoll between lines (the exit notice ends
 *                       them); nopoll: they never call GASNet again (the
 *                       launcher's SIGQUIT ends them). A printer that is
 *                       still running after 30 s prints SURVIVED.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gasnet.h"

#define T_PRINT_MAX_S 30

static void barrier(void) {
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) != GASNET_OK) {
    fprintf(stderr, "rank %u: barrier failed\n", (unsigned)gasnet_mynode());
    gasnet_exit(3);
  }
}

static void pause_ms(long ms) {
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

static void mode_barrier(void) {
  barrier();
  printf("rank %u of %u: after the barrier\n", (unsigned)gasnet_mynode(), (unsigned)gasnet_nodes());
  gasnet_exit(0);
}

#define H_ASK 200
#define H_ANSWER 201
static volatile int answered;

static void ask_handler(gasnet_token_t token) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do clock_gettime(CLOCK_MONOTONIC, &t); /* 600 ms of work */
  while ((t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L < 600);
  gasnet_AMReplyShort0(token, H_ANSWER);
}
static void answer_handler(gasnet_token_t token) { (void)token; answered = 1; }

static void mode_reply(void) {
  gasnet_node_t me = gasnet_mynode();
  barrier();
  if (me == 0) { pause_ms(100); gasnet_exit(0); }
  if (me == 1) {
    gasnet_AMRequestShort0(2, H_ASK);
    GASNET_BLOCKUNTIL(answered);
    printf("rank 1: got the reply\n");
    gasnet_exit(0);
  }
  time_t end = time(NULL) + T_PRINT_MAX_S;
  while (time(NULL) < end) { gasnet_AMPoll(); usleep(100); }
  printf("rank %u: SURVIVED\n", (unsigned)me);
  gasnet_exit(5);
}

/* The printers' loop: a line, its count recorded, a 100 us pause. */
static void print_lines(const char *dir, int poll) {
  char path[4096], num[32];
  snprintf(path, sizeof path, "%s/%u", dir, (unsigned)gasnet_mynode());
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) { perror(path); gasnet_exit(4); }
  time_t end = time(NULL) + T_PRINT_MAX_S;
  for (unsigned long i = 0; time(NULL) < end; i++) {
    printf("rank %u line %lu ............................................................\n",
           (unsigned)gasnet_mynode(), i);
    int k = snprintf(num, sizeof num, "%-20lu\n", i + 1);
    if (pwrite(fd, num, (size_t)k, 0) != k) { perror(path); gasnet_exit(4); }
    if (poll) gasnet_AMPoll();
    usleep(100);
  }
  printf("rank %u: SURVIVED\n", (unsigned)gasnet_mynode());
  gasnet_exit(5);
}

int main(int argc, char **argv) {
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 9;
  gasnet_handlerentry_t table[] = { { H_ASK, (void (*)())ask_handler },
                                    { H_ANSWER, (void (*)())answer_handler } };
  if (gasnet_attach(table, 2, GASNET_PAGESIZE, 0) != GASNET_OK) return 8;
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "barrier")) mode_barrier();
  if (!strcmp(mode, "reply") && gasnet_nodes() >= 3) mode_reply();
  if (strcmp(mode, "print") || argc < 4) {
    fprintf(stderr, "usage: t_output_exit barrier | reply (3 ranks or more) | print DIR poll|nopoll\n");
    gasnet_exit(2);
  }
  barrier();
  if (gasnet_mynode() == gasnet_nodes() - 1) {
    pause_ms(200);
    gasnet_exit(0);
  }
  print_lines(argv[2], !strcmp(argv[3], "poll"));
  return 0;
}
