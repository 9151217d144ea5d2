/*
 * gasnete_coll_g1.c - GASNet-1's gasnet_coll.h (../shared/spec/
 * gasnet-client-extras.md section 2) over the collectives engine
 * (gasnete_coll_internal.h): every call is one engine call plus the checks
 * that are GASNet-1's own, and its errors name the GASNet-1 call in
 * GASNet-1's words (node, image, handle).
 *
 * One image per node: gasnet_coll_init takes images == NULL only, so image
 * i of a team is its rank i and an M call's list holds one address per
 * image, of which this node uses one (gasnete_g1_pick).
 *
 * Sync flags: IN_ALLSYNC and OUT_ALLSYNC are the engine's
 * GASNETE_COLL_SYNC_IN / _OUT; MYSYNC and NOSYNC need nothing: the engine
 * parks data in mailboxes until the receiver has called, and nothing
 * remote ever reads src or writes dst, so a node's buffers are safe from
 * its own call to its own completion whatever the others do.
 *
 * Reduce: fn_table[func] runs through an adaptor gex_Coll_ReduceFn_t with
 * GEX_DT_USER (dt_sz = elem_size) and GEX_OP_USER_NC, so the engine
 * combines in rank order (GASNet-1 functions need not be commutative).
 * The adaptor's cdata (function, flags, arg, elem_size) lives on the stack
 * of a blocking call, and for an _nb call in a per-thread pool, taken back
 * when gasnet_coll_wait_sync & co. see its handle complete.
 */
#include <stdlib.h>

#include "gasnete_coll_internal.h"

gasnet_team_handle_t gasnete_coll_team_all; /* GASNET_TEAM_ALL: set by gasnete_connect */

#define GASNETE_G1_IN (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC)
#define GASNETE_G1_OUT (GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC)
#define GASNETE_G1_FLAGS                                                               \
  (GASNETE_G1_IN | GASNETE_G1_OUT | GASNET_COLL_SINGLE | GASNET_COLL_LOCAL |           \
   GASNET_COLL_AGGREGATE | GASNET_COLL_DST_IN_SEGMENT | GASNET_COLL_SRC_IN_SEGMENT)

/* Written once, by gasnet_coll_init (optional: it only gives the fn_table). */
static struct {
  int inited;
  gasnet_coll_fn_entry_t *fns; /* a copy of the client's fn_table */
  size_t nfns;
} gasnete_g1;

/* ---- checks ------------------------------------------------------------------ */

/* No gasnet_coll_init is needed: GASNet-EX has none, and its clients call
 * the legacy collectives as soon as gex_Client_Init returns (docs/api.md). */
static void gasnete_g1_ready(const char *fname) {
  if (GASNETE_UNLIKELY(!gasnete_g.connected)) gasnetc_not_ready(fname, 1);
}

/* The engine's team of a GASNet-1 team handle (fatal unless one of this
 * node's teams). */
static gasnetc_team_t *gasnete_g1_team(const char *fname, gasnet_team_handle_t team) {
  gasnete_g1_ready(fname);
  if (GASNETE_UNLIKELY(!team))
    gasnete_fatal("%s: team is NULL; give GASNET_TEAM_ALL or a team of gasnet_coll_team_split",
                  fname);
  return gasnete_coll_team(fname, team);
}

static int gasnete_g1_one_bit(int v) { return v && !(v & (v - 1)); }

/* The checks every collective makes: initialized, a team of this node, the
 * flags GASNet-1 allows. Returns the team; *sync gets the engine's bits. */
static gasnetc_team_t *gasnete_g1_begin(const char *fname, gasnet_team_handle_t team,
                                        int flags, int *sync) {
  gasnetc_team_t *tm = gasnete_g1_team(fname, team);
  if (GASNETE_UNLIKELY(flags & ~GASNETE_G1_FLAGS))
    gasnete_fatal("%s: flags %#x: bits %#x are no GASNET_COLL_* flag", fname, (unsigned)flags,
                  (unsigned)(flags & ~GASNETE_G1_FLAGS));
  if (GASNETE_UNLIKELY(!gasnete_g1_one_bit(flags & GASNETE_G1_IN) ||
                       !gasnete_g1_one_bit(flags & GASNETE_G1_OUT)))
    gasnete_fatal("%s: flags %#x: give exactly one GASNET_COLL_IN_* and one GASNET_COLL_OUT_*",
                  fname, (unsigned)flags);
  /* Neither SINGLE nor LOCAL: taken as SINGLE. Only an M call's list
   * differs between the two here (gasnete_g1_pick). */
  if (GASNETE_UNLIKELY((flags & GASNET_COLL_SINGLE) && (flags & GASNET_COLL_LOCAL)))
    gasnete_fatal("%s: flags %#x: GASNET_COLL_SINGLE and GASNET_COLL_LOCAL exclude each other",
                  fname, (unsigned)flags);
  *sync = ((flags & GASNET_COLL_IN_ALLSYNC) ? GASNETE_COLL_SYNC_IN : 0) |
          ((flags & GASNET_COLL_OUT_ALLSYNC) ? GASNETE_COLL_SYNC_OUT : 0);
  return tm;
}

/* A root image (srcimage / dstimage): one of the team's, one per node. */
static gex_Rank_t gasnete_g1_image(const char *fname, gasnetc_team_t *tm, gasnet_image_t image,
                                   const char *what) {
  if (GASNETE_UNLIKELY(image >= tm->size))
    gasnete_fatal("%s: %s %u does not exist (the team has %u images, one per node)", fname,
                  what, (unsigned)image, (unsigned)tm->size);
  return (gex_Rank_t)image;
}

/* This node's address in an M call's list (m = 0: a plain call, whose one
 * address is list[0]). With one image per node
 * (../shared/spec/gasnet-client-extras.md section 2: "one address per
 * image/node"), a LOCAL list holds this node's images only, so its one
 * entry list[0]; a SINGLE list holds one entry per image of the team, the
 * same on every node, and ours is list[my rank]. */
static void *gasnete_g1_pick(const char *fname, gasnetc_team_t *tm, void *const list[], int m,
                             int flags, const char *what) {
  if (!m) return list[0];
  if (GASNETE_UNLIKELY(!list)) gasnete_fatal("%s: %s is NULL", fname, what);
  return list[(flags & GASNET_COLL_LOCAL) ? 0 : tm->rank];
}

/* ---- init ---------------------------------------------------------------------- */

void gasnet_coll_init(gasnet_image_t *images, gasnet_image_t my_image,
                      gasnet_coll_fn_entry_t *fn_table, size_t fn_count, int flags) {
  (void)my_image; /* meaningful only with images */
  (void)flags;    /* the reference implementation defines none */
  if (!gasnete_g.connected) gasnetc_not_ready("gasnet_coll_init", 1);
  if (gasnete_g1.inited)
    gasnete_fatal("gasnet_coll_init: called twice; it is called once per job");
  if (images)
    gasnete_fatal("gasnet_coll_init: images != NULL: this library runs one image per node; "
                  "pass NULL");
  if (fn_count && !fn_table)
    gasnete_fatal("gasnet_coll_init: fn_count %zu with a NULL fn_table", fn_count);
  if (fn_count) {
    gasnete_g1.fns = malloc(fn_count * sizeof *fn_table);
    if (!gasnete_g1.fns) gasnete_fatal("gasnet_coll_init: out of memory for the fn_table");
    memcpy(gasnete_g1.fns, fn_table, fn_count * sizeof *fn_table);
  }
  gasnete_g1.nfns = fn_count;
  gasnete_g1.inited = 1;
}

/* ---- handles --------------------------------------------------------------------
 * gasnet_coll_handle_t is the engine's gex_Event_t. Each call here reaps
 * one handle at a time, so that a reduce's pooled cdata goes back when its
 * handle is seen complete (gasnete_g1_red_done). */

static void gasnete_g1_red_done(gex_Event_t ev);

static int gasnete_g1_test(const char *fname, gex_Event_t ev) {
  if (gasnete_event_test(fname, ev) != GASNET_OK) return 0;
  gasnete_g1_red_done(ev);
  return 1;
}
static void gasnete_g1_wait(const char *fname, gex_Event_t ev) {
  gasnete_event_wait(fname, ev);
  gasnete_g1_red_done(ev);
}
/* Test every pending handle of h[n] (completed ones become
 * GASNET_COLL_INVALID_HANDLE): 1 when one completed now or none is pending. */
static int gasnete_g1_some(const char *fname, gasnet_coll_handle_t *h, size_t n) {
  size_t left = 0, done = 0;
  for (size_t i = 0; i < n; i++) {
    if (h[i] == GASNET_COLL_INVALID_HANDLE) continue;
    if (gasnete_g1_test(fname, h[i])) {
      h[i] = GASNET_COLL_INVALID_HANDLE;
      done++;
    } else {
      left++;
    }
  }
  return done > 0 || left == 0;
}

void gasnet_coll_wait_sync(gasnet_coll_handle_t h) { gasnete_g1_wait("gasnet_coll_wait_sync", h); }
int gasnet_coll_try_sync(gasnet_coll_handle_t h) {
  gasnet_AMPoll(); /* "try" polls (spec 1.8 3.3.3) */
  return gasnete_g1_test("gasnet_coll_try_sync", h) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gasnet_coll_wait_sync_some(gasnet_coll_handle_t *h, size_t n) {
  GASNETE_WAIT_UNTIL(gasnete_g1_some("gasnet_coll_wait_sync_some", h, n));
}
int gasnet_coll_try_sync_some(gasnet_coll_handle_t *h, size_t n) {
  gasnet_AMPoll();
  return gasnete_g1_some("gasnet_coll_try_sync_some", h, n) ? GASNET_OK : GASNET_ERR_NOT_READY;
}
void gasnet_coll_wait_sync_all(gasnet_coll_handle_t *h, size_t n) {
  for (size_t i = 0; i < n; i++) {
    gasnete_g1_wait("gasnet_coll_wait_sync_all", h[i]);
    h[i] = GASNET_COLL_INVALID_HANDLE;
  }
}
int gasnet_coll_try_sync_all(gasnet_coll_handle_t *h, size_t n) {
  gasnet_AMPoll();
  int all = 1;
  for (size_t i = 0; i < n; i++) {
    if (h[i] == GASNET_COLL_INVALID_HANDLE) continue;
    if (gasnete_g1_test("gasnet_coll_try_sync_all", h[i])) h[i] = GASNET_COLL_INVALID_HANDLE;
    else all = 0;
  }
  return all ? GASNET_OK : GASNET_ERR_NOT_READY;
}

/* ---- broadcast, scatter, gather, gather_all, exchange ---------------------------- */

static gex_Event_t gasnete_g1_broadcast(const char *fname, gasnet_team_handle_t team,
                                        void *const dst[], int m, gasnet_image_t srcimage,
                                        void *src, size_t nbytes, int flags) {
  int sync;
  gasnetc_team_t *tm = gasnete_g1_begin(fname, team, flags, &sync);
  gex_Rank_t root = gasnete_g1_image(fname, tm, srcimage, "srcimage");
  void *mine = gasnete_g1_pick(fname, tm, dst, m, flags, "dstlist");
  return gasnete_coll_broadcast(fname, tm, root, mine, src, nbytes, sync);
}
static gex_Event_t gasnete_g1_scatter(const char *fname, gasnet_team_handle_t team,
                                      void *const dst[], int m, gasnet_image_t srcimage,
                                      void *src, size_t nbytes, int flags) {
  int sync;
  gasnetc_team_t *tm = gasnete_g1_begin(fname, team, flags, &sync);
  gex_Rank_t root = gasnete_g1_image(fname, tm, srcimage, "srcimage");
  void *mine = gasnete_g1_pick(fname, tm, dst, m, flags, "dstlist");
  return gasnete_coll_scatter(fname, tm, root, mine, src, nbytes, sync);
}
static gex_Event_t gasnete_g1_gather(const char *fname, gasnet_team_handle_t team,
                                     gasnet_image_t dstimage, void *dst, void *const src[], int m,
                                     size_t nbytes, int flags) {
  int sync;
  gasnetc_team_t *tm = gasnete_g1_begin(fname, team, flags, &sync);
  gex_Rank_t root = gasnete_g1_image(fname, tm, dstimage, "dstimage");
  void *mine = gasnete_g1_pick(fname, tm, src, m, flags, "srclist");
  return gasnete_coll_gather(fname, tm, root, dst, mine, nbytes, sync);
}
static gex_Event_t gasnete_g1_gather_all(const char *fname, gasnet_team_handle_t team,
                                         void *const dst[], void *const src[], int m,
                                         size_t nbytes, int flags) {
  int sync;
  gasnetc_team_t *tm = gasnete_g1_begin(fname, team, flags, &sync);
  return gasnete_coll_gather_all(fname, tm, gasnete_g1_pick(fname, tm, dst, m, flags, "dstlist"),
                                 gasnete_g1_pick(fname, tm, src, m, flags, "srclist"), nbytes,
                                 sync);
}
static gex_Event_t gasnete_g1_exchange(const char *fname, gasnet_team_handle_t team,
                                       void *const dst[], void *const src[], int m,
                                       size_t nbytes, int flags) {
  int sync;
  gasnetc_team_t *tm = gasnete_g1_begin(fname, team, flags, &sync);
  return gasnete_coll_exchange(fname, tm, gasnete_g1_pick(fname, tm, dst, m, flags, "dstlist"),
                               gasnete_g1_pick(fname, tm, src, m, flags, "srclist"), nbytes,
                               sync);
}

/* Each collective in its four forms: blocking (the call's event waited
 * here), _nb, M and M_nb. A plain call passes its one address as a list
 * of one (m = 0). */

void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                           void *src, size_t nbytes, int flags) {
  gasnete_event_wait("gasnet_coll_broadcast",
                  gasnete_g1_broadcast("gasnet_coll_broadcast", team, &dst, 0, srcimage, src,
                                       nbytes, flags));
}
gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                              gasnet_image_t srcimage, void *src, size_t nbytes,
                                              int flags) {
  return gasnete_g1_broadcast("gasnet_coll_broadcast_nb", team, &dst, 0, srcimage, src, nbytes,
                              flags);
}
void gasnet_coll_broadcastM(gasnet_team_handle_t team, void *const dstlist[],
                            gasnet_image_t srcimage, void *src, size_t nbytes, int flags) {
  gasnete_event_wait("gasnet_coll_broadcastM",
                  gasnete_g1_broadcast("gasnet_coll_broadcastM", team, dstlist, 1, srcimage, src,
                                       nbytes, flags));
}
gasnet_coll_handle_t gasnet_coll_broadcastM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                               gasnet_image_t srcimage, void *src, size_t nbytes,
                                               int flags) {
  return gasnete_g1_broadcast("gasnet_coll_broadcastM_nb", team, dstlist, 1, srcimage, src,
                              nbytes, flags);
}

void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                         void *src, size_t nbytes, int flags) {
  gasnete_event_wait("gasnet_coll_scatter",
                  gasnete_g1_scatter("gasnet_coll_scatter", team, &dst, 0, srcimage, src, nbytes,
                                     flags));
}
gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                            gasnet_image_t srcimage, void *src, size_t nbytes,
                                            int flags) {
  return gasnete_g1_scatter("gasnet_coll_scatter_nb", team, &dst, 0, srcimage, src, nbytes,
                            flags);
}
void gasnet_coll_scatterM(gasnet_team_handle_t team, void *const dstlist[],
                          gasnet_image_t srcimage, void *src, size_t nbytes, int flags) {
  gasnete_event_wait("gasnet_coll_scatterM",
                  gasnete_g1_scatter("gasnet_coll_scatterM", team, dstlist, 1, srcimage, src,
                                     nbytes, flags));
}
gasnet_coll_handle_t gasnet_coll_scatterM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                             gasnet_image_t srcimage, void *src, size_t nbytes,
                                             int flags) {
  return gasnete_g1_scatter("gasnet_coll_scatterM_nb", team, dstlist, 1, srcimage, src, nbytes,
                            flags);
}

void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                        void *src, size_t nbytes, int flags) {
  gasnete_event_wait("gasnet_coll_gather",
                  gasnete_g1_gather("gasnet_coll_gather", team, dstimage, dst, &src, 0, nbytes,
                                    flags));
}
gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                           void *dst, void *src, size_t nbytes, int flags) {
  return gasnete_g1_gather("gasnet_coll_gather_nb", team, dstimage, dst, &src, 0, nbytes,
                           flags);
}
void gasnet_coll_gatherM(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                         void *const srclist[], size_t nbytes, int flags) {
  gasnete_event_wait("gasnet_coll_gatherM",
                  gasnete_g1_gather("gasnet_coll_gatherM", team, dstimage, dst, srclist, 1,
                                    nbytes, flags));
}
gasnet_coll_handle_t gasnet_coll_gatherM_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                            void *dst, void *const srclist[], size_t nbytes,
                                            int flags) {
  return gasnete_g1_gather("gasnet_coll_gatherM_nb", team, dstimage, dst, srclist, 1, nbytes,
                           flags);
}

void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                            int flags) {
  gasnete_event_wait("gasnet_coll_gather_all",
                  gasnete_g1_gather_all("gasnet_coll_gather_all", team, &dst, &src, 0, nbytes,
                                        flags));
}
gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst, void *src,
                                               size_t nbytes, int flags) {
  return gasnete_g1_gather_all("gasnet_coll_gather_all_nb", team, &dst, &src, 0, nbytes, flags);
}
void gasnet_coll_gather_allM(gasnet_team_handle_t team, void *const dstlist[],
                             void *const srclist[], size_t nbytes, int flags) {
  gasnete_event_wait("gasnet_coll_gather_allM",
                  gasnete_g1_gather_all("gasnet_coll_gather_allM", team, dstlist, srclist, 1,
                                        nbytes, flags));
}
gasnet_coll_handle_t gasnet_coll_gather_allM_nb(gasnet_team_handle_t team,
                                                void *const dstlist[], void *const srclist[],
                                                size_t nbytes, int flags) {
  return gasnete_g1_gather_all("gasnet_coll_gather_allM_nb", team, dstlist, srclist, 1, nbytes,
                               flags);
}

void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                          int flags) {
  gasnete_event_wait("gasnet_coll_exchange",
                  gasnete_g1_exchange("gasnet_coll_exchange", team, &dst, &src, 0, nbytes,
                                      flags));
}
gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst, void *src,
                                             size_t nbytes, int flags) {
  return gasnete_g1_exchange("gasnet_coll_exchange_nb", team, &dst, &src, 0, nbytes, flags);
}
void gasnet_coll_exchangeM(gasnet_team_handle_t team, void *const dstlist[],
                           void *const srclist[], size_t nbytes, int flags) {
  gasnete_event_wait("gasnet_coll_exchangeM",
                  gasnete_g1_exchange("gasnet_coll_exchangeM", team, dstlist, srclist, 1, nbytes,
                                      flags));
}
gasnet_coll_handle_t gasnet_coll_exchangeM_nb(gasnet_team_handle_t team, void *const dstlist[],
                                              void *const srclist[], size_t nbytes, int flags) {
  return gasnete_g1_exchange("gasnet_coll_exchangeM_nb", team, dstlist, srclist, 1, nbytes,
                             flags);
}

/* ---- reduce -----------------------------------------------------------------------
 * The adaptor's cdata: what GASNet-1's function needs besides the operands. */
typedef struct gasnete_g1_red {
  gasnet_coll_fn_t fn;
  int flags, arg;             /* the fn_table entry's flags, the call's func_arg */
  size_t elem_size;
  gex_Event_t ev;             /* pending: the _nb call's handle */
  struct gasnete_g1_red *next;
} gasnete_g1_red_t;

/* This thread's _nb reductions not yet seen complete (newest first) and
 * spare records. Never freed: a thread's records are its pool. */
static GASNETE_TLS struct {
  gasnete_g1_red_t *pending, *spare;
} gasnete_g1_reds;

/* The engine's user_op: arg2_and_out[i] = arg1[i] (+) arg2_and_out[i], where
 * arg1 holds the lower ranks' contributions, so arg1 is the left operand. */
static void gasnete_g1_reduce_fn(const void *arg1, void *arg2_and_out, size_t count,
                                 const void *cdata) {
  const gasnete_g1_red_t *r = cdata;
  r->fn(arg2_and_out, count, arg1, count, arg2_and_out, r->elem_size, r->flags, r->arg);
}

/* ev is complete and reaped: if it was an _nb reduction's, its record goes
 * back to the pool. Newest first: should a handle have been reaped by a
 * non-collective call and its event been reused, the record found is the
 * one of the operation that has just completed. */
static void gasnete_g1_red_done(gex_Event_t ev) {
  if (GASNETE_LIKELY(!gasnete_g1_reds.pending) || ev == GEX_EVENT_INVALID) return;
  for (gasnete_g1_red_t **pp = &gasnete_g1_reds.pending; *pp; pp = &(*pp)->next) {
    if ((*pp)->ev != ev) continue;
    gasnete_g1_red_t *r = *pp;
    *pp = r->next;
    r->next = gasnete_g1_reds.spare;
    gasnete_g1_reds.spare = r;
    return;
  }
}

/* r: the cdata, filled here; it must live until the event completes. */
static gex_Event_t gasnete_g1_reduce(const char *fname, gasnet_team_handle_t team,
                                     gasnet_image_t dstimage, void *dst, void *const src[], int m,
                                     size_t src_offset, size_t elem_size, size_t elem_count,
                                     gasnet_coll_fn_handle_t func, int func_arg, int flags,
                                     gasnete_g1_red_t *r) {
  int sync;
  gasnetc_team_t *tm = gasnete_g1_begin(fname, team, flags, &sync);
  gex_Rank_t root = gasnete_g1_image(fname, tm, dstimage, "dstimage");
  if (GASNETE_UNLIKELY(func >= gasnete_g1.nfns))
    gasnete_fatal("%s: func %u is not a function of gasnet_coll_init's fn_table (fn_count %zu)",
                  fname, (unsigned)func, gasnete_g1.nfns);
  if (GASNETE_UNLIKELY(!gasnete_g1.fns[func].fnptr))
    gasnete_fatal("%s: func %u: fn_table[%u].fnptr is NULL", fname, (unsigned)func,
                  (unsigned)func);
  if (GASNETE_UNLIKELY(elem_size == 0))
    gasnete_fatal("%s: elem_size is 0", fname);
  r->fn = gasnete_g1.fns[func].fnptr;
  r->flags = (int)gasnete_g1.fns[func].flags;
  r->arg = func_arg;
  r->elem_size = elem_size;
  /* The contribution: elem_count elements at src + src_offset. src_blksz,
   * the distance between one node's images' blocks, has no use with one
   * image per node. */
  const char *mine = gasnete_g1_pick(fname, tm, src, m, flags, "srclist");
  mine += src_offset;
  return gasnete_coll_reduce(fname, tm, root, dst, mine, GEX_DT_USER, elem_size, elem_count,
                             GEX_OP_USER_NC, gasnete_g1_reduce_fn, r, sync);
}

static void gasnete_g1_reduce_blocking(const char *fname, gasnet_team_handle_t team,
                                       gasnet_image_t dstimage, void *dst, void *const src[],
                                       int m, size_t src_offset, size_t elem_size,
                                       size_t elem_count, gasnet_coll_fn_handle_t func,
                                       int func_arg, int flags) {
  gasnete_g1_red_t r; /* lives until the wait below returns */
  gex_Event_t ev = gasnete_g1_reduce(fname, team, dstimage, dst, src, m, src_offset, elem_size,
                                     elem_count, func, func_arg, flags, &r);
  gasnete_event_wait(fname, ev);
}

static gex_Event_t gasnete_g1_reduce_nb(const char *fname, gasnet_team_handle_t team,
                                        gasnet_image_t dstimage, void *dst, void *const src[],
                                        int m, size_t src_offset, size_t elem_size,
                                        size_t elem_count, gasnet_coll_fn_handle_t func,
                                        int func_arg, int flags) {
  gasnete_g1_red_t *r = gasnete_g1_reds.spare;
  if (r) {
    gasnete_g1_reds.spare = r->next;
  } else if (!(r = malloc(sizeof *r))) {
    gasnete_fatal("%s: out of memory", fname);
  }
  gex_Event_t ev = gasnete_g1_reduce(fname, team, dstimage, dst, src, m, src_offset, elem_size,
                                     elem_count, func, func_arg, flags, r);
  if (ev == GEX_EVENT_INVALID) { /* done inside the call */
    r->next = gasnete_g1_reds.spare;
    gasnete_g1_reds.spare = r;
  } else {
    r->ev = ev;
    r->next = gasnete_g1_reds.pending;
    gasnete_g1_reds.pending = r;
  }
  return ev;
}

void gasnet_coll_reduce(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                        void *src, size_t src_blksz, size_t src_offset, size_t elem_size,
                        size_t elem_count, gasnet_coll_fn_handle_t func, int func_arg,
                        int flags) {
  (void)src_blksz;
  gasnete_g1_reduce_blocking("gasnet_coll_reduce", team, dstimage, dst, &src, 0, src_offset,
                             elem_size, elem_count, func, func_arg, flags);
}
gasnet_coll_handle_t gasnet_coll_reduce_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                           void *dst, void *src, size_t src_blksz,
                                           size_t src_offset, size_t elem_size,
                                           size_t elem_count, gasnet_coll_fn_handle_t func,
                                           int func_arg, int flags) {
  (void)src_blksz;
  return gasnete_g1_reduce_nb("gasnet_coll_reduce_nb", team, dstimage, dst, &src, 0, src_offset,
                              elem_size, elem_count, func, func_arg, flags);
}
void gasnet_coll_reduceM(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                         void *const srclist[], size_t src_blksz, size_t src_offset,
                         size_t elem_size, size_t elem_count, gasnet_coll_fn_handle_t func,
                         int func_arg, int flags) {
  (void)src_blksz;
  gasnete_g1_reduce_blocking("gasnet_coll_reduceM", team, dstimage, dst, srclist, 1, src_offset,
                             elem_size, elem_count, func, func_arg, flags);
}
gasnet_coll_handle_t gasnet_coll_reduceM_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                            void *dst, void *const srclist[], size_t src_blksz,
                                            size_t src_offset, size_t elem_size,
                                            size_t elem_count, gasnet_coll_fn_handle_t func,
                                            int func_arg, int flags) {
  (void)src_blksz;
  return gasnete_g1_reduce_nb("gasnet_coll_reduceM_nb", team, dstimage, dst, srclist, 1,
                              src_offset, elem_size, elem_count, func, func_arg, flags);
}

/* ---- teams ------------------------------------------------------------------------ */

/* Collective over parent_team: the members of one color form a team,
 * ranked by myrelrank (ties by parent rank). No scratch: the engine keeps
 * its buffers in private memory. */
gasnet_team_handle_t gasnet_coll_team_split(gasnet_team_handle_t parent_team,
                                            gasnet_node_t mycolor, gasnet_node_t myrelrank,
                                            const gasnet_seginfo_t *scratch_seg) {
  (void)scratch_seg;
  gasnete_g1_team("gasnet_coll_team_split", parent_team);
  gex_TM_t tm = GEX_TM_INVALID;
  gex_TM_Split(&tm, parent_team, (int)mycolor, (int)myrelrank, NULL, 0,
               GEX_FLAG_TM_NO_SCRATCH);
  return tm;
}

gasnet_node_t gasnet_coll_team_rank(gasnet_team_handle_t team) {
  return gasnete_g1_team("gasnet_coll_team_rank", team)->rank;
}
gasnet_node_t gasnet_coll_team_size(gasnet_team_handle_t team) {
  return gasnete_g1_team("gasnet_coll_team_size", team)->size;
}
gasnet_node_t gasnet_coll_team_rank2node(gasnet_team_handle_t team, gasnet_node_t rank) {
  gasnetc_team_t *tm = gasnete_g1_team("gasnet_coll_team_rank2node", team);
  if (GASNETE_UNLIKELY(rank >= tm->size))
    gasnete_fatal("gasnet_coll_team_rank2node: rank %u is not in the team (its size is %u)",
                  (unsigned)rank, (unsigned)tm->size);
  return gex_TM_TranslateRankToJobrank(team, rank);
}
gasnet_node_t gasnet_coll_team_node2rank(gasnet_team_handle_t team, gasnet_node_t node) {
  gasnete_g1_team("gasnet_coll_team_node2rank", team);
  if (GASNETE_UNLIKELY(node >= gasnete_g.nodes))
    gasnete_fatal("gasnet_coll_team_node2rank: node %u does not exist (the job has %u nodes)",
                  (unsigned)node, (unsigned)gasnete_g.nodes);
  gex_Rank_t r = gex_TM_TranslateJobrankToRank(team, node);
  if (GASNETE_UNLIKELY(r == GEX_RANK_INVALID))
    gasnete_fatal("gasnet_coll_team_node2rank: node %u is not a member of the team",
                  (unsigned)node);
  return r;
}

/* ---- team barriers (gasnete_barrier.c, spec 3.5's rules per team) ------------------ */

void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags) {
  gasnete_barrier_notify_tm("gasnet_coll_barrier_notify",
                            gasnete_g1_team("gasnet_coll_barrier_notify", team), id, flags);
}
int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags) {
  return gasnete_barrier_wait_tm("gasnet_coll_barrier_wait",
                                 gasnete_g1_team("gasnet_coll_barrier_wait", team), id, flags);
}
int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags) {
  return gasnete_barrier_try_tm("gasnet_coll_barrier_try",
                                gasnete_g1_team("gasnet_coll_barrier_try", team), id, flags);
}
int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags) {
  gasnet_coll_barrier_notify(team, id, flags);
  return gasnet_coll_barrier_wait(team, id, flags);
}

/* ---- tuning and profiling: nothing is recorded, so nothing to dump or load -------- */

void gasnet_coll_dumpProfile(const char *filename, gasnet_team_handle_t team) {
  (void)filename; (void)team;
}
void gasnet_coll_dumpTuningState(const char *filename, gasnet_team_handle_t team) {
  (void)filename; (void)team;
}
void gasnet_coll_loadTuningState(const char *filename, gasnet_team_handle_t team) {
  (void)filename; (void)team;
}
