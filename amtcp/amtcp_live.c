/*
 * amtcp_live.c - liveness of amtcp's peers (docs/transports.md, "Liveness").
 *
 * TCP reports a peer whose process ended (end of stream, reset), but not
 * one that stopped (SIGSTOP, a debugger) with its connections open: its
 * kernel goes on acknowledging, and a rank waiting on it would wait
 * forever. So every peer whose connection is up, or is being made (its
 * kernel may complete a TCP handshake nobody answers), is watched: one from which
 * nothing arrived for a quarter of GASNET_TCP_TIMEOUT is probed through the
 * core's liveness service (core/transport_live.h) every quarter timeout,
 * and is dead when its liveness thread, which answers even while it
 * computes without polling, has not answered for the whole timeout. Silence
 * on the connection alone is no death: a busy peer is waited for.
 * GASNET_TCP_TIMEOUT=0: never dead. As over udp, a peer we exchange
 * nothing with is not watched (connections are made on first use).
 *
 * What arrived is counted per connection by rx_conn (live_rx, one add under
 * the lock it holds anyway); this timer compares the count with the last
 * one it saw, so the receive path reads no clock for it. The timer runs
 * when the core is about to sleep (idle) and every AMTCP_LIVE_EVERY polls
 * of a rank that never sleeps.
 */
#include "amtcp_internal.h"

#include "gasneti_time.h"

void amtcp_live_start(gasnetc_transport_t *t, uint64_t now) {
  for (uint32_t r = 0; r < t->cfg.nranks; r++) t->conns[r].live_quiet_ns = now;
  t->live_next_ns = t->tun.timeout_ns ? now + t->tun.timeout_ns / GASNETC_LIVE_PROBES
                                      : GASNETC_NEVER;
}

static void live_dead(gasnetc_transport_t *t, amtcp_conn_t *c, uint64_t now) {
  /* Dead, reported by report_dead at once: no grace, the launcher cannot
   * know about a stopped process first. An open connection stays open;
   * the job ends. */
  c->dead = 1;
  c->dead_why = t->dead_msg;
  c->dead_ns = now - AMTCP_DEAD_GRACE_NS;
  __atomic_add_fetch(&t->dead_unreported, 1, __ATOMIC_RELAXED);
  AMTCP_COUNT(t, peers_dead, 1);
}

/* Peers whose connection is being made: quiet since our first attempt. */
static void live_connecting(gasnetc_transport_t *t, uint64_t now, uint64_t *next) {
  for (uint32_t i = 0; i < t->npend_cap && t->npend; i++) {
    amtcp_pend_t *p = &t->pend[i];
    if (p->phase == PEND_FREE || p->rank == UINT32_MAX) continue;
    amtcp_conn_t *c = &t->conns[p->rank];
    if (c->state != AMTCP_CONN_CONNECTING || c->dead) continue;
    if (gasnetc_live_watch(&t->cfg, &c->live, c->rank, c->connect_ns, t->tun.timeout_ns, now, next)) {
      live_dead(t, c, now);
      amtcp_conn_fail(t, c, NULL); /* its queue dropped; the attempt ends by itself */
    }
  }
}

/* Look at every connection that is up or being made. Returns when to look
 * next. Lock held. */
static uint64_t amtcp_live_timer(gasnetc_transport_t *t, uint64_t now) {
  uint64_t next = GASNETC_NEVER;
  if (!t->tun.timeout_ns || __atomic_load_n(&t->closing, __ATOMIC_RELAXED)) return next;
  for (uint32_t i = 0; i < t->nlive; i++) {
    amtcp_conn_t *c = &t->conns[t->live[i]];
    if (c->bye_rcvd || c->dead) continue; /* leaving with the job, or buried */
    if (c->live_rx != c->live_rx_seen) {
      c->live_rx_seen = c->live_rx;
      c->live_quiet_ns = now;
    }
    if (gasnetc_live_watch(&t->cfg, &c->live, c->rank, c->live_quiet_ns, t->tun.timeout_ns,
                           now, &next))
      live_dead(t, c, now);
  }
  live_connecting(t, now, &next);
  return next;
}

uint64_t amtcp_live_due(gasnetc_transport_t *t, uint64_t now) {
  uint64_t next = __atomic_load_n(&t->live_next_ns, __ATOMIC_RELAXED);
  if (now < next) return next;
  AMTCP_LOCK(t);
  next = amtcp_live_timer(t, now);
  __atomic_store_n(&t->live_next_ns, next, __ATOMIC_RELAXED);
  AMTCP_UNLOCK(t);
  return next;
}
