/*
 * t_ex_client.c - a GASNet-EX client (gex_Client_Init, gex_Segment_Attach,
 * no gasnet_attach, no gasnet_coll_init) that names itself as real clients
 * do and calls the GASNet-1 API, as Berkeley's library lets it (docs/api.md,
 * "Where we differ"), on any number of ranks. Each check prints what it
 * compared; the program exits 0 only when all matched (T_EXPECT ends the
 * job otherwise).
 *
 *   t_ex_client NAME     NAME the client name ("testam", "UPCXX", ...)
 *   t_ex_client --null   clientName NULL, then exit
 *   t_ex_client --empty  clientName "", then exit
 *
 *  - gex_Client_Init with clientName NULL or "" returns GASNET_ERR_BAD_ARG
 *    (the process then exits 0: a failed gex_Client_Init was its one
 *    call); with NAME it succeeds and gex_Client_QueryName returns NAME (a
 *    copy: the argument is overwritten first);
 *  - before gex_Segment_Attach: gasnet_barrier_notify/wait (anonymous and
 *    named), gex_Coll_BarrierBlocking, gasnet_coll_broadcast and
 *    gasnet_coll_gather_all of local buffers (GASNET_COLL_LOCAL), data
 *    checked;
 *  - the barrier results by Berkeley's rule (spec 3.5.0.2 as its library
 *    reads it, tests/extended/t_barrier.c): anonymous notify + named wait
 *    OK and gasnet_barrier_result says anonymous; named notify + anonymous
 *    wait OK and gasnet_barrier_result gives the id; node 0 named, the
 *    others anonymous and waiting with another id -> MISMATCH on them, OK
 *    on node 0 (2+ ranks); before and after attach;
 *  - after gex_Segment_Attach: gasnet_AMRequestShort2 to every rank (a
 *    handler registered by gex_EP_RegisterHandlers) answered by
 *    gasnet_AMReplyShort2, gasnet_put / gasnet_get of every peer's segment,
 *    gasnet_coll_broadcast from every root and gasnet_coll_exchange in the
 *    segment, data checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#define SEGSIZE (64u * GASNET_PAGESIZE)
#define ANON GASNET_BARRIERFLAG_ANONYMOUS

static gex_Rank_t me, n;
static gex_AM_Index_t h_ping, h_pong;
static volatile int pongs;

static void ping(gex_Token_t t, gex_AM_Arg_t a, gex_AM_Arg_t b) {
  gasnet_node_t src;
  T_CHECK(gasnet_AMGetMsgSource(t, &src));
  T_EXPECT(a == (gex_AM_Arg_t)(src * 100 + me) && b == -(gex_AM_Arg_t)src,
           "gasnet_AMRequestShort2 from %u: args %d %d", (unsigned)src, (int)a, (int)b);
  T_CHECK(gasnet_AMReplyShort2(t, h_pong, a + 1, b));
}
static void pong(gex_Token_t t, gex_AM_Arg_t a, gex_AM_Arg_t b) {
  gasnet_node_t src;
  T_CHECK(gasnet_AMGetMsgSource(t, &src));
  T_EXPECT(a == (gex_AM_Arg_t)(me * 100 + src + 1) && b == -(gex_AM_Arg_t)me,
           "gasnet_AMReplyShort2 from %u: args %d %d", (unsigned)src, (int)a, (int)b);
  pongs++;
}

/* ---- client names ------------------------------------------------------------- */
/* NULL or "": GASNET_ERR_BAD_ARG, and the process ends (a failed
 * gex_Client_Init is the one call: there is no job to exit). */
static void init_bad(const char *name, int *argc, char ***argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  int rc = gex_Client_Init(&client, &ep, &tm, name, argc, argv, 0);
  printf("gex_Client_Init(clientName %s): %s (expected GASNET_ERR_BAD_ARG)\n",
         name ? "\"\"" : "NULL", gasnet_ErrorName(rc));
  exit(rc == GASNET_ERR_BAD_ARG ? 0 : 4);
}

static gex_Client_t init_named(const char *name, gex_EP_t *ep, gex_TM_t *tm, int *argc,
                               char ***argv) {
  gex_Client_t client;
  char copy[128];
  snprintf(copy, sizeof copy, "%s", name);
  T_CHECK(gex_Client_Init(&client, ep, tm, copy, argc, argv, 0));
  memset(copy, 'x', strlen(copy)); /* the library must have kept its own copy */
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();
  const char *got = gex_Client_QueryName(client);
  printf("node %u: gex_Client_QueryName: '%s', expected '%s'\n", (unsigned)me,
         got ? got : "(null)", name);
  T_EXPECT(got && !strcmp(got, name), "gex_Client_QueryName");
  return client;
}

/* ---- barriers: the three cases of Berkeley's rule ------------------------------- */
static void barrier_case(const char *label, int nid, int nflags, int wid, int wflags, int want) {
  gasnet_barrier_notify(nid, nflags);
  int rc = gasnet_barrier_wait(wid, wflags);
  T_EXPECT(rc == want, "%s: gasnet_barrier_wait returned %s, want %s", label,
           gasnet_ErrorName(rc), gasnet_ErrorName(want));
  if (me == 0) printf("node 0: %s: %s, as expected\n", label, gasnet_ErrorName(rc));
}

static void barrier_rules(const char *when) {
  char label[160];
  snprintf(label, sizeof label, "%s: anonymous notify, named wait", when);
  barrier_case(label, 0, ANON, 7, 0, GASNET_OK);
  int id = -1, anon = gasnet_barrier_result(&id);
  T_EXPECT(anon != 0, "%s: gasnet_barrier_result says named (id %d)", label, id);

  snprintf(label, sizeof label, "%s: named notify (41), anonymous wait", when);
  barrier_case(label, 41, 0, 0, ANON, GASNET_OK);
  anon = gasnet_barrier_result(&id);
  T_EXPECT(anon == 0 && id == 41, "%s: gasnet_barrier_result %d, id %d, want 0 and 41", label,
           anon, id);
  if (me == 0) printf("node 0: %s: gasnet_barrier_result 0, id 41\n", label);

  if (n < 2) return;
  /* node 0 names 5; the others notify anonymously and wait naming 6:
   * the job agreed on 5, so only their named waits mismatch. */
  snprintf(label, sizeof label, "%s: node 0 named 5, others anonymous waiting 6", when);
  gasnet_barrier_notify(5, me == 0 ? 0 : ANON);
  int rc = gasnet_barrier_wait(me == 0 ? 5 : 6, 0);
  int want = me == 0 ? GASNET_OK : GASNET_ERR_BARRIER_MISMATCH;
  T_EXPECT(rc == want, "%s: node %u got %s, want %s", label, (unsigned)me, gasnet_ErrorName(rc),
           gasnet_ErrorName(want));
  printf("node %u: %s: %s, as expected\n", (unsigned)me, label, gasnet_ErrorName(rc));
  barrier_case("after the mismatch, an anonymous barrier", 0, ANON, 0, ANON, GASNET_OK);
}

/* ---- GASNet-1 collectives of local buffers, before the segment ------------------- */
static void colls_local(void) {
  for (gex_Rank_t root = 0; root < n; root++) {
    int src[4] = {0}, dst[4] = {-1, -1, -1, -1};
    if (me == root)
      for (int i = 0; i < 4; i++) src[i] = (int)(root * 1000 + (unsigned)i);
    gasnet_coll_broadcast(GASNET_TEAM_ALL, dst, root, src, sizeof src,
                          GASNET_COLL_LOCAL | GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC);
    for (int i = 0; i < 4; i++)
      T_EXPECT(dst[i] == (int)(root * 1000 + (unsigned)i), "broadcast from %u: [%d] = %d",
               (unsigned)root, i, dst[i]);
  }
  int mine = (int)(me * 3 + 1), *all = calloc(n, sizeof *all);
  gasnet_coll_gather_all(GASNET_TEAM_ALL, all, &mine, sizeof mine,
                         GASNET_COLL_LOCAL | GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC);
  for (gex_Rank_t r = 0; r < n; r++)
    T_EXPECT(all[r] == (int)(r * 3 + 1), "gather_all: [%u] = %d", (unsigned)r, all[r]);
  free(all);
  printf("node %u: before attach: gasnet_coll_broadcast from %u roots and gasnet_coll_gather_all "
         "of local buffers matched\n", (unsigned)me, (unsigned)n);
}

/* ---- after gex_Segment_Attach: AMs, put/get, collectives in the segment ---------- */
static void after_attach(gasnet_seginfo_t *si) {
  for (gex_Rank_t r = 0; r < n; r++)
    T_CHECK(gasnet_AMRequestShort2(r, h_ping, (gex_AM_Arg_t)(me * 100 + r), -(gex_AM_Arg_t)me));
  GASNET_BLOCKUNTIL(pongs == (int)n);
  printf("node %u: gasnet_AMRequestShort2 to %u ranks, %d replies matched\n", (unsigned)me,
         (unsigned)n, pongs);

  unsigned char out[512], back[512];
  for (gex_Rank_t r = 0; r < n; r++) { /* my slot of 512 bytes in each rank's segment */
    for (int i = 0; i < 512; i++) out[i] = (unsigned char)(me * 7 + r * 13 + (unsigned)i);
    char *slot = (char *)si[r].addr + (size_t)me * 512;
    gasnet_put(r, slot, out, sizeof out);
    memset(back, 0, sizeof back);
    gasnet_get(back, r, slot, sizeof back);
    T_EXPECT(!memcmp(out, back, sizeof out), "gasnet_put/gasnet_get to %u differ", (unsigned)r);
  }
  gasnet_barrier_notify(0, ANON);
  T_CHECK(gasnet_barrier_wait(0, ANON));
  for (gex_Rank_t r = 0; r < n; r++) { /* what r put into my segment */
    const unsigned char *p = (unsigned char *)si[me].addr + (size_t)r * 512;
    for (int i = 0; i < 512; i++)
      T_EXPECT(p[i] == (unsigned char)(r * 7 + me * 13 + (unsigned)i), "%u's put: byte %d",
               (unsigned)r, i);
  }
  printf("node %u: gasnet_put/gasnet_get with %u ranks matched\n", (unsigned)me, (unsigned)n);

  int *seg = (int *)((char *)si[me].addr + SEGSIZE / 2);
  for (gex_Rank_t root = 0; root < n; root++) {
    seg[0] = me == root ? (int)(root + 77) : 0;
    seg[1] = -1;
    gasnet_coll_broadcast(GASNET_TEAM_ALL, &seg[1], root, &seg[0], sizeof(int),
                          GASNET_COLL_LOCAL | GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC |
                              GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DST_IN_SEGMENT);
    T_EXPECT(seg[1] == (int)(root + 77), "segment broadcast from %u: %d", (unsigned)root, seg[1]);
  }
  int *src = seg + 4, *dst = seg + 4 + n;
  for (gex_Rank_t r = 0; r < n; r++) src[r] = (int)(me * 16 + r), dst[r] = -1;
  gasnet_coll_exchange(GASNET_TEAM_ALL, dst, src, sizeof(int),
                       GASNET_COLL_LOCAL | GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC |
                           GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DST_IN_SEGMENT);
  for (gex_Rank_t r = 0; r < n; r++)
    T_EXPECT(dst[r] == (int)(r * 16 + me), "exchange: [%u] = %d", (unsigned)r, dst[r]);
  printf("node %u: gasnet_coll_broadcast and gasnet_coll_exchange in the segment matched\n",
         (unsigned)me);
}

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "testam";
  if (!strcmp(name, "--null")) init_bad(NULL, &argc, &argv);
  if (!strcmp(name, "--empty")) init_bad("", &argc, &argv);
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Client_t client = init_named(name, &ep, &tm, &argc, &argv);
  gex_AM_Entry_t table[] = {
    {200, (gex_AM_Fn_t)ping, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "ping"},
    {201, (gex_AM_Fn_t)pong, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "pong"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, table, 2));
  h_ping = table[0].gex_index; h_pong = table[1].gex_index;

  /* Before the segment: barriers of both APIs, then collectives. */
  gasnet_barrier_notify(0, ANON);
  T_CHECK(gasnet_barrier_wait(0, ANON));
  gasnet_barrier_notify(12, 0);
  T_CHECK(gasnet_barrier_wait(12, 0));
  gex_Coll_BarrierBlocking(tm, 0);
  printf("node %u: before attach: gasnet_barrier_notify/wait anonymous and named (12), "
         "gex_Coll_BarrierBlocking completed\n", (unsigned)me);
  barrier_rules("before attach");
  colls_local();

  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, SEGSIZE));
  gasnet_seginfo_t *si = malloc(sizeof *si * n);
  T_CHECK(gasnet_getSegmentInfo(si, (int)n));
  T_EXPECT(n * 512 <= SEGSIZE / 2, "too many ranks for the segment's slots");
  barrier_rules("after attach");
  after_attach(si);
  gex_Coll_BarrierBlocking(tm, 0);
  (void)client;
  printf("node %u: all GASNet-EX client checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
