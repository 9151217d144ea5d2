/*
 * t_exit.c MODE - ending a job (spec 2.1.0.5) and losing a node.
 *   poll     the last node calls gasnet_exit(42); the others poll for 30 s
 *   compute  the last node calls gasnet_exit(42); the others compute for 30 s
 *            without calling GASNet (they end by the launcher's SIGQUIT)
 *   handler  node 0 sends the last node a request whose handler calls
 *            gasnet_exit(43)
 *   return   the last node returns 44 from main() without gasnet_exit
 *   barrier  the idiom spec 2.1.0.5 recommends: every node puts its number
 *            into the next node's segment, 20 barriers (the last one named),
 *            then reads what it got, prints it and calls gasnet_exit(0)
 *            at once. The first node out of the barrier must not end the
 *            others inside it: every node's line must appear.
 *   stop     the last node stops itself (SIGSTOP); node 0 keeps sending it
 *            requests and must declare it dead (GASNET_UDP_TIMEOUT)
 *   kill     the last node kills itself (SIGKILL) while node 0 waits for
 *            its reply (as in stop) and the others poll: they must name it
 *   wait     every node polls for 30 s: the job is ended from outside
 *            (kill -9 of the launcher, tests/shm/t-shm-end.sh)
 * A node still running after 30 s (T_EXIT_BOUND seconds, for runs whose
 * timeouts are longer: tests/bench/death.sh) prints SURVIVED and exits 99.
 */
#include "t_util.h"
#include <signal.h>
#include <time.h>
#include <unistd.h>

static volatile int replies;
static void req_exit(gasnet_token_t token) { (void)token; gasnet_exit(43); }
static void req_ping(gasnet_token_t token) { gasnet_AMReplyShort0(token, 130); }
static void rep_ping(gasnet_token_t token) { (void)token; replies++; }

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  const char *mode = argc > 1 ? argv[1] : "poll";
  gasnet_node_t me = gasnet_mynode(), last = gasnet_nodes() - 1;
  gasnet_handlerentry_t table[] = { { 128, (void (*)())req_exit }, { 129, (void (*)())req_ping },
                                    { 130, (void (*)())rep_ping }, T_BARRIER_HANDLERS };
  T_CHECK(gasnet_attach(table, 5, GASNET_PAGESIZE, 0));
  t_barrier();
  printf("node %u: pid %d mode %s\n", (unsigned)me, (int)getpid(), mode);
  fflush(stdout);
  if (me == last && me != 0) {
    if (!strcmp(mode, "poll") || !strcmp(mode, "compute")) { usleep(200000); gasnet_exit(42); }
    if (!strcmp(mode, "return")) { usleep(200000); return 44; }
    if (!strcmp(mode, "stop")) raise(SIGSTOP);
    if (!strcmp(mode, "kill")) { usleep(200000); raise(SIGKILL); }
  }
  if (me == 0 && !strcmp(mode, "handler")) gasnet_AMRequestShort0(last, 128);
  if (!strcmp(mode, "barrier")) {
    gasnet_seginfo_t *seg = malloc(sizeof *seg * gasnet_nodes());
    T_CHECK(gasnet_getSegmentInfo(seg, (int)gasnet_nodes()));
    uint32_t mine = 0x5eed0000u + me;
    gasnet_put((me + 1) % gasnet_nodes(), seg[(me + 1) % gasnet_nodes()].addr, &mine, sizeof mine);
    for (int i = 0; i < 20; i++) {
      gasnet_barrier_notify(i, i == 19 ? 0 : GASNET_BARRIERFLAG_ANONYMOUS);
      T_CHECK(gasnet_barrier_wait(i, i == 19 ? 0 : GASNET_BARRIERFLAG_ANONYMOUS));
    }
    uint32_t got = *(volatile uint32_t *)seg[me].addr;
    printf("node %u: after the barrier, got %#x from node %u\n", (unsigned)me, (unsigned)got,
           (unsigned)((me + gasnet_nodes() - 1) % gasnet_nodes()));
    gasnet_exit(0);
  }
  const char *bound_env = getenv("T_EXIT_BOUND");
  int bound = bound_env ? atoi(bound_env) : 30;
  time_t end = time(NULL) + bound;
  volatile unsigned long spin = 0;
  while (time(NULL) < end) {
    if (!strcmp(mode, "compute")) { for (int i = 0; i < 1000000; i++) spin++; continue; }
    if ((!strcmp(mode, "stop") || !strcmp(mode, "kill")) && me == 0) {
      int want = replies + 1;
      gasnet_AMRequestShort0(last, 129);
      GASNET_BLOCKUNTIL(replies == want);
      continue;
    }
    gasnet_AMPoll();
  }
  printf("node %u: SURVIVED %d s in mode %s\n", (unsigned)me, bound, mode);
  fflush(stdout);
  _exit(99);
}
