/*
 * gasnete_putget.c - memory-to-memory transfers (spec 3.2, 3.3.2, 3.3.4)
 * and register-memory (value) operations (spec 3.4), over core AMs.
 *
 * Protocols (one AM round trip per chunk, counted in a gasnete_counter_t):
 *   put     Long request of <= gasnet_AMMaxLongRequest() bytes straight into
 *           the target's segment; the handler replies Short ACK.
 *   get     Short request; the target replies with the bytes: a Long reply
 *           (<= gasnet_AMMaxLongReply()) when the whole local destination
 *           lies in our own segment (the core only lets a Long land there),
 *           else Medium replies (<= gasnet_AMMaxMedium()) that the reply
 *           handler copies out.
 *   memset  one Short request; the target runs memset and replies ACK.
 * A transfer larger than a chunk (min(1 MiB, GASNET_EXT_PIPELINE_BYTES / 2)
 * for puts and Long gets, 64 KiB for Medium gets) is split; chunks are sent
 * back to back, keeping at most GASNET_EXT_PIPELINE_BYTES of payload in
 * flight per counter, so a 16 MiB put is a pipeline of at least two chunks
 * in flight, not 16 serialized round trips. A transfer whose
 * node is this node is a plain memmove/memset (spec 3.1: loopback must work;
 * it costs no message). nbytes == 0 is a no-op everywhere.
 */
#include <string.h>

#include "gasnete_internal.h"

/* ---- handlers (64..127) -------------------------------------------------- */

void gasnete_put_req_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                             gasnete_arg_t clo) {
  (void)buf; /* the core already wrote the payload to its destination */
  gasnet_AMReplyShort3(t, GASNETE_H_ACK, chi, clo, (gasnet_handlerarg_t)n);
}

void gasnete_ack_handler(gasnet_token_t t, gasnete_arg_t chi, gasnete_arg_t clo,
                         gasnete_arg_t nbytes) {
  (void)t;
  gasnete_counter_t *c = GASNETE_PTR(chi, clo);
  GASNETE_BYTES_SUB(c, (uint32_t)nbytes);
  GASNETE_CTR_SUB1(c); /* last touch: the owner may reuse c right after */
}

void gasnete_get_req_handler(gasnet_token_t t, gasnete_arg_t shi, gasnete_arg_t slo,
                             gasnete_arg_t n, gasnete_arg_t dhi, gasnete_arg_t dlo,
                             gasnete_arg_t chi, gasnete_arg_t clo, gasnete_arg_t uselong) {
  void *src = GASNETE_PTR(shi, slo);
  size_t nbytes = (uint32_t)n;
  if (uselong)
    gasnet_AMReplyLong2(t, GASNETE_H_GET_REP_LONG, src, nbytes, GASNETE_PTR(dhi, dlo), chi, clo);
  else
    gasnet_AMReplyMedium4(t, GASNETE_H_GET_REP_MED, src, nbytes, dhi, dlo, chi, clo);
}

void gasnete_get_rep_med_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t dhi,
                                 gasnete_arg_t dlo, gasnete_arg_t chi, gasnete_arg_t clo) {
  (void)t;
  memcpy(GASNETE_PTR(dhi, dlo), buf, n);
  gasnete_counter_t *c = GASNETE_PTR(chi, clo);
  GASNETE_BYTES_SUB(c, n);
  GASNETE_CTR_SUB1(c); /* release: the copy is visible before the count */
}

void gasnete_get_rep_long_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                                  gasnete_arg_t clo) {
  (void)t; (void)buf;
  gasnete_counter_t *c = GASNETE_PTR(chi, clo);
  GASNETE_BYTES_SUB(c, n);
  GASNETE_CTR_SUB1(c);
}

void gasnete_memset_req_handler(gasnet_token_t t, gasnete_arg_t dhi, gasnete_arg_t dlo,
                                gasnete_arg_t val, gasnete_arg_t nhi, gasnete_arg_t nlo,
                                gasnete_arg_t chi, gasnete_arg_t clo) {
  memset(GASNETE_PTR(dhi, dlo), (int)val, (size_t)GASNETE_U64(nhi, nlo));
  gasnet_AMReplyShort3(t, GASNETE_H_ACK, chi, clo, 0);
}

/* ---- starting the AMs of one operation ----------------------------------- */

/* The pipeline window: before another len bytes go out on counter c, wait
 * until they fit in GASNET_EXT_PIPELINE_BYTES with what c has in flight
 * (always admit one message on an idle counter). This bounds what a large
 * transfer, or a stream of nbi operations, queues in the transport, while
 * keeping chunks back to back: a chunk leaves as soon as an older one is
 * acknowledged, never one round trip at a time. */
static inline void gasnete_window_wait(gasnete_counter_t *c, size_t len) {
  const size_t limit = gasnete_g.pipeline_bytes;
  if (GASNETE_LIKELY(GASNETE_BYTES_LOAD(c) + len <= limit)) return;
  GASNETE_WAIT_UNTIL(GASNETE_BYTES_LOAD(c) == 0 || GASNETE_BYTES_LOAD(c) + len <= limit);
}

void gasnete_put_start(gasnete_counter_t *c, gasnet_node_t node, void *dest, void *src,
                       size_t nbytes) {
  const size_t chunk = gasnete_g.put_chunk;
  for (size_t off = 0; off < nbytes; off += chunk) {
    size_t len = nbytes - off < chunk ? nbytes - off : chunk;
    gasnete_window_wait(c, len);
    GASNETE_BYTES_ADD(c, len);
    GASNETE_CTR_ADD(c, 1);
    gasnet_AMRequestLong2(node, GASNETE_H_PUT_REQ, (char *)src + off, len, (char *)dest + off,
                          GASNETE_HI(c), GASNETE_LO(c));
  }
}

void gasnete_get_start(gasnete_counter_t *c, void *dest, gasnet_node_t node, void *src,
                       size_t nbytes) {
  const int uselong = gasnete_in_segment(gasnete_g.mynode, dest, nbytes);
  const size_t chunk = uselong ? gasnete_g.get_chunk : gasnet_AMMaxMedium();
  for (size_t off = 0; off < nbytes; off += chunk) {
    size_t len = nbytes - off < chunk ? nbytes - off : chunk;
    gasnete_window_wait(c, len);
    char *s = (char *)src + off, *d = (char *)dest + off;
    GASNETE_BYTES_ADD(c, len);
    GASNETE_CTR_ADD(c, 1);
    gasnet_AMRequestShort8(node, GASNETE_H_GET_REQ, GASNETE_HI(s), GASNETE_LO(s),
                           (gasnet_handlerarg_t)len, GASNETE_HI(d), GASNETE_LO(d),
                           GASNETE_HI(c), GASNETE_LO(c), uselong);
  }
}

void gasnete_memset_start(gasnete_counter_t *c, gasnet_node_t node, void *dest, int val,
                          size_t nbytes) {
  GASNETE_CTR_ADD(c, 1);
  gasnet_AMRequestShort7(node, GASNETE_H_MEMSET_REQ, GASNETE_HI(dest), GASNETE_LO(dest),
                         (gasnet_handlerarg_t)val, GASNETE_HI(nbytes), GASNETE_LO(nbytes),
                         GASNETE_HI(c), GASNETE_LO(c));
}

/* ---- the public calls, three shapes each --------------------------------- */

/* Where the calling thread counts an implicit-handle operation (3.3.4, 3.3.6). */
static inline gasnete_counter_t *gasnete_nbi_counter(int isget) {
  gasnete_threaddata_t *td = gasnete_mythread();
  if (td->region) return &td->region->ctr;
  return isget ? &td->nbi_gets : &td->nbi_puts;
}

/* An explicit handle for an operation started on h's counter: if it already
 * completed (the send may poll), hand back GASNET_INVALID_HANDLE (3.3.2). */
static inline gasnet_handle_t gasnete_handle_result(gasnete_threaddata_t *td,
                                                    struct gasnete_handle *h) {
  if (GASNETE_CTR_DONE(&h->ctr)) {
    gasnete_handle_free(td, h);
    return GASNET_INVALID_HANDLE;
  }
  return h;
}

enum { GASNETE_OP_PUT, GASNETE_OP_GET, GASNETE_OP_MEMSET };

/* Checks, loopback, then starts the AMs on counter c (which may be NULL
 * when node is this node). Returns 1 when AMs were started, 0 when the
 * operation is already complete. */
static inline int gasnete_op(const char *fname, int op, gasnete_counter_t *c,
                             gasnet_node_t node, void *local, void *remote, int val,
                             size_t nbytes) {
  if (GASNETE_UNLIKELY(nbytes == 0)) return 0;
  gasnete_check_remote(fname, node, remote, nbytes,
                       op == GASNETE_OP_GET ? "source" : "destination");
  if (node == gasnete_g.mynode) {
    if (op == GASNETE_OP_PUT) memmove(remote, local, nbytes);
    else if (op == GASNETE_OP_GET) memmove(local, remote, nbytes);
    else memset(remote, val, nbytes);
    return 0;
  }
  if (op == GASNETE_OP_PUT) gasnete_put_start(c, node, remote, local, nbytes);
  else if (op == GASNETE_OP_GET) gasnete_get_start(c, local, node, remote, nbytes);
  else gasnete_memset_start(c, node, remote, val, nbytes);
  return 1;
}

static inline void gasnete_op_blocking(const char *fname, int op, gasnet_node_t node,
                                       void *local, void *remote, int val, size_t nbytes) {
  gasnete_counter_t c = { 0 };
  if (gasnete_op(fname, op, &c, node, local, remote, val, nbytes))
    GASNETE_WAIT_UNTIL(GASNETE_CTR_DONE(&c));
}

static inline gasnet_handle_t gasnete_op_nb(const char *fname, int op, gasnet_node_t node,
                                             void *local, void *remote, int val,
                                             size_t nbytes) {
  if (nbytes == 0 || node == gasnete_g.mynode) {
    gasnete_op(fname, op, NULL, node, local, remote, val, nbytes);
    return GASNET_INVALID_HANDLE;
  }
  gasnete_threaddata_t *td = gasnete_mythread();
  struct gasnete_handle *h = gasnete_handle_new(td, GASNETE_H_NB);
  gasnete_op(fname, op, &h->ctr, node, local, remote, val, nbytes);
  return gasnete_handle_result(td, h);
}

static inline void gasnete_op_nbi(const char *fname, int op, gasnet_node_t node, void *local,
                                  void *remote, int val, size_t nbytes) {
  if (nbytes == 0) return;
  gasnete_op(fname, op, node == gasnete_g.mynode ? NULL : gasnete_nbi_counter(op == GASNETE_OP_GET),
             node, local, remote, val, nbytes);
}

/* 3.2: blocking. Aligned and bulk are the same here: the core copies a
 * request's payload before the send returns. */
void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gasnete_op_blocking("gasnet_get", GASNETE_OP_GET, node, dest, src, 0, nbytes);
}
void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gasnete_op_blocking("gasnet_put", GASNETE_OP_PUT, node, src, dest, 0, nbytes);
}
void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gasnete_op_blocking("gasnet_get_bulk", GASNETE_OP_GET, node, dest, src, 0, nbytes);
}
void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gasnete_op_blocking("gasnet_put_bulk", GASNETE_OP_PUT, node, src, dest, 0, nbytes);
}
void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gasnete_op_blocking("gasnet_memset", GASNETE_OP_MEMSET, node, NULL, dest, val, nbytes);
}

/* 3.3.2: explicit handle. */
gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return gasnete_op_nb("gasnet_get_nb", GASNETE_OP_GET, node, dest, src, 0, nbytes);
}
gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return gasnete_op_nb("gasnet_put_nb", GASNETE_OP_PUT, node, src, dest, 0, nbytes);
}
gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return gasnete_op_nb("gasnet_get_nb_bulk", GASNETE_OP_GET, node, dest, src, 0, nbytes);
}
gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return gasnete_op_nb("gasnet_put_nb_bulk", GASNETE_OP_PUT, node, src, dest, 0, nbytes);
}
gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  return gasnete_op_nb("gasnet_memset_nb", GASNETE_OP_MEMSET, node, NULL, dest, val, nbytes);
}

/* 3.3.4: implicit handle (memset counts as a put, 3.3.4.1). */
void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gasnete_op_nbi("gasnet_get_nbi", GASNETE_OP_GET, node, dest, src, 0, nbytes);
}
void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gasnete_op_nbi("gasnet_put_nbi", GASNETE_OP_PUT, node, src, dest, 0, nbytes);
}
void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gasnete_op_nbi("gasnet_get_nbi_bulk", GASNETE_OP_GET, node, dest, src, 0, nbytes);
}
void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gasnete_op_nbi("gasnet_put_nbi_bulk", GASNETE_OP_PUT, node, src, dest, 0, nbytes);
}
void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gasnete_op_nbi("gasnet_memset_nbi", GASNETE_OP_MEMSET, node, NULL, dest, val, nbytes);
}

/* ---- 3.4: value operations ------------------------------------------------
 * Spec 3.4.1.1 / 3.4.2.1: the bytes are the 8*nbytes low-order bits of the
 * value in this architecture's byte order for an nbytes-wide integer, and a
 * fetched value is zero-extended. For 1, 2, 4 and 8 that is exactly a store
 * / load of uintN_t; on a big-endian host the low-order bytes are the last
 * ones of the register value. */
static inline void gasnete_val_check(const char *fname, size_t nbytes) {
  if (GASNETE_UNLIKELY(nbytes == 0 || nbytes > SIZEOF_GASNET_REGISTER_VALUE_T))
    gasnete_fatal("%s: nbytes = %zu; value operations need 0 < nbytes <= "
                  "SIZEOF_GASNET_REGISTER_VALUE_T = %d (spec 3.4)", fname, nbytes,
                  SIZEOF_GASNET_REGISTER_VALUE_T);
}
static inline void gasnete_val_to_bytes(void *p, gasnet_register_value_t v, size_t n) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  memcpy(p, (char *)&v + sizeof v - n, n);
#else
  memcpy(p, &v, n);
#endif
}
static inline gasnet_register_value_t gasnete_val_from_bytes(const void *p, size_t n) {
  gasnet_register_value_t v = 0;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  memcpy((char *)&v + sizeof v - n, p, n);
#else
  memcpy(&v, p, n);
#endif
  return v;
}

void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                    size_t nbytes) {
  uint64_t buf;
  gasnete_val_check("gasnet_put_val", nbytes);
  gasnete_val_to_bytes(&buf, value, nbytes);
  gasnete_op_blocking("gasnet_put_val", GASNETE_OP_PUT, node, &buf, dest, 0, nbytes);
}
gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                  gasnet_register_value_t value, size_t nbytes) {
  uint64_t buf; /* the core has copied it when the request returns */
  gasnete_val_check("gasnet_put_nb_val", nbytes);
  gasnete_val_to_bytes(&buf, value, nbytes);
  return gasnete_op_nb("gasnet_put_nb_val", GASNETE_OP_PUT, node, &buf, dest, 0, nbytes);
}
void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                        size_t nbytes) {
  uint64_t buf;
  gasnete_val_check("gasnet_put_nbi_val", nbytes);
  gasnete_val_to_bytes(&buf, value, nbytes);
  gasnete_op_nbi("gasnet_put_nbi_val", GASNETE_OP_PUT, node, &buf, dest, 0, nbytes);
}

gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes) {
  uint64_t buf = 0;
  gasnete_val_check("gasnet_get_val", nbytes);
  gasnete_op_blocking("gasnet_get_val", GASNETE_OP_GET, node, &buf, src, 0, nbytes);
  return gasnete_val_from_bytes(&buf, nbytes);
}

/* 3.4.3: synchronized independently of everything else: its own counter. */
gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes) {
  gasnete_val_check("gasnet_get_nb_val", nbytes);
  gasnete_threaddata_t *td = gasnete_mythread();
  struct gasnete_valget *v = gasnete_valget_new(td);
  v->nbytes = (uint32_t)nbytes;
  gasnete_op("gasnet_get_nb_val", GASNETE_OP_GET, &v->ctr, node, &v->buf, src, 0, nbytes);
  return v;
}

gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t v) {
  gasnete_threaddata_t *td = gasnete_mythread();
  if (GASNETE_UNLIKELY(!v || v->state != GASNETE_H_NB || v->owner != td))
    gasnete_fatal("gasnet_wait_syncnb_valget: %p is not a pending value-get handle of this "
                  "thread (already synchronized, or from another thread) (spec 3.4.3)",
                  (void *)v);
  GASNETE_WAIT_UNTIL(GASNETE_CTR_DONE(&v->ctr));
  gasnet_register_value_t r = gasnete_val_from_bytes(&v->buf, v->nbytes);
  gasnete_valget_free(td, v);
  return r;
}
