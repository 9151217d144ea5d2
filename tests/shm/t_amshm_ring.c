/*
 * t_amshm_ring - unit tests of the shared-memory ring (amshm/amshm_ring.h)
 * in one process: the ring's control page and bytes in a memfd laid out as
 * a slot of a rank's region (amshm_slot_t, then the request and reply
 * rings), mapped twice, one view for the producer and one for the
 * consumer, as two ranks map it.
 *
 * 1. Every offset x every record size: on an empty ring whose head and
 *    tail start at each 16-byte offset (and with the 64-bit counters just
 *    below 2^32 and 2^64), a record of each size is taken exactly when
 *    it fits, at the head or after a PAD filling the end; it comes back
 *    byte for byte, the PAD skipped, and leaves the ring empty. Every
 *    record of at most half the ring fits an empty ring at every offset
 *    (amshm.c's records are at most a quarter ring).
 * 2. Full and empty against a model: seeded random pushes and pops, each
 *    push refused exactly when the model's head, tail and PAD say the
 *    record does not fit, and taken after the consumer frees the room.
 * 2b. A malformed PAD (one that does not fill the ring to its end) is
 *    returned by peek for the caller to refuse, not followed.
 * 3. Two threads, a producer and a consumer, each with its own view,
 *    pushing millions of records of random sizes through both rings of
 *    the slot with sequence numbers and checksums (the ring's release and
 *    acquire the only synchronisation; build with -fsanitize=thread to
 *    have ThreadSanitizer check them: the "one view" run shares addresses).
 *
 * Usage: t_amshm_ring [RECORDS [SEED]] (default 1000000, 1).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* memfd_create */
#endif
#include "amshm_ring.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "t_unit.h"

/* ---------------------------------------------------------------- PRNG */


static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------- the slot */

/* A slot of `ring`-byte rings in a memfd, mapped twice (the producer's and
 * the consumer's views; the same mapping when `one_view`). */
typedef struct slot {
  uint8_t *map[2];
  size_t len;
  uint32_t size;
  amshm_ring_t prod[2], cons[2]; /* [AMSHM_REQ], [AMSHM_REP] */
} slot_t;

static void slot_views(slot_t *s, int v, amshm_ring_t *r) {
  amshm_slot_t *ctl = (amshm_slot_t *)s->map[v];
  for (int k = 0; k < 2; k++)
    r[k] = (amshm_ring_t){&ctl->ring[k], s->map[v] + AMSHM_PAGE + (size_t)k * s->size, s->size};
}

static void slot_open(slot_t *s, uint32_t ring, int one_view) {
  s->size = ring;
  s->len = amshm_slot_size(ring);
  int fd = memfd_create("t_amshm_ring", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)s->len) != 0) { perror("t_amshm_ring: memfd"); exit(1); }
  for (int v = 0; v < 2; v++) {
    s->map[v] = v && one_view ? s->map[0]
                              : mmap(NULL, s->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (s->map[v] == MAP_FAILED) { perror("t_amshm_ring: mmap"); exit(1); }
  }
  close(fd); /* the mappings keep it: nothing named is left anywhere */
  slot_views(s, 0, s->prod);
  slot_views(s, 1, s->cons);
}

static void slot_close(slot_t *s) {
  munmap(s->map[0], s->len);
  if (s->map[1] != s->map[0]) munmap(s->map[1], s->len);
}

/* Both counters of ring k at `at` (the consumer's and producer's writes). */
static void ring_set(slot_t *s, int k, uint64_t at) {
  s->prod[k].ctl->head = at;
  s->prod[k].ctl->tail = at;
}

/* A record of `len` bytes numbered `seq`: header, then bytes drawn from seq. */
static void rec_write(uint8_t *at, uint32_t len, uint32_t seq) {
  amshm_rec_t h = {len, AMSHM_REC_FIRST | AMSHM_REC_LAST, 0, len - 16, seq};
  memcpy(at, &h, sizeof h);
  uint64_t r = seq;
  for (uint32_t i = 16; i < len; i += 8) {
    uint64_t v = rng_next(&r);
    memcpy(at + i, &v, 8);
  }
}
static int rec_check(const amshm_rec_t *rec, uint32_t len, uint32_t seq) {
  if (rec->len != len || rec->flags != (AMSHM_REC_FIRST | AMSHM_REC_LAST) ||
      rec->fraglen != len - 16 || rec->total != seq)
    return 0;
  const uint8_t *p = (const uint8_t *)rec;
  uint64_t r = seq;
  for (uint32_t i = 16; i < len; i += 8) {
    uint64_t v = rng_next(&r);
    if (memcmp(p + i, &v, 8)) return 0;
  }
  return 1;
}

/* ---------------------------------------------------------------- 1. every offset, every size */

/* base: where the counters start, a multiple of the ring size (records
 * near 2^32 and 2^64 cross those values). */
static uint32_t t_offsets(uint32_t ring, uint64_t base) {
  slot_t s;
  slot_open(&s, ring, 0);
  amshm_ring_t *p = &s.prod[AMSHM_REQ], *c = &s.cons[AMSHM_REQ];
  uint32_t cases = 0;
  for (uint32_t off = 0; off < ring; off += 16) {
    for (uint32_t need = 16; need <= ring; need += 16, cases++) {
      uint64_t at = base + off, head = 0;
      ring_set(&s, AMSHM_REQ, at);
      uint32_t contig = ring - off;
      int fits = need <= contig || contig + need <= ring, wrap = need > contig;
      uint8_t *w = amshm_ring_reserve(p, need, &head);
      CHECK(!w == !fits, "ring %u offset %u record %u: %s", ring, off, need,
            w ? "taken, does not fit" : "refused, fits");
      if (need <= ring / 2)
        CHECK(w, "ring %u offset %u: a record of %u (at most half the ring) refused by an "
              "empty ring", ring, off, need);
      if (!w) {
        CHECK(amshm_ring_empty(c) && !amshm_ring_peek(c), "a refusal left something");
        continue;
      }
      CHECK(w == p->data + (wrap ? 0 : off) && head == at + (wrap ? contig : 0),
            "ring %u offset %u record %u: at %td, head %llu", ring, off, need, w - p->data,
            (unsigned long long)(head - base));
      rec_write(w, need, cases);
      CHECK(amshm_ring_empty(c) && !amshm_ring_peek(c), "visible before it was published");
      amshm_ring_publish(p, head, need);
      const amshm_rec_t *r = amshm_ring_peek(c);
      CHECK(r && (const uint8_t *)r == c->data + (wrap ? 0 : off) && rec_check(r, need, cases),
            "ring %u offset %u record %u: not read back as written", ring, off, need);
      if (r) amshm_ring_consume(c, r);
      CHECK(amshm_ring_empty(c) && !amshm_ring_peek(c) &&
            c->ctl->tail == at + need + (wrap ? contig : 0) && c->ctl->tail == p->ctl->head,
            "ring %u offset %u record %u: not empty after", ring, off, need);
    }
  }
  slot_close(&s);
  return cases;
}

/* ---------------------------------------------------------------- malformed PADs */

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "FAIL t_bad_pad: amshm_ring_peek still looping on a malformed PAD "
                            "after 10 s\n";
  if (write(2, msg, sizeof msg - 1)) {}
  _exit(1);
}

/* A PAD that does not fill the ring to its end (len 0, short of the end,
 * not a multiple of 16, past the end), published by a broken or corrupted
 * peer: peek returns it for the caller to refuse, in bounded time, and
 * moves nothing. (It looped forever on a len of 0.) */
static uint32_t t_bad_pad(void) {
  slot_t s;
  slot_open(&s, 256, 0);
  amshm_ring_t *p = &s.prod[AMSHM_REQ], *c = &s.cons[AMSHM_REQ];
  static const uint32_t lens[] = {0, 16, 32, 8, 24, 512, 0xfffffff0u};
  uint32_t cases = 0;
  signal(SIGALRM, on_alarm);
  alarm(10);
  for (uint32_t off = 0; off < 256; off += 16) {
    for (int i = 0; i < 7; i++) {
      uint32_t len = lens[i];
      if (len == 256 - off) continue; /* that one is well formed */
      ring_set(&s, AMSHM_REQ, off);
      amshm_rec_t *pad = (amshm_rec_t *)(p->data + off);
      *pad = (amshm_rec_t){len, AMSHM_REC_PAD, 0, 0, 0};
      amshm_ring_publish(p, off, 256 - off); /* the ring's bytes up to its end */
      const amshm_rec_t *r = amshm_ring_peek(c);
      CHECK(r == (const amshm_rec_t *)(c->data + off) && (r->flags & AMSHM_REC_PAD) &&
            c->ctl->tail == off, "a PAD of len %u at offset %u: %s", len, off,
            r ? "skipped" : "not returned");
      cases++;
    }
  }
  alarm(0);
  slot_close(&s);
  return cases;
}

/* ---------------------------------------------------------------- 2. against a model */

#define MODEL_MAX 8192 /* records and PADs in a ring: at most its size / 16 */

typedef struct mrec { uint64_t at; uint32_t len, seq; int pad; } mrec_t;

typedef struct model {
  uint64_t head, tail;
  mrec_t q[MODEL_MAX];
  uint32_t qh, qn; /* FIFO: first, count */
} model_t;

/* The model's answer to "does need fit": the PAD the ring would add (0 if
 * none), or -1. */
static int64_t model_fit(const model_t *m, uint32_t size, uint32_t need) {
  uint64_t used = m->head - m->tail, contig = size - (m->head & (size - 1));
  if (need <= contig) return used + need <= size ? 0 : -1;
  return used + contig + need <= size ? (int64_t)contig : -1;
}

static void model_push(model_t *m, uint32_t len, uint32_t seq, int pad) {
  m->q[(m->qh + m->qn++) % MODEL_MAX] = (mrec_t){m->head, len, seq, pad};
  m->head += len;
}

/* Pop one record from the ring, checking it against the model (PADs
 * skipped by peek as the model skips them). 0 when empty. */
static int model_pop(model_t *m, amshm_ring_t *c) {
  while (m->qn && m->q[m->qh].pad) {
    m->tail += m->q[m->qh].len;
    m->qh = (m->qh + 1) % MODEL_MAX, m->qn--;
  }
  const amshm_rec_t *r = amshm_ring_peek(c);
  if (!m->qn) {
    CHECK(!r && amshm_ring_empty(c), "the ring has a record the model has not");
    return 0;
  }
  mrec_t *x = &m->q[m->qh];
  CHECK(r && (const uint8_t *)r == c->data + (x->at & (c->size - 1)) && rec_check(r, x->len, x->seq) &&
        c->ctl->tail == m->tail, "record %u of %u bytes not where the model has it", x->seq, x->len);
  if (!r) return 0;
  amshm_ring_consume(c, r);
  m->tail += x->len;
  m->qh = (m->qh + 1) % MODEL_MAX, m->qn--;
  return 1;
}

static uint32_t t_model(uint32_t ring, uint64_t *rng, uint32_t ops, uint32_t *refused) {
  slot_t s;
  slot_open(&s, ring, 0);
  amshm_ring_t *p = &s.prod[AMSHM_REP], *c = &s.cons[AMSHM_REP];
  model_t *m = calloc(1, sizeof *m);
  if (!m) exit(1);
  m->head = m->tail = rng_next(rng) & ~(uint64_t)15; /* anywhere, even near 2^64 */
  ring_set(&s, AMSHM_REP, m->head);
  uint32_t seq = 0, maxrec = rng_below(rng, 2) ? ring / 4 : ring;
  for (uint32_t i = 0; i < ops && failures < 20; i++) {
    if (rng_below(rng, 100) < 45) { model_pop(m, c); continue; }
    uint32_t need = 16 * (1 + (uint32_t)rng_below(rng, maxrec / 16));
    int64_t pad = model_fit(m, ring, need);
    uint64_t head = 0;
    uint8_t *w = amshm_ring_reserve(p, need, &head);
    CHECK(!w == (pad < 0), "ring %u, used %llu, head at %llu: record %u %s", ring,
          (unsigned long long)(m->head - m->tail), (unsigned long long)(m->head & (ring - 1)),
          need, w ? "taken, the model says it does not fit" : "refused, the model says it fits");
    if (pad < 0) { /* refused: the consumer frees room until it fits */
      (*refused)++;
      while (model_fit(m, ring, need) < 0 && model_pop(m, c)) {}
      pad = model_fit(m, ring, need);
      if (pad < 0) { /* does not fit even an empty ring at this offset: skip it */
        CHECK(need > ring / 2, "record %u of a %u ring never fits", need, ring);
        continue;
      }
      w = amshm_ring_reserve(p, need, &head);
      CHECK(w, "record %u refused after the consumer freed the room", need);
      if (!w) continue;
    }
    if (pad) model_push(m, (uint32_t)pad, 0, 1);
    CHECK(head == m->head, "head %llu, the model's %llu", (unsigned long long)head,
          (unsigned long long)m->head);
    rec_write(w, need, ++seq);
    amshm_ring_publish(p, head, need);
    model_push(m, need, seq, 0);
  }
  while (model_pop(m, c)) {}
  CHECK(amshm_ring_empty(c) && m->head == m->tail && p->ctl->head == m->head,
        "not empty at the end");
  free(m);
  slot_close(&s);
  return ops;
}

/* ---------------------------------------------------------------- 3. two threads */

typedef struct run {
  slot_t s;
  uint64_t records, seed;
  double deadline;
  uint64_t sum[2];        /* checksums of what was sent / received */
  uint64_t full, empty;   /* refusals seen by the producer, empty looks by the consumer */
  int bad;
} run_t;

#define SPIN_YIELD 64   /* failed looks before yielding the CPU (2 cores, shared) */
#define SPIN_CLOCK 4096 /* failed looks between looks at the clock and the other side */

static void *producer(void *arg) {
  run_t *r = arg;
  uint64_t rng = r->seed, sum = 0;
  uint32_t seq[2] = {0, 0}, fmax = r->s.size / 4;
  for (uint64_t i = 0; i < r->records && !__atomic_load_n(&r->bad, __ATOMIC_RELAXED); i++) {
    int k = (int)rng_below(&rng, 2);
    uint32_t most = rng_below(&rng, 4) ? 256 : fmax; /* mostly small, as AMs are */
    uint32_t need = 16 * (1 + (uint32_t)rng_below(&rng, most / 16));
    uint64_t head;
    uint8_t *w;
    for (unsigned spins = 0; !(w = amshm_ring_reserve(&r->s.prod[k], need, &head)); spins++) {
      r->full++;
      if (spins % SPIN_YIELD == SPIN_YIELD - 1) sched_yield();
      if (spins % SPIN_CLOCK == SPIN_CLOCK - 1 &&
          (__atomic_load_n(&r->bad, __ATOMIC_RELAXED) || now_s() > r->deadline)) {
        __atomic_store_n(&r->bad, 1, __ATOMIC_RELAXED);
        return NULL;
      }
    }
    uint32_t q = ++seq[k];
    rec_write(w, need, q * 2 + (uint32_t)k);
    sum += q * 2 + (uint32_t)k + need;
    amshm_ring_publish(&r->s.prod[k], head, need);
  }
  r->sum[0] = sum;
  return NULL;
}

static void *consumer(void *arg) {
  run_t *r = arg;
  uint64_t sum = 0, got = 0;
  uint32_t seq[2] = {0, 0};
  unsigned spins = 0;
  while (got < r->records && !__atomic_load_n(&r->bad, __ATOMIC_RELAXED)) {
    int any = 0;
    for (int k = 0; k < 2; k++) {
      const amshm_rec_t *rec = amshm_ring_peek(&r->s.cons[k]);
      if (!rec) continue;
      uint32_t want = ++seq[k] * 2 + (uint32_t)k;
      if (rec->len < 16 || rec->len > r->s.size / 4 || !rec_check(rec, rec->len, want)) {
        fprintf(stderr, "FAIL consumer: ring %d record %u: lost, out of order or damaged "
                "(number %u, %u bytes)\n", k, seq[k], rec->total, rec->len);
        __atomic_store_n(&r->bad, 1, __ATOMIC_RELAXED);
        return NULL;
      }
      sum += want + rec->len;
      amshm_ring_consume(&r->s.cons[k], rec);
      got++, any = 1;
    }
    if (any) { spins = 0; continue; }
    r->empty++;
    if (++spins % SPIN_YIELD == 0) sched_yield();
    if (spins % SPIN_CLOCK == 0 && now_s() > r->deadline) {
      __atomic_store_n(&r->bad, 1, __ATOMIC_RELAXED);
      return NULL;
    }
  }
  r->sum[1] = sum;
  return NULL;
}

static void t_threads(uint32_t ring, uint64_t records, uint64_t seed, int one_view) {
  double t0 = now_s();
  run_t r = {.records = records, .seed = seed, .deadline = t0 + 60};
  slot_open(&r.s, ring, one_view);
  pthread_t tp, tc;
  if (pthread_create(&tc, NULL, consumer, &r) || pthread_create(&tp, NULL, producer, &r)) {
    fprintf(stderr, "t_amshm_ring: pthread_create failed\n");
    exit(1);
  }
  pthread_join(tp, NULL);
  pthread_join(tc, NULL);
  CHECK(!r.bad && r.sum[0] == r.sum[1], "%llu records through %u-byte rings (%s): %s",
        (unsigned long long)records, ring, one_view ? "one view" : "two views",
        r.bad ? (now_s() > r.deadline ? "no progress within 60 s" : "a record differed")
              : "checksums differ");
  for (int k = 0; k < 2; k++)
    CHECK(amshm_ring_empty(&r.s.cons[k]), "ring %d not empty at the end", k);
  printf("   %llu records through two %u-byte rings, %s: checksum %016llx both ends, "
         "%llu full, %llu empty looks, %.2f s\n", (unsigned long long)records, ring,
         one_view ? "one view" : "two views", (unsigned long long)r.sum[1],
         (unsigned long long)r.full, (unsigned long long)r.empty, now_s() - t0);
  slot_close(&r.s);
}

int main(int argc, char **argv) {
  uint64_t records = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1, rng = seed;
  double t0 = now_s();
  uint32_t offs = 0, model = 0, refused = 0;
  offs += t_offsets(256, 0);
  offs += t_offsets(256, ((uint64_t)1 << 32) - 256);
  offs += t_offsets(256, (uint64_t)0 - 256);
  offs += t_offsets(4096, (uint64_t)0 - 4096); /* amshm.c's smallest ring */
  static const uint32_t sizes[] = {64, 256, 4096, 65536};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) model += t_model(sizes[i], &rng, 50000, &refused);
  uint32_t pads = t_bad_pad();
  double t1 = now_s();
  printf("   %u malformed PADs returned, not followed\n", pads);
  printf("   %u records at every offset and size, %u pushes and pops against the model "
         "(%u refused, then taken once room was freed): %.2f s\n", offs, model, refused, t1 - t0);
  t_threads(4096, records, seed, 1); /* full and empty all the time */
  t_threads(65536, records / 4, seed + 1, 0);
  printf("t_amshm_ring: seed %llu, %.2f s: %s\n", (unsigned long long)seed, now_s() - t0,
         failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
