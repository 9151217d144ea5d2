/*
 * t_ex_vis_misuse.c CASE - one misuse of VIS (gasnet_vis.h) per run: the job
 * must end with a message naming the call and the problem, and a non-zero
 * code (t-ex-vis.sh greps for each). Node 0 misbehaves towards the last
 * node; the others poll until the job is torn down. "none" must pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "gasnet_vis.h"
#include "../lib/t_check.h"

#define H_DONE 201
#define H_SHORT 202

static volatile int done;
static void h_done(gex_Token_t t) { (void)t; done = 1; }
static void h_short(gex_Token_t t) { (void)t; }

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_VIS_MISUSE", &argc, &argv, 0));
  const char *c = argc > 1 ? argv[1] : "none";
  gex_Rank_t me = gex_System_QueryJobRank(), n = gex_System_QueryJobSize(), last = n - 1;
  gex_AM_Entry_t table[] = {
    { H_DONE, (gex_AM_Fn_t)h_done, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "done" },
    { H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "short" },
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
  gex_Memvec_t d2[2] = { { dest, 8 }, { dest + rsize - 4, 8 } }, d3[3] = { { dest, 8 }, { dest + 16, 8 }, { dest + 32, 8 } };
  gex_Memvec_t s2[2] = { { buf, 8 }, { buf + 8, 8 } }, s3[3] = { { buf, 8 }, { buf + 8, 8 }, { buf + 16, 8 } };
  void *di[3] = { dest, dest + 8, dest + 16 }, *si[2] = { buf, buf + 8 };
  size_t cnt[2] = { 4, 4 }, huge[2] = { SIZE_MAX / 2, 4 };
  ptrdiff_t st[2] = { 8, 64 }, neg[2] = { -8, 64 };
  if (!strcmp(c, "put-outside")) gex_VIS_VectorPutBlocking(tm, last, 2, d2, 2, s2, 0);
  if (!strcmp(c, "get-outside")) gex_VIS_IndexedGetBlocking(tm, 2, si, 8, last, 2, (void *[]){ dest, dest + rsize }, 8, 0);
  if (!strcmp(c, "strided-outside")) gex_VIS_StridedGetNB(tm, buf, st, last, dest + rsize - 200, st, 8, cnt, 2, 0);
  if (!strcmp(c, "negative-outside")) gex_VIS_StridedPutNBI(tm, last, dest + 16, neg, buf, st, 8, cnt, 2, 0);
  if (!strcmp(c, "vector-totals")) gex_VIS_VectorPutNBI(tm, last, 3, d3, 2, s2, 0);
  if (!strcmp(c, "indexed-totals")) gex_VIS_IndexedGetBlocking(tm, 3, di, 8, last, 2, si, 8, 0);
  if (!strcmp(c, "levels-null")) gex_VIS_StridedPutBlocking(tm, last, dest, st, buf, st, 8, NULL, 2, 0);
  if (!strcmp(c, "levels-strides-null")) gex_VIS_StridedPutBlocking(tm, last, dest, NULL, buf, st, 8, cnt, 2, 0);
  if (!strcmp(c, "levels-overflow")) gex_VIS_StridedGetBlocking(tm, buf, st, last, dest, st, 8, huge, 2, 0);
  if (!strcmp(c, "bad-rank")) gex_VIS_VectorPutNB(tm, n + 6, 3, d3, 3, s3, 0);
  if (!strcmp(c, "leaf-lc-get")) gex_VIS_VectorGetNB(tm, 3, s3, last, 3, d3, GEX_FLAG_ENABLE_LEAF_LC);
  if (!strcmp(c, "seg-flag")) gex_VIS_IndexedPutNB(tm, last, 2, di, 8, 2, si, 8, GEX_FLAG_PEER_SEG_OFFSET);
  if (!strcmp(c, "pc-get")) {
    gex_VIS_SetPeerCompletionHandler(H_DONE + 10, NULL, 0, 0);
    gex_VIS_StridedGetBlocking(tm, buf, st, last, dest, st, 8, cnt, 2, 0);
  }
  if (!strcmp(c, "pc-immediate")) {
    gex_VIS_SetPeerCompletionHandler(H_DONE + 10, NULL, 0, 0);
    gex_VIS_VectorPutNB(tm, last, 3, d3, 3, s3, GEX_FLAG_IMMEDIATE);
  }
  if (!strcmp(c, "pc-size")) gex_VIS_SetPeerCompletionHandler(H_DONE + 10, buf, GEX_VIS_MAX_PEERCOMPLETION + 1, 0);
  if (!strcmp(c, "pc-index")) gex_VIS_SetPeerCompletionHandler(77, NULL, 0, 0);
  if (!strcmp(c, "pc-registration")) { /* H_SHORT is a Short request handler: the peer refuses it */
    gex_VIS_SetPeerCompletionHandler(H_SHORT, NULL, 0, 0);
    gex_VIS_VectorPutBlocking(tm, last, 3, d3, 3, s3, 0);
    GASNET_BLOCKUNTIL(0); /* the peer ends the job */
  }
  if (!strcmp(c, "g1-totals")) {
    gasnet_memvec_t gd[1] = { { dest, 8 } }, gs[1] = { { buf, 9 } };
    gasnet_putv_bulk(last, 1, gd, 1, gs);
  }
  if (!strcmp(c, "g1-bad-node")) {
    size_t gcnt[2] = { 8, 4 }, gst[1] = { 16 };
    gasnet_gets_bulk(buf, gst, n + 6, dest, gst, gcnt, 1);
  }
  for (gex_Rank_t r = 1; r < n; r++) T_CHECK(gex_AM_RequestShort0(tm, r, H_DONE, 0));
  printf("node 0: misuse case %s: no error\n", c);
  gasnet_exit(0);
  return 0;
}
