/*
 * gasnete_rma.c - GASNet-EX remote memory access (the description's
 * "Extended API"): put and get in blocking, NB (explicit event) and NBI
 * (implicit event) forms, value forms, and GASNet-1's memset, all over the
 * protocol of gasnete_putget.c.
 *
 * Each shape is one function taking the caller's public name, so the
 * gex_RMA_* calls below and the GASNet-1 calls of gasnete_gasnet1.c share
 * every line and an error still names the call the client made.
 *
 * What the description leaves to us, decided here:
 *  - A put with lc_opt GEX_EVENT_NOW, GEX_EVENT_GROUP or an event pointer
 *    is locally complete when its initiation returns: the core has copied
 *    its payload, or sent it, before a request returns, and an lc_opt
 *    pointer receives GEX_EVENT_INVALID ("already complete"). With
 *    GEX_EVENT_DEFER (GASNet-1's bulk NB and NBI puts), and in a blocking
 *    put, the source is left alone until the operation is synced, so the
 *    transport may send from it instead of copying it: over UDP a chunk of
 *    64 KiB or more is, and its sync waits until the target has
 *    acknowledged every datagram of it (usually with the reply that
 *    completes it remotely: docs/performance.md).
 *  - GEX_FLAG_IMMEDIATE refuses (returns non-zero / GEX_EVENT_NO_OP, nothing
 *    sent) only when the first AM of the operation would wait: for the
 *    pipeline window or for the transport (gasnete_put_start).
 *  - A rank that is this process, or a neighbour whose segment is mapped
 *    here (core/gasnetc_segment.c), is a copy in memory, complete at once,
 *    that stores each byte once (gasnete_copy_once, below).
 *  - nbytes == 0 is complete at once, whatever the addresses.
 */
#include <string.h>

#include "gasnete_internal.h"

/* Flags an RMA call accepts; PEER_NEVER_* are hints we need not use, and
 * so are the segment assertions that hold here anyway: local memory may lie
 * anywhere (SELF_SEG_BOUND, _SOME, _UNKNOWN), remote memory lies in the
 * bound segment (PEER_SEG_BOUND). The rest (offsets, remote memory outside
 * the bound segment) are refused. */
#define GASNETE_RMA_FLAGS                                                             \
  (GEX_FLAG_IMMEDIATE | GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD |           \
   GEX_FLAG_SELF_SEG_BOUND | GEX_FLAG_SELF_SEG_SOME | GEX_FLAG_SELF_SEG_UNKNOWN |         \
   GEX_FLAG_PEER_SEG_BOUND)

static void gasnete_rma_bad_flags(const char *fname, gex_Flags_t flags)
    __attribute__((noreturn, cold));
static void gasnete_rma_bad_flags(const char *fname, gex_Flags_t flags) {
  if (flags & GASNETE_SEG_FLAGS)
    gasnete_fatal("%s: flags %#x include GEX_FLAG_*_SEG_OFFSET, GEX_FLAG_PEER_SEG_SOME or "
                  "_UNKNOWN, which the description marks [UNIMPLEMENTED]", fname,
                  (unsigned)flags);
  gasnete_fatal("%s: flags %#x: an RMA call takes only GEX_FLAG_IMMEDIATE, "
                "GEX_FLAG_PEER_NEVER_SELF and GEX_FLAG_PEER_NEVER_NBRHD", fname, (unsigned)flags);
}

/* The job rank of (tm, rank), with the checks every call shares. */
static inline void gasnete_rma_peer(gasnete_peer_t *p, const char *fname, gex_TM_t tm,
                                    gex_Rank_t rank, gex_Flags_t flags) {
  if (GASNETE_UNLIKELY(flags & ~GASNETE_RMA_FLAGS)) gasnete_rma_bad_flags(fname, flags);
  gasnete_peer(p, fname, tm, rank, GEX_EP_CAPABILITY_RMA);
}

/* ---- copies in memory a neighbour shares ---------------------------------------
 * memmove promises neither how often nor how wide it touches a byte, and
 * glibc's copies 4 to 7 bytes with two overlapping 4-byte loads and stores:
 * a 4-byte put stores its word twice. In a segment two processes map, that
 * breaks the oldest client pattern there is, a lock word handed between
 * ranks with value puts and polled with value gets (Berkeley's testacc):
 * rank 1 stores "rank 0's turn" once, rank 0 sees it, does its critical
 * section and stores "rank 1's turn", then rank 1's second store of the
 * same old value lands (rank 1 was preempted between its two stores) and
 * undoes it: rank 0 owns the lock again while rank 1 waits, and the
 * accumulator behind the lock skips a turn. So each destination byte is
 * stored once, in ascending order, in the widest aligned access that fits
 * (an aligned 2-, 4- or 8-byte value is one access, which the hardware
 * makes atomic), through atomic stores the compiler may not merge into a
 * memcpy call. Past GASNETE_ONCE_MAX bytes the transfer is bulk data, which
 * clients guard with a flag of its own, and memmove's speed matters more. */
static inline size_t gasnete_once_width(uintptr_t d, size_t n) {
  size_t w = 8;
  while (w > n || (d & (w - 1))) w >>= 1;
  return w;
}

static inline int gasnete_once_overlap(const void *a, const void *b, size_t n) {
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x < y + n && y < x + n;
}

/* Store the w bytes of v (in memory order) at d in one access. */
static inline void gasnete_once_store(char *d, const void *v, size_t w) {
  uint64_t q; uint32_t l; uint16_t h;
  switch (w) {
  case 8: memcpy(&q, v, 8); __atomic_store_n((uint64_t *)(void *)d, q, __ATOMIC_RELAXED); break;
  case 4: memcpy(&l, v, 4); __atomic_store_n((uint32_t *)(void *)d, l, __ATOMIC_RELAXED); break;
  case 2: memcpy(&h, v, 2); __atomic_store_n((uint16_t *)(void *)d, h, __ATOMIC_RELAXED); break;
  default: __atomic_store_n((uint8_t *)d, *(const uint8_t *)v, __ATOMIC_RELAXED); break;
  }
}

void gasnete_copy_once(void *dst, const void *src, size_t n) {
  if (n > GASNETE_ONCE_MAX || gasnete_once_overlap(dst, src, n)) {
    memmove(dst, src, n);
    return;
  }
  char *d = dst;
  const char *s = src;
  uint64_t v;
  while (n && ((uintptr_t)d & 7)) { /* up to the first aligned word */
    size_t w = gasnete_once_width((uintptr_t)d, n);
    memcpy(&v, s, w); /* one load of the source: a get's is shared too */
    gasnete_once_store(d, &v, w);
    d += w, s += w, n -= w;
  }
  for (; n >= 8; d += 8, s += 8, n -= 8) { /* the aligned words, one store each */
    memcpy(&v, s, 8);
    __atomic_store_n((uint64_t *)(void *)d, v, __ATOMIC_RELAXED);
  }
  while (n) { /* the tail */
    size_t w = gasnete_once_width((uintptr_t)d, n);
    memcpy(&v, s, w);
    gasnete_once_store(d, &v, w);
    d += w, s += w, n -= w;
  }
}

void gasnete_set_once(void *dst, int val, size_t n) {
  if (n > GASNETE_ONCE_MAX) {
    memset(dst, val, n);
    return;
  }
  uint64_t pattern = 0x0101010101010101u * (uint8_t)val;
  for (char *d = dst; n;) {
    size_t w = gasnete_once_width((uintptr_t)d, n);
    gasnete_once_store(d, &pattern, w);
    d += w, n -= w;
  }
}

enum { GASNETE_RMA_DONE = 0, GASNETE_RMA_STARTED, GASNETE_RMA_REFUSED };

/* Checks, loopback, then the AMs on counter c (unused unless STARTED);
 * borrow: a put's source may be read until c is done (gasnete_put_start). */
static inline int gasnete_rma(const char *fname, int op, gasnete_counter_t *c,
                              const gasnete_peer_t *p, void *local, void *remote, int val,
                              size_t nbytes, gex_Flags_t flags, int borrow) {
  if (GASNETE_UNLIKELY(nbytes == 0)) return GASNETE_RMA_DONE;
  gasnete_check_remote(fname, p, remote, nbytes,
                       op == GASNETE_OP_GET ? "source" : "destination");
  if (GASNETC_TRACING(op == GASNETE_OP_GET ? 'G' : 'P'))
    gasnetc_trace_rma(op != GASNETE_OP_GET, p->node, nbytes, gasnete_peer_mapped(p));
  if (gasnete_peer_mapped(p)) {
    /* this process, or a neighbour whose segment is mapped here */
    char *here = gasnete_peer_addr(p, remote);
    if (op == GASNETE_OP_PUT) gasnete_copy_once(here, local, nbytes);
    else if (op == GASNETE_OP_GET) gasnete_copy_once(local, here, nbytes);
    else gasnete_set_once(here, val, nbytes);
    return GASNETE_RMA_DONE;
  }
  const int imm = (flags & GEX_FLAG_IMMEDIATE) != 0;
  int refused = op == GASNETE_OP_PUT   ? gasnete_put_start(c, p, remote, local, nbytes, imm, borrow)
                : op == GASNETE_OP_GET ? gasnete_get_start(c, local, p, remote, nbytes, imm)
                                       : gasnete_memset_start(c, p, remote, val, nbytes, imm);
  return refused ? GASNETE_RMA_REFUSED : GASNETE_RMA_STARTED;
}

/* lc_opt of a put: NOW, DEFER, or (NB) an event pointer / (NBI) GROUP. */
static inline void gasnete_rma_lc(const char *fname, int nbi, gex_Event_t *lc_opt) {
  if (lc_opt == GEX_EVENT_NOW || lc_opt == GEX_EVENT_DEFER) return;
  if (nbi && lc_opt == GEX_EVENT_GROUP) return;
  if (GASNETE_UNLIKELY(!lc_opt || nbi || lc_opt == GEX_EVENT_GROUP))
    gasnete_fatal("%s: lc_opt %p: pass GEX_EVENT_NOW, GEX_EVENT_DEFER or %s (the description, "
                  "Extended API NOTE 2%s)", fname, (void *)lc_opt,
                  nbi ? "GEX_EVENT_GROUP" : "the address of a gex_Event_t", nbi ? "a" : "b");
  *lc_opt = GEX_EVENT_INVALID; /* complete: see the top of this file */
}

int gasnete_rma_blocking(const char *fname, int op, gex_TM_t tm, gex_Rank_t rank,
                         void *local, void *remote, int val, size_t nbytes, gex_Flags_t flags) {
  gasnete_peer_t p;
  gasnete_rma_peer(&p, fname, tm, rank, flags);
  gasnete_counter_t c = { 0 };
  int rc = gasnete_rma(fname, op, &c, &p, local, remote, val, nbytes, flags, 1);
  if (rc == GASNETE_RMA_STARTED) GASNETE_WAIT_UNTIL(GASNETE_CTR_DONE(&c));
  return rc == GASNETE_RMA_REFUSED;
}

gex_Event_t gasnete_rma_nb(const char *fname, int op, gex_TM_t tm, gex_Rank_t rank, void *local,
                           void *remote, int val, size_t nbytes, gex_Event_t *lc_opt,
                           gex_Flags_t flags) {
  gasnete_peer_t p;
  gasnete_rma_peer(&p, fname, tm, rank, flags);
  if (op != GASNETE_OP_GET) gasnete_rma_lc(fname, 0, lc_opt);
  if (nbytes == 0 || gasnete_peer_mapped(&p)) {
    gasnete_rma(fname, op, NULL, &p, local, remote, val, nbytes, flags, 0);
    return GEX_EVENT_INVALID;
  }
  gasnete_threaddata_t *td = gasnete_mythread();
  struct gasnete_handle *h = gasnete_handle_new(td, GASNETE_H_NB);
  int rc = gasnete_rma(fname, op, &h->ctr, &p, local, remote, val, nbytes, flags,
                       lc_opt == GEX_EVENT_DEFER);
  if (rc == GASNETE_RMA_STARTED && !GASNETE_CTR_DONE(&h->ctr)) return h;
  gasnete_handle_free(td, h); /* refused, or complete already (the send may poll) */
  return rc == GASNETE_RMA_REFUSED ? GEX_EVENT_NO_OP : GEX_EVENT_INVALID;
}

int gasnete_rma_nbi(const char *fname, int op, gex_TM_t tm, gex_Rank_t rank, void *local,
                    void *remote, int val, size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags) {
  gasnete_peer_t p;
  gasnete_rma_peer(&p, fname, tm, rank, flags);
  if (op != GASNETE_OP_GET) gasnete_rma_lc(fname, 1, lc_opt);
  if (nbytes == 0) return 0;
  gasnete_counter_t *c = gasnete_peer_mapped(&p) ? NULL : gasnete_nbi_counter(op == GASNETE_OP_GET);
  return gasnete_rma(fname, op, c, &p, local, remote, val, nbytes, flags,
                     lc_opt == GEX_EVENT_DEFER) ==
         GASNETE_RMA_REFUSED;
}

/* ---- value operations --------------------------------------------------------
 * Spec 1.8 3.4.1.1 / 3.4.2.1: the bytes are the 8*nbytes low-order bits of
 * the value in this host's byte order for an nbytes-wide integer, and a
 * fetched value is zero-extended: on a big-endian host the low-order bytes
 * are the last ones of the value. */
void gasnete_val_check(const char *fname, size_t nbytes) {
  if (GASNETE_UNLIKELY(nbytes == 0 || nbytes > SIZEOF_GEX_RMA_VALUE_T))
    gasnete_fatal("%s: nbytes = %zu; value operations need 0 < nbytes <= %s = %d "
                  "(spec 1.8 3.4)", fname, nbytes,
                  GASNETE_IS_GASNET1(fname) ? "SIZEOF_GASNET_REGISTER_VALUE_T"
                                            : "SIZEOF_GEX_RMA_VALUE_T",
                  SIZEOF_GEX_RMA_VALUE_T);
}
void gasnete_val_to_bytes(void *p, gex_RMA_Value_t v, size_t n) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  memcpy(p, (char *)&v + sizeof v - n, n);
#else
  memcpy(p, &v, n);
#endif
}
gex_RMA_Value_t gasnete_val_from_bytes(const void *p, size_t n) {
  gex_RMA_Value_t v = 0;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  memcpy((char *)&v + sizeof v - n, p, n);
#else
  memcpy(&v, p, n);
#endif
  return v;
}

/* ---- the GASNet-EX calls ------------------------------------------------------ */

int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                        size_t nbytes, gex_Flags_t flags) {
  return gasnete_rma_blocking("gex_RMA_PutBlocking", GASNETE_OP_PUT, tm, rank, (void *)src,
                              dest, 0, nbytes, flags);
}
int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                   gex_Event_t *lc_opt, gex_Flags_t flags) {
  return gasnete_rma_nbi("gex_RMA_PutNBI", GASNETE_OP_PUT, tm, rank, (void *)src, dest, 0,
                         nbytes, lc_opt, flags);
}
gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                          size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags) {
  return gasnete_rma_nb("gex_RMA_PutNB", GASNETE_OP_PUT, tm, rank, (void *)src, dest, 0, nbytes,
                        lc_opt, flags);
}
int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                        gex_Flags_t flags) {
  return gasnete_rma_blocking("gex_RMA_GetBlocking", GASNETE_OP_GET, tm, rank, dest, src, 0,
                              nbytes, flags);
}
int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                   gex_Flags_t flags) {
  return gasnete_rma_nbi("gex_RMA_GetNBI", GASNETE_OP_GET, tm, rank, dest, src, 0, nbytes, NULL,
                         flags);
}
gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags) {
  return gasnete_rma_nb("gex_RMA_GetNB", GASNETE_OP_GET, tm, rank, dest, src, 0, nbytes, NULL,
                        flags);
}

gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes,
                                       gex_Flags_t flags) {
  uint64_t buf = 0;
  gasnete_val_check("gex_RMA_GetBlockingVal", nbytes);
  if (flags & GEX_FLAG_IMMEDIATE) /* a value has no "no op" return: wait instead */
    flags &= ~GEX_FLAG_IMMEDIATE;
  gasnete_rma_blocking("gex_RMA_GetBlockingVal", GASNETE_OP_GET, tm, rank, &buf, src, 0,
                       nbytes, flags);
  return gasnete_val_from_bytes(&buf, nbytes);
}
/* The value's bytes live on this stack frame: the core has copied them
 * when the request returns, so every shape may return at once. */
int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                           size_t nbytes, gex_Flags_t flags) {
  uint64_t buf;
  gasnete_val_check("gex_RMA_PutBlockingVal", nbytes);
  gasnete_val_to_bytes(&buf, value, nbytes);
  return gasnete_rma_blocking("gex_RMA_PutBlockingVal", GASNETE_OP_PUT, tm, rank, &buf, dest,
                              0, nbytes, flags);
}
int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                      size_t nbytes, gex_Flags_t flags) {
  uint64_t buf;
  gasnete_val_check("gex_RMA_PutNBIVal", nbytes);
  gasnete_val_to_bytes(&buf, value, nbytes);
  return gasnete_rma_nbi("gex_RMA_PutNBIVal", GASNETE_OP_PUT, tm, rank, &buf, dest, 0, nbytes,
                         GEX_EVENT_NOW, flags);
}
gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags) {
  uint64_t buf;
  gasnete_val_check("gex_RMA_PutNBVal", nbytes);
  gasnete_val_to_bytes(&buf, value, nbytes);
  return gasnete_rma_nb("gex_RMA_PutNBVal", GASNETE_OP_PUT, tm, rank, &buf, dest, 0, nbytes,
                        GEX_EVENT_NOW, flags);
}
