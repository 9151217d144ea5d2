/*
 * t_launch.c MODE [ARGS] - how a job starts and ends, seen from its ranks.
 *   argv N A B      started as `t_launch K argv N A B` (no launcher) or
 *                   under a launcher: every rank checks gasnet_nodes() == N
 *                   and that its argv is exactly [prog, argv, N, A, B],
 *                   prints "rank R of N: argv ok" and exits 0 (else FAIL, 1)
 *   segsize         rank 0 prints "max local L global G" (the segment
 *                   limits in bytes) and "phys P" (physical memory)
 *   early E         every rank calls gasnet_exit(E) before gasnet_init, as
 *                   a client does when gex_Client_Init fails
 *   initexit E      every rank calls gasnet_exit(E) right after gasnet_init
 *   exit S          the exit scenarios; the job must exit with code S:
 *     1  every rank calls gasnet_exit(1)
 *     2  every rank returns 2 from main
 *     3  the last rank calls gasnet_exit(3), the others wait in a barrier
 *     4  the last rank gets SIGINT, the others wait in a barrier; every
 *        rank's SIGQUIT handler calls gasnet_exit(4) (spec 2.1.0.5: GASNet
 *        turns the SIGINT into a SIGQUIT). In every scenario the SIGQUIT
 *        handler, installed after attach, calls gasnet_exit(S).
 *     5  the last rank calls gasnet_exit(5), the others spin without polling
 *     6  every rank calls gasnet_exit(6) between init and attach
 *     7  the last rank calls gasnet_exit(7) between init and attach
 *     8  the last rank returns 8 from main, the others wait in a barrier
 *     9  the last rank returns 9 from main, the others spin
 *    10  every rank's request makes its peer's handler call gasnet_exit(10)
 *    11  rank 0's request makes the last rank's handler call gasnet_exit(11)
 */
#include "t_util.h"
#include <signal.h>
#include <unistd.h>

static int scenario;
static void req_exit(gasnet_token_t token, gasnet_handlerarg_t code) {
  (void)token;
  gasnet_exit((int)code);
}
static void on_sigquit(int sig) {
  (void)sig;
  gasnet_exit(scenario);
}

static int check_argv(int argc, char **argv) {
  unsigned want = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
  int ok = argc == 5 && !strcmp(argv[1], "argv") && gasnet_nodes() == want &&
           !strcmp(argv[3], "A") && !strcmp(argv[4], "B c");
  printf("rank %u of %u: argv %s (argc %d)\n", (unsigned)gasnet_mynode(), (unsigned)gasnet_nodes(),
         ok ? "ok" : "FAIL", argc);
  return ok ? 0 : 1;
}

static void spin_forever(void) {
  volatile unsigned long x = 0;
  for (;;) x++;
}

/* The last rank waits before it ends the job so that the others are in
   their barrier or spin by then; they left the barrier after attach
   together, so a quarter of a second is ample (a second made the 4 runs
   of t-exitcodes 20 s longer), and a late one ends the same way. */
static void let_others_settle(void) { usleep(250000); }

static int run_scenario(int s) {
  gasnet_node_t me = gasnet_mynode(), last = gasnet_nodes() - 1;
  switch (s) {
  case 1: gasnet_exit(1); break;
  case 2: return 2;
  case 3: if (me == last) { let_others_settle(); gasnet_exit(3); } t_barrier(); break;
  case 4: if (me == last) { let_others_settle(); kill(getpid(), SIGINT); for (;;) pause(); } t_barrier(); break;
  case 5: if (me == last) { let_others_settle(); gasnet_exit(5); } spin_forever(); break;
  case 8: if (me == last) { let_others_settle(); return 8; } t_barrier(); break;
  case 9: if (me == last) { let_others_settle(); return 9; } spin_forever(); break;
  case 10:
    T_CHECK(gasnet_AMRequestShort1((me + 1) % gasnet_nodes(), 128, 10));
    for (;;) gasnet_AMPoll();
  case 11:
    if (me == 0) T_CHECK(gasnet_AMRequestShort1(last, 128, 11));
    for (;;) gasnet_AMPoll();
  }
  printf("rank %u: scenario %d went on: FAIL\n", (unsigned)me, s);
  return 97;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int arg = argc > 2 ? atoi(argv[2]) : 0;
  if (!strcmp(mode, "early")) gasnet_exit(arg);
  T_CHECK(gasnet_init(&argc, &argv));
  if (!strcmp(mode, "initexit")) gasnet_exit(arg);
  scenario = !strcmp(mode, "exit") ? arg : 0;
  if ((scenario == 6) || (scenario == 7 && gasnet_mynode() == gasnet_nodes() - 1)) {
    if (scenario == 7) let_others_settle();
    gasnet_exit(scenario);
  }
  gasnet_handlerentry_t table[] = { { 128, (void (*)())req_exit }, T_BARRIER_HANDLERS };
  T_CHECK(gasnet_attach(table, 3, GASNET_PAGESIZE, 0));
  signal(SIGQUIT, on_sigquit);
  t_barrier();
  if (!strcmp(mode, "argv")) gasnet_exit(check_argv(argc, argv));
  if (!strcmp(mode, "segsize")) {
    if (gasnet_mynode() == 0)
      printf("max local %llu global %llu\nphys %llu\n",
             (unsigned long long)gasnet_getMaxLocalSegmentSize(),
             (unsigned long long)gasnet_getMaxGlobalSegmentSize(),
             (unsigned long long)sysconf(_SC_PHYS_PAGES) * (unsigned long long)sysconf(_SC_PAGESIZE));
    gasnet_exit(0);
  }
  if (scenario) return run_scenario(scenario);
  fprintf(stderr, "usage: t_launch argv N A B | segsize | early E | initexit E | exit 1..11\n");
  gasnet_exit(2);
  return 2;
}
