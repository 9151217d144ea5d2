/*
 * t_ex_rma.c - GASNet-EX RMA, events, NBI and gex_Coll_BarrierNB against
 * the sentences of ../shared/spec/gasnet-ex-api.txt that say what MUST
 * happen, on any number of ranks; then a randomized model check.
 *
 *  - put/get in Blocking, NB, NBI and value forms to every rank (itself
 *    too), through the team and through a TM-pair, local memory in and
 *    outside the segment ("Extended API", NOTE 3);
 *  - lc_opt: an event pointer receives an event (here GEX_EVENT_INVALID:
 *    complete), NOW/DEFER/GROUP accepted; gex_Event_QueryLeaf(root, LC);
 *  - a call without GEX_FLAG_IMMEDIATE never returns non-zero or
 *    GEX_EVENT_NO_OP (NOTE 1); with it, a refused put wrote nothing;
 *  - gex_Event_TestAll/TestSome/WaitSome/WaitAll overwrite completed events
 *    with GEX_EVENT_INVALID and succeed on an array of only INVALID;
 *  - gex_Event_Test does not poll: a get whose reply needs a poll stays
 *    NOT_READY through 200 tests, and a request from a peer is not run,
 *    until gex_Event_Wait polls;
 *  - gex_NBI_Test/Wait by category (GET, PUT, ALL); access regions give an
 *    event covering exactly the NBI operations inside;
 *  - GASNet-1 and EX interoperate: a gasnet_handle_t is waited with
 *    gex_Event_Wait and the other way round;
 *  - gex_Coll_BarrierNB: several in flight; none completes before every
 *    rank has called it; data put before it is visible after it;
 *  - model: random put/get/NBI/value operations of 1 B to 2 MiB to random
 *    ranks, checked against a local model of each peer's region that only
 *    this rank writes (T_RMA_OPS of them; run under GASNET_UDP_DROP by
 *    t-ex-rma.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#define H_POKE 130
#define H_GO 131
#define REGION (4u << 20)         /* per (writer, target): the model's memory */
#define MAXOP (2u << 20)          /* largest random operation */
#define SCRATCH (1u << 20)        /* per rank: the directed checks */

static gex_TM_t tm, pair;
static gex_Rank_t me, n;
static uint8_t *seg;              /* my segment: [n regions][scratch][imm] */
static void **peer_seg;           /* every rank's segment base */
static volatile int pokes, go;

static void h_poke(gex_Token_t t) { (void)t; __atomic_fetch_add(&pokes, 1, __ATOMIC_RELAXED); }
static void h_go(gex_Token_t t) { (void)t; __atomic_store_n(&go, 1, __ATOMIC_RELEASE); }

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

static uint8_t *region_of(gex_Rank_t target, gex_Rank_t writer) {
  return (uint8_t *)peer_seg[target] + (size_t)writer * REGION;
}
static uint8_t *scratch_of(gex_Rank_t r) { return (uint8_t *)peer_seg[r] + (size_t)n * REGION; }

static void fill(uint8_t *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++) p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 9));
}

/* ---- directed checks ---------------------------------------------------------------- */

/* Every form of put and get, to every rank, with src/dest in and outside the segment. */
static void check_forms(void) {
  size_t len = 3000;
  uint8_t *heap = malloc(len), *back = malloc(len);
  for (gex_Rank_t r = 0; r < n; r++) {
    gex_TM_t t = r % 2 ? pair : tm; /* both ways of naming a rank */
    uint8_t *dst = scratch_of(r) + (size_t)me * 4 * len;
    for (int form = 0; form < 4; form++) {
      fill(heap, len, 100 + form + r);
      memset(back, 0, len);
      gex_Event_t lc = GEX_EVENT_NO_OP, ev;
      switch (form) {
      case 0:
        T_EXPECT(gex_RMA_PutBlocking(t, r, dst, heap, len, 0) == 0, "PutBlocking returned non-zero");
        T_EXPECT(gex_RMA_GetBlocking(t, back, r, dst, len, 0) == 0, "GetBlocking returned non-zero");
        break;
      case 1:
        ev = gex_RMA_PutNB(t, r, dst, heap, len, &lc, 0);
        T_EXPECT(ev != GEX_EVENT_NO_OP, "PutNB without IMMEDIATE returned GEX_EVENT_NO_OP");
        T_EXPECT(lc != GEX_EVENT_NO_OP, "lc_opt pointer was not written");
        gex_Event_Wait(lc); /* then the source may change */
        memset(heap, 0xee, len);
        gex_Event_Wait(ev);
        fill(heap, len, 100 + form + r);
        ev = gex_RMA_GetNB(t, back, r, dst, len, 0);
        T_EXPECT(ev != GEX_EVENT_NO_OP, "GetNB without IMMEDIATE returned GEX_EVENT_NO_OP");
        gex_Event_Wait(ev);
        break;
      case 2:
        T_EXPECT(gex_RMA_PutNBI(t, r, dst, heap, len, GEX_EVENT_GROUP, 0) == 0, "PutNBI non-zero");
        gex_NBI_Wait(GEX_EC_PUT, 0);
        T_EXPECT(gex_RMA_GetNBI(t, back, r, dst, len, 0) == 0, "GetNBI non-zero");
        gex_NBI_Wait(GEX_EC_GET, 0);
        break;
      case 3: /* the same with segment memory on our side */
        memcpy(seg + (size_t)n * REGION + SCRATCH, heap, len);
        ev = gex_RMA_PutNB(t, r, dst, seg + (size_t)n * REGION + SCRATCH, len, GEX_EVENT_DEFER, 0);
        gex_Event_Wait(ev);
        ev = gex_RMA_GetNB(t, seg + (size_t)n * REGION + SCRATCH + len, r, dst, len, 0);
        gex_Event_Wait(ev);
        memcpy(back, seg + (size_t)n * REGION + SCRATCH + len, len);
        break;
      }
      T_EXPECT(memcmp(back, heap, len) == 0, "form %d to rank %u: data read back differs", form,
               (unsigned)r);
    }
    /* value forms, 1..8 bytes */
    for (size_t nb = 1; nb <= SIZEOF_GEX_RMA_VALUE_T; nb++) {
      gex_RMA_Value_t v = (gex_RMA_Value_t)0x0102030405060708ull, mask =
          nb == 8 ? ~(gex_RMA_Value_t)0 : (((gex_RMA_Value_t)1 << (8 * nb)) - 1);
      uint8_t *d = dst + 64 * nb;
      T_EXPECT(gex_RMA_PutBlockingVal(t, r, d, v + nb, nb, 0) == 0, "PutBlockingVal non-zero");
      T_EXPECT(gex_RMA_GetBlockingVal(t, r, d, nb, 0) == ((v + nb) & mask), "GetBlockingVal(%zu)", nb);
      gex_Event_Wait(gex_RMA_PutNBVal(t, r, d, v + 2 * nb, nb, 0));
      T_EXPECT(gex_RMA_GetBlockingVal(t, r, d, nb, 0) == ((v + 2 * nb) & mask), "PutNBVal(%zu)", nb);
      T_EXPECT(gex_RMA_PutNBIVal(t, r, d, v + 3 * nb, nb, 0) == 0, "PutNBIVal non-zero");
      gex_NBI_Wait(GEX_EC_ALL, 0);
      T_EXPECT(gex_RMA_GetBlockingVal(t, r, d, nb, 0) == ((v + 3 * nb) & mask), "PutNBIVal(%zu)", nb);
    }
  }
  free(heap);
  free(back);
  printf("node %u: put/get blocking, NB, NBI, value to %u ranks: data read back matches\n",
         (unsigned)me, (unsigned)n);
}

/* Arrays of events, leaves, and the two APIs' handles mixed. */
static void check_events(void) {
  gex_Rank_t peer = (me + 1) % n;
  uint8_t *dst = scratch_of(peer) + 64 * 1024 + (size_t)me * 8192;
  uint8_t src[4096];
  fill(src, sizeof src, 7);
  gex_Event_t ev[6];
  for (int i = 0; i < 6; i++) ev[i] = GEX_EVENT_INVALID;
  T_EXPECT(gex_Event_TestAll(ev, 6, 0) == GASNET_OK, "TestAll of only INVALID must succeed");
  T_EXPECT(gex_Event_TestSome(ev, 6, 0) == GASNET_OK, "TestSome of only INVALID must succeed");
  gex_Event_WaitSome(ev, 6, 0);
  for (int i = 0; i < 6; i += 2) ev[i] = gex_RMA_PutNB(tm, peer, dst + i * 512, src, 512, GEX_EVENT_NOW, 0);
  ev[1] = gasnet_put_nb(peer, dst + 4096, src, 512); /* a GASNet-1 handle in a gex array */
  gex_Event_WaitSome(ev, 6, 0);
  int left = 0;
  for (int i = 0; i < 6; i++) left += ev[i] != GEX_EVENT_INVALID;
  T_EXPECT(left < 4, "WaitSome returned with all %d events pending", left);
  gex_Event_WaitAll(ev, 6, 0);
  for (int i = 0; i < 6; i++) T_EXPECT(ev[i] == GEX_EVENT_INVALID, "WaitAll left ev[%d]", i);
  gex_Event_t lc, root = gex_RMA_PutNB(tm, peer, dst, src, 4096, &lc, 0);
  gex_Event_t leaf = gex_Event_QueryLeaf(root, GEX_EC_LC);
  T_EXPECT(leaf == GEX_EVENT_INVALID || gex_Event_Test(leaf) == GASNET_OK,
           "the LC leaf of a returned put must be complete");
  T_EXPECT(gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC) == GEX_EVENT_INVALID,
           "QueryLeaf(INVALID)");
  gasnet_wait_syncnb(root); /* a gex event waited through GASNet-1 */
  uint8_t back[4096];
  gasnet_handle_t h = gex_RMA_GetNB(tm, back, peer, dst, 4096, 0);
  gex_Event_Wait(h);
  T_EXPECT(memcmp(back, src, 4096) == 0, "read back through mixed events differs");
  printf("node %u: event arrays overwritten with GEX_EVENT_INVALID; LC leaf complete; "
         "GASNet-1 handles and gex events interchangeable\n", (unsigned)me);
}

/* gex_Event_Test does not poll. Rank 0 starts an operation that needs a
 * message from rank 1 to complete, rank 1 pokes rank 0, and rank 0 tests
 * 200 times without polling: neither may be seen. The operation is a get
 * from rank 1 when its segment is reached by messages; when it is mapped
 * here (shared memory: the get would be a memcpy, complete at once), a
 * barrier that rank 1 has already entered. */
static void check_test_does_not_poll(void) {
  if (n < 2) return;
  /* the same choice on every rank: are ranks 0 and 1 one neighbourhood? */
  gasnet_nodeinfo_t *ni = malloc(sizeof *ni * n);
  T_CHECK(gasnet_getNodeInfo(ni, (int)n));
  const int by_barrier = ni[0].supernode == ni[1].supernode;
  free(ni);
  barrier();
  if (me == 1) { /* once rank 0 has stopped polling: its handlers cannot run */
    GASNET_BLOCKUNTIL(__atomic_load_n(&go, __ATOMIC_ACQUIRE));
    go = 0;
    T_CHECK(gex_AM_RequestShort0(tm, 0, H_POKE, 0));
    if (by_barrier) gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  } else if (me == 0) {
    uint64_t v = 0;
    T_CHECK(gex_AM_RequestShort0(tm, 1, H_GO, 0));
    usleep(100000); /* rank 1's poke (and barrier message) are on their way */
    gex_Event_t ev = by_barrier ? gex_Coll_BarrierNB(tm, 0)
                                : gex_RMA_GetNB(tm, &v, 1, scratch_of(1), sizeof v, 0);
    int ready = 0, before = __atomic_load_n(&pokes, __ATOMIC_RELAXED); /* initiation may poll */
    for (int i = 0; i < 200; i++) {
      ready += gex_Event_Test(ev) == GASNET_OK;
      if (ready) break;
      usleep(1000);
    }
    int seen = __atomic_load_n(&pokes, __ATOMIC_RELAXED) - before;
    printf("node 0: gex_Event_Test x200 without polling (%s): event ready %d, pokes run %d "
           "(want 0 and 0)\n", by_barrier ? "a barrier" : "a get", ready, seen);
    T_EXPECT(!ready && seen == 0, "gex_Event_Test polled");
    gex_Event_Wait(ev); /* polls: the reply is handled (the poke maybe later: credits) */
    GASNET_BLOCKUNTIL(__atomic_load_n(&pokes, __ATOMIC_RELAXED) == 1);
  } else if (by_barrier) {
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  }
  barrier();
  if (me == 0) pokes = 0;
}

/* NBI categories and access regions. */
static void check_nbi(void) {
  gex_Rank_t peer = (me + n - 1) % n;
  uint8_t *dst = scratch_of(peer) + 128 * 1024 + (size_t)me * 65536;
  static uint8_t src[32768], back[32768];
  fill(src, sizeof src, 11);
  for (int i = 0; i < 8; i++)
    T_EXPECT(gex_RMA_PutNBI(tm, peer, dst + i * 4096, src + i * 4096, 4096, GEX_EVENT_DEFER, 0) == 0,
             "PutNBI non-zero");
  gex_NBI_Wait(GEX_EC_PUT, 0);
  T_EXPECT(gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK, "nothing is pending after NBI_Wait(PUT)");
  for (int i = 0; i < 8; i++)
    T_EXPECT(gex_RMA_GetNBI(tm, back + i * 4096, peer, dst + i * 4096, 4096, 0) == 0, "GetNBI");
  gex_NBI_Wait(GEX_EC_GET, 0);
  T_EXPECT(memcmp(back, src, sizeof src) == 0, "NBI puts then gets: data differs");
  /* a region covers exactly what was started inside it */
  memset(back, 0, sizeof back);
  gex_NBI_BeginAccessRegion(0);
  for (int i = 0; i < 8; i++) gex_RMA_GetNBI(tm, back + i * 4096, peer, dst + i * 4096, 4096, 0);
  gex_Event_t rev = gex_NBI_EndAccessRegion(0);
  T_EXPECT(gex_NBI_Test(GEX_EC_GET, 0) == GASNET_OK, "region's gets counted as the thread's");
  gex_Event_Wait(rev);
  T_EXPECT(memcmp(back, src, sizeof src) == 0, "region gets: data differs");
  gasnet_begin_nbi_accessregion(); /* GASNet-1 begin, EX end */
  gex_RMA_PutNBI(tm, peer, dst, src, 4096, GEX_EVENT_NOW, 0);
  gasnet_wait_syncnb(gex_NBI_EndAccessRegion(0));
  printf("node %u: NBI by category and access regions (both APIs) complete what they cover\n",
         (unsigned)me);
}

/* Barriers: several in flight; none done before everyone called. */
static void check_barrier(void) {
  gex_Event_t ev[3];
  for (int i = 0; i < 3; i++) ev[i] = gex_Coll_BarrierNB(tm, 0);
  gex_Event_WaitAll(ev, 3, 0);
  if (n < 2) return;
  /* data put before a barrier is visible after it */
  uint64_t mark = 0x5151000000000000ull + me;
  gex_RMA_PutBlockingVal(tm, (me + 1) % n, scratch_of((me + 1) % n) + 512 * 1024, mark, 8, 0);
  barrier();
  uint64_t got;
  memcpy(&got, seg + (size_t)n * REGION + 512 * 1024, 8);
  T_EXPECT(got == 0x5151000000000000ull + (me + n - 1) % n, "put before the barrier not visible");
  /* rank 0 is late: it enters only after every other rank has started
   * its barrier and polled for 50 ms, so none may have completed */
  gex_Event_t b = GEX_EVENT_INVALID;
  int early = 0;
  if (me != 0) {
    b = gex_Coll_BarrierNB(tm, 0);
    for (int i = 0; i < 50 && !early; i++) {
      gasnet_AMPoll();
      early += gex_Event_Test(b) == GASNET_OK;
      usleep(1000);
    }
    T_CHECK(gex_AM_RequestShort0(tm, 0, H_POKE, 0));
  } else {
    GASNET_BLOCKUNTIL(__atomic_load_n(&pokes, __ATOMIC_RELAXED) == (int)n - 1);
    pokes = 0;
    b = gex_Coll_BarrierNB(tm, 0);
  }
  if (!early) gex_Event_Wait(b);
  T_EXPECT(!early, "a barrier completed before rank 0 entered it");
  printf("node %u: 3 barriers in flight completed; none before rank 0 entered; "
         "data put before it visible after\n", (unsigned)me);
}

/* GEX_FLAG_IMMEDIATE: whatever was refused wrote nothing. */
static void check_immediate(void) {
  enum { K = 256 };
  gex_Rank_t peer = (me + 1) % n;
  uint8_t *base = scratch_of(peer) + 600 * 1024 + (size_t)me * K * 8;
  uint8_t refused[K];
  int nref = 0;
  static uint8_t big[K][1024];
  for (int i = 0; i < K; i++) {
    fill(big[i], sizeof big[i], (unsigned)i + 1);
    gex_Event_t ev = gex_RMA_PutNB(tm, peer, base + i * 8, big[i], 8, GEX_EVENT_NOW,
                                   GEX_FLAG_IMMEDIATE);
    refused[i] = ev == GEX_EVENT_NO_OP;
    nref += refused[i];
    if (!refused[i]) gex_Event_Wait(ev);
  }
  barrier();
  /* ask the peer's memory what it holds, compare with what was refused */
  int wrong = 0;
  for (int i = 0; i < K; i++) {
    uint8_t got[8];
    gex_RMA_GetBlocking(tm, got, peer, base + i * 8, 8, 0);
    int written = memcmp(got, big[i], 8) == 0;
    wrong += refused[i] == written;
  }
  printf("node %u: GEX_FLAG_IMMEDIATE puts: %d refused; refused ones unwritten and the rest "
         "written: %s\n", (unsigned)me, nref, wrong ? "NO" : "yes");
  T_EXPECT(wrong == 0, "%d puts disagree with their IMMEDIATE result", wrong);
}

/* [PROPOSED] calls: an EP of no capability is refused (GASNET_ERR_BAD_ARG,
 * nothing changed; t_ex_mep makes real ones); a second segment may be
 * created and destroyed, but not bound to the EP that has one
 * (GASNET_ERR_BAD_ARG). */
static void check_proposed(gex_Client_t client, gex_EP_t ep, gex_Segment_t segment) {
  gex_System_SetVerboseErrors(0);
  gex_EP_t ep2 = GEX_EP_INVALID;
  gex_Segment_t s2 = GEX_SEGMENT_INVALID;
  int a = gex_EP_Create(&ep2, client, 0, 0);
  int b = gex_Segment_Create(&s2, client, NULL, 1 << 20, GEX_MK_HOST, 0);
  int c = gex_EP_BindSegment(ep, s2, 0);
  gex_System_SetVerboseErrors(1);
  printf("node %u: [PROPOSED] gex_EP_Create of no capability %s (want GASNET_ERR_BAD_ARG), gex_Segment_Create "
         "%s (want GASNET_OK), gex_EP_BindSegment to a bound EP %s (want GASNET_ERR_BAD_ARG)\n",
         (unsigned)me, gasnet_ErrorName(a), gasnet_ErrorName(b), gasnet_ErrorName(c));
  T_EXPECT(a == GASNET_ERR_BAD_ARG && ep2 == GEX_EP_INVALID, "gex_EP_Create: %s",
           gasnet_ErrorName(a));
  T_EXPECT(b == GASNET_OK && s2 != GEX_SEGMENT_INVALID && gex_Segment_QuerySize(s2) >= (1 << 20),
           "gex_Segment_Create: %s", gasnet_ErrorName(b));
  T_EXPECT(c == GASNET_ERR_BAD_ARG && gex_EP_QuerySegment(ep) == segment,
           "gex_EP_BindSegment: %s, or the bound segment changed", gasnet_ErrorName(c));
  if (s2 != GEX_SEGMENT_INVALID) gex_Segment_Destroy(s2, 0);
}

/* ---- the model ----------------------------------------------------------------------- */

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static size_t rnd_size(void) { /* log-uniform 1 B .. 2 MiB */
  int bits = (int)(rnd() % 22);
  size_t lo = (size_t)1 << bits, len = lo + rnd() % lo;
  return len > MAXOP ? MAXOP : len;
}

typedef struct { size_t off, len; } span_t;
static int overlaps(const span_t *s, int k, size_t off, size_t len) {
  for (int i = 0; i < k; i++)
    if (off < s[i].off + s[i].len && s[i].off < off + len) return 1;
  return 0;
}

/* Batches of up to 8 operations on disjoint spans of my region at random
 * targets, completed together, then every get compared with the model. */
static void model_check(int ops) {
  uint8_t **model = calloc(n, sizeof *model);
  for (gex_Rank_t r = 0; r < n; r++) model[r] = calloc(1, REGION);
  uint8_t *src = malloc(8 * (size_t)MAXOP), *dst = malloc(8 * (size_t)MAXOP);
  size_t bytes = 0;
  int done = 0, kinds[8] = {0};
  rng ^= (uint64_t)me * 0x9e3779b97f4a7c15ull;
  while (done < ops) {
    span_t span[8];
    struct { int get, kind; gex_Rank_t r; size_t off, len; gex_Event_t ev; } op[8];
    int k = 0;
    gex_Rank_t r0 = (gex_Rank_t)(rnd() % n);
    int region = rnd() % 4 == 0;
    if (region) gex_NBI_BeginAccessRegion(0);
    for (; k < 8 && done < ops; k++, done++) {
      size_t len = rnd_size(), off = 0;
      int tries = 0; /* a span disjoint from the batch's, if one is easy to find */
      do off = rnd() % (REGION - len + 1); while (overlaps(span, k, off, len) && ++tries < 64);
      if (tries == 64) break;
      span[k].off = off, span[k].len = len;
      op[k].r = r0, op[k].off = off, op[k].len = len, op[k].get = rnd() % 2;
      op[k].kind = (int)(rnd() % 4); /* blocking, NB, NBI, value */
      if (op[k].kind == 3 && len > 8) op[k].kind = 1;
      kinds[op[k].kind + 4 * op[k].get]++;
      uint8_t *remote = region_of(op[k].r, me) + off, *s = src + k * (size_t)MAXOP,
              *d = dst + k * (size_t)MAXOP;
      op[k].ev = GEX_EVENT_INVALID;
      bytes += len;
      if (!op[k].get) {
        fill(s, len, (unsigned)rnd());
        memcpy(model[op[k].r] + off, s, len);
        switch (op[k].kind) {
        case 0: gex_RMA_PutBlocking(tm, op[k].r, remote, s, len, 0); break;
        case 1: op[k].ev = gex_RMA_PutNB(tm, op[k].r, remote, s, len, GEX_EVENT_DEFER, 0); break;
        case 2: gex_RMA_PutNBI(tm, op[k].r, remote, s, len, GEX_EVENT_DEFER, 0); break;
        case 3: {
          gex_RMA_Value_t v = 0;
          memcpy(&v, s, len); /* little-endian: the low-order bytes */
          gex_RMA_PutNBVal(tm, op[k].r, remote, v, len, 0);
          break;
        }
        }
      } else {
        switch (op[k].kind) {
        case 0: gex_RMA_GetBlocking(tm, d, op[k].r, remote, len, 0); break;
        case 1: op[k].ev = gex_RMA_GetNB(tm, d, op[k].r, remote, len, 0); break;
        case 2: gex_RMA_GetNBI(tm, d, op[k].r, remote, len, 0); break;
        case 3: {
          gex_RMA_Value_t v = gex_RMA_GetBlockingVal(tm, op[k].r, remote, len, 0);
          memcpy(d, &v, len);
          break;
        }
        }
      }
      T_EXPECT(op[k].ev != GEX_EVENT_NO_OP, "an NB call without IMMEDIATE returned NO_OP");
    }
    if (region) gex_Event_Wait(gex_NBI_EndAccessRegion(0));
    gex_NBI_Wait(GEX_EC_ALL, 0);
    for (int i = 0; i < k; i++) gex_Event_Wait(op[i].ev);
    for (int i = 0; i < k; i++)
      if (op[i].get)
        T_EXPECT(memcmp(dst + i * (size_t)MAXOP, model[op[i].r] + op[i].off, op[i].len) == 0,
                 "model: get of %zu B at +%zu from rank %u (kind %d) differs from the model",
                 op[i].len, op[i].off, (unsigned)op[i].r, op[i].kind);
  }
  /* finally the whole of every region against its model */
  for (gex_Rank_t r = 0; r < n; r++) {
    for (size_t off = 0; off < REGION; off += MAXOP) {
      gex_RMA_GetBlocking(tm, dst, r, region_of(r, me) + off, MAXOP, 0);
      T_EXPECT(memcmp(dst, model[r] + off, MAXOP) == 0, "model: region of rank %u at +%zu differs",
               (unsigned)r, off);
    }
    free(model[r]);
  }
  free(model);
  free(src);
  free(dst);
  printf("node %u: model check: %d random operations (puts B/NB/NBI/val %d/%d/%d/%d, gets "
         "%d/%d/%d/%d), %zu bytes, all regions equal their models\n", (unsigned)me, ops, kinds[0],
         kinds[1], kinds[2], kinds[3], kinds[4], kinds[5], kinds[6], kinds[7], bytes);
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t segment;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_RMA", &argc, &argv, 0));
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  pair = gex_TM_Pair(ep, 0);
  gex_AM_Entry_t h[] = {
    { H_POKE, (gex_AM_Fn_t)h_poke, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "poke" },
    { H_GO, (gex_AM_Fn_t)h_go, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "go" } };
  T_CHECK(gex_EP_RegisterHandlers(ep, h, 2));
  barrier(); /* BarrierNB works before a segment exists */
  uintptr_t size = (uintptr_t)n * REGION + 2 * SCRATCH;
  size = (size + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
  T_CHECK(gex_Segment_Attach(&segment, tm, size));
  seg = gex_Segment_QueryAddr(segment);
  memset(seg, 0, size);
  gasnet_seginfo_t *si = malloc(n * sizeof *si);
  peer_seg = malloc(n * sizeof *peer_seg);
  T_CHECK(gasnet_getSegmentInfo(si, (int)n));
  for (gex_Rank_t r = 0; r < n; r++) peer_seg[r] = si[r].addr;
  barrier();
  check_forms();
  check_events();
  check_test_does_not_poll();
  check_nbi();
  barrier();
  check_barrier();
  check_immediate();
  check_proposed(client, ep, segment);
  barrier();
  const char *ops = getenv("T_RMA_OPS");
  model_check(ops ? atoi(ops) : 200);
  barrier();
  printf("node %u: all GASNet-EX RMA checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
