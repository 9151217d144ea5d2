/*
 * t_ex_coll.c - the GASNet-EX collectives of gasnet_coll.h against the
 * description's "Collectives (Coll)", on any number of ranks (up to 14),
 * first on the primordial team, then on a team in reverse job-rank order
 * (so that "rank" means team rank, not job rank). Every input is a function
 * of (team rank, element, call), so each rank computes a sequential model
 * of every result locally.
 *
 *  - broadcast from every root of 0 (nbytes need not be non-zero), 1, 8,
 *    1000, 64 KiB + 1 and 1 MiB + 3 bytes, byte for byte, the bytes after
 *    dst untouched; src == dst on the root; src NULL off the root ("ignored
 *    on all ranks other than root");
 *  - 2n + 1 broadcasts from every root in flight at once, waited in
 *    reverse order;
 *  - ranks that call late: each round every rank but the root of the
 *    round sleeps 0-8 ms before calling, so messages arrive before the
 *    local call;
 *  - ReduceToAllNB and ReduceToOneNB (every root) for every data type x
 *    every valid built-in op (ADD MULT MIN MAX; AND OR XOR on integers),
 *    1, 37 and 1000 elements, against the model bit for bit: the inputs
 *    make every partial result exact (no signed overflow; floats: halves
 *    for ADD, powers of two (3 on two ranks) for MULT, +-inf among MIN/MAX),
 *    so any combination order gives the model's bits; src unchanged;
 *    src == dst (every rank for ToAll, the root for ToOne); dst NULL off
 *    the root;
 *  - GEX_DT_USER + GEX_OP_USER: an arg-max {double v; int32 rank} with
 *    ties to the lower rank; cdata passed through to every call;
 *    GEX_OP_USER on a built-in type (DBL max-abs);
 *  - GEX_OP_USER_NC: 2x2 integer matrix products mod 2^32 (GEX_DT_USER),
 *    affine maps composed (GEX_DT_U64), and digit strings concatenated,
 *    whose result spells the members' job ranks in team rank order;
 *  - a large reduction (T_COLL_BIG elements, default 4M, of I64 ADD, and
 *    1M affine maps USER_NC): no size limit;
 *  - broadcasts, reductions of several kinds and a barrier in flight at
 *    once on one team, waited in reverse and in shuffled order;
 *  - ToAll results identical on every rank: a checksum of all of them
 *    broadcast from rank 0 and reduced with MIN and MAX.
 * Each part prints a summary; "all collective checks passed" ends a rank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gasnetex.h"
#include "gasnet_coll.h"
#include "../lib/t_check.h"

#define MAXN 14 /* the digit strings hold 14 */
#define GUARD 64

static gex_TM_t tm0, tm;          /* the primordial team; the team under test */
static gex_Rank_t me, n;          /* in tm */
static gex_Rank_t job[MAXN];      /* tm's members' job ranks */
static const char *team_name;
static uint64_t checksum;         /* of every ToAll result of the current team */
static long checks;

static void wait_ev(gex_Event_t e) { gex_Event_Wait(e); }
static void barrier(void) { wait_ev(gex_Coll_BarrierNB(tm, 0)); }

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ a;
  uint64_t v[3] = { b, c, d };
  for (int i = 0; i < 3; i++) {
    h ^= v[i] + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
  }
  return h;
}
static void fnv(uint64_t *h, const void *p, size_t len) {
  const uint8_t *b = p;
  for (size_t i = 0; i < len; i++) { *h ^= b[i]; *h *= 0x100000001b3ull; }
}
static void sleep_us(long us) {
  struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
  nanosleep(&ts, NULL);
}

/* ---- broadcast ---------------------------------------------------------------- */
static uint8_t pat(gex_Rank_t root, size_t size, unsigned salt, size_t i) {
  return (uint8_t)(root * 131 + size * 7 + salt * 29 + i * 13 + (i >> 8) * 3);
}
static void fill_pat(uint8_t *p, gex_Rank_t root, size_t size, unsigned salt) {
  for (size_t i = 0; i < size; i++) p[i] = pat(root, size, salt, i);
}
/* dst holds the pattern of (root, size, salt) and GUARD bytes of 0xee after it. */
static void check_pat(const uint8_t *dst, gex_Rank_t root, size_t size, unsigned salt,
                      const char *what) {
  for (size_t i = 0; i < size; i++)
    T_EXPECT(dst[i] == pat(root, size, salt, i), "%s %s: broadcast of %zu bytes from root %u: "
             "byte %zu is %#x, want %#x", team_name, what, size, (unsigned)root, i, dst[i],
             pat(root, size, salt, i));
  for (size_t i = size; i < size + GUARD; i++)
    T_EXPECT(dst[i] == 0xee, "%s %s: broadcast of %zu bytes from root %u wrote byte %zu past "
             "the end", team_name, what, size, (unsigned)root, i - size);
  checks++;
}

static const size_t bsizes[] = { 0, 1, 8, 1000, 65537, (1u << 20) + 3 };
#define NBSIZES (sizeof bsizes / sizeof bsizes[0])

static void check_bcast_sizes(void) {
  size_t max = bsizes[NBSIZES - 1];
  uint8_t *src = malloc(max + GUARD), *dst = malloc(max + GUARD);
  unsigned salt = 1;
  for (gex_Rank_t root = 0; root < n; root++)
    for (size_t s = 0; s < NBSIZES; s++, salt++) {
      size_t size = bsizes[s];
      memset(dst, 0xee, size + GUARD);
      if (me == root) fill_pat(src, root, size, salt);
      /* src is ignored off the root: pass NULL there every other call */
      const void *sp = me == root ? src : (salt & 1) ? NULL : src;
      wait_ev(gex_Coll_BroadcastNB(tm, root, dst, sp, size, 0));
      check_pat(dst, root, size, salt, "sizes");
      if (me == root)
        for (size_t i = 0; i < size; i++)
          T_EXPECT(src[i] == pat(root, size, salt, i), "broadcast changed src on the root");
    }
  /* src == dst on the root */
  for (gex_Rank_t root = 0; root < n; root++)
    for (size_t s = 2; s < 5; s++, salt++) {
      size_t size = bsizes[s];
      memset(dst, 0xee, size + GUARD);
      if (me == root) fill_pat(dst, root, size, salt);
      wait_ev(gex_Coll_BroadcastNB(tm, root, dst, me == root ? dst : NULL, size, 0));
      check_pat(dst, root, size, salt, "src == dst on the root");
    }
  printf("node %u: %s: broadcast from each of %u roots of 0, 1, 8, 1000, 65537 and %zu bytes "
         "byte for byte, nothing written past dst; src NULL off the root; src == dst on the "
         "root (8, 1000, 65537 B)\n", (unsigned)me, team_name, (unsigned)n, max);
  free(src);
  free(dst);
}

static void check_bcast_inflight(void) {
  int k = 2 * (int)n + 1;
  uint8_t *src[2 * MAXN + 1], *dst[2 * MAXN + 1];
  size_t size[2 * MAXN + 1];
  gex_Event_t ev[2 * MAXN + 1];
  for (int i = 0; i < k; i++) {
    gex_Rank_t root = (gex_Rank_t)i % n;
    size[i] = i % 3 == 0 ? 8 : i % 3 == 1 ? 1000 : 65537 + (size_t)i;
    src[i] = malloc(size[i]);
    dst[i] = malloc(size[i] + GUARD);
    memset(dst[i], 0xee, size[i] + GUARD);
    fill_pat(src[i], root, size[i], 500u + (unsigned)i);
    ev[i] = gex_Coll_BroadcastNB(tm, root, dst[i], src[i], size[i], 0);
  }
  for (int i = k - 1; i >= 0; i--) wait_ev(ev[i]);
  for (int i = 0; i < k; i++) {
    check_pat(dst[i], (gex_Rank_t)i % n, size[i], 500u + (unsigned)i, "in flight");
    free(src[i]);
    free(dst[i]);
  }
  printf("node %u: %s: %d broadcasts from every root (8, 1000, 64 KiB+ B) in flight at once, "
         "waited in reverse order: every byte as sent\n", (unsigned)me, team_name, k);
}

static void check_late(int rounds) {
  uint8_t *src = malloc(4096), *dst = malloc(4096 + GUARD);
  long slept = 0;
  for (int r = 0; r < rounds; r++) {
    gex_Rank_t root = (gex_Rank_t)r % n;
    if (me != root) { /* the root calls at once: its data comes before our call */
      long us = (long)(mix(r, me, 77, 0) % 8000);
      sleep_us(us);
      slept += us;
    }
    memset(dst, 0xee, 4096 + GUARD);
    fill_pat(src, root, 4096, 900u + (unsigned)r);
    int64_t one = (int64_t)me + 1, sum = 0;
    gex_Event_t e1 = gex_Coll_BroadcastNB(tm, root, dst, src, 4096, 0);
    if (me == (root + 1) % n) sleep_us(3000); /* and one rank waits between its calls */
    gex_Event_t e2 = gex_Coll_ReduceToAllNB(tm, &sum, &one, GEX_DT_I64, 8, 1, GEX_OP_ADD, NULL,
                                            NULL, 0);
    wait_ev(e2);
    wait_ev(e1);
    check_pat(dst, root, 4096, 900u + (unsigned)r, "late callers");
    T_EXPECT(sum == (int64_t)n * (n + 1) / 2, "late callers: sum %lld", (long long)sum);
  }
  printf("node %u: %s: %d rounds with the other ranks calling 0-8 ms late (slept %ld us here): "
         "broadcast and reduction as expected\n", (unsigned)me, team_name, rounds, slept);
  free(src);
  free(dst);
}

/* ---- built-in reductions --------------------------------------------------------
 * The inputs: gen_DT(op, rank, i, salt), chosen so that every partial
 * result is exact. comb_DT(op, a, b) = a (+) b. */
#define TYPES(X)               \
  X(I32, int32_t, 1, 1, 26)    \
  X(U32, uint32_t, 1, 0, 0)    \
  X(I64, int64_t, 1, 1, 56)    \
  X(U64, uint64_t, 1, 0, 0)    \
  X(FLT, float, 0, 1, 0)       \
  X(DBL, double, 0, 1, 0)
#define ENUM(DT, T, ISINT, SIGNED, ADDBITS) D_##DT,
enum { TYPES(ENUM) ND };
static const char *const dt_name[ND] = { "I32", "U32", "I64", "U64", "FLT", "DBL" };
static const gex_DT_t dt_code[ND] = { GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64,
                                      GEX_DT_FLT, GEX_DT_DBL };
static const size_t dt_size[ND] = { 4, 4, 8, 8, 4, 8 };
static const gex_OP_t ops[] = { GEX_OP_ADD, GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX,
                                GEX_OP_AND, GEX_OP_OR, GEX_OP_XOR };
static const char *const op_name[] = { "ADD", "MULT", "MIN", "MAX", "AND", "OR", "XOR" };
#define NOPS (sizeof ops / sizeof ops[0])
static int op_valid(int d, size_t o) { return d < D_FLT || o < 4; }

static const double fmult[] = { 0.5, -0.5, 1, -1, 2, -2, 0.25, -4, 1, 2 };

#define GEN(DT, T, ISINT, SIGNED, ADDBITS)                                                  \
  static T gen_##DT(gex_OP_t op, gex_Rank_t r, size_t i, unsigned salt) {                    \
    uint64_t h = mix(r, i, salt, op);                                                        \
    if (ISINT) {                                                                             \
      if (op == GEX_OP_ADD && SIGNED)                                                        \
        return (T)((int64_t)(h % ((2ull << ADDBITS) + 1)) - (int64_t)(1ull << ADDBITS));     \
      if (op == GEX_OP_MULT && SIGNED) { /* +-3 on two ranks, +-1 and +-2 elsewhere */     \
        static const int small[] = { 1, -1, 2, -2, 3, -3 };                                  \
        return (T)(h % 23 == 0 ? 0 : small[(h >> 8) % (r < 2 ? 6 : 4)]);                     \
      }                                                                                      \
      if (op == GEX_OP_MULT) return (T)(h | 1);                                              \
      if (op == GEX_OP_AND) return (T) ~(h & mix(h, 1, 2, 3) & mix(h, 4, 5, 6));             \
      return (T)h;                                                                           \
    }                                                                                        \
    if (op == GEX_OP_ADD) return (T)((double)((int64_t)(h % 4001) - 2000) / 2.0);            \
    if (op == GEX_OP_MULT) return (T)(r < 2 && h % 5 == 0 ? (h & 8 ? 3.0 : -3.0) : fmult[h % 10]); \
    if (h % 61 == 0) return (T)(h & 64 ? INFINITY : -INFINITY);                              \
    return (T)((double)((int64_t)(h % 2000001) - 1000000) * 0.125);                          \
  }                                                                                          \
  static T comb_##DT(gex_OP_t op, T a, T b) {                                                \
    switch (op) {                                                                            \
    case GEX_OP_ADD: return (T)(a + b);                                                      \
    case GEX_OP_MULT: return (T)(a * b);                                                     \
    case GEX_OP_MIN: return a < b ? a : b;                                                   \
    case GEX_OP_MAX: return a > b ? a : b;                                                   \
    }                                                                                        \
    return comb_bits_##DT(op, a, b);                                                         \
  }                                                                                          \
  static void fill_##DT(gex_OP_t op, gex_Rank_t r, void *buf, size_t cnt, unsigned salt) {   \
    T *p = buf;                                                                              \
    for (size_t i = 0; i < cnt; i++) p[i] = gen_##DT(op, r, i, salt);                        \
  }                                                                                          \
  static void model_##DT(gex_OP_t op, void *buf, size_t cnt, unsigned salt) {                \
    T *p = buf;                                                                              \
    for (size_t i = 0; i < cnt; i++) {                                                       \
      T acc = gen_##DT(op, 0, i, salt);                                                      \
      for (gex_Rank_t r = 1; r < n; r++) acc = comb_##DT(op, acc, gen_##DT(op, r, i, salt)); \
      p[i] = acc;                                                                            \
    }                                                                                        \
  }
/* the bit-wise operations, on integers only (floats never get here) */
#define BITS_INT(DT, T)                                                                      \
  static T comb_bits_##DT(gex_OP_t op, T a, T b) {                                           \
    return op == GEX_OP_AND ? (T)(a & b) : op == GEX_OP_OR ? (T)(a | b) : (T)(a ^ b);        \
  }
BITS_INT(I32, int32_t)
BITS_INT(U32, uint32_t)
BITS_INT(I64, int64_t)
BITS_INT(U64, uint64_t)
static float comb_bits_FLT(gex_OP_t op, float a, float b) { (void)op; (void)b; return a; }
static double comb_bits_DBL(gex_OP_t op, double a, double b) { (void)op; (void)b; return a; }
/* unsigned ADD and MULT wrap (defined); signed ones never overflow (gen) */
TYPES(GEN)

typedef void (*fill_fn)(gex_OP_t, gex_Rank_t, void *, size_t, unsigned);
typedef void (*model_fn)(gex_OP_t, void *, size_t, unsigned);
#define FILLS(DT, T, ISINT, SIGNED, ADDBITS) fill_##DT,
#define MODELS(DT, T, ISINT, SIGNED, ADDBITS) model_##DT,
static const fill_fn fills[ND] = { TYPES(FILLS) };
static const model_fn models[ND] = { TYPES(MODELS) };

/* One reduction of dt_cnt elements of type d with op, to root (or to all:
 * GEX_RANK_INVALID), checked against the model; inplace: src == dst where
 * allowed. dst NULL off the root when nulldst. Returns the event unwaited
 * in *pending when pending is non-NULL (then the caller calls finish). */
typedef struct {
  int d;
  size_t o, cnt;
  gex_Rank_t root;
  int inplace;
  unsigned salt;
  uint8_t *src, *dst, *want;
  gex_Event_t ev;
} red_t;

static void red_start(red_t *q, int d, size_t o, size_t cnt, gex_Rank_t root, int inplace,
                      int nulldst, unsigned salt) {
  size_t bytes = dt_size[d] * cnt;
  q->d = d; q->o = o; q->cnt = cnt; q->root = root; q->inplace = inplace; q->salt = salt;
  q->src = malloc(bytes);
  q->dst = malloc(bytes + GUARD);
  q->want = malloc(bytes);
  fills[d](ops[o], me, q->src, cnt, salt);
  models[d](ops[o], q->want, cnt, salt);
  memset(q->dst, 0xee, bytes + GUARD);
  int here = root == GEX_RANK_INVALID || root == me;
  if (inplace && here) memcpy(q->dst, q->src, bytes);
  const void *src = inplace && here ? q->dst : q->src;
  void *dst = !here && nulldst ? NULL : q->dst;
  if (root == GEX_RANK_INVALID)
    q->ev = gex_Coll_ReduceToAllNB(tm, dst, src, dt_code[d], dt_size[d], cnt, ops[o], NULL,
                                   NULL, 0);
  else
    q->ev = gex_Coll_ReduceToOneNB(tm, root, dst, src, dt_code[d], dt_size[d], cnt, ops[o],
                                   NULL, NULL, 0);
}
static void red_finish(red_t *q) {
  wait_ev(q->ev);
  size_t bytes = dt_size[q->d] * q->cnt;
  const char *to = q->root == GEX_RANK_INVALID ? "ReduceToAll" : "ReduceToOne";
  if (q->root == GEX_RANK_INVALID || q->root == me) {
    if (memcmp(q->dst, q->want, bytes)) {
      size_t i = 0, sz = dt_size[q->d];
      while (!memcmp(q->dst + i * sz, q->want + i * sz, sz)) i++;
      uint64_t g = 0, w = 0;
      memcpy(&g, q->dst + i * sz, sz);
      memcpy(&w, q->want + i * sz, sz);
      T_EXPECT(0, "%s %s %s %s of %zu (root %d%s): element %zu has bits %#llx, the model %#llx",
               team_name, to, dt_name[q->d], op_name[q->o], q->cnt, (int)q->root,
               q->inplace ? ", src == dst" : "", i, (unsigned long long)g,
               (unsigned long long)w);
    }
    for (size_t i = bytes; i < bytes + GUARD; i++)
      T_EXPECT(q->dst[i] == 0xee, "%s %s %s %s: wrote past dst", team_name, to, dt_name[q->d],
               op_name[q->o]);
    if (q->root == GEX_RANK_INVALID) fnv(&checksum, q->dst, bytes);
  } else {
    for (size_t i = 0; i < bytes + GUARD; i++)
      T_EXPECT(q->dst[i] == 0xee, "%s %s to root %u wrote dst on rank %u", team_name, to,
               (unsigned)q->root, (unsigned)me);
  }
  if (!q->inplace || !(q->root == GEX_RANK_INVALID || q->root == me)) {
    uint8_t *again = malloc(bytes);
    fills[q->d](ops[q->o], me, again, q->cnt, q->salt);
    T_EXPECT(!memcmp(again, q->src, bytes), "%s %s %s %s changed src", team_name, to,
             dt_name[q->d], op_name[q->o]);
    free(again);
  }
  free(q->src);
  free(q->dst);
  free(q->want);
  checks++;
}
static void red(int d, size_t o, size_t cnt, gex_Rank_t root, int inplace, int nulldst,
                unsigned salt) {
  red_t q;
  red_start(&q, d, o, cnt, root, inplace, nulldst, salt);
  red_finish(&q);
}

static void check_builtin(void) {
  unsigned salt = 10000;
  int combos = 0;
  for (int d = 0; d < ND; d++)
    for (size_t o = 0; o < NOPS; o++) {
      if (!op_valid(d, o)) continue;
      combos++;
      red(d, o, 1, GEX_RANK_INVALID, 0, 0, salt++);
      red(d, o, 1000, GEX_RANK_INVALID, 0, 0, salt++);
      red(d, o, 37, GEX_RANK_INVALID, 1, 0, salt++);
      for (gex_Rank_t root = 0; root < n; root++)
        red(d, o, 37, root, root == n - 1, root % 2, salt++);
      red(d, o, 1000, 0, 0, 0, salt++);
    }
  printf("node %u: %s: %d type x op combinations (every type: ADD MULT MIN MAX; integers: AND "
         "OR XOR): ReduceToAll of 1, 1000 and 37 (src == dst) elements, ReduceToOne of 37 to "
         "each of %u roots (src == dst on the last, dst NULL off odd roots) and of 1000: bit for "
         "bit as the sequential model, src unchanged\n", (unsigned)me, team_name, combos,
         (unsigned)n);
}

/* ---- user operations ------------------------------------------------------------ */
typedef struct {
  double v;
  int32_t rank;
  int32_t pad;
} argmax_t;
static const int argmax_cdata = 42, nc_cdata = 43;
static long user_calls, user_elems, user_bad_cdata;

static void argmax_one(const argmax_t *x, argmax_t *y) {
  if (x->v > y->v || (x->v == y->v && x->rank < y->rank)) *y = *x;
}
static void argmax_fn(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  const argmax_t *x = arg1;
  argmax_t *y = arg2_and_out;
  if (cdata != &argmax_cdata || count == 0) user_bad_cdata++;
  for (size_t i = 0; i < count; i++) argmax_one(&x[i], &y[i]);
  user_calls++;
  user_elems += (long)count;
}
static argmax_t argmax_gen(gex_Rank_t r, size_t i, unsigned salt) {
  argmax_t a = { (double)(mix(r, i, salt, 5) % 5), (int32_t)r, 0 };
  return a;
}

/* 2x2 matrices mod 2^32, row major: y = x * y */
typedef struct { uint32_t m[4]; } mat_t;
static void mat_mul(const mat_t *x, mat_t *y) {
  mat_t r;
  r.m[0] = x->m[0] * y->m[0] + x->m[1] * y->m[2];
  r.m[1] = x->m[0] * y->m[1] + x->m[1] * y->m[3];
  r.m[2] = x->m[2] * y->m[0] + x->m[3] * y->m[2];
  r.m[3] = x->m[2] * y->m[1] + x->m[3] * y->m[3];
  *y = r;
}
static void mat_fn(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  const mat_t *x = arg1;
  mat_t *y = arg2_and_out;
  if (cdata != &nc_cdata || count == 0) user_bad_cdata++;
  for (size_t i = 0; i < count; i++) mat_mul(&x[i], &y[i]);
  user_calls++;
  user_elems += (long)count;
}
static mat_t mat_gen(gex_Rank_t r, size_t i, unsigned salt) {
  mat_t a;
  for (int k = 0; k < 4; k++) a.m[k] = (uint32_t)mix(r, i, salt, (uint64_t)k);
  return a;
}

/* affine maps x -> a x + b mod 2^32 as (a << 32 | b): x (+) y = x o y */
static uint64_t aff_comp(uint64_t x, uint64_t y) {
  uint32_t a1 = (uint32_t)(x >> 32), b1 = (uint32_t)x, a2 = (uint32_t)(y >> 32), b2 = (uint32_t)y;
  return (uint64_t)(uint32_t)(a1 * a2) << 32 | (uint32_t)(a1 * b2 + b1);
}
static void aff_fn(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  const uint64_t *x = arg1;
  uint64_t *y = arg2_and_out;
  if (cdata != &nc_cdata || count == 0) user_bad_cdata++;
  for (size_t i = 0; i < count; i++) y[i] = aff_comp(x[i], y[i]);
  user_calls++;
  user_elems += (long)count;
}
static uint64_t aff_gen(gex_Rank_t r, size_t i, unsigned salt) { return mix(r, i, salt, 9) | 1; }

/* digit strings: the top byte the length, then up to 14 hex digits;
 * x (+) y = the digits of x, then those of y */
static uint64_t str_cat(uint64_t x, uint64_t y) {
  unsigned ly = (unsigned)(y >> 56), lx = (unsigned)(x >> 56);
  uint64_t digits = ((x & 0xffffffffffffffull) << (4 * ly)) | (y & 0xffffffffffffffull);
  return (uint64_t)(lx + ly) << 56 | (digits & 0xffffffffffffffull);
}
static void str_fn(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  const uint64_t *x = arg1;
  uint64_t *y = arg2_and_out;
  if (cdata != &nc_cdata || count == 0) user_bad_cdata++;
  for (size_t i = 0; i < count; i++) y[i] = str_cat(x[i], y[i]);
  user_calls++;
  user_elems += (long)count;
}
/* element i of team rank r: one digit, (job rank + i) mod 16 */
static uint64_t str_gen(gex_Rank_t r, size_t i) { return (uint64_t)1 << 56 | ((job[r] + i) % 16); }

/* max |v| (GEX_OP_USER on GEX_DT_DBL): the inputs' magnitudes differ by rank */
static double dabs(double v) { return v < 0 ? -v : v; }
static void maxabs_fn(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  const double *x = arg1;
  double *y = arg2_and_out;
  if (cdata != NULL || count == 0) user_bad_cdata++;
  for (size_t i = 0; i < count; i++)
    if (dabs(x[i]) > dabs(y[i])) y[i] = x[i];
  user_calls++;
  user_elems += (long)count;
}
static double maxabs_gen(gex_Rank_t r, size_t i, unsigned salt) {
  uint64_t h = mix(r, i, salt, 3);
  return (double)(r * 1000 + h % 1000 + 1) * (h & 1 ? -1.0 : 1.0);
}

/* One user reduction of cnt elements of elem bytes to root (or all). */
typedef struct {
  gex_DT_t dt;
  size_t sz;
  gex_OP_t op;
  gex_Coll_ReduceFn_t fn;
  const void *cdata;
  void (*gen)(gex_Rank_t r, size_t i, unsigned salt, void *out);
  void (*comb)(const void *x, void *y); /* y = x (+) y */
  const char *name;
} user_kind_t;

static void g_argmax(gex_Rank_t r, size_t i, unsigned s, void *o) { argmax_t v = argmax_gen(r, i, s); memcpy(o, &v, sizeof v); }
static void c_argmax(const void *x, void *y) { argmax_one(x, y); }
static void g_mat(gex_Rank_t r, size_t i, unsigned s, void *o) { mat_t v = mat_gen(r, i, s); memcpy(o, &v, sizeof v); }
static void c_mat(const void *x, void *y) { mat_mul(x, y); }
static void g_aff(gex_Rank_t r, size_t i, unsigned s, void *o) { uint64_t v = aff_gen(r, i, s); memcpy(o, &v, 8); }
static void c_aff(const void *x, void *y) { *(uint64_t *)y = aff_comp(*(const uint64_t *)x, *(uint64_t *)y); }
static void g_str(gex_Rank_t r, size_t i, unsigned s, void *o) { (void)s; uint64_t v = str_gen(r, i); memcpy(o, &v, 8); }
static void c_str(const void *x, void *y) { *(uint64_t *)y = str_cat(*(const uint64_t *)x, *(uint64_t *)y); }
static void g_maxabs(gex_Rank_t r, size_t i, unsigned s, void *o) { double v = maxabs_gen(r, i, s); memcpy(o, &v, 8); }
static void c_maxabs(const void *x, void *y) { if (dabs(*(const double *)x) > dabs(*(double *)y)) *(double *)y = *(const double *)x; }

enum { U_ARGMAX, U_MAT, U_AFF, U_STR, U_MAXABS, NUSER };
static const user_kind_t ukinds[NUSER] = {
  { GEX_DT_USER, sizeof(argmax_t), GEX_OP_USER, argmax_fn, &argmax_cdata, g_argmax, c_argmax,
    "arg-max {double, int32} (GEX_DT_USER, GEX_OP_USER)" },
  { GEX_DT_USER, sizeof(mat_t), GEX_OP_USER_NC, mat_fn, &nc_cdata, g_mat, c_mat,
    "2x2 matrix product mod 2^32 (GEX_DT_USER, GEX_OP_USER_NC)" },
  { GEX_DT_U64, 8, GEX_OP_USER_NC, aff_fn, &nc_cdata, g_aff, c_aff,
    "affine maps composed (GEX_DT_U64, GEX_OP_USER_NC)" },
  { GEX_DT_USER, 8, GEX_OP_USER_NC, str_fn, &nc_cdata, g_str, c_str,
    "digit strings concatenated (GEX_DT_USER, GEX_OP_USER_NC)" },
  { GEX_DT_DBL, 8, GEX_OP_USER, maxabs_fn, NULL, g_maxabs, c_maxabs,
    "max |v| (GEX_DT_DBL, GEX_OP_USER)" },
};

typedef struct {
  int k;
  size_t cnt;
  gex_Rank_t root;
  unsigned salt;
  uint8_t *src, *dst;
  gex_Event_t ev;
} ured_t;

static void ured_start(ured_t *q, int k, size_t cnt, gex_Rank_t root, int inplace, unsigned salt) {
  const user_kind_t *u = &ukinds[k];
  q->k = k; q->cnt = cnt; q->root = root; q->salt = salt;
  q->src = malloc(u->sz * cnt);
  q->dst = malloc(u->sz * cnt);
  for (size_t i = 0; i < cnt; i++) u->gen(me, i, salt, q->src + i * u->sz);
  memset(q->dst, 0xee, u->sz * cnt);
  const void *src = q->src;
  if (inplace && (root == GEX_RANK_INVALID || root == me)) { /* where src == dst is allowed */
    memcpy(q->dst, q->src, u->sz * cnt);
    src = q->dst;
  }
  if (root == GEX_RANK_INVALID)
    q->ev = gex_Coll_ReduceToAllNB(tm, q->dst, src, u->dt, u->sz, cnt, u->op, u->fn,
                                   (void *)u->cdata, 0);
  else
    q->ev = gex_Coll_ReduceToOneNB(tm, root, q->dst, src, u->dt, u->sz, cnt, u->op, u->fn,
                                   (void *)u->cdata, 0);
}
/* Checks and returns the result's first element (for printing). */
static void ured_finish(ured_t *q, void *first) {
  const user_kind_t *u = &ukinds[q->k];
  wait_ev(q->ev);
  if (q->root == GEX_RANK_INVALID || q->root == me) {
    uint8_t acc[64], x[64];
    for (size_t i = 0; i < q->cnt; i++) {
      /* the model: src[0] (+) (src[1] (+) ... (+) src[n-1]), right to left */
      u->gen(n - 1, i, q->salt, acc);
      for (gex_Rank_t r = n - 1; r-- > 0;) {
        u->gen(r, i, q->salt, x);
        u->comb(x, acc);
      }
      if (q->k == U_ARGMAX) { /* compare v and rank only */
        argmax_t a, b;
        memcpy(&a, acc, sizeof a);
        memcpy(&b, q->dst + i * u->sz, sizeof b);
        T_EXPECT(a.v == b.v && a.rank == b.rank, "%s %s, element %zu: {%g, rank %d}, the model "
                 "{%g, rank %d}", team_name, u->name, i, b.v, (int)b.rank, a.v, (int)a.rank);
      } else {
        uint64_t g = 0, w = 0;
        memcpy(&g, q->dst + i * u->sz, 8);
        memcpy(&w, acc, 8);
        T_EXPECT(!memcmp(acc, q->dst + i * u->sz, u->sz), "%s %s of %zu to %d, element %zu: "
                 "first 8 bytes %#llx, the model %#llx", team_name, u->name, q->cnt,
                 (int)q->root, i, (unsigned long long)g, (unsigned long long)w);
      }
    }
    if (first) memcpy(first, q->dst, u->sz);
    if (q->root == GEX_RANK_INVALID) fnv(&checksum, q->dst, u->sz * q->cnt);
  }
  free(q->src);
  free(q->dst);
  checks++;
}
static void ured(int k, size_t cnt, gex_Rank_t root, int inplace, unsigned salt, void *first) {
  ured_t q;
  ured_start(&q, k, cnt, root, inplace, salt);
  ured_finish(&q, first);
}

static void check_user(void) {
  unsigned salt = 20000;
  long calls0 = user_calls, elems0 = user_elems;
  for (int k = 0; k < NUSER; k++) {
    ured(k, 1, GEX_RANK_INVALID, 0, salt++, NULL);
    ured(k, 500, GEX_RANK_INVALID, 0, salt++, NULL);
    ured(k, 37, GEX_RANK_INVALID, 1, salt++, NULL);
    for (gex_Rank_t root = 0; root < n; root++) ured(k, 100, root, root == n - 1, salt++, NULL);
  }
  T_EXPECT(user_bad_cdata == 0, "%ld calls of a user function had the wrong cdata or count 0",
           user_bad_cdata);
  uint64_t s = 0;
  ured(U_STR, 3, GEX_RANK_INVALID, 0, salt++, &s);
  char digits[16];
  unsigned len = (unsigned)(s >> 56) < 15 ? (unsigned)(s >> 56) : 15;
  for (unsigned i = 0; i < len; i++) digits[i] = "0123456789abcdef"[(s >> (4 * (len - 1 - i))) & 15];
  digits[len] = 0;
  argmax_t am;
  ured(U_ARGMAX, 1, GEX_RANK_INVALID, 0, salt++, &am);
  printf("node %u: %s: %d user operations, ReduceToAll of 1, 500 and 37 (src == dst) elements "
         "and ReduceToOne of 100 to each root, as the model: arg-max (ties to the lower rank), "
         "matrix products, affine maps, digit strings, max |v|; USER_NC element 0 spells the "
         "job ranks in team rank order: \"%s\"; arg-max element 0 {%g, rank %d}; here the "
         "functions ran %ld times on %ld elements, cdata passed through every time\n",
         (unsigned)me, team_name, NUSER, digits, am.v, (int)am.rank, user_calls - calls0,
         user_elems - elems0);
}

/* ---- no size limit -------------------------------------------------------------- */
static void check_big(size_t cnt) {
  int64_t *src = malloc(8 * cnt), *dst = malloc(8 * cnt);
  for (size_t i = 0; i < cnt; i++) src[i] = (int64_t)(i * 3 + 1) * ((int64_t)me + 1) - 1000;
  memset(dst, 0, 8 * cnt);
  wait_ev(gex_Coll_ReduceToAllNB(tm, dst, src, GEX_DT_I64, 8, cnt, GEX_OP_ADD, NULL, NULL, 0));
  int64_t tri = (int64_t)n * (n + 1) / 2;
  for (size_t i = 0; i < cnt; i++) {
    int64_t want = (int64_t)(i * 3 + 1) * tri - 1000 * (int64_t)n;
    T_EXPECT(dst[i] == want, "%s: ReduceToAll I64 ADD of %zu elements: element %zu is %lld, "
             "want %lld", team_name, cnt, i, (long long)dst[i], (long long)want);
  }
  fnv(&checksum, dst, 8 * cnt);
  memset(dst, 0, 8 * cnt);
  gex_Rank_t root = n - 1;
  wait_ev(gex_Coll_ReduceToOneNB(tm, root, dst, src, GEX_DT_I64, 8, cnt, GEX_OP_ADD, NULL,
                                 NULL, 0));
  if (me == root)
    for (size_t i = 0; i < cnt; i++)
      T_EXPECT(dst[i] == (int64_t)(i * 3 + 1) * tri - 1000 * (int64_t)n, "%s: ReduceToOne "
               "I64 ADD of %zu elements: element %zu is %lld", team_name, cnt, i,
               (long long)dst[i]);
  free(src);
  free(dst);
  long calls0 = user_calls;
  size_t acnt = cnt / 4 ? cnt / 4 : 1;
  ured(U_AFF, acnt, GEX_RANK_INVALID, 0, 31337, NULL);
  checks += 2;
  printf("node %u: %s: ReduceToAll and ReduceToOne of %zu I64 (%zu MiB) ADD and ReduceToAll of "
         "%zu affine maps USER_NC: every element as the model (the function ran %ld times "
         "here)\n", (unsigned)me, team_name, cnt, cnt * 8 >> 20, acnt, user_calls - calls0);
}

/* ---- many kinds in flight on one team --------------------------------------------- */
static void check_mixed_inflight(int batches) {
  for (int b = 0; b < batches; b++) {
    unsigned salt = 40000u + 100u * (unsigned)b;
    uint8_t *bsrc = malloc(65537), *bdst = malloc(65537 + GUARD);
    uint64_t b8src = 0x1111111111111111ull * (job[me] + 1), b8dst = 0;
    memset(bdst, 0xee, 65537 + GUARD);
    fill_pat(bsrc, 0, 65537, salt);
    red_t r1, r2, r3;
    ured_t u1, u2;
    enum { NEV = 8 };
    gex_Event_t *ev[NEV];
    gex_Event_t e_b1, e_b2, e_bar;
    e_b1 = gex_Coll_BroadcastNB(tm, 0, bdst, bsrc, 65537, 0);
    red_start(&r1, D_I64, 0, 1000, GEX_RANK_INVALID, 0, 0, salt + 1);
    red_start(&r2, D_DBL, 3, 37, n - 1, 0, 0, salt + 2);
    e_b2 = gex_Coll_BroadcastNB(tm, n - 1, &b8dst, &b8src, 8, 0);
    ured_start(&u1, U_MAT, 100, GEX_RANK_INVALID, 0, salt + 3);
    ured_start(&u2, U_ARGMAX, 50, 0, 0, salt + 4);
    red_start(&r3, D_U32, 6, 333, GEX_RANK_INVALID, 1, 0, salt + 5);
    e_bar = gex_Coll_BarrierNB(tm, 0);
    ev[0] = &e_b1; ev[1] = &r1.ev; ev[2] = &r2.ev; ev[3] = &e_b2;
    ev[4] = &u1.ev; ev[5] = &u2.ev; ev[6] = &r3.ev; ev[7] = &e_bar;
    /* wait in reverse order, then in an order of this rank's own */
    int order[NEV];
    for (int i = 0; i < NEV; i++) order[i] = NEV - 1 - i;
    if (b % 2)
      for (int i = NEV - 1; i > 0; i--) {
        int j = (int)(mix(b, me, i, 1) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    for (int i = 0; i < NEV; i++) {
      wait_ev(*ev[order[i]]);
      *ev[order[i]] = GEX_EVENT_INVALID;
    }
    check_pat(bdst, 0, 65537, salt, "mixed in flight");
    T_EXPECT(b8dst == 0x1111111111111111ull * (job[n - 1] + 1), "mixed in flight: the 8-byte "
             "broadcast from root %u gave %#llx", (unsigned)(n - 1), (unsigned long long)b8dst);
    red_finish(&r1);
    red_finish(&r2);
    red_finish(&r3);
    ured_finish(&u1, NULL);
    ured_finish(&u2, NULL);
    free(bsrc);
    free(bdst);
  }
  printf("node %u: %s: %d batches of 2 broadcasts, 3 built-in and 2 user reductions and a "
         "barrier in flight at once, waited in reverse or shuffled order: all as the model\n",
         (unsigned)me, team_name, batches);
}

/* ---- ToAll results are the same everywhere ---------------------------------------- */
static void check_same_everywhere(void) {
  uint64_t mine = checksum, root0 = 0, lo = 0, hi = 0;
  wait_ev(gex_Coll_BroadcastNB(tm, 0, &root0, &mine, 8, 0));
  wait_ev(gex_Coll_ReduceToAllNB(tm, &lo, &mine, GEX_DT_U64, 8, 1, GEX_OP_MIN, NULL, NULL, 0));
  wait_ev(gex_Coll_ReduceToAllNB(tm, &hi, &mine, GEX_DT_U64, 8, 1, GEX_OP_MAX, NULL, NULL, 0));
  T_EXPECT(root0 == mine && lo == mine && hi == mine, "%s: the checksum of every ToAll result "
           "here is %#llx, rank 0's %#llx, min %#llx, max %#llx", team_name,
           (unsigned long long)mine, (unsigned long long)root0, (unsigned long long)lo,
           (unsigned long long)hi);
  printf("node %u: %s: checksum of every ReduceToAll result %#llx, equal to rank 0's and to "
         "the min and max over the team\n", (unsigned)me, team_name, (unsigned long long)mine);
}

static void run_all(size_t big, int late_rounds, int batches) {
  checksum = 0xcbf29ce484222325ull;
  barrier();
  check_bcast_sizes();
  check_bcast_inflight();
  check_late(late_rounds);
  check_builtin();
  check_user();
  if (big) check_big(big);
  check_mixed_inflight(batches);
  check_same_everywhere();
  barrier();
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  T_CHECK(gex_Client_Init(&client, &ep, &tm0, "T_EX_COLL", &argc, &argv, 0));
  size_t big = getenv("T_COLL_BIG") ? (size_t)atol(getenv("T_COLL_BIG")) : (size_t)4 << 20;
  int late = getenv("T_COLL_LATE") ? atoi(getenv("T_COLL_LATE")) : 8;
  tm = tm0;
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  T_EXPECT(n <= MAXN, "at most %d ranks (the model's exact arithmetic)", MAXN);
  for (gex_Rank_t r = 0; r < n; r++) job[r] = r;
  /* the collectives need no segment; attach one anyway, as a client would */
  gex_Segment_t segment;
  T_CHECK(gex_Segment_Attach(&segment, tm0, 1 << 16));
  team_name = "the job";
  run_all(big, late, 6);

  /* the same on the job in reverse order: team rank r is job rank n-1-r */
  gex_TM_t rev;
  gex_TM_Split(&rev, tm0, 0, -(int)gex_TM_QueryRank(tm0), NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  tm = rev;
  me = gex_TM_QueryRank(tm);
  for (gex_Rank_t r = 0; r < n; r++) job[r] = n - 1 - r;
  T_EXPECT(me == n - 1 - gex_TM_QueryRank(tm0), "the reversed team's rank %u", (unsigned)me);
  team_name = "the reversed team";
  run_all(big / 16, 2, 2);
  T_EXPECT(gex_TM_Destroy(rev, NULL, 0) == 0, "gex_TM_Destroy of a team without scratch");
  tm = tm0;
  printf("node %u: %ld checks\n", (unsigned)gex_TM_QueryRank(tm0), checks);
  printf("node %u: all collective checks passed\n", (unsigned)gex_TM_QueryRank(tm0));
  gasnet_exit(0);
  return 0;
}
