/*
 * gasnetc_host.c - which nodes share this host's CPUs, and the wait policy
 * that follows from it.
 *
 * A blocked thread (GASNET_BLOCKUNTIL, and through it every blocking call
 * of the extended API) polls for GASNET_SPIN_USEC before it sleeps in the
 * kernel: with a core to itself, spinning answers a message microseconds
 * sooner than a wake-up would. With more nodes than CPUs on the host, a
 * spinning node holds a core that a node with work to do is waiting for,
 * and a collective then costs scheduler time slices, not round trips. Such
 * a host is "overcommitted" and its nodes poll politely: they yield the CPU
 * after every poll that finds nothing (gasnetc_block_step), which costs
 * nothing when no one else wants the core. 8 nodes in a barrier on 2 cores
 * (tests/bench/ext_bench): 870 us spinning, 450 us sleeping at once, 300 us
 * polling politely.
 *
 * Nodes on the same host are those whose kernels have the same boot id
 * (/proc/sys/kernel/random/boot_id): network namespaces and containers on
 * one kernel share its CPUs, two machines never share an id. The CPUs are
 * the union of the affinity masks of those nodes, so a batch system that
 * pins each node to a core of its own is not taken for overcommitment.
 */
#define _GNU_SOURCE 1 /* sched_getaffinity, CPU_OR */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gasnetc_internal.h"

_Static_assert(sizeof(cpu_set_t) == sizeof(((gasnetc_host_rec_t *)0)->cpus),
               "the record carries a whole cpu_set_t");

/* 16 bytes that differ between kernels: the boot id, else the host name. */
static void gasnetc_host_id(uint8_t id[16]) {
  memset(id, 0, 16);
  char text[64] = "";
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f) {
    if (!fgets(text, sizeof text, f)) text[0] = 0;
    fclose(f);
  }
  int n = 0; /* hex digits read */
  for (const char *c = text; *c && n < 32; c++) {
    int v = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10 : -1;
    if (v < 0) continue;
    id[n / 2] |= (uint8_t)(n % 2 ? v : v << 4);
    n++;
  }
  if (n == 32) return;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  memset(id, 0, 16);
  for (size_t i = 0; host[i]; i++) id[i % 16] ^= (uint8_t)host[i];
}

void gasnetc_host_rec(gasnetc_host_rec_t *mine) {
  gasnetc_host_id(mine->id);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < (n > 0 ? n : 1) && c < CPU_SETSIZE; c++) CPU_SET(c, &set);
  }
  memcpy(mine->cpus, &set, sizeof set);
}

void gasnetc_host_learn(const gasnetc_host_rec_t *mine, const void *all, size_t stride) {
  cpu_set_t cpus, theirs;
  CPU_ZERO(&cpus);
  unsigned nodes = 0;
  for (gasnet_node_t i = 0; i < gasnetc_g.nodes; i++) {
    const gasnetc_host_rec_t *r = (const void *)((const char *)all + (size_t)i * stride);
    if (memcmp(r->id, mine->id, sizeof r->id)) continue;
    nodes++;
    memcpy(&theirs, r->cpus, sizeof theirs);
    CPU_OR(&cpus, &cpus, &theirs);
  }
  gasnetc_g.host_nodes = nodes;
  gasnetc_g.host_cpus = (unsigned)CPU_COUNT(&cpus);
  gasnetc_g.polite = gasnetc_g.host_nodes > gasnetc_g.host_cpus;
}
