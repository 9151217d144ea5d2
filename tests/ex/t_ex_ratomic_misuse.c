/*
 * t_ex_ratomic_misuse.c CASE - one misuse of the remote atomics per run:
 * the job must end with a message naming the call and the problem, and a
 * non-zero code (t-ex-ratomic.sh greps for each). Every rank creates the
 * domains (collective); node 0 then misbehaves towards the last rank, the
 * others poll until the job is torn down. "none" must pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "gasnet_ratomic.h"
#include "../lib/t_check.h"

#define H_DONE 200

static volatile int done;
static void h_done(gex_Token_t t) { (void)t; done = 1; }

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_RATOMIC_MISUSE", &argc, &argv, 0));
  const char *c = argc > 1 ? argv[1] : "none";
  gex_Rank_t me = gex_System_QueryJobRank(), n = gex_System_QueryJobSize(), last = n - 1;
  gex_AM_Entry_t table[] = {
    {H_DONE, (gex_AM_Fn_t)h_done, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "done"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, table, 1));
  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, 1 << 16));
  void *remote;
  uintptr_t rsize;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, last, &remote, NULL, &rsize, 0));
  char *tgt = remote;
  gex_AD_t ad, ad_i32;
  gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET, 0);
  gex_AD_Create(&ad_i32, tm, GEX_DT_I32, GEX_OP_SET, 0);
  gex_TM_t sub = GEX_TM_INVALID;
  gex_AD_t sub_ad;
  if (!strcmp(c, "team-with-ad")) { /* collective: every rank makes both */
    gex_TM_Split(&sub, tm, 0, (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_AD_Create(&sub_ad, sub, GEX_DT_U64, GEX_OP_GET, 0);
  }
  if (me != 0) { /* serve until node 0 is done, or the job is torn down */
    GASNET_BLOCKUNTIL(done);
    gasnet_exit(0);
  }
  printf("node 0: misuse case %s\n", c);
  fflush(stdout);
  uint64_t r;
  int32_t r32;
  gex_AD_t other;
  if (!strcmp(c, "none")) gex_Event_Wait(gex_AD_OpNB_U64(ad, &r, last, tgt, GEX_OP_FADD, 1, 0, 0));
  if (!strcmp(c, "op-not-in-domain")) gex_AD_OpNB_U64(ad, &r, last, tgt, GEX_OP_FSUB, 1, 0, 0);
  if (!strcmp(c, "two-ops")) gex_AD_OpNBI_U64(ad, &r, last, tgt, GEX_OP_FADD | GEX_OP_GET, 1, 0, 0);
  if (!strcmp(c, "float-bitwise")) gex_AD_Create(&other, tm, GEX_DT_DBL, GEX_OP_FADD | GEX_OP_AND, 0);
  if (!strcmp(c, "user-op")) gex_AD_Create(&other, tm, GEX_DT_I64, GEX_OP_USER, 0);
  if (!strcmp(c, "bad-dt")) gex_AD_Create(&other, tm, GEX_DT_USER, GEX_OP_SET, 0);
  if (!strcmp(c, "two-dts")) gex_AD_Create(&other, tm, GEX_DT_I32 | GEX_DT_U32, GEX_OP_SET, 0);
  if (!strcmp(c, "no-ops")) gex_AD_Create(&other, tm, GEX_DT_I32, 0, 0);
  if (!strcmp(c, "two-favor"))
    gex_AD_Create(&other, tm, GEX_DT_I32, GEX_OP_SET, GEX_FLAG_AD_FAVOR_MY_RANK | GEX_FLAG_AD_FAVOR_REMOTE);
  if (!strcmp(c, "pair-team")) gex_AD_Create(&other, gex_TM_Pair(ep, 0), GEX_DT_I32, GEX_OP_SET, 0);
  if (!strcmp(c, "dt-mismatch")) gex_AD_OpNB_U32(ad_i32, NULL, last, tgt, GEX_OP_SET, 1, 0, 0);
  if (!strcmp(c, "outside-segment")) gex_AD_OpNB_U64(ad, &r, last, tgt + rsize - 4, GEX_OP_FADD, 1, 0, 0);
  if (!strcmp(c, "not-aligned")) gex_AD_OpNB_I32(ad_i32, &r32, last, tgt + 2, GEX_OP_SET, 1, 0, 0);
  if (!strcmp(c, "bad-rank")) gex_AD_OpNB_U64(ad, &r, n + 5, tgt, GEX_OP_FADD, 1, 0, 0);
  if (!strcmp(c, "bad-jobrank"))
    gex_AD_OpNBI_U64(ad, &r, n + 5, tgt, GEX_OP_FADD, 1, 0, GEX_FLAG_RANK_IS_JOBRANK);
  if (!strcmp(c, "invalid-ad")) gex_AD_OpNB_U64(GEX_AD_INVALID, &r, last, tgt, GEX_OP_FADD, 1, 0, 0);
  if (!strcmp(c, "destroyed")) {
    gex_AD_Create(&other, tm, GEX_DT_U64, GEX_OP_GET, 0);
    gex_AD_Destroy(other);
    gex_AD_Create(&other, tm, GEX_DT_U64, GEX_OP_GET, 0); /* may reuse the memory */
    gex_AD_Destroy(other);
    gex_AD_QueryOps(other);
  }
  /* an atomic domain keeps its team (the description of gex_TM_Destroy:
   * "Any gex_AD_t objects created using this tm have been destroyed") */
  if (!strcmp(c, "team-with-ad")) gex_TM_Destroy(sub, NULL, GEX_FLAG_GLOBALLY_QUIESCED);
  if (!strcmp(c, "seg-offset"))
    gex_AD_OpNB_U64(ad, &r, last, tgt, GEX_OP_FADD, 1, 0, GEX_FLAG_PEER_SEG_OFFSET);
  if (!strcmp(c, "favor-at-op"))
    gex_AD_OpNB_U64(ad, &r, last, tgt, GEX_OP_FADD, 1, 0, GEX_FLAG_AD_FAVOR_REMOTE);
  if (!strcmp(c, "my-rank-false"))
    gex_AD_OpNB_U64(ad, &r, last, tgt, GEX_OP_FADD, 1, 0, GEX_FLAG_AD_MY_RANK);
  if (!strcmp(c, "my-nbrhd-false"))
    gex_AD_OpNB_U64(ad, &r, last, tgt, GEX_OP_FADD, 1, 0, GEX_FLAG_AD_MY_NBRHD);
  if (!strcmp(c, "rank-and-nbrhd"))
    gex_AD_OpNB_U64(ad, &r, 0, tgt, GEX_OP_FADD, 1, 0, GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD);
  if (!strcmp(c, "null-result")) gex_AD_OpNB_U64(ad, NULL, last, tgt, GEX_OP_FADD, 1, 0, 0);
  for (gex_Rank_t k = 1; k < n; k++) T_CHECK(gex_AM_RequestShort0(tm, k, H_DONE, 0));
  printf("node 0: misuse case %s: no error\n", c);
  gasnet_exit(0);
  return 0;
}
