/*
 * t_ex_bseg.c MODE - GASNet-EX segments made by gex_Segment_Create, bound by
 * gex_EP_BindSegment and made known by gex_EP_PublishBoundSegment (spec
 * v0.19, [PROPOSED]; the alternative to gex_Segment_Attach), on any number
 * of ranks up to 8. Each check prints what it compared; the program exits 0
 * only when all matched (T_EXPECT ends the job otherwise).
 *
 *   t_ex_bseg gasnet   the segment allocated by GASNet (address NULL)
 *   t_ex_bseg client   allocated by the client (page-aligned malloc): the
 *                      neighbours reach it through AMs, never mapped
 *
 *  - gex_MK_Create of GEX_MK_CLASS_CUDA_UVA, _HIP, _ZE: GASNET_ERR_BAD_ARG; of
 *    GEX_MK_CLASS_HOST a kind gex_Segment_Create takes, then destroyed;
 *  - gex_Segment_Create: segment_p NULL, length 0, flags 1 ->
 *    GASNET_ERR_BAD_ARG; a second segment created and destroyed unbound;
 *    gex_Segment_QueryAddr/Size of the one made;
 *  - gex_EP_BindSegment: GEX_EP_INVALID, GEX_SEGMENT_INVALID, flags 1 ->
 *    GASNET_ERR_BAD_ARG; then the bind succeeds; a second bind (another
 *    segment) -> GASNET_ERR_BAD_ARG, and that segment is destroyed unbound;
 *  - gex_EP_PublishBoundSegment, in this order: (a) on the primordial team
 *    with num_eps 0 on the odd ranks, (b) on a team split from it in
 *    reversed rank order, every rank publishing, (c) on the primordial
 *    team again, every rank (a second publish of the same segment); after
 *    each, gex_EP_QueryBoundSegmentNB of every rank, through the primordial
 *    and the split team, gives GEX_EVENT_INVALID and each published rank's
 *    address and size (gathered beforehand by gasnet_coll_gather_all),
 *    size 0 and NULLs for a rank not yet published; for the caller's own
 *    the segment whether it published or not; a local address NULL for a
 *    client-allocated segment, or where a neighbour's GASNet-allocated one is
 *    mapped (then checked to hold what was put there); after (b) and (c): gex_RMA_PutBlocking,
 *    gex_RMA_GetBlocking, gex_RMA_PutNBI and an AM Long into my slot of
 *    every rank's bound segment, through the primordial team after (b) and
 *    the split team after (c), each rank then checking all slots of its
 *    own segment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "gasnet_mk.h"
#include "../lib/t_check.h"

#define MAXN 8
#define SEGLEN (MAXN * 3 * 4096u) /* per sender: a put/get slot, an NBI slot, a Long slot */

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm, rev;
static gex_Rank_t me, n;
static gex_Segment_t seg;
static gex_AM_Index_t h_long;
static volatile int longs_in;
typedef struct { void *addr; uintptr_t size; } t_seg;
static t_seg all[MAXN]; /* every rank's bound segment, as it says */
static void *mapped[MAXN]; /* where the query says a neighbour's is mapped here */
static int client_alloc;

static void h_long_fn(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t seed) {
  gex_Token_Info_t ti;
  gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
  char *want = (char *)all[me].addr + ((size_t)ti.gex_srcrank * 3 + 2) * 4096;
  T_EXPECT(buf == want && len == 4096, "Long from %u at %p (want %p), %zu bytes",
           (unsigned)ti.gex_srcrank, buf, (void *)want, len);
  (void)seed;
  longs_in++;
}

static void fill(unsigned char *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++) p[i] = (unsigned char)(seed * 29 + i * 5 + (i >> 9));
}
static int check(const unsigned char *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != (unsigned char)(seed * 29 + i * 5 + (i >> 9))) return 0;
  return 1;
}

/* ---- the refusals ------------------------------------------------------------------ */
static void kinds(void) {
  static const gex_MK_Class_t cls[] = {GEX_MK_CLASS_CUDA_UVA, GEX_MK_CLASS_HIP, GEX_MK_CLASS_ZE};
  for (int i = 0; i < 3; i++) {
    gex_MK_Create_args_t a;
    memset(&a, 0, sizeof a);
    a.gex_class = cls[i];
    gex_MK_t mk;
    int rc = gex_MK_Create(&mk, client, &a, 0);
    T_EXPECT(rc == GASNET_ERR_BAD_ARG, "gex_MK_Create(class %d): %s", (int)cls[i],
             gasnet_ErrorName(rc));
  }
  if (me == 0) printf("node 0: gex_MK_Create of CUDA_UVA, HIP, ZE: GASNET_ERR_BAD_ARG each\n");
  /* A host kind of gex_MK_Create serves gex_Segment_Create as GEX_MK_HOST does. */
  gex_MK_Create_args_t a;
  memset(&a, 0, sizeof a);
  a.gex_class = GEX_MK_CLASS_HOST;
  gex_MK_t host = GEX_MK_INVALID;
  T_CHECK(gex_MK_Create(&host, client, &a, 0));
  gex_Segment_t s = GEX_SEGMENT_INVALID;
  T_CHECK(gex_Segment_Create(&s, client, NULL, SEGLEN, host, 0));
  unsigned char *p = gex_Segment_QueryAddr(s);
  fill(p, SEGLEN, 3);
  T_EXPECT(check(p, SEGLEN, 3), "a segment of a created host kind does not hold its data");
  gex_Segment_Destroy(s, 0);
  gex_MK_Destroy(host, 0);
  if (me == 0) printf("node 0: gex_MK_Create of GEX_MK_CLASS_HOST: a kind gex_Segment_Create "
                      "takes (%d bytes written and read back), then destroyed\n", (int)SEGLEN);
}

static gex_Segment_t create(void *addr, const char *what) {
  gex_Segment_t s = GEX_SEGMENT_INVALID;
  T_CHECK(gex_Segment_Create(&s, client, addr, SEGLEN, GEX_MK_HOST, 0));
  T_EXPECT(s != GEX_SEGMENT_INVALID && gex_Segment_QuerySize(s) >= SEGLEN &&
               (!addr || gex_Segment_QueryAddr(s) == addr) && gex_Segment_QueryAddr(s),
           "%s: gex_Segment_Create gave %p of %lu bytes", what, gex_Segment_QueryAddr(s),
           (unsigned long)gex_Segment_QuerySize(s));
  return s;
}

static void make_and_bind(int client_alloc) {
  gex_Segment_t s;
  int rc = gex_Segment_Create(NULL, client, NULL, SEGLEN, GEX_MK_HOST, 0);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG, "segment_p NULL: %s", gasnet_ErrorName(rc));
  rc = gex_Segment_Create(&s, client, NULL, 0, GEX_MK_HOST, 0);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG, "length 0: %s", gasnet_ErrorName(rc));
  rc = gex_Segment_Create(&s, client, NULL, SEGLEN, GEX_MK_HOST, 1);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG, "flags 1: %s", gasnet_ErrorName(rc));
  gex_Segment_Destroy(create(NULL, "unbound"), 0);

  void *mem = NULL;
  if (client_alloc) T_EXPECT(posix_memalign(&mem, GASNET_PAGESIZE, SEGLEN) == 0, "memalign");
  seg = create(mem, client_alloc ? "client-allocated" : "GASNet-allocated");
  rc = gex_EP_BindSegment(GEX_EP_INVALID, seg, 0);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG, "bind to GEX_EP_INVALID: %s", gasnet_ErrorName(rc));
  rc = gex_EP_BindSegment(ep, GEX_SEGMENT_INVALID, 0);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG, "bind GEX_SEGMENT_INVALID: %s", gasnet_ErrorName(rc));
  rc = gex_EP_BindSegment(ep, seg, 1);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG, "bind with flags 1: %s", gasnet_ErrorName(rc));
  T_CHECK(gex_EP_BindSegment(ep, seg, 0));
  gex_Segment_t other = create(NULL, "second");
  rc = gex_EP_BindSegment(ep, other, 0);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG, "a second bind: %s", gasnet_ErrorName(rc));
  gex_Segment_Destroy(other, 0);
  memset(gex_Segment_QueryAddr(seg), 0, SEGLEN);
  printf("node %u: %s segment of %lu bytes bound; the refusals were GASNET_ERR_BAD_ARG; "
         "two unbound segments destroyed\n", (unsigned)me,
         client_alloc ? "client-allocated" : "GASNet-allocated",
         (unsigned long)gex_Segment_QuerySize(seg));
}

/* ---- the queries --------------------------------------------------------------------- */
/* published[r]: rank r's segment should be known. Through team t, whose
 * rank k is job rank jobrank(k). */
static void queries(const char *when, gex_TM_t t, const int *published) {
  gex_Rank_t size = gex_TM_QuerySize(t);
  for (gex_Rank_t k = 0; k < size; k++) {
    gex_Rank_t r = t == tm ? k : n - 1 - k; /* rev is the reversed order */
    void *owner = (void *)1, *local = (void *)1;
    uintptr_t sz = 1;
    gex_Event_t ev = gex_EP_QueryBoundSegmentNB(t, k, &owner, &local, &sz, 0);
    T_EXPECT(ev == GEX_EVENT_INVALID, "%s: the query of rank %u returned an event", when,
             (unsigned)k);
    if (r == me) { /* my own bound segment: known here, published or not */
      T_EXPECT(owner == all[r].addr && sz == all[r].size && local == all[r].addr,
               "%s: my own segment: owner %p size %lu local %p; want %p %lu %p", when, owner,
               (unsigned long)sz, local, all[r].addr, (unsigned long)all[r].size, all[r].addr);
    } else if (published[r]) {
      /* local: NULL, or where a neighbour's GASNet-allocated segment is
       * mapped here (traffic() checks it aliases); never a client's */
      T_EXPECT(owner == all[r].addr && sz == all[r].size && (!client_alloc || !local),
               "%s: team rank %u (job %u): owner %p size %lu local %p; want %p %lu%s", when,
               (unsigned)k, (unsigned)r, owner, (unsigned long)sz, local, all[r].addr,
               (unsigned long)all[r].size, client_alloc ? " NULL" : "");
      if (local) mapped[r] = local;
    } else {
      T_EXPECT(sz == 0 && owner == NULL && local == NULL,
               "%s: unpublished job rank %u: owner %p size %lu local %p", when, (unsigned)r,
               owner, (unsigned long)sz, local);
    }
  }
}

/* ---- the traffic ------------------------------------------------------------------------ */
static void traffic(const char *when, gex_TM_t t, unsigned round) {
  unsigned char buf[4096], back[4096];
  gex_Rank_t size = gex_TM_QuerySize(t);
  for (gex_Rank_t k = 0; k < size; k++) {
    gex_Rank_t r = t == tm ? k : n - 1 - k;
    char *base = (char *)all[r].addr + (size_t)me * 3 * 4096;
    unsigned seed = round * 100 + me * 10 + r;
    fill(buf, sizeof buf, seed);
    T_CHECK(gex_RMA_PutBlocking(t, k, base, buf, sizeof buf, 0));
    memset(back, 0, sizeof back);
    T_CHECK(gex_RMA_GetBlocking(t, back, k, base, sizeof back, 0));
    T_EXPECT(!memcmp(buf, back, sizeof buf), "%s: put/get with job rank %u differ", when,
             (unsigned)r);
    static unsigned char nbi[MAXN][4096];
    fill(nbi[r], 4096, seed + 1);
    gex_RMA_PutNBI(t, k, base + 4096, nbi[r], 4096, GEX_EVENT_DEFER, 0);
    fill(buf, sizeof buf, seed + 2);
    gex_AM_RequestLong(t, k, h_long, buf, sizeof buf, base + 2 * 4096, GEX_EVENT_NOW, 0,
                       (gex_AM_Arg_t)seed);
  }
  gex_NBI_Wait(GEX_EC_ALL, 0);
  GASNET_BLOCKUNTIL(longs_in == (int)(n * round));
  gex_Coll_BarrierBlocking(tm, 0);
  for (gex_Rank_t r = 0; r < n; r++) { /* what rank r wrote into my segment */
    const unsigned char *p = (unsigned char *)all[me].addr + (size_t)r * 3 * 4096;
    unsigned seed = round * 100 + r * 10 + me;
    T_EXPECT(check(p, 4096, seed) && check(p + 4096, 4096, seed + 1) &&
                 check(p + 8192, 4096, seed + 2),
             "%s: what rank %u put, put NBI or sent by Long into my segment is wrong", when,
             (unsigned)r);
  }
  int nmapped = 0;
  for (gex_Rank_t r = 0; r < n; r++) { /* a mapping the query gave shows what I wrote */
    if (!mapped[r] || r == me) continue;
    const unsigned char *p = (unsigned char *)mapped[r] + (size_t)me * 3 * 4096;
    unsigned seed = round * 100 + me * 10 + r;
    T_EXPECT(check(p, 4096, seed) && check(p + 8192, 4096, seed + 2),
             "%s: rank %u's segment mapped here at %p does not hold what I wrote", when,
             (unsigned)r, mapped[r]);
    nmapped++;
  }
  gex_Coll_BarrierBlocking(tm, 0);
  printf("node %u: %s: put, get, put NBI and AM Long with %u ranks matched; %d neighbours' "
         "segments mapped here\n", (unsigned)me, when, (unsigned)n, nmapped);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "gasnet";
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "t_ex_bseg", &argc, &argv, 0));
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();
  T_EXPECT(n <= MAXN, "run on 1 to %d ranks", MAXN);
  gex_AM_Entry_t e = {0, (gex_AM_Fn_t)h_long_fn, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL,
                      "long"};
  T_CHECK(gex_EP_RegisterHandlers(ep, &e, 1));
  h_long = e.gex_index;
  kinds();
  client_alloc = !strcmp(mode, "client");
  make_and_bind(client_alloc);

  t_seg mine = {gex_Segment_QueryAddr(seg), gex_Segment_QuerySize(seg)};
  gasnet_coll_gather_all(GASNET_TEAM_ALL, all, &mine, sizeof mine,
                         GASNET_COLL_LOCAL | GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC);
  gex_TM_Split(&rev, tm, 0, (int)(n - 1 - me), NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  T_EXPECT(gex_TM_QueryRank(rev) == n - 1 - me, "the split team's rank %u",
           (unsigned)gex_TM_QueryRank(rev));

  int published[MAXN] = {0};
  gex_EP_t eps[1] = {ep};
  T_CHECK(gex_EP_PublishBoundSegment(tm, eps, me % 2 ? 0 : 1, 0));
  for (gex_Rank_t r = 0; r < n; r++) published[r] = r % 2 == 0;
  queries("(a) even ranks published", tm, published);
  queries("(a) through the split team", rev, published);
  /* No rank publishes on the next team before every rank has queried: a
   * rank one publish ahead is heard as soon as it sends (core). */
  gex_Coll_BarrierBlocking(tm, 0);
  printf("node %u: (a) the primordial team, num_eps 0 on odd ranks: queries matched\n",
         (unsigned)me);

  T_CHECK(gex_EP_PublishBoundSegment(rev, eps, 1, 0));
  for (gex_Rank_t r = 0; r < n; r++) published[r] = 1;
  queries("(b) all published on the split team", tm, published);
  queries("(b) through the split team", rev, published);
  printf("node %u: (b) the reversed split team: queries matched\n", (unsigned)me);
  traffic("(b) through the primordial team", tm, 1);

  T_CHECK(gex_EP_PublishBoundSegment(tm, eps, 1, 0));
  queries("(c) published again", tm, published);
  printf("node %u: (c) the primordial team again: queries matched\n", (unsigned)me);
  traffic("(c) through the split team", rev, 2);

  gex_Coll_BarrierBlocking(tm, 0);
  printf("node %u: all bound-segment checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
