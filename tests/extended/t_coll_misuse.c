/*
 * t_coll_misuse.c - each misuse of GASNet-1's gasnet_coll.h is fatal with a
 * message naming the call (gasnete_coll_g1.c). Node 0 commits the misuse
 * named by argv[1]; the other nodes wait in a barrier, from which node 0's
 * exit ends them.
 *
 *   gasnetrun -n N tests/extended/t_coll_misuse CASE
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <gasnet_coll.h>
#include <stdio.h>
#include <string.h>

#include "t_ext_util.h"

static void add_fn(void *results, size_t result_count, const void *left, size_t left_count,
                   const void *right, size_t elem_size, int flags, int arg) {
  (void)results; (void)result_count; (void)left; (void)left_count; (void)right;
  (void)elem_size; (void)flags; (void)arg;
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  T_CHECK(gasnet_attach(NULL, 0, 16 * GASNET_PAGESIZE, 0));
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  const char *c = argc > 1 ? argv[1] : "";
  char src[64] = { 0 }, dst[64 * 8];
  const int ok = GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL;
  gasnet_coll_fn_entry_t fns[1] = { { add_fn, 0 } };
  gasnet_image_t image = 0;
  struct { int junk[8]; } garbage = { { 0x7eadbeef } };
  if (me == 0) {
    if (!strcmp(c, "init-twice")) {
      gasnet_coll_init(NULL, 0, fns, 1, 0);
      gasnet_coll_init(NULL, 0, fns, 1, 0);
    } else if (!strcmp(c, "images")) gasnet_coll_init(&image, 0, fns, 1, 0);
    else {
      gasnet_coll_init(NULL, 0, fns, 1, 0);
      if (!strcmp(c, "two-in"))
        gasnet_coll_gather_all(GASNET_TEAM_ALL, dst, src, 8,
                               GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_ALLSYNC |
                                   GASNET_COLL_OUT_NOSYNC);
      else if (!strcmp(c, "no-out"))
        (void)gasnet_coll_exchange_nb(GASNET_TEAM_ALL, dst, src, 8, GASNET_COLL_IN_NOSYNC);
      else if (!strcmp(c, "single-local"))
        gasnet_coll_scatter(GASNET_TEAM_ALL, dst, 0, src, 8,
                            ok | GASNET_COLL_SINGLE | GASNET_COLL_LOCAL);
      else if (!strcmp(c, "root-range"))
        gasnet_coll_broadcast(GASNET_TEAM_ALL, dst, n, src, 8, ok);
      else if (!strcmp(c, "gather-root-range"))
        (void)gasnet_coll_gatherM_nb(GASNET_TEAM_ALL, n + 3, dst, (void *const[]){ src }, 8, ok);
      else if (!strcmp(c, "reduce-func"))
        gasnet_coll_reduce(GASNET_TEAM_ALL, 0, dst, src, 0, 0, 4, 2, 1, 0, ok);
      else if (!strcmp(c, "reduce-func-nb"))
        (void)gasnet_coll_reduceM_nb(GASNET_TEAM_ALL, 0, dst, (void *const[]){ src }, 0, 0, 4, 2,
                                     7, 0, ok);
      else if (!strcmp(c, "team-null")) gasnet_coll_broadcast(NULL, dst, 0, src, 8, ok);
      else if (!strcmp(c, "team-garbage"))
        gasnet_coll_broadcast((gasnet_team_handle_t)(void *)&garbage, dst, 0, src, 8, ok);
      else if (!strcmp(c, "barrier-team-garbage"))
        (void)gasnet_coll_barrier((gasnet_team_handle_t)(void *)&garbage, 0, 0);
      else if (!strcmp(c, "rank2node-range"))
        (void)gasnet_coll_team_rank2node(GASNET_TEAM_ALL, n);
      else { fprintf(stderr, "t_coll_misuse: unknown case '%s'\n", c); gasnet_exit(2); }
    }
    fprintf(stderr, "t_coll_misuse: case '%s' was not caught\n", c);
    gasnet_exit(0); /* exit 0 = the check failed */
  }
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  (void)gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_exit(0);
  return 0;
}
