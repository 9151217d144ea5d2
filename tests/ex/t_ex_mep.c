/*
 * t_ex_mep.c MODE - more than one endpoint per process (spec v0.19,
 * [PROPOSED] gex_EP_Create, gex_TM_Pair; the memory-kinds document's
 * pattern: create an EP, create a segment, bind it, publish it, reach it
 * through TM-pairs), on 1 to 8 ranks. Each check prints what it compared;
 * the program exits 0 only when all matched (T_EXPECT ends the job).
 *
 *   MODE gasnet   EP 2's segment is allocated by GASNet (a neighbour maps it)
 *   MODE client   allocated by the client (reached through AMs only)
 *   MODE par      (built with GASNET_PAR) then 3 threads at once, each RMA
 *                 through a TM-pair of its own EP and AM round trips to the
 *                 peers' EP 2, every byte compared (t-ex-mep.sh runs it
 *                 under ThreadSanitizer)
 *   MODE <case>   one misuse, which must end the job (t-ex-mep.sh)
 *
 * Every rank attaches EP 0's segment, creates EP 1 (RMA only) and EP 2
 * (every capability), gives each a segment of its own and publishes both.
 * Then, with every rank including itself:
 *  - RMA: puts into EP 1's and EP 2's segments of the peer through
 *    TM-pairs from EP 0, EP 1 and EP 2 (blocking, NBI, NB, a 192 KiB one in
 *    chunks), gets back from them (into EP 1's own segment, where the reply
 *    is a Long, and into private memory), a strided VIS put;
 *  - AMs: Medium and Long requests from EP 0 to the peer's EP 2, whose
 *    handlers check gex_Token_Info (the EP the message came to, its sender)
 *    and reply, the reply reaching EP 0 (a Long reply into EP 0's segment);
 *    a Short from EP 2 to the peer's EP 0, replied to EP 2; one to EP 3,
 *    made after EP 0's handlers were registered, which runs the handler EP
 *    3 inherited; a negotiated-payload Medium through a TM-pair;
 *  - every rank then checks each segment of its own against the model,
 *    EP 0's untouched except where the Long replies landed: no byte went
 *    to the wrong endpoint;
 *  - before the publish: the peers' EP 1 is unknown (query size 0), and the
 *    caller's own EP 1 is reached by loopback RMA anyway;
 *  - EP 4 bound to EP 1's segment (one segment, two EPs);
 *  - gex_EP_Create refusals: no capability (GASNET_ERR_BAD_ARG), and more
 *    than GASNET_MAXEPS (GASNET_ERR_RESOURCE).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(GASNET_PAR)
#include <pthread.h>
#endif
#include "gasnetex.h"
#include "gasnet_mk.h"
#include "../lib/t_check.h"

#define MAXN 8
#define SLOT 8192u
#define BIG (192u * 1024) /* a put of several chunks */
#define SEGLEN (MAXN * (4 * SLOT + BIG))
#define SLOTAT(base, sender, k) ((char *)(base) + ((size_t)(sender) * 4 + (k)) * SLOT)
#define BIGAT(base, sender) ((char *)(base) + MAXN * 4 * SLOT + (size_t)(sender) * BIG)

static gex_Client_t client;
static gex_EP_t ep0, ep1, ep2, ep3, ep4;
static gex_TM_t tm;
static gex_Rank_t me, n;
static gex_Segment_t s0, s1, s2;
static gex_AM_Index_t h_req2, h_rep0, h_req0, h_rep2, h_inh, h_ping, h_pong;
static volatile int reps0, reps2;
typedef struct { char *addr; uintptr_t size; void *local; } t_seg;
static t_seg seg1[MAXN], seg2[MAXN]; /* every rank's EP 1 and EP 2 segments, as queried */

static unsigned char pat(unsigned seed, size_t i) { return (unsigned char)(seed * 29 + i * 7 + (i >> 9)); }
static void fill(void *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++) ((unsigned char *)p)[i] = pat(seed, i);
}
static int check(const void *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++)
    if (((const unsigned char *)p)[i] != pat(seed, i)) return 0;
  return 1;
}
static unsigned seed_of(gex_Rank_t from, gex_Rank_t to, unsigned k) { return from * 97 + to * 13 + k; }
static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }
static void *hl(gex_AM_Arg_t hi, gex_AM_Arg_t lo) {
  return (void *)(uintptr_t)(((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo);
}
#define HI(p) ((gex_AM_Arg_t)((uint64_t)(uintptr_t)(p) >> 32))
#define LO(p) ((gex_AM_Arg_t)(uint32_t)(uintptr_t)(p))

/* ---- handlers ------------------------------------------------------------------------ */
static void expect_token(gex_Token_t t, gex_EP_t want_ep, gex_AM_Index_t want_idx, gex_Rank_t *src) {
  gex_Token_Info_t ti;
  gex_Token_Info(t, &ti, GEX_TI_SRCRANK | GEX_TI_EP | GEX_TI_ENTRY);
  T_EXPECT(ti.gex_ep == want_ep && ti.gex_entry->gex_index == want_idx,
           "handler %u ran in EP %u (want EP %u), entry %u", (unsigned)want_idx,
           (unsigned)gex_EP_QueryIndex(ti.gex_ep), (unsigned)gex_EP_QueryIndex(want_ep),
           (unsigned)ti.gex_entry->gex_index);
  *src = ti.gex_srcrank;
}

/* On EP 2: a Medium (dest NULL) or Long request; echoes the payload back
 * to the sender's EP, as a Medium or as a Long to (hi, lo). */
static void h_req2_fn(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t seed, gex_AM_Arg_t hi,
                      gex_AM_Arg_t lo) {
  gex_Rank_t src;
  expect_token(t, ep2, h_req2, &src);
  T_EXPECT(check(buf, len, (unsigned)seed), "EP 2: request from %u: payload differs", (unsigned)src);
  if (hi || lo) {
    T_EXPECT(buf == SLOTAT(gex_Segment_QueryAddr(s2), src, 2) && len == SLOT,
             "EP 2: a Long from %u at %p, want %p", (unsigned)src, buf,
             (void *)SLOTAT(gex_Segment_QueryAddr(s2), src, 2));
    gex_AM_ReplyLong1(t, h_rep0, buf, len, hl(hi, lo), GEX_EVENT_NOW, 0, seed);
  } else {
    gex_AM_ReplyMedium1(t, h_rep0, buf, len, GEX_EVENT_NOW, 0, seed);
  }
}
/* On EP 0: the echo. */
static void h_rep0_fn(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t seed) {
  gex_Rank_t src;
  expect_token(t, ep0, h_rep0, &src);
  T_EXPECT(check(buf, len, (unsigned)seed), "EP 0: reply from %u: payload differs", (unsigned)src);
  reps0++;
}
/* On EP 0: a Short from a peer's EP 2, answered there. */
static void h_req0_fn(gex_Token_t t, gex_AM_Arg_t x) {
  gex_Rank_t src;
  expect_token(t, ep0, h_req0, &src);
  gex_AM_ReplyShort2(t, h_rep2, 0, x + 1, (gex_AM_Arg_t)me);
}
/* Registered on EP 0 before EP 3 was made: runs in EP 3, which inherited it. */
static void h_inh_fn(gex_Token_t t, gex_AM_Arg_t x) {
  gex_Rank_t src;
  expect_token(t, ep3, h_inh, &src);
  gex_AM_ReplyShort2(t, h_rep2, 0, x + 1, (gex_AM_Arg_t)me);
}
/* On EP 2: answered to the sender's EP, which counts at (hi, lo). */
static void h_ping_fn(gex_Token_t t, gex_AM_Arg_t hi, gex_AM_Arg_t lo) {
  gex_AM_ReplyShort2(t, h_pong, 0, hi, lo);
}
static void h_pong_fn(gex_Token_t t, gex_AM_Arg_t hi, gex_AM_Arg_t lo) {
  (void)t;
  __atomic_fetch_add((int *)hl(hi, lo), 1, __ATOMIC_RELEASE);
}
static void h_rep2_fn(gex_Token_t t, gex_AM_Arg_t x, gex_AM_Arg_t from) {
  gex_Rank_t src;
  expect_token(t, ep2, h_rep2, &src);
  T_EXPECT(src == (gex_Rank_t)from && x == (gex_AM_Arg_t)(me * 3 + 1), "EP 2: reply %d from %u",
           (int)x, (unsigned)src);
  reps2++;
}

static void handlers(void) {
  gex_AM_Entry_t on2[] = {
    { 0, (gex_AM_Fn_t)h_req2_fn, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQUEST, 3, NULL, "req2" },
    { 0, (gex_AM_Fn_t)h_rep2_fn, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "rep2" },
    { 0, (gex_AM_Fn_t)h_ping_fn, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "ping" },
  };
  gex_AM_Entry_t on0[] = {
    { 0, (gex_AM_Fn_t)h_rep0_fn, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REPLY, 1, NULL, "rep0" },
    { 0, (gex_AM_Fn_t)h_req0_fn, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "req0" },
    { 0, (gex_AM_Fn_t)h_inh_fn, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "inh" },
    { 0, (gex_AM_Fn_t)h_pong_fn, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "pong" },
  };
  T_CHECK(gex_EP_RegisterHandlers(ep2, on2, 3));
  T_CHECK(gex_EP_RegisterHandlers(ep0, on0, 4));
  h_req2 = on2[0].gex_index, h_rep2 = on2[1].gex_index, h_ping = on2[2].gex_index;
  h_rep0 = on0[0].gex_index, h_req0 = on0[1].gex_index, h_inh = on0[2].gex_index;
  h_pong = on0[3].gex_index;
}

/* EP 3 (AM) made after EP 0's handlers: it has them too. EP 4 (RMA) bound
 * to EP 1's segment: one segment may serve two EPs. */
static void more_endpoints(void) {
  T_CHECK(gex_EP_Create(&ep3, client, GEX_EP_CAPABILITY_AM, 0));
  T_CHECK(gex_EP_Create(&ep4, client, GEX_EP_CAPABILITY_RMA, 0));
  T_CHECK(gex_EP_BindSegment(ep4, s1, 0));
  T_EXPECT(gex_EP_QueryIndex(ep3) == 3 && gex_EP_QueryIndex(ep4) == 4 &&
               gex_EP_QuerySegment(ep4) == s1, "EP 3 and EP 4");
}

/* ---- endpoints and segments ---------------------------------------------------------- */
static void endpoints(int client_alloc) {
  T_CHECK(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_RMA, 0));
  T_CHECK(gex_EP_Create(&ep2, client, GEX_EP_CAPABILITY_ALL, GEX_FLAG_HINT_ACCEL_ALL));
  T_EXPECT(gex_EP_QueryIndex(ep0) == 0 && gex_EP_QueryIndex(ep1) == 1 && gex_EP_QueryIndex(ep2) == 2,
           "indexes %u %u %u", (unsigned)gex_EP_QueryIndex(ep0), (unsigned)gex_EP_QueryIndex(ep1),
           (unsigned)gex_EP_QueryIndex(ep2));
  T_EXPECT(gex_EP_QueryClient(ep2) == client && gex_EP_QueryFlags(ep2) == GEX_FLAG_HINT_ACCEL_ALL &&
               gex_EP_QuerySegment(ep1) == GEX_SEGMENT_INVALID,
           "EP 2's client or flags, or EP 1 has a segment already");
  T_CHECK(gex_Segment_Create(&s1, client, NULL, SEGLEN, GEX_MK_HOST, 0));
  void *mem = NULL;
  if (client_alloc) T_EXPECT(posix_memalign(&mem, GASNET_PAGESIZE, SEGLEN) == 0, "memalign");
  T_CHECK(gex_Segment_Create(&s2, client, mem, SEGLEN, GEX_MK_HOST, 0));
  T_CHECK(gex_EP_BindSegment(ep1, s1, 0));
  T_CHECK(gex_EP_BindSegment(ep2, s2, 0));
  gex_System_SetVerboseErrors(0);
  int rc = gex_EP_BindSegment(ep2, s1, 0);
  gex_System_SetVerboseErrors(1);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG && gex_EP_QuerySegment(ep1) == s1 && gex_EP_QuerySegment(ep2) == s2,
           "binds: a second one gave %s", gasnet_ErrorName(rc));
  memset(gex_Segment_QueryAddr(s1), 0, SEGLEN);
  memset(gex_Segment_QueryAddr(s2), 0, SEGLEN);
  fill(gex_Segment_QueryAddr(s0), SEGLEN, 1000 + me); /* EP 0's: must stay as it is */
  printf("node %u: EPs of index 1 (RMA) and 2 (ALL) created; %s segment for EP 2; both bound\n",
         (unsigned)me, client_alloc ? "a client-allocated" : "a GASNet-allocated");
}

/* Before the publish: nobody else's EP 1 is known, my own is reachable. */
static void before_publish(void) {
  gex_TM_t p01 = gex_TM_Pair(ep0, 1);
  for (gex_Rank_t r = 0; r < n; r++) {
    uintptr_t sz = 1;
    void *owner = (void *)1;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(p01, r, &owner, NULL, &sz, 0));
    if (r == me) T_EXPECT(owner == gex_Segment_QueryAddr(s1) && sz >= SEGLEN, "my own EP 1: %p %lu",
                          owner, (unsigned long)sz);
    else T_EXPECT(sz == 0, "rank %u's EP 1 known before it was published (size %lu)", (unsigned)r,
                  (unsigned long)sz);
  }
  unsigned char buf[256], back[256];
  char *mine = SLOTAT(gex_Segment_QueryAddr(s1), me, 3);
  fill(buf, sizeof buf, 7);
  T_CHECK(gex_RMA_PutBlocking(p01, me, mine, buf, sizeof buf, 0));
  T_CHECK(gex_RMA_GetBlocking(p01, back, me, mine, sizeof back, 0));
  T_EXPECT(check(back, sizeof back, 7) && check(mine, sizeof buf, 7), "loopback RMA to my EP 1");
  memset(mine, 0, sizeof buf);
  printf("node %u: before the publish: the peers' EP 1 unknown (size 0), loopback RMA to my "
         "own EP 1 written and read back\n", (unsigned)me);
}

static void publish(int client_alloc) {
  gex_EP_t eps[2] = { ep1, ep2 };
  T_CHECK(gex_EP_PublishBoundSegment(tm, eps, 2, 0));
  for (gex_Rank_t r = 0; r < n; r++) {
    t_seg *q[2] = { &seg1[r], &seg2[r] };
    for (int i = 0; i < 2; i++) {
      void *owner, *local;
      gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(ep0, (gex_EP_Index_t)(i + 1)), r,
                                                &owner, &local, &q[i]->size, 0));
      q[i]->addr = owner, q[i]->local = local;
      T_EXPECT(q[i]->size >= SEGLEN && owner, "rank %u's EP %d: %p %lu", (unsigned)r, i + 1,
               owner, (unsigned long)q[i]->size);
      if (r == me)
        T_EXPECT(owner == gex_Segment_QueryAddr(i ? s2 : s1) && local == owner, "my own EP %d", i + 1);
      else if (i == 1 && client_alloc)
        T_EXPECT(!local, "rank %u's client-allocated segment mapped here", (unsigned)r);
    }
  }
  printf("node %u: published; every rank's EP 1 and EP 2 segment known here\n", (unsigned)me);
}

/* ---- the traffic ------------------------------------------------------------------------ */
static void rma(void) {
  static unsigned char buf[BIG], back[BIG];
  gex_TM_t p01 = gex_TM_Pair(ep0, 1), p11 = gex_TM_Pair(ep1, 1), p12 = gex_TM_Pair(ep1, 2),
           p22 = gex_TM_Pair(ep2, 2);
  char *scratch = SLOTAT(gex_Segment_QueryAddr(s1), me, 3); /* only I write it */
  for (gex_Rank_t r = 0; r < n; r++) {
    fill(buf, SLOT, seed_of(me, r, 0));
    T_CHECK(gex_RMA_PutBlocking(p01, r, SLOTAT(seg1[r].addr, me, 0), buf, SLOT, 0));
    T_CHECK(gex_RMA_GetBlocking(p11, scratch, r, SLOTAT(seg1[r].addr, me, 0), SLOT, 0));
    T_EXPECT(check(scratch, SLOT, seed_of(me, r, 0)), "get into EP 1's segment from %u", (unsigned)r);
    memset(back, 0, SLOT);
    T_CHECK(gex_RMA_GetBlocking(p11, back, r, SLOTAT(seg1[r].addr, me, 0), SLOT, 0));
    T_EXPECT(check(back, SLOT, seed_of(me, r, 0)), "get into private memory from %u", (unsigned)r);
    /* a strided put: 32 rows of 64 bytes, every other 64 */
    size_t cnt[1] = { 32 };
    ptrdiff_t dst[1] = { 128 }, src[1] = { 64 };
    fill(buf, 64 * 32, seed_of(me, r, 1));
    T_CHECK(gex_VIS_StridedPutBlocking(p01, r, SLOTAT(seg1[r].addr, me, 1), dst, buf, src, 64, cnt, 1, 0));
    fill(buf, BIG, seed_of(me, r, 5));
    T_CHECK(gex_RMA_PutBlocking(p01, r, BIGAT(seg1[r].addr, me), buf, BIG, 0));
    static unsigned char nbi[SLOT], nb[SLOT];
    fill(nbi, SLOT, seed_of(me, r, 2));
    gex_RMA_PutNBI(p12, r, SLOTAT(seg2[r].addr, me, 0), nbi, SLOT, GEX_EVENT_DEFER, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    fill(nb, SLOT, seed_of(me, r, 3));
    gex_Event_Wait(gex_RMA_PutNB(p22, r, SLOTAT(seg2[r].addr, me, 1), nb, SLOT, GEX_EVENT_DEFER, 0));
  }
  memset(scratch, 0, SLOT);
  printf("node %u: RMA with every rank through TM-pairs (0,1), (1,1), (1,2), (2,2): puts, gets "
         "into EP 1's segment and into private memory, a strided VIS put, a %u KiB put\n",
         (unsigned)me, BIG / 1024);
}

static void ams(void) {
  static unsigned char buf[SLOT];
  gex_TM_t p02 = gex_TM_Pair(ep0, 2), p20 = gex_TM_Pair(ep2, 0);
  char *s0base = gex_Segment_QueryAddr(s0);
  for (gex_Rank_t r = 0; r < n; r++) {
    int want = reps0 + 3, want2 = reps2 + 2;
    fill(buf, 1000, seed_of(me, r, 6));
    gex_AM_RequestMedium3(p02, r, h_req2, buf, 1000, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)seed_of(me, r, 6), 0, 0);
    fill(buf, SLOT, seed_of(me, r, 7));
    char *back = SLOTAT(s0base, r, 0); /* where the Long reply lands, in EP 0's segment */
    static unsigned char saved[SLOT];
    memcpy(saved, back, SLOT);
    gex_AM_RequestLong3(p02, r, h_req2, buf, SLOT, SLOTAT(seg2[r].addr, me, 2), GEX_EVENT_NOW, 0,
                        (gex_AM_Arg_t)seed_of(me, r, 7), HI(back), LO(back));
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(p02, r, NULL, 500, 500, NULL, 0, 3);
    fill(gex_AM_SrcDescAddr(sd), 500, seed_of(me, r, 8));
    gex_AM_CommitRequestMedium3(sd, h_req2, 500, (gex_AM_Arg_t)seed_of(me, r, 8), 0, 0);
    gex_AM_RequestShort1(p20, r, h_req0, 0, (gex_AM_Arg_t)(me * 3));
    gex_AM_RequestShort1(gex_TM_Pair(ep2, 3), r, h_inh, 0, (gex_AM_Arg_t)(me * 3));
    GASNET_BLOCKUNTIL(reps0 >= want && reps2 >= want2);
    T_EXPECT(check(back, SLOT, seed_of(me, r, 7)), "the Long reply from %u in EP 0's segment",
             (unsigned)r);
    memcpy(back, saved, SLOT); /* as the rest of EP 0's segment */
  }
  printf("node %u: AMs with every rank: Medium, Long and negotiated Medium from EP 0 to EP 2 "
         "replied to EP 0 (the Long reply in EP 0's segment), a Short from EP 2 to EP 0 replied "
         "to EP 2, and one to EP 3, whose handler it inherited from EP 0; each handler ran in "
         "its EP\n", (unsigned)me);
}

/* Every byte of my three segments as the model says. */
static void verify(void) {
  char *b1 = gex_Segment_QueryAddr(s1), *b2 = gex_Segment_QueryAddr(s2);
  static unsigned char want[64 * 32];
  for (gex_Rank_t s = 0; s < n; s++) {
    T_EXPECT(check(SLOTAT(b1, s, 0), SLOT, seed_of(s, me, 0)), "EP 1, put from %u", (unsigned)s);
    fill(want, sizeof want, seed_of(s, me, 1));
    for (int row = 0; row < 32; row++)
      T_EXPECT(!memcmp(SLOTAT(b1, s, 1) + row * 128, want + row * 64, 64), "EP 1, strided row %d from %u",
               row, (unsigned)s);
    T_EXPECT(check(BIGAT(b1, s), BIG, seed_of(s, me, 5)), "EP 1, the big put from %u", (unsigned)s);
    T_EXPECT(check(SLOTAT(b2, s, 0), SLOT, seed_of(s, me, 2)), "EP 2, NBI put from %u", (unsigned)s);
    T_EXPECT(check(SLOTAT(b2, s, 1), SLOT, seed_of(s, me, 3)), "EP 2, NB put from %u", (unsigned)s);
    T_EXPECT(check(SLOTAT(b2, s, 2), SLOT, seed_of(s, me, 7)), "EP 2, AM Long from %u", (unsigned)s);
  }
  T_EXPECT(check(gex_Segment_QueryAddr(s0), SEGLEN, 1000 + me), "EP 0's segment was written");
  printf("node %u: my EP 1 and EP 2 segments hold what every rank sent; EP 0's is untouched\n",
         (unsigned)me);
}

static void limits(void) {
  gex_EP_t e = GEX_EP_INVALID;
  gex_System_SetVerboseErrors(0);
  int bad = gex_EP_Create(&e, client, 0, 0);
  int made = 0, rc;
  while ((rc = gex_EP_Create(&e, client, GEX_EP_CAPABILITY_RMA, 0)) == GASNET_OK) made++;
  gex_System_SetVerboseErrors(1);
  T_EXPECT(bad == GASNET_ERR_BAD_ARG && rc == GASNET_ERR_RESOURCE && made == GASNET_MAXEPS - 5,
           "no capability: %s; then %d more EPs and %s (GASNET_MAXEPS %d)", gasnet_ErrorName(bad),
           made, gasnet_ErrorName(rc), GASNET_MAXEPS);
  printf("node %u: gex_EP_Create: no capability GASNET_ERR_BAD_ARG; %d more EPs, then "
         "GASNET_ERR_RESOURCE (GASNET_MAXEPS %d)\n", (unsigned)me, made, GASNET_MAXEPS);
}

#if defined(GASNET_PAR)
/* Thread k: RMA to every rank's EP 1 through (EP k, 1), in the big area's
 * slot k of my part, read back through (EP k, 1) and compared; 20 AM
 * round trips to every rank's EP 2 from EP 0, counted on its own. */
static void *par_thread(void *arg) {
  int k = (int)(intptr_t)arg;
  gex_EP_t mine[3] = { ep0, ep1, ep2 };
  gex_TM_t pair = gex_TM_Pair(mine[k], 1);
  static unsigned char out[3][SLOT], in[3][SLOT];
  int pongs = 0, sent = 0;
  for (int round = 0; round < 10; round++) {
    for (gex_Rank_t r = 0; r < n; r++) {
      char *dst = BIGAT(seg1[r].addr, me) + (size_t)k * SLOT;
      fill(out[k], SLOT, seed_of(me, r, 20 + k + round));
      T_CHECK(gex_RMA_PutBlocking(pair, r, dst, out[k], SLOT, 0));
      memset(in[k], 0, SLOT);
      T_CHECK(gex_RMA_GetBlocking(pair, in[k], r, dst, SLOT, 0));
      T_EXPECT(!memcmp(in[k], out[k], SLOT), "thread %d: rank %u's EP 1 read back differs", k,
               (unsigned)r);
      gex_AM_RequestShort2(gex_TM_Pair(ep0, 2), r, h_ping, 0, HI(&pongs), LO(&pongs));
      gex_AM_RequestShort2(gex_TM_Pair(ep0, 2), r, h_ping, 0, HI(&pongs), LO(&pongs));
      sent += 2;
    }
  }
  GASNET_BLOCKUNTIL(__atomic_load_n(&pongs, __ATOMIC_ACQUIRE) == sent);
  return NULL;
}

static void par(void) {
  pthread_t th[3];
  for (int k = 0; k < 3; k++) pthread_create(&th[k], NULL, par_thread, (void *)(intptr_t)k);
  for (int k = 0; k < 3; k++) pthread_join(th[k], NULL);
  printf("node %u: 3 threads at once: RMA through (EP 0, 1), (EP 1, 1), (EP 2, 1) with every "
         "rank read back equal, AM round trips to every rank's EP 2 all answered\n", (unsigned)me);
}
#endif

/* One misuse, ending the job (t-ex-mep.sh names the message). */
static void misuse(const char *c) {
  gex_Rank_t peer = (me + 1) % n;
  printf("node %u: misuse case %s\n", (unsigned)me, c);
  fflush(stdout);
  if (!strcmp(c, "rma-unpublished")) {
    static char b[8];
    gex_RMA_PutBlocking(gex_TM_Pair(ep0, 1), peer, gex_Segment_QueryAddr(s1), b, 8, 0);
  } else if (!strcmp(c, "am-no-cap")) {
    gex_AM_RequestShort1(gex_TM_Pair(ep1, 0), peer, h_req0, 0, 0);
  } else if (!strcmp(c, "rma-no-cap")) {
    gex_EP_t e;
    static char b[8];
    T_CHECK(gex_EP_Create(&e, client, GEX_EP_CAPABILITY_AM, 0));
    gex_RMA_PutBlocking(gex_TM_Pair(e, 0), peer, gex_Segment_QueryAddr(s0), b, 8, 0);
  } else if (me == 0 && !strcmp(c, "am-to-rma-ep")) {
    gex_AM_RequestShort1(gex_TM_Pair(ep0, 1), peer, h_req0, 0, 0);
  } else if (me == 0 && !strcmp(c, "am-no-ep")) {
    gex_AM_RequestShort1(gex_TM_Pair(ep0, 7), peer, h_req0, 0, 0);
  }
  barrier();
  barrier();
  printf("node %u: misuse case %s was not caught\n", (unsigned)me, c);
  gasnet_exit(0);
}

int main(int argc, char **argv) {
  T_CHECK(gex_Client_Init(&client, &ep0, &tm, "t_ex_mep", &argc, &argv, 0));
  me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  const char *mode = argc > 1 ? argv[1] : "gasnet";
  T_EXPECT(n <= MAXN, "at most %d ranks", MAXN);
  T_CHECK(gex_Segment_Attach(&s0, tm, SEGLEN));
  int client_alloc = !strcmp(mode, "client");
  endpoints(client_alloc);
  handlers();
  more_endpoints();
  if (!strcmp(mode, "rma-unpublished") || !strcmp(mode, "am-no-cap") || !strcmp(mode, "rma-no-cap"))
    misuse(mode);
  before_publish();
  barrier(); /* nobody publishes while another still checks its peers are unknown */
  publish(client_alloc);
  int par_mode = !strcmp(mode, "par");
  if (strcmp(mode, "gasnet") && !client_alloc && !par_mode) misuse(mode);
  barrier();
  rma();
  ams();
  barrier();
  verify();
#if defined(GASNET_PAR)
  if (par_mode) par();
#endif
  limits();
  barrier();
  printf("node %u: all multi-EP checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
