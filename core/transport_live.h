/*
 * transport_live.h - liveness, as the core and the transports see it
 * (docs/transports.md, "Liveness"):
 *
 *  - gasnetc_live_ops_t: the liveness service, a transport of its own
 *    outside the core (live/live_udp.c: a thread and a UDP socket per
 *    process that answer probes even while the rank computes). The conduit
 *    lists it (gasnetc_conduit.live); the core opens, connects, reports and
 *    closes it through this table and knows nothing of how probes travel.
 *  - gasnetc_live_watch: when a silent peer is dead, decided the same way
 *    by every transport.
 *
 * A transport knows when it last heard from a peer (data, an ack): it
 * calls gasnetc_live_watch from its timers with that time, `quiet_since`.
 * Once the peer has been quiet for a quarter of the timeout, the peer is
 * probed through the liveness service (cfg.live_probe) every
 * quarter of the timeout; it answers from a thread of its own even while
 * it computes without polling. It is dead when neither the transport nor
 * a probe has heard from it for the whole timeout, and its last 3 probes
 * went unanswered: it is gone or stopped.
 * Without a liveness service (cfg.live_probe NULL: a transport tested
 * alone) no probe is answered, and silence for the timeout is death.
 */
#ifndef GASNETC_TRANSPORT_LIVE_H
#define GASNETC_TRANSPORT_LIVE_H

#include <stdint.h>

#include "transport.h"

/* A thread's body, as pthread_create takes it. */
typedef void *(*gasnetc_thread_fn)(void *);

/* The liveness service. Called by the core alone, one call at a time, in
 * this order: open, address, (defer, deferred), connect, stats, close. */
typedef struct gasnetc_live_ops {
  const char *name;
  /* Open the service's endpoint (port 0, at cfg->bind_addr, as the
   * transports) and set cfg's live_probe / live_heard. A job of one rank
   * opens nothing. 0, or -errno after one line naming the step. */
  int (*open)(gasnetc_transport_config_t *cfg);
  /* The endpoint's address blob (transport_addr.h) into GASNETC_ADDR_MAX
   * bytes, for the attach exchange; zeros when nothing was opened. */
  void (*address)(void *blob);
  /* GEX_FLAG_DEFER_THREADS: connect starts no thread; the client runs
   * deferred()'s function (NULL: no thread to start, e.g. a job of one
   * rank) in a joinable thread, which close joins. */
  void (*defer)(void);
  gasnetc_thread_fn (*deferred)(void);
  /* Learn every rank's blob (rank r's at blobs + r * stride) and start the
   * thread. 0, or -errno after one line. */
  int (*connect)(const void *blobs, size_t stride);
  /* Counters, "live_NAME value" lines, for GASNET_STATSFILE. */
  void (*stats)(FILE *out);
  /* Stop answering and free everything; safe after a failed open. */
  void (*close)(void);
} gasnetc_live_ops_t;

#define GASNETC_LIVE_PROBES 4 /* probes per timeout: 3 go unanswered before death */

/* A transport's liveness state for one peer. Zeroed at connect. */
typedef struct gasnetc_live_watch {
  uint64_t probe_due_ns; /* next probe, while the peer is quiet */
  uint64_t heard_ns;     /* newest sign of life seen (transport or echo) */
  uint32_t unanswered;   /* probes sent since heard_ns last moved */
} gasnetc_live_watch_t;

/* One look at a peer quiet since `quiet_since` (ns, gasneti_now_ns), with
 * the timeout `timeout_ns` (0: never dead). Sends the probe that is due.
 * Returns 1 when the peer is dead: nothing heard from it for the timeout,
 * and its last GASNETC_LIVE_PROBES - 1 probes unanswered, each given a
 * quarter timeout (so a prober whose own timers run late, on a crowded
 * host, does not bury a peer whose answer it had no time to read). Else 0,
 * with *next lowered to when the transport must look again. Cost: a few
 * compares, and a datagram when a probe is due. Called with the
 * transport's lock held or not: it touches only *w and the core's
 * lock-free liveness table. */
static inline int gasnetc_live_watch(const gasnetc_transport_config_t *cfg,
                                     gasnetc_live_watch_t *w, uint32_t rank,
                                     uint64_t quiet_since, uint64_t timeout_ns, uint64_t now,
                                     uint64_t *next) {
  if (!timeout_ns) return 0;
  uint64_t every = timeout_ns / GASNETC_LIVE_PROBES;
  uint64_t heard = cfg->live_heard ? cfg->live_heard(cfg->ctx, rank) : 0;
  if (heard < quiet_since) heard = quiet_since;
  if (heard > w->heard_ns) { /* it showed life: probes sent before count no more */
    w->heard_ns = heard;
    w->unanswered = 0;
  }
  if (now < quiet_since + every) { /* heard lately: nothing to ask */
    w->probe_due_ns = quiet_since + every;
  } else if (now >= w->probe_due_ns) { /* the last probe had its quarter timeout */
    if (now >= heard + timeout_ns && w->unanswered >= GASNETC_LIVE_PROBES - 1) return 1;
    if (cfg->live_probe) cfg->live_probe(cfg->ctx, rank);
    w->unanswered++;
    w->probe_due_ns = now + every;
  }
  if (w->probe_due_ns < *next) *next = w->probe_due_ns;
  return 0;
}

#endif /* GASNETC_TRANSPORT_LIVE_H */
