/*
 * t_misuse.c - each misuse of the extended API is fatal with a message
 * naming the call (spec 3). Node 0 commits the misuse named by argv[1];
 * the other nodes wait in a barrier, from which node 0's exit ends them.
 *
 *   gasnetrun -n N tests/extended/t_misuse CASE
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <stdio.h>
#include <string.h>

#include "t_ext_util.h"

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  T_CHECK(gasnet_attach(NULL, 0, 16 * GASNET_PAGESIZE, 0));
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes(), peer = (me + 1) % n;
  gasnet_seginfo_t seg[64];
  T_CHECK(gasnet_getSegmentInfo(seg, (int)(n < 64 ? n : 64)));
  const char *c = argc > 1 ? argv[1] : "";
  char buf[64] = { 0 };
  char *end = (char *)seg[peer].addr + seg[peer].size;
  if (me == 0) {
    if (!strcmp(c, "put-outside")) gasnet_put(peer, end - 4, buf, 8);
    else if (!strcmp(c, "get-outside")) gasnet_get(buf, peer, (char *)seg[peer].addr - 1, 2);
    else if (!strcmp(c, "memset-nb-outside")) gasnet_wait_syncnb(gasnet_memset_nb(peer, end, 0, 1));
    else if (!strcmp(c, "put-nbi-bad-node")) gasnet_put_nbi(n, seg[0].addr, buf, 8);
    else if (!strcmp(c, "get-bad-node")) gasnet_get(buf, n + 5, seg[0].addr, 8);
    else if (!strcmp(c, "get-val-size")) (void)gasnet_get_val(peer, seg[peer].addr, 9);
    else if (!strcmp(c, "put-val-zero")) gasnet_put_val(peer, seg[peer].addr, 1, 0);
    else if (!strcmp(c, "get-nb-val-size")) (void)gasnet_get_nb_val(peer, seg[peer].addr, 0);
    else if (!strcmp(c, "notify-twice")) { gasnet_barrier_notify(1, 0); gasnet_barrier_notify(1, 0); }
    else if (!strcmp(c, "wait-no-notify")) (void)gasnet_barrier_wait(0, 0);
    else if (!strcmp(c, "try-no-notify")) (void)gasnet_barrier_try(0, 0);
    else if (!strcmp(c, "barrier-bad-flags")) gasnet_barrier_notify(0, 0x40);
    else if (!strcmp(c, "sync-twice")) {
      gasnet_handle_t h = gasnet_put_nb(peer, seg[peer].addr, buf, 8);
      gasnet_wait_syncnb(h);
      gasnet_wait_syncnb(h);
    } else if (!strcmp(c, "nbi-sync-in-region")) {
      gasnet_begin_nbi_accessregion();
      gasnet_wait_syncnbi_all();
    } else if (!strcmp(c, "nested-region")) {
      gasnet_begin_nbi_accessregion();
      gasnet_begin_nbi_accessregion();
    } else if (!strcmp(c, "end-no-region")) (void)gasnet_end_nbi_accessregion();
    else { fprintf(stderr, "t_misuse: unknown case '%s'\n", c); gasnet_exit(2); }
    fprintf(stderr, "t_misuse: case '%s' was not caught\n", c);
    gasnet_exit(0); /* exit 0 = the check failed */
  }
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  (void)gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_exit(0);
}
