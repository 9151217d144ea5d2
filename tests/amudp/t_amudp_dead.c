/*
 * t_amudp_dead - a rank that stops answering (SIGSTOP) is declared dead by
 * the others after GASNET_UDP_TIMEOUT, naming it, whether or not they have
 * data pending for it.
 *
 * 3 ranks exchange frames, then enter a barrier; before releasing it the
 * parent SIGSTOPs rank 2. Rank 0 then just waits (like a rank blocked in a
 * barrier on rank 2, owing it nothing); rank 1 first sends rank 2 a frame
 * that can never be acknowledged. Both must get peer_dead(2, "...") naming
 * it, must not declare each other dead, and a later send to rank 2 must fail
 * with -EPIPE. Durations are checked loosely: not before half the timeout
 * (rank 2 may have fallen silent a little before the clock starts here, when
 * the barrier's release is slow), and within 10 timeouts, which only a hang
 * exceeds. tests/bench/death.sh measures the delay itself.
 *
 * With T_DEAD_KILL=1 rank 2 gets SIGKILL instead: its sockets close, and
 * what rank 1 sends it draws ICMP port-unreachable errors, which rank 1's
 * peer socket for rank 2 reports at the following send (docs/transport-udp.md,
 * "Peer sockets"): that send is made again (udp_send_refused > 0 on rank 1)
 * and the rank is declared dead all the same.
 */
#include "amudp_tjob.h"

static int g_got, g_dead_rank = -1, g_dead_calls;
static char g_why[128];
static double g_dead_at;
static tjob_t *g_job;

/* How many timeouts may pass before the wait for peer_dead counts as hung. */
#define HANG_TIMEOUTS 10

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen,
                       void *payload, size_t paylen) {
  (void)ctx; (void)src; (void)hdr; (void)hdrlen; (void)payload; (void)paylen;
  g_got++;
}

static void on_dead(void *ctx, uint32_t rank, const char *why) {
  (void)ctx;
  g_dead_calls++;
  if (g_dead_rank < 0) {
    g_dead_rank = (int)rank;
    snprintf(g_why, sizeof g_why, "%s", why ? why : "(null)");
    g_dead_at = tjob_now();
  }
}

static void setup(tjob_t *j, void *arg) {
  (void)arg;
  j->cfg.deliver = on_deliver;
  j->cfg.peer_dead = on_dead;
}

static int g_kill; /* T_DEAD_KILL: SIGKILL, not SIGSTOP */

static void stop_rank2(int round, const pid_t *pids, uint32_t n) {
  (void)n;
  if (round == 0) {
    kill(pids[2], g_kill ? SIGKILL : SIGSTOP);
    printf("parent: %s rank 2 (pid %d)\n", g_kill ? "SIGKILLed" : "SIGSTOPped", (int)pids[2]);
    fflush(stdout);
  }
}

static int body(tjob_t *j, void *arg) {
  (void)arg;
  g_job = j;
  double timeout = atof(getenv("GASNET_UDP_TIMEOUT"));
  char hdr[8] = "hello";
  for (uint32_t r = 0; r < j->n; r++)
    if (r != j->rank && tt_send(&amudp_ops, j->t, r, hdr, sizeof hdr, NULL, 0, 0)) return 1;
  while (g_got < (int)j->n - 1) tt_wait(&amudp_ops, j->t, 10);
  tjob_barrier(j); /* rank 2 is stopped inside this barrier */
  double t0 = tjob_now();
  if (j->rank == 1)
    tt_send(&amudp_ops, j->t, 2, hdr, sizeof hdr, "never acked", 11, 0);
  double bound = HANG_TIMEOUTS * timeout;
  while (g_dead_rank < 0 && tjob_now() < t0 + bound) tt_wait(&amudp_ops, j->t, 100);
  double el = g_dead_rank >= 0 ? g_dead_at - t0 : -1;
  /* a little longer: nobody else may be declared dead */
  double t1 = tjob_now();
  while (tjob_now() < t1 + 0.5) tt_wait(&amudp_ops, j->t, 50);
  int rc = tt_send(&amudp_ops, j->t, 2, hdr, sizeof hdr, NULL, 0, 0);
  long long refused = tjob_stat(j->t, "udp_send_refused");
  int ok = g_dead_rank == 2 && g_dead_calls == 1 && el >= timeout / 2 && el <= bound &&
           strstr(g_why, "no answer") && rc == -EPIPE && (!g_kill || j->rank != 1 || refused > 0);
  printf("rank %u (%s): peer_dead(rank %d, \"%s\") after %.2f s (expected rank 2, not before "
         "%.1f s; did not hang: within %.0f s, expected about %.1f s), %d call(s) (expected 1); "
         "send to rank 2 then returns %d (expected %d): %s\n",
         j->rank, j->rank == 1 ? "with unacked data for rank 2" : "idle, only waiting",
         g_dead_rank, g_why, el, timeout / 2, bound, timeout, g_dead_calls, rc, -EPIPE,
         ok ? "ok" : "MISMATCH");
  printf("rank %u: pings sent %lld, retransmitted %lld, peers_dead %lld, send_refused %lld%s\n",
         j->rank, tjob_stat(j->t, "udp_pings_sent"), tjob_stat(j->t, "udp_retransmitted"),
         tjob_stat(j->t, "udp_peers_dead"), refused,
         g_kill && j->rank == 1 ? " (expected > 0: ICMP errors reported by the peer socket)" : "");
  return ok ? 0 : 1;
}

int main(void) {
  if (!getenv("GASNET_UDP_TIMEOUT")) setenv("GASNET_UDP_TIMEOUT", "2", 1);
  g_kill = getenv("T_DEAD_KILL") && atoi(getenv("T_DEAD_KILL"));
  printf("t_amudp_dead: 3 ranks, GASNET_UDP_TIMEOUT=%s, rank 2 gets %s\n",
         getenv("GASNET_UDP_TIMEOUT"), g_kill ? "SIGKILL" : "SIGSTOP");
  tjob_on_barrier = stop_rank2;
  tjob_victim = 2;
  double t0 = tjob_now();
  int rc = tjob_run(3, setup, body, NULL, NULL);
  printf("t_amudp_dead: %s (%.1f s)\n", rc ? "FAILED" : g_kill ? "killed rank detected as dead by both others"
                                                 : "stopped rank detected as dead by both others",
         tjob_now() - t0);
  return rc;
}
