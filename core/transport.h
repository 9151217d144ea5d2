/*
 * transport.h - the one internal interface between the conduit-neutral core
 * (core/) and a transport (amudp/ over UDP, amtcp/ over TCP).
 *
 * A transport moves frames between the ranks of a job, reliably and exactly
 * once, and hands each frame it receives to the core through a callback. It
 * knows nothing of handlers, segments or AM categories: a frame is an opaque
 * core header (at most GASNETC_HDR_MAX bytes) followed by an opaque payload
 * (at most ops->max_payload() bytes). Order between frames is NOT promised.
 * Frames larger than a datagram are the transport's business (fragmentation
 * and reassembly).
 *
 * The core picks an implementation by its ops table (amudp_ops, amtcp_ops)
 * and never asks which one it has.
 *
 * Threading: in a PAR build (GASNETC_THREADS defined to 1) every op except
 * open/close may be called from several threads at once, and the callbacks
 * may run on any thread that is inside send/poll/wait. Callbacks are always
 * made with no transport lock held, so a deliver callback may call send
 * (a request handler replying) on the same transport.
 */
#ifndef GASNETC_TRANSPORT_H
#define GASNETC_TRANSPORT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/socket.h>

#define GASNETC_HDR_MAX   192   /* largest core header in one frame, bytes */
#define GASNETC_ADDR_MAX  64    /* largest transport address blob, bytes */
#define GASNETC_KEY_LEN   32    /* per-job key, = BOOT_JOB_KEY_LEN */

typedef struct gasnetc_transport gasnetc_transport_t; /* each transport's own */

/* send() flags */
enum {
  /* This frame is an AM reply. A transport reserves room for replies so
   * that a reply never waits for the peer to drain requests: a request
   * handler replying can never deadlock. */
  GASNETC_SEND_REPLY = 1u << 0,
};

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
   * A whole frame has arrived from `src`. hdr/payload are valid only during
   * the call. If place() returned a destination for this frame, payload is
   * that pointer and the bytes are already there.
   */
  void (*deliver)(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                  void *payload, size_t paylen);
  /*
   * Optional (may be NULL). Called once, before the payload of a frame of
   * paylen bytes is stored, with the frame's core header: the core returns
   * where the payload must land (a Long's destination in the segment), or
   * NULL to let the transport buffer it. Lets large payloads be written in
   * place, without a copy.
   */
  void *(*place)(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                 size_t paylen);
  /*
   * Peer `rank` is gone (silent past its timeout, connection reset, ...).
   * `why` names the cause in a few words. The core ends the job; the
   * transport makes no further progress promises about that peer.
   */
  void (*peer_dead)(void *ctx, uint32_t rank, const char *why);
} gasnetc_transport_config_t;

typedef struct gasnetc_transport_ops {
  const char *name; /* "udp", "tcp" */

  /* Create the endpoint: sockets bound, loop ready, nothing sent yet.
   * 0 or -errno (after printing one line naming the problem). On failure
   * *tp is NULL and nothing is left open. */
  int (*open)(gasnetc_transport_t **tp, const gasnetc_transport_config_t *cfg);

  /* This endpoint's address as an opaque blob of at most GASNETC_ADDR_MAX
   * bytes, for the bootstrap exchange. */
  int (*address)(gasnetc_transport_t *t, void *blob, size_t *len);

  /* Learn every rank's blob: rank r's at blobs + r*stride. Called once, by
   * every rank at about the same time (a transport may make connections
   * here, bounded in time). */
  int (*connect)(gasnetc_transport_t *t, const void *blobs, size_t stride);

  /* Largest payload one frame may carry, bytes (at least 1 MiB + 64 KiB). */
  size_t (*max_payload)(gasnetc_transport_t *t);

  /*
   * Send one frame to rank `dest` (never this rank: the core handles
   * loopback). On return hdr and payload may be reused: the transport has
   * sent or copied them. May block while the peer's window is full, making
   * progress (and so delivering frames) meanwhile. 0, or -EMSGSIZE (too
   * large), -EINVAL (bad rank), -EPIPE (peer dead).
   */
  int (*send)(gasnetc_transport_t *t, uint32_t dest, const void *hdr,
              size_t hdrlen, const void *payload, size_t paylen,
              unsigned flags);

  /* Bounded, non-blocking progress: read what has arrived, run due timers
   * (retransmissions, acks), deliver complete frames. Returns the number
   * of frames delivered, or -errno. */
  int (*poll)(gasnetc_transport_t *t);

  /* Like poll, but first sleep in the kernel until something arrives, a
   * timer falls due, or timeout_ms passes (-1: no limit but timers). */
  int (*wait)(gasnetc_transport_t *t, int timeout_ms);

  /* Counters, one "name value" per line, for GASNET_STATSFILE. */
  void (*stats)(gasnetc_transport_t *t, FILE *out);

  /* Flush what is unacknowledged (bounded in time), then free everything.
   * Safe on a transport whose open failed half way. */
  void (*close)(gasnetc_transport_t *t);
} gasnetc_transport_ops_t;

#endif /* GASNETC_TRANSPORT_H */
