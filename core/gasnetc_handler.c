/*
 * gasnetc_handler.c - the handler table and handler dispatch.
 *
 * The table belongs to an endpoint (gasnetc_ep_t). Registration (spec
 * 2.1.0.2): gasnet_attach's entries take 128..255; index 0 ("don't care")
 * gets the lowest free index from 128 up, in table order, so the same table
 * gives the same indexes on every node. 1..63 are the core's own handlers
 * (gasnetc_core_handlers below), 64..127 the extensions' (the conduit's
 * gasnetc_extension_t list), registered at gasnet_init; a client may add
 * entries at any time after init (gasnetc_ep_register). Whether an index is
 * registered is checked where the message arrives: a sender cannot know
 * what its peer registered since.
 *
 * Dispatch: every message, from the transport (gasnetc_deliver_cb) or from
 * loopback (gasnetc_am.c), ends in gasnetc_handler_run, which checks the
 * index, makes the token, and calls the handler with its M arguments through
 * a switch generated from GASNETC_AM_FOREACH_M.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "gasnetc_internal.h"

GASNETC_TLS gasnetc_thread_t gasnetc_thread;


/* ---- the core's own handlers ------------------------------------------- */

/* Short1(code): the sender called gasnet_exit(code) (spec 2.1.0.5). Only
 * records it (the first one): the exit happens at a later poll point,
 * outside any handler (gasnetc_exit_check_slow). */
static void gasnetc_exit_handler(gasnet_token_t token, gasnet_handlerarg_t code) {
  (void)token;
  if (__atomic_load_n(&gasnetc_g.remote_exit, __ATOMIC_ACQUIRE)) return;
  __atomic_store_n(&gasnetc_g.remote_code, (int)code, __ATOMIC_RELAXED);
  __atomic_store_n(&gasnetc_g.remote_exit_ns, gasneti_now_ns(), __ATOMIC_RELAXED);
  __atomic_store_n(&gasnetc_g.remote_exit, 1, __ATOMIC_RELEASE);
}

static const gasnet_handlerentry_t gasnetc_core_handlers[] = {
  { GASNETC_HANDLER_EXIT, (void (*)())gasnetc_exit_handler },
  { GASNETC_HANDLER_SYNC, (void (*)())gasnetc_sync_handler }, /* gasnetc_ex.c */
  { GASNETC_HANDLER_SEGINFO, (void (*)())gasnetc_seginfo_handler }, /* gasnetc_init.c */
};

/* ---- registration -------------------------------------------------------- */

/* Check every entry of t against ep's table and [lo, hi] before any is
 * set, so a failed call registers nothing. Index 0 entries are counted in
 * *nany. */
static int gasnetc_ep_check(const gasnetc_ep_t *ep, const gex_AM_Entry_t *t, size_t n,
                            int lo, int hi, const char *call, int *nany) {
  *nany = 0;
  if (n > 0 && !t)
    return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call, "NULL handler table of %zu entries", n);
  for (size_t i = 0; i < n; i++) {
    int idx = t[i].gex_index;
    if (!t[i].gex_fnptr)
      return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call,
                                  "handler table entry %zu (index %d) has a NULL fnptr", i, idx);
    if (t[i].gex_nargs > GASNETC_AM_MAX_ARGS)
      return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call,
                                  "handler table entry %zu: gex_nargs %u is above gex_AM_MaxArgs() = %d",
                                  i, t[i].gex_nargs, GASNETC_AM_MAX_ARGS);
    if (idx == 0) { (*nany)++; continue; }
    if (idx < lo || idx > hi)
      return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call,
                                  "handler table entry %zu asks for index %d; %s use %d..%d or 0 "
                                  "(1..127 are reserved: spec 2.1.0.2)",
                                  i, idx, lo >= GASNETC_HANDLER_CLIENT_FIRST ? "clients" : "the library's handlers",
                                  lo, hi);
    int twice = ep->handlers[idx] != NULL;
    for (size_t k = 0; k < i && !twice; k++) twice = t[k].gex_index == idx;
    if (twice)
      return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call,
                                  "handler table entry %zu: handler index %d is registered twice",
                                  i, idx);
  }
  return GASNET_OK;
}

static void gasnetc_ep_set(gasnetc_ep_t *ep, int idx, gex_AM_Entry_t *e) {
  e->gex_index = (gex_AM_Index_t)idx;
  ep->entries[idx] = *e;
  __atomic_store_n(&ep->handlers[idx], (gasnetc_handler_fn_t)e->gex_fnptr, __ATOMIC_RELEASE);
}

int gasnetc_ep_register_ex(gasnetc_ep_t *ep, gex_AM_Entry_t *table, size_t numentries,
                           int lo, int hi, int highest, const char *call) {
  int nany, rc = gasnetc_ep_check(ep, table, numentries, lo, hi, call, &nany);
  if (rc) return rc;
  /* Index 0 entries take the free indexes not asked for explicitly. */
  int free_n = 0;
  for (int h = lo; h <= hi; h++) {
    int asked = 0;
    for (size_t i = 0; i < numentries && !asked; i++) asked = table[i].gex_index == h;
    free_n += !ep->handlers[h] && !asked;
  }
  if (nany > free_n)
    return gasnetc_setup_failed(GASNET_ERR_RESOURCE, call,
                                "%d handlers asked for any index, but only %d of %d..%d are free",
                                nany, free_n, lo, hi);
  for (size_t i = 0; i < numentries; i++)
    if (table[i].gex_index) gasnetc_ep_set(ep, table[i].gex_index, &table[i]);
  /* In table order: GASNet-1 takes the lowest free index (a deterministic
   * rule of ours, spec 2.1.0.2 leaves it open), EX the highest
   * (gex_EP_RegisterHandlers). The index is written back in place. */
  int next = highest ? hi : lo;
  for (size_t i = 0; i < numentries; i++) {
    if (table[i].gex_index) continue;
    while (ep->handlers[next]) next += highest ? -1 : 1;
    gasnetc_ep_set(ep, next, &table[i]);
  }
  return GASNET_OK;
}

/* GASNet-1 entries say nothing of category, direction or argument count. */
#define GASNETC_FLAGS_ANY (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQREP)

int gasnetc_ep_register(gasnetc_ep_t *ep, gasnet_handlerentry_t *table, int numentries,
                        int lo, int hi, const char *call) {
  if (numentries < 0 || (numentries > 0 && !table))
    return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call, "bad handler table (%p, %d entries)",
                                (void *)table, numentries);
  gex_AM_Entry_t *ex = calloc((size_t)numentries + 1, sizeof *ex);
  if (!ex) return gasnetc_setup_failed(GASNET_ERR_RESOURCE, call, "out of memory");
  for (int i = 0; i < numentries; i++)
    ex[i] = (gex_AM_Entry_t){ table[i].index, (gex_AM_Fn_t)table[i].fnptr, GASNETC_FLAGS_ANY,
                              0, NULL, NULL };
  int rc = gasnetc_ep_register_ex(ep, ex, (size_t)numentries, lo, hi, 0, call);
  for (int i = 0; i < numentries && rc == GASNET_OK; i++)
    if (table[i].index == 0) table[i].index = ex[i].gex_index; /* only "don't care" ones */
  free(ex);
  return rc;
}

int gasnetc_handler_init(gasnetc_ep_t *ep) {
  int rc = gasnetc_ep_register(ep, (gasnet_handlerentry_t *)gasnetc_core_handlers,
                               (int)(sizeof gasnetc_core_handlers / sizeof gasnetc_core_handlers[0]),
                               1, GASNETC_HANDLER_CORE_LAST, "gasnet_init");
  for (unsigned i = 0; i < gasnetc_conduit.nextensions && !rc; i++) {
    const gasnetc_extension_t *x = gasnetc_conduit.extensions[i];
    rc = gasnetc_ep_register(ep, (gasnet_handlerentry_t *)x->handlers, x->nhandlers,
                             GASNETC_HANDLER_EXT_FIRST, GASNETC_HANDLER_EXT_LAST, "gasnet_init");
  }
  return rc;
}

void gasnetc_handler_inherit(gasnetc_ep_t *ep) {
  const gasnetc_ep_t *ep0 = &gasnetc_g.ep0;
  for (int h = GASNETC_HANDLER_CLIENT_FIRST; h <= GASNETC_HANDLER_CLIENT_LAST; h++) {
    gasnetc_handler_fn_t fn = __atomic_load_n(&ep0->handlers[h], __ATOMIC_ACQUIRE);
    if (!fn) continue;
    gex_AM_Entry_t e = ep0->entries[h];
    gasnetc_ep_set(ep, h, &e);
  }
}

/* ---- per-thread buffers -------------------------------------------------- */

#define GASNETC_THREAD_BUFS 4 /* handler nesting depths with a cached buffer */
static GASNETC_TLS void *gasnetc_bufs[GASNETC_THREAD_BUFS];
static GASNETC_TLS int gasnetc_depth; /* handlers running on this thread */

void *gasnetc_thread_buf(int slot) {
  if (slot >= GASNETC_THREAD_BUFS) slot = GASNETC_THREAD_BUFS - 1;
  if (!gasnetc_bufs[slot]) {
    /* Once per thread and depth; not freed at thread exit (64 KiB each). */
    if (posix_memalign(&gasnetc_bufs[slot], 64, GASNETC_AM_MAX_MEDIUM))
      gasnetc_fatal("out of memory for a %u-byte AM buffer", GASNETC_AM_MAX_MEDIUM);
  }
  return gasnetc_bufs[slot];
}

int gasnetc_handler_depth(void) { return gasnetc_depth; }

/* ---- dispatch ------------------------------------------------------------ */

/* GASNETC_A_M: ", a[0], ..., a[M-1]";  GASNETC_T_M: M times ", gasnet_handlerarg_t" */
#define GASNETC_A_0
#define GASNETC_A_1 GASNETC_A_0, a[0]
#define GASNETC_A_2 GASNETC_A_1, a[1]
#define GASNETC_A_3 GASNETC_A_2, a[2]
#define GASNETC_A_4 GASNETC_A_3, a[3]
#define GASNETC_A_5 GASNETC_A_4, a[4]
#define GASNETC_A_6 GASNETC_A_5, a[5]
#define GASNETC_A_7 GASNETC_A_6, a[6]
#define GASNETC_A_8 GASNETC_A_7, a[7]
#define GASNETC_A_9 GASNETC_A_8, a[8]
#define GASNETC_A_10 GASNETC_A_9, a[9]
#define GASNETC_A_11 GASNETC_A_10, a[10]
#define GASNETC_A_12 GASNETC_A_11, a[11]
#define GASNETC_A_13 GASNETC_A_12, a[12]
#define GASNETC_A_14 GASNETC_A_13, a[13]
#define GASNETC_A_15 GASNETC_A_14, a[14]
#define GASNETC_A_16 GASNETC_A_15, a[15]
#define GASNETC_T_0
#define GASNETC_T_1 GASNETC_T_0, gasnet_handlerarg_t
#define GASNETC_T_2 GASNETC_T_1, gasnet_handlerarg_t
#define GASNETC_T_3 GASNETC_T_2, gasnet_handlerarg_t
#define GASNETC_T_4 GASNETC_T_3, gasnet_handlerarg_t
#define GASNETC_T_5 GASNETC_T_4, gasnet_handlerarg_t
#define GASNETC_T_6 GASNETC_T_5, gasnet_handlerarg_t
#define GASNETC_T_7 GASNETC_T_6, gasnet_handlerarg_t
#define GASNETC_T_8 GASNETC_T_7, gasnet_handlerarg_t
#define GASNETC_T_9 GASNETC_T_8, gasnet_handlerarg_t
#define GASNETC_T_10 GASNETC_T_9, gasnet_handlerarg_t
#define GASNETC_T_11 GASNETC_T_10, gasnet_handlerarg_t
#define GASNETC_T_12 GASNETC_T_11, gasnet_handlerarg_t
#define GASNETC_T_13 GASNETC_T_12, gasnet_handlerarg_t
#define GASNETC_T_14 GASNETC_T_13, gasnet_handlerarg_t
#define GASNETC_T_15 GASNETC_T_14, gasnet_handlerarg_t
#define GASNETC_T_16 GASNETC_T_15, gasnet_handlerarg_t

#define GASNETC_CALL_SHORT(M)                                          \
  case M:                                                              \
    ((void (*)(gasnet_token_t GASNETC_T_##M))fn)(tok GASNETC_A_##M);   \
    break;
#define GASNETC_CALL_PAYLOAD(M)                                        \
  case M:                                                              \
    ((void (*)(gasnet_token_t, void *, size_t GASNETC_T_##M))fn)(      \
        tok, buf, nbytes GASNETC_A_##M);                               \
    break;

static const char *gasnetc_category_name(unsigned c) {
  return c == GASNETC_WIRE_SHORT ? "Short" : c == GASNETC_WIRE_MEDIUM ? "Medium"
                                                                      : "Long";
}

GASNETI_HOT
void gasnetc_handler_run(gasnetc_ep_t *ep, gasnet_node_t src, const gasnetc_wire_msg_t *m,
                         void *buf, size_t nbytes) {
  gasnetc_handler_fn_t fn = __atomic_load_n(&ep->handlers[m->handler], __ATOMIC_ACQUIRE);
  int is_request = !(m->flags & GASNETC_WIRE_F_REPLY);
  if (GASNETC_UNLIKELY(!fn))
    gasnetc_fatal("gasnet_AM%s%s%u: handler %u is not registered on node %u "
                  "(sent by node %u; spec 2.3)", is_request ? "Request" : "Reply",
                  m->flags & GASNETC_WIRE_F_ASYNC ? "LongAsync" : gasnetc_category_name(m->category),
                  (unsigned)m->nargs, (unsigned)m->handler, (unsigned)gasnetc_g.mynode,
                  (unsigned)src);
  struct gasnetc_token token = { GASNETC_TOKEN_MAGIC, src, ep, m->src_ep, (uint8_t)is_request,
                                 0, m->handler, m->category == GASNETC_WIRE_LONG };
  gasnet_token_t tok = &token;
  gasnetc_thread_t *th = &gasnetc_thread;
  struct gasnetc_token *outer = th->token;
  int hsl_before = th->hsl_depth, sd_before = th->sd.open;
  const gasnet_handlerarg_t *a = m->args;
  th->token = tok;
  gasnetc_depth++;
  if (m->category == GASNETC_WIRE_SHORT) {
    switch (m->nargs) { GASNETC_AM_FOREACH_M(GASNETC_CALL_SHORT) }
  } else {
    switch (m->nargs) { GASNETC_AM_FOREACH_M(GASNETC_CALL_PAYLOAD) }
  }
  gasnetc_depth--;
  th->token = outer;
  token.magic = 0; /* the token dies with the handler */
  if (GASNETC_UNLIKELY(th->hsl_depth != hsl_before))
    gasnetc_fatal("AM handler %u returned holding an HSL (spec 2.4.5)",
                  (unsigned)m->handler);
  if (GASNETC_UNLIKELY(th->sd.open != sd_before))
    gasnetc_fatal("AM handler %u returned between a gex_AM_Prepare%s%s and its Commit "
                  "(the SrcDesc must be consumed by a Commit in the same thread)",
                  (unsigned)m->handler, th->sd.is_request ? "Request" : "Reply",
                  th->sd.category == GASNETC_AM_LONG ? "Long" : "Medium");
  if (is_request) GASNETC_STAT_ADD(requests_handled, 1);
  else GASNETC_STAT_ADD(replies_handled, 1);
}

/* Run handler idx of the EP token's message came to, here, now, as a
 * 0-argument Medium reply from its sender carrying buf[nbytes]: the VIS
 * peer completion (gasnet_vis.h), which the description delivers to "a
 * 0-argument AM Medium Reply handler" at the peer, from inside the
 * extension's request handler (a nested handler, as a loopback reply would
 * be). Fatal, naming fname, unless idx was registered for Medium replies
 * with no arguments. */
void gasnetc_handler_run_reply_medium(const char *fname, gex_Token_t token, gex_AM_Index_t idx,
                                      void *buf, size_t nbytes) {
  gasnetc_ep_t *ep = token->ep;
  const gex_AM_Entry_t *e = &ep->entries[idx];
  gex_Flags_t want = GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY;
  if (ep->handlers[idx] && ((e->gex_flags & want) != want || e->gex_nargs != 0))
    gasnetc_fatal("%s: handler %u on node %u is registered with flags %#x and %u arguments; "
                  "a peer completion handler must be registered with GEX_FLAG_AM_MEDIUM | "
                  "GEX_FLAG_AM_REPLY and 0 arguments", fname, (unsigned)idx,
                  (unsigned)gasnetc_g.mynode, (unsigned)e->gex_flags, (unsigned)e->gex_nargs);
  gasnetc_wire_msg_t m = { .category = GASNETC_WIRE_MEDIUM, .handler = idx, .nargs = 0,
                           .flags = GASNETC_WIRE_F_REPLY, .dst_ep = (uint8_t)ep->index,
                           .src_ep = token->src_ep };
  gasnetc_handler_run(ep, token->src, &m, buf, nbytes);
}

/* ---- transport callbacks ------------------------------------------------- */

void *gasnetc_place_cb(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                       size_t paylen) {
  gasnetc_wire_msg_t m;
  (void)ctx; (void)src;
  if (gasnetc_wire_decode(hdr, hdrlen, &m) || m.category != GASNETC_WIRE_LONG ||
      paylen == 0)
    return NULL;
  const gasnetc_ep_t *ep = gasnetc_ep_at(m.dst_ep);
  void *dst = (void *)(uintptr_t)m.dest;
  /* Out of range: let the transport buffer it; deliver names the error. */
  return ep && gasnetc_ep_contains(ep, dst, paylen) ? dst : NULL;
}

/* The EP a frame from src names: fatal when this process has none of that
 * index, or it takes no client AMs (a sender's error the sender cannot see). */
static gasnetc_ep_t *gasnetc_deliver_ep(uint32_t src, const gasnetc_wire_msg_t *m) {
  gasnetc_ep_t *ep = gasnetc_ep_at(m->dst_ep);
  if (GASNETC_UNLIKELY(!ep))
    gasnetc_fatal("node %u sent an AM to EP %u of node %u, which has no such EP", (unsigned)src,
                  (unsigned)m->dst_ep, (unsigned)gasnetc_g.mynode);
  if (GASNETC_UNLIKELY(m->handler >= GASNETC_HANDLER_CLIENT_FIRST &&
                       !(ep->caps & GEX_EP_CAPABILITY_AM)))
    gasnetc_fatal("node %u sent a client AM (handler %u) to EP %u of node %u, which was created "
                  "without GEX_EP_CAPABILITY_AM", (unsigned)src, (unsigned)m->handler,
                  (unsigned)m->dst_ep, (unsigned)gasnetc_g.mynode);
  return ep;
}

/* ctx: the transport's gasnetc_tp_t (NULL for the core's own loopback). */
GASNETI_HOT
void gasnetc_deliver_cb(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                        void *payload, size_t paylen) {
  gasnetc_wire_msg_t m;
  (void)ctx;
  if (GASNETC_UNLIKELY(src >= gasnetc_g.nodes ||
                       gasnetc_wire_decode(hdr, hdrlen, &m)))
    gasnetc_fatal("received a malformed AM header (%zu bytes) from node %u",
                  hdrlen, (unsigned)src);
  gasnetc_ep_t *ep = gasnetc_deliver_ep(src, &m);
  gasnetc_thread.in_callback++;
  void *buf = payload;
  switch (m.category) {
  case GASNETC_WIRE_SHORT:
    buf = NULL;
    paylen = 0;
    break;
  case GASNETC_WIRE_MEDIUM:
    if (GASNETC_UNLIKELY(paylen > GASNETC_AM_MAX_MEDIUM))
      gasnetc_fatal("received an AM Medium of %zu bytes from node %u, above "
                    "gasnet_AMMaxMedium() = %u", paylen, (unsigned)src,
                    GASNETC_AM_MAX_MEDIUM);
    /* Spec 2.3.3.2: the handler's buffer is aligned for any datatype, an
     * empty one too (a 0-byte payload in a UDP GRO segment of odd size
     * came at an odd address). */
    if ((uintptr_t)payload & 15) {
      buf = gasnetc_thread_buf(gasnetc_depth);
      if (paylen) {
        memcpy(buf, payload, paylen);
        GASNETC_STAT_ADD(medium_realigned, 1);
      }
    }
    break;
  case GASNETC_WIRE_LONG: {
    void *dst = (void *)(uintptr_t)m.dest;
    if (GASNETC_UNLIKELY(!gasnetc_ep_contains(ep, dst, paylen))) {
      char seg[80];
      gasnetc_segment_format(ep->index, gasnetc_g.mynode, seg, sizeof seg);
      gasnetc_fatal("received an AM Long from node %u with destination "
                    "[%p,+%zu) outside this node's segment %s (EP %u); dropped",
                    (unsigned)src, dst, paylen, seg, ep->index);
    }
    if (paylen && payload != dst) { /* the transport buffered it */
      memcpy(dst, payload, paylen);
      GASNETC_STAT_ADD(long_copied, 1);
    }
    buf = dst;
    break;
  }
  }
  GASNETC_STAT_ADD(payload_bytes_received, paylen);
  if (GASNETC_TRACING('A'))
    gasnetc_trace_am_recv(!(m.flags & GASNETC_WIRE_F_REPLY), m.category, src, m.handler, paylen);
  gasnetc_handler_run(ep, src, &m, buf, paylen);
  gasnetc_thread.in_callback--;
}

void gasnetc_peer_dead_cb(void *ctx, uint32_t rank, const char *why) {
  (void)ctx;
  /* A peer that exits after gasnet_exit is not a failure. */
  if (__atomic_load_n(&gasnetc_g.exiting, __ATOMIC_ACQUIRE) ||
      __atomic_load_n(&gasnetc_g.remote_exit, __ATOMIC_ACQUIRE))
    return;
  /* Say only what the transport knows: a silent peer that answers no
   * liveness probe is dead or stopped; a reset connection means its end
   * was closed. */
  gasnetc_fatal("lost node %u (%s); ending the job",
                (unsigned)rank, why ? why : "no reason given");
}
