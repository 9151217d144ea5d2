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
 * Direct reads (CMA): a request the caller lends (GASNETC_SEND_BORROW) of
 * at least GASNET_SHM_CMA bytes (default 64 KiB) does not cross the ring:
 * one record carries its header and the payload's address, the receiver
 * copies the payload straight from our memory to its destination with
 * process_vm_readv (one copy, the kernel's, where the ring costs two: ours
 * in and the receiver's out) and then consumes the record; the record's
 * end passing the ring's tail is our send_done. A receiver welcomes them
 * (its slot's `cma` flag) only after reading a known word of ours at
 * connect: where ptrace rights are denied between siblings (Yama's
 * ptrace_scope 1, a seccomp filter, a non-dumpable process) the frames go
 * through the ring as before.
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
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h> /* process_vm_readv */

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
#define AMSHM_CMA_DEFAULT (64u << 10)       /* GASNET_SHM_CMA */
/* A direct read is copied in chunks of this size, shared between the
 * receiver and its sender; the receiver waits at most AMSHM_CMA_WAIT_NS at
 * a time for the sender's, then comes back at its next poll. */
#define AMSHM_CMA_CHUNK ((size_t)128 << 10)
#define AMSHM_CMA_WAIT_NS 20000u
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
  uint64_t tag_addr; /* the owner's copy of tag: a direct read's probe */
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

/* A direct-read frame waiting for its receiver (FIFO per peer): done
 * when the ring's tail passes `end`. */
typedef struct amshm_cmaw {
  struct amshm_cmaw *next;
  uint64_t end;
  void *cookie;
} amshm_cmaw_t;

/* The direct-read frame from a peer whose copy is open (amshm_rec_cma). */
typedef struct amshm_cma_rx {
  int open;
  uint32_t gen;  /* of the job's ticket */
  uint8_t *dst;  /* place()'s, or buf + (hdrlen & 15) */
  uint8_t *buf;  /* ours, or NULL */
} amshm_cma_rx_t;

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
  uint32_t pid;
  int cma_in;             /* we read its memory: AMSHM_REC_CMA from it welcome */
  amshm_cma_rx_t cmarx;   /* its direct-read frame we copy */
  amshm_cmaw_t *cma_first, *cma_last; /* our direct reads it has not done */
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
  X(placed) X(cma_sent) X(cma_read) X(cma_chunks_helped)
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
  uint32_t cma_min;       /* GASNET_SHM_CMA: direct reads from this size on; 0: none */
  uint32_t ncma;          /* direct reads in flight, all peers */
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

/* A lent request for a direct read (top of the file): one record with
 * the payload's address, the frame in flight until the receiver consumes
 * it. GASNETC_SEND_INFLIGHT, -EAGAIN (no room for the record) or -ENOMEM.
 * Producer lock held; *wrote set when the record is published. */
static int amshm_send_cma(gasnetc_transport_t *t, amshm_peer_t *p, const void *hdr, size_t hdrlen,
                          const void *pay, size_t paylen, void *cookie, int *wrote) {
  amshm_ring_t *r = &p->tx[AMSHM_REQ];
  size_t need = amshm_align16(sizeof(amshm_rec_t) + hdrlen + sizeof(amshm_cma_t));
  uint64_t head;
  uint8_t *at = amshm_ring_reserve(r, need, &head);
  if (!at) {
    amshm_want_space(r); /* then one more look */
    if (!(at = amshm_ring_reserve(r, need, &head))) return -EAGAIN;
  }
  amshm_cmaw_t *w = malloc(sizeof *w);
  if (!w) return -ENOMEM;
  *w = (amshm_cmaw_t){NULL, head + need, cookie};
  amshm_rec_t rec = {
      .len = (uint32_t)need,
      .flags = AMSHM_REC_FIRST | AMSHM_REC_LAST | AMSHM_REC_CMA,
      .hdrlen = (uint16_t)hdrlen,
      .fraglen = sizeof(amshm_cma_t),
      .total = (uint32_t)paylen,
  };
  amshm_cma_t d = {(uint64_t)(uintptr_t)pay, 0};
  memcpy(at, &rec, sizeof rec);
  memcpy(at + sizeof rec, hdr, hdrlen);
  memcpy(at + sizeof rec + hdrlen, &d, sizeof d);
  if (p->cma_last) p->cma_last->next = w;
  else __atomic_store_n(&p->cma_first, w, __ATOMIC_RELAXED);
  p->cma_last = w;
  __atomic_fetch_add(&t->ncma, 1, __ATOMIC_RELAXED);
  AMSHM_TSAN_RELEASE();
  amshm_ring_publish(r, head, need);
  AMSHM_COUNT(t, cma_sent, 1);
  AMSHM_COUNT(t, frames_sent, 1);
  AMSHM_COUNT(t, bytes_sent, paylen);
  *wrote = 1;
  return GASNETC_SEND_INFLIGHT;
}

/* The direct reads of ours that p has done (the tail passed their
 * records): their send_done, with no lock held. Returns how many. */
static int amshm_cma_reap(gasnetc_transport_t *t, amshm_peer_t *p) {
  if (!__atomic_load_n(&p->cma_first, __ATOMIC_RELAXED)) return 0;
  amshm_cmaw_t *done = NULL, **last = &done, *w;
  amshm_tx_lock(p, AMSHM_REQ);
  uint64_t tail = __atomic_load_n(&p->tx[AMSHM_REQ].ctl->tail, __ATOMIC_ACQUIRE);
  AMSHM_TSAN_ACQUIRE(); /* the copies of a helping thread of ours came before */
  while ((w = p->cma_first) && (int64_t)(tail - w->end) >= 0) {
    __atomic_store_n(&p->cma_first, w->next, __ATOMIC_RELAXED);
    if (!w->next) p->cma_last = NULL;
    *last = w;
    last = &w->next;
  }
  *last = NULL;
  amshm_tx_unlock(p, AMSHM_REQ);
  int n = 0;
  for (; (w = done) != NULL; free(w), n++) {
    done = w->next;
    __atomic_fetch_sub(&t->ncma, 1, __ATOMIC_RELAXED);
    t->cfg.send_done(t->cfg.ctx, w->cookie, 0);
  }
  return n;
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
  if (lend && t->cma_min && paylen >= t->cma_min &&
      __atomic_load_n(&p->out->cma, __ATOMIC_ACQUIRE)) {
    rc = amshm_send_cma(t, p, hdr, hdrlen, pay, paylen, lend, &wrote);
    goto out;
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

/* Is rec malformed, given reassembly state a (and whether direct reads
 * from its sender are welcome)? The records come from a rank of this job:
 * a bad one is a bug (ours or memory corruption), never trusted to size a
 * copy. */
static int amshm_rec_bad(const amshm_ring_t *r, const amshm_rx_t *a, const amshm_rec_t *rec,
                         int cma_in) {
  int first = rec->flags & AMSHM_REC_FIRST, last = rec->flags & AMSHM_REC_LAST;
  /* Records never wrap (a PAD fills the ring's end first), so one must end
   * inside the ring; a PAD reaches here only when it does not fill the
   * ring to its end (amshm_ring_peek). */
  size_t room = r->size - (size_t)((const uint8_t *)rec - r->data);
  if ((rec->flags & AMSHM_REC_PAD) ||
      rec->len < amshm_align16(sizeof *rec + rec->hdrlen + rec->fraglen) || rec->len > room ||
      rec->hdrlen > GASNETC_HDR_MAX || rec->total > AMSHM_MAX_PAYLOAD || (first && a->active))
    return 1;
  if (rec->flags & AMSHM_REC_CMA) /* a whole frame, its payload an address */
    return !cma_in || !first || !last || rec->fraglen != sizeof(amshm_cma_t);
  return (first && last && rec->fraglen != rec->total) || (first && rec->fraglen > rec->total) ||
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

/* Read len bytes at `from` in process pid to dst: 0 or -errno
 * (process_vm_readv stops short only at a fault: -EFAULT). */
static int amshm_cma_read(uint32_t pid, void *dst, uint64_t from, size_t len) {
  struct iovec mine = {dst, len}, theirs = {(void *)(uintptr_t)from, len};
  ssize_t got = process_vm_readv((pid_t)pid, &mine, 1, &theirs, 1, 0);
  return got == (ssize_t)len ? 0 : got < 0 ? -errno : -EFAULT;
}

/* Claim a chunk of job j (amshm_ring.h) and copy it: the receiver reads
 * it from its sender `pid`, the sender (helper) writes it to its receiver
 * `pid`. 1 (copied, or failed and marked bad), 0 (none left), -ESRCH
 * (the other process has ended). */
static int amshm_cma_chunk(amshm_cma_job_t *j, uint32_t pid, int helper) {
  uint64_t tk = __atomic_load_n(&j->ticket, __ATOMIC_ACQUIRE);
  for (;;) {
    uint32_t i = (uint32_t)tk, n = __atomic_load_n(&j->chunks, __ATOMIC_RELAXED);
    if (i >= n) return 0;
    uint64_t src = __atomic_load_n(&j->src, __ATOMIC_RELAXED);
    uint64_t dst = __atomic_load_n(&j->dst, __ATOMIC_RELAXED);
    size_t total = __atomic_load_n(&j->total, __ATOMIC_RELAXED);
    if (!__atomic_compare_exchange_n(&j->ticket, &tk, tk + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
      continue; /* tk reloaded: another copier, or another job */
    AMSHM_TSAN_ACQUIRE(); /* the sender's thread filled src before it published */
    size_t off = (size_t)i * AMSHM_CMA_CHUNK, len = total - off;
    if (len > AMSHM_CMA_CHUNK) len = AMSHM_CMA_CHUNK;
    struct iovec here = {(void *)(uintptr_t)((helper ? src : dst) + off), len};
    struct iovec there = {(void *)(uintptr_t)((helper ? dst : src) + off), len};
    ssize_t got = off >= total ? -1
                  : helper ? process_vm_writev((pid_t)pid, &here, 1, &there, 1, 0)
                           : process_vm_readv((pid_t)pid, &here, 1, &there, 1, 0);
    int err = got == (ssize_t)len ? 0 : got < 0 && off < total ? errno : EFAULT;
    if (err) __atomic_store_n(&j->bad, err, __ATOMIC_RELAXED); /* the receiver copies again */
    AMSHM_TSAN_RELEASE(); /* before the sender's reap lets src be reused */
    __atomic_fetch_add(&j->done, 1, __ATOMIC_RELEASE);
    return err == ESRCH ? -ESRCH : 1;
  }
}

/* Open the copy of direct-read frame rec from p: the payload goes to
 * place()'s destination or a buffer of ours. 0 or -ENOMEM. */
static int amshm_cma_open(gasnetc_transport_t *t, amshm_peer_t *p, const amshm_rec_t *rec) {
  const gasnetc_transport_config_t *c = &t->cfg;
  const uint8_t *hdr = (const uint8_t *)(rec + 1);
  amshm_cma_rx_t *x = &p->cmarx;
  amshm_cma_t d;
  memcpy(&d, hdr + rec->hdrlen, sizeof d);
  x->buf = NULL;
  x->dst = c->place ? c->place(c->ctx, p->rank, hdr, rec->hdrlen, rec->total) : NULL;
  if (x->dst) AMSHM_COUNT(t, placed, 1);
  else { /* the payload at an address congruent to hdrlen mod 16 */
    if (!(x->buf = aligned_alloc(16, amshm_align16(rec->total + 16)))) return -ENOMEM;
    x->dst = x->buf + (rec->hdrlen & 15);
  }
  amshm_cma_job_t *j = &p->in->job;
  __atomic_store_n(&j->src, d.addr, __ATOMIC_RELAXED);
  __atomic_store_n(&j->dst, (uint64_t)(uintptr_t)x->dst, __ATOMIC_RELAXED);
  __atomic_store_n(&j->total, rec->total, __ATOMIC_RELAXED);
  __atomic_store_n(&j->chunks, (rec->total + AMSHM_CMA_CHUNK - 1) / AMSHM_CMA_CHUNK, __ATOMIC_RELAXED);
  __atomic_store_n(&j->done, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&j->bad, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&j->ticket, (uint64_t)++x->gen << 32, __ATOMIC_RELEASE);
  x->open = 1;
  return 0;
}

/* Wait a little for the chunks other copiers claimed: 1 when all are
 * done, 0 if not yet (the caller comes back at its next poll). */
static int amshm_cma_settled(amshm_cma_job_t *j) {
  uint64_t until = 0;
  for (unsigned spins = 0;; spins++) {
    if (__atomic_load_n(&j->done, __ATOMIC_ACQUIRE) == __atomic_load_n(&j->chunks, __ATOMIC_RELAXED))
      return 1;
    if (spins < 64) continue;
    uint64_t now = gasneti_now_ns();
    if (!until) until = now + AMSHM_CMA_WAIT_NS;
    else if (now > until) return 0;
    sched_yield(); /* a copier sharing our CPU finishes */
  }
}

/* A direct-read frame (top of the file) in ring r: its copy opened (or
 * resumed), chunks copied until none is left, then, once its sender's
 * chunks are done too, the record consumed and the frame delivered (in
 * that order: the sender's send_done comes before anything the frame's
 * delivery sends back, such as a Portals ack). 0 (delivered, or dropped
 * with a sender that has ended: its pidfd reports it), 1 (not yet: the
 * record stays), -errno. */
static int amshm_rec_cma(gasnetc_transport_t *t, amshm_peer_t *p, amshm_ring_t *r,
                         const amshm_rec_t *rec) {
  amshm_cma_rx_t *x = &p->cmarx;
  amshm_cma_job_t *j = &p->in->job;
  int rc = x->open ? 0 : amshm_cma_open(t, p, rec);
  while (rc == 0 && (rc = amshm_cma_chunk(j, p->pid, 0)) > 0) rc = 0;
  if (rc == 0 && !amshm_cma_settled(j)) return 1;
  int bad = __atomic_load_n(&j->bad, __ATOMIC_RELAXED);
  if (rc == 0 && bad && bad != ESRCH) { /* a failed chunk: the whole again, alone */
    rc = amshm_cma_read(p->pid, x->dst, __atomic_load_n(&j->src, __ATOMIC_RELAXED), rec->total);
    if (rc && rc != -ESRCH)
      fprintf(stderr, "amshm: rank %u: cannot read a frame of %u bytes from the memory of rank "
              "%u (pid %u): process_vm_readv: %s\n", (unsigned)t->cfg.myrank,
              (unsigned)rec->total, (unsigned)p->rank, (unsigned)p->pid, strerror(-rc));
  } else if (rc == 0 && bad == ESRCH) {
    rc = -ESRCH;
  }
  if (rc == 0) {
    _Alignas(16) uint8_t hdr[GASNETC_HDR_MAX];
    size_t hdrlen = rec->hdrlen, total = rec->total;
    memcpy(hdr, rec + 1, hdrlen);
    amshm_ring_consume(r, rec);
    AMSHM_COUNT(t, cma_read, 1);
    AMSHM_COUNT(t, frames_received, 1);
    AMSHM_COUNT(t, bytes_received, total);
    t->cfg.deliver(t->cfg.ctx, p->rank, hdr, hdrlen, x->dst, total);
  } else if (rc == -ESRCH) {
    amshm_ring_consume(r, rec);
  }
  if (rc == 0 || rc == -ESRCH) { /* no copier writes to it any more */
    free(x->buf);
    x->buf = NULL;
    x->open = 0;
  }
  return rc == -ESRCH ? 0 : rc;
}

/* The sender's part (top of the file): copy chunks of p's open job for a
 * frame of ours while some are unclaimed. */
static void amshm_cma_help(gasnetc_transport_t *t, amshm_peer_t *p) {
  if (!p->cma_in) return;
  while (amshm_cma_chunk(&p->out->job, p->pid, 1) > 0) AMSHM_COUNT(t, cma_chunks_helped, 1);
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
    if (amshm_rec_bad(r, a, rec, p->cma_in)) {
      fprintf(stderr, "amshm: rank %u: a malformed record from rank %u (len %u, flags %#x, "
              "hdrlen %u, fraglen %u, total %u)\n", (unsigned)t->cfg.myrank, (unsigned)p->rank,
              (unsigned)rec->len, (unsigned)rec->flags, (unsigned)rec->hdrlen,
              (unsigned)rec->fraglen, (unsigned)rec->total);
      rc = -EPROTO;
      break;
    }
    if (__atomic_load_n(&p->cma_first, __ATOMIC_RELAXED))
      amshm_cma_reap(t, p); /* a frame that p sent after consuming our direct read comes after its send_done */
    if (rec->flags & AMSHM_REC_CMA) { /* consumed after the copy: the sender's send_done */
      if ((rc = amshm_rec_cma(t, p, r, rec)) < 0) break;
      if (rc > 0) { /* its sender's chunks not done yet: this record again next poll */
        rc = 0;
        budget = -1;
        break;
      }
      consumed++;
      n++;
      continue;
    } else if (first && last) {
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

/* Drain both rings of p (replies first), flush its overflow queues and
 * complete the direct reads it has done. */
static int amshm_poll_peer(gasnetc_transport_t *t, amshm_peer_t *p, int drain) {
  int n = 0;
  if (__atomic_load_n(&p->cma_first, __ATOMIC_RELAXED)) {
    amshm_cma_help(t, p);
    amshm_cma_reap(t, p);
  }
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
  if (bell && !__atomic_load_n(&t->npend, __ATOMIC_RELAXED) && !__atomic_load_n(&t->ncma, __ATOMIC_RELAXED))
    return n;
  for (uint32_t i = 0; i < t->npeers; i++) { /* all: no doorbell, or overflow to flush, or reads to reap */
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
  /* Direct reads in flight: the receiver wakes us when it consumes their
   * records (want_space), and one done meanwhile is reaped at once. */
  for (uint32_t i = 0; i < t->npeers && __atomic_load_n(&t->ncma, __ATOMIC_RELAXED); i++) {
    amshm_peer_t *p = &t->peers[i];
    if (!__atomic_load_n(&p->cma_first, __ATOMIC_RELAXED)) continue;
    amshm_want_space(&p->tx[AMSHM_REQ]);
    if (amshm_cma_reap(t, p) > 0) return 0; /* news for the core: do not sleep */
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
  t->cma_min = (uint32_t)amshm_env_num(t, "GASNET_SHM_CMA", AMSHM_CMA_DEFAULT, 0, AMSHM_MAX_PAYLOAD);
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
      .tag_addr = (uint64_t)(uintptr_t)t->tag,
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

/* Direct reads from peer p (top of the file): welcome when we can read
 * its copy of the job's tag, i.e. have the ptrace rights they need. */
static void amshm_cma_probe(gasnetc_transport_t *t, amshm_peer_t *p, const amshm_blob_t *b) {
  uint8_t tag[16];
  if (!t->cma_min || amshm_cma_read(p->pid, tag, b->tag_addr, sizeof tag) != 0 ||
      memcmp(tag, t->tag, sizeof tag))
    return;
  p->cma_in = 1;
  __atomic_store_n(&p->in->cma, 1, __ATOMIC_RELEASE); /* its sender looks at it */
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
  p->pid = b->pid;
  amshm_cma_probe(t, p, b);
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
      amshm_cma_reap(t, p);
      left |= __atomic_load_n(&p->cma_first, __ATOMIC_RELAXED) != NULL;
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
      for (amshm_cmaw_t *w = k ? NULL : p->cma_first, *nx; w; w = nx) { /* never read */
        nx = w->next;
        t->cfg.send_done(t->cfg.ctx, w->cookie, -EPIPE);
        free(w);
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
