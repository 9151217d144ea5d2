/*
 * gasnetc_host.c - which nodes share this host's CPUs, and the wait policy
 * that follows from it; the job's hosts, as gasnet_getNodeInfo and
 * GASNet-EX's neighbourhood and host queries report them.
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
 * polling politely. Elsewhere a spinning node still yields now and then: the
 * kernel may yet run two nodes on one CPU (gasnetc_poll.c).
 *
 * Nodes share CPUs when their kernels have the same boot id
 * (common/gasneti_host.c makes each node's record): network namespaces and
 * containers on one kernel share its CPUs, two machines never share an id. The CPUs are
 * the union of the affinity masks of those nodes, so a batch system that
 * pins each node to a core of its own is not taken for overcommitment.
 * Every node learns every kernel's answer, not only its own: a barrier
 * gathers the ranks of a crowded kernel at one leader
 * (gasnetc_node_crowded, extended-ref/gasnete_barrier.c), and every rank
 * must draw the same hierarchy.
 *
 * A "host" for gasnet_getNodeInfo is narrower: one kernel AND one network
 * namespace (gasneti_same_host). Containers and the test suite's namespace
 * "hosts" share a kernel, a host name and /dev/shm, yet each has its own
 * addresses, the way separate machines do.
 */
#define _GNU_SOURCE 1 /* CPU_OR */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gasnetc_internal.h"

static const gasnetc_host_rec_t *gasnetc_rec_at(const void *all, size_t stride, gasnet_node_t i) {
  return (const void *)((const char *)all + (size_t)i * stride);
}

static uint64_t gasnetc_host_hash(const gasnetc_host_rec_t *r, int kernel_only) {
  uint64_t h = kernel_only ? 0 : r->netns * 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 16; i++) h = (h ^ r->id[i]) * 0x100000001b3ull;
  return h;
}

/* Two records of one host, or (kernel_only) of one kernel: nodes that
 * share its CPUs, whatever their network namespaces. */
static int gasnetc_same(const gasnetc_host_rec_t *a, const gasnetc_host_rec_t *b, int kernel_only) {
  return kernel_only ? gasneti_same_kernel(a, b) : gasneti_same_host(a, b);
}

/* of[i]: the number of node i's host (kernel_only: its kernel), numbered
 * in order of their lowest node, so every node computes the same table.
 * One pass over the nodes with an open-addressing table of each one's
 * lowest node. Returns how many there are. */
static gasnet_node_t gasnetc_number(const void *all, size_t stride, int kernel_only,
                                    gasnet_node_t *of) {
  gasnet_node_t n = gasnetc_g.nodes, count = 0;
  size_t cap = 2;
  while (cap < 2 * (size_t)n) cap *= 2;
  gasnet_node_t *slot = calloc(cap, sizeof *slot); /* lowest node + 1; 0 = empty */
  if (!slot) gasnetc_fatal("gasnet_init: out of memory for the host table of %u nodes", (unsigned)n);
  for (gasnet_node_t i = 0; i < n; i++) {
    const gasnetc_host_rec_t *r = gasnetc_rec_at(all, stride, i);
    size_t k = gasnetc_host_hash(r, kernel_only) & (cap - 1);
    while (slot[k] && !gasnetc_same(r, gasnetc_rec_at(all, stride, slot[k] - 1), kernel_only))
      k = (k + 1) & (cap - 1);
    if (!slot[k]) {
      slot[k] = i + 1;
      of[i] = count++;
    } else {
      of[i] = of[slot[k] - 1];
    }
  }
  free(slot);
  return count;
}

/* Which nodes' kernels are crowded, every kernel's, from every node's
 * record: more nodes of the job on it than CPUs they may run on (the union
 * of their affinity masks). A node's own answer is its wait policy
 * (polite); every node's is the barrier's shape (gasnetc_node_crowded). */
static void gasnetc_kernels_learn(const void *all, size_t stride) {
  gasnet_node_t n = gasnetc_g.nodes, *kernel_of = malloc(sizeof *kernel_of * n);
  gasnetc_g.crowded_of = malloc(n);
  if (!kernel_of || !gasnetc_g.crowded_of)
    gasnetc_fatal("gasnet_init: out of memory for the kernel table of %u nodes", (unsigned)n);
  gasnet_node_t nk = gasnetc_number(all, stride, 1, kernel_of);
  unsigned *nodes = calloc(nk, sizeof *nodes);
  cpu_set_t *cpus = calloc(nk, sizeof *cpus), theirs;
  if (!nodes || !cpus)
    gasnetc_fatal("gasnet_init: out of memory for the CPUs of %u kernels", (unsigned)nk);
  for (gasnet_node_t i = 0; i < n; i++) {
    nodes[kernel_of[i]]++;
    memcpy(&theirs, gasnetc_rec_at(all, stride, i)->cpus, sizeof theirs);
    CPU_OR(&cpus[kernel_of[i]], &cpus[kernel_of[i]], &theirs);
  }
  for (gasnet_node_t i = 0; i < n; i++)
    gasnetc_g.crowded_of[i] = nodes[kernel_of[i]] > (unsigned)CPU_COUNT(&cpus[kernel_of[i]]);
  gasnet_node_t mine = kernel_of[gasnetc_g.mynode];
  gasnetc_g.host_nodes = nodes[mine];
  gasnetc_g.host_cpus = (unsigned)CPU_COUNT(&cpus[mine]);
  gasnetc_g.polite = gasnetc_g.crowded_of[gasnetc_g.mynode];
  free(cpus);
  free(nodes);
  free(kernel_of);
}

int gasnetc_node_crowded(gasnet_node_t jobrank) { return gasnetc_g.crowded_of[jobrank]; }

/* The members of this node's host, in rank order: one pass over host_of.
 * Built once, at init, so the queries need no lock in PAR mode. */
static void gasnetc_host_members(void) {
  gasnet_node_t mine = gasnetc_g.host_of[gasnetc_g.mynode], size = 0;
  for (gasnet_node_t i = 0; i < gasnetc_g.nodes; i++) size += gasnetc_g.host_of[i] == mine;
  gasnetc_g.host_members = malloc(sizeof *gasnetc_g.host_members * size);
  if (!gasnetc_g.host_members)
    gasnetc_fatal("gasnet_init: out of memory for the %u members of this host", (unsigned)size);
  gasnet_node_t k = 0;
  for (gasnet_node_t i = 0; i < gasnetc_g.nodes; i++) {
    if (gasnetc_g.host_of[i] != mine) continue;
    if (i == gasnetc_g.mynode) gasnetc_g.host_index = k;
    gasnetc_g.host_members[k++].gex_jobrank = i;
  }
  gasnetc_g.host_size = size;
}

/* The neighbourhoods: each host's ranks, in rank order, cut into chunks of
 * at most GASNET_SUPERNODE_MAXSIZE (0: one chunk), numbered in order of
 * their lowest rank, so every node computes the same table in one pass. */
static void gasnetc_nbrhd_learn(void) {
  gasnet_node_t n = gasnetc_g.nodes, max = gasnetc_g.supernode_max, nn = 0;
  gasnet_node_t *pos = calloc(gasnetc_g.nhosts, sizeof *pos);  /* ranks seen per host */
  gasnet_node_t *cur = calloc(gasnetc_g.nhosts, sizeof *cur);  /* its open chunk */
  gasnetc_g.nbrhd_of = malloc(sizeof *gasnetc_g.nbrhd_of * n);
  if (!pos || !cur || !gasnetc_g.nbrhd_of)
    gasnetc_fatal("gasnet_init: out of memory for the neighbourhoods of %u nodes", (unsigned)n);
  for (gasnet_node_t i = 0; i < n; i++) {
    gasnet_node_t h = gasnetc_g.host_of[i];
    if (pos[h]++ == 0 || (max && (pos[h] - 1) % max == 0)) cur[h] = nn++;
    gasnetc_g.nbrhd_of[i] = cur[h];
  }
  free(pos);
  free(cur);
  gasnetc_g.nnbrhds = nn;
  gasnet_node_t mine = gasnetc_g.nbrhd_of[gasnetc_g.mynode], size = 0;
  for (gasnet_node_t i = 0; i < n; i++) size += gasnetc_g.nbrhd_of[i] == mine;
  gasnetc_g.nbrhd_members = malloc(sizeof *gasnetc_g.nbrhd_members * size);
  if (!gasnetc_g.nbrhd_members)
    gasnetc_fatal("gasnet_init: out of memory for the %u members of this neighbourhood",
                  (unsigned)size);
  gasnet_node_t k = 0;
  for (gasnet_node_t i = 0; i < n; i++) {
    if (gasnetc_g.nbrhd_of[i] != mine) continue;
    if (i == gasnetc_g.mynode) gasnetc_g.nbrhd_index = k;
    gasnetc_g.nbrhd_members[k++].gex_jobrank = i;
  }
  gasnetc_g.nbrhd_size = size;
}

unsigned gasnetc_route_nbrhd(gasnet_node_t me, gasnet_node_t peer) {
  return gasnetc_g.nbrhd_of[me] == gasnetc_g.nbrhd_of[peer];
}

void gasnetc_host_learn(const void *all, size_t stride) {
  gasnetc_g.host_of = malloc(sizeof *gasnetc_g.host_of * gasnetc_g.nodes);
  if (!gasnetc_g.host_of)
    gasnetc_fatal("gasnet_init: out of memory for the host table of %u nodes",
                  (unsigned)gasnetc_g.nodes);
  gasnetc_g.nhosts = gasnetc_number(all, stride, 0, gasnetc_g.host_of);
  gasnetc_host_members();
  gasnetc_nbrhd_learn();
  gasnetc_kernels_learn(all, stride);
}

/* ---- gasnet_getNodeInfo (a GASNet-1 extension beyond spec 1.8) ------------
 * Legal between gasnet_init and gasnet_attach: the host records travel in
 * gasnet_init's exchange. supernode is the shared-memory neighbourhood
 * (gasnetc_nbrhd_learn). */
int gasnet_getNodeInfo(gasnet_nodeinfo_t *table, int numentries) {
  GASNETC_CHECK_INITED("gasnet_getNodeInfo");
  if (numentries < 0 || (numentries > 0 && !table)) return GASNET_ERR_BAD_ARG;
  gasnet_node_t n = (gasnet_node_t)numentries < gasnetc_g.nodes ? (gasnet_node_t)numentries
                                                               : gasnetc_g.nodes;
  for (gasnet_node_t i = 0; i < n; i++) {
    table[i].host = gasnetc_g.host_of[i];
    table[i].supernode = gasnetc_g.nbrhd_of[i];
  }
  return GASNET_OK;
}

/* ---- neighbourhood and host (GASNet-EX, [EXPERIMENTAL] in the description) ---
 * Same init check as gasnet_getNodeInfo: the tables exist from gasnet_init
 * on. A neighbourhood is the processes that exchange AMs through shared
 * memory (the shm transport, amshm/): the ranks of one host, at most
 * GASNET_SUPERNODE_MAXSIZE of them (gasnetc_nbrhd_learn), numbered as
 * gasnet_getNodeInfo's supernode. */
void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                               gex_Rank_t *my_info_index_p) {
  GASNETC_CHECK_INITED("gex_System_QueryNbrhdInfo");
  if (info_p) *info_p = gasnetc_g.nbrhd_members;
  if (info_count_p) *info_count_p = gasnetc_g.nbrhd_size;
  if (my_info_index_p) *my_info_index_p = gasnetc_g.nbrhd_index;
}

void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                              gex_Rank_t *my_info_index_p) {
  GASNETC_CHECK_INITED("gex_System_QueryHostInfo");
  if (info_p) *info_p = gasnetc_g.host_members;
  if (info_count_p) *info_count_p = gasnetc_g.host_size;
  if (my_info_index_p) *my_info_index_p = gasnetc_g.host_index;
}

/* Hosts are numbered in order of their lowest rank (host_of), so every rank
 * of a host gets the same host_set_rank, and different hosts different ones. */
void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size_p, gex_Rank_t *nbrhd_set_rank_p,
                                gex_Rank_t *host_set_size_p, gex_Rank_t *host_set_rank_p) {
  GASNETC_CHECK_INITED("gex_System_QueryMyPosition");
  if (nbrhd_set_size_p) *nbrhd_set_size_p = gasnetc_g.nnbrhds;
  if (nbrhd_set_rank_p) *nbrhd_set_rank_p = gasnetc_g.nbrhd_of[gasnetc_g.mynode];
  if (host_set_size_p) *host_set_size_p = gasnetc_g.nhosts;
  if (host_set_rank_p) *host_set_rank_p = gasnetc_g.host_of[gasnetc_g.mynode];
}
