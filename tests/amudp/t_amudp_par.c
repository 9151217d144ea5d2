/*
 * t_amudp_par - PAR build: 4 threads per rank send and poll at once.
 *
 * usage: t_amudp_par NRANKS FRAMES_PER_THREAD_PER_PEER
 *
 * Linked with libamudp-par (GASNETC_THREADS=1). In each rank, 4 threads each
 * send requests to every other rank (sizes 0..~200 KB, so some fragmented),
 * while all of them poll or wait; deliver() runs on whichever thread is
 * polling and replies from there. Every request and reply must arrive
 * exactly once with the right contents. Run it under ThreadSanitizer or
 * helgrind to check the locking (tests/amudp/t-par.sh).
 */
#include "amudp_tjob.h"

#include <pthread.h>

#define NTHREADS 4

typedef struct fhdr {
  uint32_t src, dst, thread, idx, is_reply, len;
} fhdr_t;

static uint32_t g_frames;
static tjob_t *g_job;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *g_seen;     /* [src][thread][idx] requests received */
static unsigned char *g_replied;  /* [dst][thread][idx] replies received */
static long g_req_in, g_rep_in, g_errors;

static size_t plan_len(uint32_t src, uint32_t dst, uint32_t th, uint32_t idx, uint32_t rep) {
  uint64_t x = ((uint64_t)src * 1000003 + dst) * 1000003 + th * 7919 + idx * 31 + rep;
  x ^= x >> 17; x *= 0x9e3779b97f4a7c15ULL; x ^= x >> 29;
  return x % 10 == 0 ? 70000 + x % 130000 : x % 300;
}

static void fill(unsigned char *p, size_t len, uint32_t salt) {
  for (size_t i = 0; i < len; i++) p[i] = (unsigned char)(i * 131 + salt);
}

static size_t idx3(uint32_t r, uint32_t th, uint32_t i) {
  return ((size_t)r * NTHREADS + th) * g_frames + i;
}

/* Frames over PLACE_MIN bytes land in a buffer of ours (cfg->place), which
 * deliver() frees: with fragments arriving on several threads at once, this
 * exercises the transport's one-place()-per-frame handshake. */
#define PLACE_MIN 60000
static long g_placed;

static void *on_place(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, size_t paylen) {
  (void)ctx; (void)src; (void)hdr; (void)hdrlen;
  if (paylen <= PLACE_MIN) return NULL;
  pthread_mutex_lock(&g_mu);
  g_placed++;
  pthread_mutex_unlock(&g_mu);
  return malloc(paylen);
}

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                       void *payload, size_t paylen) {
  (void)ctx;
  fhdr_t h;
  memcpy(&h, hdr, sizeof h);
  int bad = hdrlen != sizeof h || h.src != src || h.dst != g_job->rank || h.thread >= NTHREADS ||
            h.idx >= g_frames || paylen != plan_len(h.src, h.dst, h.thread, h.idx, h.is_reply);
  unsigned char *want = malloc(paylen + 1);
  fill(want, paylen, h.idx + h.is_reply);
  if (!bad && paylen && memcmp(want, payload, paylen)) bad = 1;
  free(want);
  pthread_mutex_lock(&g_mu);
  if (bad) {
    g_errors++;
  } else if (h.is_reply) {
    if (g_replied[idx3(src, h.thread, h.idx)]++) g_errors++;
    g_rep_in++;
  } else {
    if (g_seen[idx3(src, h.thread, h.idx)]++) g_errors++;
    g_req_in++;
  }
  pthread_mutex_unlock(&g_mu);
  if (bad) fprintf(stderr, "rank %u: bad frame from %u\n", g_job->rank, src);
  if (paylen > PLACE_MIN) free(payload); /* placed by on_place */
  if (!bad && !h.is_reply) { /* reply on this thread, inside deliver */
    fhdr_t r = {g_job->rank, src, h.thread, h.idx, 1, 0};
    size_t len = plan_len(r.src, r.dst, r.thread, r.idx, 1);
    unsigned char *buf = malloc(len + 1);
    fill(buf, len, h.idx + 1);
    r.len = (uint32_t)len;
    if (tt_send(&amudp_ops, g_job->t, src, &r, sizeof r, buf, len, GASNETC_SEND_REPLY)) {
      pthread_mutex_lock(&g_mu); g_errors++; pthread_mutex_unlock(&g_mu);
    }
    free(buf);
  }
}

static void setup(tjob_t *j, void *arg) {
  (void)arg;
  j->cfg.deliver = on_deliver;
  j->cfg.place = on_place;
}

static int done(void) {
  long want = (long)(g_job->n - 1) * NTHREADS * g_frames;
  pthread_mutex_lock(&g_mu);
  int d = g_req_in >= want && g_rep_in >= want;
  pthread_mutex_unlock(&g_mu);
  return d;
}

static void *thread_main(void *arg) {
  uint32_t th = (uint32_t)(uintptr_t)arg, me = g_job->rank, n = g_job->n;
  unsigned char *buf = malloc(300000);
  for (uint32_t i = 0; i < g_frames; i++) {
    for (uint32_t k = 1; k < n; k++) {
      uint32_t dst = (me + k) % n;
      fhdr_t h = {me, dst, th, i, 0, 0};
      size_t len = plan_len(me, dst, th, i, 0);
      fill(buf, len, i);
      h.len = (uint32_t)len;
      if (tt_send(&amudp_ops, g_job->t, dst, &h, sizeof h, buf, len, 0)) {
        pthread_mutex_lock(&g_mu); g_errors++; pthread_mutex_unlock(&g_mu);
      }
      if (th & 1) amudp_ops.poll(g_job->t);
    }
  }
  double end = tjob_now() + 60;
  while (!done() && tjob_now() < end) {
    if (th & 1) amudp_ops.poll(g_job->t);
    else tt_wait(&amudp_ops, g_job->t, 2);
  }
  free(buf);
  return NULL;
}

static int body(tjob_t *j, void *arg) {
  (void)arg;
  g_job = j;
  g_seen = calloc((size_t)j->n * NTHREADS * g_frames, 1);
  g_replied = calloc((size_t)j->n * NTHREADS * g_frames, 1);
  pthread_t th[NTHREADS];
  double t0 = tjob_now();
  for (uintptr_t i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, thread_main, (void *)i);
  for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
  long want = (long)(j->n - 1) * NTHREADS * g_frames;
  tjob_barrier(j);
  printf("rank %u: %d threads, received %ld/%ld requests and %ld/%ld replies in %.2f s "
         "(%ld placed), each checked exactly once with content: %ld errors; retransmitted %lld\n",
         j->rank, NTHREADS, g_req_in, want, g_rep_in, want, tjob_now() - t0, g_placed, g_errors,
         tjob_stat(j->t, "udp_retransmitted"));
  int ok = g_req_in == want && g_rep_in == want && g_errors == 0;
  free(g_seen); free(g_replied);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 2;
  g_frames = argc > 2 ? (uint32_t)atoi(argv[2]) : 200;
  printf("t_amudp_par: %u ranks x %d threads, %u requests per thread per peer\n", n, NTHREADS, g_frames);
  int rc = tjob_run(n, setup, body, NULL, NULL);
  printf("t_amudp_par: %s\n", rc ? "FAILED" : "all requests and replies exactly once");
  return rc;
}
