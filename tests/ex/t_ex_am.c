/*
 * t_ex_am.c - GASNet-EX objects and Active Messages, against the sentences
 * of ../shared/spec/gasnet-ex-api.txt that say what MUST happen, on any
 * number of ranks. Each check prints what it compared; the program exits 0
 * only when all matched (T_EXPECT ends the job otherwise).
 *
 *  - gex_Client_Init gives the primordial EP, whose index is 0, and a team
 *    whose rank and size are the job rank and size;
 *  - CData is NULL on new objects, then what was set;
 *  - gex_EP_RegisterHandlers: index 0 entries get the highest free index,
 *    in table order, written back; a taken index is refused, nothing
 *    registered; registration is possible again afterwards;
 *  - AMs before gex_Segment_Attach (Short, Medium), and all categories
 *    after it, to every rank (itself too), through the team and through a
 *    TM-pair, with 0, 1, 7 and 16 arguments, payloads up to the maxima
 *    verified, Medium buffers 16-byte aligned;
 *  - a Long with nbytes 0 still passes its destination address;
 *  - lc_opt: an event pointer receives GEX_EVENT_INVALID (complete);
 *  - gex_Token_Info: srcrank, ep, entry (index, fnptr, nargs, flags, cdata,
 *    name), is_req, is_long;
 *  - GEX_FLAG_IMMEDIATE: a request it refuses is not delivered; a call
 *    without it never returns non-zero;
 *  - the AM limits: Max >= LUB, MaxArgs 16; gasnet_QueryGexObjects gives
 *    the same objects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#define H_ARRIVE 128     /* fixed indexes for the AM barrier */
#define H_RELEASE 129
#define SEGSIZE (4u << 20)

static gex_TM_t tm;
static gex_EP_t ep;
static gex_Rank_t me, n;
static volatile int arrived, released, phase;
static volatile int got_short, got_medium, got_long, got_reply, got_imm;
static volatile uint32_t reply_sum;
static int cdata_mark;

/* ---- an AM barrier (no segment needed) ---------------------------------------- */
static void h_arrive(gex_Token_t t) { (void)t; __atomic_fetch_add(&arrived, 1, __ATOMIC_RELAXED); }
static void h_release(gex_Token_t t, gex_AM_Arg_t p) { (void)t; released = p; }
static void t_barrier(void) {
  int p = ++phase;
  T_CHECK(gex_AM_RequestShort0(tm, 0, H_ARRIVE, 0));
  if (me == 0) {
    GASNET_BLOCKUNTIL(arrived == (int)n);
    arrived = 0;
    for (gex_Rank_t r = 0; r < n; r++) T_CHECK(gex_AM_RequestShort1(tm, r, H_RELEASE, 0, p));
  }
  GASNET_BLOCKUNTIL(released == p);
}

/* ---- payload: bytes the receiver can check ------------------------------------- */
static void fill(unsigned char *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++) p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}
static int check(const unsigned char *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != (unsigned char)(seed * 131 + i * 7 + (i >> 8))) return 0;
  return 1;
}
static uint32_t sum_args(int nargs, const gex_AM_Arg_t *a) {
  uint32_t s = 0;
  for (int i = 0; i < nargs; i++) s = s * 31 + (uint32_t)a[i];
  return s;
}

/* ---- handlers: every one checks gex_Token_Info ---------------------------------- */
static gex_AM_Index_t h_short, h_medium, h_long, h_reply, h_imm, h_count; /* assigned below */

static void token_check(gex_Token_t t, gex_AM_Index_t want_index, int want_req, int want_long,
                        unsigned nargs) {
  gex_Token_Info_t ti;
  gex_TI_t got = gex_Token_Info(t, &ti, GEX_TI_ALL);
  T_EXPECT(got == GEX_TI_ALL, "gex_Token_Info returned mask %#x", (unsigned)got);
  T_EXPECT(ti.gex_srcrank < n, "srcrank %u", (unsigned)ti.gex_srcrank);
  T_EXPECT(ti.gex_ep == ep, "gex_ep is not the primordial EP");
  T_EXPECT(ti.gex_entry && ti.gex_entry->gex_index == want_index &&
               ti.gex_entry->gex_nargs == nargs && ti.gex_entry->gex_cdata == &cdata_mark &&
               ti.gex_entry->gex_name && !strncmp(ti.gex_entry->gex_name, "t_ex_am", 7),
           "gex_entry does not describe handler %u as registered", (unsigned)want_index);
  T_EXPECT(!!ti.gex_is_req == want_req && !!ti.gex_is_long == want_long,
           "is_req %d is_long %d, want %d %d", ti.gex_is_req, ti.gex_is_long, want_req, want_long);
}

/* Short request, 7 args: replies Short1 with the args' sum. */
static void hs(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3,
               gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6) {
  token_check(t, h_short, 1, 0, 7);
  gex_AM_Arg_t a[7] = {a0, a1, a2, a3, a4, a5, a6};
  __atomic_fetch_add(&got_short, 1, __ATOMIC_RELAXED);
  T_CHECK(gex_AM_ReplyShort1(t, h_reply, 0, (gex_AM_Arg_t)sum_args(7, a)));
}
/* Medium request, 1 arg (seed): checks, replies Medium0 with the payload back
 * (sum of it in the reply handler via reply_sum) - here a Short1 of a checksum. */
static void hm(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t seed) {
  token_check(t, h_medium, 1, 0, 1);
  T_EXPECT(((uintptr_t)buf & 15) == 0 || len == 0, "Medium buffer %p not 16-aligned", buf);
  T_EXPECT(check(buf, len, (unsigned)seed), "Medium payload of %zu bytes corrupt", len);
  __atomic_fetch_add(&got_medium, 1, __ATOMIC_RELAXED);
  T_CHECK(gex_AM_ReplyShort1(t, h_reply, 0, (gex_AM_Arg_t)len));
}
/* Long request, 16 args: a0 seed, a1 nbytes, a2..a3 the destination the
 * sender named (so nbytes 0 still checks it); replies a Long0 of 0 bytes. */
static void hl(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
               gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5,
               gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9,
               gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13,
               gex_AM_Arg_t a14, gex_AM_Arg_t a15) {
  token_check(t, h_long, 1, 1, 16);
  uintptr_t want = (uintptr_t)(uint32_t)a2 << 32 | (uint32_t)a3;
  T_EXPECT((uintptr_t)buf == want, "Long of %zu bytes: handler got %p, sender named %p", len, buf,
           (void *)want);
  T_EXPECT(len == (size_t)a1 && check(buf, len, (unsigned)a0), "Long payload of %zu corrupt", len);
  gex_AM_Arg_t rest[12] = {a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  for (int i = 0; i < 12; i++) T_EXPECT(rest[i] == 1000 + i, "Long arg %d = %d", i + 4, rest[i]);
  __atomic_fetch_add(&got_long, 1, __ATOMIC_RELAXED);
  T_CHECK(gex_AM_ReplyShort1(t, h_reply, 0, (gex_AM_Arg_t)len));
}
static void hr(gex_Token_t t, gex_AM_Arg_t v) {
  token_check(t, h_reply, 0, 0, 1);
  reply_sum = (uint32_t)v;
  __atomic_fetch_add(&got_reply, 1, __ATOMIC_RELEASE);
}
static void hi(gex_Token_t t) { (void)t; __atomic_fetch_add(&got_imm, 1, __ATOMIC_RELAXED); }
static volatile int imm_count = -1;
static void hc(gex_Token_t t, gex_AM_Arg_t c) { (void)t; imm_count = c; }

static void await_reply(int before) { GASNET_BLOCKUNTIL(got_reply > before); }

int main(int argc, char **argv) {
  gex_Client_t client;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_AM", &argc, &argv, 0));
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();

  /* Objects. */
  T_EXPECT(gex_EP_QueryIndex(ep) == 0, "primordial EP index %u", (unsigned)gex_EP_QueryIndex(ep));
  T_EXPECT(gex_TM_QueryRank(tm) == me && gex_TM_QuerySize(tm) == n && gex_TM_QueryEP(tm) == ep &&
               gex_TM_QueryClient(tm) == client && gex_EP_QueryClient(ep) == client,
           "team/EP/client queries disagree");
  T_EXPECT(!strcmp(gex_Client_QueryName(client), "T_EX_AM") && gex_Client_QueryFlags(client) == 0,
           "client name/flags");
  T_EXPECT(!gex_Client_QueryCData(client) && !gex_EP_QueryCData(ep) && !gex_TM_QueryCData(tm),
           "new objects' CData is not NULL");
  gex_Client_SetCData(client, &cdata_mark);
  gex_EP_SetCData(ep, &cdata_mark);
  gex_TM_SetCData(tm, &cdata_mark);
  T_EXPECT(gex_Client_QueryCData(client) == &cdata_mark && gex_EP_QueryCData(ep) == &cdata_mark &&
               gex_TM_QueryCData(tm) == &cdata_mark, "CData not what was set");
  T_EXPECT(gex_EP_QuerySegment(ep) == GEX_SEGMENT_INVALID, "a segment before gex_Segment_Attach");
  gex_Client_t c2; gex_EP_t e2; gex_TM_t t2; gex_Segment_t s2;
  gasnet_QueryGexObjects(&c2, &e2, &t2, &s2);
  T_EXPECT(c2 == client && e2 == ep && t2 == tm && s2 == GEX_SEGMENT_INVALID,
           "gasnet_QueryGexObjects gives other objects");
  T_EXPECT(gex_AM_MaxArgs() == 16 && gex_System_QueryMaxThreads() == 1, "MaxArgs %u MaxThreads %lu",
           gex_AM_MaxArgs(), (unsigned long)gex_System_QueryMaxThreads());
  T_EXPECT(gex_AM_MaxRequestMedium(tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16) >= gex_AM_LUBRequestMedium() &&
               gex_AM_MaxReplyMedium(tm, 0, GEX_EVENT_NOW, 0, 0) >= gex_AM_LUBReplyMedium() &&
               gex_AM_MaxRequestLong(tm, 0, GEX_EVENT_NOW, 0, 16) >= gex_AM_LUBRequestLong() &&
               gex_AM_MaxReplyLong(tm, 0, GEX_EVENT_NOW, 0, 0) >= gex_AM_LUBReplyLong() &&
               gex_AM_LUBRequestMedium() >= 512,
           "AM limits: Max below LUB, or LUB Medium below 512");
  printf("node %u: objects: EP index 0, team rank %u of %u, CData, queries and limits as described\n",
         (unsigned)me, (unsigned)me, (unsigned)n);

  /* Registration: two fixed, then five "don't care" -> 255, 254, ... in table order. */
  gex_AM_Entry_t fixed[] = {
    {H_ARRIVE, (gex_AM_Fn_t)h_arrive, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "t_ex_am arrive"},
    {H_RELEASE, (gex_AM_Fn_t)h_release, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "t_ex_am release"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, fixed, 2));
  gex_AM_Entry_t any[] = {
    {0, (gex_AM_Fn_t)hs, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 7, &cdata_mark, "t_ex_am short"},
    {0, (gex_AM_Fn_t)hm, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, &cdata_mark, "t_ex_am medium"},
    {0, (gex_AM_Fn_t)hl, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 16, &cdata_mark, "t_ex_am long"},
    {0, (gex_AM_Fn_t)hr, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, &cdata_mark, "t_ex_am reply"},
    {0, (gex_AM_Fn_t)hi, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, &cdata_mark, "t_ex_am imm"},
    {0, (gex_AM_Fn_t)hc, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, &cdata_mark, "t_ex_am count"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, any, 6));
  printf("node %u: don't-care handlers got %u %u %u %u %u (want 255 254 253 252 251)\n",
         (unsigned)me, any[0].gex_index, any[1].gex_index, any[2].gex_index, any[3].gex_index,
         any[4].gex_index);
  T_EXPECT(any[0].gex_index == 255 && any[1].gex_index == 254 && any[2].gex_index == 253 &&
               any[3].gex_index == 252 && any[4].gex_index == 251,
           "index 0 entries are not given the highest free indexes in table order");
  h_short = any[0].gex_index; h_medium = any[1].gex_index; h_long = any[2].gex_index;
  h_reply = any[3].gex_index; h_imm = any[4].gex_index; h_count = any[5].gex_index;
  gex_System_SetVerboseErrors(0); /* the refusal below is expected: no console line */
  gex_AM_Entry_t dup[] = {
    {0, (gex_AM_Fn_t)hi, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "t_ex_am dup0"},
    {H_ARRIVE, (gex_AM_Fn_t)hi, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "t_ex_am dup"},
  };
  int rc = gex_EP_RegisterHandlers(ep, dup, 2);
  gex_System_SetVerboseErrors(1);
  printf("node %u: registering taken index %d: rc %d (want %d), entry 0 index %u (want 0)\n",
         (unsigned)me, H_ARRIVE, rc, GASNET_ERR_BAD_ARG, dup[0].gex_index);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG && dup[0].gex_index == 0, "taken index accepted");
  t_barrier(); /* every rank registered before anyone sends */

  /* Before the segment: Short (7 args) and Medium, to every rank, by team and by pair. */
  gex_TM_t pair = gex_TM_Pair(ep, 0);
  size_t maxmed = gex_AM_MaxRequestMedium(tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 1);
  unsigned char *buf = malloc(SEGSIZE);
  T_EXPECT(buf != NULL, "malloc");
  const size_t msizes[] = {0, 1, 17, 4096, 65535};
  for (gex_Rank_t r = 0; r < n; r++) {
    int before = got_reply;
    gex_AM_Arg_t a[7] = {1, -2, 3, (gex_AM_Arg_t)r, 5, 6, (gex_AM_Arg_t)me};
    T_EXPECT(gex_AM_RequestShort7((r & 1) ? pair : tm, r, h_short, 0, a[0], a[1], a[2], a[3], a[4],
                                  a[5], a[6]) == 0, "a non-IMMEDIATE Short returned non-zero");
    await_reply(before);
    T_EXPECT(reply_sum == sum_args(7, a), "Short7 to %u: sum %08x", (unsigned)r, reply_sum);
    for (size_t k = 0; k <= sizeof msizes / sizeof msizes[0]; k++) {
      size_t len = k < sizeof msizes / sizeof msizes[0] ? msizes[k] : maxmed;
      fill(buf, len, (unsigned)(r + k));
      gex_Event_t lc = GEX_EVENT_NO_OP;
      before = got_reply;
      T_EXPECT(gex_AM_RequestMedium1(tm, r, h_medium, buf, len, &lc, 0, (gex_AM_Arg_t)(r + k)) == 0,
               "a non-IMMEDIATE Medium returned non-zero");
      T_EXPECT(lc == GEX_EVENT_INVALID, "lc_opt event after a Medium request is not complete");
      memset(buf, 0xee, len); /* the payload may be reused at once */
      await_reply(before);
      T_EXPECT(reply_sum == (uint32_t)len, "Medium of %zu to %u: reply %u", len, (unsigned)r,
               reply_sum);
    }
  }
  printf("node %u: before gex_Segment_Attach: Short7 and Medium1 of 0..%zu bytes to all %u ranks "
         "(team and TM-pair) verified, lc_opt complete\n", (unsigned)me, maxmed, (unsigned)n);

  /* The segment. */
  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, SEGSIZE));
  T_EXPECT(seg != GEX_SEGMENT_INVALID && gex_Segment_QuerySize(seg) == SEGSIZE &&
               gex_EP_QuerySegment(ep) == seg && gex_Segment_QueryClient(seg) == client &&
               !gex_Segment_QueryCData(seg),
           "segment queries");
  gasnet_QueryGexObjects(NULL, NULL, NULL, &s2);
  T_EXPECT(s2 == seg, "gasnet_QueryGexObjects: segment");
  gasnet_seginfo_t *si = malloc(sizeof *si * n);
  T_CHECK(gasnet_getSegmentInfo(si, (int)n));

  /* Long, 16 args, into slot [me] of each target's segment; 0 bytes too. */
  size_t maxlong = gex_AM_MaxRequestLong(tm, 0, GEX_EVENT_NOW, 0, 16);
  const size_t lsizes[] = {0, 1, 4095, 65536, 1u << 20};
  size_t slot = SEGSIZE / (n > 4 ? n : 4);
  for (gex_Rank_t r = 0; r < n; r++) {
    for (size_t k = 0; k < sizeof lsizes / sizeof lsizes[0]; k++) {
      size_t len = lsizes[k] < maxlong ? lsizes[k] : maxlong;
      if (len > slot) len = slot;
      char *dest = (char *)si[r].addr + (size_t)me * slot;
      fill(buf, len, (unsigned)(7 * r + k));
      gex_Event_t lc = GEX_EVENT_NO_OP;
      int before = got_reply;
      uintptr_t d = (uintptr_t)dest;
      T_EXPECT(gex_AM_RequestLong16(tm, r, h_long, buf, len, dest, &lc, 0,
                                    (gex_AM_Arg_t)(7 * r + k), (gex_AM_Arg_t)len,
                                    (gex_AM_Arg_t)(uint32_t)(d >> 32), (gex_AM_Arg_t)(uint32_t)d,
                                    1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009,
                                    1010, 1011) == 0,
               "a non-IMMEDIATE Long returned non-zero");
      T_EXPECT(lc == GEX_EVENT_INVALID, "lc_opt event after a Long request is not complete");
      await_reply(before);
      T_EXPECT(reply_sum == (uint32_t)len, "Long of %zu to %u: reply %u", len, (unsigned)r, reply_sum);
    }
  }
  printf("node %u: Long16 of 0..%zu bytes to all %u ranks verified (nbytes 0 passes its "
         "destination address)\n", (unsigned)me, lsizes[4] < slot ? lsizes[4] : slot, (unsigned)n);

  /* IMMEDIATE: what it refuses is not delivered, what it accepts is. */
  t_barrier();
  long accepted = 0, refused = 0;
  gex_Rank_t peer = (me + 1) % n;
  for (int i = 0; i < 2000; i++) {
    if (gex_AM_RequestShort0(tm, peer, h_imm, GEX_FLAG_IMMEDIATE) == 0) accepted++;
    else refused++;
  }
  T_CHECK(gex_AM_RequestShort1(tm, peer, h_count, 0, (gex_AM_Arg_t)accepted));
  GASNET_BLOCKUNTIL(imm_count >= 0 && got_imm >= imm_count);
  t_barrier();
  t_barrier(); /* a refused request delivered after all would show up by now */
  printf("node %u: GEX_FLAG_IMMEDIATE: sent 2000, %ld accepted, %ld refused; node %u says it "
         "accepted %d, %d arrived here\n", (unsigned)me, accepted, refused,
         (unsigned)((me + n - 1) % n), imm_count, got_imm);
  T_EXPECT(got_imm == imm_count, "IMMEDIATE: %d arrived, the sender accepted %d", got_imm, imm_count);
  printf("node %u: all GASNet-EX checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
