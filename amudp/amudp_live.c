/*
 * amudp_live.c - liveness of amudp's peers: probe the silent, bury the dead
 * (docs/transports.md, "Liveness"). Part of the engine (amudp_engine.h):
 * the time is passed in, the PING leaves through e->out.
 *
 * A peer we owe data or exchanged data with lately (AMUDP_ACTIVE_TIMEOUTS
 * timeouts) and have not heard from for a quarter of GASNET_UDP_TIMEOUT is
 * sent a PING on our socket every quarter timeout: a peer that polls
 * answers with an ACK, which also repeats what it has received. Beside it,
 * core/transport_live.h probes the peer's liveness thread, which answers
 * even while the peer computes without polling. The peer is dead only when
 * neither has answered for the whole timeout: it is gone or stopped. A busy
 * peer is waited for: what we sent it is retransmitted at the backed-off
 * RTO (at most GASNET_UDP_RTO_MAX_MS apart), nothing more is queued than
 * its credits allow, and the pings go on. GASNET_UDP_TIMEOUT=0: never dead,
 * never pinged.
 */
#include "amudp_engine.h"

/* Step 3 of amudp_rel_timers for peer p (not gone). Lowers *next to when it
 * must run again. Returns 1 when p was declared dead. Lock held. */
int amudp_live_timer(amudp_engine_t *e, amudp_peer_t *p, uint64_t now, uint64_t *next) {
  if (!e->tun.timeout_ns) return 0;
  /* Only peers in use: the idle cost scales with them, not with the job. */
  int active = p->fl_head || p->rep_q.head || p->req_q.head || p->last_data_ns >= now ||
               now - p->last_data_ns < AMUDP_ACTIVE_TIMEOUTS * e->tun.timeout_ns;
  if (!active) {
    p->probes = 0;
    return 0;
  }
  if (gasnetc_live_watch(&e->cfg, &p->live, p->rank, p->last_heard_ns, e->tun.timeout_ns, now,
                         next)) {
    amudp_rel_gone(e, p, 1, e->dead_msg);
    return 1;
  }
  uint64_t silent = now > p->last_heard_ns ? now - p->last_heard_ns : 0;
  if (silent >= e->tun.ping_ns && now >= p->ping_due_ns) {
    amudp_rel_send_ctrl(e, p, AMUDP_T_PING, now);
    p->probes++;
    p->ping_due_ns = now + e->tun.ping_ns;
  }
  uint64_t ping_at = p->last_heard_ns + e->tun.ping_ns;
  ping_at = ping_at > p->ping_due_ns ? ping_at : p->ping_due_ns;
  if (ping_at < *next) *next = ping_at;
  return 0;
}
