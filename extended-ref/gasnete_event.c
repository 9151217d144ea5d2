/*
 * gasnete_event.c - per-thread state, event pools, waiting, and every
 * synchronization call of GASNet-EX: events (gex_Event_*), implicit events
 * (gex_NBI_Test/Wait by category), access regions; plus GASNet-1's thread
 * info (spec 1.8 3.6.1) and wait mode (3.6.2). GASNet-1's handle calls are
 * these (gasnete_gasnet1.c): a gasnet_handle_t is a gex_Event_t.
 *
 * Events and value-get handles come from per-thread free lists that grow
 * GASNETE_POOL_CHUNK at a time and never shrink: no malloc per operation,
 * no lock (an event is only ever touched by its thread, spec 1.8 3.3.2,
 * except its counter, which reply handlers decrement atomically).
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
  h->barrier = NULL;
  return h;
}

void gasnete_handle_free(gasnete_threaddata_t *td, struct gasnete_handle *h) {
  if (h->state == GASNETE_H_COLL) gasnete_coll_event_free(h);
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
  v->ev = GEX_EVENT_INVALID;
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
  gasnete_coll_progress(); /* a member may owe others its part of a collective */
}

int gasnet_set_waitmode(int wait_mode) {
  if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK &&
      wait_mode != GASNET_WAIT_SPINBLOCK)
    return GASNET_ERR_BAD_ARG;
  gasnete_g.waitmode = wait_mode;
  return GASNET_OK;
}

static void gasnete_flags_zero(const char *fname, gex_Flags_t flags) {
  if (GASNETE_UNLIKELY(flags))
    gasnete_fatal("%s: flags %#x: the description reserves them; pass 0", fname,
                  (unsigned)flags);
}

/* ---- events ------------------------------------------------------------------
 * Test never polls (the description: "_Test: no Poll call is made"); a
 * barrier event may still send its next round when its message is in. */

static inline struct gasnete_handle *gasnete_event_check(const char *fname,
                                                         gasnete_threaddata_t *td,
                                                         gex_Event_t h) {
  if (GASNETE_UNLIKELY(h == GEX_EVENT_NO_OP))
    gasnete_fatal("%s: GEX_EVENT_NO_OP is not an event (it says an IMMEDIATE call sent "
                  "nothing; the description, gex_Event_t)", fname);
  if (GASNETE_UNLIKELY((h->state != GASNETE_H_NB && h->state != GASNETE_H_REGION &&
                        h->state != GASNETE_H_BAR && h->state != GASNETE_H_COLL) ||
                       h->owner != td))
    gasnete_fatal("%s: %s %p is not pending on this thread: already synchronized "
                  "(spec 1.8 3.3.3.1) or initiated by another thread (spec 1.8 3.3.2)",
                  fname, GASNETE_IS_GASNET1(fname) ? "handle" : "event", (void *)h);
  return h;
}

/* 1 and the event recycled if it is complete. */
static inline int gasnete_event_reap(gasnete_threaddata_t *td, gex_Event_t h) {
  if (!gasnete_event_done(h)) return 0;
  gasnete_handle_free(td, h);
  return 1;
}

int gasnete_event_test(const char *fname, gex_Event_t h) {
  if (h == GEX_EVENT_INVALID) return GASNET_OK;
  gasnete_threaddata_t *td = gasnete_mythread();
  gasnete_event_check(fname, td, h);
  return gasnete_event_reap(td, h) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

/* A wait that blocks is a span of the job's timeline (S). */
static void gasnete_event_wait_traced(gex_Event_t h) {
  if (gasnete_event_done(h)) return;
  gasnetc_trace_wait(0);
  GASNETE_WAIT_UNTIL(gasnete_event_done(h));
  gasnetc_trace_wait(1);
}

void gasnete_event_wait(const char *fname, gex_Event_t h) {
  if (h == GEX_EVENT_INVALID) return;
  gasnete_threaddata_t *td = gasnete_mythread();
  gasnete_event_check(fname, td, h);
  if (GASNETC_TRACING('S')) gasnete_event_wait_traced(h);
  else GASNETE_WAIT_UNTIL(gasnete_event_done(h));
  gasnete_handle_free(td, h);
}

/* Reap what is done in evs[] (completed entries become GEX_EVENT_INVALID);
 * returns how many remain pending and, through *reaped, how many were
 * completed now. */
static size_t gasnete_reap_list(const char *fname, gasnete_threaddata_t *td, gex_Event_t *evs,
                                size_t n, size_t *reaped) {
  size_t left = 0, done = 0;
  for (size_t i = 0; i < n; i++) {
    gex_Event_t h = evs[i];
    if (h == GEX_EVENT_INVALID) continue;
    gasnete_event_check(fname, td, h);
    if (gasnete_event_reap(td, h)) {
      evs[i] = GEX_EVENT_INVALID;
      done++;
    } else {
      left++;
    }
  }
  if (reaped) *reaped = done;
  return left;
}

int gasnete_event_test_all(const char *fname, gex_Event_t *evs, size_t n) {
  gasnete_threaddata_t *td = gasnete_mythread();
  return gasnete_reap_list(fname, td, evs, n, NULL) == 0 ? GASNET_OK : GASNET_ERR_NOT_READY;
}

/* One event at a time: each wait looks at one event, so an array of 65535
 * costs O(n) plus the waiting, not O(n) per poll. */
void gasnete_event_wait_all(const char *fname, gex_Event_t *evs, size_t n) {
  gasnete_threaddata_t *td = gasnete_mythread();
  for (size_t i = 0; i < n; i++) {
    gex_Event_t h = evs[i];
    if (h == GEX_EVENT_INVALID) continue;
    gasnete_event_check(fname, td, h);
    GASNETE_WAIT_UNTIL(gasnete_event_done(h));
    gasnete_handle_free(td, h);
    evs[i] = GEX_EVENT_INVALID;
  }
}

/* "Some": at least one valid event completed, or none was valid. */
static int gasnete_some_done(const char *fname, gasnete_threaddata_t *td, gex_Event_t *evs,
                             size_t n) {
  size_t reaped, left = gasnete_reap_list(fname, td, evs, n, &reaped);
  return reaped > 0 || left == 0;
}

int gasnete_event_test_some(const char *fname, gex_Event_t *evs, size_t n) {
  gasnete_threaddata_t *td = gasnete_mythread();
  return gasnete_some_done(fname, td, evs, n) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gasnete_event_wait_some(const char *fname, gex_Event_t *evs, size_t n) {
  gasnete_threaddata_t *td = gasnete_mythread();
  GASNETE_WAIT_UNTIL(gasnete_some_done(fname, td, evs, n));
}

int gex_Event_Test(gex_Event_t ev) { return gasnete_event_test("gex_Event_Test", ev); }
void gex_Event_Wait(gex_Event_t ev) { gasnete_event_wait("gex_Event_Wait", ev); }
int gex_Event_TestSome(gex_Event_t *evs, size_t n, gex_Flags_t flags) {
  gasnete_flags_zero("gex_Event_TestSome", flags);
  return gasnete_event_test_some("gex_Event_TestSome", evs, n);
}
void gex_Event_WaitSome(gex_Event_t *evs, size_t n, gex_Flags_t flags) {
  gasnete_flags_zero("gex_Event_WaitSome", flags);
  gasnete_event_wait_some("gex_Event_WaitSome", evs, n);
}
int gex_Event_TestAll(gex_Event_t *evs, size_t n, gex_Flags_t flags) {
  gasnete_flags_zero("gex_Event_TestAll", flags);
  return gasnete_event_test_all("gex_Event_TestAll", evs, n);
}
void gex_Event_WaitAll(gex_Event_t *evs, size_t n, gex_Flags_t flags) {
  gasnete_flags_zero("gex_Event_WaitAll", flags);
  gasnete_event_wait_all("gex_Event_WaitAll", evs, n);
}

/* Only GEX_EC_LC has leaves here, and it is always complete by the time an
 * initiation returns (gasnete_rma.c, core/gasnetc_am.c). */
gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t cat) {
  if (GASNETE_UNLIKELY(root == GEX_EVENT_NO_OP))
    gasnete_fatal("gex_Event_QueryLeaf: root is GEX_EVENT_NO_OP (the description forbids it)");
  if (GASNETE_UNLIKELY(cat == 0 || (cat & (cat - 1)) || (cat & ~GEX_EC_ALL)))
    gasnete_fatal("gex_Event_QueryLeaf: event_category %#x is not one GEX_EC_* constant",
                  (unsigned)cat);
  if (GASNETE_UNLIKELY(cat != GEX_EC_LC))
    gasnete_fatal("gex_Event_QueryLeaf: no operation here has a leaf of category %#x; "
                  "only GEX_EC_LC (local completion) is a leaf", (unsigned)cat);
  return GEX_EVENT_INVALID;
}

/* ---- implicit events (NBI), this thread's only ------------------------------- */

static inline gasnete_threaddata_t *gasnete_nbi_sync_td(const char *fname) {
  gasnete_threaddata_t *td = gasnete_mythread();
  if (GASNETE_UNLIKELY(td->region))
    gasnete_fatal("%s: called inside an access region, which is erroneous (spec 1.8 3.3.6.1)",
                  fname);
  return td;
}

/* Categories with something to wait for: gets and puts (memset and an
 * atomic SET are puts, an atomic GET a get) and the other atomics (RMW).
 * AM and put local completion (GEX_EC_AM, GEX_EC_LC) happen before the
 * initiation returns. */
static inline int gasnete_nbi_done(gasnete_threaddata_t *td, gex_EC_t mask) {
  return (!(mask & GEX_EC_GET) || GASNETE_CTR_DONE(&td->nbi_gets)) &&
         (!(mask & GEX_EC_PUT) || GASNETE_CTR_DONE(&td->nbi_puts)) &&
         (!(mask & GEX_EC_RMW) || GASNETE_CTR_DONE(&td->nbi_rmw));
}

static inline gasnete_threaddata_t *gasnete_nbi_args(const char *fname, gex_EC_t mask) {
  if (GASNETE_UNLIKELY(mask & ~GEX_EC_ALL))
    gasnete_fatal("%s: event_mask %#x has bits that are no GEX_EC_* category", fname,
                  (unsigned)mask);
  return gasnete_nbi_sync_td(fname);
}

int gasnete_nbi_test(const char *fname, gex_EC_t mask) {
  gasnete_threaddata_t *td = gasnete_nbi_args(fname, mask);
  return gasnete_nbi_done(td, mask) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gasnete_nbi_wait(const char *fname, gex_EC_t mask) {
  gasnete_threaddata_t *td = gasnete_nbi_args(fname, mask);
  GASNETE_WAIT_UNTIL(gasnete_nbi_done(td, mask));
}

int gex_NBI_Test(gex_EC_t mask, gex_Flags_t flags) {
  gasnete_flags_zero("gex_NBI_Test", flags);
  return gasnete_nbi_test("gex_NBI_Test", mask);
}
void gex_NBI_Wait(gex_EC_t mask, gex_Flags_t flags) {
  gasnete_flags_zero("gex_NBI_Wait", flags);
  gasnete_nbi_wait("gex_NBI_Wait", mask);
}

/* ---- access regions (spec 1.8 3.3.6; the description: "interoperable")
 * The region is an event: NBI operations started inside count on its
 * counter instead of the thread's, so the event covers exactly them. */
void gasnete_region_begin(const char *fname) {
  gasnete_threaddata_t *td = gasnete_mythread();
  if (GASNETE_UNLIKELY(td->region))
    gasnete_fatal("%s: an access region is already open on this thread; regions do not "
                  "nest (spec 1.8 3.3.6.1)", fname);
  td->region = gasnete_handle_new(td, GASNETE_H_REGION);
}

gex_Event_t gasnete_region_end(const char *fname) {
  gasnete_threaddata_t *td = gasnete_mythread();
  struct gasnete_handle *h = td->region;
  if (GASNETE_UNLIKELY(!h))
    gasnete_fatal("%s: no access region is open on this thread (spec 1.8 3.3.6.1)", fname);
  td->region = NULL;
  if (gasnete_event_reap(td, h)) return GEX_EVENT_INVALID; /* all done already */
  return h;
}

void gex_NBI_BeginAccessRegion(gex_Flags_t flags) {
  gasnete_flags_zero("gex_NBI_BeginAccessRegion", flags);
  gasnete_region_begin("gex_NBI_BeginAccessRegion");
}
gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags) {
  gasnete_flags_zero("gex_NBI_EndAccessRegion", flags);
  return gasnete_region_end("gex_NBI_EndAccessRegion");
}
