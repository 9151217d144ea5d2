/*
 * t_spin.c [ROUNDS] - a node spinning for a reply gives its CPU to the node
 * it waits for (core/gasnetc_poll.c). After gasnet_attach every node pins
 * itself to one CPU (the lowest it may run on), as the kernel places two
 * nodes that wake each other when other work keeps the other CPUs busy;
 * gasnet_init saw all the CPUs, so the nodes do not poll politely. Node 0
 * then makes ROUNDS (default 2000) Short AM round trips to node 1, which
 * waits in a barrier, and each node prints what it did. tests/core/t-host.sh
 * reads how often each node slept in the one wait (core.waits from
 * GASNET_STATSFILE): when the spinner kept the CPU, each round trip cost a
 * sleep of both nodes.
 */
#define _GNU_SOURCE 1 /* sched_setaffinity */
#include <sched.h>

#include "t_util.h"

static volatile int replies;
static void req_ping(gasnet_token_t token) { T_CHECK(gasnet_AMReplyShort0(token, 129)); }
static void rep_ping(gasnet_token_t token) { (void)token; replies++; }

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  int rounds = argc > 1 ? atoi(argv[1]) : 2000;
  gasnet_node_t me = gasnet_mynode();
  gasnet_handlerentry_t table[] = { { 128, (void (*)())req_ping }, { 129, (void (*)())rep_ping },
                                    T_BARRIER_HANDLERS };
  T_CHECK(gasnet_attach(table, 4, GASNET_PAGESIZE, 0));
  if (gasnet_nodes() < 2) {
    fprintf(stderr, "t_spin: run on 2 or more nodes\n");
    gasnet_exit(1);
  }
  cpu_set_t mask, one;
  int cpu = 0;
  if (sched_getaffinity(0, sizeof mask, &mask) == 0)
    while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &mask)) cpu++;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) {
    perror("t_spin: sched_setaffinity");
    gasnet_exit(1);
  }
  t_barrier();
  if (me == 0)
    for (int i = 0; i < rounds; i++) {
      T_CHECK(gasnet_AMRequestShort0(1, 128));
      GASNET_BLOCKUNTIL(replies == i + 1);
    }
  t_barrier();
  printf("node %u: on CPU %d, %d round trips\n", (unsigned)me, cpu, me == 0 ? replies : 0);
  fflush(stdout);
  gasnet_exit(0);
  return 0;
}
