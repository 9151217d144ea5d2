/*
 * t_ex_npam_misuse.c CASE - one misuse of the negotiated-payload AMs per
 * run: the job must end with a message naming the call and the problem,
 * and a non-zero code (t-ex-npam.sh greps for each). Node 0 misbehaves
 * towards the last node (itself in a one-node job); the others poll until
 * the job is torn down. "none" must pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#define H_REQ 200
#define H_REP 201
#define H_DONE 202

static const char *mcase;
static gex_TM_t tm;
static volatile int replied, done;
static char cbuf[1024];

static void h_rep(gex_Token_t t, void *buf, size_t len) { (void)t; (void)buf; (void)len; replied = 1; }
static void h_done(gex_Token_t t) { (void)t; done = 1; }
static void h_req(gex_Token_t t, void *buf, size_t len) {
  (void)buf; (void)len;
  if (!strcmp(mcase, "request-in-handler")) gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 0);
  if (!strcmp(mcase, "handler-returns-open")) {
    gex_AM_PrepareReplyMedium(t, NULL, 8, 8, NULL, 0, 0);
    return; /* no Commit */
  }
  gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, 8, 8, NULL, 0, 0);
  gex_AM_CommitReplyMedium0(sd, H_REP, 8);
  if (!strcmp(mcase, "reply-after-prepare")) gex_AM_ReplyMedium0(t, H_REP, cbuf, 8, GEX_EVENT_NOW, 0);
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_NPAM_MISUSE", &argc, &argv, 0));
  mcase = argc > 1 ? argv[1] : "none";
  gex_Rank_t me = gex_System_QueryJobRank(), last = gex_System_QueryJobSize() - 1;
  gex_AM_Entry_t table[] = {
    {H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "req"},
    {H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "rep"},
    {H_DONE, (gex_AM_Fn_t)h_done, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "done"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, table, 3));
  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, 1 << 20));
  gasnet_seginfo_t *si = calloc(last + 1, sizeof *si);
  T_CHECK(gasnet_getSegmentInfo(si, (int)last + 1));
  char *dest = si[last].addr;
  if (me != 0) { /* serve until node 0 is done, or the job is torn down */
    GASNET_BLOCKUNTIL(done);
    gasnet_exit(0);
  }
  printf("node 0: misuse case %s\n", mcase);
  fflush(stdout);
  gex_AM_SrcDesc_t sd;
  const char *c = mcase;
  if (!strcmp(c, "commit-no-op")) gex_AM_CommitRequestMedium0(GEX_AM_SRCDESC_NO_OP, H_REQ, 0);
  if (!strcmp(c, "commit-twice")) {
    sd = gex_AM_PrepareRequestMedium(tm, last, NULL, 8, 8, NULL, 0, 0);
    gex_AM_CommitRequestMedium0(sd, H_REQ, 8);
    GASNET_BLOCKUNTIL(replied);
    gex_AM_CommitRequestMedium0(sd, H_REQ, 8);
  }
  if (!strcmp(c, "nbytes-above-size")) {
    sd = gex_AM_PrepareRequestMedium(tm, last, NULL, 512, 512, NULL, 0, 0);
    gex_AM_CommitRequestMedium0(sd, H_REQ, 513);
  }
  if (!strcmp(c, "second-prepare")) {
    gex_AM_PrepareRequestLong(tm, last, NULL, 8, 8, NULL, NULL, 0, 0);
    gex_AM_PrepareRequestMedium(tm, last, NULL, 8, 8, NULL, 0, 0);
  }
  if (!strcmp(c, "am-between")) {
    gex_AM_PrepareRequestMedium(tm, last, cbuf, 8, 8, GEX_EVENT_NOW, 0, 0);
    gex_AM_RequestShort0(tm, last, H_DONE, 0);
  }
  if (!strcmp(c, "reply-outside-handler")) gex_AM_PrepareReplyMedium(NULL, NULL, 8, 8, NULL, 0, 0);
  if (!strcmp(c, "least-above-max"))
    gex_AM_PrepareRequestMedium(tm, last, NULL,
                                gex_AM_MaxRequestMedium(tm, last, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 0) + 1,
                                1 << 20, NULL, 0, 0);
  if (!strcmp(c, "most-below-least")) gex_AM_PrepareRequestMedium(tm, last, NULL, 64, 63, NULL, 0, 0);
  if (!strcmp(c, "lc-with-gasnet-buffer"))
    gex_AM_PrepareRequestMedium(tm, last, NULL, 8, 8, GEX_EVENT_NOW, 0, 0);
  if (!strcmp(c, "lc-defer")) gex_AM_PrepareRequestMedium(tm, last, cbuf, 8, 8, GEX_EVENT_DEFER, 0, 0);
  if (!strcmp(c, "nargs-mismatch")) {
    sd = gex_AM_PrepareRequestMedium(tm, last, NULL, 8, 8, NULL, 0, 2);
    gex_AM_CommitRequestMedium3(sd, H_REQ, 8, 1, 2, 3);
  }
  if (!strcmp(c, "wrong-commit")) {
    sd = gex_AM_PrepareRequestMedium(tm, last, NULL, 8, 8, NULL, 0, 0);
    gex_AM_CommitRequestLong0(sd, H_REQ, 8, dest);
  }
  if (!strcmp(c, "dest-mismatch")) {
    sd = gex_AM_PrepareRequestLong(tm, last, NULL, 8, 8, dest, NULL, 0, 0);
    gex_AM_CommitRequestLong0(sd, H_REQ, 8, dest + 64);
  }
  if (!strcmp(c, "long-outside")) {
    sd = gex_AM_PrepareRequestLong(tm, last, NULL, 64, 64, NULL, NULL, 0, 0);
    gex_AM_CommitRequestLong0(sd, H_REQ, 64, dest + (1 << 20) - 32);
  }
  if (!strcmp(c, "srcdesc-after-commit")) {
    sd = gex_AM_PrepareRequestMedium(tm, last, NULL, 8, 8, NULL, 0, 0);
    gex_AM_CommitRequestMedium0(sd, H_REQ, 8);
    gex_AM_SrcDescAddr(sd);
  }
  if (!strcmp(c, "request-in-handler") || !strcmp(c, "handler-returns-open") ||
      !strcmp(c, "reply-after-prepare") || !strcmp(c, "none")) {
    sd = gex_AM_PrepareRequestMedium(tm, last, NULL, 8, 8, NULL, 0, 0);
    gex_AM_CommitRequestMedium0(sd, H_REQ, 8);
    GASNET_BLOCKUNTIL(replied);
  }
  printf("node 0: case %s: returned normally\n", mcase);
  fflush(stdout);
  for (gex_Rank_t r = 1; r <= last; r++) gex_AM_RequestShort0(tm, r, H_DONE, 0);
  gasnet_exit(0);
  return 0;
}
