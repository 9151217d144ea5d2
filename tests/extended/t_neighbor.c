/*
 * t_neighbor.c - a NAS-MG-like ghost exchange whose wait loops only "try"
 * (spec 3.3.3: try-synchronisation is "trying (polling)").
 *
 * Every iteration each node puts a block to its left and right neighbours'
 * ghost areas and waits for both puts (gasnet_wait_syncnb_all), then puts a
 * flag to each and spins until both neighbours' flags for this iteration
 * have arrived, calling only a try function in the loop: MODE picks which
 * (all: gasnet_try_syncnb_all, some: _some, one: gasnet_try_syncnb, nbi:
 * gasnet_try_syncnbi_all with the flags put by put_nbi). The handles it
 * tries are complete or GASNET_INVALID_HANDLE most of the time, so the loop
 * makes progress only if every try polls; otherwise a neighbour waits
 * forever for its put into this node.
 *
 * Buffers alternate by iteration parity: a neighbour can be one iteration
 * ahead (it needs this node's flag for iteration i to start i+1), never two.
 * Every ghost block is checked against the pattern its sender used.
 *
 *   t_neighbor MODE [ITERS [BYTES]]
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GASNET_SEQ 1
#include "gasnet.h"
#include "t_ext_util.h"

enum { FROM_LEFT = 0, FROM_RIGHT = 1 };

typedef struct {
  volatile uint64_t flag[2][2]; /* [parity][side]: the iteration whose ghosts arrived */
} t_flags_t;

static size_t g_bytes;
static char *ghost_of(void *segbase, int parity, int side) {
  return (char *)segbase + sizeof(t_flags_t) + ((size_t)parity * 2 + side) * g_bytes;
}

static uint32_t seed_of(gasnet_node_t sender, int side, uint64_t iter) {
  return (uint32_t)(sender * 1000003u + iter * 7919u + (unsigned)side);
}

/* Spin until both flags of this iteration are in, with the chosen try. */
static void t_wait_flags(const char *mode, t_flags_t *mine, uint64_t it, gasnet_handle_t *hf) {
  const int p = (int)(it & 1);
  while (mine->flag[p][FROM_LEFT] != it || mine->flag[p][FROM_RIGHT] != it) {
    if (!strcmp(mode, "all")) (void)gasnet_try_syncnb_all(hf, 2);
    else if (!strcmp(mode, "some")) (void)gasnet_try_syncnb_some(hf, 2);
    else if (!strcmp(mode, "one")) { if (gasnet_try_syncnb(hf[0]) == GASNET_OK) hf[0] = GASNET_INVALID_HANDLE; }
    else (void)gasnet_try_syncnbi_all();
  }
  /* The flags' own puts: complete them before their handles are reused. */
  if (strcmp(mode, "nbi")) gasnet_wait_syncnb_all(hf, 2);
  else gasnet_wait_syncnbi_all();
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  const char *mode = argc > 1 ? argv[1] : "all";
  int iters = argc > 2 ? atoi(argv[2]) : 200;
  g_bytes = argc > 3 ? (size_t)atol(argv[3]) : 4096;
  if (strcmp(mode, "all") && strcmp(mode, "some") && strcmp(mode, "one") && strcmp(mode, "nbi")) {
    fprintf(stderr, "t_neighbor: MODE is all, some, one or nbi, not '%s'\n", mode);
    gasnet_exit(2);
  }
  uintptr_t seg = (sizeof(t_flags_t) + 4 * g_bytes + GASNET_PAGESIZE - 1) &
                  ~(uintptr_t)(GASNET_PAGESIZE - 1);
  T_CHECK(gasnet_attach(NULL, 0, seg, 0));
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_node_t left = (me + n - 1) % n, right = (me + 1) % n;
  gasnet_seginfo_t *si = calloc(n, sizeof *si);
  T_CHECK(gasnet_getSegmentInfo(si, (int)n));
  t_flags_t *mine = si[me].addr;
  char *out = malloc(2 * g_bytes), *want = malloc(g_bytes);
  alarm(60); /* a hang ends the job with SIGALRM rather than the test's time limit */
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  T_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));

  uint64_t checked = 0, sum = 0;
  for (uint64_t it = 1; it <= (uint64_t)iters; it++) {
    const int p = (int)(it & 1);
    /* My block for the right neighbour arrives there "from left", and so on. */
    t_fill(out, g_bytes, seed_of(me, FROM_LEFT, it));
    t_fill(out + g_bytes, g_bytes, seed_of(me, FROM_RIGHT, it));
    gasnet_handle_t hd[2] = {
      gasnet_put_nb_bulk(right, ghost_of(si[right].addr, p, FROM_LEFT), out, g_bytes),
      gasnet_put_nb_bulk(left, ghost_of(si[left].addr, p, FROM_RIGHT), out + g_bytes, g_bytes),
    };
    gasnet_wait_syncnb_all(hd, 2);
    uint64_t v = it;
    t_flags_t *rf = si[right].addr, *lf = si[left].addr;
    gasnet_handle_t hf[2] = { GASNET_INVALID_HANDLE, GASNET_INVALID_HANDLE };
    if (!strcmp(mode, "nbi")) {
      gasnet_put_nbi(right, (void *)&rf->flag[p][FROM_LEFT], &v, sizeof v);
      gasnet_put_nbi(left, (void *)&lf->flag[p][FROM_RIGHT], &v, sizeof v);
    } else {
      hf[0] = gasnet_put_nb(right, (void *)&rf->flag[p][FROM_LEFT], &v, sizeof v);
      hf[1] = gasnet_put_nb(left, (void *)&lf->flag[p][FROM_RIGHT], &v, sizeof v);
    }
    t_wait_flags(mode, mine, it, hf);
    for (int side = 0; side < 2; side++) {
      gasnet_node_t sender = side == FROM_LEFT ? left : right;
      t_fill(want, g_bytes, seed_of(sender, side, it));
      T_EXPECT(!memcmp(ghost_of(mine, p, side), want, g_bytes),
               "iteration %llu: ghost from node %u (%s side) differs from its pattern",
               (unsigned long long)it, (unsigned)sender, side == FROM_LEFT ? "left" : "right");
      for (size_t i = 0; i < g_bytes; i++) sum += (unsigned char)want[i];
      checked++;
    }
  }
  alarm(0);
  printf("node %u: mode %s: %d iterations, %llu ghost blocks of %zu bytes verified "
         "(byte sum %llu)\n", (unsigned)me, mode, iters, (unsigned long long)checked, g_bytes,
         (unsigned long long)sum);
  fflush(stdout);
  gasnet_barrier_notify(1, 0);
  T_CHECK(gasnet_barrier_wait(1, 0));
  gasnet_exit(0);
}
