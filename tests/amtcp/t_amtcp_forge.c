/*
 * t_amtcp_forge.c - amtcp alone (through amtcp_ops, no core, no launcher)
 * facing bytes that are not from its job. Forks 2 ranks that share a random
 * job key; the parent passes address blobs between them.
 *
 *   stranger   before the ranks connect, the parent connects to rank 1's
 *              listener and sends a HELLO with the right ranks but a wrong
 *              MAC: rank 1 logs "refused a connection ... bad MAC", the
 *              mesh is still built, and a frame then goes 0 -> 1.
 *   badframe   rank 0 sends one good frame, then writes a frame header with
 *              paylen 0xffffffff on its connection: rank 1 delivers the good
 *              frame, logs the malformed one, closes the connection and
 *              reports peer_dead(0, "sent a malformed frame"); rank 0 sees
 *              the connection end and reports peer_dead(1, ...). Nobody crashes.
 *   noshow     rank 1 never calls connect (its kernel still completes TCP
 *              handshakes, but nobody answers HELLO): with
 *              GASNET_TCP_CONNECT_TIMEOUT=1 and GASNET_TCP_CONNECT=eager
 *              rank 0's connect fails after about 1 s with a message naming
 *              rank 1; connecting on first use (lazy), rank 0's connect
 *              succeeds, and a frame sent to rank 1 ends, with
 *              GASNET_TCP_TIMEOUT=1 (no liveness service here: silence is
 *              death), in peer_dead(1, "no answer for 1 s: dead or stopped").
 *   unreach    rank 1 closes its endpoint (its listener) at once: a frame
 *              rank 0 sends it ends in peer_dead(1, "unreachable:
 *              connection refused") after GASNET_TCP_CONNECT_TIMEOUT.
 * Each rank prints what it expected and got; exit 0 when all matched.
 */
#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "amtcp_internal.h" /* to write raw bytes on a connection's fd */
#include "t_transport.h"

extern const gasnetc_transport_ops_t amtcp_ops;

static uint32_t myrank;
static int delivered, dead_rank = -1;
static char dead_why[128];

static void on_deliver(void *ctx, uint32_t src, const void *hdr, size_t hdrlen, void *payload,
                       size_t paylen) {
  (void)ctx; (void)payload;
  printf("rank %u: delivered a frame from rank %u: header \"%.*s\", %zu payload bytes\n", myrank,
         src, (int)hdrlen, (const char *)hdr, paylen);
  delivered++;
}
static void on_dead(void *ctx, uint32_t rank, const char *why) {
  (void)ctx;
  dead_rank = (int)rank;
  snprintf(dead_why, sizeof dead_why, "%s", why);
}

static int full_io(int fd, void *b, size_t n, int wr) {
  char *p = b;
  while (n) {
    ssize_t k = wr ? write(fd, p, n) : read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Rank 0, connected lazily: a frame for rank 1, which cannot be reached
 * or does not answer, ends in peer_dead(1, want) after about 1 s. */
static int unreachable(gasnetc_transport_t *t, int connect_rc, const char *want) {
  double t0 = now_s();
  int rc = connect_rc ? connect_rc : tt_send(&amtcp_ops, t, 1, "lost", 4, "payload", 7, 0);
  while (rc == 0 && dead_rank < 0 && now_s() < t0 + 10) tt_wait(&amtcp_ops, t, 10);
  printf("rank 0: expected connect and send 0, then peer_dead(1, \"%s\") after about 1 s; "
         "got %d, peer_dead(%d, \"%s\") after %.1f s\n", want, rc, dead_rank, dead_why, now_s() - t0);
  fflush(stdout);
  amtcp_ops.close(t);
  return rc == 0 && dead_rank == 1 && !strcmp(dead_why, want) ? 0 : 1;
}

static int rank_main(const char *mode, uint32_t r, const unsigned char *key, int up, int down) {
  myrank = r;
  gasnetc_transport_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.myrank = r;
  cfg.nranks = 2;
  memcpy(cfg.job_key, key, GASNETC_KEY_LEN);
  cfg.bind_addr.ss_family = AF_UNSPEC;
  cfg.deliver = on_deliver;
  cfg.peer_dead = on_dead;
  cfg.watch = tt_watch_cb;
  gasnetc_transport_t *t;
  if (amtcp_ops.open(&t, &cfg) != 0) return 10;
  unsigned char blobs[2][GASNETC_ADDR_MAX];
  size_t len = GASNETC_ADDR_MAX;
  memset(blobs, 0, sizeof blobs);
  amtcp_ops.address(t, blobs[r], &len);
  if (full_io(up, blobs[r], GASNETC_ADDR_MAX, 1) || full_io(down, blobs, sizeof blobs, 0)) return 11;
  double end = now_s() + 10;
  if (!strcmp(mode, "noshow")) {
    if (r == 1) { /* present but mute, until rank 0 has given up */
      usleep(3000000);
      amtcp_ops.close(t);
      return 0;
    }
    double t0 = now_s();
    int rc = amtcp_ops.connect(t, blobs, GASNETC_ADDR_MAX, tt_serves_all());
    const char *cm = getenv("GASNET_TCP_CONNECT");
    if (cm && !strcmp(cm, "eager")) {
      printf("rank 0: expected connect to fail with -ETIMEDOUT (%d) after about 1 s; got %d after %.1f s\n",
             -ETIMEDOUT, rc, now_s() - t0);
      amtcp_ops.close(t);
      return rc == -ETIMEDOUT ? 0 : 1;
    }
    return unreachable(t, rc, "no answer for 1 s: dead or stopped"); /* GASNET_TCP_TIMEOUT=1 */
  }
  if (!strcmp(mode, "unreach")) {
    if (r == 1) { /* gone before rank 0 sends */
      amtcp_ops.close(t);
      return 0;
    }
    usleep(200000);
    return unreachable(t, amtcp_ops.connect(t, blobs, GASNETC_ADDR_MAX, tt_serves_all()),
                       "unreachable: connection refused");
  }
  if (amtcp_ops.connect(t, blobs, GASNETC_ADDR_MAX, tt_serves_all()) != 0) return 12;
  int ok = 1;
  if (r == 0) {
    if (tt_send(&amtcp_ops, t, 1, "good", 4, "payload", 7, 0) != 0) return 13;
    if (!strcmp(mode, "badframe")) {
      unsigned char h[AMTCP_FRAME_HDR];
      amtcp_frame_t f = {.type = AMTCP_T_DATA, .hdrlen = 8, .paylen = 0xffffffffu};
      amtcp_wire_frame_encode(h, &f);
      /* let the good frame leave first (on the connection made for it) */
      for (int i = 0; i < 5000 && (t->conns[1].state != AMTCP_CONN_UP || t->conns[1].q_head); i++)
        tt_wait(&amtcp_ops, t, 1);
      if (full_io(t->conns[1].fd, h, sizeof h, 1)) return 14;
      while (dead_rank < 0 && now_s() < end) tt_wait(&amtcp_ops, t, 10);
      printf("rank 0: expected peer_dead(1, ...) once rank 1 closes; got peer_dead(%d, \"%s\")\n",
             dead_rank, dead_why);
      ok = dead_rank == 1;
    } else {
      while (now_s() < end - 9) tt_wait(&amtcp_ops, t, 10); /* serve a second */
    }
  } else {
    if (!strcmp(mode, "badframe")) {
      while (dead_rank < 0 && now_s() < end) tt_wait(&amtcp_ops, t, 10);
      printf("rank 1: expected 1 frame delivered and peer_dead(0, \"sent a malformed frame\"); "
             "got %d and peer_dead(%d, \"%s\")\n", delivered, dead_rank, dead_why);
      ok = delivered == 1 && dead_rank == 0 && !strcmp(dead_why, "sent a malformed frame");
    } else {
      while (!delivered && now_s() < end) tt_wait(&amtcp_ops, t, 10);
      printf("rank 1: expected the frame from rank 0 after the stranger was refused; got %d\n",
             delivered);
      ok = delivered == 1 && dead_rank < 0;
    }
  }
  FILE *st = stdout;
  amtcp_ops.stats(t, st);
  fflush(stdout);
  amtcp_ops.close(t);
  return ok ? 0 : 1;
}

/* The stranger: a HELLO from "rank 0" to rank 1 with a MAC of zeros. */
static void stranger(const unsigned char *blob) {
  struct sockaddr_in a = {.sin_family = AF_INET};
  memcpy(&a.sin_port, blob + 2, 2);
  memcpy(&a.sin_addr, blob + 4, 4);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    perror("stranger: connect");
    return;
  }
  unsigned char rec[AMTCP_SHAKE_LEN], mac[AMTCP_MAC_LEN] = {0};
  amtcp_wire_shake_encode(rec, AMTCP_T_HELLO, 0, 1, mac);
  full_io(fd, rec, sizeof rec, 1);
  printf("stranger: sent a HELLO with a zero MAC to rank 1 at port %u\n", ntohs(a.sin_port));
  fflush(stdout);
  usleep(100000);
  close(fd);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "badframe";
  unsigned char key[GASNETC_KEY_LEN];
  if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key) return 2;
  int up[2][2], down[2][2];
  pid_t pid[2];
  for (int r = 0; r < 2; r++) {
    if (pipe(up[r]) || pipe(down[r])) return 2;
    if ((pid[r] = fork()) == 0) {
      close(up[r][0]);
      close(down[r][1]);
      _exit(rank_main(mode, (uint32_t)r, key, up[r][1], down[r][0]));
    }
    close(up[r][1]);
    close(down[r][0]);
  }
  unsigned char blobs[2][GASNETC_ADDR_MAX];
  for (int r = 0; r < 2; r++)
    if (full_io(up[r][0], blobs[r], GASNETC_ADDR_MAX, 0)) return 3;
  if (!strcmp(mode, "stranger")) stranger(blobs[1]);
  for (int r = 0; r < 2; r++)
    if (full_io(down[r][1], blobs, sizeof blobs, 1)) return 3;
  int fails = 0;
  for (int r = 0; r < 2; r++) {
    int st;
    waitpid(pid[r], &st, 0);
    printf("rank %d: %s %d\n", r, WIFEXITED(st) ? "exit" : "signal",
           WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    fails += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  printf("%s: %s\n", mode, fails ? "FAILED" : "passed");
  return fails ? 1 : 0;
}
