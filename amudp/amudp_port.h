/*
 * amudp_port.h - the UDP transport's port: the sockets, batching and fault
 * injection around the protocol engine (amudp_engine.h). Not seen outside
 * amudp/.
 *
 *   amudp.c           ops table: open/close, address/connect, send,
 *                     poll/wait (the receive loop), stats, tunables, the
 *                     ack socket's read policy
 *   amudp_fault.c     the engine's output (amudp_port_ops: emit, batches by
 *                     sendmmsg/GSO), fault injection wrapped around it
 *
 * Locking (PAR builds only, GASNETC_THREADS=1): one mutex, t->lock, guards
 * the engine and the port's state. The port takes it around engine calls;
 * callbacks into the core are made with it released.
 */
#ifndef AMUDP_PORT_H
#define AMUDP_PORT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* recvmmsg, SO_RCVBUFFORCE; must precede system headers */
#endif

#include "amudp_engine.h"

#if GASNETC_THREADS
#include <pthread.h>
#define AMUDP_LOCK(t)   pthread_mutex_lock(&(t)->lock)
#define AMUDP_UNLOCK(t) pthread_mutex_unlock(&(t)->lock)
#else
#define AMUDP_LOCK(t)   ((void)0)
#define AMUDP_UNLOCK(t) ((void)0)
#endif

#define AMUDP_RX_BATCH     16         /* datagrams per recvmmsg() */
/* Consecutive receive passes that found data before the data socket is
 * read by recvmmsg() instead of recvfrom(): a barrier's leader, gathering
 * its neighbours' arrivals one poll apart, stays on the cheaper call (at 2,
 * the third arrival and the empty poll after it went by recvmmsg, and the
 * barrier was slower: docs/rationale.md, extended-ref/gasnete_barrier.c);
 * a flood still batches after a few datagrams. */
#define AMUDP_RX_STREAM_HITS 8
#define AMUDP_RX_ROUNDS    4          /* recvmmsg() calls per poll: bounds poll's work */
/* recvmmsg() calls on the ack socket when it is read: until it is empty, up
 * to this bound (acks are not delivered, so each costs little). Read a
 * batch at a time as lazily as it is, it can hold thousands of stale
 * acks in front of the one a retransmitting sender needs, which then
 * backs off to the RTO cap. */
#define AMUDP_ACK_DRAIN_ROUNDS 64
#define AMUDP_TX_BATCH     32         /* datagrams per sendmmsg() */
#define AMUDP_TX_IOV       1024       /* iovec entries per sendmmsg() batch */
#define AMUDP_GSO_MAX_SEGS 64         /* segments per UDP_SEGMENT send (the kernel's
                                         UDP_MAX_SEGMENTS is at least 64) */
#define AMUDP_GSO_MAX_BYTES 65000u    /* bytes per UDP_SEGMENT send (< 64 KiB) */
#define AMUDP_ACK_EAGER_BYTES (16u << 10) /* in flight, all peers: at least this,
                                         and the ack socket is read at every poll
                                         and watched while asleep: a large frame
                                         or a stream, whose SACKs drive loss
                                         recovery and the window; less (a few
                                         small requests, each answered by a reply
                                         that carries its ack) and it is not */
#define AMUDP_ACK_POLL_EVERY 256      /* polls between reads of the ack socket while
                                         nothing waits on acks (it is read at once
                                         after a sleep and before timers; 64 cost
                                         a spinning ping-pong 1.5% more system
                                         calls) */

/* Datagrams queued for one sendmmsg() (amudp_tx_begin .. amudp_tx_end): a
 * burst of fragments or aggregates leaves in one system call, and runs of
 * equal-sized datagrams to one peer in one UDP_SEGMENT (GSO) send. */
typedef struct amudp_txq {
  int open;                   /* between amudp_tx_begin and amudp_tx_end */
  int n, niov;
  struct amudp_peer *peer[AMUDP_TX_BATCH];
  size_t len[AMUDP_TX_BATCH];
  int iov0[AMUDP_TX_BATCH];   /* first iovec of each datagram */
  struct iovec iov[AMUDP_TX_IOV];
  struct mmsghdr out[AMUDP_TX_BATCH];
  unsigned char cmsg[AMUDP_TX_BATCH][64]; /* UDP_SEGMENT control messages */
} amudp_txq_t;

typedef struct amudp_fault {
  double drop, dup, reorder;
  int active;
  uint32_t drop_agg;          /* GASNET_UDP_DROP_AGG: lose the first aggregate of this
                                 many frames or more once (0: done, or off) */
  uint64_t rng;
  unsigned char *held;        /* one datagram held back to reorder it */
  size_t held_len;
  amudp_peer_t *held_peer;
  uint64_t held_due_ns;
} amudp_fault_t;

#define AMUDP_RX_ITEMS (AMUDP_RX_BATCH * AMUDP_GSO_MAX_SEGS) /* GRO: segments per read */
typedef struct amudp_rxbatch {
  struct amudp_rxbatch *next;
  struct mmsghdr msgs[AMUDP_RX_BATCH];
  struct iovec iov[AMUDP_RX_BATCH];
  struct sockaddr_storage from[AMUDP_RX_BATCH];
  unsigned char ctl[AMUDP_RX_BATCH][64]; /* UDP_GRO: the segment size */
  amudp_rxitem_t items[AMUDP_RX_ITEMS];
  uint32_t src[AMUDP_RX_ITEMS], seen[AMUDP_RX_ITEMS];
  unsigned char *buf;
} amudp_rxbatch_t;

struct gasnetc_transport {
  amudp_engine_t e;           /* the protocol (amudp_engine.h) */
  amudp_fault_t fault;
  amudp_txq_t *txq;           /* send batch, or NULL (GASNET_UDP_SENDMMSG=0) */
  int gro;                    /* UDP_GRO is on: a datagram read may hold segments */
  int fd;
  int afd;                    /* the ack socket (a port of its own, in our
                                 address blob; peers send it their ACKs), or -1 */
  int afd_watched;            /* afd is in the core's wait: asleep, waiting on acks */
  uint16_t ack_port;          /* afd's port, network byte order (0: none) */
  int sfd;                    /* holds the send port, or -1: no peer sockets */
  uint16_t send_port;         /* the peer sockets' port, network byte order */
  uint32_t nsfd;              /* peer sockets open */
  uint32_t afd_polls;         /* polls since afd was last read */
  struct sockaddr_storage self;
  socklen_t selflen;
  struct sockaddr_storage bound; /* as the data socket was bound (self may
                                    name the wildcard's loopback instead) */
  int rcvbuf_got, sndbuf_got;
  int can_watch;              /* the core has a wait (cfg.watch) */
  int fd_watched;             /* fd is in it: the core sleeps (amudp_watch) */
  int slept;                  /* idle() ran: the core may have slept (atomic) */
  uint32_t nserved;           /* peers this transport serves (connect) */
  int connected;
  amudp_rxbatch_t *rx_free;
  uint32_t rx_hits;           /* consecutive receive passes that found data */
  int version_warned;         /* said once that a rank speaks another wire version */
#if GASNETC_THREADS
  pthread_mutex_t lock;
#endif
};

/* amudp_fault.c (lock held) */
extern const amudp_port_ops_t amudp_port_ops; /* the engine's output: ctx is t */
void amudp_fault_init(gasnetc_transport_t *t);
void amudp_fault_free(gasnetc_transport_t *t);
uint64_t amudp_fault_timers(gasnetc_transport_t *t, uint64_t now); /* next due or UINT64_MAX */

/* amudp.c */
/* The socket a datagram to p's data socket leaves by: p's peer socket,
 * opened at the first while fewer than GASNET_UDP_PEER_SOCKETS are, or -1
 * (none: the data socket, addressed). Lock held. */
int amudp_peer_socket(gasnetc_transport_t *t, amudp_peer_t *p);
double amudp_env_num(gasnetc_transport_t *t, const char *name, double dflt,
                     double lo, double hi);

#endif /* AMUDP_PORT_H */
