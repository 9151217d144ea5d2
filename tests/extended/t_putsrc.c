/*
 * t_putsrc.c - when the source of a put may change again, and that nothing
 * reads it after that. A put whose source stays unchanged until its sync
 * (blocking, bulk NB/NBI, GEX_EVENT_DEFER) may be sent from the source
 * itself instead of a copy (core/gasnetc_ext.h, extended-ref/gasnete_rma.c;
 * over UDP from 64 KiB on, until the target has acknowledged every
 * datagram); the others must be copied before their call returns.
 *
 *   gasnetrun -n N tests/extended/t_putsrc [MAXSIZE [BORROWS]]
 *
 * Node 0 puts into node 1's segment (the others only wait), at sizes around
 * the 64 KiB threshold, the 1 MiB chunk and the 4 MiB pipeline window up to
 * MAXSIZE (default 5 MiB + 3), in each shape:
 *   copied   gasnet_put_nb, gasnet_put_nbi, gex_RMA_PutNB with an lc event:
 *            the source is overwritten as soon as the call returns, before
 *            the sync (spec 1.8 3.3.2: the non-bulk source may be reused at
 *            once); the target must still get the original bytes;
 *   deferred gasnet_put, gasnet_put_bulk, gasnet_put_nb_bulk,
 *            gasnet_put_nbi_bulk, gex_RMA_PutBlocking, gex_RMA_PutNB and
 *            _PutNBI with GEX_EVENT_DEFER: the source is freed as soon as
 *            the sync returns (under valgrind a later read of it, say a
 *            retransmission, is an error).
 * Each target range is read back with gasnet_get and compared with a copy
 * of the original bytes. With BORROWS = 1 (the script passes it over UDP
 * with every peer over the network) node 0's udp_sends_borrowed counter
 * must not move for the copied shapes and must move for the deferred ones
 * of 64 KiB and more. Prints one summary line per node.
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <gasnetex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_ext_util.h"

#define KiB 1024u
#define MiB (1024u * 1024u)
#define BORROW_MIN (64u * KiB) /* amudp's AMUDP_BORROW_MIN */

static gasnet_seginfo_t *seg;
static gex_TM_t tm;
static int borrows;              /* check udp_sends_borrowed */
static unsigned long verified;

enum { COPIED, DEFERRED };
static const struct { const char *name; int kind; } shapes[] = {
  { "gasnet_put_nb", COPIED },          { "gasnet_put_nbi", COPIED },
  { "gex_RMA_PutNB, lc event", COPIED }, { "gasnet_put", DEFERRED },
  { "gasnet_put_bulk", DEFERRED },      { "gasnet_put_nb_bulk", DEFERRED },
  { "gasnet_put_nbi_bulk", DEFERRED },  { "gex_RMA_PutBlocking", DEFERRED },
  { "gex_RMA_PutNB, DEFER", DEFERRED }, { "gex_RMA_PutNBI, DEFER", DEFERRED },
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static uint64_t borrowed_now(void) {
  uint64_t v = 0;
  gasnetc_stat_get("udp_sends_borrowed", &v);
  return v;
}

/* Start shape s; for the copied shapes, overwrite src before the sync. */
static void put_shape(int s, void *dst, char *src, size_t len) {
  gasnet_handle_t h = GASNET_INVALID_HANDLE;
  gex_Event_t lc;
  switch (s) {
  case 0: h = gasnet_put_nb(1, dst, src, len); break;
  case 1: gasnet_put_nbi(1, dst, src, len); break;
  case 2:
    h = gex_RMA_PutNB(tm, 1, dst, src, len, &lc, 0);
    T_EXPECT(lc == GEX_EVENT_INVALID || gex_Event_Test(lc) == GASNET_OK,
             "gex_RMA_PutNB of %zu B: its lc event is not complete at return", len);
    break;
  case 3: gasnet_put(1, dst, src, len); return;
  case 4: gasnet_put_bulk(1, dst, src, len); return;
  case 5: h = gasnet_put_nb_bulk(1, dst, src, len); break;
  case 6: gasnet_put_nbi_bulk(1, dst, src, len); break;
  case 7: T_CHECK(gex_RMA_PutBlocking(tm, 1, dst, src, len, 0)); return;
  case 8: h = gex_RMA_PutNB(tm, 1, dst, src, len, GEX_EVENT_DEFER, 0); break;
  case 9: T_CHECK(gex_RMA_PutNBI(tm, 1, dst, src, len, GEX_EVENT_DEFER, 0)); break;
  }
  if (shapes[s].kind == COPIED) memset(src, 0xA5, len); /* reused at once */
  if (s == 1 || s == 6 || s == 9) gasnet_wait_syncnbi_puts();
  else gasnet_wait_syncnb(h);
}

static void one(int s, size_t len, uint32_t seed, char *want, char *got) {
  char *dst = (char *)seg[1].addr + 4096 + seed % 61; /* unaligned */
  char *src = malloc(len);
  T_EXPECT(src != NULL, "out of memory for %zu B", len);
  t_fill(src, len, seed);
  memcpy(want, src, len);
  uint64_t before = borrowed_now();
  put_shape(s, dst, src, len);
  free(src); /* the sync returned: nothing may read it any more */
  uint64_t n = borrowed_now() - before;
  if (borrows && shapes[s].kind == COPIED)
    T_EXPECT(n == 0, "%s of %zu B was sent from its source (%llu sends borrowed), which the "
             "caller may change as soon as the call returns", shapes[s].name, len,
             (unsigned long long)n);
  if (borrows && shapes[s].kind == DEFERRED && len >= BORROW_MIN)
    T_EXPECT(n > 0, "%s of %zu B was copied: it may be sent from its source", shapes[s].name,
             len);
  memset(got, 0, len);
  gasnet_get(got, 1, dst, len);
  T_EXPECT(memcmp(got, want, len) == 0, "%s of %zu B: the target holds other bytes",
           shapes[s].name, len);
  verified++;
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  size_t max = argc > 1 ? strtoul(argv[1], NULL, 0) : 5 * MiB + 3;
  borrows = argc > 2 && atoi(argv[2]);
  T_CHECK(gasnet_attach(NULL, 0, 8 * MiB, 0));
  T_EXPECT(gasnet_nodes() >= 2, "needs at least 2 nodes");
  T_EXPECT(max + 4096 + 64 <= 8 * MiB, "MAXSIZE %zu is larger than the test's segment", max);
  gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
  seg = malloc(gasnet_nodes() * sizeof *seg);
  T_CHECK(gasnet_getSegmentInfo(seg, gasnet_nodes()));
  if (gasnet_mynode() == 0) {
    const size_t sizes[] = { 1, BORROW_MIN - 1, BORROW_MIN, BORROW_MIN + 1, MiB - 3, MiB + 17,
                             3 * MiB + 5, 4 * MiB, 5 * MiB + 3 };
    char *want = malloc(max), *got = malloc(max);
    T_EXPECT(want && got, "out of memory for %zu B", max);
    uint32_t seed = 1;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && sizes[i] <= max; i++)
      for (int s = 0; s < (int)NSHAPES; s++) one(s, sizes[i], seed++, want, got);
    free(want);
    free(got);
  }
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  T_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
  printf("t_putsrc: node %u: %lu puts verified%s\n", (unsigned)gasnet_mynode(), verified,
         borrows && gasnet_mynode() == 0 ? ", sends borrowed exactly by the deferred shapes" : "");
  free(seg);
  gasnet_exit(0);
  return 0;
}
