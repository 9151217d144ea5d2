/*
 * gasnete_gasnet1.c - the GASNet-1 extended API (spec 1.8 section 3) in
 * terms of GASNet-EX, as the description says GASNet-1 is provided: every
 * call below is one EX operation on the primordial team, whose rank i is
 * GASNet-1's node i (gasnete_g.tm0). The EX calls are reached through
 * their named forms (gasnete_rma_*, gasnete_event_*: gasnete_rma.c,
 * gasnete_event.c) only so that an error names the GASNet-1 call made.
 *
 * The interoperability rules this follows (gasnet-ex-api.txt):
 *  - gasnet_handle_t is gex_Event_t: GASNET_INVALID_HANDLE is
 *    GEX_EVENT_INVALID, and either API may synchronize the other's.
 *  - Access regions are the same on both sides, and the NBI syncs of
 *    GASNet-1 are gex_NBI_Wait/Test of GEX_EC_GET, GEX_EC_PUT or both.
 *  - "try" polls and "test" does not: gasnet_try_* is AMPoll + gex_*_Test.
 *  - Non-bulk and bulk differ only in when the source may be reused: the
 *    non-bulk NB and NBI puts are EX's with GEX_EVENT_NOW (reusable on
 *    return: the payload is copied), the bulk ones with GEX_EVENT_DEFER
 *    (reusable after the sync: a large payload is sent from the source,
 *    gasnete_rma.c).
 * The barrier (gasnete_barrier.c) has no named EX counterpart and is
 * GASNet-1's own; gasnet_memset* and the value gets are GASNet-1 only, so
 * they use the internal EX shapes directly.
 */
#include "gasnete_internal.h"

#define G1_TM gasnete_g.tm0

/* ---- 3.2: blocking ------------------------------------------------------------- */
void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gasnete_rma_blocking("gasnet_get", GASNETE_OP_GET, G1_TM, node, dest, src, 0, nbytes, 0);
}
void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gasnete_rma_blocking("gasnet_put", GASNETE_OP_PUT, G1_TM, node, src, dest, 0, nbytes, 0);
}
void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gasnete_rma_blocking("gasnet_get_bulk", GASNETE_OP_GET, G1_TM, node, dest, src, 0, nbytes, 0);
}
void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gasnete_rma_blocking("gasnet_put_bulk", GASNETE_OP_PUT, G1_TM, node, src, dest, 0, nbytes, 0);
}
void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gasnete_rma_blocking("gasnet_memset", GASNETE_OP_MEMSET, G1_TM, node, NULL, dest, val,
                       nbytes, 0);
}

/* ---- 3.3.2: explicit handle: gex_RMA_*NB --------------------------------------- */
gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return gasnete_rma_nb("gasnet_get_nb", GASNETE_OP_GET, G1_TM, node, dest, src, 0, nbytes,
                        NULL, 0);
}
gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return gasnete_rma_nb("gasnet_put_nb", GASNETE_OP_PUT, G1_TM, node, src, dest, 0, nbytes,
                        GEX_EVENT_NOW, 0);
}
gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  return gasnete_rma_nb("gasnet_get_nb_bulk", GASNETE_OP_GET, G1_TM, node, dest, src, 0,
                        nbytes, NULL, 0);
}
gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  return gasnete_rma_nb("gasnet_put_nb_bulk", GASNETE_OP_PUT, G1_TM, node, src, dest, 0,
                        nbytes, GEX_EVENT_DEFER, 0);
}
gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  return gasnete_rma_nb("gasnet_memset_nb", GASNETE_OP_MEMSET, G1_TM, node, NULL, dest, val,
                        nbytes, GEX_EVENT_NOW, 0);
}

/* ---- 3.3.3: explicit-handle synchronization: gex_Event_* ----------------------- */
void gasnet_wait_syncnb(gasnet_handle_t h) { gasnete_event_wait("gasnet_wait_syncnb", h); }
int gasnet_try_syncnb(gasnet_handle_t h) {
  gasnet_AMPoll(); /* spec 3.3.3: "trying (polling)", even when h is complete */
  return gasnete_event_test("gasnet_try_syncnb", h);
}
void gasnet_wait_syncnb_all(gasnet_handle_t *h, size_t n) {
  gasnete_event_wait_all("gasnet_wait_syncnb_all", h, n);
}
int gasnet_try_syncnb_all(gasnet_handle_t *h, size_t n) {
  gasnet_AMPoll();
  return gasnete_event_test_all("gasnet_try_syncnb_all", h, n);
}
void gasnet_wait_syncnb_some(gasnet_handle_t *h, size_t n) {
  gasnete_event_wait_some("gasnet_wait_syncnb_some", h, n);
}
int gasnet_try_syncnb_some(gasnet_handle_t *h, size_t n) {
  gasnet_AMPoll();
  return gasnete_event_test_some("gasnet_try_syncnb_some", h, n);
}

/* ---- 3.3.4: implicit handle: gex_RMA_*NBI -------------------------------------- */
void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gasnete_rma_nbi("gasnet_get_nbi", GASNETE_OP_GET, G1_TM, node, dest, src, 0, nbytes, NULL, 0);
}
void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gasnete_rma_nbi("gasnet_put_nbi", GASNETE_OP_PUT, G1_TM, node, src, dest, 0, nbytes,
                  GEX_EVENT_NOW, 0);
}
void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes) {
  gasnete_rma_nbi("gasnet_get_nbi_bulk", GASNETE_OP_GET, G1_TM, node, dest, src, 0, nbytes,
                  NULL, 0);
}
void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes) {
  gasnete_rma_nbi("gasnet_put_nbi_bulk", GASNETE_OP_PUT, G1_TM, node, src, dest, 0, nbytes,
                  GEX_EVENT_DEFER, 0);
}
void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes) {
  gasnete_rma_nbi("gasnet_memset_nbi", GASNETE_OP_MEMSET, G1_TM, node, NULL, dest, val, nbytes,
                  GEX_EVENT_NOW, 0);
}

/* ---- 3.3.5: implicit-handle synchronization: gex_NBI_* ------------------------- */
void gasnet_wait_syncnbi_gets(void) { gasnete_nbi_wait("gasnet_wait_syncnbi_gets", GEX_EC_GET); }
void gasnet_wait_syncnbi_puts(void) { gasnete_nbi_wait("gasnet_wait_syncnbi_puts", GEX_EC_PUT); }
void gasnet_wait_syncnbi_all(void) { gasnete_nbi_wait("gasnet_wait_syncnbi_all", GEX_EC_ALL); }
int gasnet_try_syncnbi_gets(void) {
  gasnet_AMPoll();
  return gasnete_nbi_test("gasnet_try_syncnbi_gets", GEX_EC_GET);
}
int gasnet_try_syncnbi_puts(void) {
  gasnet_AMPoll();
  return gasnete_nbi_test("gasnet_try_syncnbi_puts", GEX_EC_PUT);
}
int gasnet_try_syncnbi_all(void) {
  gasnet_AMPoll();
  return gasnete_nbi_test("gasnet_try_syncnbi_all", GEX_EC_ALL);
}

/* ---- 3.3.6: access regions: gex_NBI_{Begin,End}AccessRegion --------------------- */
void gasnet_begin_nbi_accessregion(void) { gasnete_region_begin("gasnet_begin_nbi_accessregion"); }
gasnet_handle_t gasnet_end_nbi_accessregion(void) {
  return gasnete_region_end("gasnet_end_nbi_accessregion");
}

/* ---- 3.4: value operations: gex_RMA_*Val ---------------------------------------- */
void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                    size_t nbytes) {
  uint64_t buf;
  gasnete_val_check("gasnet_put_val", nbytes);
  gasnete_val_to_bytes(&buf, value, nbytes);
  gasnete_rma_blocking("gasnet_put_val", GASNETE_OP_PUT, G1_TM, node, &buf, dest, 0, nbytes, 0);
}
gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                  gasnet_register_value_t value, size_t nbytes) {
  uint64_t buf; /* copied by the core before the request returns */
  gasnete_val_check("gasnet_put_nb_val", nbytes);
  gasnete_val_to_bytes(&buf, value, nbytes);
  return gasnete_rma_nb("gasnet_put_nb_val", GASNETE_OP_PUT, G1_TM, node, &buf, dest, 0, nbytes,
                        GEX_EVENT_NOW, 0);
}
void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                        size_t nbytes) {
  uint64_t buf;
  gasnete_val_check("gasnet_put_nbi_val", nbytes);
  gasnete_val_to_bytes(&buf, value, nbytes);
  gasnete_rma_nbi("gasnet_put_nbi_val", GASNETE_OP_PUT, G1_TM, node, &buf, dest, 0, nbytes,
                  GEX_EVENT_NOW, 0);
}
gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes) {
  uint64_t buf = 0;
  gasnete_val_check("gasnet_get_val", nbytes);
  gasnete_rma_blocking("gasnet_get_val", GASNETE_OP_GET, G1_TM, node, &buf, src, 0, nbytes, 0);
  return gasnete_val_from_bytes(&buf, nbytes);
}

/* 3.4.3: synchronized independently of everything else: the handle holds
 * the fetched bytes and the event of the get that fills them. */
gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes) {
  gasnete_val_check("gasnet_get_nb_val", nbytes);
  struct gasnete_valget *v = gasnete_valget_new(gasnete_mythread());
  v->nbytes = (uint32_t)nbytes;
  v->ev = gasnete_rma_nb("gasnet_get_nb_val", GASNETE_OP_GET, G1_TM, node, &v->buf, src, 0,
                         nbytes, NULL, 0);
  return v;
}

gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t v) {
  gasnete_threaddata_t *td = gasnete_mythread();
  if (GASNETE_UNLIKELY(!v || v->state != GASNETE_H_NB || v->owner != td))
    gasnete_fatal("gasnet_wait_syncnb_valget: %p is not a pending value-get handle of this "
                  "thread (already synchronized, or from another thread) (spec 3.4.3)",
                  (void *)v);
  gasnete_event_wait("gasnet_wait_syncnb_valget", v->ev);
  gasnet_register_value_t r = gasnete_val_from_bytes(&v->buf, v->nbytes);
  gasnete_valget_free(td, v);
  return r;
}
