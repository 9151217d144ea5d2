/*
 * t_ex_vis.c - VIS (gasnet_vis.h) against a model of the remote memory, on
 * any number of ranks. Compiled twice: against gasnetex.h (gex_VIS_*) and,
 * with -DT_VIS_GASNET1, against gasnet.h (gasnet_{put,get}{v,i,s}*_bulk),
 * through the same model. The sentences of ../shared/spec/gasnet-ex-api.txt
 * ("Vector/Indexed/Strided (VIS)") checked:
 *
 *  - model: batches of up to 8 random operations (vector, indexed, strided;
 *    put and get; blocking, NB, NBI, some in an access region) to a random
 *    rank (itself too), each on its own slot of this rank's region there,
 *    local memory in the heap or in the segment. The two sides are cut
 *    differently (only the totals agree): vector lists of other lengths
 *    with zero-length entries, indexed lists of other entry sizes, strided
 *    boxes with gaps, levels transposed and (EX) negative strides. Sources
 *    may overlap ("Source locations are permitted to overlap"),
 *    destinations never do. Some pieces are 16 KiB or more (sent as plain
 *    RMA). Every get is compared with the model, with the bytes around its
 *    pieces unchanged; at the end every region is read back whole and
 *    compared (T_VIS_OPS operations, default 300);
 *  - degenerate cases (EX): elemsz == 0 and a zero count are no-ops that
 *    ignore every other argument (a NULL tm and rank 99 here); stridelevels
 *    == 0 is a contiguous copy that ignores strides and count; empty lists;
 *    lists of only zero-length entries;
 *  - (EX) a call without GEX_FLAG_IMMEDIATE never returns non-zero or
 *    GEX_EVENT_NO_OP; GEX_FLAG_ENABLE_LEAF_LC: gex_Event_QueryLeaf(root,
 *    GEX_EC_LC) gives an event that completes, and the NBI LC category;
 *  - (EX) gex_VIS_SetPeerCompletionHandler: the peer runs the Medium reply
 *    handler once per armed put, with the payload, after the put's data
 *    is there (the handler checks it); only the next put is bound; 0
 *    disarms; a put of 0 bytes still notifies; a put to itself too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(T_VIS_GASNET1)
#include "gasnet.h"
#define T_API "GASNet-1"
#else
#include "gasnetex.h"
#define T_API "GASNet-EX"
#endif
#include "gasnet_vis.h"
#include "../lib/t_check.h"

#define REGION (1u << 20)        /* per (target, writer): the model's memory */
#define NSLOT 8                  /* operations per batch, one slot each */
#define SLOT (REGION / NSLOT)
#define MAXTOTAL (96u << 10)     /* bytes of one operation, at most */
#define MAXPIECES 600
#define H_PC 140

static gasnet_node_t me, n;
static uint8_t *seg, **peer_seg;  /* my segment: [n regions][local slots]; every base */
static uint8_t *heap;             /* local slots in the heap */

static uint8_t *region_of(gasnet_node_t target, gasnet_node_t writer) {
  return peer_seg[target] + (size_t)writer * REGION;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static size_t rnd_below(size_t k) { return k ? (size_t)(rnd() % k) : 0; }
static void fill(uint8_t *p, size_t len) {
  for (size_t i = 0; i < len; i++) p[i] = (uint8_t)rnd();
}

static void barrier(void) {
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  T_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
}

/* ---- one operation: its two sides as pieces (offsets into a slot) -------------- */
typedef struct { size_t off, len; } piece_t;
enum { K_VEC, K_IDX, K_STR };
enum { F_BLOCKING, F_NB, F_NBI };
typedef struct {
  int kind;
  size_t n, len;                  /* VEC/IDX: entries; IDX: bytes each */
  piece_t p[MAXPIECES];           /* VEC/IDX */
  size_t base;                    /* STR: offset of element (0,...,0) */
  ptrdiff_t stride[4];
} side_t;
typedef struct {
  int get, form;
  gasnet_node_t r;
  size_t total, elemsz, levels, count[4];
  side_t dst, src;                /* dst and src of the operation */
} op_t;

/* The pieces of a side in order (strided: its elements, level 0 fastest). */
static size_t expand(const op_t *o, const side_t *s, piece_t *out) {
  size_t k = 0;
  if (s->kind != K_STR) {
    for (size_t i = 0; i < s->n; i++) out[k++] = s->kind == K_VEC ? s->p[i] : (piece_t){ s->p[i].off, s->len };
    return k;
  }
  size_t nel = o->elemsz ? 1 : 0, at[4] = { 0 };
  for (size_t l = 0; l < o->levels; l++) nel *= o->count[l];
  for (size_t e = 0; e < nel; e++) {
    ptrdiff_t off = (ptrdiff_t)s->base;
    for (size_t l = 0; l < o->levels; l++) off += (ptrdiff_t)at[l] * s->stride[l];
    out[k++] = (piece_t){ (size_t)off, o->elemsz };
    for (size_t l = 0; l < o->levels && ++at[l] == o->count[l]; l++) at[l] = 0;
  }
  return k;
}

/* Copy the byte stream of src pieces (in sbase) onto dst pieces (in dbase). */
static void apply(uint8_t *dbase, const piece_t *d, size_t nd, const uint8_t *sbase,
                  const piece_t *s, size_t ns) {
  size_t i = 0, j = 0, di = 0, sj = 0;
  while (i < nd && j < ns) {
    size_t a = d[i].len - di, b = s[j].len - sj, m = a < b ? a : b;
    memmove(dbase + d[i].off + di, sbase + s[j].off + sj, m);
    di += m, sj += m;
    if (di == d[i].len) i++, di = 0;
    if (sj == s[j].len) j++, sj = 0;
  }
}

/* ---- random shapes ----------------------------------------------------------- */

static size_t rnd_len(size_t most) { /* log-uniform 1 .. most */
  int bits = 1 + (int)rnd_below(12);
  size_t len = 1 + rnd_below((size_t)1 << bits);
  return len > most ? most : len;
}

/* Lay pieces out in span bytes: disjoint (random gaps, random order) or
 * anywhere (they may overlap). */
static void place(piece_t *p, size_t np, size_t span, int disjoint) {
  size_t sum = 0;
  for (size_t i = 0; i < np; i++) sum += p[i].len;
  if (!disjoint) {
    for (size_t i = 0; i < np; i++) p[i].off = rnd_below(span - p[i].len + 1);
    return;
  }
  size_t *order = malloc(np * sizeof *order), gap = (span - sum) / (np + 1), at = 0;
  for (size_t i = 0; i < np; i++) order[i] = i;
  for (size_t i = np; i > 1; i--) { size_t k = rnd_below(i), t = order[i - 1]; order[i - 1] = order[k]; order[k] = t; }
  for (size_t i = 0; i < np; i++) {
    at += rnd_below(gap + 1);
    p[order[i]].off = at;
    at += p[order[i]].len;
  }
  free(order);
}

/* A vector side of total bytes in np pieces (some empty). */
static void gen_vec(side_t *s, size_t total, int disjoint) {
  size_t np = 1 + rnd_below(rnd() % 8 ? 40 : MAXPIECES - 1), left = total;
  s->kind = K_VEC, s->n = np;
  for (size_t i = 0; i < np; i++) {
    size_t len = i == np - 1 ? left : (rnd() % 6 == 0 ? 0 : rnd_below(2 * total / np + 2));
    if (len > left) len = left;
    s->p[i].len = len, left -= len;
  }
  place(s->p, np, SLOT, disjoint);
  for (size_t i = 0; i < np; i++) /* an empty entry may point anywhere */
    if (!s->p[i].len && rnd() % 2) s->p[i].off = rnd_below(SLOT);
}

static void gen_idx(op_t *o, int disjoint) {
  size_t u = rnd() % 10 == 0 ? 16384 + rnd_below(8192) : rnd_len(64);
  size_t a = 1 + rnd_below(24), b = 1 + rnd_below(24);
  if (u * a * b > MAXTOTAL) a = 1, b = 1 + rnd_below(MAXTOTAL / u);
  if (rnd() % 20 == 0) a = b = 0;             /* empty lists */
  o->total = u * a * b;
  side_t *s[2] = { &o->dst, &o->src };
  for (int k = 0; k < 2; k++) {
    s[k]->kind = K_IDX;
    s[k]->len = k == 0 ? u * a : u * b, s[k]->n = k == 0 ? b : a;
    if (rnd() % 20 == 0 && !o->total) s[k]->len = 0, s[k]->n = 5; /* entries of 0 bytes */
    for (size_t i = 0; i < s[k]->n; i++) s[k]->p[i].len = s[k]->len;
    place(s[k]->p, s[k]->n, SLOT, k == 0 || disjoint);
  }
}

/* Strides for a box of the op's counts: nested with gaps, in a random order
 * of the levels (a transpose), some reversed (negative: EX only). */
static void gen_strides(const op_t *o, side_t *s, int negate) {
  size_t perm[4] = { 0, 1, 2, 3 }, unit = o->elemsz;
  for (size_t i = o->levels; i > 1; i--) { size_t k = rnd_below(i), t = perm[i - 1]; perm[i - 1] = perm[k]; perm[k] = t; }
  for (int tries = 0;; tries++) {
    unit = o->elemsz;
    for (size_t j = 0; j < o->levels; j++) {
      size_t l = perm[j];
      s->stride[l] = (ptrdiff_t)(unit + (tries ? 0 : rnd_below(o->elemsz + 1)));
      unit = (size_t)s->stride[l] * o->count[l];
    }
    if (unit <= SLOT) break;
  }
  s->kind = K_STR, s->n = 0;
  s->base = rnd_below(SLOT - unit + 1);
  for (size_t l = 0; l < o->levels; l++)
    if (negate && rnd() % 2) {
      s->base += (size_t)s->stride[l] * (o->count[l] - 1);
      s->stride[l] = -s->stride[l];
    }
}

static void gen_str(op_t *o, int negate) {
  static const size_t sizes[] = { 1, 3, 8, 8, 16, 100, 512, 4096, 20000 };
  o->elemsz = sizes[rnd_below(sizeof sizes / sizeof sizes[0])];
  o->levels = rnd_below(4);
  o->total = o->elemsz;
  for (size_t l = 0; l < o->levels; l++) {
    o->count[l] = 1 + rnd_below(6);
    if (o->total * o->count[l] > MAXTOTAL) o->count[l] = 1;
    o->total *= o->count[l];
  }
  if (rnd() % 25 == 0) o->elemsz = o->total = 0;                              /* elemsz 0 */
  if (o->levels && rnd() % 25 == 0) o->count[rnd_below(o->levels)] = 0, o->total = 0;
  gen_strides(o, &o->dst, negate);
  gen_strides(o, &o->src, negate);
}

static void gen(op_t *o) {
  o->get = (int)(rnd() % 2);
  o->form = (int)(rnd() % 3);
  o->r = (gasnet_node_t)rnd_below(n);
  o->levels = 0;
  int kind = (int)rnd_below(3);
  if (kind == K_VEC) {
    size_t total = rnd() % 8 == 0 ? 16384 + rnd_below(MAXTOTAL - 16384) : rnd_len(48 << 10);
    if (rnd() % 20 == 0) total = 0;
    o->total = total;
    gen_vec(&o->dst, total, 1);
    gen_vec(&o->src, total, rnd() % 2); /* sources may overlap */
  } else if (kind == K_IDX) {
    gen_idx(o, rnd() % 2);
  } else {
#if defined(T_VIS_GASNET1)
    gen_str(o, 0); /* GASNet-1's strides are size_t */
#else
    gen_str(o, 1);
#endif
  }
}

/* ---- issuing it through the API --------------------------------------------------- */
typedef struct {
  gex_Memvec_t dv[MAXPIECES], sv[MAXPIECES];
  void *di[MAXPIECES], *si[MAXPIECES];
} lists_t;

static void make_lists(const side_t *s, uint8_t *base, gex_Memvec_t *v, void **ix) {
  for (size_t i = 0; i < s->n; i++) {
    v[i].gex_addr = base + s->p[i].off, v[i].gex_len = s->p[i].len;
    ix[i] = base + s->p[i].off;
  }
}

#if defined(T_VIS_GASNET1)
/* One GASNet-1 call; the handle (NB), synchronized by the caller. */
static gasnet_handle_t issue(const op_t *o, uint8_t *dbase, uint8_t *sbase, lists_t *L) {
  gasnet_handle_t h = GASNET_INVALID_HANDLE;
  const side_t *d = &o->dst, *s = &o->src;
  gasnet_memvec_t *dv = (gasnet_memvec_t *)L->dv, *sv = (gasnet_memvec_t *)L->sv;
  if (d->kind == K_VEC) {
    for (size_t i = 0; i < d->n; i++) dv[i] = (gasnet_memvec_t){ dbase + d->p[i].off, d->p[i].len };
    for (size_t i = 0; i < s->n; i++) sv[i] = (gasnet_memvec_t){ sbase + s->p[i].off, s->p[i].len };
    switch (o->form + 3 * o->get) {
    case 0: gasnet_putv_bulk(o->r, d->n, dv, s->n, sv); break;
    case 1: h = gasnet_putv_nb_bulk(o->r, d->n, dv, s->n, sv); break;
    case 2: gasnet_putv_nbi_bulk(o->r, d->n, dv, s->n, sv); break;
    case 3: gasnet_getv_bulk(d->n, dv, o->r, s->n, sv); break;
    case 4: h = gasnet_getv_nb_bulk(d->n, dv, o->r, s->n, sv); break;
    default: gasnet_getv_nbi_bulk(d->n, dv, o->r, s->n, sv); break;
    }
  } else if (d->kind == K_IDX) {
    make_lists(d, dbase, L->dv, L->di);
    make_lists(s, sbase, L->sv, L->si);
    switch (o->form + 3 * o->get) {
    case 0: gasnet_puti_bulk(o->r, d->n, L->di, d->len, s->n, L->si, s->len); break;
    case 1: h = gasnet_puti_nb_bulk(o->r, d->n, L->di, d->len, s->n, L->si, s->len); break;
    case 2: gasnet_puti_nbi_bulk(o->r, d->n, L->di, d->len, s->n, L->si, s->len); break;
    case 3: gasnet_geti_bulk(d->n, L->di, d->len, o->r, s->n, L->si, s->len); break;
    case 4: h = gasnet_geti_nb_bulk(d->n, L->di, d->len, o->r, s->n, L->si, s->len); break;
    default: gasnet_geti_nbi_bulk(d->n, L->di, d->len, o->r, s->n, L->si, s->len); break;
    }
  } else {
    size_t cnt[5] = { o->elemsz }, ds[4], ss[4];
    for (size_t l = 0; l < o->levels; l++)
      cnt[l + 1] = o->count[l], ds[l] = (size_t)d->stride[l], ss[l] = (size_t)s->stride[l];
    void *da = dbase + d->base, *sa = sbase + s->base;
    switch (o->form + 3 * o->get) {
    case 0: gasnet_puts_bulk(o->r, da, ds, sa, ss, cnt, o->levels); break;
    case 1: h = gasnet_puts_nb_bulk(o->r, da, ds, sa, ss, cnt, o->levels); break;
    case 2: gasnet_puts_nbi_bulk(o->r, da, ds, sa, ss, cnt, o->levels); break;
    case 3: gasnet_gets_bulk(da, ds, o->r, sa, ss, cnt, o->levels); break;
    case 4: h = gasnet_gets_nb_bulk(da, ds, o->r, sa, ss, cnt, o->levels); break;
    default: gasnet_gets_nbi_bulk(da, ds, o->r, sa, ss, cnt, o->levels); break;
    }
  }
  return h;
}
static void sync_all(gasnet_handle_t *h, int k) {
  gasnet_wait_syncnb_all(h, (size_t)k);
  gasnet_wait_syncnbi_all();
}
#else
static gex_TM_t tm;
/* One GASNet-EX call; the event (NB), synchronized by the caller. */
static gex_Event_t issue(const op_t *o, uint8_t *dbase, uint8_t *sbase, lists_t *L) {
  gex_Event_t ev = GEX_EVENT_INVALID;
  int rc = 0;
  const side_t *d = &o->dst, *s = &o->src;
  gex_Flags_t lc = o->get ? 0 : (rnd() % 2 ? GEX_FLAG_ENABLE_LEAF_LC : 0);
  make_lists(d, dbase, L->dv, L->di);
  make_lists(s, sbase, L->sv, L->si);
  if (d->kind == K_VEC) {
    switch (o->form + 3 * o->get) {
    case 0: rc = gex_VIS_VectorPutBlocking(tm, o->r, d->n, L->dv, s->n, L->sv, lc); break;
    case 1: ev = gex_VIS_VectorPutNB(tm, o->r, d->n, L->dv, s->n, L->sv, lc); break;
    case 2: rc = gex_VIS_VectorPutNBI(tm, o->r, d->n, L->dv, s->n, L->sv, lc); break;
    case 3: rc = gex_VIS_VectorGetBlocking(tm, d->n, L->dv, o->r, s->n, L->sv, 0); break;
    case 4: ev = gex_VIS_VectorGetNB(tm, d->n, L->dv, o->r, s->n, L->sv, 0); break;
    default: rc = gex_VIS_VectorGetNBI(tm, d->n, L->dv, o->r, s->n, L->sv, 0); break;
    }
  } else if (d->kind == K_IDX) {
    switch (o->form + 3 * o->get) {
    case 0: rc = gex_VIS_IndexedPutBlocking(tm, o->r, d->n, L->di, d->len, s->n, L->si, s->len, lc); break;
    case 1: ev = gex_VIS_IndexedPutNB(tm, o->r, d->n, L->di, d->len, s->n, L->si, s->len, lc); break;
    case 2: rc = gex_VIS_IndexedPutNBI(tm, o->r, d->n, L->di, d->len, s->n, L->si, s->len, lc); break;
    case 3: rc = gex_VIS_IndexedGetBlocking(tm, d->n, L->di, d->len, o->r, s->n, L->si, s->len, 0); break;
    case 4: ev = gex_VIS_IndexedGetNB(tm, d->n, L->di, d->len, o->r, s->n, L->si, s->len, 0); break;
    default: rc = gex_VIS_IndexedGetNBI(tm, d->n, L->di, d->len, o->r, s->n, L->si, s->len, 0); break;
    }
  } else {
    void *da = dbase + d->base, *sa = sbase + s->base;
    switch (o->form + 3 * o->get) {
    case 0: rc = gex_VIS_StridedPutBlocking(tm, o->r, da, d->stride, sa, s->stride, o->elemsz, o->count, o->levels, lc); break;
    case 1: ev = gex_VIS_StridedPutNB(tm, o->r, da, d->stride, sa, s->stride, o->elemsz, o->count, o->levels, lc); break;
    case 2: rc = gex_VIS_StridedPutNBI(tm, o->r, da, d->stride, sa, s->stride, o->elemsz, o->count, o->levels, lc); break;
    case 3: rc = gex_VIS_StridedGetBlocking(tm, da, d->stride, o->r, sa, s->stride, o->elemsz, o->count, o->levels, 0); break;
    case 4: ev = gex_VIS_StridedGetNB(tm, da, d->stride, o->r, sa, s->stride, o->elemsz, o->count, o->levels, 0); break;
    default: rc = gex_VIS_StridedGetNBI(tm, da, d->stride, o->r, sa, s->stride, o->elemsz, o->count, o->levels, 0); break;
    }
  }
  T_EXPECT(rc == 0 && ev != GEX_EVENT_NO_OP, "a VIS call without IMMEDIATE returned %d / NO_OP", rc);
  if (lc && o->form == F_NB && ev != GEX_EVENT_INVALID) { /* the LC leaf completes too */
    gex_Event_t leaf = gex_Event_QueryLeaf(ev, GEX_EC_LC);
    gex_Event_Wait(leaf);
  }
  return ev;
}
static void sync_all(gex_Event_t *h, int k) {
  gex_Event_WaitAll(h, (size_t)k, 0);
  gex_NBI_Wait(GEX_EC_ALL, 0);
}
#endif

#if defined(T_VIS_GASNET1)
#define REGION_BEGIN() gasnet_begin_nbi_accessregion()
#define REGION_END() gasnet_wait_syncnb(gasnet_end_nbi_accessregion())
#define GET_BLOCKING(dst, r, src, len) gasnet_get_bulk(dst, r, src, len)
#else
#define REGION_BEGIN() gex_NBI_BeginAccessRegion(0)
#define REGION_END() gex_Event_Wait(gex_NBI_EndAccessRegion(0))
#define GET_BLOCKING(dst, r, src, len) gex_RMA_GetBlocking(tm, dst, r, src, len, 0)
#endif

/* ---- the model check ---------------------------------------------------------- */

/* The first byte where a and b differ, or len. */
static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t len) {
  size_t i = 0;
  while (i < len && a[i] == b[i]) i++;
  return i;
}

static void model_check(int ops) {
  static const char *const kinds[] = { "vector", "indexed", "strided" };
  uint8_t **model = calloc(n, sizeof *model), *expect = malloc(REGION);
  for (gasnet_node_t r = 0; r < n; r++) model[r] = calloc(1, REGION);
  op_t *op = malloc(NSLOT * sizeof *op);
  lists_t *L = malloc(NSLOT * sizeof *L);
  piece_t *pd = malloc(MAXPIECES * sizeof *pd), *ps = malloc(MAXPIECES * sizeof *ps);
#if defined(T_VIS_GASNET1)
  gasnet_handle_t h[NSLOT];
#else
  gex_Event_t h[NSLOT];
#endif
  int done = 0, count[3][2] = { { 0 } };
  size_t bytes = 0, pieces = 0;
  rng ^= (uint64_t)(me + 1) * 0x9e3779b97f4a7c15ull;
  while (done < ops) {
    int k = 0, region = rnd() % 5 == 0;
    uint8_t *local = rnd() % 2 ? heap : seg + (size_t)n * REGION; /* heap or segment */
    if (region) REGION_BEGIN();
    for (; k < NSLOT && done < ops; k++, done++) {
      op_t *o = &op[k];
      gen(o);
      uint8_t *rslot = region_of(o->r, me) + (size_t)k * SLOT, *lslot = local + (size_t)k * SLOT;
      uint8_t *mslot = model[o->r] + (size_t)k * SLOT, *eslot = expect + (size_t)k * SLOT;
      size_t nd = expand(o, &o->dst, pd), ns = expand(o, &o->src, ps);
      fill(lslot, SLOT);
      if (o->get) {
        memcpy(eslot, lslot, SLOT);
        apply(eslot, pd, nd, mslot, ps, ns);
        h[k] = issue(o, lslot, rslot, &L[k]);
      } else {
        apply(mslot, pd, nd, lslot, ps, ns);
        h[k] = issue(o, rslot, lslot, &L[k]);
      }
      count[o->dst.kind][o->get]++;
      bytes += o->total, pieces += nd + ns;
    }
    if (region) REGION_END();
    sync_all(h, k);
    for (int i = 0; i < k; i++) {
      if (!op[i].get) continue;
      size_t at = first_diff(local + (size_t)i * SLOT, expect + (size_t)i * SLOT, SLOT);
      T_EXPECT(at == SLOT, "model: %s get of %zu B from node %u (form %d) differs from the "
               "model at slot byte %zu", kinds[op[i].dst.kind], op[i].total, (unsigned)op[i].r,
               op[i].form, at);
    }
  }
  barrier();
  for (gasnet_node_t r = 0; r < n; r++) { /* every region whole, against its model */
    GET_BLOCKING(expect, r, region_of(r, me), REGION);
    size_t at = first_diff(expect, model[r], REGION);
    T_EXPECT(at == REGION, "model: my region on node %u differs at byte %zu", (unsigned)r, at);
    free(model[r]);
  }
  printf("node %u: " T_API " VIS model check: %d random operations (puts/gets: vector %d/%d, "
         "indexed %d/%d, strided %d/%d), %zu bytes in %zu pieces, all regions equal their "
         "models\n", (unsigned)me, ops, count[0][0], count[0][1], count[1][0], count[1][1],
         count[2][0], count[2][1], bytes, pieces);
  free(model), free(expect), free(op), free(L), free(pd), free(ps);
}

#define SCRATCH (64u << 10) /* per (target, writer): the directed checks */

#if !defined(T_VIS_GASNET1)
static uint8_t *scratch_of(gasnet_node_t target, gasnet_node_t writer) {
  return peer_seg[target] + (size_t)n * REGION + REGION + (size_t)writer * SCRATCH;
}

/* ---- directed checks (GASNet-EX) ------------------------------------------------ */

/* The degenerate cases of the description, "Strided Puts and Gets", and
 * empty lists: no-ops that look at nothing, and a contiguous copy. */
static void check_degenerate(void) {
  gasnet_node_t peer = (me + 1) % n;
  uint8_t *dst = scratch_of(peer, me), buf[100], back[100];
  size_t cnt[2] = { 3, 0 };
  ptrdiff_t st[2] = { 8, 64 };
  T_EXPECT(gex_VIS_StridedPutBlocking(NULL, 99, NULL, NULL, NULL, NULL, 0, NULL, 5, 0) == 0,
           "elemsz 0 is a no-op whatever the other arguments");
  T_EXPECT(gex_VIS_StridedGetNB(NULL, NULL, st, 99, NULL, st, 8, cnt, 2, 0) == GEX_EVENT_INVALID,
           "a zero count is a no-op (tm, rank, addresses ignored)");
  T_EXPECT(gex_VIS_VectorPutBlocking(tm, peer, 0, NULL, 0, NULL, 0) == 0, "empty lists");
  T_EXPECT(gex_VIS_IndexedGetNB(tm, 0, NULL, 8, peer, 0, NULL, 8, 0) == GEX_EVENT_INVALID,
           "empty indexed lists");
  gex_Memvec_t z[3] = { { NULL, 0 }, { NULL, 0 }, { NULL, 0 } };
  T_EXPECT(gex_VIS_VectorGetNBI(tm, 3, z, peer, 2, z, 0) == 0, "lists of zero-length entries");
  fill(buf, sizeof buf);
  T_EXPECT(gex_VIS_StridedPutBlocking(tm, peer, dst, NULL, buf, NULL, sizeof buf, NULL, 0, 0) == 0,
           "stridelevels 0 put");
  T_EXPECT(gex_VIS_StridedGetBlocking(tm, back, NULL, peer, dst, NULL, sizeof buf, NULL, 0, 0) == 0,
           "stridelevels 0 get");
  T_EXPECT(memcmp(buf, back, sizeof buf) == 0, "stridelevels 0: a contiguous copy of elemsz bytes");
  printf("node %u: degenerate cases: elemsz 0, a zero count, empty and zero-length lists are "
         "no-ops; stridelevels 0 copied %zu contiguous bytes\n", (unsigned)me, sizeof buf);
}

/* GEX_FLAG_ENABLE_LEAF_LC and GEX_FLAG_IMMEDIATE on puts. */
static void check_flags(void) {
  gasnet_node_t peer = (me + 1) % n;
  uint8_t *dst = scratch_of(peer, me), src[4000], back[4000];
  gex_Memvec_t d[2] = { { dst, 1000 }, { dst + 2000, 3000 } }, s[1] = { { src, 4000 } };
  fill(src, sizeof src);
  gex_Event_t ev = gex_VIS_VectorPutNB(tm, peer, 2, d, 1, s, GEX_FLAG_ENABLE_LEAF_LC);
  gex_Event_t lc = ev == GEX_EVENT_INVALID ? GEX_EVENT_INVALID : gex_Event_QueryLeaf(ev, GEX_EC_LC);
  gex_Event_Wait(lc);
  memset(src, 0, sizeof src); /* locally complete: the source may change */
  gex_Event_Wait(ev);
  fill(src, sizeof src);
  T_EXPECT(gex_VIS_VectorPutNBI(tm, peer, 2, d, 1, s, GEX_FLAG_ENABLE_LEAF_LC) == 0, "NBI LC");
  gex_NBI_Wait(GEX_EC_LC, 0);
  gex_NBI_Wait(GEX_EC_PUT, 0);
  gex_Memvec_t b[1] = { { back, 4000 } };
  int refused = 0;
  while (gex_VIS_VectorGetBlocking(tm, 1, b, peer, 2, d, GEX_FLAG_IMMEDIATE)) refused++;
  T_EXPECT(memcmp(src, back, sizeof src) == 0, "a put with ENABLE_LEAF_LC delivered its data");
  printf("node %u: GEX_FLAG_ENABLE_LEAF_LC: the NB leaf and the NBI LC category complete; an "
         "IMMEDIATE get was refused %d times, then read the put back\n", (unsigned)me, refused);
}

/* Peer completion: the payload says where the put wrote what. */
typedef struct { uint32_t from, seq; uint64_t off, len; uint8_t val; } pc_msg_t;
static volatile int pc_seen, pc_bad;
static void h_pc(gex_Token_t t, void *buf, size_t nbytes) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK | GEX_TI_IS_REQ);
  pc_msg_t m;
  if (nbytes != sizeof m || info.gex_is_req) { pc_bad++; return; }
  memcpy(&m, buf, sizeof m);
  const uint8_t *p = seg + m.off;
  for (uint64_t i = 0; i < m.len; i++) pc_bad += p[i] != m.val;
  pc_bad += m.from != info.gex_srcrank || (int)m.seq != pc_seen;
  pc_seen++;
}

static void pc_put(gasnet_node_t peer, int seq, size_t len, int arm, int form) {
  static pc_msg_t m; /* valid until the put completes */
  static uint8_t src[40000];
  uint8_t *dst = scratch_of(peer, me);
  m = (pc_msg_t){ me, (uint32_t)seq, (uint64_t)(dst - peer_seg[peer]), len, (uint8_t)(seq + 7) };
  memset(src, m.val, sizeof src);
  if (arm) gex_VIS_SetPeerCompletionHandler(H_PC, &m, sizeof m, 0);
  size_t cnt[1] = { len / 8 };
  ptrdiff_t one[1] = { 8 };
  gex_Memvec_t d[2] = { { dst, len / 2 }, { dst + len / 2, len - len / 2 } }, s[1] = { { src, len } };
  if (form == 0) gex_Event_Wait(gex_VIS_VectorPutNB(tm, peer, 2, d, 1, s, 0));
  if (form == 1) gex_VIS_StridedPutBlocking(tm, peer, dst, one, src, one, 8, cnt, 1, 0);
  if (form == 2) {
    gex_VIS_VectorPutNBI(tm, peer, len ? 2 : 0, d, len ? 1 : 0, s, GEX_FLAG_ENABLE_LEAF_LC);
    gex_NBI_Wait(GEX_EC_ALL, 0);
  }
}

static void check_peer_completion(void) {
  gasnet_node_t peer = (me + 1) % n;
  pc_put(peer, 0, 3000, 1, 0);                /* NB vector put */
  pc_put(peer, 1, 800, 1, 1);                 /* blocking strided put */
  pc_put(peer, 2, 36000, 1, 2);               /* NBI, pieces sent as RMA */
  gex_VIS_SetPeerCompletionHandler(H_PC, NULL, 0, 0);
  gex_VIS_SetPeerCompletionHandler(0, NULL, 0, 0); /* disarmed: no notification */
  pc_put(peer, 99, 500, 0, 0);
  pc_put(peer, 3, 0, 1, 2);                   /* 0 bytes: still notified */
  pc_put(peer, 98, 200, 0, 1);                /* only the next put was bound */
  barrier();
  T_EXPECT(pc_seen == 4 && pc_bad == 0, "peer completion: %d notifications (want 4), %d bad",
           pc_seen, pc_bad);
  barrier();
  pc_seen = 0;
  pc_put(me, 0, 5000, 1, 1); /* to this rank: run before the blocking put returns */
  T_EXPECT(pc_seen == 1 && pc_bad == 0, "peer completion to self: %d notifications (want 1), "
           "%d bad", pc_seen, pc_bad);
  printf("node %u: peer completion: 4 notifications from node %u, each after its data, none "
         "for unarmed or disarmed puts; 1 from itself\n", (unsigned)me,
         (unsigned)((me + n - 1) % n));
}
#endif

int main(int argc, char **argv) {
  size_t size = 0;
#if defined(T_VIS_GASNET1)
  T_CHECK(gasnet_init(&argc, &argv));
  me = gasnet_mynode(), n = gasnet_nodes();
  size = ((size_t)n * (REGION + SCRATCH) + REGION + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
  T_CHECK(gasnet_attach(NULL, 0, size, 0));
#else
  gex_Client_t client;
  gex_EP_t ep;
  gex_Segment_t segment;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_VIS", &argc, &argv, 0));
  me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
  gex_AM_Entry_t h[] = {
    { H_PC, (gex_AM_Fn_t)h_pc, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "pc" } };
  T_CHECK(gex_EP_RegisterHandlers(ep, h, 1));
  size = ((size_t)n * (REGION + SCRATCH) + REGION + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
  T_CHECK(gex_Segment_Attach(&segment, tm, size));
#endif
  gasnet_seginfo_t *si = malloc(n * sizeof *si);
  peer_seg = malloc(n * sizeof *peer_seg);
  T_CHECK(gasnet_getSegmentInfo(si, (int)n));
  for (gasnet_node_t r = 0; r < n; r++) peer_seg[r] = si[r].addr;
  seg = peer_seg[me];
  memset(seg, 0, size);
  heap = malloc(REGION);
  barrier();
#if !defined(T_VIS_GASNET1)
  check_degenerate();
  check_flags();
  barrier();
  check_peer_completion();
#endif
  barrier();
  const char *ops = getenv("T_VIS_OPS");
  model_check(ops ? atoi(ops) : 300);
  barrier();
  printf("node %u: all " T_API " VIS checks passed\n", (unsigned)me);
  free(si), free(heap), free(peer_seg);
  gasnet_exit(0);
  return 0;
}
