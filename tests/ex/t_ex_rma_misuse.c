/*
 * t_ex_rma_misuse.c CASE - one misuse of GASNet-EX RMA, events, NBI, the
 * barrier or an AM's lc_opt per run: the job must end with a message naming
 * the call and the problem, and a non-zero code (t-ex-rma.sh greps for
 * each). Node 0 misbehaves towards the last node (itself in a one-node
 * job); the others poll until the job is torn down. "none" must pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#define H_REQ 200
#define H_DONE 201

static volatile int done;
static void h_req(gex_Token_t t, void *buf, size_t len) { (void)t; (void)buf; (void)len; }
static void h_done(gex_Token_t t) { (void)t; done = 1; }

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_RMA_MISUSE", &argc, &argv, 0));
  const char *c = argc > 1 ? argv[1] : "none";
  gex_Rank_t me = gex_System_QueryJobRank(), n = gex_System_QueryJobSize(), last = n - 1;
  gex_AM_Entry_t table[] = {
    {H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "req"},
    {H_DONE, (gex_AM_Fn_t)h_done, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "done"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, table, 2));
  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, 1 << 20));
  void *remote;
  uintptr_t rsize;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, last, &remote, NULL, &rsize, 0));
  char *dest = remote, buf[64] = "payload";
  if (me != 0) { /* serve until node 0 is done, or the job is torn down */
    GASNET_BLOCKUNTIL(done);
    gasnet_exit(0);
  }
  printf("node 0: misuse case %s\n", c);
  fflush(stdout);
  gex_Event_t ev = GEX_EVENT_INVALID;
  if (!strcmp(c, "wait-no-op")) gex_Event_Wait(GEX_EVENT_NO_OP);
  if (!strcmp(c, "test-twice")) {
    ev = gex_RMA_PutNB(tm, last, dest, buf, 8, GEX_EVENT_NOW, 0);
    gex_Event_Wait(ev);
    gex_Event_Test(ev == GEX_EVENT_INVALID ? GEX_EVENT_NO_OP : ev);
  }
  if (!strcmp(c, "put-outside")) gex_RMA_PutBlocking(tm, last, dest + rsize - 4, buf, 8, 0);
  if (!strcmp(c, "get-bad-rank")) gex_RMA_GetBlocking(tm, buf, n + 6, dest, 8, 0);
  if (!strcmp(c, "seg-flag")) gex_RMA_PutNBI(tm, last, dest, buf, 8, GEX_EVENT_NOW, GEX_FLAG_PEER_SEG_OFFSET);
  if (!strcmp(c, "nb-group")) gex_RMA_PutNB(tm, last, dest, buf, 8, GEX_EVENT_GROUP, 0);
  if (!strcmp(c, "nbi-pointer")) gex_RMA_PutNBI(tm, last, dest, buf, 8, &ev, 0);
  if (!strcmp(c, "leaf-get")) gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_GET);
  if (!strcmp(c, "leaf-all")) gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_ALL);
  if (!strcmp(c, "nbi-mask")) gex_NBI_Wait((gex_EC_t)1 << 9, 0);
  if (!strcmp(c, "event-flags")) gex_Event_WaitAll(&ev, 1, 1);
  if (!strcmp(c, "nbi-in-region")) {
    gex_NBI_BeginAccessRegion(0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
  }
  if (!strcmp(c, "val-size")) gex_RMA_PutBlockingVal(tm, last, dest, 1, 9, 0);
  if (!strcmp(c, "am-defer")) gex_AM_RequestMedium0(tm, last, H_REQ, buf, 8, GEX_EVENT_DEFER, 0);
  if (!strcmp(c, "am-seg-flag"))
    gex_AM_RequestMedium0(tm, last, H_REQ, buf, 8, GEX_EVENT_NOW, GEX_FLAG_SELF_SEG_OFFSET);
  if (!strcmp(c, "barrier-pair")) gex_Coll_BarrierNB(gex_TM_Pair(ep, 0), 0);
  if (!strcmp(c, "barrier-overlap")) {
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gex_Coll_BarrierNB(tm, 0);
  }
  for (gex_Rank_t r = 1; r < n; r++) T_CHECK(gex_AM_RequestShort0(tm, r, H_DONE, 0));
  printf("node 0: misuse case %s: no error\n", c);
  gasnet_exit(0);
  return 0;
}
