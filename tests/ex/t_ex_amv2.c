/*
 * t_ex_amv2.c - GASNet-EX v0.19's gex_AM_Commit<XXX>[M]_v2 and
 * gex_AM_Cancel<XXX> (../shared/spec/gasnet-ex-api-0.19.txt, both
 * [EXPERIMENTAL]) on any number of ranks up to 8. Each check prints what it
 * compared; the program exits 0 only when all matched (T_EXPECT ends the
 * job otherwise). Every target counts what arrived from each sender, and
 * compares it at the end with what the sender says it committed: so a
 * cancelled or refused message that was delivered anyway is caught.
 *
 *  - GASNET_SUPPORTS_AM_COMMIT_V2 == 20240906L and GASNET_SUPPORTS_AM_CANCEL
 *    == 20240418L, in #if;
 *  - to every rank: Medium and Long requests, client_buf and GASNet's
 *    buffer, committed by the _v2 forms with commit_flags 0 (identical to
 *    Commit: 0 returned, the payload arrives) and GEX_FLAG_IMMEDIATE ("a
 *    'no op' IF AND ONLY IF" non-zero: then nothing arrived and "the sd
 *    remains unchanged and valid": the same SrcDesc is committed again with
 *    flags 0, or cancelled); with [M] (..._v2 with M 2) and without (the
 *    variadic form);
 *  - gex_AM_Cancel{Request,Reply}{Medium,Long}: after a Prepare with and
 *    without client_buf, flags 1 returns GASNET_ERR_BAD_ARG (the Prepare
 *    still open), flags 0 returns 0, nothing is delivered, and the next
 *    Prepare/Commit works; a request handler that cancels its reply then
 *    replies with gex_AM_ReplyMedium/Long (fixed payload), which the
 *    requester receives (and no other reply);
 *  - replies committed by the _v2 forms with 0 and GEX_FLAG_IMMEDIATE;
 *  - a flood of 2000 client_buf Mediums committed with GEX_FLAG_IMMEDIATE
 *    to the next rank: the line "immediate commits: K of 2000 refused"
 *    (t-ex-amv2.sh wants K > 0 where room is scarce), each refusal
 *    followed, in turn, by a Commit with flags 0 or a Cancel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#if !defined(GASNET_SUPPORTS_AM_COMMIT_V2) || GASNET_SUPPORTS_AM_COMMIT_V2 != 20240906L
#error "GASNET_SUPPORTS_AM_COMMIT_V2 is not 20240906L"
#endif
#if !defined(GASNET_SUPPORTS_AM_CANCEL) || GASNET_SUPPORTS_AM_CANCEL != 20240418L
#error "GASNET_SUPPORTS_AM_CANCEL is not 20240418L"
#endif

#define MAXN 8
#define SEGSIZE (8u << 20)
#define FLOOD 2000

static gex_TM_t tm;
static gex_Rank_t me, n;
static gasnet_seginfo_t *si;
static size_t slot; /* bytes per sender in the request half (and reply half) */
static gex_AM_Index_t h_med, h_long, h_ask, h_rep_med, h_rep_long, h_count;
static volatile long arrived[MAXN];   /* requests from each rank */
static volatile long announced[MAXN]; /* what each rank says it committed to me (-1: not yet) */
static volatile int reply_tag = -1;   /* the form of the last reply received */
static long committed[MAXN];          /* requests I committed to each rank */
static unsigned char *cbuf;           /* a client_buf */

static void fill(unsigned char *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++) p[i] = (unsigned char)(seed * 37 + i * 11 + (i >> 7));
}
static int check(const unsigned char *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != (unsigned char)(seed * 37 + i * 11 + (i >> 7))) return 0;
  return 1;
}
static gex_Rank_t src_of(gex_Token_t t) {
  gex_Token_Info_t ti;
  gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
  return ti.gex_srcrank;
}

/* ---- requests that count -------------------------------------------------------- */
static void med(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t seed, gex_AM_Arg_t alen) {
  gex_Rank_t src = src_of(t);
  T_EXPECT((size_t)alen == len && check(buf, len, (unsigned)seed),
           "Medium from %u: %zu bytes (arg %d), seed %d: payload corrupt", (unsigned)src, len,
           (int)alen, (int)seed);
  arrived[src]++;
}
static void lng(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t seed, gex_AM_Arg_t alen) {
  gex_Rank_t src = src_of(t);
  void *want = (char *)si[me].addr + (size_t)src * slot;
  T_EXPECT(buf == want && (size_t)alen == len && check(buf, len, (unsigned)seed),
           "Long from %u at %p (want %p): %zu bytes, seed %d: payload corrupt", (unsigned)src, buf,
           want, len, (int)seed);
  arrived[src]++;
}
static void count(gex_Token_t t, gex_AM_Arg_t k) { announced[src_of(t)] = k; }

/* ---- replies: tag says which form sent it --------------------------------------- */
enum { TAG_V2_MED = 1, TAG_V2_LONG, TAG_FIXED_MED, TAG_FIXED_LONG };
static void rep_med(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t tag, gex_AM_Arg_t seed) {
  T_EXPECT(check(buf, len, (unsigned)seed), "reply Medium (tag %d) from %u corrupt", (int)tag,
           (unsigned)src_of(t));
  T_EXPECT(reply_tag == -1, "a second reply (tag %d) to one request", (int)tag);
  reply_tag = tag;
}
static void rep_long(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t tag, gex_AM_Arg_t seed) {
  void *want = (char *)si[me].addr + SEGSIZE / 2 + (size_t)src_of(t) * slot;
  T_EXPECT(buf == want && check(buf, len, (unsigned)seed), "reply Long (tag %d) from %u corrupt",
           (int)tag, (unsigned)src_of(t));
  T_EXPECT(reply_tag == -1, "a second reply (tag %d) to one request", (int)tag);
  reply_tag = tag;
}

/* How a request handler answers (mode): Commit*_v2 with 0 or IMMEDIATE, or
 * a Cancel of the Prepare followed by a fixed-payload reply. */
static unsigned char reply_buf[4096];
static void ask(gex_Token_t t, gex_AM_Arg_t mode) {
  gex_Rank_t src = src_of(t);
  void *dest = (char *)si[src].addr + SEGSIZE / 2 + (size_t)me * slot;
  size_t len = 1000 + (size_t)mode;
  gex_AM_Arg_t seed = 500 + mode;
  int is_long = mode & 1;
  const void *cb = mode & 2 ? reply_buf : NULL;
  gex_Event_t *lc = cb ? GEX_EVENT_NOW : NULL;
  gex_AM_SrcDesc_t sd = is_long ? gex_AM_PrepareReplyLong(t, cb, len, len, dest, lc, 0, 2)
                                : gex_AM_PrepareReplyMedium(t, cb, len, len, lc, 0, 2);
  T_EXPECT(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) == len, "reply Prepare, mode %d",
           (int)mode);
  unsigned char *p = gex_AM_SrcDescAddr(sd);
  if (mode >= 4) { /* cancel, then the fixed-payload reply */
    int rc = is_long ? gex_AM_CancelReplyLong(sd, 1) : gex_AM_CancelReplyMedium(sd, 1);
    T_EXPECT(rc == GASNET_ERR_BAD_ARG, "gex_AM_CancelReply*(flags 1) returned %d", rc);
    rc = is_long ? gex_AM_CancelReplyLong(sd, 0) : gex_AM_CancelReplyMedium(sd, 0);
    T_EXPECT(rc == 0, "gex_AM_CancelReply*(flags 0) returned %d", rc);
    unsigned char fixed[1500];
    fill(fixed, len, (unsigned)seed);
    if (is_long) gex_AM_ReplyLong(t, h_rep_long, fixed, len, dest, GEX_EVENT_NOW, 0,
                                  TAG_FIXED_LONG, seed);
    else gex_AM_ReplyMedium(t, h_rep_med, fixed, len, GEX_EVENT_NOW, 0, TAG_FIXED_MED, seed);
    return;
  }
  fill(p, len, (unsigned)seed);
  gex_Flags_t f = mode & 2 ? GEX_FLAG_IMMEDIATE : 0;
  int rc = is_long ? gex_AM_CommitReplyLong_v2(sd, h_rep_long, len, dest, f, TAG_V2_LONG, seed)
                   : gex_AM_CommitReplyMedium2_v2(sd, h_rep_med, len, f, TAG_V2_MED, seed);
  if (rc != 0) { /* IMMEDIATE refused: the SrcDesc is still ours */
    T_EXPECT(f != 0, "gex_AM_CommitReply*_v2 with commit_flags 0 returned %d", rc);
    rc = is_long ? gex_AM_CommitReplyLong_v2(sd, h_rep_long, len, dest, 0, TAG_V2_LONG, seed)
                 : gex_AM_CommitReplyMedium2_v2(sd, h_rep_med, len, 0, TAG_V2_MED, seed);
    T_EXPECT(rc == 0, "gex_AM_CommitReply*_v2 with commit_flags 0 returned %d", rc);
  }
}

/* ---- the requester's side ---------------------------------------------------------- */
static unsigned seed_ctr;

/* One request of (is_long, client_buf, commit flags) to r, by the _v2 form
 * with [M] (use_m) or without; refused: commit again with 0 or cancel
 * (alternately). Returns 1 if it was refused once. */
static int request(gex_Rank_t r, int is_long, int use_cb, gex_Flags_t cflags, int use_m,
                   size_t len, int cancel_on_refusal) {
  unsigned seed = ++seed_ctr;
  void *dest = (char *)si[r].addr + (size_t)me * slot;
  const void *cb = use_cb ? cbuf : NULL;
  if (use_cb) fill(cbuf, len, seed);
  gex_Event_t *lc = use_cb ? GEX_EVENT_NOW : NULL; /* cbuf is refilled next time */
  gex_AM_SrcDesc_t sd = is_long ? gex_AM_PrepareRequestLong(tm, r, cb, len, len, NULL, lc, 0, 2)
                                : gex_AM_PrepareRequestMedium(tm, r, cb, len, len, lc, 0, 2);
  T_EXPECT(sd != GEX_AM_SRCDESC_NO_OP, "Prepare without IMMEDIATE returned NO_OP");
  if (!use_cb) fill(gex_AM_SrcDescAddr(sd), len, seed);
  gex_AM_Arg_t a0 = (gex_AM_Arg_t)seed, a1 = (gex_AM_Arg_t)len;
  int rc;
  if (is_long)
    rc = use_m ? gex_AM_CommitRequestLong2_v2(sd, h_long, len, dest, cflags, a0, a1)
               : gex_AM_CommitRequestLong_v2(sd, h_long, len, dest, cflags, a0, a1);
  else
    rc = use_m ? gex_AM_CommitRequestMedium2_v2(sd, h_med, len, cflags, a0, a1)
               : gex_AM_CommitRequestMedium_v2(sd, h_med, len, cflags, a0, a1);
  if (rc == 0) { committed[r]++; return 0; }
  T_EXPECT(cflags == GEX_FLAG_IMMEDIATE, "Commit*_v2 with commit_flags 0 returned %d", rc);
  if (cancel_on_refusal) {
    rc = is_long ? gex_AM_CancelRequestLong(sd, 0) : gex_AM_CancelRequestMedium(sd, 0);
    T_EXPECT(rc == 0, "Cancel after a refused Commit*_v2 returned %d", rc);
    return 1;
  }
  rc = is_long ? gex_AM_CommitRequestLong2_v2(sd, h_long, len, dest, 0, a0, a1)
               : gex_AM_CommitRequestMedium2_v2(sd, h_med, len, 0, a0, a1);
  T_EXPECT(rc == 0, "the second Commit*_v2 (flags 0) of a refused SrcDesc returned %d", rc);
  committed[r]++;
  return 1;
}

/* Prepare and cancel each of the four request forms, flags 1 refused first. */
static void cancel_requests(gex_Rank_t r, size_t len) {
  for (int form = 0; form < 4; form++) {
    int is_long = form & 1, use_cb = form >> 1;
    const void *cb = use_cb ? cbuf : NULL;
    gex_Event_t *lc = use_cb ? GEX_EVENT_GROUP : NULL;
    gex_AM_SrcDesc_t sd = is_long ? gex_AM_PrepareRequestLong(tm, r, cb, len, len, NULL, lc, 0, 2)
                                  : gex_AM_PrepareRequestMedium(tm, r, cb, len, len, lc, 0, 2);
    T_EXPECT(sd != GEX_AM_SRCDESC_NO_OP, "Prepare");
    if (!use_cb) memset(gex_AM_SrcDescAddr(sd), 0xee, len); /* would fail the check if sent */
    int rc = is_long ? gex_AM_CancelRequestLong(sd, 1) : gex_AM_CancelRequestMedium(sd, 1);
    T_EXPECT(rc == GASNET_ERR_BAD_ARG, "gex_AM_CancelRequest%s(flags 1): %d, want BAD_ARG",
             is_long ? "Long" : "Medium", rc);
    rc = is_long ? gex_AM_CancelRequestLong(sd, 0) : gex_AM_CancelRequestMedium(sd, 0);
    T_EXPECT(rc == 0, "gex_AM_CancelRequest%s(flags 0): %d", is_long ? "Long" : "Medium", rc);
    request(r, is_long, use_cb, 0, form & 1, len, 0); /* the next Prepare/Commit works */
  }
}

static void replies(gex_Rank_t r) {
  static const char *what[] = {"Medium _v2 0", "Long _v2 0", "Medium _v2 IMMEDIATE",
                               "Long _v2 IMMEDIATE", "Medium cancelled", "Long cancelled"};
  for (int mode = 0; mode < 6; mode++) {
    reply_tag = -1;
    gex_AM_RequestShort(tm, r, h_ask, 0, mode);
    GASNET_BLOCKUNTIL(reply_tag != -1);
    int want = mode >= 4 ? ((mode & 1) ? TAG_FIXED_LONG : TAG_FIXED_MED)
                         : ((mode & 1) ? TAG_V2_LONG : TAG_V2_MED);
    T_EXPECT(reply_tag == want, "reply mode %s from %u: tag %d, want %d", what[mode],
             (unsigned)r, reply_tag, want);
  }
  reply_tag = -1; /* a stray second reply to the last would show here */
  gex_AM_RequestShort(tm, r, h_ask, 0, 0);
  GASNET_BLOCKUNTIL(reply_tag != -1);
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "t_ex_amv2", &argc, &argv, 0));
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();
  T_EXPECT(n <= MAXN, "run on 1 to %d ranks", MAXN);
  gex_AM_Entry_t t[] = {
    {0, (gex_AM_Fn_t)med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "med"},
    {0, (gex_AM_Fn_t)lng, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "long"},
    {0, (gex_AM_Fn_t)ask, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "ask"},
    {0, (gex_AM_Fn_t)rep_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2, NULL, "rep med"},
    {0, (gex_AM_Fn_t)rep_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, NULL, "rep long"},
    {0, (gex_AM_Fn_t)count, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "count"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, t, 6));
  h_med = t[0].gex_index; h_long = t[1].gex_index; h_ask = t[2].gex_index;
  h_rep_med = t[3].gex_index; h_rep_long = t[4].gex_index; h_count = t[5].gex_index;
  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, SEGSIZE));
  si = malloc(sizeof *si * n);
  T_CHECK(gasnet_getSegmentInfo(si, (int)n));
  slot = SEGSIZE / 2 / MAXN;
  for (int i = 0; i < MAXN; i++) announced[i] = -1;
  cbuf = malloc(65536);
  T_EXPECT(cbuf && si, "malloc");
  gex_Coll_BarrierBlocking(tm, 0);

  long refused = 0, forms = 0;
  const size_t lens[] = {0, 8, 1000, 4096};
  for (gex_Rank_t r = 0; r < n; r++) {
    for (int k = 0; k < 16; k++) {
      int is_long = k & 1, use_cb = (k >> 1) & 1, imm = (k >> 2) & 1, use_m = (k >> 3) & 1;
      refused += request(r, is_long, use_cb, imm ? GEX_FLAG_IMMEDIATE : 0, use_m,
                         lens[(unsigned)k % 4], 0);
      forms++;
    }
    cancel_requests(r, 512);
    replies(r);
  }
  printf("node %u: %ld Commit*_v2 requests to %u ranks (Medium/Long, client_buf or not, "
         "flags 0/IMMEDIATE, [M] or not), %ld refused and committed again; 4 cancelled "
         "requests and 6 reply forms per rank\n", (unsigned)me, forms, (unsigned)n, refused);

  /* Flood the next rank with IMMEDIATE commits of client_buf Mediums. */
  gex_Rank_t next = (me + 1) % n;
  long flood_refused = 0;
  for (int i = 0; i < FLOOD; i++)
    flood_refused += request(next, 0, 1, GEX_FLAG_IMMEDIATE, i & 1, 1024 + (size_t)(i % 7),
                             (int)(flood_refused & 1));
  printf("node %u: immediate commits: %ld of %d refused\n", (unsigned)me, flood_refused, FLOOD);

  for (gex_Rank_t r = 0; r < n; r++) gex_AM_RequestShort(tm, r, h_count, 0, committed[r]);
  for (gex_Rank_t r = 0; r < n; r++) {
    GASNET_BLOCKUNTIL(announced[r] >= 0 && arrived[r] >= announced[r]);
    gasnet_AMPoll(); /* any extra arrival (a cancelled message sent anyway) shows up now */
    gex_Coll_BarrierBlocking(tm, 0);
    T_EXPECT(arrived[r] == announced[r], "from %u: %ld requests arrived, %ld committed",
             (unsigned)r, arrived[r], announced[r]);
  }
  printf("node %u: from each of %u ranks exactly the committed requests arrived\n", (unsigned)me,
         (unsigned)n);
  gex_Coll_BarrierBlocking(tm, 0);
  printf("node %u: all Commit_v2 and Cancel checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
