/*
 * t_ex_npam_par.c - negotiated-payload AMs from several threads at once
 * (GASNET_PAR): the SrcDesc is thread-specific, so 4 threads per rank
 * Prepare and Commit Medium (GASNet's buffer and client_buf) and Long
 * requests to the next rank concurrently, up to 8 in flight each, while
 * every thread's polls run request handlers that answer with an NPAM reply
 * (GASNet's buffer). Every payload and argument is checked where it lands;
 * each thread must get exactly one good reply per request.
 *
 *   gasnetrun -n N t_ex_npam_par [MSGS_PER_THREAD]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#define NTHREADS 4
#define WINDOW 8
#define SLOT 16384 /* one Long payload: [src][thread][i % WINDOW] */
#define H_REQ_MED 200
#define H_REQ_LONG 201
#define H_REP 202
#define H_DONE 203

static gex_TM_t tm;
static gex_Rank_t me, n;
static gasnet_seginfo_t *si;
static int msgs = 3000;
static volatile int got[NTHREADS], bad, done;
static volatile int answered[NTHREADS][WINDOW]; /* the request last answered per slot, + 1 */

static unsigned seed_of(unsigned src, unsigned tid, unsigned i) { return i ^ (tid << 16) ^ (src << 24); }
static size_t len_of(unsigned i) { return (i * 2654435761u) % SLOT; }
static void fill(unsigned char *p, size_t len, unsigned seed) {
  for (size_t k = 0; k < len; k++) p[k] = (unsigned char)(seed * 131 + k * 7 + (k >> 8));
}
static int check(const unsigned char *p, size_t len, unsigned seed) {
  for (size_t k = 0; k < len; k++)
    if (p[k] != (unsigned char)(seed * 131 + k * 7 + (k >> 8))) return 0;
  return 1;
}
static char *slot_at(void *base, gex_Rank_t src, unsigned tid, unsigned i) {
  return (char *)base + (((size_t)src * NTHREADS + tid) * WINDOW + i % WINDOW) * SLOT;
}
static char *slot_of(gex_Rank_t at, gex_Rank_t src, unsigned tid, unsigned i) {
  return slot_at(si[at].addr, src, tid, i);
}

/* Both request kinds: check, then reply with an NPAM Medium of GASNet's buffer. */
static void on_req(gex_Token_t t, void *buf, size_t len, unsigned i, unsigned tid, int is_long) {
  gex_Token_Info_t ti;
  /* handlers may run inside gex_Segment_Attach's final barrier, before
   * main has si: find our segment through the token */
  gex_Token_Info(t, &ti, GEX_TI_SRCRANK | GEX_TI_EP);
  void *myseg = gex_Segment_QueryAddr(gex_EP_QuerySegment(ti.gex_ep));
  unsigned seed = seed_of(ti.gex_srcrank, tid, i);
  if (tid >= NTHREADS || len != len_of(i) || !check(buf, len, seed) ||
      (is_long ? buf != slot_at(myseg, ti.gex_srcrank, tid, i) : ((uintptr_t)buf & 15) != 0)) {
    fprintf(stderr, "node %u: bad %s request %u of thread %u from %u: %zu bytes at %p (want %zu%s)\n",
            (unsigned)me, is_long ? "Long" : "Medium", i, tid, (unsigned)ti.gex_srcrank, len, buf,
            len_of(i), tid < NTHREADS && len == len_of(i) && !check(buf, len, seed) ? ", payload corrupt" : "");
    __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
  }
  size_t rl = len_of(i + 1);
  gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, rl, rl, NULL, 0, 2);
  fill(gex_AM_SrcDescAddr(sd), rl, seed + 1);
  gex_AM_CommitReplyMedium2(sd, H_REP, rl, (gex_AM_Arg_t)i, (gex_AM_Arg_t)tid);
}
static void h_req_med(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t i, gex_AM_Arg_t tid) {
  on_req(t, buf, len, (unsigned)i, (unsigned)tid, 0);
}
static void h_req_long(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t i, gex_AM_Arg_t tid) {
  on_req(t, buf, len, (unsigned)i, (unsigned)tid, 1);
}
static void h_rep(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t i, gex_AM_Arg_t tid) {
  (void)t;
  unsigned seed = seed_of(me, (unsigned)tid, (unsigned)i) + 1;
  if ((unsigned)tid >= NTHREADS || len != len_of((unsigned)i + 1) || !check(buf, len, seed)) {
    __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
    return;
  }
  __atomic_store_n(&answered[tid][(unsigned)i % WINDOW], (int)i + 1, __ATOMIC_RELEASE);
  __atomic_fetch_add(&got[tid], 1, __ATOMIC_RELEASE);
}
static void h_done(gex_Token_t t) { (void)t; __atomic_fetch_add(&done, 1, __ATOMIC_RELEASE); }

static void *worker(void *arg) {
  unsigned tid = (unsigned)(uintptr_t)arg;
  gex_Rank_t peer = (me + 1) % n;
  unsigned char *cbuf = malloc(SLOT);
  T_EXPECT(cbuf != NULL, "malloc");
  for (unsigned i = 0; i < (unsigned)msgs; i++) {
    /* slot i % WINDOW is free again once request i - WINDOW was answered
     * (replies may come in any order) */
    GASNET_BLOCKUNTIL(i < WINDOW ||
                      __atomic_load_n(&answered[tid][i % WINDOW], __ATOMIC_ACQUIRE) == (int)(i - WINDOW) + 1);
    size_t len = len_of(i);
    unsigned seed = seed_of(me, tid, i);
    int form = (int)(i % 3);
    gex_AM_SrcDesc_t sd;
    if (form == 0) {
      sd = gex_AM_PrepareRequestMedium(tm, peer, NULL, len, SLOT, NULL, 0, 2);
    } else if (form == 1) {
      sd = gex_AM_PrepareRequestMedium(tm, peer, cbuf, len, len, GEX_EVENT_NOW, 0, 2);
    } else {
      sd = gex_AM_PrepareRequestLong(tm, peer, NULL, len, len, slot_of(peer, me, tid, i), NULL, 0, 2);
    }
    T_EXPECT(gex_AM_SrcDescSize(sd) >= len && (form == 1 ? gex_AM_SrcDescAddr(sd) == cbuf
                                                          : ((uintptr_t)gex_AM_SrcDescAddr(sd) & 15) == 0),
             "thread %u: SrcDesc of %zu bytes at %p for %zu", tid, gex_AM_SrcDescSize(sd),
             gex_AM_SrcDescAddr(sd), len);
    fill(gex_AM_SrcDescAddr(sd), len, seed);
    if (form == 2)
      gex_AM_CommitRequestLong2(sd, H_REQ_LONG, len, slot_of(peer, me, tid, i), (gex_AM_Arg_t)i,
                                (gex_AM_Arg_t)tid);
    else
      gex_AM_CommitRequestMedium2(sd, H_REQ_MED, len, (gex_AM_Arg_t)i, (gex_AM_Arg_t)tid);
  }
  GASNET_BLOCKUNTIL(__atomic_load_n(&got[tid], __ATOMIC_ACQUIRE) == msgs);
  free(cbuf);
  return NULL;
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_NPAM_PAR", &argc, &argv, 0));
  if (argc > 1) msgs = atoi(argv[1]);
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();
  gex_AM_Entry_t table[] = {
    {H_REQ_MED, (gex_AM_Fn_t)h_req_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "req med"},
    {H_REQ_LONG, (gex_AM_Fn_t)h_req_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "req long"},
    {H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2, NULL, "rep"},
    {H_DONE, (gex_AM_Fn_t)h_done, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "done"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, table, 4));
  size_t segsize = (size_t)n * NTHREADS * WINDOW * SLOT;
  segsize = (segsize + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, segsize));
  si = malloc(sizeof *si * n);
  T_CHECK(gasnet_getSegmentInfo(si, (int)n));
  pthread_t th[NTHREADS];
  for (unsigned t = 0; t < NTHREADS; t++)
    T_EXPECT(pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t) == 0, "pthread_create");
  for (unsigned t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  /* stay until every rank is done: our handlers answer its requests */
  for (gex_Rank_t r = 0; r < n; r++) T_CHECK(gex_AM_RequestShort0(tm, r, H_DONE, 0));
  GASNET_BLOCKUNTIL(__atomic_load_n(&done, __ATOMIC_ACQUIRE) == (int)n);
  int total = 0;
  for (unsigned t = 0; t < NTHREADS; t++) total += got[t];
  printf("node %u: %d threads x %d NPAM requests (Medium GASNet buffer / client_buf, Long) answered "
         "by NPAM replies: %d good replies, %d bad messages\n", (unsigned)me, NTHREADS, msgs, total, bad);
  T_EXPECT(total == NTHREADS * msgs && bad == 0, "%d good of %d, %d bad", total, NTHREADS * msgs, bad);
  printf("node %u: NPAM threads: all passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
