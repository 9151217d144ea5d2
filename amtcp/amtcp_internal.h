/*
 * amtcp_internal.h - the objects of the TCP transport and the functions its
 * files call in one another. Not seen outside amtcp/ (but by its tests).
 *
 *   amtcp.c        ops table: open/close, send and the per-peer output
 *                  queue, the receive path, poll/wait, stats, tunables
 *   amtcp_conn.c   the listening socket, address blobs, making connections:
 *                  on first use (or all at connect), the handshake, the
 *                  tie-break of two ranks connecting to each other at once
 *   amtcp_live.c   liveness: a silent peer is probed, a stopped one is dead
 *   amtcp_wire.h   the byte stream format
 *
 * Locking (PAR builds only, GASNETC_THREADS=1): one mutex, t->lock, guards
 * every field below except a connection's receive state (rbuf..big_*), which
 * belongs to the one thread that set c->rx_busy (under the lock) until it
 * clears it. Output is written under the lock, so frames never interleave.
 * Callbacks into the core are made with the lock released.
 */
#ifndef AMTCP_INTERNAL_H
#define AMTCP_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* accept4, MSG_NOSIGNAL; must precede system headers */
#endif

#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "transport.h"
#include "transport_live.h"
#include "amtcp_wire.h"

#ifndef GASNETC_THREADS
#define GASNETC_THREADS 0
#endif
#if GASNETC_THREADS
#include <pthread.h>
#define AMTCP_LOCK(t)   pthread_mutex_lock(&(t)->lock)
#define AMTCP_UNLOCK(t) pthread_mutex_unlock(&(t)->lock)
#else
#define AMTCP_LOCK(t)   ((void)0)
#define AMTCP_UNLOCK(t) ((void)0)
#endif

#define AMTCP_MAX_PAYLOAD (4u << 20)   /* frame payload limit: 4 MiB */
#define AMTCP_RXBUF       (128u << 10) /* receive buffer per connection: holds any
                                          Medium frame whole; larger frames are
                                          read straight into their destination */
#define AMTCP_PLACE_MIN   (16u << 10)  /* incomplete payloads from this size ask
                                          place() and skip the buffer */
#define AMTCP_PEEK        4096u        /* first read after a big payload */
#define AMTCP_CHUNK       (64u << 10)  /* output queue chunk: small frames share one */
#define AMTCP_ZCOPY_MIN   (64u << 10)  /* a request's unsent payload from this size
                                          is not copied: send waits until written */
#define AMTCP_BATCH_MAX   (8u << 10)   /* frames up to this size sent by handlers
                                          while poll delivers are written with
                                          the batch (larger: at once, no copy) */
#define AMTCP_IOV         16           /* iovecs per sendmsg() when flushing a queue:
                                          up to 16 chunks, 1 MiB of small frames */
#define AMTCP_EVENTS      64           /* epoll events per poll: bounds poll's work */
#define AMTCP_LISTEN_EVERY 4096        /* polls between looks at the listener */
#define AMTCP_MIDFRAME_NS 200000ULL  /* wait() does not sleep this long after
                                          reading part of a frame */
#define AMTCP_DEAD_GRACE_NS 500000000ULL /* a failed connection is reported
                                          this long after it failed: see report_dead */
#define AMTCP_CLOSE_FLUSH_NS 2000000000ULL /* close flushes for at most 2 s */
#define AMTCP_LIVE_EVERY   1024        /* polls between looks at the clock for the
                                          liveness timer (a sleep looks at once) */

/* Counters: one table, names generated from it (see amtcp_stats). */
#define AMTCP_COUNTERS(X)                                                    \
  X(frames_sent) X(frames_delivered) X(bytes_sent) X(bytes_received)        \
  X(sendmsg_calls) X(partial_writes) X(frames_queued) X(bytes_queued)       \
  X(zcopy_waits) X(send_blocked) X(recv_calls) X(frames_placed)            \
  X(big_buffers) X(bad_frames) X(bad_hellos)                              \
  X(byes_received) X(dropped_to_gone) X(peers_dead) X(discarded_closing)   \
  X(epoll_polls) X(direct_polls) X(connects) X(accepts) X(conns_up)     \
  X(connect_races) X(connect_retries) X(queue_writes) X(queue_frames)

enum {
#define AMTCP_X_ENUM(name) AMTCP_C_##name,
  AMTCP_COUNTERS(AMTCP_X_ENUM)
#undef AMTCP_X_ENUM
  AMTCP_NCOUNTERS
};
#define AMTCP_COUNT(t, name, n) ((t)->ctr[AMTCP_C_##name] += (n))

/* Output queue element. Owned chunks hold copies (small frames share one);
 * a borrowed chunk points at a sender's payload, which stays the sender's
 * until the chunk is written or dropped: then send_done(cookie). */
typedef struct amtcp_chunk {
  struct amtcp_chunk *next;
  const unsigned char *p;   /* bytes [off, len) still to write */
  size_t len, off, cap;     /* cap: bytes of buf (owned chunks) */
  int owned;
  uint32_t nends;           /* frames whose last byte is in this chunk */
  int sealed;               /* GASNET_TCP_AGG=0: no other frame joins this chunk */
  int rc;                   /* borrowed: send_done's rc */
  void *cookie;             /* borrowed: the sender's */
  unsigned char buf[];
} amtcp_chunk_t;

typedef enum {
  AMTCP_CONN_NONE = 0,      /* not connected (yet) */
  AMTCP_CONN_CONNECTING,    /* our attempt is under way: frames queue */
  AMTCP_CONN_UP,            /* handshake done: frames flow */
  AMTCP_CONN_GONE,          /* closed: peer said BYE, died, or we are closing */
} amtcp_conn_state_t;

typedef struct amtcp_conn {
  uint32_t rank;
  int fd;
  amtcp_conn_state_t state;
  uint8_t bye_rcvd;         /* peer said BYE: its end of stream is no failure */
  uint8_t dead;             /* failed: peer_dead owed or made */
  uint8_t dead_reported;
  uint8_t rx_busy;          /* a thread owns the receive state */
  uint8_t out_armed;        /* the core's wait reports it writable (EPOLLOUT) */
  uint8_t out_dirty;        /* listed in t->dirty: out_armed may be stale */
  const char *dead_why;
  uint64_t dead_ns;         /* when it failed (reported after a grace) */
  uint64_t connect_ns;      /* CONNECTING: when our first attempt started */
  struct sockaddr_storage addr; /* the peer's advertised listening address */
  socklen_t addrlen;
  /* output queue */
  amtcp_chunk_t *q_head, *q_tail;
  size_t q_bytes;
  /* receive state (owner: the rx_busy thread) */
  unsigned char *rbuf;      /* AMTCP_RXBUF bytes, AMTCP_ALIGN-aligned */
  size_t rpos, rend;        /* unparsed bytes are rbuf[rpos, rend) */
  size_t skip;              /* padding still to skip after a big payload */
  int place_tried;          /* place() already asked for the frame at rpos */
  int rx_small;             /* the last frame was read in place: read AMTCP_PEEK next */
  unsigned char *big;       /* a big payload being read in place, or NULL */
  size_t big_len, big_got;
  int big_owned;            /* big was malloc'd by us */
  amtcp_frame_t big_f;
  unsigned char big_hdr[GASNETC_HDR_MAX];
  /* liveness (amtcp_live.c; the lock guards all four) */
  uint64_t live_rx;         /* bytes received, counted by rx_conn */
  uint64_t live_rx_seen;    /* live_rx at the last liveness look */
  uint64_t live_quiet_ns;   /* nothing received since (as of the last look) */
  gasnetc_live_watch_t live;
} amtcp_conn_t;

/* Tunables, read once at open (amtcp_tunables_read). */
typedef struct amtcp_tun {
  int sockbuf;              /* SO_SNDBUF/SO_RCVBUF asked, 0 = kernel autotuning */
  int sockbuf_force;        /* set with SO_*BUFFORCE (past net.core.*mem_max) */
  double connect_timeout_s;
  int eager;                /* GASNET_TCP_CONNECT=eager: every connection at connect() */
  size_t queue_max;         /* queued bytes per peer before requests block */
  int poll_mode;            /* AMTCP_POLL_* */
  uint64_t timeout_ns;      /* GASNET_TCP_TIMEOUT; 0: never */
  int agg;                  /* GASNET_TCP_AGG: a queue leaves in one write (0: a frame per write) */
} amtcp_tun_t;

enum { AMTCP_POLL_AUTO = 0, AMTCP_POLL_DIRECT = 1, AMTCP_POLL_EPOLL = 2 };

/* A connection being made (amtcp_conn.c): our attempt to reach `rank`
 * (RETRY, CONNECTING, WELCOME), or an accepted one whose HELLO we await
 * (HELLO; rank UINT32_MAX). Its fd is in epfd tagged AMTCP_PEND_TAG | slot. */
typedef enum { PEND_FREE = 0, PEND_RETRY, PEND_CONNECTING, PEND_WELCOME, PEND_HELLO } amtcp_phase_t;

typedef struct amtcp_pend {
  int fd;
  uint32_t rank;
  amtcp_phase_t phase;
  uint32_t events;          /* what epfd and the core's wait watch on fd (0: nothing) */
  int err;                  /* why the last attempt failed (errno; 0: no WELCOME) */
  uint64_t retry_ns;        /* RETRY: when to try again */
  uint64_t end_ns;          /* give up then */
  size_t got;
  unsigned char rec[AMTCP_SHAKE_LEN];
  struct sockaddr_storage from;
} amtcp_pend_t;

#define AMTCP_PEND_TAG 0x80000000u /* epoll tag of a pending connection (| slot) */

struct gasnetc_transport {
  gasnetc_transport_config_t cfg;
  amtcp_tun_t tun;
  int lfd;                  /* listening socket */
  int epfd;                 /* epoll set of the connections and the listener */
  struct sockaddr_storage self;
  socklen_t selflen;
  int watched;              /* listener and connections are in the core's wait */
  uint8_t *serves;          /* [nranks]: ranks this transport serves (connect) */
  amtcp_chunk_t *done;      /* borrowed chunks complete: send_done owed */
  uint32_t *dirty, ndirty;  /* connections whose EPOLLOUT interest may be stale */
  int connected;
  int closing;              /* close() is flushing: deliver nothing more (atomic) */
  int direct;               /* poll reads each connection directly (few peers) */
  uint32_t npolls;           /* atomic */
  uint64_t listen_ns;        /* direct mode: last look at the listener in idle (atomic) */
  uint32_t nbusy;           /* connections with output queued (atomic) */
  uint64_t mesh_ns;         /* how long connect() took building the mesh */
  uint64_t midframe_ns;     /* last read of a frame not complete yet (atomic) */
  amtcp_conn_t *conns;      /* [nranks]; conns[myrank] unused */
  uint32_t *live;           /* ranks of the connections that are up, nlive of them */
  uint32_t nlive;
  uint32_t nserve;          /* peers served */
  uint32_t nsettled;        /* served peers UP or GONE (atomic): none left to connect */
  amtcp_pend_t *pend;       /* [npend_cap] connections being made */
  uint32_t npend_cap, npend; /* npend: slots in use (atomic) */
  uint32_t nacc;            /* of which accepted ones (bounded: strangers cannot
                               take the slots our own attempts need) */
  uint64_t pend_next_ns;    /* next retry or deadline of a pending one, or the
                               refusals' count (atomic) */
  uint64_t refuse_t0;       /* refusals logged: this interval's start, */
  uint32_t refuse_n, refuse_quiet; /* its refusals, those not logged yet */
  char refuse_last[128];    /* and the last of those (amtcp_conn.c) */
  uint32_t dead_unreported;  /* atomic */
  amtcp_chunk_t *chunk_free; /* one spare AMTCP_CHUNK chunk */
  uint64_t live_next_ns;    /* when the liveness timer runs next (atomic) */
  unsigned live_polls;      /* polls since it looked at the clock (a hint: racy in PAR) */
  char dead_msg[96];        /* "no answer for 30 s: dead or stopped" */
  uint64_t ctr[AMTCP_NCOUNTERS];
#if GASNETC_THREADS
  pthread_mutex_t lock;
#endif
};

/* amtcp.c: the receive path without its recv() calls, so that
 * tests/fuzz/fuzz_amtcp_stream.c feeds it bytes as the socket would.
 * amtcp_rx_parse delivers every complete frame in c->rbuf[rpos, rend) and
 * returns their number; a malformed frame sets *fail and *bad (the
 * connection is then closed). When it returns with c->big set, the rest of
 * that payload (big_len - big_got bytes) goes straight to c->big, then
 * amtcp_rx_big_done delivers it. The caller owns c's receive state. */
int amtcp_rx_parse(gasnetc_transport_t *t, amtcp_conn_t *c, const char **fail, int *bad,
                   amtcp_frame_t *badf, int *bye, size_t io[4]);
int amtcp_rx_big_done(gasnetc_transport_t *t, amtcp_conn_t *c);

/* amtcp.c: a connection is made (the handshake done) / failed. Lock held. */
int amtcp_conn_ready(gasnetc_transport_t *t, uint32_t rank, int fd);
void amtcp_conn_fail(gasnetc_transport_t *t, amtcp_conn_t *c, const char *why);

/* amtcp_conn.c */
int amtcp_listen(gasnetc_transport_t *t);                 /* at open */
int amtcp_address(gasnetc_transport_t *t, void *blob, size_t *len);
int amtcp_peers(gasnetc_transport_t *t, const void *blobs, size_t stride); /* at connect */
int amtcp_mesh(gasnetc_transport_t *t);                   /* eager: all, at connect */
int amtcp_conn_start(gasnetc_transport_t *t, amtcp_conn_t *c); /* first use; lock held */
void amtcp_accept(gasnetc_transport_t *t);                /* lock NOT held */
void amtcp_pend_event(gasnetc_transport_t *t, uint32_t slot, unsigned events); /* lock held */
uint64_t amtcp_pend_timers(gasnetc_transport_t *t, uint64_t now); /* lock held */
void amtcp_pend_close_all(gasnetc_transport_t *t);       /* at close */
void amtcp_sock_tune(gasnetc_transport_t *t, int fd);     /* buffers before connect */
/* Handshake records (amtcp_wire.h) with their MAC: make one of `type` from
 * us to dst; check a received one (src == want_src, or any other rank when
 * want_src is UINT32_MAX; dst us; MAC). */
void amtcp_shake_make(gasnetc_transport_t *t, unsigned char *rec, uint8_t type, uint32_t dst);
amtcp_bad_t amtcp_shake_check(gasnetc_transport_t *t, const unsigned char *rec, uint8_t type,
                              uint32_t want_src, uint32_t *src);
const char *amtcp_addr_name(const struct sockaddr_storage *ss, char *buf, size_t len);

/* amtcp_live.c */
void amtcp_live_start(gasnetc_transport_t *t, uint64_t now);  /* at connect */
uint64_t amtcp_live_due(gasnetc_transport_t *t, uint64_t now); /* lock NOT held */

#endif /* AMTCP_INTERNAL_H */
