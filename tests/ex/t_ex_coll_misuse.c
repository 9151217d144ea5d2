/*
 * t_ex_coll_misuse.c CASE - one misuse of the teams or collectives per
 * run: the job must end with a message naming the call and the problem,
 * and a non-zero code (t-ex-coll.sh greps for each). Every rank makes what
 * is collective (attach, a split team for "destroyed"); node 0 then
 * misbehaves, the others poll until the job is torn down. "none" must pass.
 * "before-attach" is a GASNet-1 client that calls a collective between
 * gasnet_init and gasnet_attach.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "gasnet_coll.h"
#include "../lib/t_check.h"

#define H_DONE 200

static volatile int done;
static void h_done(gex_Token_t t) { (void)t; done = 1; }

static void user_fn(const void *a, void *b, size_t count, const void *cdata) {
  (void)a; (void)b; (void)count; (void)cdata;
}

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "none";
  uint64_t src = 1, dst = 0;
  if (!strcmp(c, "before-attach")) {
    T_CHECK(gasnet_init(&argc, &argv));
    gex_TM_t tm;
    gasnet_QueryGexObjects(NULL, NULL, &tm, NULL);
    if (gasnet_mynode() == 0) gex_Event_Wait(gex_Coll_BroadcastNB(tm, 0, &dst, &src, 8, 0));
    printf("node %u: misuse case %s: no error\n", (unsigned)gasnet_mynode(), c);
    gasnet_exit(0);
  }
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_COLL_MISUSE", &argc, &argv, 0));
  gex_Rank_t me = gex_System_QueryJobRank(), n = gex_System_QueryJobSize();
  gex_AM_Entry_t table[] = {
    {H_DONE, (gex_AM_Fn_t)h_done, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "done"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, table, 1));
  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, 1 << 16));
  gex_TM_t dead = GEX_TM_INVALID;
  if (!strcmp(c, "destroyed")) { /* collective: every rank makes and destroys it */
    gex_TM_Split(&dead, tm, 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_TM_Destroy(dead, NULL, 0);
  }
  gex_TM_t live = GEX_TM_INVALID;
  if (!strcmp(c, "destroy-in-flight")) gex_TM_Split(&live, tm, 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  if (!strcmp(c, "none")) { /* the correct calls, on every rank */
    gex_Event_Wait(gex_Coll_BroadcastNB(tm, 0, &dst, &src, 8, 0));
    gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &dst, &src, GEX_DT_U64, 8, 1, GEX_OP_USER, user_fn,
                                          NULL, 0));
  }
  if (me != 0) { /* serve until node 0 is done, or the job is torn down */
    GASNET_BLOCKUNTIL(done);
    gasnet_exit(0);
  }
  printf("node 0: misuse case %s\n", c);
  fflush(stdout);
  gex_TM_t t;
  gex_EP_Location_t loc = { 0, 1 };
  static char heap[4096];
  if (!strcmp(c, "bcast-root")) gex_Coll_BroadcastNB(tm, n, &dst, &src, 8, 0);
  if (!strcmp(c, "reduce-root"))
    gex_Coll_ReduceToOneNB(tm, n + 3, &dst, &src, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
  if (!strcmp(c, "pair-team")) gex_Coll_BroadcastNB(gex_TM_Pair(ep, 0), 0, &dst, &src, 8, 0);
  if (!strcmp(c, "invalid-team"))
    gex_Coll_ReduceToAllNB(GEX_TM_INVALID, &dst, &src, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
  if (!strcmp(c, "bcast-flags")) gex_Coll_BroadcastNB(tm, 0, &dst, &src, 8, 1);
  if (!strcmp(c, "reduce-flags"))
    gex_Coll_ReduceToAllNB(tm, &dst, &src, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL,
                           GEX_FLAG_IMMEDIATE);
  if (!strcmp(c, "barrier-flags")) gex_Coll_BarrierNB(tm, 4);
  if (!strcmp(c, "user-dt-builtin-op"))
    gex_Coll_ReduceToAllNB(tm, &dst, &src, GEX_DT_USER, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
  if (!strcmp(c, "and-on-flt"))
    gex_Coll_ReduceToAllNB(tm, &dst, &src, GEX_DT_FLT, 4, 1, GEX_OP_AND, NULL, NULL, 0);
  if (!strcmp(c, "not-a-reduction"))
    gex_Coll_ReduceToAllNB(tm, &dst, &src, GEX_DT_I64, 8, 1, GEX_OP_FADD, NULL, NULL, 0);
  if (!strcmp(c, "two-dts"))
    gex_Coll_ReduceToAllNB(tm, &dst, &src, GEX_DT_I64 | GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
  if (!strcmp(c, "dt-sz"))
    gex_Coll_ReduceToAllNB(tm, &dst, &src, GEX_DT_I64, 4, 1, GEX_OP_ADD, NULL, NULL, 0);
  if (!strcmp(c, "dt-cnt-0"))
    gex_Coll_ReduceToOneNB(tm, 0, &dst, &src, GEX_DT_I64, 8, 0, GEX_OP_ADD, NULL, NULL, 0);
  if (!strcmp(c, "user-op-null"))
    gex_Coll_ReduceToAllNB(tm, &dst, &src, GEX_DT_USER, 8, 1, GEX_OP_USER, NULL, NULL, 0);
  if (!strcmp(c, "destroy-primordial")) gex_TM_Destroy(tm, NULL, 0);
  if (!strcmp(c, "split-negative-color"))
    gex_TM_Split(&t, tm, -1, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  if (!strcmp(c, "create-ep-index"))
    gex_TM_Create(&t, 1, tm, &loc, 1, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  if (!strcmp(c, "scratch-outside"))
    gex_TM_Split(&t, tm, 0, 0, heap, sizeof heap, 0);
  if (!strcmp(c, "destroyed")) gex_Coll_BroadcastNB(dead, 0, &dst, &src, 8, 0);
  if (!strcmp(c, "destroy-in-flight")) { /* the others never join: it stays in flight */
    gex_Coll_ReduceToAllNB(live, &dst, &src, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    gex_TM_Destroy(live, NULL, 0);
  }
  if (!strcmp(c, "scratch-size-0"))
    gex_TM_Split(&t, tm, 0, 0, gex_Segment_QueryAddr(seg), 0, 0);
  if (!strcmp(c, "create-no-scratch-kind")) {
    gex_EP_Location_t self = { 0, 0 };
    gex_TM_Create(&t, 1, tm, &self, 1, NULL, 0, 0);
  }
  for (gex_Rank_t k = 1; k < n; k++) T_CHECK(gex_AM_RequestShort0(tm, k, H_DONE, 0));
  printf("node 0: misuse case %s: no error\n", c);
  gasnet_exit(0);
  return 0;
}
