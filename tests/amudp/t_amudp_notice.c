/*
 * t_amudp_notice - notices (core/transport.h, amudp_wire.h NOTE): sent
 * once, delivered at most once per datagram, never corrupted, and their
 * piggybacked acks are acks like any other.
 *
 * 2 ranks. Rank 0 sends rank 1 NOTICES notices, each naming its number i in
 * every word (a pattern rank 1 checks word by word), with a frame after
 * every FRAME_EVERY-th; rank 1 answers each frame with a frame of its own
 * and sends rank 0 one notice per frame it gets. Under the fault injection
 * t-notice.sh sets (GASNET_UDP_DROP, _DUP, _REORDER), checked:
 *   - every notice rank 1 gets is one rank 0 sent, whole (the MAC covers
 *     the words), of the kind sent; copies come only from injected
 *     duplication (at most sent + udp duplicates);
 *   - with no loss injected, every notice arrives; with loss, some do not,
 *     and none is retransmitted (udp_retransmitted counts frames only);
 *   - every frame is delivered exactly once both ways (notices carry acks
 *     and do not disturb the reliable traffic);
 *   - a notice to a bad rank is -EINVAL.
 */
#include "amudp_tjob.h"

#define NOTICES 4000
#define FRAME_EVERY 40
#define KIND 7

static uint32_t g_me;
static int g_frames, g_bad, g_notices, g_copies;
static unsigned char g_seen[NOTICES];

/* Word k of notice i; word 0 is i times an odd constant, so i = w[0] * its inverse. */
static uint32_t word(uint32_t i, int k) { return i * 2654435761u + (uint32_t)k * 0x9e3779b9u; }
#define WORD0_INVERSE 244002641u /* 2654435761 * 244002641 = 1 mod 2^32 */

static gasnetc_notice_t notice(uint32_t i) {
  gasnetc_notice_t n = {.kind = KIND};
  for (int k = 0; k < GASNETC_NOTICE_WORDS; k++) n.w[k] = word(i, k);
  return n;
}

static void on_notice(void *ctx, uint32_t src, const gasnetc_notice_t *n) {
  (void)ctx;
  uint32_t i = n->w[0] * WORD0_INVERSE;
  int ok = n->kind == KIND && i < NOTICES && src == 1 - g_me;
  for (int k = 0; ok && k < GASNETC_NOTICE_WORDS; k++) ok = n->w[k] == word(i, k);
  if (!ok) g_bad++;
  else if (g_seen[i]++) g_copies++;
  else g_notices++;
}

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                       void *payload, size_t paylen) {
  (void)ctx; (void)src; (void)hdr; (void)hdrlen; (void)payload; (void)paylen;
  g_frames++;
}

static void setup(tjob_t *j, void *arg) {
  (void)arg;
  g_me = j->rank;
  j->cfg.deliver = on_deliver;
  j->cfg.notice = on_notice;
}

/* Rank 0: the notices, a frame after every FRAME_EVERY-th; then two bad ranks. */
static int sender(tjob_t *j) {
  char hdr[8] = "notice";
  for (uint32_t i = 0; i < NOTICES; i++) {
    gasnetc_notice_t n = notice(i);
    if (amudp_ops.notice(j->t, 1, &n) != 0) return 1;
    if (i % FRAME_EVERY == FRAME_EVERY - 1 &&
        tt_send(&amudp_ops, j->t, 1, hdr, sizeof hdr, NULL, 0, 0))
      return 1;
    amudp_ops.poll(j->t);
  }
  gasnetc_notice_t n = notice(0);
  return amudp_ops.notice(j->t, 2, &n) == -EINVAL && amudp_ops.notice(j->t, 0, &n) == -EINVAL
             ? 0
             : 1;
}

/* Rank 1: a frame and a notice back for every frame. Both: wait for the frames. */
static int answer_frames(tjob_t *j, int frames) {
  char hdr[8] = "answer";
  int answered = 0;
  double t0 = tjob_now();
  while (g_frames < frames && tjob_now() < t0 + 20) {
    tt_wait(&amudp_ops, j->t, 10);
    for (; j->rank == 1 && answered < g_frames; answered++) {
      gasnetc_notice_t n = notice((uint32_t)answered);
      if (tt_send(&amudp_ops, j->t, 0, hdr, sizeof hdr, NULL, 0, 0) ||
          amudp_ops.notice(j->t, 0, &n) != 0)
        return 1;
    }
  }
  return 0;
}

static double env_prob(const char *name) {
  const char *v = getenv(name);
  return v ? atof(v) : 0;
}

static int body(tjob_t *j, void *arg) {
  (void)arg;
  int frames = NOTICES / FRAME_EVERY, sent_want = j->rank == 0 ? NOTICES : frames;
  tjob_barrier(j);
  if ((j->rank == 0 && sender(j)) || answer_frames(j, frames)) return 1;
  tjob_barrier(j); /* the last notices in, everything acked meanwhile */
  for (int k = 0; k < 20; k++) amudp_ops.poll(j->t);
  long long sent = tjob_stat(j->t, "udp_notices_sent");
  int expect = j->rank == 0 ? frames : NOTICES; /* notices this rank should get */
  double drop = env_prob("GASNET_UDP_DROP"), dup = env_prob("GASNET_UDP_DUP");
  int ok = g_frames == frames && sent == sent_want && g_bad == 0 &&
           (dup > 0 || g_copies == 0) &&
           (drop > 0 ? g_notices >= expect / 2 && (drop < 0.05 || g_notices < expect)
                     : g_notices == expect);
  printf("rank %u: frames %d of %d; notices sent %lld, got %d of %d (%d copies, %d bad): %s\n",
         j->rank, g_frames, frames, sent, g_notices, expect, g_copies, g_bad,
         ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}

int main(void) {
  printf("t_amudp_notice: 2 ranks; %d notices with a frame every %d\n", NOTICES, FRAME_EVERY);
  double t0 = tjob_now();
  int rc = tjob_run(2, setup, body, NULL, NULL);
  printf("t_amudp_notice: %s (%.1f s)\n", rc ? "FAILED" : "ok", tjob_now() - t0);
  return rc;
}
