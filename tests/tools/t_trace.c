/*
 * t_trace.c - a job with known traffic, for t-trace.sh to read back from
 * GASNET_TRACEFILE and GASNET_STATSFILE. Every rank r, with next = r+1 mod n:
 *   K   AM Short requests to next, each answered by one AM Short reply
 *   M   puts of S bytes to next, then M gets of S bytes from next (blocking)
 *   1   GASNet-1 barrier (notify/wait), then 1 GASNet-EX broadcast from 0
 *   one GASNETT_TRACE_PRINTF ("t_trace hello <r>"), one _FORCE, one
 *   GASNETT_STATS_PRINTF; GASNETT_TRACE_GETMASK is printed
 * and checks the data it moved (puts read back by the gets, the
 * broadcast's value, the replies counted), printing "t_trace: ok".
 * Usage: t_trace K M S
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H_PING 200
#define H_PONG 201
static volatile int t_pongs;

static void t_ping(gex_Token_t t, gex_AM_Arg_t a) { gex_AM_ReplyShort1(t, H_PONG, 0, a); }
static void t_pong(gex_Token_t t, gex_AM_Arg_t a) {
  (void)t; (void)a;
  t_pongs++;
}

static void t_fail(const char *what) {
  fprintf(stderr, "t_trace: FAIL %s\n", what);
  gasnet_exit(1);
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  if (gex_Client_Init(&client, &ep, &tm, "t_trace", &argc, &argv, 0)) return 1;
  if (argc != 4) t_fail("usage: t_trace K M S");
  int k = atoi(argv[1]), m = atoi(argv[2]);
  size_t s = (size_t)atol(argv[3]);
  gex_AM_Entry_t h[] = {
    { H_PING, (gex_AM_Fn_t)t_ping, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, NULL },
    { H_PONG, (gex_AM_Fn_t)t_pong, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, NULL },
  };
  if (gex_EP_RegisterHandlers(ep, h, 2)) t_fail("register");
  uintptr_t segsz = (2 * s + GASNET_PAGESIZE) / GASNET_PAGESIZE * GASNET_PAGESIZE;
  if (gex_Segment_Attach(&seg, tm, segsz)) t_fail("attach");
  gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm), next = (me + 1) % n;
  printf("node %u: trace mask '%s' stats mask '%s'\n", (unsigned)me, GASNETT_TRACE_GETMASK(),
         GASNETT_STATS_GETMASK());
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS); /* everyone registered */
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);

  for (int i = 0; i < k; i++) gex_AM_RequestShort1(tm, next, H_PING, 0, i);
  GASNET_BLOCKUNTIL(t_pongs == k);

  void *rbase;
  gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, next, &rbase, NULL, NULL, 0));
  unsigned char *src = malloc(s), *back = malloc(s);
  if (!src || !back) t_fail("malloc");
  for (int i = 0; i < m; i++) {
    memset(src, (me * 31 + i) & 0xff, s);
    gex_RMA_PutBlocking(tm, next, (char *)rbase + (size_t)(i % 2) * s, src, s, 0);
    gex_RMA_GetBlocking(tm, back, next, (char *)rbase + (size_t)(i % 2) * s, s, 0);
    if (memcmp(src, back, s)) t_fail("a get did not read back the put");
  }
  GASNETT_TRACE_PRINTF("t_trace hello %u", (unsigned)me);
  GASNETT_TRACE_PRINTF_FORCE("t_trace forced %u", (unsigned)me);
  GASNETT_STATS_PRINTF("t_trace stats note %u", (unsigned)me);

  gasnet_barrier_notify(7, 0);
  if (gasnet_barrier_wait(7, 0) != GASNET_OK) t_fail("barrier");
  unsigned v = me == 0 ? 0xC0FFEEu : 0, got = 0;
  gex_Event_Wait(gex_Coll_BroadcastNB(tm, 0, &got, me == 0 ? &v : NULL, sizeof v, 0));
  if (got != 0xC0FFEEu) t_fail("broadcast");
  printf("node %u: t_trace: ok (%d pongs)\n", (unsigned)me, t_pongs);
  fflush(stdout);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  free(src);
  free(back);
  gasnet_exit(0);
  return 0;
}
