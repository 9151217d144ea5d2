/*
 * amudp_engine.h - the UDP transport's protocol engine: its objects and its
 * interface (docs/transport-udp.md, "The engine and the port").
 *
 * The engine is the protocol as pure code over per-peer state, no system
 * call, lock or clock read inside (tests/amudp/t-engine-pure.sh checks):
 *
 *   amudp_engine.c    receiving: one datagram's bytes in (amudp_rx_datagram),
 *                     its frames out (amudp_item_deliver); start and end
 *   amudp_reliable.c  sequence numbers, acks, retransmission, RTT, window
 *                     and credits
 *   amudp_cc.c        congestion control: the congestion window per peer
 *   amudp_live.c      liveness probes, peer death
 *   amudp_frag.c      cutting a frame into datagrams, reassembly, delivery
 *   amudp_wire.[ch]   datagram format, MAC
 *
 * Inputs: a frame to send (amudp_frag_send), a received datagram with its
 * source address (amudp_rx_datagram, then amudp_item_deliver), the time
 * (every entry takes `now`; amudp_rel_timers when next_deadline_ns passes).
 * Outputs: datagrams, through the port's amudp_port_ops_t (emit, inside
 * batch_begin/batch_end); frames and notices, through the core's callbacks
 * in cfg (place, deliver, notice, send_done, live_*); next_deadline_ns.
 *
 * The engine owns: amudp_engine_t and its peers (sequence numbers, queues,
 * datagrams in flight, reassemblies, RTT, windows, liveness), the pkt and
 * payload caches, the counters. The port (amudp.c, amudp_fault.c:
 * amudp_port.h) owns: the sockets and peer sockets (the sfd and ack_addr of
 * a peer), the clock, the lock, send batching (sendmmsg, GSO), receive
 * batching (recvmmsg, GRO), fault injection, the tunables' reading, and
 * when to call the engine. The unit tests (tests/amudp/t_amudp_engine.c) are
 * another port: a simulated network and a fake clock.
 *
 * Locking (PAR builds only, GASNETC_THREADS=1): the port holds its lock
 * around every engine call marked "lock held"; the engine releases it only
 * through ops->unlock/lock, around the core's place() in reassembly.
 */
#ifndef AMUDP_ENGINE_H
#define AMUDP_ENGINE_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h> /* struct sockaddr_storage: a peer's address, data */
#include <sys/uio.h>    /* struct iovec: a datagram in pieces, data */
#include <netinet/in.h> /* sockaddr_in/_in6: comparing addresses, data */
#include <string.h>

#include "transport.h"
#include "transport_live.h"
#include "amudp_wire.h"
#include "gasneti_hot.h" /* GASNETI_HOT: the path of every message */

/* Same family and IP (ports not compared): the engine's check of a
 * datagram's source, the port's test of a peer on this host. */
static inline int amudp_sa_same_ip(const struct sockaddr_storage *a,
                                   const struct sockaddr_storage *b) {
  if (a->ss_family != b->ss_family) return 0;
  if (a->ss_family == AF_INET)
    return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
           ((const struct sockaddr_in *)b)->sin_addr.s_addr;
  return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                 &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

static inline uint16_t amudp_sa_port(const struct sockaddr_storage *ss) { /* network order */
  return ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
                                  : ((const struct sockaddr_in6 *)ss)->sin6_port;
}

#ifndef GASNETC_THREADS
#define GASNETC_THREADS 0
#endif

#define AMUDP_MAX_PAYLOAD  (4u << 20) /* frame payload limit: 4 MiB */
/* Auto MTU to a peer on this host: the largest UDP payload that crosses
 * Linux's loopback (MTU 65536) in one IP packet. The kernel cuts an IP
 * payload that does not fit at a multiple of 8 bytes, ((65536 - 20) & ~7)
 * = 65512 for IPv4 (65496 for IPv6), less the UDP header's 8: a datagram
 * of 65505-65507 bytes leaves as two IP fragments, reassembled by the
 * receiving kernel at a fraction of the rate (docs/rationale.md, "the
 * loopback MTU (65504)"). */
#define AMUDP_MTU_LOOPBACK  65504u
#define AMUDP_MTU_LOOPBACK6 65488u
#define AMUDP_MTU_ETHERNET 1472u      /* auto MTU otherwise: 1500 - IP - UDP */
#define AMUDP_MTU_MIN      (AMUDP_HDR_LEN + GASNETC_HDR_MAX + 256u)
#define AMUDP_MTU_MAX      65507u     /* largest IPv4 UDP payload */
#define AMUDP_WINDOW_BYTES_MIN (256u << 10) /* auto window floor per peer */
#define AMUDP_DRAIN_NS     1000u      /* receiver cost per datagram in flight, for RTO */
#define AMUDP_PKT_INLINE   256u       /* payloads up to this are copied into the pkt */
#define AMUDP_MSG_MIN      512u       /* smallest payload buffer (power-of-two classes) */
#define AMUDP_MSG_CLASSES  14         /* 512 B .. 4 MiB = AMUDP_MAX_PAYLOAD */
#define AMUDP_BORROW_MIN   (64u << 10) /* a request's payload from this size is sent
                                         from the caller's memory when it allows
                                         (GASNETC_SEND_BORROW) */
#define AMUDP_MSG_CACHE    (8u << 20) /* payload buffers kept for reuse, bytes: two
                                         full frames, so a pipeline of large sends
                                         does not fault in fresh pages each time */
/* Prompt acks that make a sender forget that its peer held one: in a
 * barrier of 4 a peer's acks ride on its own rounds promptly or, when it is
 * descheduled, go alone after the idle delay; forgetting at the first
 * prompt one made the next held ack a spurious retransmission. */
#define AMUDP_HOLDS_MEMORY 16
#define AMUDP_RXBUF        65536u     /* receive buffer per datagram */
#define AMUDP_PROBES       3          /* unanswered pings before a silent peer is dead */
#define AMUDP_ACTIVE_TIMEOUTS 4       /* peers idle this many timeouts get no pings */
#define AMUDP_PING_NEVER (UINT64_MAX / 4) /* ping interval of GASNET_UDP_TIMEOUT=0:
                                         far, and now + it cannot overflow */
#define AMUDP_AGG_QUEUE    (8 * AMUDP_AGG_MAX_RECS) /* small request frames that may
                                         wait beyond the credits, when aggregating:
                                         enough to fill with whole aggregates the
                                         credits an ack returns in a flood. With 2
                                         aggregates' worth, the queue emptied at each
                                         ack and the credits left over went one frame
                                         a datagram: 112,000 datagrams for 1M Shorts,
                                         8 aggregates' worth 16,000, and 2.5-4.0 M/s
                                         instead of 1.1-1.6 (scratch flood, 2 ranks;
                                         16 no better) */
#define AMUDP_AGG_QUEUE_BYTES (256u << 10) /* ... and their bytes: a large frame's
                                         fragments get the credits alone, as before */
#define AMUDP_AGG_QUEUE_ALL (8u * 1024) /* ... and all peers' queued frames together
                                         (656 bytes a pkt: ~5 MiB), so that a flood
                                         to many peers stays bounded */

/* amudp_rel_on_ack's flags beside the wire's AMUDP_F_*: the ack was read
 * late, after a sleep (the bit a datagram carries is cleared first). */
#define AMUDP_RX_LATE (1u << 15)

/* Counters: one table, names generated from it (see amudp_stats). */
#define AMUDP_COUNTERS(X)                                                   \
  X(datagrams_sent) X(datagrams_received) X(bytes_sent) X(bytes_received)  \
  X(frames_sent) X(frames_delivered) X(data_sent) X(retransmitted)         \
  X(fast_retransmits) X(rto_expiries) X(acks_sent) X(pings_sent)           \
  X(notices_sent) X(notices_received)                                      \
  X(byes_sent) X(dup_dropped) X(out_of_window) X(send_blocked)             \
  X(send_errors) X(bad_datagrams) X(bad_short) X(bad_magic) X(bad_tag)     \
  X(bad_mac) X(bad_type) X(bad_rank) X(bad_length) X(bad_addr)             \
  X(bad_frag) X(from_gone_peer) X(fault_dropped) X(fault_duplicated)        \
  X(fault_reordered) X(peers_dead) X(rtt_samples) X(recv_errors)         \
  X(discarded_closing) X(spurious_retx) X(bad_agg) X(agg_sent)            \
  X(agg_frames) X(agg_received) X(fault_agg_dropped) X(fault_agg_frames)   \
  X(ackreq_sent) X(acks_lazy) X(acks_read_late) X(ack_socket_reads)       \
  X(sendmsg_calls) X(sendmmsg_calls) X(gso_sends) X(gso_segments)         \
  X(recv_calls) X(gro_datagrams) X(gro_segments) X(cc_cuts_loss)       \
  X(cc_cuts_delay) X(cc_cuts_rto) X(cc_undos) X(cc_random_losses) X(acks_repeated) X(bad_version)            \
  X(sends_borrowed) X(peer_sockets) X(peer_socket_errors) X(send_refused)

enum {
#define AMUDP_X_ENUM(name) AMUDP_C_##name,
  AMUDP_COUNTERS(AMUDP_X_ENUM)
#undef AMUDP_X_ENUM
  AMUDP_NCOUNTERS
};
#define AMUDP_COUNT(t, name, n) ((t)->ctr[AMUDP_C_##name] += (n))

/* A frame payload shared by the datagrams (fragments) that carry it: in
 * data[], or (borrowed: ext set) in the caller's memory,
 * which the caller leaves alone until send_done(cookie) says all of it is
 * acknowledged (GASNETC_SEND_BORROW; amudp_send). */
typedef struct amudp_msg {
  struct amudp_msg *next; /* in the cache (t->msg_free); borrowed: on t->borrow_done */
  uint32_t refs;          /* pkts still pointing here */
  uint8_t cls;            /* capacity AMUDP_MSG_MIN << cls bytes (not borrowed) */
  int rc;                 /* borrowed: send_done's (-EPIPE: dropped with its peer) */
  void *cookie;           /* borrowed: the core's, for send_done */
  const unsigned char *ext; /* borrowed: the caller's payload; else NULL */
  _Alignas(16) unsigned char data[]; /* 16-aligned: a Medium handler's buffer */
} amudp_msg_t;

/* One outgoing DATA datagram, queued until acknowledged. */
typedef struct amudp_pkt {
  struct amudp_pkt *next, *prev;
  amudp_wire_hdr_t h;     /* all but seq/ack/sack, which are set at transmit */
  uint32_t seq;           /* assigned at first transmission */
  uint16_t ntx;           /* transmissions so far */
  uint8_t is_req;         /* counts against the request credits */
  uint8_t ackreq;         /* its last transmission had AMUDP_F_ACKREQ */
  uint8_t at_rto;         /* its next transmission is at its timeout (AMUDP_F_RTO) */
  uint16_t nagg;          /* AGG container: frames in it (members on `agg`) */
  struct amudp_pkt *agg;  /* AGG container: its member pkts, each a whole frame
                             whose record header is at buf[AMUDP_HDR_LEN - 16] */
  uint64_t first_tx_ns;   /* first transmission (RTT sample after a late ack) */
  uint64_t tx_ns, due_ns; /* last transmission, retransmission deadline */
  amudp_msg_t *msg;       /* payload owner, or NULL: payload inline in buf */
  const unsigned char *data;
  size_t datalen;         /* payload bytes of this datagram */
  size_t wirelen;         /* whole datagram, bytes */
  /* wire header, core header, then (msg == NULL) the payload itself */
  unsigned char buf[AMUDP_HDR_LEN + GASNETC_HDR_MAX + AMUDP_PKT_INLINE];
} amudp_pkt_t;

/* A frame being reassembled from fragments. */
typedef struct amudp_reasm {
  struct amudp_reasm *next;
  uint32_t msg_id, msg_len, got;
  int state;   /* 0 new, 1 a thread is calling place(), 2 dest ready */
  amudp_msg_t *owned; /* dest's buffer when place() gave none, else NULL */
  unsigned char *dest;
  uint16_t hdrlen;
  unsigned char hdr[GASNETC_HDR_MAX];
} amudp_reasm_t;

typedef struct amudp_fifo { amudp_pkt_t *head, *tail; } amudp_fifo_t;

/* Congestion state of one peer (amudp_cc.c). */
typedef struct amudp_cc {
  uint8_t on;                 /* congestion controlled (GASNET_UDP_CC, not on this host) */
  size_t cwnd;                /* bytes that may be in flight */
  size_t ssthresh;            /* slow start below this */
  size_t acc;                 /* bytes acked toward the next additive increase */
  uint32_t recover;           /* snd_nxt at the last cut: no new cut before
                                 everything below it is acked */
  uint32_t rnd_begin, rnd_end; /* the loss round: seqs [begin, end) sent before
                                 its first loss that looked random */
  uint32_t rnd_lost;          /* datagrams of it found lost */
  size_t undo_cwnd, undo_ssthresh; /* before a timeout's cut (0: none to undo) */
  uint64_t base_ns, base_prev_ns; /* least RTT of this epoch and the last one */
  uint64_t epoch_ns;          /* start of this epoch */
} amudp_cc_t;

typedef struct amudp_peer {
  uint32_t rank;
  struct sockaddr_storage addr;
  socklen_t addrlen;
  int sfd;                    /* our peer socket, connected to its data socket
                                 (amudp_peer_socket): -1 none yet, -2 none */
  uint16_t send_port;         /* its peer sockets' port, network byte order
                                 (0: none): it sends from there too */
  struct sockaddr_storage ack_addr; /* its ack socket: where our ACKs go */
  uint32_t mtu;               /* datagram bytes to this peer */
  /* send side */
  amudp_fifo_t rep_q, req_q;  /* waiting for the window; replies go first */
  amudp_pkt_t *fl_head, *fl_tail; /* in flight, seq order */
  uint32_t snd_nxt;           /* next seq to assign */
  uint32_t nreq;              /* request datagrams queued or unacked (a queued
                                 frame counts one: it may leave alone) */
  uint32_t nreq_q;            /* request frames queued, not yet sent */
  size_t reqq_bytes;          /* their bytes */
  size_t fl_bytes;            /* bytes of the datagrams in flight */
  uint32_t msg_id;
  uint64_t srtt_ns, rttvar_ns, rto_ns;
  uint64_t min_rtt_ns;        /* least RTT sample (0: none yet): RACK's reordering window */
  uint64_t rack_tx_ns;        /* RACK (amudp_reliable.c): the latest transmission
                                 known to have arrived, */
  uint32_t rack_seq;          /* its seq (orders a burst sent at one time), */
  uint64_t rack_rtt_ns;       /* and how long its ack took */
  unsigned backoff;           /* RTO doublings since the peer last acked anything */
  uint8_t holds_acks;         /* it held an ack for the idle delay
                                 (AMUDP_F_IDLE) within the last
                                 AMUDP_HOLDS_MEMORY prompt acks of datagrams
                                 that did not ask: those allow for it (transmit) */
  uint64_t ack_idle_ns;       /* how long it holds such an ack: its
                                 GASNET_UDP_ACK_DELAY_IDLE_US, from its blob */
  amudp_cc_t cc;              /* congestion window */
  /* receive side */
  uint32_t rcv_next;          /* all seq < rcv_next received */
  uint64_t rcv_ring;          /* bit seq%64: seq in (rcv_next, rcv_next+64) received */
  uint32_t ack_pending;       /* DATA received since our last ack went out */
  uint64_t ack_due_ns;
  uint8_t ack_now;            /* send a standalone ack at the end of this batch */
  uint8_t ack_req;            /* a datagram since our last ack had AMUDP_F_ACKREQ */
  uint8_t ack_retx;           /* a retransmission or duplicate came since our
                                 last ack: the next carries AMUDP_F_ACKRETX */
  uint8_t ack_late;           /* a duplicate came before we acked its original:
                                 our next ack carries AMUDP_F_LATE */
  uint8_t ack_idle;           /* the pending ack waits the idle delay: no
                                 datagram it covers asked (amudp_rel_on_data) */
  uint64_t ack_first_ns;      /* when the first datagram it covers arrived */
  uint32_t ack_sent_next;     /* rcv_next carried by our last ack */
  uint64_t ack_again_ns;      /* when to send a waited-on standalone ack again
                                 if nothing more has come (0: not armed) */
  uint64_t ack_sent_sack;     /* and the selective-ack bits it carried */
  /* liveness */
  uint64_t last_heard_ns, ping_due_ns;
  uint64_t last_data_ns;      /* last DATA to or from it: "active" peers get pings */
  uint32_t probes;            /* pings sent since we last heard from it */
  gasnetc_live_watch_t live;  /* probes of its liveness thread (amudp_live.c) */
  uint8_t gone;               /* dead or said BYE: no traffic either way */
  uint8_t dead, dead_reported;
  const char *dead_why;
  amudp_reasm_t *reasm;
} amudp_peer_t;

/* Tunables, read once at open (amudp_tunables_read). */
typedef struct amudp_tun {
  uint32_t mtu;               /* 0: auto per peer */
  uint32_t window, credits, ack_every;
  uint32_t isn;               /* first sequence number (a test knob: wraparound) */
  int agg;                    /* GASNET_UDP_AGG: aggregate queued small frames */
  int ack_socket;             /* GASNET_UDP_ACK_SOCKET: steer ACKs to t->afd */
  int gso;                    /* GASNET_UDP_GSO: UDP_SEGMENT sends and UDP_GRO
                                 receives (cleared if the kernel refuses) */
  int mmsg;                   /* GASNET_UDP_SENDMMSG: batch sends */
  uint32_t agg_bytes;         /* GASNET_UDP_AGG_BYTES: aggregate size bound (and the MTU) */
  int cc;                     /* GASNET_UDP_CC: 0 off, 1 peers off this host, 2 all */
  uint64_t cc_delay_ns;       /* GASNET_UDP_CC_DELAY_US: queueing delay bound */
  size_t window_bytes;        /* in-flight bytes per peer; 0: auto at connect */
  size_t req_window_bytes;    /* the requests' share of it (credits/window), at connect */
  uint64_t rto_min_ns, rto_init_ns, rto_max_ns, ack_delay_ns;
  uint64_t ack_idle_ns;       /* GASNET_UDP_ACK_DELAY_IDLE_US: when nobody waits */
  uint64_t timeout_ns, ping_ns;
  int sockbuf;
  uint32_t peer_sockets;      /* GASNET_UDP_PEER_SOCKETS: most peer sockets open */
} amudp_tun_t;

/* Receive buffers for one recvmmsg() pass; one per thread/nesting level in use. */
typedef struct amudp_rxitem {
  amudp_wire_hdr_t h;
  const unsigned char *hdr;
  unsigned char *data;
  size_t len;
} amudp_rxitem_t;

/* The engine's output: how its datagrams leave, given by the port. On the
 * path of every datagram: one indirect call each, no copy (iov points into
 * the engine's pkts, which stay put until batch_end). */
typedef struct amudp_port_ops {
  /* Send one datagram (iov[0] starts with its wire header) to p. */
  void (*emit)(void *ctx, amudp_peer_t *p, const struct iovec *iov, int iovcnt);
  /* Between batch_begin and batch_end (nested: the outermost counts) the
   * port may hold what emit gets and send it all at batch_end. */
  void (*batch_begin)(void *ctx);
  void (*batch_end)(void *ctx);
  /* PAR builds: release and retake the port's lock (held around every
   * engine call), and pause (held: release it, let another thread run,
   * retake it); the engine calls them only around the core's place() in
   * reassembly. Unused (may be NULL) when GASNETC_THREADS is 0. */
  void (*unlock)(void *ctx);
  void (*lock)(void *ctx);
  void (*pause)(void *ctx);
} amudp_port_ops_t;

/* The engine of one endpoint: its peers and everything they share. */
typedef struct amudp_engine {
  gasnetc_transport_config_t cfg; /* the core's callbacks: frames out */
  amudp_wire_keys_t keys;
  amudp_tun_t tun;
  const amudp_port_ops_t *out; /* datagrams out */
  void *out_ctx;
  uint32_t queued;            /* pkts waiting for a window, all peers */
  uint32_t nfl;               /* datagrams in flight (unacked), all peers */
  size_t fl_bytes;            /* their bytes (amudp_ack_eager) */
  uint8_t refused;            /* the last request send was refused (amudp_rel_refuse) */
  uint64_t fl_since_ns;       /* since then nfl > 0 and no ack made progress */
  uint64_t ens_srtt_ns, ens_rttvar_ns; /* every peer's RTT samples together: the
                                 start of a new peer's RTO (amudp_reliable.c, peer_rto) */
  int closing;                /* close() is flushing: deliver nothing more */
  amudp_peer_t *peers;        /* cfg.nranks of them */
  amudp_pkt_t *pkt_free;
  uint32_t npkt_free;
  amudp_msg_t *msg_free[AMUDP_MSG_CLASSES]; /* payload buffer cache, per class */
  size_t msg_cached;          /* bytes of capacity in msg_free */
  uint32_t borrowed;          /* borrowed payloads not yet acknowledged */
  amudp_msg_t *borrow_done;   /* borrowed payloads acknowledged: send_done owed,
                                 made with no lock held (amudp_borrow_take) */
  uint64_t rx_last_ns;        /* end of the port's last receive phase: later
                                 arrivals have waited since then (delayed acks) */
  uint32_t acks_delayed;      /* peers with ack_pending set */
  uint32_t acks_idle;         /* of them, with ack_idle set */
  uint64_t next_deadline_ns;  /* earliest timer of any peer: call amudp_rel_timers then */
  uint32_t dead_unreported;   /* peers dead (p->dead) the port has not told the core of */
  char dead_msg[96];          /* "no answer for 30 s: dead or stopped" */
  uint64_t ctr[AMUDP_NCOUNTERS];
} amudp_engine_t;

/* The port's lock, released by the engine only around the core's place(). */
static inline void amudp_port_unlock(amudp_engine_t *e) {
#if GASNETC_THREADS
  e->out->unlock(e->out_ctx);
#else
  (void)e;
#endif
}
static inline void amudp_port_lock(amudp_engine_t *e) {
#if GASNETC_THREADS
  e->out->lock(e->out_ctx);
#else
  (void)e;
#endif
}

/* amudp_engine.c */
/* Every peer's queues, datagrams, reassemblies and the caches freed (the
 * borrowed payloads' send_done calls run); e itself is the caller's. */
void amudp_engine_fini(amudp_engine_t *e);
/* Check one received datagram of len bytes from `from` (truncated: the
 * kernel cut it; late: read from the ack socket after a sleep, so no RTT
 * sample) and run its protocol part (acks, seq). Returns AMUDP_RX_VERSION
 * (a datagram of this job in another wire version: it->h.version) or -1
 * if it was dropped (counted under its reason), 0 if it was good but
 * carries nothing to deliver, 1 when it carries frame bytes for
 * amudp_item_deliver, filled into *it (pointing into buf). Lock held. No
 * output but acks, so tests/fuzz/fuzz_amudp_datagram.c feeds it bytes
 * exactly as the socket would. */
#define AMUDP_RX_VERSION (-2)
int amudp_rx_datagram(amudp_engine_t *e, unsigned char *buf, size_t len, int truncated,
                      const struct sockaddr_storage *from, int late, uint64_t now,
                      amudp_rxitem_t *it);
/* Deliver an item amudp_rx_datagram made (a frame, an aggregate's frames, a
 * notice), with no lock held: frames delivered. */
int amudp_item_deliver(amudp_engine_t *e, uint32_t src, amudp_rxitem_t *it);

/* amudp_reliable.c (lock held) */
void amudp_rel_peer_init(amudp_engine_t *e, amudp_peer_t *p, uint64_t now);
amudp_pkt_t *amudp_pkt_get(amudp_engine_t *e);
void amudp_pkt_put(amudp_engine_t *e, amudp_pkt_t *pkt);
amudp_msg_t *amudp_msg_get(amudp_engine_t *e, size_t len);
void amudp_msg_put(amudp_engine_t *e, amudp_msg_t *m);
/* The caller's payload as a message, or NULL (no memory: copy it then). */
amudp_msg_t *amudp_msg_borrow(amudp_engine_t *e, const void *payload, void *cookie);
void amudp_msg_cache_free(amudp_engine_t *e);
/* The borrowed payloads acknowledged (lock held), for amudp_borrow_done
 * (lock NOT held: it calls send_done for each, and frees them). */
amudp_msg_t *amudp_borrow_take(amudp_engine_t *e);
void amudp_borrow_done(amudp_engine_t *e, amudp_msg_t *m);
static inline int amudp_borrow_owed(amudp_engine_t *e) {
  return __atomic_load_n(&e->borrow_done, __ATOMIC_RELAXED) != NULL; /* a peek, no lock */
}
/* Out of request credits: 1 when a request to p must wait (the caller makes
 * progress, acks return them, and tries again). Replies never wait. */
int amudp_rel_refuse(amudp_engine_t *e, amudp_peer_t *p, int is_reply);
void amudp_rel_enqueue(amudp_engine_t *e, amudp_peer_t *p, amudp_pkt_t *pkt,
                       int is_reply);
void amudp_rel_pump(amudp_engine_t *e, amudp_peer_t *p, uint64_t now);
/* A datagram that needs no queue: sent at once (returns 1) when nothing
 * waits for p and the window admits it, else 0 and the caller queues it. */
int amudp_rel_send_now(amudp_engine_t *e, amudp_peer_t *p, amudp_pkt_t *pkt,
                       int is_reply, uint64_t now);
void amudp_rel_on_ack(amudp_engine_t *e, amudp_peer_t *p, uint32_t ack,
                      uint64_t sack, unsigned flags, uint64_t now);
int amudp_rel_on_data(amudp_engine_t *e, amudp_peer_t *p, uint32_t seq,
                      unsigned flags, uint64_t now);
void amudp_rel_send_ctrl(amudp_engine_t *e, amudp_peer_t *p, int type, uint64_t now);
void amudp_rel_send_note(amudp_engine_t *e, amudp_peer_t *p, uint16_t kind,
                         const uint32_t *w, uint64_t now);
/* Retransmissions, delayed acks, pings, deaths due by now; sets
 * next_deadline_ns to the next. */
void amudp_rel_timers(amudp_engine_t *e, uint64_t now);
/* The delayed acks a sender waits on (all when closing), before a sleep. */
void amudp_rel_flush_acks(amudp_engine_t *e, uint64_t now);
void amudp_rel_gone(amudp_engine_t *e, amudp_peer_t *p, int dead, const char *why);
int amudp_rel_unacked(amudp_engine_t *e);

/* amudp_cc.c (lock held) */
void amudp_cc_init(amudp_engine_t *e, amudp_peer_t *p, int on_host);
void amudp_cc_on_rtt(amudp_engine_t *e, amudp_peer_t *p, uint64_t rtt, uint64_t now);
void amudp_cc_on_ack(amudp_engine_t *e, amudp_peer_t *p, size_t acked);
void amudp_cc_on_loss(amudp_engine_t *e, amudp_peer_t *p, uint32_t seq);
void amudp_cc_on_rto(amudp_engine_t *e, amudp_peer_t *p);
void amudp_cc_on_late(amudp_engine_t *e, amudp_peer_t *p);
/* Congestion-controlled peers (not gone) and their least and largest cwnd. */
uint32_t amudp_cc_summary(const amudp_engine_t *e, size_t *lo, size_t *hi);
/* Bytes that may be in flight to p: the credit window's `cap`, or less. */
static inline size_t amudp_cc_window(const amudp_peer_t *p, size_t cap) {
  return p->cc.on && p->cc.cwnd < cap ? p->cc.cwnd : cap;
}

/* amudp_live.c (lock held) */
int amudp_live_timer(amudp_engine_t *e, amudp_peer_t *p, uint64_t now, uint64_t *next);

/* amudp_frag.c */
int amudp_frag_deliver_agg(amudp_engine_t *e, uint32_t src,
                           amudp_rxitem_t *it); /* lock NOT held; frames delivered */
/* Queue one frame. `lent`: the payload is already in this buffer (from
 * prepare), or it is borrowed (amudp_msg_borrow), and the frame takes it
 * over; else the payload is copied. On failure the caller still owns
 * `lent`. Lock held. */
int amudp_frag_send(amudp_engine_t *e, amudp_peer_t *p, const void *hdr,
                    size_t hdrlen, const void *payload, size_t paylen,
                    amudp_msg_t *lent, int is_reply, uint64_t now);
int amudp_frag_deliver(amudp_engine_t *e, uint32_t src,
                       amudp_rxitem_t *it); /* lock NOT held */
void amudp_frag_peer_free(amudp_peer_t *p);

#endif /* AMUDP_ENGINE_H */
