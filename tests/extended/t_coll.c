/*
 * t_coll.c - GASNet-1's gasnet_coll.h (../shared/spec/gasnet-client-extras.md
 * section 2) as a testcoll-like client sees it, every result checked
 * against a model computed here. Includes only gasnet.h and gasnet_coll.h.
 *
 *   gasnetrun -n N tests/extended/t_coll [MAXSIZE]
 *
 * Teams: GASNET_TEAM_ALL; "rev", all nodes in reverse order (split with
 * one color, relrank N-1-node); "odd"/"even" (split by node % 2, relranks
 * reversed). Each team's rank/size/rank2node/node2rank must match the
 * split's arguments.
 *
 * 1. On each team, every collective (broadcast, scatter, gather,
 *    gather_all, exchange, reduce with an int sum and with a
 *    non-commutative function) in its four forms (blocking, _nb, M, M_nb),
 *    with SINGLE (segment buffers; M lists of one entry per image, decoys
 *    at the other images' entries) and LOCAL (heap buffers; M lists of one
 *    entry), sizes 1, 8, 1000, 70000 bytes (up to MAXSIZE), roots in turn,
 *    the 9 IN/OUT sync combinations in turn. Data depend on the call, the
 *    root, the size and the contributing node; a dst that must not be
 *    written (gather's and reduce's off the root, the byte past the end,
 *    decoys) must keep its poison.
 * 2. Many _nb calls in flight at once, on GASNET_TEAM_ALL, rev and the
 *    odd/even team, synced in reverse order, by wait_sync_all,
 *    try_sync_some, wait_sync_some and try_sync_all.
 * 3. IN_NOSYNC with a late node (it sleeps 50 ms before calling, ages for
 *    a collective of a few microseconds; 200 ms made 1.6 s of every run): a
 *    broadcast, a gather to a late root, a reduce.
 * 4. Reduce order: on rev, the non-commutative reduction equals the fold in
 *    team rank order (nodes N-1 .. 0), not in node order.
 * 5. Team barriers on each team: notify/wait with one id -> GASNET_OK,
 *    anonymous, try loop; a wait naming another id than its notify, and
 *    (teams of 2 or more) two ids notified -> GASNET_ERR_BARRIER_MISMATCH.
 * Prints "node N: all GASNet-1 collective checks passed (...)".
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <gasnet_coll.h>
#include <time.h>
#include <unistd.h>

#include "t_ext_util.h"

static gasnet_node_t me, nodes;
static unsigned long g_calls, g_checks, g_sync_seen[9];
static size_t g_maxsize = 70000;
static char *g_seg;      /* this node's segment: SINGLE buffers */
static size_t g_seglen;

/* ---- reduction functions (gasnet_coll_init's fn_table) ----------------------- */
#define SUM_FN 0
#define CAT_FN 1
#define SUM_FLAGS 0x11
#define CAT_FLAGS 0x22
#define SUM_ARG 777
#define CAT_ARG (-5)
static volatile unsigned long g_fn_bad, g_fn_calls;

/* results[i] = left[i] + right[i] (uint32_t). */
static void sum_fn(void *results, size_t result_count, const void *left, size_t left_count,
                   const void *right, size_t elem_size, int flags, int arg) {
  g_fn_calls++;
  if (elem_size != 4 || flags != SUM_FLAGS || arg != SUM_ARG || left_count != result_count)
    g_fn_bad++;
  const uint32_t *l = left, *r = right;
  uint32_t *o = results;
  for (size_t i = 0; i < result_count; i++) o[i] = l[i] + r[i];
}

/* A string hash as a monoid: (h1, p1) . (h2, p2) = (h1 * p2 + h2, p1 * p2).
 * Associative, not commutative: the result says in which order the
 * contributions were combined. */
typedef struct { uint64_t h, p; } cat_t;
static cat_t cat(cat_t a, cat_t b) { return (cat_t){ a.h * b.p + b.h, a.p * b.p }; }
static void cat_fn(void *results, size_t result_count, const void *left, size_t left_count,
                   const void *right, size_t elem_size, int flags, int arg) {
  g_fn_calls++;
  if (elem_size != sizeof(cat_t) || flags != CAT_FLAGS || arg != CAT_ARG ||
      left_count != result_count)
    g_fn_bad++;
  const cat_t *l = left, *r = right;
  cat_t *o = results;
  for (size_t i = 0; i < result_count; i++) o[i] = cat(l[i], r[i]);
}

/* ---- teams ------------------------------------------------------------------- */
typedef struct {
  const char *name;
  gasnet_team_handle_t tm;
  gasnet_node_t rank, size;
  gasnet_node_t *node; /* [size]: the job node of each team rank */
} t_team;

static void team_check(t_team *T) {
  T_EXPECT(gasnet_coll_team_rank(T->tm) == T->rank && gasnet_coll_team_size(T->tm) == T->size,
           "team %s: rank %u size %u, want %u %u", T->name,
           (unsigned)gasnet_coll_team_rank(T->tm), (unsigned)gasnet_coll_team_size(T->tm),
           (unsigned)T->rank, (unsigned)T->size);
  for (gasnet_node_t r = 0; r < T->size; r++) {
    gasnet_node_t nd = gasnet_coll_team_rank2node(T->tm, r);
    T_EXPECT(nd == T->node[r], "team %s: rank2node(%u) = %u, want %u", T->name, (unsigned)r,
             (unsigned)nd, (unsigned)T->node[r]);
    T_EXPECT(gasnet_coll_team_node2rank(T->tm, nd) == r, "team %s: node2rank(%u) = %u, want %u",
             T->name, (unsigned)nd, (unsigned)gasnet_coll_team_node2rank(T->tm, nd), (unsigned)r);
    g_checks += 2;
  }
  T_EXPECT(T->node[T->rank] == me, "team %s: my rank %u is node %u", T->name, (unsigned)T->rank,
           (unsigned)T->node[T->rank]);
}

/* ---- one collective call and its model --------------------------------------- */
enum { OP_BCAST, OP_SCATTER, OP_GATHER, OP_GATHER_ALL, OP_EXCHANGE, OP_RSUM, OP_RCAT, NOPS };
static const char *const op_name[NOPS] = { "broadcast", "scatter", "gather", "gather_all",
                                           "exchange", "reduce(sum)", "reduce(cat)" };
enum { F_BLOCK, F_NB, F_M, F_MNB, NFORMS };
static const char *const form_name[NFORMS] = { "", "_nb", "M", "M_nb" };
#define RED_OFF 12   /* src_offset: the contribution starts 12 bytes into src */
#define RED_BLKSZ 4096 /* src_blksz: meaningless with one image per node */
#define POISON 0xee
#define DECOY 0xdd

typedef struct {
  int op, form, flags;
  gasnet_node_t root;
  size_t nb;                /* bytes per block (reduce: about the contribution's size) */
  unsigned iter;            /* the call's number on its team */
  char *dst, *src;          /* this node's buffers */
  size_t dstlen, srclen;
  void **dl, **sl;          /* M lists */
  char *ddecoy, *sdecoy;    /* what the other images' entries point to */
  gasnet_coll_handle_t h;
} t_call;

static const int in_flag[3] = { GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC,
                                GASNET_COLL_IN_ALLSYNC };
static const int out_flag[3] = { GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC,
                                 GASNET_COLL_OUT_ALLSYNC };
static int sync_flags(unsigned k) {
  g_sync_seen[k % 9]++;
  return in_flag[k % 3] | out_flag[(k / 3) % 3];
}

static size_t elem_size(int op) { return op == OP_RSUM ? 4 : sizeof(cat_t); }
static size_t elem_count(const t_call *c) {
  size_t n = c->nb / elem_size(c->op);
  return n ? n : 1;
}

static void lengths(const t_team *T, t_call *c) {
  size_t N = T->size, nb = c->nb;
  switch (c->op) {
  case OP_BCAST: c->dstlen = nb; c->srclen = nb; break;
  case OP_SCATTER: c->dstlen = nb; c->srclen = N * nb; break;
  case OP_GATHER: case OP_GATHER_ALL: c->dstlen = N * nb; c->srclen = nb; break;
  case OP_EXCHANGE: c->dstlen = N * nb; c->srclen = N * nb; break;
  default:
    c->dstlen = elem_count(c) * elem_size(c->op);
    c->srclen = RED_OFF + c->dstlen;
  }
}

/* Bytes of block j contributed by node nd to call c. */
static void pat(const t_call *c, void *buf, gasnet_node_t nd, gasnet_node_t j) {
  uint32_t seed = (uint32_t)c->op * 0x9e3779b1u ^ c->iter * 2654435761u ^
                  (c->root + 1) * 40503u ^ (nd + 1) * 97u ^ (j + 1) * 131071u;
  t_fill(buf, c->nb, seed);
}
static uint32_t sum_elem(const t_call *c, gasnet_node_t nd, size_t k) {
  return (uint32_t)nd * 100003u + (uint32_t)k * 7u + c->iter;
}
static cat_t cat_elem(const t_call *c, gasnet_node_t nd, size_t k) {
  return (cat_t){ nd + 1 + k * 31 + c->iter, 2 * (uint64_t)nd + 3 };
}

static void fill_src(const t_team *T, t_call *c) {
  size_t nb = c->nb;
  int root = T->rank == c->root;
  switch (c->op) {
  case OP_BCAST:
    if (root) pat(c, c->src, me, 0);
    else memset(c->src, 0xab, nb);
    break;
  case OP_SCATTER:
    for (gasnet_node_t i = 0; i < T->size; i++)
      if (root) pat(c, c->src + i * nb, T->node[i], 0);
      else memset(c->src + i * nb, 0xab, nb);
    break;
  case OP_GATHER: case OP_GATHER_ALL: pat(c, c->src, me, 0); break;
  case OP_EXCHANGE:
    for (gasnet_node_t j = 0; j < T->size; j++) pat(c, c->src + j * nb, me, j);
    break;
  case OP_RSUM:
    memset(c->src, 0x5a, RED_OFF);
    for (size_t k = 0; k < elem_count(c); k++) {
      uint32_t v = sum_elem(c, me, k);
      memcpy(c->src + RED_OFF + 4 * k, &v, 4);
    }
    break;
  case OP_RCAT:
    memset(c->src, 0x5a, RED_OFF);
    for (size_t k = 0; k < elem_count(c); k++) {
      cat_t v = cat_elem(c, me, k);
      memcpy(c->src + RED_OFF + sizeof v * k, &v, sizeof v);
    }
    break;
  }
  memset(c->dst, POISON, c->dstlen + 1);
}

/* What this node's dst must hold after call c. */
static void expected(const t_team *T, const t_call *c, char *exp) {
  size_t nb = c->nb;
  int root = T->rank == c->root;
  memset(exp, POISON, c->dstlen);
  switch (c->op) {
  case OP_BCAST: pat(c, exp, T->node[c->root], 0); break;
  case OP_SCATTER: pat(c, exp, me, 0); break;
  case OP_GATHER:
    if (!root) break;
    /* fall through */
  case OP_GATHER_ALL:
    for (gasnet_node_t i = 0; i < T->size; i++) pat(c, exp + i * nb, T->node[i], 0);
    break;
  case OP_EXCHANGE:
    for (gasnet_node_t i = 0; i < T->size; i++) pat(c, exp + i * nb, T->node[i], T->rank);
    break;
  case OP_RSUM:
    if (!root) break;
    for (size_t k = 0; k < elem_count(c); k++) {
      uint32_t v = 0;
      for (gasnet_node_t i = 0; i < T->size; i++) v += sum_elem(c, T->node[i], k);
      memcpy(exp + 4 * k, &v, 4);
    }
    break;
  case OP_RCAT:
    if (!root) break;
    for (size_t k = 0; k < elem_count(c); k++) {
      cat_t v = cat_elem(c, T->node[0], k);
      for (gasnet_node_t i = 1; i < T->size; i++) v = cat(v, cat_elem(c, T->node[i], k));
      memcpy(exp + sizeof v * k, &v, sizeof v);
    }
    break;
  }
}

/* The M lists: SINGLE, one entry per image of the team with this node's
 * buffer at its rank and decoys elsewhere; LOCAL, this node's one entry. */
static void make_lists(const t_team *T, t_call *c) {
  if (c->form < F_M) return;
  size_t n = (c->flags & GASNET_COLL_LOCAL) ? 1 : T->size;
  c->dl = malloc(n * sizeof *c->dl);
  c->sl = malloc(n * sizeof *c->sl);
  for (size_t i = 0; i < n; i++) {
    c->dl[i] = c->ddecoy;
    c->sl[i] = c->sdecoy;
  }
  size_t mine = (c->flags & GASNET_COLL_LOCAL) ? 0 : T->rank;
  c->dl[mine] = c->dst;
  c->sl[mine] = c->src;
}

static void issue(const t_team *T, t_call *c) {
  gasnet_team_handle_t tm = T->tm;
  void *d = c->dst, *s = c->src;
  void *const *dl = c->dl, *const *sl = c->sl;
  gasnet_image_t r = c->root;
  size_t nb = c->nb, ec = elem_count(c), es = elem_size(c->op);
  int fl = c->flags, fn = c->op == OP_RSUM ? SUM_FN : CAT_FN;
  int arg = c->op == OP_RSUM ? SUM_ARG : CAT_ARG;
  gasnet_coll_handle_t h = GASNET_COLL_INVALID_HANDLE;
  switch (c->op * NFORMS + c->form) {
#define FORMS(OP, plain, plain_nb, m, m_nb)             \
  case OP * NFORMS + F_BLOCK: plain; break;             \
  case OP * NFORMS + F_NB: h = plain_nb; break;         \
  case OP * NFORMS + F_M: m; break;                     \
  case OP * NFORMS + F_MNB: h = m_nb; break;
    FORMS(OP_BCAST, gasnet_coll_broadcast(tm, d, r, s, nb, fl),
          gasnet_coll_broadcast_nb(tm, d, r, s, nb, fl),
          gasnet_coll_broadcastM(tm, dl, r, s, nb, fl),
          gasnet_coll_broadcastM_nb(tm, dl, r, s, nb, fl))
    FORMS(OP_SCATTER, gasnet_coll_scatter(tm, d, r, s, nb, fl),
          gasnet_coll_scatter_nb(tm, d, r, s, nb, fl),
          gasnet_coll_scatterM(tm, dl, r, s, nb, fl),
          gasnet_coll_scatterM_nb(tm, dl, r, s, nb, fl))
    FORMS(OP_GATHER, gasnet_coll_gather(tm, r, d, s, nb, fl),
          gasnet_coll_gather_nb(tm, r, d, s, nb, fl),
          gasnet_coll_gatherM(tm, r, d, sl, nb, fl),
          gasnet_coll_gatherM_nb(tm, r, d, sl, nb, fl))
    FORMS(OP_GATHER_ALL, gasnet_coll_gather_all(tm, d, s, nb, fl),
          gasnet_coll_gather_all_nb(tm, d, s, nb, fl),
          gasnet_coll_gather_allM(tm, dl, sl, nb, fl),
          gasnet_coll_gather_allM_nb(tm, dl, sl, nb, fl))
    FORMS(OP_EXCHANGE, gasnet_coll_exchange(tm, d, s, nb, fl),
          gasnet_coll_exchange_nb(tm, d, s, nb, fl),
          gasnet_coll_exchangeM(tm, dl, sl, nb, fl),
          gasnet_coll_exchangeM_nb(tm, dl, sl, nb, fl))
    FORMS(OP_RSUM, gasnet_coll_reduce(tm, r, d, s, RED_BLKSZ, RED_OFF, es, ec, fn, arg, fl),
          gasnet_coll_reduce_nb(tm, r, d, s, RED_BLKSZ, RED_OFF, es, ec, fn, arg, fl),
          gasnet_coll_reduceM(tm, r, d, sl, RED_BLKSZ, RED_OFF, es, ec, fn, arg, fl),
          gasnet_coll_reduceM_nb(tm, r, d, sl, RED_BLKSZ, RED_OFF, es, ec, fn, arg, fl))
    FORMS(OP_RCAT, gasnet_coll_reduce(tm, r, d, s, RED_BLKSZ, RED_OFF, es, ec, fn, arg, fl),
          gasnet_coll_reduce_nb(tm, r, d, s, RED_BLKSZ, RED_OFF, es, ec, fn, arg, fl),
          gasnet_coll_reduceM(tm, r, d, sl, RED_BLKSZ, RED_OFF, es, ec, fn, arg, fl),
          gasnet_coll_reduceM_nb(tm, r, d, sl, RED_BLKSZ, RED_OFF, es, ec, fn, arg, fl))
#undef FORMS
  }
  c->h = h;
  g_calls++;
}

static int decoy_intact(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)p[i] != DECOY) return 0;
  return 1;
}

static void verify(const t_team *T, t_call *c) {
  char *exp = malloc(c->dstlen + 1);
  expected(T, c, exp);
  size_t bad = c->dstlen;
  for (size_t i = 0; i < c->dstlen; i++)
    if (c->dst[i] != exp[i]) { bad = i; break; }
  if (bad < c->dstlen || (unsigned char)c->dst[c->dstlen] != POISON) {
    fprintf(stderr,
            "node %u: FAILED gasnet_coll_%s%s on team %s (rank %u of %u), root %u, %zu bytes, "
            "flags %#x, call %u: ",
            (unsigned)me, op_name[c->op], form_name[c->form], T->name, (unsigned)T->rank,
            (unsigned)T->size, (unsigned)c->root, c->nb, (unsigned)c->flags, c->iter);
    if (bad < c->dstlen)
      fprintf(stderr, "dst byte %zu (block %zu) is %#x, want %#x\n", bad,
              c->nb ? bad / c->nb : 0, (unsigned char)c->dst[bad], (unsigned char)exp[bad]);
    else
      fprintf(stderr, "the byte past dst's %zu was written\n", c->dstlen);
    gasnet_exit(3);
  }
  if (c->dl && !(c->flags & GASNET_COLL_LOCAL))
    T_EXPECT(decoy_intact(c->ddecoy, c->dstlen),
             "gasnet_coll_%s%s on team %s: another image's dstlist entry was written",
             op_name[c->op], form_name[c->form], T->name);
  free(exp);
  free(c->dl);
  free(c->sl);
  c->dl = c->sl = NULL;
  g_checks++;
}

/* Wait for one handle, by try_sync polling, bounded. */
static void try_until_done(gasnet_coll_handle_t h) {
  time_t end = time(NULL) + 60;
  while (gasnet_coll_try_sync(h) != GASNET_OK)
    T_EXPECT(time(NULL) < end, "gasnet_coll_try_sync: not done after 60 s");
}

/* ---- 1. every collective, form, address mode, size, root, sync pair ----------- */
static char *g_heap_dst, *g_heap_src, *g_ddecoy, *g_sdecoy;

static void matrix(t_team *T, unsigned *iter) {
  static const size_t sizes[] = { 1, 8, 1000, 70000 };
  unsigned k = 0;
  for (int op = 0; op < NOPS; op++)
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
      if (sizes[si] > g_maxsize) continue;
      for (int form = 0; form < NFORMS; form++)
        for (int local = 0; local < 2; local++, k++) {
          t_call c = { .op = op, .form = form, .nb = sizes[si], .iter = (*iter)++ };
          c.root = (gasnet_node_t)(k % T->size);
          c.flags = sync_flags(k) | (local ? GASNET_COLL_LOCAL : GASNET_COLL_SINGLE);
          lengths(T, &c);
          if (local) {
            c.dst = g_heap_dst;
            c.src = g_heap_src;
          } else { /* the segment, at the same offsets on every node */
            c.dst = g_seg;
            c.src = g_seg + g_seglen / 2;
          }
          c.ddecoy = g_ddecoy;
          c.sdecoy = g_sdecoy;
          fill_src(T, &c);
          make_lists(T, &c);
          issue(T, &c);
          if (form == F_NB) try_until_done(c.h);
          else if (form == F_MNB) gasnet_coll_wait_sync(c.h);
          verify(T, &c);
        }
    }
  if (me == 0)
    printf("node 0: team %s (%u nodes): %u calls checked: 7 collectives x 4 forms x "
           "SINGLE/LOCAL x sizes up to %zu, sync pairs in turn\n",
           T->name, (unsigned)T->size, k, g_maxsize);
}

/* ---- 2. many in flight ----------------------------------------------------------- */
#define MAXBATCH 64
typedef struct { t_team *T; t_call c; } t_flight;

static int add(t_flight *f, int n, t_team *T, int op, int form, gasnet_node_t root, size_t nb,
               unsigned *iter, unsigned k) {
  if (nb > g_maxsize) nb = g_maxsize;
  t_call *c = &f[n].c;
  *c = (t_call){ .op = op, .form = form, .nb = nb, .iter = (*iter)++, .root = root };
  c->flags = sync_flags(k) | GASNET_COLL_LOCAL;
  lengths(T, c);
  c->dst = malloc(c->dstlen + 1);
  c->src = malloc(c->srclen);
  f[n].T = T;
  fill_src(T, c);
  make_lists(T, c);
  issue(T, c);
  return n + 1;
}

static void in_flight(t_team **teams, int nteams, unsigned *iters) {
  static const char *const how[] = { "wait_sync in reverse order", "wait_sync_all",
                                     "try_sync_some", "wait_sync_some", "try_sync_all" };
  for (int mode = 0; mode < 5; mode++) {
    t_flight f[MAXBATCH];
    int n = 0;
    unsigned k = (unsigned)mode;
    for (int t = 0; t < nteams; t++) {
      t_team *T = teams[t];
      unsigned *it = &iters[t];
      for (gasnet_node_t r = 0; r < T->size && r < 4; r++)
        n = add(f, n, T, OP_BCAST, F_NB, r, 1000 + r, it, k++);
      n = add(f, n, T, OP_GATHER_ALL, F_NB, 0, 8, it, k++);
      n = add(f, n, T, OP_EXCHANGE, F_MNB, 0, 1000, it, k++);
      n = add(f, n, T, OP_RSUM, F_NB, 0, 1000, it, k++);
      n = add(f, n, T, OP_RCAT, F_MNB, T->size - 1, 70000, it, k++);
      n = add(f, n, T, OP_RSUM, F_MNB, T->size - 1, 8, it, k++);
      n = add(f, n, T, OP_SCATTER, F_NB, T->size - 1, 70000, it, k++);
      n = add(f, n, T, OP_GATHER, F_MNB, 0, 8, it, k++);
    }
    gasnet_coll_handle_t h[MAXBATCH];
    for (int i = 0; i < n; i++) h[i] = f[i].c.h;
    time_t end = time(NULL) + 60;
    int left = n;
    switch (mode) {
    case 0:
      for (int i = n - 1; i >= 0; i--) gasnet_coll_wait_sync(h[i]);
      break;
    case 1:
      gasnet_coll_wait_sync_all(h, (size_t)n);
      break;
    case 2: case 3:
      while (left > 0) {
        if (mode == 2) {
          if (gasnet_coll_try_sync_some(h, (size_t)n) != GASNET_OK) {
            T_EXPECT(time(NULL) < end, "try_sync_some: %d handles left after 60 s", left);
            continue;
          }
        } else {
          gasnet_coll_wait_sync_some(h, (size_t)n);
        }
        int now = 0;
        for (int i = 0; i < n; i++) now += h[i] != GASNET_COLL_INVALID_HANDLE;
        T_EXPECT(now < left, "a successful sync_some completed none of %d handles", left);
        left = now;
      }
      break;
    case 4:
      while (gasnet_coll_try_sync_all(h, (size_t)n) != GASNET_OK)
        T_EXPECT(time(NULL) < end, "try_sync_all: not done after 60 s");
      break;
    }
    for (int i = 0; i < n; i++) {
      if (mode != 0) T_EXPECT(h[i] == GASNET_COLL_INVALID_HANDLE, "handle %d not reset", i);
      verify(f[i].T, &f[i].c);
      free(f[i].c.dst);
      free(f[i].c.src);
    }
    if (me == 0)
      printf("node 0: %d collectives in flight on %d teams, synced by %s: all correct\n", n,
             nteams, how[mode]);
  }
}

/* ---- 3. a late node with IN_NOSYNC ------------------------------------------------ */
static void late_node(t_team *T, unsigned *iter) {
  const gasnet_node_t last = T->size - 1;
  const int fl = GASNET_COLL_IN_NOSYNC | GASNET_COLL_OUT_NOSYNC | GASNET_COLL_LOCAL;
  struct { int op; gasnet_node_t root; } cases[] = {
    { OP_BCAST, 0 }, { OP_GATHER, last }, { OP_RSUM, 0 }, { OP_EXCHANGE, 0 } };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    t_call c = { .op = cases[i].op, .form = F_BLOCK, .root = cases[i].root, .nb = 1000,
                 .iter = (*iter)++, .flags = fl };
    g_sync_seen[0]++;
    lengths(T, &c);
    c.dst = g_heap_dst;
    c.src = g_heap_src;
    fill_src(T, &c);
    if (T->rank == last) usleep(50 * 1000);
    issue(T, &c);
    verify(T, &c);
  }
  if (me == 0)
    printf("node 0: IN_NOSYNC|OUT_NOSYNC with the last rank 50 ms late (broadcast, gather to "
           "it, reduce, exchange): correct\n");
}

/* ---- 4. reduce order on rev --------------------------------------------------------- */
static void reduce_order(t_team *R, unsigned *iter) {
  t_call c = { .op = OP_RCAT, .form = F_BLOCK, .root = 0, .nb = sizeof(cat_t), .iter = (*iter)++,
               .flags = GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL };
  g_sync_seen[4]++;
  lengths(R, &c);
  c.dst = g_heap_dst;
  c.src = g_heap_src;
  fill_src(R, &c);
  issue(R, &c);
  if (R->rank == 0) {
    cat_t got, by_rank = cat_elem(&c, R->node[0], 0), by_node = cat_elem(&c, 0, 0);
    memcpy(&got, c.dst, sizeof got);
    for (gasnet_node_t i = 1; i < R->size; i++) {
      by_rank = cat(by_rank, cat_elem(&c, R->node[i], 0));
      by_node = cat(by_node, cat_elem(&c, i, 0));
    }
    printf("node %u: reduce(cat) on team rev (ranks are nodes %u..0): got h=%016llx, rank order "
           "%016llx, node order %016llx: %s\n", (unsigned)me, (unsigned)(nodes - 1),
           (unsigned long long)got.h, (unsigned long long)by_rank.h,
           (unsigned long long)by_node.h,
           got.h == by_rank.h && (nodes == 1 || got.h != by_node.h) ? "rank order" : "WRONG");
  }
  verify(R, &c);
}

/* ---- 5. team barriers ---------------------------------------------------------------- */
static void barriers(t_team *T) {
  int rc;
  gasnet_coll_barrier_notify(T->tm, 11, 0);
  rc = gasnet_coll_barrier_wait(T->tm, 11, 0);
  T_EXPECT(rc == GASNET_OK, "team %s: notify/wait id 11: %s", T->name, gasnet_ErrorName(rc));
  rc = gasnet_coll_barrier(T->tm, 0, GASNET_BARRIERFLAG_ANONYMOUS);
  T_EXPECT(rc == GASNET_OK, "team %s: anonymous barrier: %s", T->name, gasnet_ErrorName(rc));
  gasnet_coll_barrier_notify(T->tm, 12, 0);
  time_t end = time(NULL) + 60;
  while ((rc = gasnet_coll_barrier_try(T->tm, 12, 0)) == GASNET_ERR_NOT_READY)
    T_EXPECT(time(NULL) < end, "team %s: barrier_try not done after 60 s", T->name);
  T_EXPECT(rc == GASNET_OK, "team %s: notify/try id 12: %s", T->name, gasnet_ErrorName(rc));
  /* a wait naming another id than this node's notify */
  gasnet_coll_barrier_notify(T->tm, 13, 0);
  rc = gasnet_coll_barrier_wait(T->tm, 14, 0);
  T_EXPECT(rc == GASNET_ERR_BARRIER_MISMATCH, "team %s: notify 13, wait 14: %s, want "
           "GASNET_ERR_BARRIER_MISMATCH", T->name, gasnet_ErrorName(rc));
  int global = T->size > 1;
  if (global) { /* rank 0 notifies 1, the others 2: every member sees the mismatch */
    int id = T->rank == 0 ? 1 : 2;
    gasnet_coll_barrier_notify(T->tm, id, 0);
    rc = gasnet_coll_barrier_wait(T->tm, id, 0);
    T_EXPECT(rc == GASNET_ERR_BARRIER_MISMATCH, "team %s: ids 1 and 2 notified: %s, want "
             "GASNET_ERR_BARRIER_MISMATCH", T->name, gasnet_ErrorName(rc));
  }
  rc = gasnet_coll_barrier(T->tm, 15, 0);
  T_EXPECT(rc == GASNET_OK, "team %s: barrier id 15 after the mismatches: %s", T->name,
           gasnet_ErrorName(rc));
  g_checks += 5 + global;
  if (T->rank == 0)
    printf("node %u: team %s barrier: ids 11, 12 (try), 15 and anonymous GASNET_OK; notify 13 "
           "wait 14%s GASNET_ERR_BARRIER_MISMATCH\n", (unsigned)me, T->name,
           global ? ", ids 1 and 2 notified:" : ":");
}

/* ---- main ------------------------------------------------------------------------------ */
static t_team team_of(const char *name, gasnet_team_handle_t tm, gasnet_node_t rank,
                      gasnet_node_t size) {
  t_team T = { name, tm, rank, size, malloc(size * sizeof(gasnet_node_t)) };
  return T;
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  if (argc > 1) g_maxsize = strtoul(argv[1], NULL, 0);
  me = gasnet_mynode();
  nodes = gasnet_nodes();
  g_seglen = (2 * (size_t)nodes * 70016 + 65536 + GASNET_PAGESIZE - 1) /
             GASNET_PAGESIZE * GASNET_PAGESIZE;
  T_CHECK(gasnet_attach(NULL, 0, g_seglen, 0));
  gasnet_seginfo_t *si = calloc(nodes, sizeof *si);
  T_CHECK(gasnet_getSegmentInfo(si, (int)nodes));
  g_seg = si[me].addr;
  gasnet_coll_fn_entry_t fns[2] = { { sum_fn, SUM_FLAGS }, { cat_fn, CAT_FLAGS } };
  gasnet_coll_init(NULL, 0, fns, 2, 0);
  memset(fns, 0, sizeof fns); /* gasnet_coll_init keeps its own copy */

  size_t big = (size_t)nodes * 70016 + 64;
  g_heap_dst = malloc(big);
  g_heap_src = malloc(big);
  g_ddecoy = malloc(big);
  g_sdecoy = malloc(big);
  memset(g_ddecoy, DECOY, big);
  memset(g_sdecoy, DECOY, big);

  /* the teams */
  t_team all = team_of("all", GASNET_TEAM_ALL, me, nodes);
  for (gasnet_node_t i = 0; i < nodes; i++) all.node[i] = i;
  t_team rev = team_of("rev", gasnet_coll_team_split(GASNET_TEAM_ALL, 0, nodes - 1 - me, NULL),
                       nodes - 1 - me, nodes);
  for (gasnet_node_t i = 0; i < nodes; i++) rev.node[i] = nodes - 1 - i;
  gasnet_node_t color = me % 2, csize = (nodes + 1 - color) / 2, crank = csize - 1 - me / 2;
  t_team oe = team_of(color ? "odd" : "even",
                      gasnet_coll_team_split(GASNET_TEAM_ALL, color, crank, NULL), crank, csize);
  for (gasnet_node_t i = 0; i < csize; i++) oe.node[i] = 2 * (csize - 1 - i) + color;
  t_team *teams[] = { &all, &rev, &oe };
  unsigned iters[3] = { 0, 0, 0 };
  for (int t = 0; t < 3; t++) team_check(teams[t]);
  if (me == 0)
    printf("node 0: teams all, rev (relrank N-1-node) and even/odd (node %% 2, relranks "
           "reversed): rank, size, rank2node, node2rank as split\n");

  for (int t = 0; t < 3; t++) matrix(teams[t], &iters[t]);
  in_flight(teams, 3, iters);
  late_node(&all, &iters[0]);
  late_node(&oe, &iters[2]);
  reduce_order(&rev, &iters[1]);
  for (int t = 0; t < 3; t++) barriers(teams[t]);
  gasnet_coll_dumpProfile(NULL, GASNET_TEAM_ALL);
  gasnet_coll_dumpTuningState(NULL, GASNET_TEAM_ALL);

  T_EXPECT(g_fn_bad == 0, "%lu of %lu reduction function calls had a wrong elem_size, flags, "
           "arg or count", g_fn_bad, g_fn_calls);
  unsigned seen = 0;
  for (int i = 0; i < 9; i++) seen += g_sync_seen[i] > 0;
  T_EXPECT(seen == 9, "only %u of the 9 IN/OUT sync pairs used", seen);
  printf("node %u: all GASNet-1 collective checks passed (%lu calls, %lu checks, %lu reduction "
         "function calls, 9 of 9 sync pairs)\n", (unsigned)me, g_calls, g_checks, g_fn_calls);
  fflush(stdout);
  T_CHECK(gasnet_barrier(0, 0));
  for (int t = 0; t < 3; t++) free(teams[t]->node);
  free(g_heap_dst); free(g_heap_src); free(g_ddecoy); free(g_sdecoy); free(si);
  gasnet_exit(0);
  return 0;
}
