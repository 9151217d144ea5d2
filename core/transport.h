/*
 * transport.h - the one internal interface (version 2) between the
 * conduit-neutral core (core/) and a transport (amudp/ over UDP, amtcp/
 * over TCP, amshm/ through shared memory between the ranks of one host).
 *
 * A transport moves frames between the ranks of a job, reliably and exactly
 * once, and hands each frame it receives to the core through a callback. It
 * knows nothing of handlers, segments or AM categories: a frame is an opaque
 * core header (at most GASNETC_HDR_MAX bytes) followed by an opaque payload
 * (at most ops->max_payload() bytes). Order between frames is NOT promised.
 * Frames larger than a datagram are the transport's business.
 *
 * One instance serves one endpoint of the core and the peers the core's
 * route table gives it (connect's `serves`); several transports may serve
 * one endpoint, each its own peers. A transport never blocks and never
 * sleeps on its own (close excepted):
 *   - send() queues the frame or says "not now" (-EAGAIN); it reports local
 *     completion of a payload it still reads from the caller's memory
 *     through cfg.send_done;
 *   - it exposes its descriptors (cfg.watch) and its next deadline (idle),
 *     and the core sleeps for all transports at once, in one wait
 *     (core/gasnetc_wait.c), then calls each one's poll.
 *
 * Alignment: a transport delivers a payload at an address congruent mod 16
 * to the core header's length (the header starts 16-aligned in its receive
 * buffer, the payload follows it directly, or the payload has a buffer of
 * its own, 16-aligned). The core pads headers to a multiple of 16 where the
 * payload must be aligned (Medium: spec 2.3.3.2).
 *
 * Notices: besides frames, a transport may carry notices (ops->notice):
 * GASNETC_NOTICE_WORDS words for the core, sent at most once and perhaps
 * not at all: no retransmission, no acknowledgement, no order, no credit,
 * authenticated like the transport's frames. They are for messages whose
 * loss the core repairs itself, cheaper than a frame where the transport's
 * reliability is most of a message's cost: amudp carries them (a NOTE
 * datagram; docs/transports.md, "Notices"). A transport without them
 * (ops->notice NULL) is asked for frames only.
 *
 * Threading: in a PAR build (GASNETC_THREADS defined to 1) every op except
 * open/connect/close may be called from several threads at once, and the
 * callbacks may run on any thread that is inside send/poll/commit.
 * Callbacks are always made with no transport lock held, so a deliver
 * callback may call send (a request handler replying) on the same
 * transport.
 */
#ifndef GASNETC_TRANSPORT_H
#define GASNETC_TRANSPORT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/socket.h>

#define GASNETC_TRANSPORT_VERSION 2
#define GASNETC_HDR_MAX   192   /* largest core header in one frame, bytes */
#define GASNETC_ADDR_MAX  64    /* largest transport address blob, bytes */
#define GASNETC_KEY_LEN   32    /* per-job key, = BOOT_JOB_KEY_LEN */
#define GASNETC_NEVER     UINT64_MAX /* idle(): no deadline */

typedef struct gasnetc_transport gasnetc_transport_t; /* each transport's own */

/* A notice (above): what the core sends, and gets back through cfg.notice. */
#define GASNETC_NOTICE_WORDS 5
typedef struct gasnetc_notice {
  uint16_t kind; /* the core's: whose notice it is */
  uint32_t w[GASNETC_NOTICE_WORDS];
} gasnetc_notice_t;

/* send() / prepare() flags */
enum {
  /* This frame is an AM reply. A transport reserves room for replies so
   * that a reply is never refused for want of the peer draining requests:
   * replies never get -EAGAIN, so a request handler replying can never
   * deadlock. */
  GASNETC_SEND_REPLY = 1u << 0,
  /* The caller does not wait for the payload to be reusable before it
   * goes on (it counts send_done instead): a transport may send a large
   * payload from the caller's memory until the peer has acknowledged all
   * of it (GASNETC_SEND_INFLIGHT), where it would otherwise copy it. A
   * transport need not: it may copy, or return INFLIGHT for reasons of its
   * own with or without this flag. */
  GASNETC_SEND_BORROW = 1u << 1,
};

/* send() results besides 0 (accepted; hdr and payload copied or sent:
 * the caller may reuse them at once) and -errno. */
enum {
  /* Accepted, but the payload is still read from the caller's memory (a
   * large payload, sent without a copy: amtcp's that the kernel did not
   * take yet, amudp's borrowed until acknowledged): cfg.send_done(ctx,
   * cookie, rc) is called exactly once when it may be reused, possibly
   * before send() returns. */
  GASNETC_SEND_INFLIGHT = 1,
};

/* A send buffer lent by prepare() until commit(). */
typedef struct gasnetc_lend {
  void *buf;          /* payload goes here: 16-byte aligned, `cap` bytes */
  size_t cap;
  uint32_t dest;
  unsigned flags;
  void *priv[2];      /* the transport's own */
} gasnetc_lend_t;

/* What the core gives a transport at open. All pointers outlive the transport. */
typedef struct gasnetc_transport_config {
  uint32_t myrank, nranks;
  unsigned char job_key[GASNETC_KEY_LEN]; /* shared by this job's ranks only */
  /* Address to bind and advertise (from boot_self_addr), or family AF_UNSPEC
   * for "use 127.0.0.1". Port is ignored: transports bind port 0. */
  struct sockaddr_storage bind_addr;
  socklen_t bind_addr_len;
  /* The job's environment (boot_getenv): transports read their tunables
   * through this, once, at open. */
  const char *(*getenv)(const char *name);
  void *ctx; /* passed back to every callback */

  /*
   * A whole frame has arrived from `src` (a job rank). hdr/payload are
   * valid only during the call. If place() returned a destination for this
   * frame, payload is that pointer and the bytes are already there.
   */
  void (*deliver)(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                  void *payload, size_t paylen);
  /*
   * Optional (may be NULL). Called once, before the payload of a frame of
   * paylen bytes is stored, with the frame's core header: the core returns
   * where the payload must land (a Long's destination in the segment), or
   * NULL to let the transport buffer it.
   */
  void *(*place)(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                 size_t paylen);
  /*
   * Peer `rank` is gone (silent past its timeout, connection reset, ...).
   * `why` names the cause in a few words. The core ends the job; the
   * transport makes no further progress promises about that peer.
   */
  void (*peer_dead)(void *ctx, uint32_t rank, const char *why);
  /*
   * A send that returned GASNETC_SEND_INFLIGHT is locally complete: its
   * payload may be reused. rc is 0, or -EPIPE when the peer went away
   * first (the frame is lost with the peer).
   */
  void (*send_done)(void *ctx, void *cookie, int rc);
  /*
   * A notice (ops->notice) has arrived from `src`, authentic and addressed
   * to this rank; it may be a duplicate, or come after later ones. Made
   * with no transport lock held, like deliver.
   */
  void (*notice)(void *ctx, uint32_t src, const gasnetc_notice_t *n);
  /*
   * Add (events != 0: EPOLLIN/EPOLLOUT bits) or change, or remove
   * (events == 0) a descriptor of this transport in the core's one wait.
   * When it is ready the core calls poll. 0 or -errno. May be called from
   * open on, with the transport's lock held: it never calls back into the
   * transport. Register the descriptors themselves rather than an epoll
   * set of one's own: a nested set adds a wakeup hop to every arrival.
   */
  int (*watch)(void *ctx, int fd, unsigned events);
  /*
   * Liveness (the service of core/transport_live.h, live/live_udp.c;
   * docs/transports.md, "Liveness"). Every
   * process answers probes from a thread of its own whether or not it
   * polls, so only a peer that is gone or stopped leaves them unanswered.
   * live_probe sends `rank` one probe (a datagram: never blocks, never
   * fails loudly); live_heard returns the gasneti_now_ns() time at which
   * the newest probe that `rank` answered was sent, 0 if none. Both take
   * no lock and may be called from any thread. NULL (a transport tested
   * alone): no probe is ever answered. transport_live.h decides, the same
   * way for every transport, when a silent peer is dead.
   */
  void (*live_probe)(void *ctx, uint32_t rank);
  uint64_t (*live_heard)(void *ctx, uint32_t rank);
  /* How long (ns) a peer may leave probes unanswered before it is dead,
   * for a transport without a variable of its own (shm: the conduit's
   * network timeout, GASNET_UDP_TIMEOUT or GASNET_TCP_TIMEOUT); 0: never. */
  uint64_t live_timeout_ns;
} gasnetc_transport_config_t;

typedef struct gasnetc_transport_ops {
  const char *name; /* "udp", "tcp", "shm" */
  /* poll reads memory only, no system call (shm). In a job where such a
   * transport serves ranks too, the core polls the others less often on
   * its hot path while they are quiet (core/gasnetc_wait.c). */
  int poll_in_memory;

  /* Create the endpoint: sockets bound, descriptors watched, nothing sent
   * yet. 0 or -errno (after printing one line naming the problem). On
   * failure *tp is NULL and nothing is left open. */
  int (*open)(gasnetc_transport_t **tp, const gasnetc_transport_config_t *cfg);

  /* This endpoint's address as an opaque blob of at most GASNETC_ADDR_MAX
   * bytes, for the bootstrap exchange. */
  int (*address)(gasnetc_transport_t *t, void *blob, size_t *len);

  /* Learn every rank's blob: rank r's at blobs + r*stride; serve the ranks
   * r with serves[r] != 0 (never this rank: the core handles loopback),
   * and no other. Called once, by every rank at about the same time (a
   * transport may make connections here, bounded in time). */
  int (*connect)(gasnetc_transport_t *t, const void *blobs, size_t stride,
                 const uint8_t *serves);

  /* Largest payload one frame may carry, bytes (at least 1 MiB + 64 KiB). */
  size_t (*max_payload)(gasnetc_transport_t *t);

  /*
   * Send one frame to rank `dest`, which it serves. Never blocks, never
   * sleeps: 0 (sent or queued, hdr and payload copied),
   * GASNETC_SEND_INFLIGHT (queued; the payload is read later, then
   * cfg.send_done(ctx, cookie, rc)), -EAGAIN (not now: the peer's window or
   * queue is full; nothing was queued, and progress - poll - will make
   * room), -EMSGSIZE (too large), -EINVAL (bad rank), -EPIPE (peer dead).
   * Queues are bounded: what -EAGAIN refuses is what would grow them past
   * their documented limit. Replies are never refused with -EAGAIN.
   */
  int (*send)(gasnetc_transport_t *t, uint32_t dest, const void *hdr,
              size_t hdrlen, const void *payload, size_t paylen,
              unsigned flags, void *cookie);

  /*
   * Buffer lending: prepare() lends a buffer of at least paylen bytes for
   * the payload of one frame to `dest` (lend->dest, lend->flags set by the
   * caller), so that the payload can be written in place; commit() sends
   * it with the given header and final length (<= cap), as send() would,
   * returning 0 or -errno (never -EAGAIN, never INFLIGHT: the buffer is the
   * transport's). prepare returns 0, -EAGAIN (as send) or -errno.
   * Every prepare is followed by exactly one commit or cancel, on the
   * same thread, with no other send on it in between; cancel gives the
   * buffer back unsent (gex_AM_Cancel*). The three are NULL together: the
   * core then lends a buffer of its own and commit is a send() of it (a
   * copy).
   */
  int (*prepare)(gasnetc_transport_t *t, gasnetc_lend_t *lend, size_t paylen);
  int (*commit)(gasnetc_transport_t *t, gasnetc_lend_t *lend, const void *hdr,
                size_t hdrlen, size_t paylen);
  void (*cancel)(gasnetc_transport_t *t, gasnetc_lend_t *lend);

  /* Optional (NULL: none). Send notice n to rank `dest`, which it serves,
   * with the frames of this call or pass, never held back for credits or
   * a window; never blocks, never says "not now". 0 (gone, or lost as a
   * datagram may be), -EINVAL (bad rank), -EPIPE (peer dead). */
  int (*notice)(gasnetc_transport_t *t, uint32_t dest, const gasnetc_notice_t *n);

  /* Bounded, non-blocking progress: read what has arrived, run due timers
   * (retransmissions, acks), write what is queued, deliver complete frames.
   * Returns the number of frames delivered, or -errno. */
  int (*poll)(gasnetc_transport_t *t);

  /* The core is about to sleep: do what cannot wait for the next poll
   * (e.g. send delayed acks, which nothing sent while asleep would carry),
   * and return the earliest monotonic time (ns, the clock of
   * gasneti_now_ns) at which poll must run even if no descriptor is ready;
   * GASNETC_NEVER for none, or a time not after now for "do not sleep". */
  uint64_t (*idle)(gasnetc_transport_t *t);

  /* Counters, one "name value" per line, for GASNET_STATSFILE. */
  void (*stats)(gasnetc_transport_t *t, FILE *out);

  /* Flush what is unacknowledged (bounded in time: the one place a
   * transport waits by itself), then free everything. Safe on a transport
   * whose open failed half way. */
  void (*close)(gasnetc_transport_t *t);
} gasnetc_transport_ops_t;

#endif /* GASNETC_TRANSPORT_H */
