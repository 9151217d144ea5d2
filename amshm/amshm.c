/*
 * amshm.c - the shared-memory transport (amshm_ops, name "shm"): frames
 * between the ranks of one host through the lock-free rings of
 * amshm_ring.h, for the peers of this rank's neighbourhood (the route rule
 * of conduit/udp.c and conduit/tcp.c; docs/transports.md, "The
 * shared-memory transport").
 *
 *  - open: this rank's inbound region (memfd_create, so nothing is ever
 *    left behind in /dev/shm, however the job ends) and a wake-up pipe,
 *    whose read end is watched in the core's one wait. A pipe, not an
 *    eventfd: an eventfd cannot be reopened through /proc/<pid>/fd
 *    (ENXIO), and pidfd_getfd needs ptrace-attach rights that Yama's
 *    default scope denies between sibling processes; a pipe reopens.
 *  - connect: open each served peer's memfd and pipe through
 *    /proc/<pid>/fd/<n>, map its region's header and our slot in it, map
 *    the peer's slot in our own region, and watch a pidfd of the peer: it
 *    becomes readable when the peer's process ends.
 *  - send: a frame goes into our slot of the receiver's region, as one
 *    record or several fragments of at most a quarter ring (see
 *    amshm_put). Requests: -EAGAIN when not even the first fragment fits
 *    or a frame is already waiting for room. Replies are never refused:
 *    what does not fit waits in a local overflow queue, flushed by poll and
 *    idle. A frame kept there (a reply, or the rest of a started request)
 *    asks the receiver for room (want_space), so its pipe wakes us.
 *  - poll: drain every ring of our region, delivering single-record frames
 *    straight from the ring and reassembling fragments (into the place()
 *    destination when the core gives one); flush the overflow.
 *  - idle: count ourselves among the region's sleepers, fence, look at the
 *    rings once more. A sender fences after publishing and writes the
 *    pipe only when the receiver has sleepers.
 *
 * Locking (PAR builds only, GASNETC_THREADS=1): per ring, a producer mutex
 * (taken in send, poll and idle to write the ring and the overflow queue)
 * and a consumer claim (trylock: a thread finding it taken, including a
 * handler's nested poll on the same thread, skips that ring). The claim is
 * held while delivering a frame that still lies in the ring; send never
 * takes a claim, so a handler may send. SEQ builds take no lock.
 */
#define _GNU_SOURCE 1 /* memfd_create, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "transport.h"
#include "transport_live.h"
#include "gasneti_env.h"
#include "gasneti_time.h"
#include "gasnett_internal.h" /* gasnett__envreport */
#include "amshm_ring.h"

#ifndef GASNETC_THREADS
#define GASNETC_THREADS 0
#endif
#if GASNETC_THREADS
#include <pthread.h>
#define AMSHM_TLS __thread
#else
#define AMSHM_TLS
#endif

#define AMSHM_MAX_PAYLOAD ((size_t)4 << 20) /* as amudp and amtcp */
#define AMSHM_RING_DEFAULT (128u << 10)     /* GASNET_SHM_RING */
#define AMSHM_RING_MIN (4u << 10)
#define AMSHM_RING_MAX (64u << 20)
/* Without GASNET_SHM_RING, the rings of a whole neighbourhood take at most
 * this much (amshm_ring_fit): they are n^2, every pair's two rings, and a
 * ring's pages, once touched, stay. 128 KiB rings up to 64 ranks; 256 ranks
 * on one host would have taken 256 * 255 * 2 * 128 KiB = 16 GiB. */
#define AMSHM_NBRHD_RINGS ((uint64_t)1 << 30)
/* With this many neighbours or more (and at most AMSHM_BELL_BITS ranks in
 * the neighbourhood), a sender rings the receiver's doorbell after it
 * published (sets its bit in the receiver's page 0), and poll and idle look
 * at the rings of the peers that rang only: looking at 2 rings of each of
 * 255 neighbours at every poll (a cache miss each) was a fifth of a
 * 256-rank job's time (perf, t_amstress). Below it the look costs less
 * than the sender's atomic OR. */
#define AMSHM_DOORBELL_PEERS 16
/* Records per ring per poll: progress stays bounded under a flood. */
#define AMSHM_POLL_BUDGET 64
/* A rank that polls without ever sleeping looks at its peers' pidfds every
 * AMSHM_EXIT_CHECK_POLLS polls, at most every AMSHM_EXIT_CHECK_NS (a
 * sleeping one does at every wake-up: the pidfds are in the one wait). */
#define AMSHM_EXIT_CHECK_POLLS 1024
#define AMSHM_EXIT_CHECK_NS 10000000ull
/* close() flushes the overflow queues for at most this long. */
#define AMSHM_CLOSE_FLUSH_NS 200000000ull

/* The address blob (host byte order: both ends share a kernel). */
typedef struct amshm_blob {
  uint32_t magic, pid;
  int32_t memfd, wakefd; /* in the owner's descriptor table */
  uint32_t ring, nranks;
  uint32_t ring_auto; /* ring is the default, to be fitted (amshm_ring_fit) */
  uint8_t tag[16];
} amshm_blob_t;
_Static_assert(sizeof(amshm_blob_t) <= GASNETC_ADDR_MAX, "the blob fits the exchange");

/* A frame (or its rest) waiting for room in a ring: payload bytes
 * [base, total) are at src (pay[], or the caller's memory when it lent
 * it: GASNETC_SEND_BORROW), the next one to write is `off`. */
typedef struct amshm_pend {
  struct amshm_pend *next;
  size_t hdrlen, total, base, off;
  int started; /* the first record (with the header) is written */
  const uint8_t *src;
  void *cookie; /* lent: cfg.send_done(cookie) once written */
  _Alignas(16) uint8_t hdr[GASNETC_HDR_MAX];
  uint8_t pay[];
} amshm_pend_t;

/* A frame arriving in fragments. */
typedef struct amshm_rx {
  int active;
  size_t hdrlen, total, got;
  uint8_t *dst;  /* where the payload goes: place()'s, or buf + (hdrlen & 15) */
  uint8_t *buf;  /* ours, 16-aligned, or NULL */
  _Alignas(16) uint8_t hdr[GASNETC_HDR_MAX];
} amshm_rx_t;

typedef struct amshm_peer {
  uint32_t rank;
  uint32_t pos;           /* its position in the neighbourhood: its bell bit */
  int wakefd;             /* the peer's wake-up pipe (opened read-write) */
  int pidfd;              /* readable once the peer's process has ended; -1 */
  int dead;               /* exited (reported, or after its BYE) */
  amshm_region_t *rhdr;   /* page 0 of the peer's region */
  amshm_slot_t *out;      /* our slot in the peer's region: we produce */
  amshm_slot_t *in;       /* the peer's slot in ours: we consume */
  uint64_t out_len, in_len;
  amshm_ring_t tx[2], rx[2];
  amshm_pend_t *pend[2], *pend_last[2]; /* overflow, FIFO per ring */
  amshm_rx_t asm_[2];     /* reassembly per ring (a ring is FIFO) */
  /* liveness (amshm_live_due; t->checking guards them) */
  uint64_t live_seen;     /* bytes it had published to us at the last look */
  uint64_t live_quiet_ns; /* nothing published since (as of the last look) */
  gasnetc_live_watch_t live;
#if GASNETC_THREADS
  pthread_mutex_t txlock[2], rxlock[2];
#else
  int rxbusy[2];
#endif
} amshm_peer_t;

#define AMSHM_COUNTERS(X) \
  X(frames_sent) X(bytes_sent) X(fragments_sent) X(frames_received) X(bytes_received) \
  X(wakes_sent) X(wakes_received) X(producer_wakes) X(eagain) X(reply_overflow) \
  X(placed)
enum {
#define AMSHM_X_ENUM(name) AMSHM_C_##name,
  AMSHM_COUNTERS(AMSHM_X_ENUM)
#undef AMSHM_X_ENUM
  AMSHM_NCOUNTERS
};
#if GASNETC_THREADS
#define AMSHM_COUNT(t, name, v) __atomic_fetch_add(&(t)->ctr[AMSHM_C_##name], (v), __ATOMIC_RELAXED)
#else
#define AMSHM_COUNT(t, name, v) ((t)->ctr[AMSHM_C_##name] += (v))
#endif

struct gasnetc_transport {
  gasnetc_transport_config_t cfg;
  uint32_t ring;          /* our rings' size (GASNET_SHM_RING; fitted at connect) */
  int ring_auto;          /* GASNET_SHM_RING unset: ring is fitted to the neighbourhood */
  int memfd;
  int wake[2];            /* our wake-up pipe: [0] watched, [1] kept open */
  int watched;
  amshm_region_t *region; /* page 0 of our region */
  uint64_t region_len;
  uint8_t tag[16];
  amshm_peer_t *peers;    /* the served peers */
  uint32_t npeers;
  int doorbell;           /* npeers >= AMSHM_DOORBELL_PEERS: the doorbell is rung */
  uint32_t my_pos;        /* our position in the neighbourhood: our bell bit */
  uint32_t bell_words;    /* of region->bell in use */
  amshm_peer_t **by_pos;  /* [position]: the peer whose bit it is (NULL: us) */
  uint32_t npend;         /* overflow queues holding frames, all peers */
  amshm_peer_t **by_rank; /* [nranks], NULL when not served */
  struct pollfd *pfds;    /* the peers' pidfds, for amshm_check_exits */
  int checking;           /* a thread is in amshm_check_exits or amshm_live_due (PAR) */
  uint64_t live_next_ns;  /* when amshm_live_due looks next (atomic) */
  char dead_msg[96];      /* "no answer for 30 s: dead or stopped" */
  unsigned polls;         /* since the last look at the pidfds (racy in PAR: a hint) */
  uint64_t next_check;    /* gasneti_now_ns() of the next look while polling */
  uint64_t ctr[AMSHM_NCOUNTERS];
};

/*
 * ThreadSanitizer sees the threads of one process only. A reply that
 * thread A receives answers a request thread B sent, and B's writes before
 * the send happen before A's handler; but the chain runs through the peer
 * process (B's release of a head there, the peer's acquire and release,
 * A's acquire here), which TSan cannot see, so it reports B's and A's
 * accesses as a race. Under TSan only, every publish also releases and
 * every delivery acquires one word of this process, which makes the edge
 * visible; elsewhere it costs nothing.
 */
#if defined(__SANITIZE_THREAD__)
static unsigned long amshm_tsan_word;
#define AMSHM_TSAN_RELEASE() __atomic_fetch_add(&amshm_tsan_word, 1, __ATOMIC_RELEASE)
#define AMSHM_TSAN_ACQUIRE() ((void)__atomic_load_n(&amshm_tsan_word, __ATOMIC_ACQUIRE))
#else
#define AMSHM_TSAN_RELEASE() ((void)0)
#define AMSHM_TSAN_ACQUIRE() ((void)0)
#endif

/* This thread counted itself among our sleepers in idle (undone in poll). */
static AMSHM_TLS int amshm_asleep;

/* ------------------------------------------------------------ small helpers */

/* The one tunable, GASNET_SHM_RING (README.md lists it), read at open. */
static double amshm_env_num(gasnetc_transport_t *t, const char *name, double dflt, double lo,
                            double hi) {
  return gasneti_env_num(t->cfg.getenv, "amshm", t->cfg.myrank != 0, name, dflt, lo, hi,
                         gasnett__envreport);
}

static void amshm_tag(const unsigned char key[GASNETC_KEY_LEN], uint8_t tag[16]) {
  uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
  for (int i = 0; i < GASNETC_KEY_LEN; i++)
    for (int j = 0; j < 2; j++) h[j] = (h[j] ^ key[i] ^ (uint8_t)(0x5a * j)) * 0x100000001b3ull;
  memcpy(tag, h, 16);
}

static void amshm_rx_lockinit(amshm_peer_t *p) {
#if GASNETC_THREADS
  for (int k = 0; k < 2; k++) {
    pthread_mutex_init(&p->txlock[k], NULL);
    pthread_mutex_init(&p->rxlock[k], NULL);
  }
#else
  (void)p;
#endif
}
static inline void amshm_tx_lock(amshm_peer_t *p, int k) {
#if GASNETC_THREADS
  pthread_mutex_lock(&p->txlock[k]);
#else
  (void)p, (void)k;
#endif
}
static inline void amshm_tx_unlock(amshm_peer_t *p, int k) {
#if GASNETC_THREADS
  pthread_mutex_unlock(&p->txlock[k]);
#else
  (void)p, (void)k;
#endif
}
/* The consumer claim: never waited for (see the top of the file). */
static inline int amshm_rx_claim(amshm_peer_t *p, int k) {
#if GASNETC_THREADS
  return pthread_mutex_trylock(&p->rxlock[k]) == 0;
#else
  if (p->rxbusy[k]) return 0;
  return p->rxbusy[k] = 1;
#endif
}
static inline void amshm_rx_release(amshm_peer_t *p, int k) {
#if GASNETC_THREADS
  pthread_mutex_unlock(&p->rxlock[k]);
#else
  p->rxbusy[k] = 0;
#endif
}

/* The size of the rings of a rank that asked for `ring` (auto: by default)
 * in a neighbourhood where each rank has npeers peers: the default shrinks,
 * by powers of two down to AMSHM_RING_MIN, until the neighbourhood's rings
 * fit AMSHM_NBRHD_RINGS. Both ends of a pair compute it from the same
 * numbers (the blob's ring and flag, the neighbourhood's size), so a
 * sender knows the receiver's ring without asking it. */
static uint32_t amshm_ring_fit(uint32_t ring, int autosize, uint32_t npeers) {
  if (!autosize) return ring;
  uint64_t pairs = (uint64_t)npeers * (npeers + 1);
  while (ring > AMSHM_RING_MIN && pairs * 2 * ring > AMSHM_NBRHD_RINGS) ring /= 2;
  return ring;
}

/* Largest payload in one record: a quarter ring less the record and
 * largest header, so a PAD wastes at most a quarter and a large frame
 * streams while the receiver drains. */
static size_t amshm_frag_max(uint32_t ring) {
  return ((size_t)ring / 4 - sizeof(amshm_rec_t) - GASNETC_HDR_MAX) & ~(size_t)15;
}

/* Write a byte to a pipe: a full pipe is readable already. */
static void amshm_poke(int fd) {
  char c = 0;
  ssize_t rc;
  do rc = write(fd, &c, 1);
  while (rc < 0 && errno == EINTR);
}

/* After publishing: wake the receiver if any of its threads sleeps. */
static void amshm_wake_receiver(gasnetc_transport_t *t, amshm_peer_t *p) {
  if (t->doorbell)
    __atomic_fetch_or(&p->rhdr->bell[t->my_pos / 64], 1ull << (t->my_pos % 64), __ATOMIC_RELEASE);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (__atomic_load_n(&p->rhdr->sleepers, __ATOMIC_RELAXED)) {
    amshm_poke(p->wakefd);
    AMSHM_COUNT(t, wakes_sent, 1);
  }
}

/* ------------------------------------------------------------------ sending */

/*
 * Write records of one frame from payload offset *off on (the byte at
 * offset o is pay[o - base]) while they fit: 1 when the last is written,
 * else 0 (some or none written: *off, *started say how far). Producer
 * lock held.
 */
static int amshm_put(gasnetc_transport_t *t, amshm_ring_t *r, const void *hdr, size_t hdrlen,
                     const uint8_t *pay, size_t base, size_t total, size_t *off, int *started) {
  size_t fmax = amshm_frag_max(r->size);
  for (;;) {
    size_t frag = total - *off < fmax ? total - *off : fmax;
    size_t hl = *started ? 0 : hdrlen;
    size_t need = amshm_align16(sizeof(amshm_rec_t) + hl + frag);
    uint64_t head;
    uint8_t *at = amshm_ring_reserve(r, need, &head);
    if (!at) return 0;
    int last = *off + frag == total;
    amshm_rec_t rec = {
        .len = (uint32_t)need,
        .flags = (uint16_t)((*started ? 0 : AMSHM_REC_FIRST) | (last ? AMSHM_REC_LAST : 0)),
        .hdrlen = (uint16_t)hl,
        .fraglen = (uint32_t)frag,
        .total = (uint32_t)total,
    };
    memcpy(at, &rec, sizeof rec);
    if (hl) memcpy(at + sizeof rec, hdr, hl);
    if (frag) memcpy(at + sizeof rec + hl, pay + (*off - base), frag);
    AMSHM_TSAN_RELEASE();
    amshm_ring_publish(r, head, need);
    AMSHM_COUNT(t, fragments_sent, 1);
    *off += frag;
    *started = 1;
    if (last) return 1;
  }
}

/* Ask the consumer to wake us when it frees room; then look again (it may
 * have freed it before it could see the flag). */
static void amshm_want_space(amshm_ring_t *r) {
  __atomic_store_n(&r->ctl->want_space, 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* A lent frame is written: its send_done, made with no lock held (after
 * the caller of amshm_flush_locked released it). */
static void amshm_lent_done(gasnetc_transport_t *t, amshm_pend_t *done, int rc) {
  for (amshm_pend_t *q; (q = done) != NULL;) {
    done = q->next;
    t->cfg.send_done(t->cfg.ctx, q->cookie, rc);
    free(q);
  }
}

/* Write what the overflow queue of ring k holds, in order, while it fits.
 * Producer lock held. Returns 1 if anything was written. Lent frames
 * written go to *done (amshm_lent_done). */
static int amshm_flush_locked(gasnetc_transport_t *t, amshm_peer_t *p, int k, amshm_pend_t **done_lent) {
  int wrote = 0, retried = 0;
  amshm_pend_t *q;
  while ((q = p->pend[k]) != NULL) {
    size_t off0 = q->off;
    int done = amshm_put(t, &p->tx[k], q->hdr, q->hdrlen, q->src, q->base, q->total, &q->off,
                         &q->started);
    wrote |= q->off != off0 || done;
    if (done) {
      AMSHM_COUNT(t, frames_sent, 1);
      AMSHM_COUNT(t, bytes_sent, q->total);
      __atomic_store_n(&p->pend[k], q->next, __ATOMIC_RELAXED);
      if (!q->next) {
        p->pend_last[k] = NULL;
        __atomic_fetch_sub(&t->npend, 1, __ATOMIC_RELAXED);
      }
      if (q->cookie) {
        q->next = *done_lent;
        *done_lent = q;
      } else free(q);
      continue;
    }
    if (retried) break;
    amshm_want_space(&p->tx[k]);
    retried = 1;
  }
  return wrote;
}

static void amshm_flush(gasnetc_transport_t *t, amshm_peer_t *p, int k) {
  if (!__atomic_load_n(&p->pend[k], __ATOMIC_RELAXED)) return;
  amshm_pend_t *lent = NULL;
  amshm_tx_lock(p, k);
  int wrote = amshm_flush_locked(t, p, k, &lent);
  amshm_tx_unlock(p, k);
  if (wrote) amshm_wake_receiver(t, p);
  amshm_lent_done(t, lent, 0);
}

/* Keep the unwritten rest of a frame in the overflow queue: a copy, or
 * (cookie != NULL: the caller lent it) the caller's memory itself. */
static int amshm_keep(gasnetc_transport_t *t, amshm_peer_t *p, int k, const void *hdr,
                      size_t hdrlen, const uint8_t *pay, size_t total, size_t off, int started,
                      void *cookie) {
  amshm_pend_t *q = malloc(sizeof *q + (cookie ? 0 : total - off));
  if (!q) return -ENOMEM;
  q->next = NULL;
  q->hdrlen = hdrlen;
  q->total = total;
  q->base = q->off = off;
  q->started = started;
  q->cookie = cookie;
  q->src = cookie ? pay + off : q->pay;
  memcpy(q->hdr, hdr, hdrlen);
  if (!cookie && total > off) memcpy(q->pay, pay + off, total - off);
  if (p->pend_last[k]) p->pend_last[k]->next = q;
  else {
    __atomic_store_n(&p->pend[k], q, __ATOMIC_RELAXED);
    __atomic_fetch_add(&t->npend, 1, __ATOMIC_RELAXED);
  }
  p->pend_last[k] = q;
  if (k == AMSHM_REP) AMSHM_COUNT(t, reply_overflow, 1);
  return 0;
}

/* A request whose rest must wait for room is kept in the caller's memory
 * when it lends it (GASNETC_SEND_BORROW): GASNETC_SEND_INFLIGHT, then
 * send_done once the last record is written; else copied. Payloads that
 * fit at once are copied into the ring and complete on return. */
static int amshm_send(gasnetc_transport_t *t, uint32_t dest, const void *hdr, size_t hdrlen,
                      const void *payload, size_t paylen, unsigned flags, void *cookie) {
  amshm_peer_t *p = dest < t->cfg.nranks ? t->by_rank[dest] : NULL;
  if (!p) return -EINVAL;
  if (hdrlen > GASNETC_HDR_MAX || paylen > AMSHM_MAX_PAYLOAD) return -EMSGSIZE;
  if (__atomic_load_n(&p->dead, __ATOMIC_RELAXED)) return -EPIPE;
  int k = flags & GASNETC_SEND_REPLY ? AMSHM_REP : AMSHM_REQ;
  const uint8_t *pay = payload;
  int rc = 0, wrote = 0;
  void *lend = k == AMSHM_REQ && (flags & GASNETC_SEND_BORROW) && t->cfg.send_done ? cookie : NULL;
  amshm_pend_t *lent = NULL;
  amshm_tx_lock(p, k);
  if (p->pend[k]) { /* keep the ring's order: behind what waits */
    wrote = amshm_flush_locked(t, p, k, &lent);
    if (p->pend[k]) {
      if (k == AMSHM_REQ) rc = -EAGAIN;
      else rc = amshm_keep(t, p, k, hdr, hdrlen, pay, paylen, 0, 0, NULL);
      goto out;
    }
  }
  size_t off = 0;
  int started = 0, done;
  for (int tries = 0;; tries++) {
    done = amshm_put(t, &p->tx[k], hdr, hdrlen, pay, 0, paylen, &off, &started);
    if (done || started || tries) break;
    amshm_want_space(&p->tx[k]); /* then one more look */
  }
  wrote |= started;
  if (done) {
    AMSHM_COUNT(t, frames_sent, 1);
    AMSHM_COUNT(t, bytes_sent, paylen);
  } else if (!started && k == AMSHM_REQ) {
    rc = -EAGAIN; /* nothing queued */
  } else if ((rc = amshm_keep(t, p, k, hdr, hdrlen, pay, paylen, off, started, lend)) == 0) {
    /* The rest waits for room: ask the receiver to wake us when it frees
     * some (flush sets want_space, then looks once more), or a caller that
     * does not poll again leaves it there until its next wake-up. */
    wrote |= amshm_flush_locked(t, p, k, &lent);
    if (lend) rc = GASNETC_SEND_INFLIGHT; /* its send_done may come below */
  }
out:
  amshm_tx_unlock(p, k);
  if (rc == -EAGAIN) AMSHM_COUNT(t, eagain, 1);
  if (wrote) amshm_wake_receiver(t, p);
  amshm_lent_done(t, lent, 0);
  return rc;
}

/* ---------------------------------------------------------------- receiving */

/* A drain of p's rings stopped short: ring our own bell for it. */
static void amshm_bell_again(gasnetc_transport_t *t, amshm_peer_t *p) {
  if (t->doorbell)
    __atomic_fetch_or(&t->region->bell[p->pos / 64], 1ull << (p->pos % 64), __ATOMIC_RELAXED);
}

/* Is rec malformed, given reassembly state a? The records come from a
 * rank of this job: a bad one is a bug (ours or memory corruption), never
 * trusted to size a copy. */
static int amshm_rec_bad(const amshm_ring_t *r, const amshm_rx_t *a, const amshm_rec_t *rec) {
  int first = rec->flags & AMSHM_REC_FIRST, last = rec->flags & AMSHM_REC_LAST;
  /* Records never wrap (a PAD fills the ring's end first), so one must end
   * inside the ring; a PAD reaches here only when it does not fill the
   * ring to its end (amshm_ring_peek). */
  size_t room = r->size - (size_t)((const uint8_t *)rec - r->data);
  return (rec->flags & AMSHM_REC_PAD) ||
         rec->len < amshm_align16(sizeof *rec + rec->hdrlen + rec->fraglen) ||
         rec->len > room || rec->hdrlen > GASNETC_HDR_MAX || rec->total > AMSHM_MAX_PAYLOAD ||
         (first && last && rec->fraglen != rec->total) || (first && rec->fraglen > rec->total) ||
         (first && a->active) ||
         (!first && (!a->active || rec->fraglen > a->total - a->got ||
                     (last && a->got + rec->fraglen != a->total)));
}

/* A whole frame in one record: to place()'s destination if it has one,
 * else delivered where it lies in the ring. */
static void amshm_rec_whole(gasnetc_transport_t *t, amshm_peer_t *p, const amshm_rec_t *rec) {
  const gasnetc_transport_config_t *c = &t->cfg;
  const uint8_t *hdr = (const uint8_t *)(rec + 1);
  uint8_t *pay = (uint8_t *)hdr + rec->hdrlen;
  void *dst = c->place ? c->place(c->ctx, p->rank, hdr, rec->hdrlen, rec->fraglen) : NULL;
  if (dst) {
    memcpy(dst, pay, rec->fraglen);
    pay = dst;
    AMSHM_COUNT(t, placed, 1);
  }
  AMSHM_COUNT(t, frames_received, 1);
  AMSHM_COUNT(t, bytes_received, rec->fraglen);
  c->deliver(c->ctx, p->rank, hdr, rec->hdrlen, pay, rec->fraglen);
}

/* The first record of a larger frame opens its reassembly in a: at
 * place()'s destination, or in a buffer of our own. 0 or -ENOMEM. */
static int amshm_rec_first(gasnetc_transport_t *t, amshm_peer_t *p, amshm_rx_t *a,
                           const amshm_rec_t *rec) {
  const gasnetc_transport_config_t *c = &t->cfg;
  const uint8_t *body = (const uint8_t *)(rec + 1);
  a->hdrlen = rec->hdrlen;
  a->total = rec->total;
  a->got = 0;
  a->buf = NULL;
  memcpy(a->hdr, body, rec->hdrlen);
  a->dst = c->place ? c->place(c->ctx, p->rank, a->hdr, a->hdrlen, a->total) : NULL;
  if (a->dst) {
    AMSHM_COUNT(t, placed, 1);
  } else {
    /* the payload at an address congruent to hdrlen mod 16 */
    a->buf = aligned_alloc(16, amshm_align16(a->total + 16));
    if (!a->buf) return -ENOMEM;
    a->dst = a->buf + (a->hdrlen & 15);
  }
  memcpy(a->dst, body + rec->hdrlen, rec->fraglen);
  a->got = rec->fraglen;
  a->active = 1;
  return 0;
}

/* Records consumed from r: wake its producer if it waits for room. */
static void amshm_room_freed(gasnetc_transport_t *t, amshm_peer_t *p, amshm_ring_t *r) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (__atomic_load_n(&r->ctl->want_space, __ATOMIC_RELAXED) &&
      __atomic_exchange_n(&r->ctl->want_space, 0, __ATOMIC_RELAXED)) {
    amshm_poke(p->wakefd);
    AMSHM_COUNT(t, producer_wakes, 1);
  }
}

/* Deliver the records of ring k from peer p, at most AMSHM_POLL_BUDGET. */
static int amshm_drain(gasnetc_transport_t *t, amshm_peer_t *p, int k) {
  amshm_ring_t *r = &p->rx[k];
  if (amshm_ring_empty(r)) return 0;
  if (!amshm_rx_claim(p, k)) { /* another thread drains it; if it stops short, look again */
    amshm_bell_again(t, p);
    return 0;
  }
  amshm_rx_t *a = &p->asm_[k];
  int n = 0, budget = AMSHM_POLL_BUDGET, consumed = 0, rc = 0;
  const amshm_rec_t *rec;
  while (budget-- > 0 && (rec = amshm_ring_peek(r)) != NULL) {
    AMSHM_TSAN_ACQUIRE();
    int first = rec->flags & AMSHM_REC_FIRST, last = rec->flags & AMSHM_REC_LAST;
    if (amshm_rec_bad(r, a, rec)) {
      fprintf(stderr, "amshm: rank %u: a malformed record from rank %u (len %u, flags %#x, "
              "hdrlen %u, fraglen %u, total %u)\n", (unsigned)t->cfg.myrank, (unsigned)p->rank,
              (unsigned)rec->len, (unsigned)rec->flags, (unsigned)rec->hdrlen,
              (unsigned)rec->fraglen, (unsigned)rec->total);
      rc = -EPROTO;
      break;
    }
    if (first && last) {
      amshm_rec_whole(t, p, rec);
      n++;
    } else if (first) {
      if ((rc = amshm_rec_first(t, p, a, rec)) < 0) break;
    } else {
      memcpy(a->dst + a->got, (const uint8_t *)(rec + 1), rec->fraglen);
      a->got += rec->fraglen;
      if (last) {
        AMSHM_COUNT(t, frames_received, 1);
        AMSHM_COUNT(t, bytes_received, a->total);
        a->active = 0;
        amshm_ring_consume(r, rec); /* before delivering: the bytes are copied */
        consumed++;
        t->cfg.deliver(t->cfg.ctx, p->rank, a->hdr, a->hdrlen, a->dst, a->total);
        free(a->buf);
        a->buf = NULL;
        n++;
        continue;
      }
    }
    amshm_ring_consume(r, rec);
    consumed++;
  }
  if (rc == 0 && budget < 0) amshm_bell_again(t, p); /* maybe more: look again next poll */
  amshm_rx_release(p, k);
  if (rc < 0) return rc;
  if (consumed) amshm_room_freed(t, p, r);
  return n;
}

/* A peer whose pidfd is readable has ended: after its BYE (a normal
 * close) quietly, else reported once to the core. The pidfd is then
 * unwatched, or it would keep the one wait awake. */
static void amshm_check_exits(gasnetc_transport_t *t) {
  if (!t->pfds || __atomic_exchange_n(&t->checking, 1, __ATOMIC_ACQUIRE)) return;
  if (poll(t->pfds, t->npeers, 0) <= 0) {
    __atomic_store_n(&t->checking, 0, __ATOMIC_RELEASE);
    return;
  }
  for (uint32_t i = 0; i < t->npeers; i++) {
    if (!(t->pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    amshm_peer_t *p = &t->peers[i];
    if (__atomic_exchange_n(&p->dead, 1, __ATOMIC_ACQ_REL)) continue;
    t->cfg.watch(t->cfg.ctx, p->pidfd, 0);
    t->pfds[i].fd = -1; /* poll ignores it from now on */
    /* What it published before it ended comes first: its exit notice (a
     * gasnet_exit after a fatal error) tells the core why, and then the
     * loss is no failure of ours (gasnetc_peer_dead_cb). */
    for (int k = AMSHM_REP; k >= AMSHM_REQ; k--)
      while (amshm_drain(t, p, k) > 0) continue;
    if (!__atomic_load_n(&p->in->bye, __ATOMIC_ACQUIRE) && t->cfg.peer_dead)
      t->cfg.peer_dead(t->cfg.ctx, p->rank, "exited");
  }
  __atomic_store_n(&t->checking, 0, __ATOMIC_RELEASE);
}

/* A neighbour that stopped (SIGSTOP, a debugger) does not end: its pidfd
 * stays quiet. Liveness (docs/transports.md, "Liveness"): a neighbour that
 * published nothing to us for a quarter of the conduit's timeout
 * (cfg.live_timeout_ns) is probed through the core's liveness service, and
 * is dead when its liveness thread, which answers even while it computes,
 * has not answered for the whole timeout (core/transport_live.h). What it
 * published is read from the heads of its rings at each look, so the hot
 * path counts nothing for it. Runs at each wake-up and every
 * AMSHM_EXIT_CHECK_POLLS polls; idle wakes us for it. */
static void amshm_live_due(gasnetc_transport_t *t, uint64_t now) {
  if (now < __atomic_load_n(&t->live_next_ns, __ATOMIC_RELAXED) ||
      __atomic_exchange_n(&t->checking, 1, __ATOMIC_ACQUIRE))
    return;
  uint64_t next = GASNETC_NEVER;
  for (uint32_t i = 0; i < t->npeers && t->cfg.live_timeout_ns; i++) {
    amshm_peer_t *p = &t->peers[i];
    if (__atomic_load_n(&p->dead, __ATOMIC_ACQUIRE) || __atomic_load_n(&p->in->bye, __ATOMIC_ACQUIRE))
      continue;
    uint64_t seen = __atomic_load_n(&p->rx[AMSHM_REQ].ctl->head, __ATOMIC_RELAXED) +
                    __atomic_load_n(&p->rx[AMSHM_REP].ctl->head, __ATOMIC_RELAXED);
    if (seen != p->live_seen) {
      p->live_seen = seen;
      p->live_quiet_ns = now;
    }
    if (!gasnetc_live_watch(&t->cfg, &p->live, p->rank, p->live_quiet_ns, t->cfg.live_timeout_ns,
                            now, &next) ||
        __atomic_exchange_n(&p->dead, 1, __ATOMIC_ACQ_REL))
      continue;
    if (p->pidfd >= 0) { /* its end, if it comes, is no news: out of the wait */
      t->cfg.watch(t->cfg.ctx, p->pidfd, 0);
      t->pfds[i].fd = -1;
    }
    if (t->cfg.peer_dead) t->cfg.peer_dead(t->cfg.ctx, p->rank, t->dead_msg);
  }
  __atomic_store_n(&t->live_next_ns, next, __ATOMIC_RELAXED);
  __atomic_store_n(&t->checking, 0, __ATOMIC_RELEASE);
}

/* A count of polls, not exact under threads (a lost increment delays the
 * next look by a poll): no locked instruction on the hot path. */
static inline unsigned amshm_poll_count(gasnetc_transport_t *t) {
  unsigned c = __atomic_load_n(&t->polls, __ATOMIC_RELAXED) + 1;
  __atomic_store_n(&t->polls, c, __ATOMIC_RELAXED);
  return c;
}

/* Drain both rings of p (replies first) and flush its overflow queues. */
static int amshm_poll_peer(gasnetc_transport_t *t, amshm_peer_t *p, int drain) {
  int n = 0;
  for (int k = AMSHM_REP; k >= AMSHM_REQ; k--) {
    int d = drain ? amshm_drain(t, p, k) : 0;
    if (d < 0) return d;
    n += d;
    amshm_flush(t, p, k);
  }
  return n;
}

/* With the doorbell: the peers whose bits are set, each bit taken before
 * its rings are read (a frame published after that rings again). */
static int amshm_poll_bell(gasnetc_transport_t *t) {
  int n = 0;
  for (uint32_t w = 0; w < t->bell_words; w++) {
    if (!__atomic_load_n(&t->region->bell[w], __ATOMIC_RELAXED)) continue;
    uint64_t bits = __atomic_exchange_n(&t->region->bell[w], 0, __ATOMIC_ACQUIRE);
    for (; bits; bits &= bits - 1) {
      amshm_peer_t *p = t->by_pos[w * 64 + (uint32_t)__builtin_ctzll(bits)];
      int d = p ? amshm_poll_peer(t, p, 1) : 0;
      if (d < 0) return d;
      n += d;
    }
  }
  return n;
}

static int amshm_bell_rung(gasnetc_transport_t *t) {
  for (uint32_t w = 0; w < t->bell_words; w++)
    if (__atomic_load_n(&t->region->bell[w], __ATOMIC_RELAXED)) return 1;
  return 0;
}

static int amshm_poll(gasnetc_transport_t *t) {
  if (!t->npeers) return 0;
  if (amshm_asleep) { /* we may have been woken: empty the pipe, look for exits */
    amshm_asleep = 0;
    __atomic_fetch_sub(&t->region->sleepers, 1, __ATOMIC_SEQ_CST);
    char buf[64];
    ssize_t got = read(t->wake[0], buf, sizeof buf);
    if (got > 0) AMSHM_COUNT(t, wakes_received, 1);
    /* Woken by our pipe, we know why; by anything else (a pidfd, the
     * network, a deadline), look at the pidfds, a poll() of all of them;
     * and at most AMSHM_EXIT_CHECK_NS apart in any case (the pidfds stay
     * readable: a death keeps waking us until seen). */
    uint64_t now = gasneti_now_ns();
    if (got <= 0 || now >= __atomic_load_n(&t->next_check, __ATOMIC_RELAXED)) {
      __atomic_store_n(&t->next_check, now + AMSHM_EXIT_CHECK_NS, __ATOMIC_RELAXED);
      amshm_check_exits(t);
    }
    amshm_live_due(t, now);
  } else if (amshm_poll_count(t) % AMSHM_EXIT_CHECK_POLLS == 0) {
    uint64_t now = gasneti_now_ns();
    amshm_live_due(t, now);
    if (now >= __atomic_load_n(&t->next_check, __ATOMIC_RELAXED)) {
      __atomic_store_n(&t->next_check, now + AMSHM_EXIT_CHECK_NS, __ATOMIC_RELAXED);
      amshm_check_exits(t);
    }
  }
  int n = 0, bell = t->doorbell;
  if (bell && (n = amshm_poll_bell(t)) < 0) return n;
  if (bell && !__atomic_load_n(&t->npend, __ATOMIC_RELAXED)) return n;
  for (uint32_t i = 0; i < t->npeers; i++) { /* all: no doorbell, or overflow to flush */
    int d = amshm_poll_peer(t, &t->peers[i], !bell);
    if (d < 0) return d;
    n += d;
  }
  return n;
}

static uint64_t amshm_idle(gasnetc_transport_t *t) {
  if (!t->npeers) return GASNETC_NEVER;
  for (uint32_t i = 0; i < t->npeers && __atomic_load_n(&t->npend, __ATOMIC_RELAXED); i++) {
    amshm_flush(t, &t->peers[i], AMSHM_REP);
    amshm_flush(t, &t->peers[i], AMSHM_REQ);
  }
  if (!amshm_asleep) {
    amshm_asleep = 1;
    __atomic_fetch_add(&t->region->sleepers, 1, __ATOMIC_SEQ_CST);
  }
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* then the doorbell: amshm_wake_receiver */
  if (t->doorbell)
    return amshm_bell_rung(t) ? 0 : __atomic_load_n(&t->live_next_ns, __ATOMIC_RELAXED);
  for (uint32_t i = 0; i < t->npeers; i++)
    for (int k = 0; k < 2; k++)
      if (!amshm_ring_empty(&t->peers[i].rx[k])) return 0; /* arrived meanwhile */
  return __atomic_load_n(&t->live_next_ns, __ATOMIC_RELAXED); /* amshm_live_due */
}

/* -------------------------------------------------------------- set-up */

static void amshm_close(gasnetc_transport_t *t);

static int amshm_open(gasnetc_transport_t **tp, const gasnetc_transport_config_t *cfg) {
  *tp = NULL;
  gasnetc_transport_t *t = calloc(1, sizeof *t);
  if (!t) return -ENOMEM;
  t->cfg = *cfg;
  t->memfd = t->wake[0] = t->wake[1] = -1;
  double ring = amshm_env_num(t, "GASNET_SHM_RING", AMSHM_RING_DEFAULT, AMSHM_RING_MIN,
                              AMSHM_RING_MAX);
  t->ring = AMSHM_RING_MIN;
  while (t->ring < ring) t->ring *= 2;
  const char *set = cfg->getenv ? cfg->getenv("GASNET_SHM_RING") : NULL;
  t->ring_auto = !set || !*set;
  amshm_tag(cfg->job_key, t->tag);
  int err = 0;
  const char *what = "memfd_create";
  t->memfd = memfd_create("gasnet-shm", MFD_CLOEXEC);
  if (t->memfd < 0) goto fail;
  what = "ftruncate";
  t->region_len = amshm_slot_off(t->ring, cfg->nranks); /* sparse: pages come on first touch */
  if (ftruncate(t->memfd, (off_t)t->region_len) != 0) goto fail;
  what = "mmap";
  t->region = mmap(NULL, AMSHM_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, t->memfd, 0);
  if (t->region == MAP_FAILED) {
    t->region = NULL;
    goto fail;
  }
  t->region->ring = t->ring;
  t->region->nranks = cfg->nranks;
  t->region->owner = cfg->myrank;
  memcpy(t->region->tag, t->tag, 16);
  __atomic_store_n(&t->region->magic, AMSHM_MAGIC, __ATOMIC_RELEASE);
  what = "pipe2";
  if (pipe2(t->wake, O_NONBLOCK | O_CLOEXEC) != 0) goto fail;
  what = "watch";
  if ((err = cfg->watch(cfg->ctx, t->wake[0], EPOLLIN)) != 0) goto fail_err;
  t->watched = 1;
  *tp = t;
  return 0;
fail:
  err = -errno;
fail_err:
  fprintf(stderr, "amshm: rank %u: cannot create the shared-memory queue: %s: %s\n",
          (unsigned)cfg->myrank, what, strerror(-err));
  amshm_close(t);
  return err;
}

static int amshm_address(gasnetc_transport_t *t, void *blob, size_t *len) {
  amshm_blob_t b = {
      .magic = AMSHM_MAGIC,
      .pid = (uint32_t)getpid(),
      .memfd = t->memfd,
      .wakefd = t->wake[0],
      .ring = t->ring,
      .nranks = t->cfg.nranks,
      .ring_auto = (uint32_t)t->ring_auto,
  };
  memcpy(b.tag, t->tag, 16);
  memcpy(blob, &b, sizeof b);
  *len = sizeof b;
  return 0;
}

static void *amshm_map(int fd, uint64_t off, uint64_t len) {
  void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
  return m == MAP_FAILED ? NULL : m;
}

/* Map peer p (its blob b): its region's header and our slot there, its
 * wake-up pipe, a pidfd; and its slot in our region. 0 or -errno, *what
 * naming the step (perhaps path, 64 bytes of the caller's). */
static int amshm_attach_peer(gasnetc_transport_t *t, amshm_peer_t *p, const amshm_blob_t *b,
                             uint32_t npeers, char path[64], const char **what) {
  int fd = -1, err = 0;
  *what = "a foreign or malformed address";
  if (b->magic != AMSHM_MAGIC || memcmp(b->tag, t->tag, 16) || b->nranks != t->cfg.nranks ||
      b->ring < AMSHM_RING_MIN || b->ring > AMSHM_RING_MAX || (b->ring & (b->ring - 1)))
    return -EPROTO;
  uint32_t ring = amshm_ring_fit(b->ring, b->ring_auto != 0, npeers); /* its rings */
  snprintf(path, 64, "/proc/%u/fd/%d", (unsigned)b->pid, (int)b->memfd);
  *what = path;
  if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0) return -errno;
  *what = "mmap of its region";
  p->out_len = amshm_slot_size(ring);
  p->rhdr = amshm_map(fd, 0, AMSHM_PAGE);
  p->out = amshm_map(fd, amshm_slot_off(ring, t->cfg.myrank), p->out_len);
  if (!p->rhdr || !p->out) err = -errno;
  close(fd);
  if (err) return err;
  *what = "its region (foreign, or not yet set up)";
  if (__atomic_load_n(&p->rhdr->magic, __ATOMIC_ACQUIRE) != AMSHM_MAGIC ||
      memcmp(p->rhdr->tag, t->tag, 16) || p->rhdr->owner != p->rank)
    return -EPROTO;
  snprintf(path, 64, "/proc/%u/fd/%d", (unsigned)b->pid, (int)b->wakefd);
  *what = path;
  /* Read-write: while we hold a reader too, a write after the peer has
   * ended cannot raise SIGPIPE (a full pipe just says EAGAIN). */
  if ((p->wakefd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) return -errno;
  *what = "mmap of our region";
  p->in_len = amshm_slot_size(t->ring);
  p->in = amshm_map(t->memfd, amshm_slot_off(t->ring, p->rank), p->in_len);
  if (!p->in) return -errno;
  for (int k = 0; k < 2; k++) {
    p->tx[k] = (amshm_ring_t){&p->out->ring[k],
                              (uint8_t *)p->out + AMSHM_PAGE + (size_t)k * ring, ring};
    p->rx[k] = (amshm_ring_t){&p->in->ring[k],
                              (uint8_t *)p->in + AMSHM_PAGE + (size_t)k * t->ring, t->ring};
  }
#ifdef SYS_pidfd_open
  p->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)b->pid, 0);
#endif
  /* Without pidfds (Linux < 5.3) the launcher still ends the job when a
   * process dies; only our own message naming it is lost. */
  if (p->pidfd >= 0) {
    *what = "watching its pidfd";
    if ((err = t->cfg.watch(t->cfg.ctx, p->pidfd, EPOLLIN)) != 0) return err;
  }
  return 0;
}

static int amshm_connect(gasnetc_transport_t *t, const void *blobs, size_t stride,
                         const uint8_t *serves) {
  uint32_t n = t->cfg.nranks, np = 0;
  for (uint32_t r = 0; r < n; r++) np += serves[r] && r != t->cfg.myrank;
  t->ring = amshm_ring_fit(t->ring, t->ring_auto, np); /* before any slot is mapped */
  /* Positions in the neighbourhood, the same on every rank of it. */
  t->doorbell = np >= AMSHM_DOORBELL_PEERS && np < AMSHM_BELL_BITS; /* all of it agrees */
  t->bell_words = (np + 1 + 63) / 64;
  t->by_pos = calloc(np + 1, sizeof *t->by_pos);
  if (!t->by_pos) return -ENOMEM;
  uint32_t pos = 0;
  t->region->ring = t->ring;
  t->by_rank = calloc(n, sizeof *t->by_rank);
  t->peers = calloc(np ? np : 1, sizeof *t->peers);
  t->pfds = calloc(np ? np : 1, sizeof *t->pfds);
  if (!t->by_rank || !t->peers || !t->pfds) return -ENOMEM;
  for (uint32_t r = 0; r < n; r++) {
    if (r == t->cfg.myrank) t->my_pos = pos++;
    if (!serves[r] || r == t->cfg.myrank) continue;
    amshm_peer_t *p = &t->peers[t->npeers];
    p->rank = r;
    p->pos = pos;
    t->by_pos[pos++] = p;
    p->wakefd = p->pidfd = -1;
    amshm_rx_lockinit(p);
    t->npeers++; /* from here on close() undoes what attach did */
    amshm_blob_t b;
    memcpy(&b, (const char *)blobs + (size_t)r * stride, sizeof b);
    const char *what = "";
    char path[64];
    int err = amshm_attach_peer(t, p, &b, np, path, &what);
    if (err) {
      fprintf(stderr, "amshm: rank %u: cannot share memory with rank %u (pid %u): %s: %s; "
              "GASNET_SUPERNODE_MAXSIZE=1 turns the shared-memory bypass off\n",
              (unsigned)t->cfg.myrank, (unsigned)r, (unsigned)b.pid, what, strerror(-err));
      return err;
    }
    t->pfds[t->npeers - 1] = (struct pollfd){.fd = p->pidfd, .events = POLLIN};
    t->by_rank[r] = p;
  }
  uint64_t now = gasneti_now_ns(), tmo = t->cfg.live_timeout_ns;
  for (uint32_t i = 0; i < t->npeers; i++) t->peers[i].live_quiet_ns = now;
  t->live_next_ns = tmo && t->npeers ? now + tmo / GASNETC_LIVE_PROBES : GASNETC_NEVER;
  snprintf(t->dead_msg, sizeof t->dead_msg, "no answer for %g s: dead or stopped", tmo / 1e9);
  return 0;
}

static size_t amshm_max_payload(gasnetc_transport_t *t) {
  (void)t;
  return AMSHM_MAX_PAYLOAD;
}

/* ------------------------------------------------------------ stats, close */

static void amshm_stats(gasnetc_transport_t *t, FILE *out) {
  static const char *const names[] = {
#define AMSHM_X_NAME(name) #name,
      AMSHM_COUNTERS(AMSHM_X_NAME)
#undef AMSHM_X_NAME
  };
  for (int i = 0; i < AMSHM_NCOUNTERS; i++)
    fprintf(out, "shm_%s %llu\n", names[i],
            (unsigned long long)__atomic_load_n(&t->ctr[i], __ATOMIC_RELAXED));
  fprintf(out, "shm_peers %u\nshm_ring_bytes %u\n", (unsigned)t->npeers, (unsigned)t->ring);
}

/* Flush the overflow queues for a bounded time (the peers drain until they
 * close too), tell every peer our exit is a normal one (BYE), then undo
 * everything. Nothing has a name, so nothing is left behind. */
static void amshm_close(gasnetc_transport_t *t) {
  if (!t) return;
  uint64_t end = gasneti_now_ns() + AMSHM_CLOSE_FLUSH_NS;
  for (;;) {
    int left = 0;
    for (uint32_t i = 0; i < t->npeers; i++) {
      amshm_peer_t *p = &t->peers[i];
      if (!p->out || __atomic_load_n(&p->dead, __ATOMIC_RELAXED)) continue;
      for (int k = 0; k < 2; k++) {
        amshm_flush(t, p, k);
        left |= __atomic_load_n(&p->pend[k], __ATOMIC_RELAXED) != NULL;
      }
    }
    if (!left || gasneti_now_ns() > end) break;
    usleep(100);
  }
  for (uint32_t i = 0; i < t->npeers; i++) {
    amshm_peer_t *p = &t->peers[i];
    if (p->out) __atomic_store_n(&p->out->bye, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < 2; k++) {
      for (amshm_pend_t *q = p->pend[k], *nx; q; q = nx) {
        nx = q->next;
        q->next = NULL;
        if (q->cookie) amshm_lent_done(t, q, -EPIPE); /* never written: lost with the peer */
        else free(q);
      }
      free(p->asm_[k].buf);
#if GASNETC_THREADS
      pthread_mutex_destroy(&p->txlock[k]);
      pthread_mutex_destroy(&p->rxlock[k]);
#endif
    }
    if (p->pidfd >= 0) {
      if (!p->dead) t->cfg.watch(t->cfg.ctx, p->pidfd, 0);
      close(p->pidfd);
    }
    if (p->wakefd >= 0) close(p->wakefd);
    if (p->rhdr) munmap(p->rhdr, AMSHM_PAGE);
    if (p->out) munmap(p->out, p->out_len);
    if (p->in) munmap(p->in, p->in_len);
  }
  if (t->watched) t->cfg.watch(t->cfg.ctx, t->wake[0], 0);
  for (int i = 0; i < 2; i++)
    if (t->wake[i] >= 0) close(t->wake[i]);
  if (t->region) munmap(t->region, AMSHM_PAGE);
  if (t->memfd >= 0) close(t->memfd);
  free(t->peers);
  free(t->by_rank);
  free(t->by_pos);
  free(t->pfds);
  free(t);
}

const gasnetc_transport_ops_t amshm_ops = {
    .name = "shm",
    .poll_in_memory = 1,
    .open = amshm_open,
    .address = amshm_address,
    .connect = amshm_connect,
    .max_payload = amshm_max_payload,
    .send = amshm_send,
    .poll = amshm_poll,
    .idle = amshm_idle,
    .stats = amshm_stats,
    .close = amshm_close,
};
