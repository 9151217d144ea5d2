/*
 * ptli_net.c - the interface's transports, its identity, and its progress.
 *
 * Open (PtlNIInit, collective over the job): open the network transport
 * (amudp or amtcp, ptli_net_ops) and the shared-memory one (amshm); one
 * bootstrap exchange gives every rank every other's record (host, uid,
 * the pid it asks for, both transports' addresses); from it every rank
 * computes the same table of ids and routes:
 *   nid  the host's number: hosts (one kernel boot id and network
 *        namespace) numbered 0.. in order of their lowest rank;
 *   pid  the pid asked for (PtlNIInit's pid), else the lowest pid of the
 *        host not asked for, in rank order;
 *   route  shared memory for the ranks of this rank's neighbourhood (the
 *        host's ranks in chunks of GASNET_SUPERNODE_MAXSIZE, 0 = all,
 *        1 = none, as the GASNet conduits), the network for the others.
 * then connects both transports and starts the progress thread.
 *
 * Progress ("application bypass"): a thread of the interface sleeps in one
 * epoll set holding every descriptor the transports watch, until a
 * descriptor is ready or the earliest transport deadline, then polls them.
 * Incoming operations thus complete while the application computes.
 * Senders poll too while a transport refuses them ("not now").
 *
 * Order: the transports do not keep frames in order, the spec does (two
 * operations from one initiator start at the target in the order they
 * were initiated). Each request carries a sequence number per (initiator,
 * target); a request that comes early is held (copied) until those before
 * it have been processed. Acks and replies need no order.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "gasneti_host.h"
#include "gasneti_time.h"
#include "ptli.h"

extern const gasnetc_transport_ops_t amshm_ops;

/* What each rank publishes at PtlNIInit (host byte order: one job, one
 * architecture): where it runs (kernel, network namespace, CPUs: the
 * record the GASNet core exchanges too, common/gasneti_host.h). */
typedef struct {
  gasneti_host_rec_t host;
  uint32_t uid, want_pid;
  uint8_t addr[PTLI_NTP][GASNETC_ADDR_MAX];
} ptli_rec_t;

/* ---- callbacks from the transports ---------------------------------------- */

static void ptli_process(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, const void *data,
                         size_t len);
static int ptli_poll_tps(ptli_ni_t *ni, int every);
static inline int ptli_poll_all(ptli_ni_t *ni) { return ptli_poll_tps(ni, 0); }
static __thread int ptli_tls_progress;  /* this is the progress thread */
static void ptli_kick(ptli_ni_t *ni);
static void ptli_yield(ptli_ni_t *ni, uint64_t *yield_at, uint64_t now);

static int ptli_seq_ahead(uint32_t seq, uint32_t expected) {
  int32_t d = (int32_t)(seq - expected);
  return d > 0 && d < (1 << 24);
}

/* Keep an early request until its turn (lock held). 0, or -1 when it is
 * no request we can await (a duplicate, or too far ahead). */
static int ptli_hold(ptli_peer_t *p, const ptli_msg_t *m, const void *data, size_t len) {
  if (!ptli_seq_ahead(m->seq, p->recv_seq)) return -1;
  ptli_held_t *h = malloc(sizeof *h + len), **at = &p->held;
  if (!h) return -1;
  h->seq = m->seq;
  h->m = *m;
  h->len = len;
  if (len) memcpy(h->data, data, len);
  while (*at && ptli_seq_ahead(h->seq, (*at)->seq)) at = &(*at)->next;
  if (*at && (*at)->seq == h->seq) {
    free(h);
    return -1;
  }
  h->next = *at;
  *at = h;
  return 0;
}

static void ptli_deliver_cb(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                            void *payload, size_t paylen) {
  ptli_ni_t *ni = ctx;
  ptli_msg_t m;
  const char *why;
  if (src >= ni->size || ptli_wire_decode(hdr, hdrlen, paylen, &m, &why) != 0) {
    pthread_mutex_lock(&ni->lock);
    ni->malformed++;
    pthread_mutex_unlock(&ni->lock);
    return;
  }
  if (m.op == PTLI_OP_ACK) ptli_on_ack(ni, src, &m);
  else if (m.op == PTLI_OP_REPLY) ptli_on_reply(ni, src, &m, payload, paylen);
  else ptli_process(ni, src, &m, payload, paylen);
}

/* Where a frame's payload may land (cfg.place): a put that is the next
 * request of its initiator, in the memory its match gives (the match is
 * made now); a reply's part, in its MD. NULL for anything else (an early
 * request, a truncated part, an MD that may be unlinked on its own): the
 * transport buffers it and it is copied at delivery, as before. Frames
 * under PTLI_PLACE_MIN are not worth the lock: a transport delivers those
 * from its own buffer, and one copy is all they cost either way. */
#define PTLI_PLACE_MIN ((size_t)64 << 10)

static void *ptli_place_cb(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, size_t paylen) {
  ptli_ni_t *ni = ctx;
  ptli_msg_t m;
  const char *why;
  if (paylen < PTLI_PLACE_MIN || src >= ni->size || ptli_wire_decode(hdr, hdrlen, paylen, &m, &why) != 0)
    return NULL; /* a malformed one is counted at delivery */
  pthread_mutex_lock(&ni->lock);
  void *dst = m.op == PTLI_OP_REPLY ? ptli_reply_place(ni, src, &m, paylen)
              : m.op == PTLI_OP_PUT ? ptli_put_place(ni, src, &m, paylen)
                                    : NULL;
  pthread_mutex_unlock(&ni->lock);
  __atomic_store_n(&ni->arriving_ns, gasneti_now_ns(), __ATOMIC_RELAXED); /* ptli_busy */
  return dst;
}

/* A request (or a put's continuation frame), in order: process it and
 * every held one that follows. */
static void ptli_process(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, const void *data,
                         size_t len) {
  ptli_peer_t *p = &ni->peers[src];
  ptli_out_t out;
  pthread_mutex_lock(&ni->lock);
  if (m->seq != p->recv_seq) {
    if (ptli_hold(p, m, data, len) != 0) ni->malformed++;
    pthread_mutex_unlock(&ni->lock);
    return;
  }
  ptli_held_t *done = NULL;
  for (;;) {
    p->recv_seq++;
    if (p->placed.active) ptli_placed_frame(ni, src, m, data, len, &out); /* matched in place() */
    else ptli_request(ni, src, m, data, len, &out);
    pthread_mutex_unlock(&ni->lock);
    free(done);
    if (out.send)
      ptli_send(ni, src, &out.m, out.data, out.m.op == PTLI_OP_REPLY ? (size_t)out.m.mlength : 0, 1, out.op);
    pthread_mutex_lock(&ni->lock);
    done = p->held;
    if (!done || done->seq != p->recv_seq) break;
    p->held = done->next;
    m = &done->m;
    data = done->data;
    len = done->len;
  }
  pthread_mutex_unlock(&ni->lock);
}

/* The job cannot go on: one line for the user, and the launcher ends
 * every rank (as the GASNet core's fatal errors do). */
static void ptli_die(const char *line) __attribute__((noreturn));
static void ptli_die(const char *line) {
  fprintf(stderr, "%s\n", line);
  boot_abort(1, line);
}

static void ptli_peer_dead_cb(void *ctx, uint32_t rank, const char *why) {
  ptli_ni_t *ni = ctx;
  char line[256];
  snprintf(line, sizeof line, "Portals: rank %u lost rank %u (nid %u pid %u): %s", ni->rank, rank,
           ni->peers[rank].id.nid, ni->peers[rank].id.pid, why);
  ptli_die(line);
}

/* A send's completion record: the common case allocates nothing (one
 * spare per interface, taken and given back with one atomic exchange). */
static ptli_op_t *ptli_op_alloc(ptli_ni_t *ni) {
  ptli_op_t *op = __atomic_exchange_n(&ni->spare_op, NULL, __ATOMIC_ACQUIRE);
  return op ? op : malloc(sizeof *op);
}

static void ptli_op_free(ptli_ni_t *ni, ptli_op_t *op) {
  ptli_op_t *none = NULL;
  if (!__atomic_compare_exchange_n(&ni->spare_op, &none, op, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
    free(op);
}

/* One frame of op went (or failed); op completes with the last of its
 * frames, with the first error of any. */
static void ptli_part_done(ptli_ni_t *ni, ptli_op_t *op, int rc) {
  if (rc < 0) {
    int zero = 0;
    __atomic_compare_exchange_n(&op->rc, &zero, rc, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  if (__atomic_sub_fetch(&op->parts, 1, __ATOMIC_ACQ_REL) != 0) return;
  ptli_op_done(ni, op, __atomic_load_n(&op->rc, __ATOMIC_RELAXED));
  ptli_op_free(ni, op);
  __atomic_sub_fetch(&ni->inflight, 1, __ATOMIC_RELEASE);
}

/* A send the transport read from our memory after returning: done now. */
static void ptli_send_done_cb(void *ctx, void *cookie, int rc) {
  ptli_part_done(ctx, cookie, rc);
}

static int ptli_watch_cb(void *ctx, int fd, unsigned events) {
  ptli_ni_t *ni = ctx;
  struct epoll_event ev = {.events = events, .data.fd = fd};
  if (!events) return epoll_ctl(ni->epfd, EPOLL_CTL_DEL, fd, NULL) == 0 || errno == ENOENT ? 0 : -errno;
  if (epoll_ctl(ni->epfd, EPOLL_CTL_MOD, fd, &ev) == 0) return 0;
  return epoll_ctl(ni->epfd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : -errno;
}

/* ---- sending ------------------------------------------------------------------- */

/* One frame to dest; loopback is processed here and now, as if it had
 * come in. */
static int ptli_frame(ptli_ni_t *ni, uint32_t dest, const ptli_msg_t *m, const void *data,
                      size_t len, int reply, ptli_op_t *op) {
  ptli_peer_t *p = &ni->peers[dest];
  uint8_t hdr[PTLI_WIRE_LEN];
  ptli_wire_encode(m, hdr);
  if (p->tp == PTLI_NTP) {
    ptli_deliver_cb(ni, ni->rank, hdr, sizeof hdr, (void *)data, len);
    if (op) ptli_part_done(ni, op, 0);
    return 0;
  }
  const gasnetc_transport_ops_t *ops = ni->ops[p->tp];
  /* A put's data may be read from the MD until send_done: SEND_END waits
   * for it anyway (amudp then sends it without a copy). */
  unsigned flags = reply ? GASNETC_SEND_REPLY : op ? GASNETC_SEND_BORROW : 0;
  int rc;
  uint64_t yield_at = 0;
  while ((rc = ops->send(ni->tp[p->tp], dest, hdr, sizeof hdr, data, len, flags, op)) == -EAGAIN)
    if (ptli_poll_all(ni) == 0) /* room comes with the peer's acks; its reader may need our CPU */
      ptli_yield(ni, &yield_at, gasneti_now_ns());
  if (p->tp == 0 && !ptli_tls_progress) ptli_kick(ni); /* its timers: the progress thread's deadline */
  if (rc == GASNETC_SEND_INFLIGHT) return 0; /* send_done completes this part */
  if (op) ptli_part_done(ni, op, rc < 0 ? rc : 0);
  return rc < 0 ? rc : 0;
}

int ptli_send(ptli_ni_t *ni, uint32_t dest, ptli_msg_t *m, const void *data, size_t len,
              int reply, ptli_op_t *op) {
  size_t chunk = ni->max_msg, nf = len > chunk ? (len + chunk - 1) / chunk : 1;
  ptli_peer_t *p = &ni->peers[dest];
  if (!reply) m->seq = __atomic_fetch_add(&p->send_seq, (uint32_t)nf, __ATOMIC_RELAXED);
  ptli_op_t *heap = NULL;
  if (op) {
    if (!(heap = ptli_op_alloc(ni))) {
      ptli_op_done(ni, op, -ENOMEM);
      return -ENOMEM;
    }
    *heap = *op;
    heap->parts = (int)nf;
    heap->rc = 0;
    __atomic_add_fetch(&ni->inflight, 1, __ATOMIC_RELAXED);
  }
  int rc = 0;
  for (size_t k = 0; k < nf; k++) {
    ptli_msg_t f = *m;
    size_t at = k * chunk, n = len - at < chunk ? len - at : chunk;
    if (m->op == PTLI_OP_PUT && k) {
      f.seq = m->seq + (uint32_t)k; /* right behind the first at the target */
      f.flags |= PTLI_WF_CONT;
      f.offset = at;
    } else if (m->op == PTLI_OP_REPLY) {
      f.hdr_data = at;
    }
    int r = ptli_frame(ni, dest, &f, data ? (const char *)data + at : NULL, n, reply, heap);
    if (r < 0 && !rc) rc = r;
  }
  return rc;
}

void ptli_poll_once(ptli_ni_t *ni) { ptli_poll_all(ni); }

/* ---- progress and waiting --------------------------------------------------------
 *
 * Who polls the transports:
 *  - a thread in PtlEQWait, first: it polls them itself until GASNET_SPIN_USEC
 *    (default 100) have passed without a frame, as GASNet's blocking calls do
 *    (core/gasnetc_poll.c): an arrival it finds costs no wake-up and no
 *    hand-over between threads. Meanwhile the progress thread stands aside
 *    (parked on park_cond, out of the epoll set and not counted among the
 *    shared-memory transport's sleepers, so senders need not write its
 *    wake-up pipe). A waiter that stops spinning to sleep unparks it; one
 *    that got its event does not (that would cost a system call per event):
 *    the progress thread looks again within PTLI_PARK_NS.
 *  - the progress thread, otherwise: it polls while frames come and for
 *    GASNET_SPIN_USEC after the last one (a peer's next message in a
 *    ping-pong finds it awake), then sleeps in one ppoll() on the epoll set
 *    of every transport descriptor, until one is ready or the earliest
 *    transport deadline (idle(): nanoseconds, not epoll_wait's rounded-up
 *    milliseconds), at most PTLI_SLEEP_MAX_MS. A sleep that runs to that
 *    bound is counted (PTL_SR_SLEEP_TIMEOUT_COUNT): while operations are in
 *    flight it means a wake-up was missed.
 *  Spinning yields the CPU at each empty poll on a crowded host (more ranks
 *  on this kernel than CPUs: ni->polite, as the core's polite mode), else
 *  now and then (ptli_yield), so that a peer sharing our CPU still runs.
 *
 * Busy: a large operation delivers nothing for a while, its frame moving
 * as fragments and acks the transports handle inside poll (a 4 MiB frame
 * over udp takes a millisecond). While a send of ours is in flight, or
 * since a large frame began arriving (place() was asked) less than
 * PTLI_BUSY_NS ago, pollers keep spinning (ptli_busy) rather than hand
 * the rest over to wake-ups of the progress thread.
 *
 * Sends: a send through the network transport arms its timers
 * (retransmission) after the progress thread computed its sleep: an
 * application thread's send wakes it when it sleeps (ptli_kick), so that
 * the new deadline counts. amshm asks the receiver for room when it keeps
 * the rest of a frame, so its pipe wakes the progress thread for it.
 * Polling: the network transport serves no peer in a job of one host
 * (ni->serves[0] == 0): then it is not polled (a system call each for
 * amudp); nor is the shared-memory one where no neighbour shares it.
 */
#define PTLI_SLEEP_MAX_MS 100
#define PTLI_PARK_NS 1000000L
#define PTLI_BUSY_NS 10000000ull


/* every: the transports that serve nobody too (after a sleep: a stray
 * datagram on an unused socket must be read, or the next sleep ends at
 * once again). */
static int ptli_poll_tps(ptli_ni_t *ni, int every) {
  int n = 0;
  for (int i = 0; i < PTLI_NTP; i++) {
    int k = ni->tp[i] && (every || ni->serves[i]) ? ni->ops[i]->poll(ni->tp[i]) : 0;
    if (k >= 0) {
      n += k;
      continue;
    }
    /* A transport that failed (a malformed shared-memory record, no
     * memory, a direct read refused: it printed why) would fail again at
     * every poll: the job ends, as the GASNet core ends it. */
    char line[160];
    snprintf(line, sizeof line, "Portals: rank %u: the %s transport failed: %s", ni->rank,
             ni->ops[i]->name, strerror(-k));
    ptli_die(line);
  }
  return n;
}

/* Work in flight that delivers no frame yet (above). Our sends keep a
 * waiter spinning, not the progress thread: the thread that sends polls
 * (on "not now") or waits, and a third spinning thread on two CPUs
 * starved the receiver (pipelined 4 MiB puts through shm: 256 MB/s). */
static int ptli_busy(ptli_ni_t *ni, uint64_t now, int waiter) {
  if (waiter && __atomic_load_n(&ni->inflight, __ATOMIC_RELAXED)) return 1;
  return now - __atomic_load_n(&ni->arriving_ns, __ATOMIC_RELAXED) < PTLI_BUSY_NS;
}

/* Wake the progress thread if it sleeps (its deadline predates our send). */
static void ptli_kick(ptli_ni_t *ni) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the send before the look: ptli_sleep */
  if (!__atomic_load_n(&ni->sleeping, __ATOMIC_RELAXED) ||
      __atomic_exchange_n(&ni->kicked, 1, __ATOMIC_ACQ_REL))
    return;
  uint64_t one = 1;
  if (write(ni->wakefd, &one, sizeof one) < 0) { /* full: it is awake anyway */ }
}

/* A spinning thread yields now and then even with a CPU per rank (as
 * core/gasnetc_poll.c): when the kernel runs the peer we wait for on our
 * CPU, it waits behind our spin. A yield that came back late gave the CPU
 * to someone: yield again soon (PTLI_SPIN_YIELD_MIN_NS); one that came
 * back at once found nobody: double the period, up to
 * PTLI_SPIN_YIELD_MAX_NS. A fixed 16 us period made half the runs of an
 * 8-byte ping-pong through shared memory take 35 us, not 1.2. */
#define PTLI_SPIN_YIELD_MIN_NS 1000u
#define PTLI_SPIN_YIELD_MAX_NS 64000u
#define PTLI_SPIN_YIELD_BUSY_NS 2000u
/* The clock is read at every PTLI_SPIN_CLOCK_EVERY-th empty poll only (as
 * the core's spin): through shared memory it was a sixth of the time. */
#define PTLI_SPIN_CLOCK_EVERY 8u

/* Empty polls before the clock is read again: none on a crowded host
 * (every empty poll yields) or where a poll is a system call anyway (the
 * network transport serves peers: 8 of them made the yields of two
 * spinners sharing a CPU come 10-20 us late). */
static unsigned ptli_clock_skip(const ptli_ni_t *ni) {
  return ni->polite || ni->serves[0] ? 0 : PTLI_SPIN_CLOCK_EVERY - 1;
}
static __thread uint64_t ptli_tls_yield_period = PTLI_SPIN_YIELD_MIN_NS;
static __thread uint64_t ptli_tls_yield_bare = UINT64_MAX; /* the quickest yield seen */

static void ptli_yield(ptli_ni_t *ni, uint64_t *yield_at, uint64_t now) {
  if (!ni->polite && now < *yield_at) return;
  sched_yield();
  uint64_t after = gasneti_now_ns(), took = after - now;
  if (took < ptli_tls_yield_bare) ptli_tls_yield_bare = took;
  if (took > ptli_tls_yield_bare + PTLI_SPIN_YIELD_BUSY_NS) ptli_tls_yield_period = PTLI_SPIN_YIELD_MIN_NS;
  else if (ptli_tls_yield_period < PTLI_SPIN_YIELD_MAX_NS) ptli_tls_yield_period *= 2;
  *yield_at = after + ptli_tls_yield_period;
}

void ptli_spin_start(ptli_ni_t *ni, ptli_spin_t *s) {
  s->on = ni->spin_ns > 0;
  if (!s->on) return;
  s->idle_since = gasneti_now_ns();
  s->yield_at = s->idle_since + ptli_tls_yield_period;
  s->fresh = 0;
  s->skip = 0;
  __atomic_add_fetch(&ni->spinners, 1, __ATOMIC_SEQ_CST);
}

void ptli_spin_stop(ptli_ni_t *ni, ptli_spin_t *s, int to_sleep) {
  if (!s->on) return;
  s->on = 0;
  if (__atomic_sub_fetch(&ni->spinners, 1, __ATOMIC_SEQ_CST) == 0 && to_sleep &&
      __atomic_load_n(&ni->parked, __ATOMIC_SEQ_CST)) {
    pthread_mutex_lock(&ni->park_lock);
    pthread_cond_signal(&ni->park_cond);
    pthread_mutex_unlock(&ni->park_lock);
  }
}

int ptli_spin_step(ptli_ni_t *ni, ptli_spin_t *s) {
  if (!s->on) return 0;
  if (ptli_poll_all(ni) > 0) {
    s->fresh = 1;
    s->skip = 0;
    return 1;
  }
  if (s->skip) {
    s->skip--;
    return 1;
  }
  uint64_t now = gasneti_now_ns();
  s->skip = ptli_clock_skip(ni);
  if (s->fresh) {
    s->idle_since = now;
    s->fresh = 0;
  }
  if (ptli_busy(ni, now, 1)) s->idle_since = now;
  else if (now - s->idle_since >= ni->spin_ns) {
    ptli_spin_stop(ni, s, 1);
    return 0;
  }
  ptli_yield(ni, &s->yield_at, now);
  return 1;
}

/* Stand aside while a thread spins in PtlEQWait (at most PTLI_PARK_NS at
 * a time). parked is set before spinners is read, and ptli_spin_stop
 * lowers spinners before it reads parked: one of them sees the other. */
static void ptli_park(ptli_ni_t *ni) {
  pthread_mutex_lock(&ni->park_lock);
  __atomic_store_n(&ni->parked, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&ni->spinners, __ATOMIC_SEQ_CST) && !__atomic_load_n(&ni->stop, __ATOMIC_ACQUIRE)) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += PTLI_PARK_NS;
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&ni->park_cond, &ni->park_lock, &ts);
  }
  __atomic_store_n(&ni->parked, 0, __ATOMIC_SEQ_CST);
  pthread_mutex_unlock(&ni->park_lock);
}

/* One sleep until a descriptor is ready or the earliest deadline, then a
 * poll (which also tells the shared-memory transport we are awake).
 * Returns the frames it delivered. */
static int ptli_sleep(ptli_ni_t *ni) {
  __atomic_store_n(&ni->sleeping, 1, __ATOMIC_SEQ_CST); /* before idle(): ptli_kick */
  uint64_t next = GASNETC_NEVER;
  for (int i = 0; i < PTLI_NTP; i++) {
    uint64_t t = ni->tp[i] ? ni->ops[i]->idle(ni->tp[i]) : GASNETC_NEVER;
    if (t < next) next = t;
  }
  uint64_t now = gasneti_now_ns(), bound = (uint64_t)PTLI_SLEEP_MAX_MS * 1000000u;
  int capped = next == GASNETC_NEVER || next - now >= bound;
  if (next > now) {
    uint64_t ns = capped ? bound : next - now;
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    struct pollfd pf = {ni->epfd, POLLIN, 0};
    if (ppoll(&pf, 1, &ts, NULL) == 0 && capped)
      __atomic_add_fetch(&ni->sleep_timeouts, 1, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&ni->sleeping, 0, __ATOMIC_RELAXED);
  uint64_t v; /* the wake-up descriptor stays readable until read */
  if (__atomic_exchange_n(&ni->kicked, 0, __ATOMIC_ACQUIRE) && read(ni->wakefd, &v, sizeof v) < 0) {
    /* read already */
  }
  return ptli_poll_tps(ni, 1);
}

/* The progress thread's loop. Its yield deadline runs on across frames:
 * the first empty poll after a message it answered usually yields, which
 * hands the CPU at once to a peer that shares it (timing each spin afresh,
 * a yield period after the frame, made network round trips on a loaded
 * host 2 us slower). */
static void *ptli_progress_main(void *arg) {
  ptli_ni_t *ni = arg;
  uint64_t busy = 0, yield_at = 0;
  unsigned skip = 0;
  int fresh = 1; /* a frame came: busy and yield_at are timed at the next empty poll */
  ptli_tls_progress = 1;
  while (!__atomic_load_n(&ni->stop, __ATOMIC_ACQUIRE)) {
    if (__atomic_load_n(&ni->spinners, __ATOMIC_SEQ_CST)) {
      ptli_park(ni);
      fresh = 1;
      continue;
    }
    if (ptli_poll_all(ni) > 0) {
      fresh = 1;
      skip = 0;
      continue;
    }
    if (skip) {
      skip--;
      continue;
    }
    uint64_t now = gasneti_now_ns();
    if (fresh) {
      busy = now;
      fresh = 0;
    }
    if (ptli_busy(ni, now, 0) || now - busy < ni->spin_ns) {
      skip = ptli_clock_skip(ni);
      ptli_yield(ni, &yield_at, now);
    } else {
      ptli_sleep(ni);
      fresh = 1;
    }
  }
  return NULL;
}

/* ---- identity ------------------------------------------------------------------- */

/* The wait policy (as the core's, core/gasnetc_host.c): a kernel with more
 * ranks of the job than CPUs they may run on (the union of their affinity
 * masks) is crowded, and its spinning threads yield at every empty poll. */
static void ptli_wait_policy(ptli_ni_t *ni, const ptli_rec_t *all) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  uint32_t ranks = 0;
  for (uint32_t r = 0; r < ni->size; r++) {
    if (!gasneti_same_kernel(&all[r].host, &all[ni->rank].host)) continue;
    ranks++;
    cpu_set_t theirs;
    memcpy(&theirs, all[r].host.cpus, sizeof theirs);
    CPU_OR(&cpus, &cpus, &theirs);
  }
  ni->polite = ranks > (uint32_t)CPU_COUNT(&cpus);
}

/* GASNET_SPIN_USEC (docs/api.md), as the GASNet core reads it. */
static int ptli_spin_env(ptli_ni_t *ni) {
  const char *v = boot_getenv("GASNET_SPIN_USEC");
  char *end = NULL;
  unsigned long long us = v && *v ? strtoull(v, &end, 10) : 100;
  if (v && *v && (*end || us > 1000000000ull)) {
    fprintf(stderr, "Portals: PtlNIInit: GASNET_SPIN_USEC='%s' is not a number of microseconds\n", v);
    return -1;
  }
  ni->spin_ns = us * 1000u;
  return 0;
}

static int ptli_by_id_cmp(const void *a, const void *b, void *arg) {
  const ptli_peer_t *p = arg;
  const ptl_process_id_t *x = &p[*(const uint32_t *)a].id, *y = &p[*(const uint32_t *)b].id;
  if (x->nid != y->nid) return x->nid < y->nid ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int ptli_rank_of(ptli_ni_t *ni, ptl_process_id_t id) {
  uint32_t lo = 0, hi = ni->size;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    const ptl_process_id_t *x = &ni->peers[ni->by_id[mid]].id;
    if (x->nid == id.nid && x->pid == id.pid) return (int)ni->by_id[mid];
    if (x->nid < id.nid || (x->nid == id.nid && x->pid < id.pid)) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/* nid of every rank; pids (asked for, else the host's lowest free ones).
 * Returns the first rank whose pid another rank of its host asked for
 * too, or -1. */
static int ptli_ids(ptli_ni_t *ni, const ptli_rec_t *all) {
  uint32_t n = ni->size, nhosts = 0;
  uint32_t *first = malloc(sizeof *first * n); /* host number -> its lowest rank */
  if (!first) return 0;
  for (uint32_t r = 0; r < n; r++) {
    uint32_t h = 0;
    while (h < nhosts && !gasneti_same_host(&all[first[h]].host, &all[r].host)) h++;
    if (h == nhosts) first[nhosts++] = r;
    ni->peers[r].id.nid = h;
    ni->peers[r].uid = all[r].uid;
  }
  free(first);
  int clash = -1;
  for (uint32_t r = 0; r < n; r++) {
    if (all[r].want_pid == PTL_PID_ANY) continue;
    ni->peers[r].id.pid = all[r].want_pid;
    for (uint32_t q = 0; q < r && clash < 0; q++)
      if (ni->peers[q].id.nid == ni->peers[r].id.nid && all[q].want_pid == all[r].want_pid) clash = (int)r;
  }
  for (uint32_t r = 0; r < n; r++) {
    if (all[r].want_pid != PTL_PID_ANY) continue;
    ptl_pid_t pid = 0; /* lowest not asked for and not given on this host */
    for (uint32_t q = 0; q < n; q++) {
      if (q == r || ni->peers[q].id.nid != ni->peers[r].id.nid) continue;
      if ((q < r || all[q].want_pid != PTL_PID_ANY) && ni->peers[q].id.pid == pid) {
        pid++;
        q = (uint32_t)-1; /* look again from the start */
      }
    }
    ni->peers[r].id.pid = pid;
  }
  return clash;
}

/* Routes and distances: shared memory within the neighbourhood. */
static void ptli_routes(ptli_ni_t *ni, uint8_t *serves_shm, uint8_t *serves_net) {
  const char *v = boot_getenv("GASNET_SUPERNODE_MAXSIZE");
  unsigned long chunk = v && *v ? strtoul(v, NULL, 10) : 0;
  uint32_t me = ni->rank, mine = ni->peers[me].id.nid, idx = 0, myidx = 0;
  uint32_t *index = calloc(ni->size, sizeof *index); /* place of each rank on its host */
  ni->serves[0] = ni->serves[1] = 0; /* peers each transport serves */
  for (uint32_t r = 0; r < ni->size && index; r++) {
    idx = 0;
    for (uint32_t q = 0; q < r; q++) idx += ni->peers[q].id.nid == ni->peers[r].id.nid;
    index[r] = idx;
  }
  myidx = index ? index[me] : 0;
  for (uint32_t r = 0; r < ni->size; r++) {
    ptli_peer_t *p = &ni->peers[r];
    int host = p->id.nid == mine;
    int nbr = host && index && (chunk == 0 || index[r] / chunk == myidx / chunk);
    p->tp = r == me ? PTLI_NTP : nbr ? 1 : 0;
    p->dist = r == me ? 0 : nbr ? 1 : host ? 2 : 3;
    serves_shm[r] = r != me && nbr;
    serves_net[r] = r != me && !nbr;
    ni->serves[0] += serves_net[r];
    ni->serves[1] += serves_shm[r];
  }
  free(index);
}

/* ---- open / close ---------------------------------------------------------------- */

static void ptli_bind_addr(gasnetc_transport_config_t *cfg) {
  socklen_t len = sizeof cfg->bind_addr;
  if (boot_self_addr(&cfg->bind_addr, &len) == 0) {
    cfg->bind_addr_len = len;
    return;
  }
  /* No launcher connection (PMI): the address this host's name resolves to. */
  memset(&cfg->bind_addr, 0, sizeof cfg->bind_addr);
  cfg->bind_addr.ss_family = AF_UNSPEC;
  char host[256] = "";
  struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *res = NULL;
  if (gethostname(host, sizeof host - 1) == 0 && getaddrinfo(host, NULL, &hints, &res) == 0) {
    memcpy(&cfg->bind_addr, res->ai_addr, res->ai_addrlen);
    cfg->bind_addr_len = res->ai_addrlen;
    freeaddrinfo(res);
  }
}

static int ptli_open_transports(ptli_ni_t *ni, ptli_rec_t *mine) {
  gasnetc_transport_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.myrank = ni->rank;
  cfg.nranks = ni->size;
  boot_job_key(cfg.job_key);
  ptli_bind_addr(&cfg);
  cfg.getenv = boot_getenv;
  cfg.ctx = ni;
  cfg.deliver = ptli_deliver_cb;
  cfg.place = ptli_place_cb;
  cfg.peer_dead = ptli_peer_dead_cb;
  cfg.send_done = ptli_send_done_cb;
  cfg.watch = ptli_watch_cb;
  cfg.live_timeout_ns = 0; /* shm: a neighbour's end is seen through its pidfd */
  ni->ops[0] = ptli_net_ops;
  ni->ops[1] = &amshm_ops;
  ni->max_msg = SIZE_MAX; /* a frame's payload: larger data goes in several */
  for (int i = 0; i < PTLI_NTP; i++) {
    if (ni->ops[i]->open(&ni->tp[i], &cfg) != 0) {
      fprintf(stderr, "Portals: PtlNIInit: cannot open the %s transport\n", ni->ops[i]->name);
      return -1;
    }
    size_t alen = GASNETC_ADDR_MAX;
    if (ni->ops[i]->address(ni->tp[i], mine->addr[i], &alen) != 0) return -1;
    size_t m = ni->ops[i]->max_payload(ni->tp[i]);
    if (m < ni->max_msg) ni->max_msg = m;
  }
  return 0;
}

static int ptli_progress_start(ptli_ni_t *ni) {
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = ni->wakefd};
  if (epoll_ctl(ni->epfd, EPOLL_CTL_ADD, ni->wakefd, &ev) != 0) return -1;
  ni->stop = 0;
  if (pthread_create(&ni->progress, NULL, ptli_progress_main, ni) != 0) return -1;
  ni->progress_on = 1;
  return 0;
}

static int ptli_connect(ptli_ni_t *ni, const ptli_rec_t *all) {
  uint8_t *shm = calloc(ni->size, 1), *net = calloc(ni->size, 1);
  int rc = -1;
  if (shm && net) {
    ptli_routes(ni, shm, net);
    rc = ni->ops[0]->connect(ni->tp[0], all[0].addr[0], sizeof *all, net) ||
         ni->ops[1]->connect(ni->tp[1], all[0].addr[1], sizeof *all, shm) ? -1 : 0;
  }
  free(shm);
  free(net);
  return rc;
}

int ptli_net_open(ptli_ni_t *ni, ptl_pid_t want_pid) {
  ni->rank = boot_rank();
  ni->size = boot_size();
  ni->peers = calloc(ni->size, sizeof *ni->peers);
  ni->by_id = malloc(sizeof *ni->by_id * ni->size);
  ptli_rec_t mine, *all = malloc(sizeof *all * ni->size);
  ni->epfd = epoll_create1(EPOLL_CLOEXEC);
  ni->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (!ni->peers || !ni->by_id || !all || ni->epfd < 0 || ni->wakefd < 0) {
    free(all);
    return PTL_NOSPACE;
  }
  memset(&mine, 0, sizeof mine);
  gasneti_host_rec(&mine.host);
  mine.uid = (uint32_t)getuid();
  mine.want_pid = want_pid;
  int rc = ptli_open_transports(ni, &mine) == 0 ? PTL_OK : PTL_FAIL;
  if (ptli_spin_env(ni) != 0) rc = PTL_FAIL;
  if (boot_exchange(&mine, sizeof mine, all) != 0) rc = PTL_FAIL;
  if (rc == PTL_OK) ptli_wait_policy(ni, all);
  int clash = rc == PTL_OK ? ptli_ids(ni, all) : -1;
  if (clash >= 0) {
    if (ni->rank == 0)
      fprintf(stderr, "Portals: PtlNIInit: rank %d asks for pid %u, which another rank of its host asked for\n",
              clash, all[clash].want_pid);
    rc = PTL_INV_PROC; /* every rank sees it: the whole job fails alike */
  }
  if (rc == PTL_OK && ptli_connect(ni, all) != 0) rc = PTL_FAIL;
  free(all);
  if (rc != PTL_OK) return rc;
  ni->id = ni->peers[ni->rank].id;
  ni->uid = ni->peers[ni->rank].uid;
  for (uint32_t r = 0; r < ni->size; r++) ni->by_id[r] = r;
  qsort_r(ni->by_id, ni->size, sizeof *ni->by_id, ptli_by_id_cmp, ni->peers);
  if (ptli_progress_start(ni) != 0) return PTL_FAIL;
  return boot_barrier() == 0 ? PTL_OK : PTL_FAIL; /* every rank can take messages */
}

/* GASNET_STATSFILE (docs/portals.md, "Counters"): this rank's status
 * registers and its transports' counters, as the GASNet core writes them:
 * to VALUE.RANK, or VALUE with its first '%' replaced by the rank. */
static void ptli_stats(ptli_ni_t *ni) {
  const char *v = boot_getenv("GASNET_STATSFILE"), *pct;
  if (!v || !*v || !ni->peers) return; /* unset, or an interface never up */
  char path[4096];
  if ((pct = strchr(v, '%')) != NULL)
    snprintf(path, sizeof path, "%.*s%u%s", (int)(pct - v), v, ni->rank, pct + 1);
  else
    snprintf(path, sizeof path, "%s.%u", v, ni->rank);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "Portals: GASNET_STATSFILE: cannot write %s: %s\n", path, strerror(errno));
    return;
  }
  pthread_mutex_lock(&ni->lock);
  fprintf(f, "ptl.drop_count %lld\nptl.malformed_count %lld\n", (long long)ni->drops,
          (long long)ni->malformed);
  pthread_mutex_unlock(&ni->lock);
  for (int i = 0; i < PTLI_NTP; i++)
    if (ni->tp[i]) ni->ops[i]->stats(ni->tp[i], f);
  if (fclose(f) != 0) fprintf(stderr, "Portals: GASNET_STATSFILE: cannot write %s\n", path);
}

void ptli_net_close(ptli_ni_t *ni) {
  if (ni->progress_on) {
    __atomic_store_n(&ni->stop, 1, __ATOMIC_RELEASE);
    uint64_t one = 1;
    if (write(ni->wakefd, &one, sizeof one) < 0) { /* full: it is awake anyway */ }
    pthread_mutex_lock(&ni->park_lock);
    pthread_cond_signal(&ni->park_cond);
    pthread_mutex_unlock(&ni->park_lock);
    pthread_join(ni->progress, NULL);
    ni->progress_on = 0;
  }
  ptli_stats(ni);
  for (int i = 0; i < PTLI_NTP; i++) {
    if (ni->tp[i]) ni->ops[i]->close(ni->tp[i]);
    ni->tp[i] = NULL;
  }
  for (uint32_t r = 0; ni->peers && r < ni->size; r++)
    while (ni->peers[r].held) {
      ptli_held_t *h = ni->peers[r].held;
      ni->peers[r].held = h->next;
      free(h);
    }
  free(__atomic_exchange_n(&ni->spare_op, NULL, __ATOMIC_ACQUIRE));
  while (ni->rx) {
    ptli_rx_t *rx = ni->rx;
    ni->rx = rx->next;
    free(rx);
  }
  free(ni->peers);
  free(ni->by_id);
  ni->peers = NULL;
  ni->by_id = NULL;
  if (ni->epfd >= 0) close(ni->epfd);
  if (ni->wakefd >= 0) close(ni->wakefd);
  ni->epfd = ni->wakefd = -1;
}
