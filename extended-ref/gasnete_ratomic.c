/*
 * gasnete_ratomic.c - GASNet-EX remote atomics (gasnet_ratomic.h): atomic
 * domains (gex_AD_*) and the typed operations gex_AD_OpNB_<DT> and
 * gex_AD_OpNBI_<DT>.
 *
 * Design: the operation is always done by the CPU's atomic instructions
 * (GCC's __atomic builtins) on the target location, by whichever process
 * can reach it:
 *
 *   target location                  performed by
 *   ------------------------------   ------------------------------------
 *   in this process's segment        the initiator, at once
 *   in a neighbour's segment, which  the initiator, at once, through the
 *   is mapped here (gasnete_g.local) mapping (core/gasnetc_segment.c)
 *   anywhere else                    the target's handler of a Short AM
 *                                    request, on its own segment; a Short
 *                                    reply brings op0 back (GASNETE_H_ACK
 *                                    for non-fetching opcodes)
 *
 * All three paths use the same instructions on the same physical memory (a
 * neighbour's segment is one memfd mapped by both), so every operation is
 * atomic with respect to every other, whatever path each took: a counter
 * on rank 0 may be hit at the same moment by rank 0 itself, by its
 * neighbours through the mapping and by other hosts through messages. The
 * target needs nothing from the domain (the type and the opcode travel in
 * the request), so gex_AD_Create and gex_AD_Destroy communicate with no
 * one, and even two domains on one location stay atomic with respect to
 * each other (the description does not ask for that).
 *
 * Opcodes with an instruction (SET, GET, SWAP, and on integer types ADD,
 * SUB, INC, DEC, AND, OR, XOR and CAS) use it; the others (MULT, MIN, MAX;
 * all arithmetic on FLT and DBL; CAS on FLT and DBL, which compares values
 * with C's ==, so 0.0 matches -0.0 and a NaN matches nothing) are a
 * compare-and-swap loop on the bit pattern (gasnete_ra_loop_<DT>): read,
 * compute the description's expr in the C type, swap in the result if
 * the location still holds what was read, else retry. 4- and 8-byte
 * __atomic operations are lock-free here (checked below), so they are
 * atomic between processes too. Integer arithmetic wraps (it is done in the
 * unsigned type of the same width).
 *
 * Ordering: every operation is sequentially consistent (GASNETE_RA_ORDER),
 * which is what GEX_FLAG_AD_REL and _ACQ ask for, with or without them. On
 * x86-64 that costs nothing for the read-modify-writes (a locked
 * instruction either way) and an xchg instead of a mov for a non-fetching
 * SET; fences chosen by flag would save little, and ThreadSanitizer does
 * not understand fences. A remote operation is ordered after what the
 * initiator did before it by the message itself (a release store in a
 * shared-memory ring, or a system call), and its completion before what
 * follows the wait by the reply handler's release and the waiter's
 * acquire of the event's counter (gasnete_internal.h).
 *
 * An operation done here does not poll (as a put to a mapped peer): a
 * client spinning on memory that another host's operations change must
 * poll, since those operations are requests its handlers run.
 *
 * Everything per type is generated from one list, GASNETE_RA_TYPES.
 */
#include <stdlib.h>
#include <string.h>

#include "gasnete_internal.h"
#include "gasnet_ratomic.h"

#define GASNETE_RA_ORDER __ATOMIC_SEQ_CST
_Static_assert(__atomic_always_lock_free(4, 0) && __atomic_always_lock_free(8, 0),
               "remote atomics need lock-free 4- and 8-byte atomics (shared between processes)");

/* ---- opcodes ----------------------------------------------------------------
 * gasnetex.h puts the non-fetching opcode of kind k at bit 2k and its
 * fetching form at bit 2k+1; GET (kind GASNETE_RA_GET) is alone. */
enum {
  GASNETE_RA_SET, GASNETE_RA_CAS, GASNETE_RA_ADD, GASNETE_RA_SUB, GASNETE_RA_INC,
  GASNETE_RA_DEC, GASNETE_RA_MULT, GASNETE_RA_MIN, GASNETE_RA_MAX, GASNETE_RA_AND,
  GASNETE_RA_OR, GASNETE_RA_XOR, GASNETE_RA_GET
};
#define GASNETE_RA_BIT(kind) ((gex_OP_t)1u << (2 * (kind)))
_Static_assert(GEX_OP_SET == GASNETE_RA_BIT(GASNETE_RA_SET) &&
               GEX_OP_FCAS == GEX_OP_TO_FETCHING(GASNETE_RA_BIT(GASNETE_RA_CAS)) &&
               GEX_OP_MULT == GASNETE_RA_BIT(GASNETE_RA_MULT) &&
               GEX_OP_FXOR == GEX_OP_TO_FETCHING(GASNETE_RA_BIT(GASNETE_RA_XOR)) &&
               GEX_OP_GET == GASNETE_RA_BIT(GASNETE_RA_GET),
               "gasnetex.h's opcode bits and the kinds here agree");
#define GASNETE_RA_OPS_BITWISE \
  (GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
#define GASNETE_RA_OPS_INT ((GEX_OP_GET << 1) - 1) /* every built-in opcode */
#define GASNETE_RA_OPS_FP (GASNETE_RA_OPS_INT & ~GASNETE_RA_OPS_BITWISE)
#define GASNETE_RA_OPS_REDUCE (GEX_OP_USER | GEX_OP_USER_NC)

/* By bit index, for messages. */
static const char *const gasnete_ra_op_names[] = {
  "SET", "SWAP", "CAS", "FCAS", "ADD", "FADD", "SUB", "FSUB", "INC", "FINC", "DEC", "FDEC",
  "MULT", "FMULT", "MIN", "FMIN", "MAX", "FMAX", "AND", "FAND", "OR", "FOR", "XOR", "FXOR",
  "GET", "USER", "USER_NC",
};
#define GASNETE_RA_NOPS ((int)(sizeof gasnete_ra_op_names / sizeof gasnete_ra_op_names[0]))

/* ---- the types -----------------------------------------------------------------
 * X(DT, T, U, EXPR, ISINT): the GEX_DT_ suffix, the C type, the unsigned
 * integer of its width, the arithmetic of the description's expr for it,
 * and whether it is an integer type. In GEX_DT_* bit order. */
#define GASNETE_RA_TYPES(X)                          \
  X(I32, int32_t, uint32_t, GASNETE_RA_EXPR_INT, 1)  \
  X(U32, uint32_t, uint32_t, GASNETE_RA_EXPR_INT, 1) \
  X(I64, int64_t, uint64_t, GASNETE_RA_EXPR_INT, 1)  \
  X(U64, uint64_t, uint64_t, GASNETE_RA_EXPR_INT, 1) \
  X(FLT, float, uint32_t, GASNETE_RA_EXPR_FP, 0)     \
  X(DBL, double, uint64_t, GASNETE_RA_EXPR_FP, 0)
_Static_assert(GEX_DT_I32 == 1 && GEX_DT_DBL == 1u << 5, "GASNETE_RA_TYPES is in bit order");

/* Integer arithmetic in U: it wraps, as __atomic_fetch_add does. */
#define GASNETE_RA_EXPR_INT(T, U)                         \
  case GASNETE_RA_ADD: return (T)((U)a + (U)b);            \
  case GASNETE_RA_SUB: return (T)((U)a - (U)b);            \
  case GASNETE_RA_INC: return (T)((U)a + 1u);              \
  case GASNETE_RA_DEC: return (T)((U)a - 1u);              \
  case GASNETE_RA_MULT: return (T)((U)a * (U)b);           \
  case GASNETE_RA_AND: return a & b;                       \
  case GASNETE_RA_OR: return a | b;                        \
  case GASNETE_RA_XOR: return a ^ b;
/* Floating point: C's arithmetic in T; no bit-wise opcodes (gex_AD_Create
 * refuses them). */
#define GASNETE_RA_EXPR_FP(T, U)                          \
  case GASNETE_RA_ADD: return a + b;                       \
  case GASNETE_RA_SUB: return a - b;                       \
  case GASNETE_RA_INC: return a + 1;                       \
  case GASNETE_RA_DEC: return a - 1;                       \
  case GASNETE_RA_MULT: return a * b;

/* Per type: bit-pattern conversions, expr (the description's table:
 * a = op0, b = op1, c = op2), the CAS loop, and apply, which performs one
 * operation on p (every path comes here) and returns op0's bits. */
#define GASNETE_RA_DEFINE(DT, T, U, EXPR, ISINT)                                           \
  static inline T gasnete_ra_from_##DT(uint64_t bits) {                                     \
    U u = (U)bits;                                                                          \
    T v;                                                                                    \
    memcpy(&v, &u, sizeof v);                                                               \
    return v;                                                                               \
  }                                                                                         \
  static inline uint64_t gasnete_ra_bits_##DT(T v) {                                        \
    U u;                                                                                    \
    memcpy(&u, &v, sizeof u);                                                               \
    return u;                                                                               \
  }                                                                                         \
  static T gasnete_ra_expr_##DT(int kind, T a, T b, T c) {                                  \
    switch (kind) {                                                                         \
    EXPR(T, U)                                                                              \
    case GASNETE_RA_SET: return b;                                                          \
    case GASNETE_RA_CAS: return a == b ? c : a;                                             \
    case GASNETE_RA_MIN: return a < b ? a : b;                                              \
    case GASNETE_RA_MAX: return a > b ? a : b;                                              \
    default: return a; /* GET */                                                            \
    }                                                                                       \
  }                                                                                         \
  static uint64_t gasnete_ra_loop_##DT(U *p, int kind, uint64_t b1, uint64_t b2) {          \
    T op1 = gasnete_ra_from_##DT(b1), op2 = gasnete_ra_from_##DT(b2);                       \
    U old = __atomic_load_n(p, GASNETE_RA_ORDER);                                           \
    for (;;) { /* a failed swap reloads old */                                              \
      U val = (U)gasnete_ra_bits_##DT(gasnete_ra_expr_##DT(kind, gasnete_ra_from_##DT(old), \
                                                           op1, op2));                      \
      if (val == old || /* nothing to write: the read was the operation */                  \
          __atomic_compare_exchange_n(p, &old, val, 1, GASNETE_RA_ORDER, GASNETE_RA_ORDER)) \
        return old;                                                                         \
    }                                                                                       \
  }                                                                                         \
  static uint64_t gasnete_ra_apply_##DT(void *addr, int kind, int fetch, uint64_t b1,       \
                                        uint64_t b2) {                                      \
    U *p = addr, v1 = (U)b1, v2 = (U)b2;                                                    \
    if (kind == GASNETE_RA_GET) return __atomic_load_n(p, GASNETE_RA_ORDER);                \
    if (kind == GASNETE_RA_SET && !fetch) {                                                 \
      __atomic_store_n(p, v1, GASNETE_RA_ORDER);                                            \
      return 0;                                                                             \
    }                                                                                       \
    if (kind == GASNETE_RA_SET) return __atomic_exchange_n(p, v1, GASNETE_RA_ORDER);        \
    if (ISINT) switch (kind) {                                                              \
      case GASNETE_RA_CAS:                                                                  \
        __atomic_compare_exchange_n(p, &v1, v2, 0, GASNETE_RA_ORDER, GASNETE_RA_ORDER);     \
        return v1; /* op0 either way */                                                     \
      case GASNETE_RA_ADD: return __atomic_fetch_add(p, v1, GASNETE_RA_ORDER);              \
      case GASNETE_RA_SUB: return __atomic_fetch_sub(p, v1, GASNETE_RA_ORDER);              \
      case GASNETE_RA_INC: return __atomic_fetch_add(p, 1, GASNETE_RA_ORDER);               \
      case GASNETE_RA_DEC: return __atomic_fetch_sub(p, 1, GASNETE_RA_ORDER);               \
      case GASNETE_RA_AND: return __atomic_fetch_and(p, v1, GASNETE_RA_ORDER);              \
      case GASNETE_RA_OR: return __atomic_fetch_or(p, v1, GASNETE_RA_ORDER);                \
      case GASNETE_RA_XOR: return __atomic_fetch_xor(p, v1, GASNETE_RA_ORDER);              \
      }                                                                                     \
    return gasnete_ra_loop_##DT(p, kind, b1, b2); /* MULT, MIN, MAX; FLT and DBL */         \
  }
GASNETE_RA_TYPES(GASNETE_RA_DEFINE)

typedef struct {
  gex_DT_t dt;
  const char *name;
  uint32_t size;
  gex_OP_t ops; /* the opcodes valid on it */
  uint64_t (*apply)(void *p, int kind, int fetch, uint64_t b1, uint64_t b2);
} gasnete_ra_type_t;
#define GASNETE_RA_ENTRY(DT, T, U, EXPR, ISINT) \
  { GEX_DT_##DT, "GEX_DT_" #DT, sizeof(T), ISINT ? GASNETE_RA_OPS_INT : GASNETE_RA_OPS_FP, \
    gasnete_ra_apply_##DT },
static const gasnete_ra_type_t gasnete_ra_types[] = { GASNETE_RA_TYPES(GASNETE_RA_ENTRY) };
#define GASNETE_RA_NTYPES ((int)(sizeof gasnete_ra_types / sizeof gasnete_ra_types[0]))

/* The type of dt (one GEX_DT_* bit), or NULL. */
static const gasnete_ra_type_t *gasnete_ra_type(gex_DT_t dt) {
  if (dt == 0 || (dt & (dt - 1)) || __builtin_ctz(dt) >= GASNETE_RA_NTYPES) return NULL;
  return &gasnete_ra_types[__builtin_ctz(dt)];
}

static inline void gasnete_ra_store(void *result_p, uint64_t bits, uint32_t size) {
  if (size == 4) {
    uint32_t u = (uint32_t)bits;
    memcpy(result_p, &u, 4);
  } else {
    memcpy(result_p, &bits, 8);
  }
}

/* ---- the wire: Short request GASNETE_H_RATOMIC_REQ ------------------------------
 * args: target address(2), op1(2), op2(2) (bit patterns, zero-extended),
 * code, counter(2), result_p(2). code = type index | opcode bit << 3.
 * The reply: GASNETE_H_RATOMIC_REP with op0(2), result_p(2), counter(2),
 * size for fetching opcodes, else GASNETE_H_ACK. */
#define GASNETE_RA_CODE_BIT_SHIFT 3

void gasnete_ratomic_req_handler(gasnet_token_t t, gasnete_arg_t ahi, gasnete_arg_t alo,
                                 gasnete_arg_t o1hi, gasnete_arg_t o1lo, gasnete_arg_t o2hi,
                                 gasnete_arg_t o2lo, gasnete_arg_t code, gasnete_arg_t chi,
                                 gasnete_arg_t clo, gasnete_arg_t rhi, gasnete_arg_t rlo) {
  int ti = code & 7, bit = (code >> GASNETE_RA_CODE_BIT_SHIFT) & 31;
  void *p = GASNETE_PTR(ahi, alo);
  const gasnete_ra_type_t *type = &gasnete_ra_types[ti < GASNETE_RA_NTYPES ? ti : 0];
  /* the initiator checked all of this: a failure is a bug, not misuse */
  if (GASNETE_UNLIKELY(ti >= GASNETE_RA_NTYPES || !(type->ops & (1u << bit)) ||
                       !gasnete_in_segment(gasnete_g.mynode, p, type->size)))
    gasnete_fatal("remote atomic request with code %#x on %p: not an operation this rank "
                  "can do (an internal error)", (unsigned)code, p);
  int kind = bit >> 1, fetch = (bit & 1) || kind == GASNETE_RA_GET;
  uint64_t old = type->apply(p, kind, fetch, GASNETE_U64(o1hi, o1lo), GASNETE_U64(o2hi, o2lo));
  if (fetch)
    gex_AM_ReplyShort7(t, GASNETE_H_RATOMIC_REP, 0, GASNETE_HI(old), GASNETE_LO(old), rhi, rlo,
                       chi, clo, (gasnete_arg_t)type->size);
  else
    gex_AM_ReplyShort3(t, GASNETE_H_ACK, 0, chi, clo, 0);
}

void gasnete_ratomic_rep_handler(gasnet_token_t t, gasnete_arg_t vhi, gasnete_arg_t vlo,
                                 gasnete_arg_t rhi, gasnete_arg_t rlo, gasnete_arg_t chi,
                                 gasnete_arg_t clo, gasnete_arg_t size) {
  (void)t;
  gasnete_ra_store(GASNETE_PTR(rhi, rlo), GASNETE_U64(vhi, vlo), (uint32_t)size);
  GASNETE_CTR_SUB1((gasnete_counter_t *)GASNETE_PTR(chi, clo)); /* release: op0 first */
}

/* ---- atomic domains ------------------------------------------------------------ */

#define GASNETE_AD_MAGIC 0x61746f6du /* "atom"; 0 once destroyed */

struct gasnete_ad {
  uint32_t magic;
  const gasnete_ra_type_t *type;
  gex_OP_t ops;
  gex_Flags_t flags;
  gex_TM_t tm;
  /* [job size]: job rank -> team rank, GEX_RANK_INVALID for non-members
   * (GEX_FLAG_RANK_IS_JOBRANK); NULL when the team is every rank in job
   * order, as the primordial team is. */
  gex_Rank_t *teamrank;
  void *cdata;
};

#define GASNETE_AD_FAVOR \
  (GEX_FLAG_AD_FAVOR_MY_RANK | GEX_FLAG_AD_FAVOR_MY_NBRHD | GEX_FLAG_AD_FAVOR_REMOTE)

static void gasnete_ad_bad(const char *fname, gex_AD_t ad) __attribute__((noreturn, cold));
static void gasnete_ad_bad(const char *fname, gex_AD_t ad) {
  if (!ad) gasnete_fatal("%s: ad is GEX_AD_INVALID", fname);
  gasnete_fatal("%s: ad %p is not an atomic domain (destroyed, or never made by "
                "gex_AD_Create)", fname, (void *)ad);
}
static inline struct gasnete_ad *gasnete_ad_check(const char *fname, gex_AD_t ad) {
  if (GASNETE_UNLIKELY(!ad || ad->magic != GASNETE_AD_MAGIC)) gasnete_ad_bad(fname, ad);
  return ad;
}

/* A team of this process: not GEX_TM_INVALID, not a TM-pair. */
static void gasnete_ad_check_team(const char *fname, gex_TM_t tm) {
  if (!tm) gasnete_fatal("%s: tm is GEX_TM_INVALID", fname);
  if ((uintptr_t)tm & GASNETC_TM_PAIR_BIT)
    gasnete_fatal("%s: tm %p is a TM-pair, which no gex_AD_ call accepts (the description, "
                  "gex_TM_Pair); pass a team", fname, (void *)tm);
  if (gasnetc_team_lookup(tm->id) != tm)
    gasnete_fatal("%s: tm %p is not a team of this process", fname, (void *)tm);
}

/* ops: valid on type (the description, "Operation codes"), at least one. */
static void gasnete_ad_check_ops(const char *fname, const gasnete_ra_type_t *type, gex_OP_t ops) {
  if (ops == 0) gasnete_fatal("%s: ops is 0: a domain needs at least one GEX_OP_*", fname);
  gex_OP_t bad = ops & ~type->ops;
  if (!bad) return;
  int bit = __builtin_ctz(bad);
  if (bit >= GASNETE_RA_NOPS)
    gasnete_fatal("%s: ops %#x has bits that are no GEX_OP_* value", fname, (unsigned)ops);
  if (bad & GASNETE_RA_OPS_REDUCE)
    gasnete_fatal("%s: GEX_OP_%s is valid only for reductions, not for remote atomics", fname,
                  gasnete_ra_op_names[bit]);
  gasnete_fatal("%s: GEX_OP_%s is not valid on %s: the bit-wise operations are for integer "
                "types only (the description, \"Operation codes\")", fname,
                gasnete_ra_op_names[bit], type->name);
}

/* Job rank -> team rank, for GEX_FLAG_RANK_IS_JOBRANK; NULL when they are equal. */
static gex_Rank_t *gasnete_ad_teamrank(const char *fname, gex_TM_t tm) {
  if (!tm->jobrank && tm->size == gasnete_g.nodes) return NULL;
  gex_Rank_t *map = malloc(sizeof *map * gasnete_g.nodes);
  if (!map) gasnete_fatal("%s: out of memory for a map of %u ranks", fname, (unsigned)gasnete_g.nodes);
  for (gex_Rank_t r = 0; r < gasnete_g.nodes; r++) map[r] = GEX_RANK_INVALID;
  for (gex_Rank_t i = 0; i < tm->size; i++) map[gasnetc_team_jobrank(tm, i)] = i;
  return map;
}

void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags) {
  const char *fname = "gex_AD_Create";
  if (GASNETE_UNLIKELY(!gasnete_g.tm0)) gasnetc_not_ready(fname, 0);
  if (!ad_p) gasnete_fatal("%s: ad_p is NULL", fname);
  gasnete_ad_check_team(fname, tm);
  const gasnete_ra_type_t *type = gasnete_ra_type(dt);
  if (!type)
    gasnete_fatal("%s: dt %#x is not a data type of remote atomics (GEX_DT_I32, _U32, _I64, "
                  "_U64, _FLT or _DBL)", fname, (unsigned)dt);
  gasnete_ad_check_ops(fname, type, ops);
  /* The segment-disposition flags are no creation flags of the description,
   * but Berkeley's library takes them (its testgasnet passes
   * GEX_FLAG_PEER_SEG_OFFSET and reads them back): kept, without effect. */
  gex_Flags_t favor = flags & ~(gex_Flags_t)GASNETE_SEG_FLAGS;
  if ((favor & ~GASNETE_AD_FAVOR) || (favor & (favor - 1)))
    gasnete_fatal("%s: flags %#x: pass 0 or one of GEX_FLAG_AD_FAVOR_MY_RANK, _MY_NBRHD and "
                  "_REMOTE", fname, (unsigned)flags);
  struct gasnete_ad *ad = calloc(1, sizeof *ad);
  if (!ad) gasnete_fatal("%s: out of memory", fname);
  *ad = (struct gasnete_ad){ .magic = GASNETE_AD_MAGIC, .type = type, .ops = ops,
                             .flags = flags, .tm = tm, .teamrank = gasnete_ad_teamrank(fname, tm) };
  __atomic_add_fetch(&tm->ads, 1, __ATOMIC_RELAXED);
  *ad_p = ad;
}

void gex_AD_Destroy(gex_AD_t ad) {
  gasnete_ad_check("gex_AD_Destroy", ad)->magic = 0;
  __atomic_sub_fetch(&ad->tm->ads, 1, __ATOMIC_RELAXED);
  free(ad->teamrank);
  free(ad);
}

gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad) { return gasnete_ad_check("gex_AD_QueryFlags", ad)->flags; }
gex_TM_t gex_AD_QueryTM(gex_AD_t ad) { return gasnete_ad_check("gex_AD_QueryTM", ad)->tm; }
gex_DT_t gex_AD_QueryDT(gex_AD_t ad) { return gasnete_ad_check("gex_AD_QueryDT", ad)->type->dt; }
gex_OP_t gex_AD_QueryOps(gex_AD_t ad) { return gasnete_ad_check("gex_AD_QueryOps", ad)->ops; }
void gex_AD_SetCData(gex_AD_t ad, const void *val) {
  gasnete_ad_check("gex_AD_SetCData", ad)->cdata = (void *)val;
}
void *gex_AD_QueryCData(gex_AD_t ad) { return gasnete_ad_check("gex_AD_QueryCData", ad)->cdata; }

/* ---- initiating an operation: the checks ------------------------------------------ */

#define GASNETE_RA_FLAGS                                                          \
  (GEX_FLAG_IMMEDIATE | GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD | GEX_FLAG_AD_ACQ | \
   GEX_FLAG_AD_REL | GEX_FLAG_RANK_IS_JOBRANK)

/* One operation, checked. */
typedef struct {
  const gasnete_ra_type_t *type;
  int bit, kind, fetch; /* the opcode's bit index, its kind, whether it fetches */
  gasnet_node_t node;   /* the target's job rank */
  void *here;           /* the target location in this process, NULL: only by AM */
} gasnete_ra_op_t;

static void gasnete_ra_bad_flags(const char *fname, gex_Flags_t flags)
    __attribute__((noreturn, cold));
static void gasnete_ra_bad_flags(const char *fname, gex_Flags_t flags) {
  if (flags & (GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET))
    gasnete_fatal("%s: flags %#x include GEX_FLAG_SELF_SEG_OFFSET or GEX_FLAG_PEER_SEG_OFFSET, "
                  "which the description marks [UNIMPLEMENTED]", fname, (unsigned)flags);
  if ((flags & GEX_FLAG_AD_MY_RANK) && (flags & GEX_FLAG_AD_MY_NBRHD))
    gasnete_fatal("%s: flags %#x: GEX_FLAG_AD_MY_RANK and GEX_FLAG_AD_MY_NBRHD exclude each "
                  "other", fname, (unsigned)flags);
  gasnete_fatal("%s: flags %#x: a remote atomic takes only GEX_FLAG_IMMEDIATE, "
                "GEX_FLAG_AD_MY_RANK or _MY_NBRHD, GEX_FLAG_AD_ACQ, _REL and "
                "GEX_FLAG_RANK_IS_JOBRANK", fname, (unsigned)flags);
}

static void gasnete_ra_bad_op(const char *fname, const struct gasnete_ad *ad, gex_OP_t op)
    __attribute__((noreturn, cold));
static void gasnete_ra_bad_op(const char *fname, const struct gasnete_ad *ad, gex_OP_t op) {
  if (op == 0 || (op & (op - 1)) || __builtin_ctz(op) >= GASNETE_RA_NOPS)
    gasnete_fatal("%s: opcode %#x is not one GEX_OP_* value (the description: not an OR of "
                  "several)", fname, (unsigned)op);
  gasnete_fatal("%s: opcode GEX_OP_%s is not in the domain's ops %#x (the description: it "
                "must be one of those passed to gex_AD_Create)", fname,
                gasnete_ra_op_names[__builtin_ctz(op)], (unsigned)ad->ops);
}

/* The target's job rank: (team, rank), or a job rank of the team. */
static inline gasnet_node_t gasnete_ra_node(const char *fname, const struct gasnete_ad *ad,
                                            gex_Rank_t rank, gex_Flags_t flags) {
  if (GASNETE_LIKELY(!(flags & GEX_FLAG_RANK_IS_JOBRANK))) {
    gex_Rank_t node = gasnetc_tm_rank_fast(ad->tm, rank, gasnete_g.nodes);
    return GASNETE_LIKELY(node != GEX_RANK_INVALID) ? node : gasnetc_tm_jobrank(ad->tm, rank, fname);
  }
  if (GASNETE_UNLIKELY(rank >= gasnete_g.nodes))
    gasnete_fatal("%s: job rank %u does not exist (the job has %u; GEX_FLAG_RANK_IS_JOBRANK)",
                  fname, (unsigned)rank, (unsigned)gasnete_g.nodes);
  if (GASNETE_UNLIKELY(ad->teamrank && ad->teamrank[rank] == GEX_RANK_INVALID))
    gasnete_fatal("%s: job rank %u is not a member of the domain's team "
                  "(GEX_FLAG_RANK_IS_JOBRANK)", fname, (unsigned)rank);
  return rank;
}

/* 1 when node is in this process's neighbourhood (a sorted array). */
static int gasnete_ra_in_nbrhd(gasnet_node_t node) {
  gex_RankInfo_t *info;
  gex_Rank_t lo = 0, hi;
  gex_System_QueryNbrhdInfo(&info, &hi, NULL);
  while (lo < hi) {
    gex_Rank_t mid = lo + (hi - lo) / 2;
    if (info[mid].gex_jobrank == node) return 1;
    if (info[mid].gex_jobrank < node) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}

/* GEX_FLAG_AD_MY_RANK / _MY_NBRHD are assertions: a false one is fatal. */
static void gasnete_ra_check_assertion(const char *fname, gasnet_node_t node, gex_Flags_t flags) {
  if ((flags & GEX_FLAG_AD_MY_RANK) && node != gasnete_g.mynode)
    gasnete_fatal("%s: GEX_FLAG_AD_MY_RANK asserts that the target is this rank, but it is "
                  "job rank %u", fname, (unsigned)node);
  if ((flags & GEX_FLAG_AD_MY_NBRHD) && !gasnete_ra_in_nbrhd(node))
    gasnete_fatal("%s: GEX_FLAG_AD_MY_NBRHD asserts that the target is in this rank's "
                  "neighbourhood, but job rank %u is not", fname, (unsigned)node);
}

static inline void gasnete_ra_check(const char *fname, gex_AD_t ad, gex_DT_t dt,
                                    void *result_p, gex_Rank_t rank, void *addr, gex_OP_t op,
                                    gex_Flags_t flags, gasnete_ra_op_t *o) {
  gasnete_ad_check(fname, ad);
  if (GASNETE_UNLIKELY(ad->type->dt != dt))
    gasnete_fatal("%s: the domain's data type is %s (the description: the data types of the "
                  "domain and of the call must be equal)", fname, ad->type->name);
  if (GASNETE_UNLIKELY((flags & ~GASNETE_RA_FLAGS) ||
                       (flags & GEX_FLAG_AD_MY_RANK && flags & GEX_FLAG_AD_MY_NBRHD)))
    gasnete_ra_bad_flags(fname, flags);
  if (GASNETE_UNLIKELY(op == 0 || (op & (op - 1)) || !(op & ad->ops)))
    gasnete_ra_bad_op(fname, ad, op);
  if (GASNETE_UNLIKELY(!gasnete_g.attached)) gasnetc_not_ready(fname, 1);
  o->type = ad->type;
  o->bit = __builtin_ctz(op);
  o->kind = o->bit >> 1;
  o->fetch = (o->bit & 1) || o->kind == GASNETE_RA_GET;
  o->node = gasnete_ra_node(fname, ad, rank, flags);
  if (GASNETE_UNLIKELY(flags & (GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD)))
    gasnete_ra_check_assertion(fname, o->node, flags);
  const uint32_t size = o->type->size;
  gasnete_peer_t p; /* an AD's team names primordial EPs */
  gasnete_peer_node(&p, o->node);
  gasnete_check_remote(fname, &p, addr, size, "target");
  if (GASNETE_UNLIKELY((uintptr_t)addr & (size - 1)))
    gasnete_fatal("%s: target %p is not aligned for %s (%u bytes; the description: tgt_addr "
                  "must be properly aligned for its type)", fname, addr, o->type->name,
                  (unsigned)size);
  if (GASNETE_UNLIKELY(o->fetch && !result_p))
    gasnete_fatal("%s: result_p is NULL for the fetching GEX_OP_%s", fname,
                  gasnete_ra_op_names[o->bit]);
  /* this process, or a neighbour whose segment is mapped here */
  o->here = gasnete_peer_mapped(&p) ? gasnete_peer_addr(&p, addr) : NULL;
  if (GASNETC_TRACING('R')) gasnetc_trace_ratomic(o->node, gasnete_ra_op_names[o->bit]);
}

/* ---- initiating: the two paths ------------------------------------------------------ */

static inline void gasnete_ra_local(const gasnete_ra_op_t *o, void *result_p, uint64_t b1,
                                    uint64_t b2) {
  uint64_t old = o->type->apply(o->here, o->kind, o->fetch, b1, b2);
  if (o->fetch) gasnete_ra_store(result_p, old, o->type->size);
}

/* The request, counted on c; 1 when GEX_FLAG_IMMEDIATE found no room (nothing sent). */
static inline int gasnete_ra_send(const gasnete_ra_op_t *o, gasnete_counter_t *c, void *addr,
                                  void *result_p, uint64_t b1, uint64_t b2, gex_Flags_t flags) {
  gasnete_arg_t code =
      (gasnete_arg_t)((o->type - gasnete_ra_types) | o->bit << GASNETE_RA_CODE_BIT_SHIFT);
  GASNETE_CTR_ADD(c, 1); /* before the send: the reply may run inside it */
  if (GASNETE_LIKELY(!gex_AM_RequestShort11(gasnete_g.pair, o->node, GASNETE_H_RATOMIC_REQ,
                                            flags & GEX_FLAG_IMMEDIATE, GASNETE_HI(addr),
                                            GASNETE_LO(addr), GASNETE_HI(b1), GASNETE_LO(b1),
                                            GASNETE_HI(b2), GASNETE_LO(b2), code, GASNETE_HI(c),
                                            GASNETE_LO(c), GASNETE_HI(result_p),
                                            GASNETE_LO(result_p))))
    return 0;
  GASNETE_CTR_SUB1(c);
  return 1;
}

static gex_Event_t gasnete_ra_nb(const char *fname, gex_AD_t ad, gex_DT_t dt, void *result_p,
                                 gex_Rank_t rank, void *addr, gex_OP_t op, uint64_t b1,
                                 uint64_t b2, gex_Flags_t flags) {
  gasnete_ra_op_t o;
  gasnete_ra_check(fname, ad, dt, result_p, rank, addr, op, flags, &o);
  if (o.here) {
    gasnete_ra_local(&o, result_p, b1, b2);
    return GEX_EVENT_INVALID;
  }
  gasnete_threaddata_t *td = gasnete_mythread();
  struct gasnete_handle *h = gasnete_handle_new(td, GASNETE_H_NB);
  if (GASNETE_LIKELY(!gasnete_ra_send(&o, &h->ctr, addr, result_p, b1, b2, flags))) return h;
  gasnete_handle_free(td, h);
  return GEX_EVENT_NO_OP;
}

/* NBI: the open access region, else by category: SET a put, GET a get,
 * the rest GEX_EC_RMW (the description, gex_AD_OpNBI). */
static int gasnete_ra_nbi(const char *fname, gex_AD_t ad, gex_DT_t dt, void *result_p,
                          gex_Rank_t rank, void *addr, gex_OP_t op, uint64_t b1, uint64_t b2,
                          gex_Flags_t flags) {
  gasnete_ra_op_t o;
  gasnete_ra_check(fname, ad, dt, result_p, rank, addr, op, flags, &o);
  if (o.here) {
    gasnete_ra_local(&o, result_p, b1, b2);
    return 0;
  }
  gasnete_threaddata_t *td = gasnete_mythread();
  gasnete_counter_t *c = td->region                  ? &td->region->ctr
                         : op == GEX_OP_SET          ? &td->nbi_puts
                         : o.kind == GASNETE_RA_GET  ? &td->nbi_gets
                                                     : &td->nbi_rmw;
  return gasnete_ra_send(&o, c, addr, result_p, b1, b2, flags);
}

/* ---- the typed calls ----------------------------------------------------------------- */
#define GASNETE_RA_CALLS(DT, T, U, EXPR, ISINT)                                            \
  gex_Event_t gex_AD_OpNB_##DT(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank,               \
                               void *tgt_addr, gex_OP_t opcode, T operand1, T operand2,     \
                               gex_Flags_t flags) {                                         \
    return gasnete_ra_nb("gex_AD_OpNB_" #DT, ad, GEX_DT_##DT, result_p, tgt_rank, tgt_addr,  \
                         opcode, gasnete_ra_bits_##DT(operand1),                            \
                         gasnete_ra_bits_##DT(operand2), flags);                            \
  }                                                                                         \
  int gex_AD_OpNBI_##DT(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank, void *tgt_addr,      \
                        gex_OP_t opcode, T operand1, T operand2, gex_Flags_t flags) {       \
    return gasnete_ra_nbi("gex_AD_OpNBI_" #DT, ad, GEX_DT_##DT, result_p, tgt_rank,          \
                          tgt_addr, opcode, gasnete_ra_bits_##DT(operand1),                 \
                          gasnete_ra_bits_##DT(operand2), flags);                           \
  }
GASNETE_RA_TYPES(GASNETE_RA_CALLS)
