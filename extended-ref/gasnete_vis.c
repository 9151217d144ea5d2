/*
 * gasnete_vis.c - Vector, Indexed and Strided transfers (include/gasnet_vis.h):
 * GASNet-EX's gex_VIS_* and GASNet-1's gasnet_{put,get}{v,i,s}[_nb|_nbi]_bulk,
 * each of the latter one EX call, over core AMs: four handlers of our own
 * (GASNETE_H_VIS_*) and the RMA protocol of gasnete_putget.c.
 *
 * The algorithm, for students:
 *  1. Each side of an operation (local, remote) is a gasnete_vis_side_t that
 *     yields its memory as a sequence of runs: the entries of a list, or the
 *     elements of a strided box in index order (level 0 fastest). Zero-
 *     length entries are skipped, and an entry that starts where the one
 *     before it ended is merged into it. A strided box folds a level whose
 *     stride equals the run so far into the run before walking (64
 *     touching elements of 8 B are one entry of 512 B), so it walks its
 *     contiguous runs, not its elements.
 *  2. The operation copies the byte stream of the source side onto the byte
 *     stream of the destination side. gasnete_vis_next cuts both sequences
 *     of runs wherever either has a boundary, giving pieces (local address,
 *     remote address, length) contiguous on both sides. So the two sides
 *     may be shaped differently; only their totals must agree.
 *  3. Checks before anything moves: equal totals (else a fatal error naming
 *     both), every remote piece in the peer's segment (lists: each entry;
 *     strided: the box's lowest and highest byte, which belong to elements
 *     whatever the signs of the strides).
 *  4. A peer whose segment is mapped here (this process, or a neighbour:
 *     gasnete_g.local[node]): each piece is a copy that stores each byte
 *     once (gasnete_copy_once); complete at return.
 *  5. Otherwise a piece of GASNETE_VIS_RMA_MIN bytes or more is ordinary
 *     RMA (gasnete_put_start / gasnete_get_start); smaller ones are packed,
 *     many per AM, into payloads of up to gasnet_AMMaxMedium() bytes:
 *       put  a Medium request (GASNETE_H_VIS_PUT) whose payload is pieces
 *            {u64 remote address, u32 length, the bytes}; its handler
 *            scatters them and replies ACK (gasnete_putget.c's handler).
 *       get  a Medium request (GASNETE_H_VIS_GET_REQ) whose payload is
 *            entries {u64 remote address, u64 local address, u32 length};
 *            its handler gathers them into a Medium reply
 *            (GASNETE_H_VIS_GET_REP) of pieces {u64 local address, u32
 *            length, the bytes}, the put's format, which the reply handler
 *            scatters. The local addresses travel there and back, so the
 *            initiator keeps no state per AM.
 *     Payloads are written in place in the transport's buffer (negotiated-
 *     payload AMs: no copy over udp). Each AM counts on the operation's
 *     completion counter and in its pipeline window as an RMA chunk does,
 *     so blocking, NB, NBI and access regions complete as RMA does.
 *  Numbers travel unaligned, in host byte order (every rank of a job runs
 *  the same build), written and read only by gasnete_vis_{put,get}_hdr.
 *
 * Peer completion (gex_VIS_SetPeerCompletionHandler): the armed put moves
 * its data on a counter of its own and waits, inside its initiation, until
 * every piece is acknowledged (nothing to wait for when the target's
 * segment is mapped here); then one more Medium request (GASNETE_H_VIS_PC)
 * carries the client's payload and handler index, and the target runs that
 * handler as a Medium reply (gasnetc_handler_run_reply_medium) before it
 * replies ACK. The operation completes with that ACK.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gasnete_internal.h"
#include "gasnet_vis.h"

/* A piece this long or longer goes as ordinary RMA (Long payloads that land
 * in place) rather than packed: beside it the packed header is negligible
 * but the copy out of a Medium at the target is not. */
#define GASNETE_VIS_RMA_MIN 16384

/* Strided levels whose count is above 1 (more would make the box larger
 * than SIZE_MAX bytes, which is a fatal error before this matters). */
#define GASNETE_VIS_LEVELS 64

/* The first handler index a client may register (docs/api.md, Limits). */
#define GASNETE_VIS_CLIENT_FIRST 128

_Static_assert(sizeof(gasnet_memvec_t) == sizeof(gex_Memvec_t) &&
                   offsetof(gasnet_memvec_t, addr) == offsetof(gex_Memvec_t, gex_addr) &&
                   offsetof(gasnet_memvec_t, len) == offsetof(gex_Memvec_t, gex_len),
               "GASNet-1's gasnet_memvec_t is laid out as gex_Memvec_t");
_Static_assert(sizeof(size_t) == sizeof(ptrdiff_t), "GASNet-1 strides (size_t) pass as ptrdiff_t");

/* ---- payload formats ---------------------------------------------------------- */
enum {
  GASNETE_VIS_PIECE_HDR = 12, /* u64 address, u32 length; the bytes follow */
  GASNETE_VIS_GET_ENTRY = 20, /* u64 remote address, then a piece header of the local one */
};
_Static_assert(GASNETE_VIS_RMA_MIN <= UINT32_MAX, "a packed length fits its u32");

static inline void gasnete_vis_put_hdr(char *p, const void *addr, size_t len) {
  uint64_t a = (uintptr_t)addr;
  uint32_t l = (uint32_t)len;
  memcpy(p, &a, 8);
  memcpy(p + 8, &l, 4);
}
/* The length of the piece at p, and its address in *addr. */
static inline size_t gasnete_vis_get_hdr(const char *p, char **addr) {
  uint64_t a;
  uint32_t l;
  memcpy(&a, p, 8);
  memcpy(&l, p + 8, 4);
  *addr = (char *)(uintptr_t)a;
  return l;
}

/* ---- one side of an operation: its runs ------------------------------------------ */
enum { GASNETE_VIS_VEC, GASNETE_VIS_IDX, GASNETE_VIS_STR };

typedef struct {
  int kind;
  const char *list;      /* VEC: gex_Memvec_t[] (or gasnet_memvec_t[]); IDX: void *[] */
  size_t n;              /* entries (VEC, IDX) or elements (STR) */
  size_t len;            /* IDX: bytes per entry; STR: elemsz */
  size_t levels;         /* STR: the levels whose count is above 1 */
  ptrdiff_t stride[GASNETE_VIS_LEVELS];
  size_t count[GASNETE_VIS_LEVELS], at[GASNETE_VIS_LEVELS];
  uintptr_t cur;         /* STR: the next element */
  size_t i;              /* entries or elements taken */
  char *run;             /* the run being consumed, left bytes of it */
  size_t left;
  char *peek;            /* an entry read ahead, peeklen bytes (0: none) */
  size_t peeklen;
} gasnete_vis_side_t;

/* The next non-empty entry of s; 0 at the end. */
static int gasnete_vis_entry(gasnete_vis_side_t *s, char **addr, size_t *len) {
  if (s->kind == GASNETE_VIS_VEC) {
    while (s->i < s->n) {
      gex_Memvec_t v;
      memcpy(&v, s->list + s->i++ * sizeof v, sizeof v);
      if (v.gex_len) {
        *addr = v.gex_addr, *len = v.gex_len;
        return 1;
      }
    }
    return 0;
  }
  if (s->i >= s->n) return 0;
  if (s->kind == GASNETE_VIS_IDX) {
    *addr = ((void *const *)(const void *)s->list)[s->i++], *len = s->len;
    return 1;
  }
  *addr = (char *)s->cur, *len = s->len;
  s->i++;
  for (size_t k = 0; k < s->levels; k++) { /* an odometer, level 0 fastest */
    s->cur += (uintptr_t)s->stride[k];
    if (++s->at[k] < s->count[k]) break;
    s->cur -= (uintptr_t)s->stride[k] * s->count[k];
    s->at[k] = 0;
  }
  return 1;
}

/* Load s's next run (entries that touch, merged); 0 at the end. */
static int gasnete_vis_run(gasnete_vis_side_t *s) {
  char *a, *na;
  size_t l, nl;
  if (s->peeklen) a = s->peek, l = s->peeklen, s->peeklen = 0;
  else if (!gasnete_vis_entry(s, &a, &l)) return 0;
  while (gasnete_vis_entry(s, &na, &nl)) {
    if (na != a + l) {
      s->peek = na, s->peeklen = nl;
      break;
    }
    l += nl;
  }
  s->run = a, s->left = l;
  return 1;
}

typedef struct {
  gasnete_vis_side_t loc, rem;
} gasnete_vis_op_t;

/* The next piece, contiguous on both sides; 0 at the end (the totals are
 * equal, so both sides end together). */
static int gasnete_vis_next(gasnete_vis_op_t *v, char **l, char **r, size_t *len) {
  if (!v->loc.left && !gasnete_vis_run(&v->loc)) return 0;
  if (!v->rem.left && !gasnete_vis_run(&v->rem)) return 0;
  size_t n = v->loc.left < v->rem.left ? v->loc.left : v->rem.left;
  *l = v->loc.run, *r = v->rem.run, *len = n;
  v->loc.run += n, v->loc.left -= n;
  v->rem.run += n, v->rem.left -= n;
  return 1;
}

/* ---- describing the sides (the total bytes of each) ----------------------------- */

static void gasnete_vis_side_init(gasnete_vis_side_t *s, int kind, const void *list, size_t n,
                                  size_t len) {
  s->kind = kind, s->list = list, s->n = n, s->len = len;
  s->levels = 0, s->i = 0, s->left = 0, s->peeklen = 0;
}

static size_t gasnete_vis_vector_side(const char *fname, gasnete_vis_side_t *s, size_t count,
                                      const void *list, const char *what) {
  size_t total = 0;
  gasnete_vis_side_init(s, GASNETE_VIS_VEC, list, count, 0);
  for (size_t i = 0; i < count; i++) {
    gex_Memvec_t v;
    memcpy(&v, (const char *)list + i * sizeof v, sizeof v);
    if (__builtin_add_overflow(total, v.gex_len, &total))
      gasnete_fatal("%s: the lengths of the %s list add up to more than SIZE_MAX bytes", fname,
                    what);
  }
  return total;
}

static size_t gasnete_vis_indexed_side(const char *fname, gasnete_vis_side_t *s, size_t count,
                                       void *const *list, size_t len, const char *what) {
  size_t total;
  gasnete_vis_side_init(s, GASNETE_VIS_IDX, list, count, len);
  if (__builtin_mul_overflow(count, len, &total))
    gasnete_fatal("%s: the %s list's %zu entries of %zu bytes are more than SIZE_MAX bytes",
                  fname, what, count, len);
  return total;
}

/* A strided side of total bytes. Levels of one element are dropped, and
 * a level whose stride is the run so far is folded into the run (the 64
 * touching elements of a row become one entry of 64 * elemsz bytes), so a
 * box walks its contiguous runs, not its elements. */
static void gasnete_vis_strided_side(gasnete_vis_side_t *s, void *addr, const ptrdiff_t *strides,
                                     size_t elemsz, const size_t *count, size_t levels,
                                     size_t total) {
  gasnete_vis_side_init(s, GASNETE_VIS_STR, NULL, 0, elemsz);
  s->cur = (uintptr_t)addr;
  for (size_t k = 0; k < levels; k++) {
    if (count[k] < 2) continue; /* a level of one element moves nothing */
    if (s->levels == 0 && strides[k] == (ptrdiff_t)s->len) {
      s->len *= count[k]; /* the level is contiguous: a longer run */
      continue;
    }
    s->stride[s->levels] = strides[k];
    s->count[s->levels] = count[k];
    s->at[s->levels++] = 0;
  }
  s->n = total / s->len;
}

/* Both sides of a strided operation; the bytes it moves (0: a no-op, and
 * then the addresses and strides are not looked at). */
static size_t gasnete_vis_strided_sides(const char *fname, gasnete_vis_side_t *dst,
                                        void *dstaddr, const ptrdiff_t *dststrides,
                                        gasnete_vis_side_t *src, void *srcaddr,
                                        const ptrdiff_t *srcstrides, size_t elemsz,
                                        const size_t *count, size_t levels) {
  size_t total = elemsz;
  gasnete_vis_side_init(dst, GASNETE_VIS_STR, NULL, 0, elemsz); /* empty until known */
  gasnete_vis_side_init(src, GASNETE_VIS_STR, NULL, 0, elemsz);
  if (elemsz == 0) return 0; /* the description: "all other arguments are ignored" */
  if (GASNETE_UNLIKELY(levels && !count))
    gasnete_fatal("%s: stridelevels = %zu with a NULL count[] (it needs stridelevels entries)",
                  fname, levels);
  for (size_t k = 0; k < levels; k++)
    if (__builtin_mul_overflow(total, count[k], &total))
      gasnete_fatal("%s: elemsz %zu times count[0..%zu] is more than SIZE_MAX bytes "
                    "(stridelevels = %zu)", fname, elemsz, k, levels);
  if (total == 0) return 0; /* a count of 0: a no-op */
  if (GASNETE_UNLIKELY(levels && (!dststrides || !srcstrides)))
    gasnete_fatal("%s: stridelevels = %zu with a NULL %s (it needs stridelevels entries)",
                  fname, levels, dststrides ? "srcstrides[]" : "dststrides[]");
  gasnete_vis_strided_side(dst, dstaddr, dststrides, elemsz, count, levels, total);
  gasnete_vis_strided_side(src, srcaddr, srcstrides, elemsz, count, levels, total);
  return total;
}

/* ---- checks -------------------------------------------------------------------- */

static void gasnete_vis_outside(const char *fname, const gasnete_peer_t *p, const void *addr,
                                size_t len, const char *what, const char *which, size_t i)
    __attribute__((noreturn, cold));
static void gasnete_vis_outside(const char *fname, const gasnete_peer_t *p, const void *addr,
                                size_t len, const char *what, const char *which, size_t i) {
  char name[96];
  if (which) snprintf(name, sizeof name, "%s %s %zu", what, which, i);
  else snprintf(name, sizeof name, "%s box (lowest to highest byte)", what);
  gasnete_check_remote_slow(fname, p, addr, len, name);
}

/* Every piece of the remote side s inside the peer's segment. */
static void gasnete_vis_check_remote(const char *fname, const gasnete_peer_t *p,
                                     const gasnete_vis_side_t *s, const char *what) {
  const gasnet_seginfo_t *seg = &p->seg;
  if (s->kind == GASNETE_VIS_VEC) {
    for (size_t i = 0; i < s->n; i++) {
      gex_Memvec_t v; /* read as bytes: the list may be GASNet-1's gasnet_memvec_t[] */
      memcpy(&v, s->list + i * sizeof v, sizeof v);
      if (v.gex_len && !gasnete_seg_has(seg, v.gex_addr, v.gex_len))
        gasnete_vis_outside(fname, p, v.gex_addr, v.gex_len, what, "list entry", i);
    }
  } else if (s->kind == GASNETE_VIS_IDX) {
    void *const *a = (void *const *)(const void *)s->list;
    for (size_t i = 0; s->len && i < s->n; i++)
      if (!gasnete_seg_has(seg, a[i], s->len))
        gasnete_vis_outside(fname, p, a[i], s->len, what, "list entry", i);
  } else if (s->n) { /* the box: its extremes are elements */
    uintptr_t lo = s->cur, hi = s->cur;
    int wraps = 0;
    for (size_t k = 0; k < s->levels; k++) {
      ptrdiff_t span;
      wraps |= __builtin_mul_overflow(s->stride[k], (ptrdiff_t)(s->count[k] - 1), &span);
      if (span < 0) wraps |= __builtin_sub_overflow(lo, (uintptr_t)-span, &lo);
      else wraps |= __builtin_add_overflow(hi, (uintptr_t)span, &hi);
    }
    wraps |= __builtin_add_overflow(hi, s->len, &hi);
    if (wraps || !gasnete_seg_has(seg, (void *)lo, hi - lo))
      gasnete_vis_outside(fname, p, (void *)lo, wraps ? SIZE_MAX : hi - lo, what, NULL, 0);
  }
}

static void gasnete_vis_mismatch(const char *fname, size_t dst, size_t src, const char *how)
    __attribute__((noreturn, cold));
static void gasnete_vis_mismatch(const char *fname, size_t dst, size_t src, const char *how) {
  gasnete_fatal("%s: the destination holds %zu bytes and the source %zu%s; the two sides of a "
                "VIS operation must hold the same number of bytes", fname, dst, src, how);
}

#define GASNETE_VIS_FLAGS (GEX_FLAG_IMMEDIATE | GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD)

static void gasnete_vis_bad_flags(const char *fname, gex_Flags_t flags)
    __attribute__((noreturn, cold));
static void gasnete_vis_bad_flags(const char *fname, gex_Flags_t flags) {
  if (!(flags & ~(GASNETE_VIS_FLAGS | GEX_FLAG_ENABLE_LEAF_LC)))
    gasnete_fatal("%s: GEX_FLAG_ENABLE_LEAF_LC is for VIS puts only (the description: "
                  "gex_VIS_*Put{NB,NBI})", fname);
  gasnete_fatal("%s: flags %#x: a VIS call takes only GEX_FLAG_IMMEDIATE, "
                "GEX_FLAG_PEER_NEVER_SELF, GEX_FLAG_PEER_NEVER_NBRHD and, for puts, "
                "GEX_FLAG_ENABLE_LEAF_LC", fname, (unsigned)flags);
}

/* ---- moving the data ------------------------------------------------------------- */

/* Target mapped here: each piece is a copy storing each byte once
 * (gasnete_copy_once: a neighbour may be reading or writing it). */
static void gasnete_vis_move_mapped(int op, const gasnete_peer_t *p, gasnete_vis_op_t *v) {
  char *l, *r;
  size_t n;
  while (gasnete_vis_next(v, &l, &r, &n)) {
    char *here = gasnete_peer_addr(p, r);
    if (op == GASNETE_OP_PUT) gasnete_copy_once(here, l, n);
    else gasnete_copy_once(l, here, n);
  }
}

/* The AM being filled with packed pieces, and the operation's counter. */
typedef struct {
  gasnete_counter_t *c;
  const gasnete_peer_t *p;
  int imm;               /* GEX_FLAG_IMMEDIATE, and nothing sent yet */
  gex_AM_SrcDesc_t sd;   /* GEX_AM_SRCDESC_NO_OP: none open */
  char *buf;
  size_t cap, used;      /* its buffer's size and the bytes written */
  size_t reply;          /* get: the bytes its reply will carry */
} gasnete_vis_out_t;

/* Open an AM of at least least bytes; 1 when IMMEDIATE refused it. Never
 * while one is open: waiting polls, and no AM call may come between a
 * Prepare and its Commit. */
static int gasnete_vis_open(gasnete_vis_out_t *o, size_t least) {
  const size_t most = gasnet_AMMaxMedium();
  if (gasnete_window_wait(o->c, most, o->imm)) return 1;
  o->sd = gex_AM_PrepareRequestMedium(o->p->pair, o->p->node, NULL, least, most, NULL,
                                      o->imm ? GEX_FLAG_IMMEDIATE : 0, 2);
  if (o->sd == GEX_AM_SRCDESC_NO_OP) return 1;
  o->buf = gex_AM_SrcDescAddr(o->sd);
  o->cap = gex_AM_SrcDescSize(o->sd);
  o->used = o->reply = 0;
  return 0;
}

/* Send the open AM, if any, counted on the operation's counter: a put's
 * payload bytes, or the bytes a get's reply will bring. */
static void gasnete_vis_flush(gasnete_vis_out_t *o, gex_AM_Index_t handler) {
  if (o->sd == GEX_AM_SRCDESC_NO_OP) return;
  gasnete_count(o->c, handler == GASNETE_H_VIS_PUT ? o->used : o->reply);
  gex_AM_CommitRequestMedium2(o->sd, handler, o->used, GASNETE_HI(o->c), GASNETE_LO(o->c));
  o->sd = GEX_AM_SRCDESC_NO_OP;
  o->imm = 0;
}

/* A large piece as ordinary RMA; 1 when IMMEDIATE refused it. */
static int gasnete_vis_rma(gasnete_vis_out_t *o, int op, char *l, char *r, size_t n) {
  gasnete_vis_flush(o, op == GASNETE_OP_PUT ? GASNETE_H_VIS_PUT : GASNETE_H_VIS_GET_REQ);
  int refused = op == GASNETE_OP_PUT ? gasnete_put_start(o->c, o->p, r, l, n, o->imm, 0)
                                     : gasnete_get_start(o->c, l, o->p, r, n, o->imm);
  if (!refused) o->imm = 0;
  return refused;
}

static int gasnete_vis_put_net(gasnete_vis_op_t *v, gasnete_vis_out_t *o) {
  char *l, *r;
  size_t n;
  while (gasnete_vis_next(v, &l, &r, &n)) {
    if (n >= GASNETE_VIS_RMA_MIN) {
      if (gasnete_vis_rma(o, GASNETE_OP_PUT, l, r, n)) return 1;
      continue;
    }
    size_t need = GASNETE_VIS_PIECE_HDR + n;
    if (o->sd && o->used + need > o->cap) gasnete_vis_flush(o, GASNETE_H_VIS_PUT);
    if (!o->sd && gasnete_vis_open(o, need)) return 1;
    gasnete_vis_put_hdr(o->buf + o->used, r, n);
    memcpy(o->buf + o->used + GASNETE_VIS_PIECE_HDR, l, n);
    o->used += need;
  }
  gasnete_vis_flush(o, GASNETE_H_VIS_PUT);
  return 0;
}

static int gasnete_vis_get_net(gasnete_vis_op_t *v, gasnete_vis_out_t *o) {
  const size_t most = gasnet_AMMaxMedium(); /* of the reply */
  char *l, *r;
  size_t n;
  while (gasnete_vis_next(v, &l, &r, &n)) {
    if (n >= GASNETE_VIS_RMA_MIN) {
      if (gasnete_vis_rma(o, GASNETE_OP_GET, l, r, n)) return 1;
      continue;
    }
    if (o->sd && (o->used + GASNETE_VIS_GET_ENTRY > o->cap ||
                  o->reply + GASNETE_VIS_PIECE_HDR + n > most))
      gasnete_vis_flush(o, GASNETE_H_VIS_GET_REQ);
    if (!o->sd && gasnete_vis_open(o, GASNETE_VIS_GET_ENTRY)) return 1;
    uint64_t ra = (uintptr_t)r;
    memcpy(o->buf + o->used, &ra, 8);
    gasnete_vis_put_hdr(o->buf + o->used + 8, l, n);
    o->used += GASNETE_VIS_GET_ENTRY;
    o->reply += GASNETE_VIS_PIECE_HDR + n;
  }
  gasnete_vis_flush(o, GASNETE_H_VIS_GET_REQ);
  return 0;
}

typedef struct {
  gex_AM_Index_t handler;
  const void *src;
  size_t nbytes;
} gasnete_vis_pc_t;

/* The notification of an armed put, once its data is delivered. */
static void gasnete_vis_pc_send(gasnete_counter_t *c, const gasnete_peer_t *p,
                                const gasnete_vis_pc_t *pc) {
  gasnete_count(c, pc->nbytes);
  gex_AM_RequestMedium3(p->pair, p->node, GASNETE_H_VIS_PC, pc->src, pc->nbytes,
                        GEX_EVENT_NOW, 0, (gasnet_handlerarg_t)pc->handler, GASNETE_HI(c),
                        GASNETE_LO(c));
}

/* Move v's data to or from node, counted on c (unused when node is mapped
 * here and pc is NULL); 1 when IMMEDIATE refused it with nothing sent. */
static int gasnete_vis_start(int op, gasnete_counter_t *c, const gasnete_peer_t *p, int mapped,
                             gasnete_vis_op_t *v, int imm, const gasnete_vis_pc_t *pc) {
  gasnete_counter_t data = { 0 };
  gasnete_vis_out_t o = { .c = pc ? &data : c, .p = p, .imm = imm,
                          .sd = GEX_AM_SRCDESC_NO_OP };
  int refused = 0;
  if (mapped) gasnete_vis_move_mapped(op, p, v);
  else refused = op == GASNETE_OP_PUT ? gasnete_vis_put_net(v, &o) : gasnete_vis_get_net(v, &o);
  if (pc) { /* IMMEDIATE is refused with a peer completion: nothing was refused */
    GASNETE_WAIT_UNTIL(GASNETE_CTR_DONE(&data));
    gasnete_vis_pc_send(c, p, pc);
  }
  return refused;
}

/* ---- the calls: checks, then the operation in its form ------------------------------ */
enum { GASNETE_VIS_BLOCKING, GASNETE_VIS_NB, GASNETE_VIS_NBI };

/* The peer completion armed on this thread, taken by this operation. */
static int gasnete_vis_take_pc(const char *fname, int op, gex_Flags_t flags,
                               gasnete_threaddata_t *td, gasnete_vis_pc_t *pc) {
  if (GASNETE_LIKELY(!td->vis_pc.handler)) return 0;
  if (op == GASNETE_OP_GET)
    gasnete_fatal("%s: a peer completion handler is armed on this thread "
                  "(gex_VIS_SetPeerCompletionHandler), and only VIS puts take one (the "
                  "description: \"only supported for VIS Put operations\")", fname);
  if (flags & GEX_FLAG_IMMEDIATE)
    gasnete_fatal("%s: GEX_FLAG_IMMEDIATE on the VIS put an armed peer completion handler "
                  "binds to (the description: \"may not be passed GEX_FLAG_IMMEDIATE\")", fname);
  pc->handler = td->vis_pc.handler, pc->src = td->vis_pc.src, pc->nbytes = td->vis_pc.nbytes;
  td->vis_pc.handler = 0; /* only the next operation */
  return 1;
}

/* One VIS operation of total bytes (sides described in v) in form; an
 * event for NB, GEX_EVENT_NO_OP when IMMEDIATE refused it, else INVALID. */
static gex_Event_t gasnete_vis(const char *fname, int op, int form, gex_TM_t tm, gex_Rank_t rank,
                               gasnete_vis_op_t *v, size_t total, gex_Flags_t flags) {
  gasnete_threaddata_t *td = gasnete_mythread();
  if (total == 0 && !td->vis_pc.handler) return GEX_EVENT_INVALID; /* a no-op */
  if (GASNETE_UNLIKELY(flags & ~(GASNETE_VIS_FLAGS |
                                 (op == GASNETE_OP_PUT ? GEX_FLAG_ENABLE_LEAF_LC : 0))))
    gasnete_vis_bad_flags(fname, flags);
  gasnete_peer_t p;
  gasnete_peer(&p, fname, tm, rank, GEX_EP_CAPABILITY_VIS);
  gasnete_vis_check_remote(fname, &p, &v->rem,
                           op == GASNETE_OP_PUT ? "destination" : "source");
  gasnete_vis_pc_t pcbuf;
  const gasnete_vis_pc_t *pc = gasnete_vis_take_pc(fname, op, flags, td, &pcbuf) ? &pcbuf : NULL;
  const int mapped = gasnete_peer_mapped(&p);
  if (mapped && !pc) { /* complete at once, in every form */
    gasnete_vis_move_mapped(op, &p, v);
    return GEX_EVENT_INVALID;
  }
  gasnete_counter_t stack = { 0 }, *c = &stack;
  struct gasnete_handle *h = NULL;
  if (form == GASNETE_VIS_NB) h = gasnete_handle_new(td, GASNETE_H_NB), c = &h->ctr;
  if (form == GASNETE_VIS_NBI) c = gasnete_nbi_counter(op == GASNETE_OP_GET);
  int refused = gasnete_vis_start(op, c, &p, mapped, v, (flags & GEX_FLAG_IMMEDIATE) != 0, pc);
  if (form == GASNETE_VIS_BLOCKING && !refused) GASNETE_WAIT_UNTIL(GASNETE_CTR_DONE(c));
  if (h) {
    if (!refused && !GASNETE_CTR_DONE(&h->ctr)) return h;
    gasnete_handle_free(td, h); /* refused, or complete already */
  }
  return refused ? GEX_EVENT_NO_OP : GEX_EVENT_INVALID;
}

/* The local and remote sides of v as an operation's destination and source. */
#define GASNETE_VIS_DST(op, v) ((op) == GASNETE_OP_PUT ? &(v)->rem : &(v)->loc)
#define GASNETE_VIS_SRC(op, v) ((op) == GASNETE_OP_PUT ? &(v)->loc : &(v)->rem)

static gex_Event_t gasnete_vis_vector(const char *fname, int op, int form, gex_TM_t tm,
                                      gex_Rank_t rank, size_t dstcount, const void *dstlist,
                                      size_t srccount, const void *srclist, gex_Flags_t flags) {
  gasnete_vis_op_t v;
  size_t d = gasnete_vis_vector_side(fname, GASNETE_VIS_DST(op, &v), dstcount, dstlist,
                                     "destination");
  size_t s = gasnete_vis_vector_side(fname, GASNETE_VIS_SRC(op, &v), srccount, srclist, "source");
  if (GASNETE_UNLIKELY(d != s)) gasnete_vis_mismatch(fname, d, s, " (the sums of their lists)");
  return gasnete_vis(fname, op, form, tm, rank, &v, d, flags);
}

static gex_Event_t gasnete_vis_indexed(const char *fname, int op, int form, gex_TM_t tm,
                                       gex_Rank_t rank, size_t dstcount, void *const *dstlist,
                                       size_t dstlen, size_t srccount, void *const *srclist,
                                       size_t srclen, gex_Flags_t flags) {
  gasnete_vis_op_t v;
  size_t d = gasnete_vis_indexed_side(fname, GASNETE_VIS_DST(op, &v), dstcount, dstlist, dstlen,
                                      "destination");
  size_t s = gasnete_vis_indexed_side(fname, GASNETE_VIS_SRC(op, &v), srccount, srclist, srclen,
                                      "source");
  if (GASNETE_UNLIKELY(d != s)) {
    char how[96];
    snprintf(how, sizeof how, " (dstcount*dstlen = %zu*%zu, srccount*srclen = %zu*%zu)",
             dstcount, dstlen, srccount, srclen);
    gasnete_vis_mismatch(fname, d, s, how);
  }
  return gasnete_vis(fname, op, form, tm, rank, &v, d, flags);
}

static gex_Event_t gasnete_vis_strided(const char *fname, int op, int form, gex_TM_t tm,
                                       gex_Rank_t rank, void *dstaddr, const ptrdiff_t *dststrides,
                                       void *srcaddr, const ptrdiff_t *srcstrides, size_t elemsz,
                                       const size_t *count, size_t levels, gex_Flags_t flags) {
  gasnete_vis_op_t v;
  size_t total = gasnete_vis_strided_sides(fname, GASNETE_VIS_DST(op, &v), dstaddr, dststrides,
                                           GASNETE_VIS_SRC(op, &v), srcaddr, srcstrides, elemsz,
                                           count, levels);
  return gasnete_vis(fname, op, form, tm, rank, &v, total, flags);
}

/* ---- handlers --------------------------------------------------------------------- */

/* Write every piece {address, length, bytes} of a payload to its address. */
static void gasnete_vis_scatter(const char *p, size_t n) {
  for (const char *end = p + n; p < end;) {
    char *addr;
    size_t len = gasnete_vis_get_hdr(p, &addr);
    memcpy(addr, p + GASNETE_VIS_PIECE_HDR, len);
    p += GASNETE_VIS_PIECE_HDR + len;
  }
}

void gasnete_vis_put_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                             gasnete_arg_t clo) {
  gasnete_vis_scatter(buf, n);
  gex_AM_ReplyShort3(t, GASNETE_H_ACK, 0, chi, clo, (gasnet_handlerarg_t)n);
}

/* Gather the entries' remote bytes into one reply of pieces, written in
 * place in the reply's buffer. */
void gasnete_vis_get_req_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                                 gasnete_arg_t clo) {
  const char *p = buf, *end = p + n;
  char *addr;
  size_t reply = 0;
  for (const char *e = p; e < end; e += GASNETE_VIS_GET_ENTRY)
    reply += GASNETE_VIS_PIECE_HDR + gasnete_vis_get_hdr(e + 8, &addr);
  gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, reply, reply, NULL, 0, 2);
  char *out = gex_AM_SrcDescAddr(sd);
  for (; p < end; p += GASNETE_VIS_GET_ENTRY) {
    uint64_t ra;
    memcpy(&ra, p, 8);
    size_t len = gasnete_vis_get_hdr(p + 8, &addr);
    memcpy(out, p + 8, GASNETE_VIS_PIECE_HDR);
    memcpy(out + GASNETE_VIS_PIECE_HDR, (const void *)(uintptr_t)ra, len);
    out += GASNETE_VIS_PIECE_HDR + len;
  }
  gex_AM_CommitReplyMedium2(sd, GASNETE_H_VIS_GET_REP, reply, chi, clo);
}

void gasnete_vis_get_rep_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                                 gasnete_arg_t clo) {
  (void)t;
  gasnete_vis_scatter(buf, n);
  gasnete_counter_t *c = GASNETE_PTR(chi, clo);
  GASNETE_BYTES_SUB(c, n);
  GASNETE_CTR_SUB1(c); /* release: the copies are visible before the count */
}

/* The data of the put was acknowledged before this was sent, so the
 * client's handler observes it. */
void gasnete_vis_pc_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t handler,
                            gasnete_arg_t chi, gasnete_arg_t clo) {
  gasnetc_handler_run_reply_medium("gex_VIS_SetPeerCompletionHandler", t,
                                   (gex_AM_Index_t)handler, buf, n);
  gex_AM_ReplyShort3(t, GASNETE_H_ACK, 0, chi, clo, (gasnet_handlerarg_t)n);
}

/* ---- GASNet-EX -------------------------------------------------------------------------
 * Each kind in three forms: NB returns the event, NBI and Blocking whether
 * IMMEDIATE refused it. PARAMS is the public parameter list, ARGS what the
 * kind's function takes after (fname, op, form). */
#define GASNETE_VIS_ARGS(...) __VA_ARGS__
#define GASNETE_VIS_EX(Name, kind, op, PARAMS, ARGS)                                       \
  gex_Event_t gex_VIS_##Name##NB PARAMS {                                                  \
    return kind("gex_VIS_" #Name "NB", op, GASNETE_VIS_NB, GASNETE_VIS_ARGS ARGS);         \
  }                                                                                        \
  int gex_VIS_##Name##NBI PARAMS {                                                         \
    return kind("gex_VIS_" #Name "NBI", op, GASNETE_VIS_NBI, GASNETE_VIS_ARGS ARGS) ==     \
           GEX_EVENT_NO_OP;                                                                \
  }                                                                                        \
  int gex_VIS_##Name##Blocking PARAMS {                                                    \
    return kind("gex_VIS_" #Name "Blocking", op, GASNETE_VIS_BLOCKING,                     \
                GASNETE_VIS_ARGS ARGS) == GEX_EVENT_NO_OP;                                 \
  }

GASNETE_VIS_EX(VectorPut, gasnete_vis_vector, GASNETE_OP_PUT,
               (gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount, gex_Memvec_t const dstlist[],
                size_t srccount, gex_Memvec_t const srclist[], gex_Flags_t flags),
               (tm, dstrank, dstcount, dstlist, srccount, srclist, flags))
GASNETE_VIS_EX(VectorGet, gasnete_vis_vector, GASNETE_OP_GET,
               (gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[], gex_Rank_t srcrank,
                size_t srccount, gex_Memvec_t const srclist[], gex_Flags_t flags),
               (tm, srcrank, dstcount, dstlist, srccount, srclist, flags))
GASNETE_VIS_EX(IndexedPut, gasnete_vis_indexed, GASNETE_OP_PUT,
               (gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount, void *const dstlist[],
                size_t dstlen, size_t srccount, void *const srclist[], size_t srclen,
                gex_Flags_t flags),
               (tm, dstrank, dstcount, dstlist, dstlen, srccount, srclist, srclen, flags))
GASNETE_VIS_EX(IndexedGet, gasnete_vis_indexed, GASNETE_OP_GET,
               (gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                gex_Rank_t srcrank, size_t srccount, void *const srclist[], size_t srclen,
                gex_Flags_t flags),
               (tm, srcrank, dstcount, dstlist, dstlen, srccount, srclist, srclen, flags))
GASNETE_VIS_EX(StridedPut, gasnete_vis_strided, GASNETE_OP_PUT,
               (gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr, const ptrdiff_t dststrides[],
                void *srcaddr, const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                size_t stridelevels, gex_Flags_t flags),
               (tm, dstrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz, count,
                stridelevels, flags))
GASNETE_VIS_EX(StridedGet, gasnete_vis_strided, GASNETE_OP_GET,
               (gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[], gex_Rank_t srcrank,
                void *srcaddr, const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                size_t stridelevels, gex_Flags_t flags),
               (tm, srcrank, dstaddr, dststrides, srcaddr, srcstrides, elemsz, count,
                stridelevels, flags))

void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                      size_t nbytes, gex_Flags_t flags) {
  static const char fname[] = "gex_VIS_SetPeerCompletionHandler";
  gasnete_threaddata_t *td = gasnete_mythread();
  if (GASNETE_UNLIKELY(flags))
    gasnete_fatal("%s: flags %#x: the description reserves them; pass 0", fname,
                  (unsigned)flags);
  if (handler != 0 && handler < GASNETE_VIS_CLIENT_FIRST)
    gasnete_fatal("%s: handler %u is not a client handler index (%d..255)", fname,
                  (unsigned)handler, GASNETE_VIS_CLIENT_FIRST);
  if (GASNETE_UNLIKELY(handler && nbytes > GEX_VIS_MAX_PEERCOMPLETION))
    gasnete_fatal("%s: nbytes = %zu is above GEX_VIS_MAX_PEERCOMPLETION = %zu", fname, nbytes,
                  GEX_VIS_MAX_PEERCOMPLETION);
  td->vis_pc.handler = handler; /* 0 disarms */
  td->vis_pc.src = handler && nbytes ? source_addr : NULL;
  td->vis_pc.nbytes = handler ? nbytes : 0;
}

/* ---- GASNet-1: each call one EX operation on the primordial team ------------------------
 * (its rank i is node i; gasnete_gasnet1.c says why through the named
 * forms). Strided: GASNet-1's count[0] is EX's elemsz, count[1..] EX's
 * count[], and its size_t strides are read as the ptrdiff_t they equal. */
#define GASNETE_VIS_G1(name, kind, op, PARAMS, ARGS)                                       \
  gasnet_handle_t name##_nb_bulk PARAMS {                                                  \
    return kind(#name "_nb_bulk", op, GASNETE_VIS_NB, gasnete_g.tm0, GASNETE_VIS_ARGS ARGS); \
  }                                                                                        \
  void name##_nbi_bulk PARAMS {                                                            \
    kind(#name "_nbi_bulk", op, GASNETE_VIS_NBI, gasnete_g.tm0, GASNETE_VIS_ARGS ARGS);    \
  }                                                                                        \
  void name##_bulk PARAMS {                                                                \
    kind(#name "_bulk", op, GASNETE_VIS_BLOCKING, gasnete_g.tm0, GASNETE_VIS_ARGS ARGS);   \
  }
#define GASNETE_VIS_G1_STRIDES(s) ((const ptrdiff_t *)(const void *)(s))

GASNETE_VIS_G1(gasnet_putv, gasnete_vis_vector, GASNETE_OP_PUT,
               (gasnet_node_t dstnode, size_t dstcount, gasnet_memvec_t const dstlist[],
                size_t srccount, gasnet_memvec_t const srclist[]),
               (dstnode, dstcount, dstlist, srccount, srclist, 0))
GASNETE_VIS_G1(gasnet_getv, gasnete_vis_vector, GASNETE_OP_GET,
               (size_t dstcount, gasnet_memvec_t const dstlist[], gasnet_node_t srcnode,
                size_t srccount, gasnet_memvec_t const srclist[]),
               (srcnode, dstcount, dstlist, srccount, srclist, 0))
GASNETE_VIS_G1(gasnet_puti, gasnete_vis_indexed, GASNETE_OP_PUT,
               (gasnet_node_t dstnode, size_t dstcount, void *const dstlist[], size_t dstlen,
                size_t srccount, void *const srclist[], size_t srclen),
               (dstnode, dstcount, dstlist, dstlen, srccount, srclist, srclen, 0))
GASNETE_VIS_G1(gasnet_geti, gasnete_vis_indexed, GASNETE_OP_GET,
               (size_t dstcount, void *const dstlist[], size_t dstlen, gasnet_node_t srcnode,
                size_t srccount, void *const srclist[], size_t srclen),
               (srcnode, dstcount, dstlist, dstlen, srccount, srclist, srclen, 0))
GASNETE_VIS_G1(gasnet_puts, gasnete_vis_strided, GASNETE_OP_PUT,
               (gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[], void *srcaddr,
                const size_t srcstrides[], const size_t count[], size_t stridelevels),
               (dstnode, dstaddr, GASNETE_VIS_G1_STRIDES(dststrides), srcaddr,
                GASNETE_VIS_G1_STRIDES(srcstrides), count[0], count + 1, stridelevels, 0))
GASNETE_VIS_G1(gasnet_gets, gasnete_vis_strided, GASNETE_OP_GET,
               (void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode, void *srcaddr,
                const size_t srcstrides[], const size_t count[], size_t stridelevels),
               (srcnode, dstaddr, GASNETE_VIS_G1_STRIDES(dststrides), srcaddr,
                GASNETE_VIS_G1_STRIDES(srcstrides), count[0], count + 1, stridelevels, 0))
