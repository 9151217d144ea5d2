/*
 * gasnetc_route.c - the conduit's transports and the route table.
 *
 * At attach the core opens every transport of its conduit
 * (gasnetc_conduit.transports), publishes each one's address, and fills
 * route[r], the transport serving rank r, from the conduit's route rule
 * (the same on both ends of every pair). A transport serves exactly the
 * ranks routed to it (connect's `serves`). Everything the core sends goes
 * through gasnetc_route_send, the one place that turns a transport's
 * "not now" into progress and a retry, and that waits for a payload a
 * transport still reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gasnetc_internal.h"

int gasnetc_route_open(const gasnetc_transport_config_t *base) {
  const gasnetc_conduit_t *cd = &gasnetc_conduit;
  gasnetc_g.max_payload = SIZE_MAX;
  for (unsigned i = 0; i < cd->ntransports; i++) {
    gasnetc_tp_t *tp = &gasnetc_g.tp[i];
    gasnetc_transport_config_t cfg = *base;
    tp->ops = cd->transports[i];
    tp->client = &gasnetc_g;
    tp->index = i;
    cfg.ctx = tp;
    cfg.watch = gasnetc_watch_cb;
    cfg.send_done = gasnetc_send_done_cb;
    if (tp->ops->open(&tp->t, &cfg) != 0)
      return gasnetc_setup_failed(GASNET_ERR_RESOURCE, "gasnet_attach",
                                  "cannot open the %s transport", tp->ops->name);
    gasnetc_g.ntp = i + 1;
    size_t m = tp->ops->max_payload(tp->t);
    if (m < gasnetc_g.max_payload) gasnetc_g.max_payload = m;
  }
  return GASNET_OK;
}

int gasnetc_route_connect(const void *blobs, size_t stride) {
  gasnet_node_t n = gasnetc_g.nodes, me = gasnetc_g.mynode;
  uint8_t *serves = calloc(n, 1);
  if (!(gasnetc_g.route = malloc(n)) || !serves) {
    free(serves);
    return -1;
  }
  for (gasnet_node_t r = 0; r < n; r++)
    gasnetc_g.route[r] = r == me ? GASNETC_ROUTE_SELF
                         : gasnetc_conduit.route ? (uint8_t)gasnetc_conduit.route(me, r) : 0;
  int rc = 0;
  for (unsigned i = 0; i < gasnetc_g.ntp && !rc; i++) {
    gasnetc_tp_t *tp = &gasnetc_g.tp[i];
    tp->serves_any = 0;
    for (gasnet_node_t r = 0; r < n; r++) tp->serves_any |= serves[r] = gasnetc_g.route[r] == i;
    rc = tp->ops->connect(tp->t, (const char *)blobs + i * GASNETC_ADDR_MAX, stride, serves);
  }
  free(serves);
  int in_memory = 0; /* some transport that polls memory only serves ranks */
  for (unsigned i = 0; i < gasnetc_g.ntp; i++)
    in_memory |= gasnetc_g.tp[i].serves_any && gasnetc_g.tp[i].ops->poll_in_memory;
  for (unsigned i = 0; i < gasnetc_g.ntp; i++)
    gasnetc_g.tp[i].throttled = in_memory && !gasnetc_g.tp[i].ops->poll_in_memory;
  return rc ? -1 : 0;
}

/* A send the transport still reads from: done when send_done says so.
 * The cookie is the waiting caller's gasnetc_inflight_t, or, tagged with
 * its low bit, the counter of a caller that does not wait
 * (gasnetc_route_send's lc): one less there. A lost peer's rc needs no
 * telling then: that ends the job (gasnetc_peer_dead_cb). */
typedef struct {
  int done, rc;
} gasnetc_inflight_t;
#define GASNETC_LC_TAG ((uintptr_t)1)

void gasnetc_send_done_cb(void *ctx, void *cookie, int rc) {
  (void)ctx;
  if ((uintptr_t)cookie & GASNETC_LC_TAG) {
    uint32_t *lc = (uint32_t *)((uintptr_t)cookie & ~GASNETC_LC_TAG);
    __atomic_fetch_sub(lc, 1, __ATOMIC_RELEASE);
    return;
  }
  gasnetc_inflight_t *f = cookie;
  f->rc = rc;
  __atomic_store_n(&f->done, 1, __ATOMIC_RELEASE);
}

/* While a transport refuses or still reads: progress, and a short sleep
 * when that did not help (what we wait for is the peer's ack or a writable
 * socket, which the one wait sees). */
#define GASNETC_SEND_SLICE_MS 1

/* A transport said "not now". First a look: the acks or the room we wait
 * for may have arrived already, and their progress frees it for the retry.
 * Only when a look was not enough, a sleep until something arrives. */
static void gasnetc_route_refused(int *looked) {
  GASNETC_STAT_ADD(send_retries, 1);
  if (!*looked) gasnetc_progress();
  else gasnetc_wait(GASNETC_SEND_SLICE_MS);
  *looked = !*looked;
}

GASNETI_HOT
int gasnetc_route_send(gasnet_node_t node, const void *hdr, size_t hdrlen,
                       const void *payload, size_t paylen, unsigned flags, uint32_t *lc) {
  gasnetc_tp_t *tp = gasnetc_route_tp(node);
  gasnetc_inflight_t f = {0, 0};
  void *cookie = &f;
  int rc, looked = 0;
  unsigned tflags = flags & ~GASNETC_SEND_IMMEDIATE;
  if (lc) { /* counted before the send: send_done may come before it returns */
    __atomic_fetch_add(lc, 1, __ATOMIC_RELAXED);
    cookie = (void *)((uintptr_t)lc | GASNETC_LC_TAG);
    tflags |= GASNETC_SEND_BORROW;
  }
  while ((rc = tp->ops->send(tp->t, node, hdr, hdrlen, payload, paylen, tflags, cookie)) ==
         -EAGAIN) {
    if (flags & GASNETC_SEND_IMMEDIATE) break;
    gasnetc_route_refused(&looked);
  }
  if (rc != GASNETC_SEND_INFLIGHT) {
    if (lc) __atomic_fetch_sub(lc, 1, __ATOMIC_RELEASE); /* complete on return */
    return rc;
  }
  GASNETC_STAT_ADD(sends_inflight, 1);
  if (lc) return 0;
  while (!__atomic_load_n(&f.done, __ATOMIC_ACQUIRE))
    if (gasnetc_progress() == 0 && !__atomic_load_n(&f.done, __ATOMIC_ACQUIRE))
      gasnetc_wait(GASNETC_SEND_SLICE_MS);
  return f.rc;
}

/* ---- buffer lending ---------------------------------------------------------
 * A transport without prepare/commit, and loopback, get the core's own
 * buffer: one per thread and handler depth, grown as needed, and commit is
 * a send() of it. Per depth, because a commit that waits (the transport
 * said "not now", or still reads the payload) makes progress, and a
 * handler run there may lend one too (gex_AM_PrepareReply*). */
#define GASNETC_LEND_SLOTS 4 /* handler depths with a buffer of their own */
static GASNETC_TLS void *gasnetc_lend_buf[GASNETC_LEND_SLOTS];
static GASNETC_TLS size_t gasnetc_lend_cap[GASNETC_LEND_SLOTS];

int gasnetc_route_prepare(gasnetc_lend_t *lend, size_t paylen) {
  unsigned immediate = lend->flags & GASNETC_SEND_IMMEDIATE;
  lend->flags &= ~GASNETC_SEND_IMMEDIATE; /* the core's: not the transport's */
  gasnetc_tp_t *tp = lend->dest == gasnetc_g.mynode ? NULL : gasnetc_route_tp(lend->dest);
  if (tp && tp->ops->prepare) {
    int rc;
    int looked = 0;
    while ((rc = tp->ops->prepare(tp->t, lend, paylen)) == -EAGAIN) {
      if (immediate) return rc;
      gasnetc_route_refused(&looked);
    }
    return rc;
  }
  int slot = gasnetc_handler_depth();
  if (slot >= GASNETC_LEND_SLOTS) slot = GASNETC_LEND_SLOTS - 1; /* deeper: not reached */
  if (paylen > gasnetc_lend_cap[slot] || !gasnetc_lend_buf[slot]) {
    void *b = NULL;
    size_t cap = paylen > 4096 ? paylen : 4096;
    if (posix_memalign(&b, 64, cap)) return -ENOMEM;
    free(gasnetc_lend_buf[slot]);
    gasnetc_lend_buf[slot] = b;
    gasnetc_lend_cap[slot] = cap;
  }
  lend->buf = gasnetc_lend_buf[slot];
  lend->cap = gasnetc_lend_cap[slot];
  lend->priv[0] = lend->priv[1] = NULL;
  return 0;
}

int gasnetc_route_commit(gasnetc_lend_t *lend, const void *hdr, size_t hdrlen,
                         size_t paylen) {
  int self = lend->dest == gasnetc_g.mynode;
  gasnetc_tp_t *tp = self ? NULL : gasnetc_route_tp(lend->dest);
  if (tp && tp->ops->commit) return tp->ops->commit(tp->t, lend, hdr, hdrlen, paylen);
  if (paylen > lend->cap) return -EMSGSIZE;
  if (self) { /* loopback: delivered here and now, as a transport would */
    void *pay = lend->buf;
    if (paylen <= GASNETC_AM_MAX_MEDIUM) {
      /* A Medium handler gets its own buffer (per nesting depth), not the
       * lent one, which a reply it lends from this thread would reuse. */
      pay = gasnetc_thread_buf(gasnetc_handler_depth());
      memcpy(pay, lend->buf, paylen);
    }
    GASNETC_STAT_ADD(loopback_msgs, 1);
    gasnetc_deliver_cb(NULL, gasnetc_g.mynode, hdr, hdrlen, pay, paylen);
    return 0;
  }
  return gasnetc_route_send(lend->dest, hdr, hdrlen, lend->buf, paylen, lend->flags, NULL);
}

void gasnetc_route_cancel(gasnetc_lend_t *lend) {
  gasnetc_tp_t *tp = lend->dest == gasnetc_g.mynode ? NULL : gasnetc_route_tp(lend->dest);
  if (tp && tp->ops->cancel) tp->ops->cancel(tp->t, lend);
  /* else the core's own buffer: kept for the next Prepare */
}

void gasnetc_route_close(void) {
  for (unsigned i = 0; i < gasnetc_g.ntp; i++)
    gasnetc_g.tp[i].ops->close(gasnetc_g.tp[i].t);
}
