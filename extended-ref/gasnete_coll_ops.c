/*
 * gasnete_coll_ops.c - the collective algorithms, each a kick function the
 * engine (gasnete_coll.c) calls until it says complete, and the GASNet-EX
 * calls of gasnet_coll.h over them.
 *
 *   broadcast    binomial tree from the root: ceil(log2 n) steps; a member
 *                forwards to its children, the largest subtree first
 *   scatter      the root sends each member its block
 *   gather       every member sends the root its block
 *   gather_all   gather to rank 0, then its broadcast of the whole
 *   exchange     every member sends every other its block
 *   reduce-to-one   binomial tree towards the root: a member combines its
 *                value with its children's subtrees in increasing order
 *   reduce-to-all   recursive doubling: ceil(log2 n) rounds (plus two
 *                when n is not a power of two: members 2i+1 < 2e first
 *                give their value to 2i and get the result back at the end)
 *
 * Order. Trees and rounds work on positions: the members by neighbourhood
 * (gasnete_cteam_t.at), so that the first steps stay on a host (shared
 * memory), rotated to put the root at position 0. GEX_OP_USER_NC uses the
 * ranks themselves (a reduce-to-one then goes to rank 0 and on to the
 * root). Every combination is (lower positions) (+) (higher positions), so
 * a block of positions is always combined in order: a non-commutative
 * operation gets src[0] (+) src[1] ... (+) src[n-1], and every reduction's
 * result depends only on the team, the root and the arguments
 * (reproducible), and is the same on every member for reduce-to-all.
 */
#include <stdlib.h>
#include <string.h>

#include "gasnete_coll_ops.h"

/* ---- positions ------------------------------------------------------------------- */

/* The member at position q of op's order rooted at root, and back. */
static gex_Rank_t gasnete_rank_at(const gasnete_coll_op_t *op, gex_Rank_t root, gex_Rank_t q) {
  gex_Rank_t n = op->tm->size;
  if (op->ordered) return (q + root) % n;
  const gasnete_cteam_t *ct = op->tm->coll;
  return ct->at[(q + ct->pos[root]) % n];
}
static gex_Rank_t gasnete_pos_of(const gasnete_coll_op_t *op, gex_Rank_t root, gex_Rank_t r) {
  gex_Rank_t n = op->tm->size;
  if (op->ordered) return (r + n - root) % n;
  const gasnete_cteam_t *ct = op->tm->coll;
  return (ct->pos[r] + n - ct->pos[root]) % n;
}

static char *gasnete_copy(const void *src, size_t n) {
  char *p = malloc(n ? n : 1);
  if (!p) gasnete_fatal("collectives: out of memory for %zu bytes", n);
  if (n) memcpy(p, src, n);
  return p;
}

/* ---- reductions: y[i] = x[i] (+) y[i] ---------------------------------------------- */

#define GASNETE_RED_LOOP(T, EXPR)                                         \
  do {                                                                    \
    const T *a = x;                                                       \
    T *b = y;                                                             \
    for (size_t i = 0; i < count; i++) b[i] = (T)(EXPR(a[i], b[i]));      \
  } while (0)
#define GASNETE_ADD(p, q) ((p) + (q))
#define GASNETE_MUL(p, q) ((p) * (q))
#define GASNETE_MIN(p, q) ((p) < (q) ? (p) : (q))
#define GASNETE_MAX(p, q) ((p) > (q) ? (p) : (q))
#define GASNETE_AND(p, q) ((p) & (q))
#define GASNETE_OR(p, q) ((p) | (q))
#define GASNETE_XOR(p, q) ((p) ^ (q))

#define GASNETE_RED_ARITH(T)                                          \
  case GEX_OP_ADD: GASNETE_RED_LOOP(T, GASNETE_ADD); return;          \
  case GEX_OP_MULT: GASNETE_RED_LOOP(T, GASNETE_MUL); return;         \
  case GEX_OP_MIN: GASNETE_RED_LOOP(T, GASNETE_MIN); return;          \
  case GEX_OP_MAX: GASNETE_RED_LOOP(T, GASNETE_MAX); return;
#define GASNETE_RED_INT(T)                                            \
  GASNETE_RED_ARITH(T)                                                \
  case GEX_OP_AND: GASNETE_RED_LOOP(T, GASNETE_AND); return;          \
  case GEX_OP_OR: GASNETE_RED_LOOP(T, GASNETE_OR); return;            \
  case GEX_OP_XOR: GASNETE_RED_LOOP(T, GASNETE_XOR); return;

/* Unsigned arithmetic for the signed types: wraps instead of overflowing. */
static void gasnete_red_builtin(gex_DT_t dt, gex_OP_t op, const void *x, void *y, size_t count) {
  switch (dt) {
  case GEX_DT_I32:
    if (op == GEX_OP_MIN || op == GEX_OP_MAX) {
      switch (op) { GASNETE_RED_ARITH(int32_t) }
    }
    switch (op) { GASNETE_RED_INT(uint32_t) }
    break;
  case GEX_DT_U32: switch (op) { GASNETE_RED_INT(uint32_t) } break;
  case GEX_DT_I64:
    if (op == GEX_OP_MIN || op == GEX_OP_MAX) {
      switch (op) { GASNETE_RED_ARITH(int64_t) }
    }
    switch (op) { GASNETE_RED_INT(uint64_t) }
    break;
  case GEX_DT_U64: switch (op) { GASNETE_RED_INT(uint64_t) } break;
  case GEX_DT_FLT: switch (op) { GASNETE_RED_ARITH(float) } break;
  case GEX_DT_DBL: switch (op) { GASNETE_RED_ARITH(double) } break;
  }
  gasnete_fatal("collectives: reduction of type %#x by op %#x not checked", (unsigned)dt,
                (unsigned)op);
}

/* y = x (+) y, x holding the lower positions. */
static void gasnete_red(const gasnete_coll_op_t *op, const void *x, void *y) {
  if (op->opcode == GEX_OP_USER || op->opcode == GEX_OP_USER_NC)
    op->user_op(x, y, op->dt_cnt, op->user_cdata);
  else
    gasnete_red_builtin(op->dt, op->opcode, x, y, op->dt_cnt);
}
/* acc = acc (+) got (got higher), or got (+) acc; got is freed. */
static void gasnete_red_acc(gasnete_coll_op_t *op, char *got, int got_is_higher) {
  if (got_is_higher) {
    gasnete_red(op, op->acc, got);
    free(op->acc);
    op->acc = got;
  } else {
    gasnete_red(op, got, op->acc);
    free(got);
  }
}

static void gasnete_coll_free_acc(gasnete_coll_op_t *op) {
  free(op->acc);
  op->acc = NULL;
}

/* ---- broadcast ---------------------------------------------------------------------- */

/* The tree broadcast of nbytes from root in `stage`: the root gives data;
 * every member ends with them in out (copied unless out == data). 0 until
 * this member's part is done. */
static int gasnete_tree_bcast(gasnete_coll_op_t *op, uint32_t stage, gex_Rank_t root,
                              const void *data, void *out, size_t nbytes) {
  gex_Rank_t n = op->tm->size, q = gasnete_pos_of(op, root, op->tm->rank);
  char *got = NULL;
  if (q != 0) {
    got = gasnete_coll_take(op, stage, gasnete_rank_at(op, root, q & (q - 1)), nbytes);
    if (!got) return 0;
    data = got;
  }
  gex_Rank_t top = 1; /* children q + d for d < lowbit(q), largest subtree first */
  while (top < n && !(q & top)) top <<= 1;
  for (gex_Rank_t d = top >> 1; d >= 1; d >>= 1)
    if (q + d < n) gasnete_coll_send(op, stage, gasnete_rank_at(op, root, q + d), data, nbytes);
  if (out != data && nbytes) memcpy(out, data, nbytes);
  free(got);
  return 1;
}

static int gasnete_bcast_kick(gasnete_coll_op_t *op) {
  if (op->nbytes == 0) return 1;
  return gasnete_tree_bcast(op, GASNETE_CSTAGE_DATA, op->root, op->src, op->dst, op->nbytes);
}

gex_Event_t gasnete_coll_broadcast(const char *fname, gasnetc_team_t *tm, gex_Rank_t root,
                                   void *dst, const void *src, size_t nbytes, int sync) {
  if (GASNETE_UNLIKELY(root >= tm->size))
    gasnete_fatal("%s: root %u does not exist (the team has %u members)", fname,
                  (unsigned)root, (unsigned)tm->size);
  if (GASNETE_UNLIKELY(nbytes && (!dst || (tm->rank == root && !src))))
    gasnete_fatal("%s: %s is NULL with nbytes %zu", fname, dst ? "src" : "dst", nbytes);
  gasnete_coll_op_t *op = gasnete_coll_op_new(fname, tm, sync, gasnete_bcast_kick);
  op->root = root;
  op->dst = dst;
  op->src = src;
  op->nbytes = nbytes;
  return gasnete_coll_op_start(op);
}

/* ---- scatter, gather, gather_all, exchange --------------------------------------------- */

/* Take block `r` from member r into dst + r * nbytes, for r = next_rank..n-1
 * (skipping this member); 0 while one has not come. */
static int gasnete_take_blocks(gasnete_coll_op_t *op, uint32_t stage, char *dst) {
  gex_Rank_t n = op->tm->size;
  for (; op->next_rank < n; op->next_rank++) {
    gex_Rank_t r = op->next_rank;
    if (r == op->tm->rank) continue;
    char *got = gasnete_coll_take(op, stage, r, op->nbytes);
    if (!got) return 0;
    memcpy(dst + (size_t)r * op->nbytes, got, op->nbytes);
    free(got);
  }
  return 1;
}

static int gasnete_scatter_kick(gasnete_coll_op_t *op) {
  gex_Rank_t n = op->tm->size, me = op->tm->rank;
  size_t nb = op->nbytes;
  if (nb == 0) return 1;
  if (me == op->root) {
    for (gex_Rank_t k = 1; k < n; k++) {
      gex_Rank_t r = (me + k) % n;
      gasnete_coll_send(op, GASNETE_CSTAGE_DATA, r, (const char *)op->src + (size_t)r * nb, nb);
    }
    memmove(op->dst, (const char *)op->src + (size_t)me * nb, nb);
    return 1;
  }
  char *got = gasnete_coll_take(op, GASNETE_CSTAGE_DATA, op->root, nb);
  if (!got) return 0;
  memcpy(op->dst, got, nb);
  free(got);
  return 1;
}

static int gasnete_gather_kick(gasnete_coll_op_t *op) {
  gex_Rank_t me = op->tm->rank;
  if (op->nbytes == 0) return 1;
  if (me != op->root) {
    gasnete_coll_send(op, GASNETE_CSTAGE_DATA, op->root, op->src, op->nbytes);
    return 1;
  }
  if (!op->sent) {
    memmove((char *)op->dst + (size_t)me * op->nbytes, op->src, op->nbytes);
    op->sent = 1;
  }
  return gasnete_take_blocks(op, GASNETE_CSTAGE_DATA, op->dst);
}

/* Gather to rank 0 (into dst there), then rank 0 broadcasts dst whole. */
static int gasnete_gather_all_kick(gasnete_coll_op_t *op) {
  size_t total = op->nbytes * op->tm->size;
  if (op->nbytes == 0) return 1;
  if (op->step == 0) {
    if (!gasnete_gather_kick(op)) return 0;
    op->step = 1;
  }
  return gasnete_tree_bcast(op, GASNETE_CSTAGE_DATA2, 0, op->dst, op->dst, total);
}

static int gasnete_exchange_kick(gasnete_coll_op_t *op) {
  gex_Rank_t n = op->tm->size, me = op->tm->rank;
  size_t nb = op->nbytes;
  if (nb == 0) return 1;
  if (!op->sent) {
    for (gex_Rank_t k = 1; k < n; k++) { /* staggered: not everyone at rank 0 first */
      gex_Rank_t r = (me + k) % n;
      gasnete_coll_send(op, GASNETE_CSTAGE_DATA, r, (const char *)op->src + (size_t)r * nb, nb);
    }
    memmove((char *)op->dst + (size_t)me * nb, (const char *)op->src + (size_t)me * nb, nb);
    op->sent = 1;
  }
  return gasnete_take_blocks(op, GASNETE_CSTAGE_DATA, op->dst);
}

static size_t gasnete_blocks_bytes(const char *fname, gasnetc_team_t *tm, size_t nbytes) {
  if (GASNETE_UNLIKELY(nbytes && tm->size > SIZE_MAX / nbytes))
    gasnete_fatal("%s: %u blocks of %zu bytes overflow the address space", fname,
                  (unsigned)tm->size, nbytes);
  return nbytes * tm->size;
}

static gex_Event_t gasnete_blocks_start(const char *fname, gasnetc_team_t *tm, gex_Rank_t root,
                                        void *dst, const void *src, size_t nbytes, int sync,
                                        int (*kick)(gasnete_coll_op_t *)) {
  if (GASNETE_UNLIKELY(root >= tm->size))
    gasnete_fatal("%s: root %u does not exist (the team has %u members)", fname,
                  (unsigned)root, (unsigned)tm->size);
  gasnete_blocks_bytes(fname, tm, nbytes);
  gasnete_coll_op_t *op = gasnete_coll_op_new(fname, tm, sync, kick);
  op->root = root;
  op->dst = dst;
  op->src = src;
  op->nbytes = nbytes;
  return gasnete_coll_op_start(op);
}

gex_Event_t gasnete_coll_scatter(const char *fname, gasnetc_team_t *tm, gex_Rank_t root,
                                 void *dst, const void *src, size_t nbytes, int sync) {
  return gasnete_blocks_start(fname, tm, root, dst, src, nbytes, sync, gasnete_scatter_kick);
}
gex_Event_t gasnete_coll_gather(const char *fname, gasnetc_team_t *tm, gex_Rank_t root,
                                void *dst, const void *src, size_t nbytes, int sync) {
  return gasnete_blocks_start(fname, tm, root, dst, src, nbytes, sync, gasnete_gather_kick);
}
gex_Event_t gasnete_coll_gather_all(const char *fname, gasnetc_team_t *tm, void *dst,
                                    const void *src, size_t nbytes, int sync) {
  return gasnete_blocks_start(fname, tm, 0, dst, src, nbytes, sync, gasnete_gather_all_kick);
}
gex_Event_t gasnete_coll_exchange(const char *fname, gasnetc_team_t *tm, void *dst,
                                  const void *src, size_t nbytes, int sync) {
  return gasnete_blocks_start(fname, tm, 0, dst, src, nbytes, sync, gasnete_exchange_kick);
}

/* ---- reduce to one: a binomial tree ------------------------------------------------------ */

static int gasnete_reduce_one_kick(gasnete_coll_op_t *op) {
  gex_Rank_t n = op->tm->size, me = op->tm->rank;
  gex_Rank_t troot = op->ordered ? 0 : op->root; /* the tree's root */
  gex_Rank_t q = gasnete_pos_of(op, troot, me);
  if (op->step == 0) { /* combine the children's subtrees, in order */
    if (!op->acc) {
      op->acc = gasnete_copy(op->src, op->nbytes);
      op->dist = 1;
    }
    for (; op->dist < n && !(q & op->dist); op->dist <<= 1) {
      if (q + op->dist >= n) continue;
      char *got = gasnete_coll_take(op, GASNETE_CSTAGE_DATA,
                                    gasnete_rank_at(op, troot, q + op->dist), op->nbytes);
      if (!got) return 0;
      gasnete_red_acc(op, got, 1);
    }
    if (q != 0)
      gasnete_coll_send(op, GASNETE_CSTAGE_DATA, gasnete_rank_at(op, troot, q & (q - 1)), op->acc,
                        op->nbytes);
    else if (me != op->root) /* USER_NC: rank 0 has it, the root wants it */
      gasnete_coll_send(op, GASNETE_CSTAGE_DATA2, op->root, op->acc, op->nbytes);
    else
      memcpy(op->dst, op->acc, op->nbytes);
    op->step = 1;
  }
  if (me == op->root && troot != op->root) {
    char *got = gasnete_coll_take(op, GASNETE_CSTAGE_DATA2, troot, op->nbytes);
    if (!got) return 0;
    memcpy(op->dst, got, op->nbytes);
    free(got);
  }
  return 1;
}

/* ---- reduce to all: recursive doubling ------------------------------------------------------ */

/* The rank of member j of a recursive doubling. */
typedef gex_Rank_t (*gasnete_member_fn)(const gasnete_coll_op_t *op, gex_Rank_t j);
static gex_Rank_t gasnete_member_all(const gasnete_coll_op_t *op, gex_Rank_t j) {
  return gasnete_rank_at(op, 0, j);
}
static gex_Rank_t gasnete_member_leader(const gasnete_coll_op_t *op, gex_Rank_t g) {
  const gasnete_cteam_t *ct = op->tm->coll;
  return ct->at[ct->gstart[g]];
}

/* Members j < 2e (e = m - 2^k, 2^k <= m the largest) pair up (2i, 2i+1)
 * and take part as virtual member i; those above as j - e. */
static gex_Rank_t gasnete_virt_pos(gex_Rank_t v, gex_Rank_t e) { return v < e ? 2 * v : v + e; }

/* Recursive doubling of op->acc among m members, this one member i: 1
 * when op->acc holds the combination of all of theirs in member order.
 * Members 2j+1 < 2e first give theirs to 2j and get the result back at the
 * end. Uses op->step 1 (start) to 3 (done). */
static int gasnete_doubling(gasnete_coll_op_t *op, gex_Rank_t m, gex_Rank_t i,
                            gasnete_member_fn member) {
  gex_Rank_t pow2 = 1;
  while (pow2 * 2 <= m) pow2 *= 2;
  gex_Rank_t e = m - pow2, v = i < 2 * e ? i / 2 : i - e;
  char *got;
  if (i < 2 * e && (i & 1)) { /* give my value to i - 1, get the result back */
    if (op->step == 1) {
      gasnete_coll_send(op, GASNETE_CSTAGE_FOLD, member(op, i - 1), op->acc, op->nbytes);
      op->step = 2;
    }
    if (!(got = gasnete_coll_take(op, GASNETE_CSTAGE_UNFOLD, member(op, i - 1), op->nbytes)))
      return 0;
    free(op->acc);
    op->acc = got;
    return 1;
  }
  if (op->step == 1) { /* members 2j take 2j+1's value */
    if (i < 2 * e) {
      if (!(got = gasnete_coll_take(op, GASNETE_CSTAGE_FOLD, member(op, i + 1), op->nbytes)))
        return 0;
      gasnete_red_acc(op, got, 1);
    }
    op->step = 2;
    op->dist = 1;
    op->sent = 0;
  }
  for (; op->dist < pow2; op->dist <<= 1, op->sent = 0) {
    gex_Rank_t pv = v ^ op->dist, partner = member(op, gasnete_virt_pos(pv, e));
    uint32_t stage = GASNETE_CSTAGE_ROUND + (uint32_t)__builtin_ctz(op->dist);
    if (!op->sent) {
      gasnete_coll_send(op, stage, partner, op->acc, op->nbytes);
      op->sent = 1;
    }
    if (!(got = gasnete_coll_take(op, stage, partner, op->nbytes))) return 0;
    gasnete_red_acc(op, got, pv > v);
  }
  if (i < 2 * e) gasnete_coll_send(op, GASNETE_CSTAGE_UNFOLD, member(op, i + 1), op->acc, op->nbytes);
  op->step = 3;
  return 1;
}

/* Every member in the doubling (USER_NC, or one member per neighbourhood). */
static int gasnete_reduce_all_kick(gasnete_coll_op_t *op) {
  if (op->step == 0) {
    op->acc = gasnete_copy(op->src, op->nbytes);
    op->step = 1;
  }
  if (op->step < 3 &&
      !gasnete_doubling(op, op->tm->size, gasnete_pos_of(op, 0, op->tm->rank), gasnete_member_all))
    return 0;
  memcpy(op->dst, op->acc, op->nbytes);
  return 1;
}

/* By host: each neighbourhood's members give their values to its leader
 * (its first position), which combines them in order; the leaders run the
 * doubling; each leader gives the result to its members. Fewer messages
 * than all members in the doubling, and on a host one exchange of wake-ups
 * instead of log2 of them (the barrier's shape). Steps: 10, 11 members;
 * 20 leader gathering; 1..3 the doubling. */
static int gasnete_reduce_host_kick(gasnete_coll_op_t *op) {
  const gasnete_cteam_t *ct = op->tm->coll;
  gex_Rank_t p = ct->pos[op->tm->rank], g = ct->group[p];
  gex_Rank_t lead = ct->gstart[g], end = ct->gstart[g + 1];
  char *got;
  if (op->step == 0) {
    op->acc = gasnete_copy(op->src, op->nbytes);
    op->step = p == lead ? 20 : 10;
    op->next_rank = p + 1;
  }
  if (p != lead) {
    if (op->step == 10) {
      gasnete_coll_send(op, GASNETE_CSTAGE_HGATHER, ct->at[lead], op->acc, op->nbytes);
      op->step = 11;
    }
    if (!(got = gasnete_coll_take(op, GASNETE_CSTAGE_HRELEASE, ct->at[lead], op->nbytes)))
      return 0;
    memcpy(op->dst, got, op->nbytes);
    free(got);
    return 1;
  }
  if (op->step == 20) {
    for (; op->next_rank < end; op->next_rank++) {
      got = gasnete_coll_take(op, GASNETE_CSTAGE_HGATHER, ct->at[op->next_rank], op->nbytes);
      if (!got) return 0;
      gasnete_red_acc(op, got, 1);
    }
    op->step = 1;
  }
  if (op->step < 3 && !gasnete_doubling(op, ct->ngroups, g, gasnete_member_leader)) return 0;
  for (gex_Rank_t q = lead + 1; q < end; q++)
    gasnete_coll_send(op, GASNETE_CSTAGE_HRELEASE, ct->at[q], op->acc, op->nbytes);
  memcpy(op->dst, op->acc, op->nbytes);
  return 1;
}

/* ---- reductions: checks and start ---------------------------------------------------------- */

static size_t gasnete_dt_size(gex_DT_t dt) {
  switch (dt) {
  case GEX_DT_I32: case GEX_DT_U32: case GEX_DT_FLT: return 4;
  case GEX_DT_I64: case GEX_DT_U64: case GEX_DT_DBL: return 8;
  default: return 0;
  }
}

/* The description, "Operation codes" (valid for reductions) and "Data
 * types": fatal, naming the problem, unless (dt, op) can be reduced. */
static void gasnete_reduce_check(const char *fname, gex_DT_t dt, size_t dt_sz, size_t dt_cnt,
                                 gex_OP_t op, gex_Coll_ReduceFn_t user_op) {
  int user = op == GEX_OP_USER || op == GEX_OP_USER_NC;
  int ints = dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_I64 || dt == GEX_DT_U64;
  if (dt != GEX_DT_USER && !gasnete_dt_size(dt))
    gasnete_fatal("%s: dt %#x is not one GEX_DT_* constant", fname, (unsigned)dt);
  if (dt == GEX_DT_USER ? dt_sz == 0 : dt_sz != gasnete_dt_size(dt))
    gasnete_fatal("%s: dt_sz %zu: %s", fname, dt_sz,
                  dt == GEX_DT_USER ? "must be the user type's size, not 0"
                                    : "must be the size of the built-in type dt");
  if (dt_cnt == 0) gasnete_fatal("%s: dt_cnt is 0 (the description: must be non-zero)", fname);
  if (dt_cnt > SIZE_MAX / dt_sz)
    gasnete_fatal("%s: dt_cnt %zu elements of %zu bytes overflow", fname, dt_cnt, dt_sz);
  if (user && !user_op) gasnete_fatal("%s: op is GEX_OP_USER%s with a NULL user_op", fname,
                                      op == GEX_OP_USER_NC ? "_NC" : "");
  if (user) return;
  if (dt == GEX_DT_USER)
    gasnete_fatal("%s: GEX_DT_USER needs GEX_OP_USER or GEX_OP_USER_NC (op is %#x)", fname,
                  (unsigned)op);
  if (op == GEX_OP_ADD || op == GEX_OP_MULT || op == GEX_OP_MIN || op == GEX_OP_MAX) return;
  if ((op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR) && ints) return;
  if (op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR)
    gasnete_fatal("%s: op %#x (AND, OR, XOR) is valid for the integer types only, not the "
                  "floating-point dt %#x", fname, (unsigned)op, (unsigned)dt);
  gasnete_fatal("%s: op %#x is not valid for reductions (ADD, MULT, MIN, MAX, AND, OR, XOR, "
                "USER, USER_NC are)", fname, (unsigned)op);
}

gex_Event_t gasnete_coll_reduce(const char *fname, gasnetc_team_t *tm, gex_Rank_t root,
                                void *dst, const void *src, gex_DT_t dt, size_t dt_sz,
                                size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t user_op,
                                const void *user_cdata, int sync) {
  int to_all = root == GEX_RANK_INVALID;
  if (GASNETE_UNLIKELY(!to_all && root >= tm->size))
    gasnete_fatal("%s: root %u does not exist (the team has %u members)", fname,
                  (unsigned)root, (unsigned)tm->size);
  gasnete_reduce_check(fname, dt, dt_sz, dt_cnt, op, user_op);
  if (GASNETE_UNLIKELY(!src || (!dst && (to_all || tm->rank == root))))
    gasnete_fatal("%s: %s is NULL", fname, src ? "dst" : "src");
  int ordered = op == GEX_OP_USER_NC; /* rank order, not neighbourhoods */
  const gasnete_cteam_t *ct = tm->coll;
  int (*kick)(gasnete_coll_op_t *) = !to_all ? gasnete_reduce_one_kick
                                     : !ordered && ct->ngroups < tm->size && gasnete_coll_by_host
                                         ? gasnete_reduce_host_kick
                                         : gasnete_reduce_all_kick;
  gasnete_coll_op_t *op_ = gasnete_coll_op_new(fname, tm, sync, kick);
  op_->fini = gasnete_coll_free_acc;
  op_->root = to_all ? 0 : root;
  op_->dst = dst;
  op_->src = src;
  op_->dt = dt;
  op_->dt_sz = dt_sz;
  op_->dt_cnt = dt_cnt;
  op_->nbytes = dt_sz * dt_cnt;
  op_->opcode = op;
  op_->user_op = user_op;
  op_->user_cdata = user_cdata;
  op_->ordered = ordered;
  return gasnete_coll_op_start(op_);
}

/* ---- GASNet-EX ----------------------------------------------------------------------------- */

static gasnetc_team_t *gasnete_coll_ex_check(const char *fname, gex_TM_t tm, gex_Flags_t flags) {
  gasnetc_team_t *t = gasnete_coll_team(fname, tm);
  if (GASNETE_UNLIKELY(flags))
    gasnete_fatal("%s: flags %#x: none is defined for collectives yet; pass 0", fname,
                  (unsigned)flags);
  return t;
}

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes, gex_Flags_t flags) {
  const char *fname = "gex_Coll_BroadcastNB";
  return gasnete_coll_broadcast(fname, gasnete_coll_ex_check(fname, tm, flags), root, dst, src,
                                nbytes, 0);
}

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                   gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags) {
  const char *fname = "gex_Coll_ReduceToOneNB";
  gasnetc_team_t *t = gasnete_coll_ex_check(fname, tm, flags);
  if (GASNETE_UNLIKELY(root >= t->size))
    gasnete_fatal("%s: root %u does not exist (the team has %u members)", fname,
                  (unsigned)root, (unsigned)t->size);
  return gasnete_coll_reduce(fname, t, root, dst, src, dt, dt_sz, dt_cnt, op, user_op,
                             user_cdata, 0);
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags) {
  const char *fname = "gex_Coll_ReduceToAllNB";
  return gasnete_coll_reduce(fname, gasnete_coll_ex_check(fname, tm, flags), GEX_RANK_INVALID,
                             dst, src, dt, dt_sz, dt_cnt, op, user_op, user_cdata, 0);
}
