/*
 * t_clientext.c - the gasnet.h / gasnet_coll.h names GASNet-1 clients use
 * beyond spec 1.8 (../shared/spec/gasnet-client-extras.md section 1 K),
 * each checked against what it must give:
 *   gasnet_getNodeInfo   before attach: every node's host, the same table
 *                        on every node (checked through a broadcast), host
 *                        numbers dense and in order of each host's lowest
 *                        node; supernode numbers dense in order of each
 *                        supernode's lowest node, all of its nodes on
 *                        one host (the shared-memory neighbourhood);
 *                        node 0 prints both tables for the script;
 *   varargs AMs          gasnet_AMRequest{Short,Medium,Long}(..., numargs,
 *                        ...) and the Reply forms, M = 0..16, arguments and
 *                        payload checked in the handlers;
 *   gasnet_barrier       named, anonymous and UNNAMED barriers, and
 *                        gasnet_barrier_result after each;
 *   gasnet_coll_broadcast  every root, sizes 0 B..1 MiB+5, IN/OUT sync
 *                        flag pairs, LOCAL into the stack, SINGLE into the
 *                        segment, 50 back-to-back NOSYNC broadcasts.
 * Prints "node N: client extensions verified (...)" when all held.
 * Built PAR (-DGASNET_PAR, for ThreadSanitizer in t-par.sh), a second
 * thread polls all along, so handlers also run beside the calls.
 */
#if !defined(GASNET_PAR)
#define GASNET_SEQ 1
#endif
#include "gasnet.h"
#include "gasnet_coll.h"
#include "t_ext_util.h"

#define H_REQ 200
#define H_REP 201
static int g_replies; /* atomic: the PAR poller thread runs handlers too */
static uint64_t g_checked;

/* Handler arguments are v(k) = k * 1000 + nargs, payloads t_fill(seed 7). */
static void check_args(int nargs, const gasnet_handlerarg_t *a) {
  for (int k = 0; k < nargs; k++)
    T_EXPECT(a[k] == k * 1000 + nargs, "argument %d of %d is %d", k, nargs, (int)a[k]);
}

#define ARGS_LIST a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
#define ARGS_DECL gasnet_handlerarg_t a0, gasnet_handlerarg_t a1, gasnet_handlerarg_t a2, \
  gasnet_handlerarg_t a3, gasnet_handlerarg_t a4, gasnet_handlerarg_t a5,                 \
  gasnet_handlerarg_t a6, gasnet_handlerarg_t a7, gasnet_handlerarg_t a8,                 \
  gasnet_handlerarg_t a9, gasnet_handlerarg_t a10, gasnet_handlerarg_t a11,               \
  gasnet_handlerarg_t a12, gasnet_handlerarg_t a13, gasnet_handlerarg_t a14,              \
  gasnet_handlerarg_t a15

/* One request handler for every (category, nargs): the client registers it
 * through a (void (*)()) cast, as GASNet-1 clients do; the extra formal
 * parameters past the real ones are never read (nargs says how many are). */
static void req_handler(gasnet_token_t tok, void *buf, size_t n, gasnet_handlerarg_t cat,
                        gasnet_handlerarg_t nargs, ARGS_DECL) {
  gasnet_handlerarg_t a[16] = { ARGS_LIST };
  check_args(nargs, a);
  if (cat > 0) {
    char want[4096];
    t_fill(want, sizeof want, 7); /* the sender's payload buffer; it sent a prefix */
    T_EXPECT(n == (size_t)(100 + nargs) && !memcmp(buf, want, n), "payload of %zu bytes", n);
  }
  gasnet_AMReplyShort(tok, H_REP, 2, cat, nargs);
}

static void rep_handler(gasnet_token_t tok, gasnet_handlerarg_t cat, gasnet_handlerarg_t nargs) {
  (void)tok; (void)cat; (void)nargs;
  __atomic_fetch_add(&g_replies, 1, __ATOMIC_RELEASE);
}

/* Short handlers get no buf/n: a thin adapter with the Short prototype. */
static void req_short(gasnet_token_t tok, gasnet_handlerarg_t cat, gasnet_handlerarg_t nargs,
                      ARGS_DECL) {
  gasnet_handlerarg_t a[16] = { ARGS_LIST };
  check_args(nargs, a);
  gasnet_AMReplyShort(tok, H_REP, 2, cat, nargs);
}

static void test_varargs_am(gasnet_node_t peer, void *peer_seg) {
  static char payload[4096];
  t_fill(payload, sizeof payload, 7);
  for (int m = 0; m <= 14; m++) { /* 2 of the 16 arguments carry cat and nargs */
    gasnet_handlerarg_t v[14];
    for (int k = 0; k < 14; k++) v[k] = k * 1000 + m;
    int before = __atomic_load_n(&g_replies, __ATOMIC_ACQUIRE);
#define V v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]
    T_CHECK(gasnet_AMRequestShort(peer, H_REQ + 2, m + 2, 0, m, V));
    T_CHECK(gasnet_AMRequestMedium(peer, H_REQ, payload, 100 + m, m + 2, 1, m, V));
    T_CHECK(gasnet_AMRequestLong(peer, H_REQ, payload, 100 + m, peer_seg, m + 2, 2, m, V));
    T_CHECK(gasnet_AMRequestLongAsync(peer, H_REQ, payload, 100 + m, peer_seg, m + 2, 3, m, V));
#undef V
    GASNET_BLOCKUNTIL(__atomic_load_n(&g_replies, __ATOMIC_ACQUIRE) == before + 4);
    g_checked += 4;
  }
}

static void test_nodeinfo(gasnet_node_t me, gasnet_node_t n) {
  gasnet_nodeinfo_t *ni = calloc(n, sizeof *ni), *root = calloc(n, sizeof *root);
  T_CHECK(gasnet_getNodeInfo(ni, (int)n));
  gasnet_node_t next = 0, next_sn = 0;
  gasnet_node_t *sn_host = calloc(n, sizeof *sn_host); /* host of each supernode */
  for (gasnet_node_t i = 0; i < n; i++) {
    gasnet_node_t sn = ni[i].supernode;
    T_EXPECT(sn <= next_sn, "supernode numbers in order of first node: node %u has supernode %u",
             (unsigned)i, (unsigned)sn);
    if (sn == next_sn) sn_host[next_sn++] = ni[i].host;
    T_EXPECT(sn_host[sn] == ni[i].host, "node %u of supernode %u is on host %u, its first node on %u",
             (unsigned)i, (unsigned)sn, (unsigned)ni[i].host, (unsigned)sn_host[sn]);
    T_EXPECT(ni[i].host <= next, "host numbers in order of first node: node %u has host %u",
             (unsigned)i, (unsigned)ni[i].host);
    if (ni[i].host == next) next++;
  }
  /* Every node computed the same table. */
  memcpy(root, ni, n * sizeof *ni);
  gasnet_coll_broadcast(GASNET_TEAM_ALL, root, 0, root, n * sizeof *root,
                        GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC | GASNET_COLL_LOCAL);
  T_EXPECT(!memcmp(root, ni, n * sizeof *ni), "node 0's node table differs from mine");
  printf("node %u: nodeinfo: host %u of %u hosts, supernode %u of %u\n", (unsigned)me,
         (unsigned)ni[me].host, (unsigned)next, (unsigned)ni[me].supernode, (unsigned)next_sn);
  if (me == 0) {
    printf("node 0: host table:");
    for (gasnet_node_t i = 0; i < n; i++) printf(" %u", (unsigned)ni[i].host);
    printf("\nnode 0: supernode table:");
    for (gasnet_node_t i = 0; i < n; i++) printf(" %u", (unsigned)ni[i].supernode);
    printf("\n");
  }
  free(ni); free(root); free(sn_host);
}

static void test_barriers(gasnet_node_t me) {
  int id = -1;
  T_CHECK(gasnet_barrier(77, 0));
  T_EXPECT(gasnet_barrier_result(&id) == 0 && id == 77, "named barrier: result id %d", id);
  T_CHECK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
  T_EXPECT(gasnet_barrier_result(&id) != 0, "anonymous barrier reported as named");
  T_CHECK(gasnet_barrier(0, GASNET_BARRIERFLAG_UNNAMED));
  T_EXPECT(gasnet_barrier_result(&id) != 0, "UNNAMED barrier not reported as anonymous");
  /* Node 0 names it, the others are anonymous: the name is the result. */
  int flags = me == 0 ? 0 : GASNET_BARRIERFLAG_ANONYMOUS;
  T_CHECK(gasnet_barrier(5, flags));
  T_EXPECT(gasnet_barrier_result(&id) == 0 && id == 5, "mixed barrier: result id %d", id);
  g_checked += 4;
}

static const int sync_pairs[][2] = {
  { GASNET_COLL_IN_NOSYNC, GASNET_COLL_OUT_NOSYNC }, { GASNET_COLL_IN_MYSYNC, GASNET_COLL_OUT_MYSYNC },
  { GASNET_COLL_IN_ALLSYNC, GASNET_COLL_OUT_ALLSYNC }, { GASNET_COLL_IN_NOSYNC, GASNET_COLL_OUT_ALLSYNC },
  { GASNET_COLL_IN_ALLSYNC, GASNET_COLL_OUT_NOSYNC },
};

static void test_broadcast(gasnet_node_t me, gasnet_node_t n, char *seg) {
  static const size_t sizes[] = { 0, 1, 1000, 65536 + 3, 1048576 + 5 };
  char *want = malloc(1048576 + 5), *src = malloc(1048576 + 5), stackbuf[256];
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    for (gasnet_node_t root = 0; root < n; root++) {
      size_t nb = sizes[s];
      int fl = sync_pairs[(s + root) % 5][0] | sync_pairs[(s + root) % 5][1];
      t_fill(want, nb, (uint32_t)(s * 100 + root));
      if (me == root) memcpy(src, want, nb);
      memset(seg, 0xee, nb + 1);
      gasnet_coll_broadcast(GASNET_TEAM_ALL, seg, root, src, nb, fl | GASNET_COLL_SINGLE);
      T_EXPECT(!memcmp(seg, want, nb) && (unsigned char)seg[nb] == 0xee,
               "broadcast of %zu bytes from root %u (flags %#x)", nb, (unsigned)root, (unsigned)fl);
      g_checked++;
    }
  }
  /* LOCAL: into a stack buffer, 50 back-to-back NOSYNC calls with rotating roots. */
  for (int k = 0; k < 50; k++) {
    gasnet_node_t root = (gasnet_node_t)k % n;
    uint64_t v = 0x1234567800000000ull + (uint64_t)k * 31 + root;
    memset(stackbuf, 0, sizeof stackbuf);
    gasnet_coll_broadcast(GASNET_TEAM_ALL, stackbuf, root, &v, sizeof v,
                          GASNET_COLL_IN_NOSYNC | GASNET_COLL_OUT_NOSYNC | GASNET_COLL_LOCAL);
    uint64_t got;
    memcpy(&got, stackbuf, sizeof got);
    T_EXPECT(got == v, "NOSYNC broadcast %d: %llx, want %llx", k, (unsigned long long)got,
             (unsigned long long)v);
    g_checked++;
  }
  free(want); free(src);
}

#if defined(GASNET_PAR)
static volatile int g_stop;
static void *poller(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) gasnet_AMPoll();
  return NULL;
}
#endif

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_nodeinfo_t early;
  T_CHECK(gasnet_getNodeInfo(&early, 1)); /* legal before attach */
  gasnet_handlerentry_t table[] = {
    { H_REQ, (void (*)())req_handler }, { H_REP, (void (*)())rep_handler },
    { H_REQ + 2, (void (*)())req_short },
  };
  T_CHECK(gasnet_attach(table, 3, 4u << 20, 0));
  gasnet_coll_init(NULL, 0, NULL, 0, 0);
  gasnet_seginfo_t *si = calloc(n, sizeof *si);
  T_CHECK(gasnet_getSegmentInfo(si, (int)n));
#if defined(GASNET_PAR)
  pthread_t pt;
  pthread_create(&pt, NULL, poller, NULL);
#endif
  test_nodeinfo(me, n);
  test_varargs_am((me + 1) % n, si[(me + 1) % n].addr);
  T_CHECK(gasnet_barrier(1, 0));
  test_barriers(me);
  test_broadcast(me, n, (char *)si[me].addr + 65536);
#if defined(GASNET_PAR)
  __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
  pthread_join(pt, NULL);
#endif
  printf("node %u: client extensions verified (%llu checks)\n", (unsigned)me,
         (unsigned long long)g_checked);
  fflush(stdout);
  T_CHECK(gasnet_barrier(2, 0));
  gasnet_exit(0);
}
