/*
 * t_amudp_backlog - a rank back from a compute phase longer than its
 * retransmission timeouts reads what waits on its socket before it resends
 * anything: acks riding on that data cover what it would resend.
 *
 * 3 ranks. Rank 0 sends a frame to ranks 1 and 2 and then computes (sleeps)
 * for COMPUTE_MS without polling, far past its RTO (GASNET_UDP_RTO_INIT_MS,
 * 5 ms, before any RTT sample). Ranks 1 and 2 each answer with a frame of
 * their own, which carries their ack of rank 0's (the ack rides on data:
 * rank 0's frame did not ask for a prompt one). Rank 0 then makes one poll,
 * as a client's GASNET_BLOCKUNTIL would: that poll's first read returns one
 * of the two answers, and both of rank 0's timers are due. Before the fix
 * in amudp_progress the timers then resent the frame whose ack was still
 * queued (udp_retransmitted 1 on rank 0, udp_dup_dropped 1 at its peer);
 * now the poll reads the rest of the queue first. Checked: nothing resent
 * by rank 0, no duplicate at ranks 1 and 2, every frame delivered once.
 */
#include "amudp_tjob.h"

#define COMPUTE_MS 100

static int g_got;

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                       void *payload, size_t paylen) {
  (void)ctx; (void)src; (void)hdr; (void)hdrlen; (void)payload; (void)paylen;
  g_got++;
}

static void setup(tjob_t *j, void *arg) {
  (void)arg;
  j->cfg.deliver = on_deliver;
}

static int body(tjob_t *j, void *arg) {
  (void)arg;
  char hdr[8] = "backlog";
  tjob_barrier(j);
  if (j->rank == 0) {
    for (uint32_t r = 1; r < j->n; r++)
      if (tt_send(&amudp_ops, j->t, r, hdr, sizeof hdr, NULL, 0, 0)) return 1;
    struct timespec ts = {0, COMPUTE_MS * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {} /* computing: no poll */
    amudp_ops.poll(j->t);                /* the first poll after it */
    double t0 = tjob_now();
    while (g_got < (int)j->n - 1 && tjob_now() < t0 + 10) tt_wait(&amudp_ops, j->t, 10);
  } else {
    double t0 = tjob_now();
    while (g_got < 1 && tjob_now() < t0 + 10) tt_wait(&amudp_ops, j->t, 10);
    if (tt_send(&amudp_ops, j->t, 0, hdr, sizeof hdr, NULL, 0, 0)) return 1;
  }
  tjob_barrier(j); /* everything acked meanwhile */
  int want = j->rank == 0 ? (int)j->n - 1 : 1;
  long long retx = tjob_stat(j->t, "udp_retransmitted"), dup = tjob_stat(j->t, "udp_dup_dropped");
  /* ranks 1 and 2 may well resend theirs: rank 0 acked nothing while it computed */
  int ok = g_got == want && (j->rank == 0 ? retx == 0 : dup == 0);
  printf("rank %u: frames delivered %d (expected %d), retransmitted %lld%s, duplicates dropped "
         "%lld%s: %s\n", j->rank, g_got, want, retx, j->rank == 0 ? " (expected 0)" : "", dup,
         j->rank == 0 ? "" : " (expected 0)", ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}

int main(void) {
  printf("t_amudp_backlog: 3 ranks; rank 0 computes %d ms past its RTO with acks on the way\n",
         COMPUTE_MS);
  double t0 = tjob_now();
  int rc = tjob_run(3, setup, body, NULL, NULL);
  printf("t_amudp_backlog: %s (%.1f s)\n",
         rc ? "FAILED" : "the backlog was read before anything was resent", tjob_now() - t0);
  return rc;
}
