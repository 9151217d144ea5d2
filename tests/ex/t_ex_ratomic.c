/*
 * t_ex_ratomic.c - GASNet-EX remote atomics (gasnet_ratomic.h) against the
 * sentences of the description's "Remote Atomic Operations", on any number
 * of ranks; built with GASNET_PAR (t_ex_ratomic_par) the hammer and the
 * model run in T_RA_THREADS threads per rank (default 4) at once.
 *
 *  - domains: gex_AD_Create for every type with every opcode valid on it;
 *    the queries return what was passed; CData is NULL, then what was set;
 *    GEX_OP_TO_FETCHING / _NONFETCHING pair the opcodes;
 *  - a counter on every rank hammered by every rank (thread), the target
 *    itself among them: FADD and FINC, NB with 8 events in flight (also
 *    with GEX_FLAG_IMMEDIATE, retried when refused) and NBI, on U64 (an
 *    instruction) and DBL (a compare-and-swap loop): the fetched
 *    values are exactly 0..total-1, each once, and the final value is the
 *    total ("atomic with respect to all other accesses to the same target
 *    location made using the same AD, from any rank");
 *  - FCAS: each round every rank swaps the same slot from the value it
 *    holds to a value of its own: exactly one wins (fetches the old value),
 *    every other fetches the winner's value; CAS (non-fetching) leaves
 *    exactly one rank's value; on FLT and DBL it compares values (0.0
 *    matches -0.0, a NaN matches nothing);
 *  - a sequential model: every rank (thread) applies random opcodes of
 *    every type with random operands and flags (ACQ, REL,
 *    RANK_IS_JOBRANK, MY_RANK / MY_NBRHD when true, IMMEDIATE retried
 *    when refused) to its own slot on every rank at once, NB or NBI
 *    (waited by the description's category: SET a put, GET a get, the
 *    rest RMW; or in an access region); every fetched op0 and every final
 *    value equals the model's bit for bit, and non-fetching calls leave
 *    result_p alone;
 *  - acquire/release: rank 0 puts data, then SETs a flag with
 *    GEX_FLAG_AD_REL; every rank GETs the flag with GEX_FLAG_AD_ACQ (and
 *    polls) until it is set, then finds the data.
 * T_RA_OPS (default 1000) sets the hammer's and the model's lengths;
 * T_RA_TEAM=reverse runs it all on a team split from the primordial one in
 * reverse rank order (ranks and RANK_IS_JOBRANK translated through it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(GASNET_PAR)
#include <pthread.h>
#endif
#include "gasnetex.h"
#include "gasnet_ratomic.h"
#include "../lib/t_check.h"

#define MAXTHREADS 8
#define WINDOW 8                   /* NB events in flight in the hammer */
#define MAXROUNDS 64               /* FCAS rounds */
/* my segment: counters, flag, data, FCAS slots, model slots, gathered values */
#define OFF_CTR_U64 0
#define OFF_CTR_DBL 8
#define OFF_FLAG 16
#define OFF_DATA 64
#define DATA_LEN 64
#define OFF_FCAS 256                /* [MAXROUNDS] int64 */
#define OFF_FCASRES (OFF_FCAS + 8 * MAXROUNDS) /* rank 0: [MAXROUNDS][ranks] int64 */
#define OFF_MODEL (64 * 1024)      /* [writers][ND] 8-byte slots */
#define OFF_GATHER (256 * 1024)    /* [2 counters][writers][ops] uint64 */

/* ---- the types, in GEX_DT_* order ------------------------------------------- */
#define TYPES(X)                  \
  X(I32, int32_t, uint32_t, 1)    \
  X(U32, uint32_t, uint32_t, 1)   \
  X(I64, int64_t, uint64_t, 1)    \
  X(U64, uint64_t, uint64_t, 1)   \
  X(FLT, float, uint32_t, 0)      \
  X(DBL, double, uint64_t, 0)
#define ENUM(DT, T, U, ISINT) D_##DT,
enum { TYPES(ENUM) ND };
static const char *const dt_name[ND] = { "I32", "U32", "I64", "U64", "FLT", "DBL" };
static const gex_DT_t dt_code[ND] = { GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64,
                                      GEX_DT_FLT, GEX_DT_DBL };
static const int dt_size[ND] = { 4, 4, 8, 8, 4, 8 };
#define ALL_OPS                                                                             \
  (GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS | GEX_OP_ADD |          \
   GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_INC | GEX_OP_FINC | GEX_OP_DEC |         \
   GEX_OP_FDEC | GEX_OP_MULT | GEX_OP_FMULT | GEX_OP_MIN | GEX_OP_FMIN | GEX_OP_MAX |       \
   GEX_OP_FMAX | GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
#define BITWISE_OPS \
  (GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
#define FETCHING_OPS                                                                        \
  (GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FINC |      \
   GEX_OP_FDEC | GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR)
static gex_OP_t dt_ops(int d) { return d >= D_FLT ? ALL_OPS & ~BITWISE_OPS : ALL_OPS; }

static gex_TM_t tm;
static gex_Rank_t me, n;
static int nthreads = 1, nops = 1000;
static uint8_t *seg;
static void **peer_seg;           /* every rank's segment, owner addresses */
static int *in_nbrhd;             /* [n] */
static gex_AD_t ad_of[ND];        /* every type, every opcode valid on it */
static gex_AD_t ad_cnt, ad_cnt_dbl, ad_cas;

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }
static uint8_t *at(gex_Rank_t r, size_t off) { return (uint8_t *)peer_seg[r] + off; }
static int writers(void) { return (int)n * nthreads; }
static uint64_t *gathered(gex_Rank_t r, int ctr, int writer) {
  return (uint64_t *)at(r, OFF_GATHER + ((size_t)ctr * writers() + writer) * nops * 8);
}

static uint64_t rnd(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1Dull;
}

/* ---- bit patterns and the model ------------------------------------------------
 * Values travel as the bit pattern of their type, zero-extended to 64 bits.
 * The model is the description's table, written out by opcode. */
#define CONV(DT, T, U, ISINT)                                                      \
  static T from_##DT(uint64_t b) { U u = (U)b; T v; memcpy(&v, &u, sizeof v); return v; } \
  static uint64_t bits_##DT(T v) { U u; memcpy(&u, &v, sizeof u); return u; }
TYPES(CONV)

/* The description's expr for op on (op0 = a, op1 = b, op2 = c); integer
 * arithmetic wraps (done in U). */
#define MODEL(DT, T, U, ISINT)                                                     \
  static uint64_t model_##DT(gex_OP_t op, uint64_t ba, uint64_t bb, uint64_t bc) {   \
    T a = from_##DT(ba), b = from_##DT(bb), c = from_##DT(bc), r = a;             \
    if (op & (GEX_OP_SET | GEX_OP_SWAP)) r = b;                                   \
    if (op & (GEX_OP_CAS | GEX_OP_FCAS)) r = a == b ? c : a;                      \
    if (op & (GEX_OP_ADD | GEX_OP_FADD)) r = ISINT ? (T)((U)a + (U)b) : (T)(a + b); \
    if (op & (GEX_OP_SUB | GEX_OP_FSUB)) r = ISINT ? (T)((U)a - (U)b) : (T)(a - b); \
    if (op & (GEX_OP_INC | GEX_OP_FINC)) r = ISINT ? (T)((U)a + 1u) : (T)(a + 1); \
    if (op & (GEX_OP_DEC | GEX_OP_FDEC)) r = ISINT ? (T)((U)a - 1u) : (T)(a - 1); \
    if (op & (GEX_OP_MULT | GEX_OP_FMULT)) r = ISINT ? (T)((U)a * (U)b) : (T)(a * b); \
    if (op & (GEX_OP_MIN | GEX_OP_FMIN)) r = a < b ? a : b;                       \
    if (op & (GEX_OP_MAX | GEX_OP_FMAX)) r = a > b ? a : b;                       \
    if (op & (GEX_OP_AND | GEX_OP_FAND)) r = (T)(bits_##DT(a) & bits_##DT(b));   \
    if (op & (GEX_OP_OR | GEX_OP_FOR)) r = (T)(bits_##DT(a) | bits_##DT(b));     \
    if (op & (GEX_OP_XOR | GEX_OP_FXOR)) r = (T)(bits_##DT(a) ^ bits_##DT(b));   \
    return bits_##DT(r);                                                           \
  }
TYPES(MODEL)
static uint64_t model(int d, gex_OP_t op, uint64_t a, uint64_t b, uint64_t c) {
#define MODEL_CASE(DT, T, U, ISINT) case D_##DT: return model_##DT(op, a, b, c);
  switch (d) { TYPES(MODEL_CASE) }
  return 0;
}

/* One operation of type d on domain ad, NB (*ev) or NBI: 1 when
 * GEX_FLAG_IMMEDIATE was refused. */
static int issue(gex_AD_t ad, int d, int nbi, gex_Event_t *ev, void *res, gex_Rank_t r,
                 void *addr, gex_OP_t op, uint64_t b1, uint64_t b2, gex_Flags_t fl) {
#define ISSUE(DT, T, U, ISINT)                                                          \
  case D_##DT:                                                                          \
    if (fl & GEX_FLAG_RANK_IS_JOBRANK) r = gex_TM_TranslateRankToJobrank(tm, r);        \
    if (nbi) return gex_AD_OpNBI_##DT(ad, res, r, addr, op, from_##DT(b1), from_##DT(b2), fl) != 0; \
    *ev = gex_AD_OpNB_##DT(ad, res, r, addr, op, from_##DT(b1), from_##DT(b2), fl);     \
    return *ev == GEX_EVENT_NO_OP;
  switch (d) { TYPES(ISSUE) }
  return 0;
}
static long refusals; /* GEX_FLAG_IMMEDIATE calls refused (then retried without) */
/* The same, retried without GEX_FLAG_IMMEDIATE when that was refused. */
static void issue_retry(gex_AD_t ad, int d, int nbi, gex_Event_t *ev, void *res, gex_Rank_t r,
                        void *addr, gex_OP_t op, uint64_t b1, uint64_t b2, gex_Flags_t fl) {
  while (issue(ad, d, nbi, ev, res, r, addr, op, b1, b2, fl)) {
    T_EXPECT(fl & GEX_FLAG_IMMEDIATE, "a call without GEX_FLAG_IMMEDIATE was refused");
    __atomic_fetch_add(&refusals, 1, __ATOMIC_RELAXED);
    fl &= ~GEX_FLAG_IMMEDIATE;
  }
}
static uint64_t mask_of(int d) { return dt_size[d] == 4 ? 0xffffffffull : ~0ull; }
static uint64_t res_bits(int d, const uint64_t *res) {
  uint32_t u;
  if (dt_size[d] == 8) return *res;
  memcpy(&u, res, 4);
  return u;
}
/* Blocking, on the domain of type d: a fetching op's op0. */
static uint64_t blocking(int d, gex_Rank_t r, void *addr, gex_OP_t op, uint64_t b1, uint64_t b2) {
  uint64_t res = 0;
  gex_Event_t ev;
  issue(ad_of[d], d, 0, &ev, &res, r, addr, op, b1, b2, 0);
  gex_Event_Wait(ev);
  return res_bits(d, &res);
}

/* ---- domains and queries ---------------------------------------------------------- */
static void check_domains(void) {
  for (int d = 0; d < ND; d++) {
    gex_AD_Create(&ad_of[d], tm, dt_code[d], dt_ops(d), 0);
    T_EXPECT(gex_AD_QueryDT(ad_of[d]) == dt_code[d], "QueryDT of %s", dt_name[d]);
    T_EXPECT(gex_AD_QueryOps(ad_of[d]) == dt_ops(d), "QueryOps of %s", dt_name[d]);
    T_EXPECT(gex_AD_QueryFlags(ad_of[d]) == 0, "QueryFlags of %s", dt_name[d]);
    T_EXPECT(gex_AD_QueryTM(ad_of[d]) == tm, "QueryTM of %s", dt_name[d]);
    T_EXPECT(gex_AD_QueryCData(ad_of[d]) == NULL, "CData of a new domain must be NULL");
    gex_AD_SetCData(ad_of[d], &ad_of[d]);
    T_EXPECT(gex_AD_QueryCData(ad_of[d]) == &ad_of[d], "CData of %s", dt_name[d]);
  }
  gex_AD_Create(&ad_cnt, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_FINC | GEX_OP_GET | GEX_OP_SET,
                GEX_FLAG_AD_FAVOR_REMOTE);
  T_EXPECT(gex_AD_QueryFlags(ad_cnt) == GEX_FLAG_AD_FAVOR_REMOTE, "QueryFlags: FAVOR_REMOTE");
  gex_AD_Create(&ad_cnt_dbl, tm, GEX_DT_DBL, GEX_OP_FADD | GEX_OP_FINC | GEX_OP_GET | GEX_OP_SET,
                GEX_FLAG_AD_FAVOR_MY_NBRHD);
  gex_AD_Create(&ad_cas, tm, GEX_DT_I64, GEX_OP_SET | GEX_OP_GET | GEX_OP_CAS | GEX_OP_FCAS,
                GEX_FLAG_AD_FAVOR_MY_RANK);
  const gex_OP_t pairs[][2] = {
    { GEX_OP_SET, GEX_OP_SWAP }, { GEX_OP_CAS, GEX_OP_FCAS }, { GEX_OP_ADD, GEX_OP_FADD },
    { GEX_OP_SUB, GEX_OP_FSUB }, { GEX_OP_INC, GEX_OP_FINC }, { GEX_OP_DEC, GEX_OP_FDEC },
    { GEX_OP_MULT, GEX_OP_FMULT }, { GEX_OP_MIN, GEX_OP_FMIN }, { GEX_OP_MAX, GEX_OP_FMAX },
    { GEX_OP_AND, GEX_OP_FAND }, { GEX_OP_OR, GEX_OP_FOR }, { GEX_OP_XOR, GEX_OP_FXOR } };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    T_EXPECT(GEX_OP_TO_FETCHING(pairs[i][0]) == pairs[i][1], "GEX_OP_TO_FETCHING(%#x)", (unsigned)pairs[i][0]);
    T_EXPECT(GEX_OP_TO_NONFETCHING(pairs[i][1]) == pairs[i][0], "GEX_OP_TO_NONFETCHING(%#x)", (unsigned)pairs[i][1]);
  }
  T_EXPECT(GEX_OP_CSWAP == GEX_OP_FCAS, "GEX_OP_CSWAP is an alias of GEX_OP_FCAS");
  if (me == 0)
    printf("node 0: %d domains (every type with every opcode valid on it, and 3 more): "
           "queries return what was passed, CData NULL then set; opcode pairs convert\n", ND + 3);
}

/* ---- the hammer: a counter on every rank, hit by every rank and thread ------------- */
/* FADD/FINC of 1 on both counters of t, NB (into ev[0..1]) or NBI. */
static void hammer_op(gex_Rank_t t, int i, int nbi, int imm, uint64_t *u, double *x, gex_Event_t *ev) {
  gex_OP_t op = i & 1 ? GEX_OP_FINC : GEX_OP_FADD;
  gex_Flags_t fl = imm ? GEX_FLAG_IMMEDIATE : 0;
  issue_retry(ad_cnt, D_U64, nbi, &ev[0], u, t, at(t, OFF_CTR_U64), op, 1, 0, fl);
  issue_retry(ad_cnt_dbl, D_DBL, nbi, &ev[1], x, t, at(t, OFF_CTR_DBL), op, bits_DBL(1.0), 0, fl);
}

static void hammer(int writer) {
  uint64_t *u = malloc(sizeof *u * nops);
  double *x = malloc(sizeof *x * nops);
  for (gex_Rank_t t = 0; t < n; t++) {
    for (int i = 0; i < nops; i += WINDOW) { /* batches: NB, NB with IMMEDIATE, NBI, ... */
      int m = nops - i < WINDOW ? nops - i : WINDOW, kind = (i / WINDOW) % 4, nbi = kind >= 2;
      gex_Event_t ev[2 * WINDOW];
      for (int j = 0; j < m; j++)
        hammer_op(t, i + j, nbi, kind & 1, &u[i + j], &x[i + j], &ev[2 * j]);
      if (nbi) gex_NBI_Wait(GEX_EC_RMW, 0);
      else gex_Event_WaitAll(ev, 2 * (size_t)m, 0);
    }
    for (int i = 0; i < nops; i++) T_EXPECT(x[i] == (double)(uint64_t)x[i], "DBL fetched %g", x[i]);
    T_CHECK(gex_RMA_PutBlocking(tm, t, gathered(t, 0, writer), u, sizeof *u * nops, 0));
    for (int i = 0; i < nops; i++) u[i] = (uint64_t)x[i];
    T_CHECK(gex_RMA_PutBlocking(tm, t, gathered(t, 1, writer), u, sizeof *u * nops, 0));
  }
  free(u);
  free(x);
}

/* On my counters: every value 0..total-1 fetched once, and the total left. */
static void check_hammer(void) {
  size_t total = (size_t)writers() * nops;
  char *seen = malloc(total);
  for (int ctr = 0; ctr < 2; ctr++) {
    memset(seen, 0, total);
    size_t dups = 0, out = 0;
    for (int w = 0; w < writers(); w++)
      for (int i = 0; i < nops; i++) {
        uint64_t v = gathered(me, ctr, w)[i];
        if (v >= total) out++;
        else dups += seen[v]++ != 0;
      }
    uint64_t fin = ctr ? (uint64_t)from_DBL(blocking(D_DBL, me, at(me, OFF_CTR_DBL), GEX_OP_GET, 0, 0))
                       : blocking(D_U64, me, at(me, OFF_CTR_U64), GEX_OP_GET, 0, 0);
    printf("node %u: %s counter hit by %d writers x %d FADD/FINC: %zu values fetched, "
           "%zu repeated, %zu out of 0..%zu; final %llu (want 0, 0, %zu); this rank's "
           "IMMEDIATE refusals so far %ld\n", (unsigned)me, ctr ? "DBL" : "U64", writers(), nops,
           total, dups, out, total - 1, (unsigned long long)fin, total, refusals);
    T_EXPECT(dups == 0 && out == 0 && fin == total, "the %s counter is not atomic",
             ctr ? "DBL" : "U64");
  }
  free(seen);
}

/* Blocking on an I64 domain: op0. */
static uint64_t blocking_ad(gex_AD_t ad, gex_Rank_t r, void *addr, gex_OP_t op, int64_t o1,
                            int64_t o2) {
  int64_t res = 0;
  gex_Event_Wait(gex_AD_OpNB_I64(ad, &res, r, addr, op, o1, o2, 0));
  return (uint64_t)res;
}

/* ---- FCAS and CAS: one winner a round -------------------------------------------------- */
static void check_fcas(void) {
  int rounds = 2 * (int)n < MAXROUNDS ? 2 * (int)n : MAXROUNDS;
  for (int r = 0; r < rounds; r++) {
    gex_Rank_t t = (gex_Rank_t)r % n;
    int64_t base = 1000 * (r + 1), got = -1;
    void *slot = at(t, OFF_FCAS + 8 * r);
    if (me == t) blocking_ad(ad_cas, t, slot, GEX_OP_SET, base, 0);
    barrier();
    gex_Event_Wait(gex_AD_OpNB_I64(ad_cas, &got, t, slot, GEX_OP_FCAS, base, base + 1 + me, 0));
    T_CHECK(gex_RMA_PutBlocking(tm, 0, at(0, OFF_FCASRES + 8 * ((size_t)r * n + me)), &got, 8, 0));
  }
  barrier();
  if (me == 0) {
    for (int r = 0; r < rounds; r++) {
      int64_t base = 1000 * (r + 1), *got = (int64_t *)(seg + OFF_FCASRES + 8 * (size_t)r * n);
      int winners = 0, w = -1, losers_ok = 0;
      for (gex_Rank_t k = 0; k < n; k++)
        if (got[k] == base) { winners++; w = (int)k; }
      for (gex_Rank_t k = 0; k < n; k++) losers_ok += got[k] == base + 1 + w;
      int64_t fin = (int64_t)blocking_ad(ad_cas, (gex_Rank_t)r % n, at((gex_Rank_t)r % n, OFF_FCAS + 8 * r),
                                         GEX_OP_GET, 0, 0);
      T_EXPECT(winners == 1 && losers_ok == (int)n - 1 && fin == base + 1 + w,
               "FCAS round %d: %d winners, %d losers saw the winner's value, final %lld", r,
               winners, losers_ok, (long long)fin);
    }
    printf("node 0: FCAS, %d rounds of %u ranks on one slot: exactly one winner a round, "
           "every other fetched its value\n", rounds, (unsigned)n);
  }
  /* CAS (non-fetching) from the value every rank reads: one rank's value stays */
  for (int r = 0; r < rounds; r++) {
    gex_Rank_t t = (gex_Rank_t)r % n;
    void *slot = at(t, OFF_FCAS + 8 * r);
    int64_t v = (int64_t)blocking_ad(ad_cas, t, slot, GEX_OP_GET, 0, 0);
    barrier();
    gex_Event_Wait(gex_AD_OpNB_I64(ad_cas, NULL, t, slot, GEX_OP_CAS, v, v + 100 + me, 0));
    barrier();
    int64_t fin = (int64_t)blocking_ad(ad_cas, t, slot, GEX_OP_GET, 0, 0);
    T_EXPECT(fin >= v + 100 && fin < v + 100 + (int64_t)n, "CAS round %d: %lld from %lld", r,
             (long long)fin, (long long)v);
    barrier();
  }
  /* FLT and DBL compare values, not bits */
  gex_Rank_t t = (me + 1) % n;
  for (int d = D_FLT; d <= D_DBL; d++) {
    void *slot = at(t, OFF_MODEL + 8 * ((size_t)me * nthreads * ND + d));
    uint64_t mz = d == D_FLT ? bits_FLT(-0.0f) : bits_DBL(-0.0), pz = 0;
    uint64_t five = d == D_FLT ? bits_FLT(5.0f) : bits_DBL(5.0);
    uint64_t nan = d == D_FLT ? bits_FLT(__builtin_nanf("")) : bits_DBL(__builtin_nan(""));
    blocking(d, t, slot, GEX_OP_SET, mz, 0);
    T_EXPECT(blocking(d, t, slot, GEX_OP_FCAS, pz, five) == mz, "%s FCAS fetched", dt_name[d]);
    T_EXPECT(blocking(d, t, slot, GEX_OP_GET, 0, 0) == five, "%s FCAS(-0.0, op1 0.0) did not swap", dt_name[d]);
    blocking(d, t, slot, GEX_OP_SET, nan, 0);
    blocking(d, t, slot, GEX_OP_FCAS, nan, five);
    T_EXPECT(blocking(d, t, slot, GEX_OP_GET, 0, 0) == nan, "%s FCAS(NaN, op1 NaN) swapped", dt_name[d]);
  }
  if (me == 0)
    printf("node 0: CAS leaves exactly one rank's value; FLT/DBL (F)CAS: -0.0 matches 0.0, "
           "NaN matches nothing\n");
}

/* ---- acquire / release ------------------------------------------------------------ */
static void check_acq_rel(void) {
  gex_Rank_t t = n - 1;
  uint64_t *flag = (uint64_t *)at(t, OFF_FLAG);
  for (int r = 1; r <= 10; r++) {
    uint8_t data[DATA_LEN], back[DATA_LEN];
    for (int i = 0; i < DATA_LEN; i++) data[i] = (uint8_t)(r * 31 + i);
    if (me == 0) {
      T_CHECK(gex_RMA_PutBlocking(tm, t, at(t, OFF_DATA), data, DATA_LEN, 0));
      gex_Event_Wait(gex_AD_OpNB_U64(ad_cnt, NULL, t, flag, GEX_OP_SET, (uint64_t)r, 0,
                                     GEX_FLAG_AD_REL));
    }
    uint64_t v = 0;
    while (v != (uint64_t)r) { /* an operation done here does not poll: the put needs it */
      gex_Event_Wait(gex_AD_OpNB_U64(ad_cnt, &v, t, flag, GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ));
      gasnet_AMPoll();
    }
    T_CHECK(gex_RMA_GetBlocking(tm, back, t, at(t, OFF_DATA), DATA_LEN, 0));
    T_EXPECT(memcmp(back, data, DATA_LEN) == 0, "round %d: flag seen, data not", r);
    barrier();
  }
  if (me == 0) printf("node 0: 10 rounds of put, SET(REL) flag; every rank GET(ACQ) then saw the data\n");
}

/* ---- the sequential model -------------------------------------------------------------- */
static const double fp_operands[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.0, 3.0, 1.5, -0.25, 1e-3, 7.0 };

static gex_OP_t random_op(int d, uint64_t *s) {
  gex_OP_t ops = dt_ops(d), op;
  do op = (gex_OP_t)1u << (rnd(s) % 25);
  while (!(op & ops));
  return op;
}
static uint64_t random_operand(int d, uint64_t *s) {
  uint64_t r = rnd(s);
  if (d == D_FLT) return bits_FLT((float)fp_operands[r % 12]);
  if (d == D_DBL) return bits_DBL(fp_operands[r % 12] * (r % 7 ? 1 : 1e200));
  if (r % 3 == 0) r = r % 9; /* small ones too: MULT and MIN/MAX near 0 */
  return r & mask_of(d);
}
static gex_Flags_t random_flags(gex_Rank_t t, uint64_t *s) {
  uint64_t r = rnd(s);
  gex_Flags_t fl = 0;
  if (r & 1) fl |= GEX_FLAG_AD_ACQ;
  if (r & 2) fl |= GEX_FLAG_AD_REL;
  if (r & 4) fl |= GEX_FLAG_RANK_IS_JOBRANK; /* issue() translates the rank */
  if (r & 8) fl |= GEX_FLAG_IMMEDIATE;
  if ((r & 16) && t == me) fl |= GEX_FLAG_AD_MY_RANK;
  else if ((r & 32) && in_nbrhd[t]) fl |= GEX_FLAG_AD_MY_NBRHD;
  return fl;
}
static gex_EC_t category(gex_OP_t op) {
  return op == GEX_OP_SET ? GEX_EC_PUT : op == GEX_OP_GET ? GEX_EC_GET : GEX_EC_RMW;
}

typedef struct {
  gex_Event_t ev;
  uint64_t res, old;
  gex_OP_t op;
  int nbi;
} pending_t;

#define SENTINEL 0x5a5a5a5a5a5a5a5aull

static void model_check(int writer, uint64_t seed) {
  pending_t *p = calloc(n, sizeof *p);
  uint64_t *want = malloc(sizeof *want * n * ND), s = seed;
  for (gex_Rank_t t = 0; t < n; t++)
    for (int d = 0; d < ND; d++) {
      want[t * ND + d] = random_operand(d, &s);
      blocking(d, t, at(t, OFF_MODEL + 8 * ((size_t)writer * ND + d)), GEX_OP_SET, want[t * ND + d], 0);
    }
  for (int it = 0; it < nops; it++) {
    int d = it % ND, region = rnd(&s) % 8 == 0, nbi_all = rnd(&s) % 2;
    gex_EC_t mask = 0;
    if (region) gex_NBI_BeginAccessRegion(0);
    for (gex_Rank_t t = 0; t < n; t++) {
      pending_t *q = &p[t];
      uint64_t *w = &want[t * ND + d], b1 = random_operand(d, &s), b2 = random_operand(d, &s);
      q->op = random_op(d, &s);
      if ((q->op & (GEX_OP_CAS | GEX_OP_FCAS)) && rnd(&s) % 2) b1 = *w; /* a swap that happens */
      q->nbi = region || nbi_all || rnd(&s) % 2;
      q->res = SENTINEL;
      q->ev = GEX_EVENT_INVALID;
      void *slot = at(t, OFF_MODEL + 8 * ((size_t)writer * ND + d));
      issue_retry(ad_of[d], d, q->nbi, &q->ev, &q->res, t, slot, q->op, b1, b2,
                  random_flags(t, &s));
      q->old = *w;
      *w = model(d, q->op, *w, b1, b2) & mask_of(d);
      if (q->nbi) mask |= category(q->op);
    }
    if (region) gex_Event_Wait(gex_NBI_EndAccessRegion(0));
    else if (mask) gex_NBI_Wait(mask, 0); /* only the categories of the ops issued */
    for (gex_Rank_t t = 0; t < n; t++) {
      pending_t *q = &p[t];
      gex_Event_Wait(q->ev);
      uint64_t got = res_bits(d, &q->res);
      if (q->op & FETCHING_OPS)
        T_EXPECT(got == q->old, "%s GEX_OP %#x on rank %u fetched %#llx, the model %#llx",
                 dt_name[d], (unsigned)q->op, (unsigned)t, (unsigned long long)got,
                 (unsigned long long)q->old);
      else
        T_EXPECT(q->res == SENTINEL, "%s non-fetching GEX_OP %#x wrote result_p", dt_name[d],
                 (unsigned)q->op);
    }
  }
  for (gex_Rank_t t = 0; t < n; t++)
    for (int d = 0; d < ND; d++) {
      uint64_t got = blocking(d, t, at(t, OFF_MODEL + 8 * ((size_t)writer * ND + d)), GEX_OP_GET, 0, 0);
      T_EXPECT(got == want[t * ND + d], "%s slot on rank %u holds %#llx, the model %#llx",
               dt_name[d], (unsigned)t, (unsigned long long)got,
               (unsigned long long)want[t * ND + d]);
    }
  free(p);
  free(want);
}

/* ---- threads ------------------------------------------------------------------------ */
static int run_phase_sel;
static void *run_worker(void *arg) {
  int writer = (int)me * nthreads + (int)(intptr_t)arg;
  if (run_phase_sel == 0) hammer(writer);
  else model_check(writer, 0x9e3779b97f4a7c15ull * (writer + 1));
  return NULL;
}
static void run_phase(int which) {
  run_phase_sel = which;
#if defined(GASNET_PAR)
  pthread_t th[MAXTHREADS];
  for (int i = 0; i < nthreads; i++)
    T_EXPECT(pthread_create(&th[i], NULL, run_worker, (void *)(intptr_t)i) == 0, "pthread_create");
  for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
#else
  run_worker(0);
#endif
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t segment;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_RATOMIC", &argc, &argv, 0));
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  if (getenv("T_RA_OPS")) nops = atoi(getenv("T_RA_OPS"));
#if defined(GASNET_PAR)
  nthreads = getenv("T_RA_THREADS") ? atoi(getenv("T_RA_THREADS")) : 4;
  T_EXPECT(nthreads >= 1 && nthreads <= MAXTHREADS, "T_RA_THREADS=%d", nthreads);
#endif
  T_EXPECT(nops >= 1 && n <= 64, "T_RA_OPS=%d on %u ranks", nops, (unsigned)n);
  uintptr_t size = OFF_GATHER + 2 * (uintptr_t)writers() * nops * 8;
  size = (size + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
  T_CHECK(gex_Segment_Attach(&segment, tm, size));
  seg = gex_Segment_QueryAddr(segment);
  if (getenv("T_RA_TEAM") && !strcmp(getenv("T_RA_TEAM"), "reverse")) {
    /* every domain on a team of the same ranks in reverse order */
    gex_TM_t rev;
    gex_TM_Split(&rev, tm, 0, -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    T_EXPECT(gex_TM_QueryRank(rev) == n - 1 - me, "reversed team: rank %u for job rank %u",
             (unsigned)gex_TM_QueryRank(rev), (unsigned)me);
    tm = rev;
    me = n - 1 - me;
    printf("node %u: domains on a split team in reverse order (this is job rank %u)\n",
           (unsigned)me, (unsigned)(n - 1 - me));
  }
  peer_seg = malloc(n * sizeof *peer_seg);
  for (gex_Rank_t r = 0; r < n; r++)
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, r, &peer_seg[r], NULL, NULL, 0));
  gex_RankInfo_t *nb;
  gex_Rank_t nbn;
  gex_System_QueryNbrhdInfo(&nb, &nbn, NULL);
  in_nbrhd = calloc(n, sizeof *in_nbrhd);
  for (gex_Rank_t i = 0; i < nbn; i++)
    in_nbrhd[gex_TM_TranslateJobrankToRank(tm, nb[i].gex_jobrank)] = 1;
  int mapped = 0;
  for (gex_Rank_t r = 0; r < n; r++) {
    void *local = NULL;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, r, NULL, &local, NULL, 0));
    mapped += r != me && local != NULL;
  }
  printf("node %u: %u ranks, %d threads, %d ops; %d peers' segments mapped here (CPU atomics), "
         "%u by AM\n", (unsigned)me, (unsigned)n, nthreads, nops, mapped, (unsigned)(n - 1 - mapped));
  check_domains();
  barrier();
  run_phase(0);
  barrier();
  check_hammer();
  barrier();
  check_fcas();
  barrier();
  check_acq_rel();
  run_phase(1);
  barrier();
  printf("node %u: model of every type x opcode, NB and NBI, random flags: every op0 and final "
         "value as the model (IMMEDIATE refusals retried, in all: %ld)\n", (unsigned)me, refusals);
  for (int d = 0; d < ND; d++) gex_AD_Destroy(ad_of[d]);
  gex_AD_Destroy(ad_cnt);
  gex_AD_Destroy(ad_cnt_dbl);
  gex_AD_Destroy(ad_cas);
  barrier();
  printf("node %u: all remote atomic checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
