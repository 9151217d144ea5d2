/*
 * gasnete_sync.c - per-thread state, handle pools, waiting, and every
 * synchronization call: explicit handles (spec 3.3.3), implicit handles
 * (3.3.5), access regions (3.3.6), thread info (3.6.1), wait mode (3.6.2).
 *
 * Handles and value-get handles come from per-thread free lists that grow
 * GASNETE_POOL_CHUNK at a time and never shrink: no malloc per operation,
 * no lock (a handle is only ever touched by its thread, spec 3.3.2, except
 * its counter, which reply handlers decrement atomically).
 */
#include <stdlib.h>
#include <string.h>

#include "gasnete_internal.h"

/* Handles allocated at once when a thread's pool is empty. */
#define GASNETE_POOL_CHUNK 256

GASNETE_TLS gasnete_threaddata_t *gasnete_td;

/* First extended call of a thread. Never freed: a thread's handles may
 * still be referenced by in-flight replies when it exits. */
gasnete_threaddata_t *gasnete_td_new(void) {
  gasnete_threaddata_t *td = calloc(1, sizeof *td);
  if (!td) gasnete_fatal("out of memory for a thread's extended-API state");
  gasnete_td = td;
  return td;
}

gasnet_threadinfo_t gasnete_threadinfo_get(void) { return gasnete_mythread(); }

struct gasnete_handle *gasnete_handle_new(gasnete_threaddata_t *td, uint32_t state) {
  struct gasnete_handle *h = td->free_handles;
  if (GASNETE_UNLIKELY(!h)) {
    struct gasnete_handle *chunk = calloc(GASNETE_POOL_CHUNK, sizeof *chunk);
    if (!chunk) gasnete_fatal("out of memory for %d more handles", GASNETE_POOL_CHUNK);
    for (int i = 0; i < GASNETE_POOL_CHUNK - 1; i++) chunk[i].next = &chunk[i + 1];
    h = chunk;
  }
  td->free_handles = h->next;
  h->next = NULL;
  h->owner = td;
  h->state = state;
  h->ctr.pending = 0;
  h->ctr.bytes = 0;
  return h;
}

void gasnete_handle_free(gasnete_threaddata_t *td, struct gasnete_handle *h) {
  h->state = GASNETE_H_FREE;
  h->next = td->free_handles;
  td->free_handles = h;
}

struct gasnete_valget *gasnete_valget_new(gasnete_threaddata_t *td) {
  struct gasnete_valget *v = td->free_valgets;
  if (GASNETE_UNLIKELY(!v)) {
    struct gasnete_valget *chunk = calloc(GASNETE_POOL_CHUNK, sizeof *chunk);
    if (!chunk) gasnete_fatal("out of memory for %d more value-get handles", GASNETE_POOL_CHUNK);
    for (int i = 0; i < GASNETE_POOL_CHUNK - 1; i++) chunk[i].next = &chunk[i + 1];
    v = chunk;
  }
  td->free_valgets = v->next;
  v->next = NULL;
  v->owner = td;
  v->state = GASNETE_H_NB;
  v->ctr.pending = 0;
  v->ctr.bytes = 0;
  v->buf = 0;
  return v;
}

void gasnete_valget_free(gasnete_threaddata_t *td, struct gasnete_valget *v) {
  v->state = GASNETE_H_FREE;
  v->next = td->free_valgets;
  td->free_valgets = v;
}

/* ---- waiting --------------------------------------------------------------
 * One step of GASNET_BLOCKUNTIL in the mode gasnet_set_waitmode chose
 * (the core's gasnetc_block_t.mode: SPINBLOCK is its default). */
void gasnete_wait_step(gasnetc_block_t *st) {
  st->mode = gasnete_g.waitmode == GASNET_WAIT_SPIN    ? GASNETC_BLOCK_SPIN
             : gasnete_g.waitmode == GASNET_WAIT_BLOCK ? GASNETC_BLOCK_SLEEP
                                                       : GASNETC_BLOCK_DEFAULT;
  gasnetc_block_step(st);
}

int gasnet_set_waitmode(int wait_mode) {
  if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK &&
      wait_mode != GASNET_WAIT_SPINBLOCK)
    return GASNET_ERR_BAD_ARG;
  gasnete_g.waitmode = wait_mode;
  return GASNET_OK;
}

/* ---- 3.3.3: explicit handles --------------------------------------------- */

static inline struct gasnete_handle *gasnete_handle_check(const char *fname,
                                                          gasnete_threaddata_t *td,
                                                          gasnet_handle_t h) {
  if (GASNETE_UNLIKELY((h->state != GASNETE_H_NB && h->state != GASNETE_H_REGION) ||
                       h->owner != td))
    gasnete_fatal("%s: handle %p is not pending on this thread: already synchronized "
                  "(spec 3.3.3.1) or initiated by another thread (spec 3.3.2)",
                  fname, (void *)h);
  return h;
}

/* 1 and the handle recycled if h's operation is complete. */
static inline int gasnete_handle_reap(gasnete_threaddata_t *td, gasnet_handle_t h) {
  if (!GASNETE_CTR_DONE(&h->ctr)) return 0;
  gasnete_handle_free(td, h);
  return 1;
}

void gasnet_wait_syncnb(gasnet_handle_t h) {
  if (h == GASNET_INVALID_HANDLE) return;
  gasnete_threaddata_t *td = gasnete_mythread();
  gasnete_handle_check("gasnet_wait_syncnb", td, h);
  GASNETE_WAIT_UNTIL(GASNETE_CTR_DONE(&h->ctr));
  gasnete_handle_free(td, h);
}

/* Spec 3.3.3 calls the try functions "trying (polling)": every try polls
 * once first, whatever its arguments, so a loop of tries whose handles are
 * all complete (or GASNET_INVALID_HANDLE) still runs the handlers that its
 * peers' operations need, and a peer waiting on us is not starved. */
int gasnet_try_syncnb(gasnet_handle_t h) {
  gasnet_AMPoll();
  if (h == GASNET_INVALID_HANDLE) return GASNET_OK;
  gasnete_threaddata_t *td = gasnete_mythread();
  gasnete_handle_check("gasnet_try_syncnb", td, h);
  return gasnete_handle_reap(td, h) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

/* Reap what is done in handles[] (3.3.3.2: completed entries become
 * GASNET_INVALID_HANDLE); returns how many remain pending and, through
 * *reaped, how many were completed now. */
static size_t gasnete_reap_list(const char *fname, gasnete_threaddata_t *td,
                                gasnet_handle_t *handles, size_t n, size_t *reaped) {
  size_t left = 0, done = 0;
  for (size_t i = 0; i < n; i++) {
    gasnet_handle_t h = handles[i];
    if (h == GASNET_INVALID_HANDLE) continue;
    gasnete_handle_check(fname, td, h);
    if (gasnete_handle_reap(td, h)) {
      handles[i] = GASNET_INVALID_HANDLE;
      done++;
    } else {
      left++;
    }
  }
  if (reaped) *reaped = done;
  return left;
}

/* One handle at a time: each wait looks at one counter, so a list of 65535
 * costs O(n) plus the waiting, not O(n) per poll. */
void gasnet_wait_syncnb_all(gasnet_handle_t *handles, size_t n) {
  gasnete_threaddata_t *td = gasnete_mythread();
  for (size_t i = 0; i < n; i++) {
    gasnet_handle_t h = handles[i];
    if (h == GASNET_INVALID_HANDLE) continue;
    gasnete_handle_check("gasnet_wait_syncnb_all", td, h);
    GASNETE_WAIT_UNTIL(GASNETE_CTR_DONE(&h->ctr));
    gasnete_handle_free(td, h);
    handles[i] = GASNET_INVALID_HANDLE;
  }
}

int gasnet_try_syncnb_all(gasnet_handle_t *handles, size_t n) {
  gasnet_AMPoll(); /* every try polls (see gasnet_try_syncnb) */
  gasnete_threaddata_t *td = gasnete_mythread();
  return gasnete_reap_list("gasnet_try_syncnb_all", td, handles, n, NULL) == 0
             ? GASNET_OK : GASNET_ERR_NOT_READY;
}

/* 3.3.3.3: at least one valid handle completed, or none was valid. */
static int gasnete_some_done(gasnete_threaddata_t *td, gasnet_handle_t *handles, size_t n,
                             const char *fname) {
  size_t reaped, left = gasnete_reap_list(fname, td, handles, n, &reaped);
  return reaped > 0 || left == 0;
}

void gasnet_wait_syncnb_some(gasnet_handle_t *handles, size_t n) {
  gasnete_threaddata_t *td = gasnete_mythread();
  GASNETE_WAIT_UNTIL(gasnete_some_done(td, handles, n, "gasnet_wait_syncnb_some"));
}

int gasnet_try_syncnb_some(gasnet_handle_t *handles, size_t n) {
  gasnet_AMPoll(); /* every try polls (see gasnet_try_syncnb) */
  gasnete_threaddata_t *td = gasnete_mythread();
  return gasnete_some_done(td, handles, n, "gasnet_try_syncnb_some") ? GASNET_OK
                                                                     : GASNET_ERR_NOT_READY;
}

/* ---- 3.3.5: implicit handles, this thread's only ------------------------- */

static inline gasnete_threaddata_t *gasnete_nbi_sync_td(const char *fname) {
  gasnete_threaddata_t *td = gasnete_mythread();
  if (GASNETE_UNLIKELY(td->region))
    gasnete_fatal("%s: called inside an access region, which is erroneous (spec 3.3.6.1)",
                  fname);
  return td;
}

void gasnet_wait_syncnbi_gets(void) {
  gasnete_threaddata_t *td = gasnete_nbi_sync_td("gasnet_wait_syncnbi_gets");
  GASNETE_WAIT_UNTIL(GASNETE_CTR_DONE(&td->nbi_gets));
}
void gasnet_wait_syncnbi_puts(void) {
  gasnete_threaddata_t *td = gasnete_nbi_sync_td("gasnet_wait_syncnbi_puts");
  GASNETE_WAIT_UNTIL(GASNETE_CTR_DONE(&td->nbi_puts));
}
void gasnet_wait_syncnbi_all(void) {
  gasnete_threaddata_t *td = gasnete_nbi_sync_td("gasnet_wait_syncnbi_all");
  GASNETE_WAIT_UNTIL(GASNETE_CTR_DONE(&td->nbi_gets) && GASNETE_CTR_DONE(&td->nbi_puts));
}

static int gasnete_try_nbi(const char *fname, int gets, int puts) {
  gasnete_threaddata_t *td = gasnete_nbi_sync_td(fname);
  gasnet_AMPoll(); /* every try polls (see gasnet_try_syncnb) */
  return (!gets || GASNETE_CTR_DONE(&td->nbi_gets)) && (!puts || GASNETE_CTR_DONE(&td->nbi_puts))
             ? GASNET_OK : GASNET_ERR_NOT_READY;
}
int gasnet_try_syncnbi_gets(void) { return gasnete_try_nbi("gasnet_try_syncnbi_gets", 1, 0); }
int gasnet_try_syncnbi_puts(void) { return gasnete_try_nbi("gasnet_try_syncnbi_puts", 0, 1); }
int gasnet_try_syncnbi_all(void) { return gasnete_try_nbi("gasnet_try_syncnbi_all", 1, 1); }

/* ---- 3.3.6: access regions ------------------------------------------------
 * The region is a handle: nbi operations started inside count on its
 * counter instead of the thread's, so the handle covers exactly them. */
void gasnet_begin_nbi_accessregion(void) {
  gasnete_threaddata_t *td = gasnete_mythread();
  if (GASNETE_UNLIKELY(td->region))
    gasnete_fatal("gasnet_begin_nbi_accessregion: an access region is already open on this "
                  "thread; regions do not nest (spec 3.3.6.1)");
  td->region = gasnete_handle_new(td, GASNETE_H_REGION);
}

gasnet_handle_t gasnet_end_nbi_accessregion(void) {
  gasnete_threaddata_t *td = gasnete_mythread();
  struct gasnete_handle *h = td->region;
  if (GASNETE_UNLIKELY(!h))
    gasnete_fatal("gasnet_end_nbi_accessregion: no access region is open on this thread "
                  "(spec 3.3.6.1)");
  td->region = NULL;
  if (gasnete_handle_reap(td, h)) return GASNET_INVALID_HANDLE; /* all done already */
  return h;
}
