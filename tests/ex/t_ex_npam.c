/*
 * t_ex_npam.c - GASNet-EX negotiated-payload AMs (Prepare/Commit), against
 * the sentences of ../shared/spec/gasnet-ex-api.txt, "Negotiated-payload
 * Active Messages", on any number of ranks up to 4 (1: every message is a
 * loopback). Each check prints what it compared; the program exits 0 only
 * when all matched (T_EXPECT ends the job otherwise).
 *
 *  - to every rank: Medium and Long requests, with client_buf and with
 *    GASNet's buffer, for every argument count 0..gex_AM_MaxArgs(), each
 *    answered by a Medium or Long reply of the same argument count, also
 *    both ways; the handlers check the arguments, a payload checksum, that
 *    a Medium buffer is 16-aligned and a Long one the destination named,
 *    and gex_Token_Info (srcrank, entry, nargs, is_req, is_long);
 *  - "When the client_buf argument is non-NULL, the address provided by the
 *    return will be exactly that value. Otherwise ... a GASNet-allocated
 *    buffer of the indicated length, suitably aligned to hold any data
 *    type" (16-aligned here), of a size "between the 'least_payload' and
 *    'most_payload' ... (inclusive)": least == most, least < most, and most
 *    above gex_AM_Max*() (the size is capped there);
 *  - nbytes 0, nbytes == gex_AM_SrcDescSize(), and less;
 *  - Long dest_addr given at Prepare (and the same at Commit) or NULL;
 *  - lc_opt with client_buf: an event pointer is complete after Commit,
 *    GEX_EVENT_NOW and GEX_EVENT_GROUP accepted; the buffer reused at once;
 *  - GEX_FLAG_IMMEDIATE: a Prepare that returns GEX_AM_SRCDESC_NO_OP sent
 *    nothing (the target counts arrivals and compares with what the sender
 *    committed), with GASNet's buffer and with client_buf;
 *  - a flood of 20000 NPAM Mediums of varying sizes to the next rank, each
 *    payload verified at the target, the count compared;
 * The last line gives the NPAM requests this rank committed, which
 * t-ex-npam.sh compares with the core's requests_sent (GASNET_STATSFILE).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#define SEGSIZE (16u << 20) /* request slots in the low half, reply slots in the high */

static gex_TM_t tm;
static gex_EP_t ep;
static gex_Rank_t me, n;
static gasnet_seginfo_t *si;
static size_t slot;          /* bytes per rank in each half of the segment */
static size_t max_med, max_long;
static int cdata_mark;

/* every rank here (the library's barrier; tests/ex/t_ex_rma.c tests it) */
static void t_barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

/* ---- payloads and arguments both ends can compute --------------------------------- */
static void fill(unsigned char *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++) p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}
static int check(const unsigned char *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != (unsigned char)(seed * 131 + i * 7 + (i >> 8))) return 0;
  return 1;
}
static unsigned seed_of(unsigned src, unsigned m, size_t len) { return src * 1009 + m * 31 + (unsigned)len; }
static gex_AM_Arg_t arg_of(unsigned src, unsigned m, unsigned i, size_t len) {
  return (gex_AM_Arg_t)(0x5a000000u ^ (src << 20) ^ (m << 12) ^ (i << 8) ^ (unsigned)len);
}

/* ---- the handlers: one per (request/reply, Medium/Long, M) ------------------------ */
enum { REQ_MED, REQ_LONG, REP_MED, REP_LONG, NKINDS };
static gex_AM_Index_t hidx[NKINDS][17];
static volatile int got_req, got_rep;
static unsigned char *reply_client_buf;  /* a request handler's client_buf */

/* The reply a request handler sends: its form, size and destination follow
 * from (M, len), so the requester can check it. */
static size_t reply_len(unsigned m, size_t len) { return (len * 3 + m * 101) % 5000; }

static void token_check(gex_Token_t t, int kind, unsigned m) {
  gex_Token_Info_t ti;
  gex_TI_t got = gex_Token_Info(t, &ti, GEX_TI_ALL);
  int is_req = kind == REQ_MED || kind == REQ_LONG, is_long = kind == REQ_LONG || kind == REP_LONG;
  T_EXPECT(got == GEX_TI_ALL && ti.gex_srcrank < n && ti.gex_ep == ep, "gex_Token_Info: mask %#x",
           (unsigned)got);
  T_EXPECT(ti.gex_entry && ti.gex_entry->gex_index == hidx[kind][m] && ti.gex_entry->gex_nargs == m &&
               ti.gex_entry->gex_cdata == &cdata_mark,
           "gex_Token_Info: entry does not describe handler %u (%u args)", (unsigned)hidx[kind][m], m);
  T_EXPECT(!!ti.gex_is_req == is_req && !!ti.gex_is_long == is_long,
           "gex_Token_Info: is_req %d is_long %d, want %d %d", ti.gex_is_req, ti.gex_is_long, is_req,
           is_long);
}

static void check_msg(gex_Token_t t, int kind, unsigned m, void *buf, size_t len,
                      const gex_AM_Arg_t *a, gex_Rank_t *src_out) {
  token_check(t, kind, m);
  gex_Token_Info_t ti;
  gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
  gex_Rank_t src = ti.gex_srcrank;
  *src_out = src;
  if (kind == REQ_MED || kind == REP_MED)
    T_EXPECT(((uintptr_t)buf & 15) == 0 || len == 0, "Medium buffer %p not 16-aligned", buf);
  else {
    char *want = (char *)si[me].addr + (kind == REQ_LONG ? 0 : SEGSIZE / 2) + (size_t)src * slot;
    T_EXPECT(buf == want, "Long of %zu bytes from %u at %p, want %p", len, (unsigned)src, buf,
             (void *)want);
  }
  T_EXPECT(check(buf, len, seed_of(src, m, len)), "kind %d, %u args: payload of %zu bytes from %u corrupt",
           kind, m, len, (unsigned)src);
  for (unsigned i = 0; i < m; i++)
    T_EXPECT(a[i] == arg_of(src, m, i, len), "kind %d, %u args: arg %u = %#x, want %#x", kind, m, i,
             (unsigned)a[i], (unsigned)arg_of(src, m, i, len));
}

/* Commit the M-argument form; args from arg_of(me, m, i, nbytes). */
#define T_A0(f)
#define T_A1(f) f(0)
#define T_A2(f) T_A1(f), f(1)
#define T_A3(f) T_A2(f), f(2)
#define T_A4(f) T_A3(f), f(3)
#define T_A5(f) T_A4(f), f(4)
#define T_A6(f) T_A5(f), f(5)
#define T_A7(f) T_A6(f), f(6)
#define T_A8(f) T_A7(f), f(7)
#define T_A9(f) T_A8(f), f(8)
#define T_A10(f) T_A9(f), f(9)
#define T_A11(f) T_A10(f), f(10)
#define T_A12(f) T_A11(f), f(11)
#define T_A13(f) T_A12(f), f(12)
#define T_A14(f) T_A13(f), f(13)
#define T_A15(f) T_A14(f), f(14)
#define T_A16(f) T_A15(f), f(15)
#define T_ARG(i) arg_of(me, M_, i, nbytes)
#define T_FOREACH(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
  X(14) X(15) X(16)
#define T_SEP(M) T_SEP_##M
#define T_SEP_0
#define T_SEP_1 ,
#define T_SEP_2 ,
#define T_SEP_3 ,
#define T_SEP_4 ,
#define T_SEP_5 ,
#define T_SEP_6 ,
#define T_SEP_7 ,
#define T_SEP_8 ,
#define T_SEP_9 ,
#define T_SEP_10 ,
#define T_SEP_11 ,
#define T_SEP_12 ,
#define T_SEP_13 ,
#define T_SEP_14 ,
#define T_SEP_15 ,
#define T_SEP_16 ,

/* kind: which Commit; dest: Long only */
static void commit_m(int kind, gex_AM_SrcDesc_t sd, unsigned m, size_t nbytes, void *dest) {
  gex_AM_Index_t h = hidx[kind][m];
  switch (m) {
#define T_CASE(M)                                                                                 \
  case M: {                                                                                       \
    const unsigned M_ = M;                                                                        \
    (void)M_;                                                                                     \
    if (kind == REQ_MED) gex_AM_CommitRequestMedium##M(sd, h, nbytes T_SEP(M) T_A##M(T_ARG));     \
    else if (kind == REQ_LONG) gex_AM_CommitRequestLong##M(sd, h, nbytes, dest T_SEP(M) T_A##M(T_ARG)); \
    else if (kind == REP_MED) gex_AM_CommitReplyMedium##M(sd, h, nbytes T_SEP(M) T_A##M(T_ARG));  \
    else gex_AM_CommitReplyLong##M(sd, h, nbytes, dest T_SEP(M) T_A##M(T_ARG));                   \
    break;                                                                                        \
  }
    T_FOREACH(T_CASE)
#undef T_CASE
  }
}

/* Check a Prepare's result: client_buf's address, or GASNet's buffer,
 * 16-aligned, of a size within [least, most] and not above max. */
static void sd_check(gex_AM_SrcDesc_t sd, const void *client_buf, size_t least, size_t most,
                     size_t max, const char *what) {
  T_EXPECT(sd != GEX_AM_SRCDESC_NO_OP, "%s: NO_OP without GEX_FLAG_IMMEDIATE", what);
  void *a = gex_AM_SrcDescAddr(sd);
  size_t s = gex_AM_SrcDescSize(sd);
  if (client_buf) T_EXPECT(a == client_buf, "%s: SrcDescAddr %p, client_buf %p", what, a, client_buf);
  else T_EXPECT(a && ((uintptr_t)a & 15) == 0, "%s: GASNet's buffer %p is not 16-aligned", what, a);
  T_EXPECT(s >= least && s <= most && s <= max, "%s: SrcDescSize %zu not in [%zu, min(%zu, %zu)]", what,
           s, least, most, max);
  if (most >= max) T_EXPECT(s == max || least == most, "%s: most %zu above Max %zu, size %zu", what,
                            most, max, s);
}

/* Send one Medium or Long reply of M args in (M, len)'s form. */
static void reply(gex_Token_t t, gex_Rank_t src, unsigned m, size_t len) {
  size_t rl = reply_len(m, len);
  int as_long = (m + len) & 1, gbuf = ((m + len) >> 1) & 1;
  size_t max = as_long ? max_long : max_med;
  char *dest = (char *)si[src].addr + SEGSIZE / 2 + (size_t)me * slot;
  void *pdest = as_long && (m & 1) ? dest : NULL; /* dest_addr at Prepare, or not */
  gex_Event_t ev = GEX_EVENT_NO_OP, *lc = gbuf ? NULL : (m & 2) ? GEX_EVENT_NOW : &ev;
  const void *cb = gbuf ? NULL : reply_client_buf;
  gex_AM_SrcDesc_t sd =
      as_long ? gex_AM_PrepareReplyLong(t, cb, rl, rl + 64, pdest, lc, 0, m)
              : gex_AM_PrepareReplyMedium(t, cb, rl, rl + 64, lc, 0, m);
  sd_check(sd, cb, rl, rl + 64, max, "reply Prepare");
  fill(gex_AM_SrcDescAddr(sd), rl, seed_of(me, m, rl));
  commit_m(as_long ? REP_LONG : REP_MED, sd, m, rl, dest);
  if (lc == &ev) T_EXPECT(ev == GEX_EVENT_INVALID, "reply lc_opt event not complete after Commit");
}

static void on_request(gex_Token_t t, int kind, unsigned m, void *buf, size_t len, const gex_AM_Arg_t *a) {
  gex_Rank_t src;
  check_msg(t, kind, m, buf, len, a, &src);
  __atomic_fetch_add(&got_req, 1, __ATOMIC_RELAXED);
  reply(t, src, m, len);
}
static volatile size_t want_reply_len;
static volatile int want_reply_long;
static void on_reply(gex_Token_t t, int kind, unsigned m, void *buf, size_t len, const gex_AM_Arg_t *a) {
  gex_Rank_t src;
  check_msg(t, kind, m, buf, len, a, &src);
  T_EXPECT(len == want_reply_len && (kind == REP_LONG) == want_reply_long,
           "reply of %zu bytes (long %d), want %zu (long %d)", len, kind == REP_LONG,
           (size_t)want_reply_len, want_reply_long);
  __atomic_fetch_add(&got_rep, 1, __ATOMIC_RELEASE);
}

#define T_P0
#define T_P1 T_P0, gex_AM_Arg_t a0
#define T_P2 T_P1, gex_AM_Arg_t a1
#define T_P3 T_P2, gex_AM_Arg_t a2
#define T_P4 T_P3, gex_AM_Arg_t a3
#define T_P5 T_P4, gex_AM_Arg_t a4
#define T_P6 T_P5, gex_AM_Arg_t a5
#define T_P7 T_P6, gex_AM_Arg_t a6
#define T_P8 T_P7, gex_AM_Arg_t a7
#define T_P9 T_P8, gex_AM_Arg_t a8
#define T_P10 T_P9, gex_AM_Arg_t a9
#define T_P11 T_P10, gex_AM_Arg_t a10
#define T_P12 T_P11, gex_AM_Arg_t a11
#define T_P13 T_P12, gex_AM_Arg_t a12
#define T_P14 T_P13, gex_AM_Arg_t a13
#define T_P15 T_P14, gex_AM_Arg_t a14
#define T_P16 T_P15, gex_AM_Arg_t a15
#define T_V(i) a##i
#define T_HANDLERS(M)                                                                              \
  static void h_req_med_##M(gex_Token_t t, void *buf, size_t len T_P##M) {                         \
    gex_AM_Arg_t a[] = {T_A##M(T_V) T_SEP(M) 0};                                                   \
    on_request(t, REQ_MED, M, buf, len, a);                                                        \
  }                                                                                                \
  static void h_req_long_##M(gex_Token_t t, void *buf, size_t len T_P##M) {                        \
    gex_AM_Arg_t a[] = {T_A##M(T_V) T_SEP(M) 0};                                                   \
    on_request(t, REQ_LONG, M, buf, len, a);                                                       \
  }                                                                                                \
  static void h_rep_med_##M(gex_Token_t t, void *buf, size_t len T_P##M) {                         \
    gex_AM_Arg_t a[] = {T_A##M(T_V) T_SEP(M) 0};                                                   \
    on_reply(t, REP_MED, M, buf, len, a);                                                          \
  }                                                                                                \
  static void h_rep_long_##M(gex_Token_t t, void *buf, size_t len T_P##M) {                        \
    gex_AM_Arg_t a[] = {T_A##M(T_V) T_SEP(M) 0};                                                   \
    on_reply(t, REP_LONG, M, buf, len, a);                                                         \
  }
T_FOREACH(T_HANDLERS)
#define T_ENTRIES(M)                                                                               \
  {0, (gex_AM_Fn_t)h_req_med_##M, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, M, &cdata_mark, "npam"}, \
  {0, (gex_AM_Fn_t)h_req_long_##M, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, M, &cdata_mark, "npam"}, \
  {0, (gex_AM_Fn_t)h_rep_med_##M, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, M, &cdata_mark, "npam"},  \
  {0, (gex_AM_Fn_t)h_rep_long_##M, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, M, &cdata_mark, "npam"},

/* ---- IMMEDIATE and the flood ------------------------------------------------------ */
static volatile int got_imm, imm_count = -1, got_flood, flood_bad, flood_count = -1;
static void h_imm(gex_Token_t t, void *buf, size_t len) {
  (void)t; (void)buf; (void)len;
  __atomic_fetch_add(&got_imm, 1, __ATOMIC_RELAXED);
}
static void h_imm_count(gex_Token_t t, gex_AM_Arg_t c) { (void)t; imm_count = c; }
static size_t flood_len(unsigned seq) { return (seq * 2654435761u) % 9000; }
static void h_flood(gex_Token_t t, void *buf, size_t len, gex_AM_Arg_t seq) {
  (void)t;
  if (len != flood_len((unsigned)seq) || !check(buf, len, (unsigned)seq) || ((uintptr_t)buf & 15))
    __atomic_fetch_add(&flood_bad, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&got_flood, 1, __ATOMIC_RELAXED);
}
static void h_flood_count(gex_Token_t t, gex_AM_Arg_t c) { (void)t; flood_count = c; }
static gex_AM_Index_t h_imm_i, h_imm_count_i, h_flood_i, h_flood_count_i;

int main(int argc, char **argv) {
  gex_Client_t client;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_NPAM", &argc, &argv, 0));
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();
  T_EXPECT(n <= 4, "run on 1 to 4 ranks (the segment has a slot per rank)");
  T_EXPECT(GEX_AM_SRCDESC_NO_OP == 0, "GEX_AM_SRCDESC_NO_OP is not zero");
#if defined(GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM)
  printf("node %u: GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM defined (%s conduit header)\n", (unsigned)me,
         GASNET_CONDUIT_NAME_STR);
#endif
  gex_AM_Entry_t table[] = {T_FOREACH(T_ENTRIES)};
  T_CHECK(gex_EP_RegisterHandlers(ep, table, sizeof table / sizeof table[0]));
  for (unsigned m = 0; m <= 16; m++)
    for (int k = 0; k < NKINDS; k++) hidx[k][m] = table[4 * m + k].gex_index;
  gex_AM_Entry_t more[] = {
    {0, (gex_AM_Fn_t)h_imm, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "imm"},
    {0, (gex_AM_Fn_t)h_imm_count, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "imm count"},
    {0, (gex_AM_Fn_t)h_flood, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "flood"},
    {0, (gex_AM_Fn_t)h_flood_count, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "flood count"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, more, 4));
  h_imm_i = more[0].gex_index; h_imm_count_i = more[1].gex_index;
  h_flood_i = more[2].gex_index; h_flood_count_i = more[3].gex_index;

  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, SEGSIZE));
  si = malloc(sizeof *si * n);
  T_CHECK(gasnet_getSegmentInfo(si, (int)n));
  slot = SEGSIZE / 2 / 4;
  max_med = gex_AM_MaxRequestMedium(tm, GEX_RANK_INVALID, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 16);
  max_long = gex_AM_MaxRequestLong(tm, GEX_RANK_INVALID, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 16);
  T_EXPECT(max_long <= slot, "gex_AM_MaxRequestLong %zu above the slot of %zu", max_long, slot);
  printf("node %u: %u ranks; largest least_payload: Medium %zu, Long %zu\n", (unsigned)me,
         (unsigned)n, max_med, max_long);
  unsigned char *cbuf = malloc(max_long);
  reply_client_buf = malloc(max_long);
  T_EXPECT(cbuf && reply_client_buf, "malloc");
  t_barrier();

  /* Every rank, every argument count, four forms; every least/most shape. */
  const size_t sizes[] = {0, 1, 17, 512, 4096, 65536, 300000};
  const size_t nsizes = sizeof sizes / sizeof sizes[0];
  long sent = 0, at_size = 0, capped = 0, pdest = 0;
  for (gex_Rank_t r = 0; r < n; r++) {
    for (unsigned m = 0; m <= 16; m++) {
      for (int form = 0; form < 4; form++) {
        int is_long = form >= 2, gbuf = form & 1;
        size_t max = is_long ? max_long : max_med;
        size_t least = sizes[(m + (unsigned)form + r) % nsizes];
        if (least > max) least = max - 3;
        int shape = (int)((m + (unsigned)form) % 3); /* least == most, most a bit above, most huge */
        size_t most = shape == 0 ? least : shape == 1 ? least + 1000 : (size_t)1 << 40;
        char *dest = (char *)si[r].addr + (size_t)me * slot;
        void *pd = is_long && (m & 1) ? dest : NULL;
        gex_Event_t ev = GEX_EVENT_NO_OP;
        gex_Event_t *lc = gbuf ? NULL : m % 3 == 0 ? &ev : m % 3 == 1 ? GEX_EVENT_NOW : GEX_EVENT_GROUP;
        const void *cb = gbuf ? NULL : cbuf;
        gex_AM_SrcDesc_t sd = is_long ? gex_AM_PrepareRequestLong(tm, r, cb, least, most, pd, lc, 0, m)
                                      : gex_AM_PrepareRequestMedium(tm, r, cb, least, most, lc, 0, m);
        char what[64];
        snprintf(what, sizeof what, "request to %u, %s %s, %u args", (unsigned)r,
                 is_long ? "Long" : "Medium", gbuf ? "GASNet buffer" : "client_buf", m);
        sd_check(sd, cb, least, most, max, what);
        size_t size = gex_AM_SrcDescSize(sd);
        if (size > least && size == max) capped++;
        /* nbytes: the whole size, or least, or 0 */
        size_t nbytes = (m % 4 == 0) ? size : (m % 4 == 3) ? 0 : least;
        if (nbytes == size) at_size++;
        if (pd) pdest++;
        fill(gex_AM_SrcDescAddr(sd), nbytes, seed_of(me, m, nbytes));
        int before = got_rep;
        want_reply_len = reply_len(m, nbytes);
        want_reply_long = (int)((m + nbytes) & 1);
        commit_m(is_long ? REQ_LONG : REQ_MED, sd, m, nbytes, dest);
        if (lc == &ev) T_EXPECT(ev == GEX_EVENT_INVALID, "%s: lc_opt event not complete after Commit", what);
        if (cb) memset(cbuf, 0xee, nbytes); /* client_buf may be reused once Commit returned */
        GASNET_BLOCKUNTIL(got_rep > before);
        sent++;
      }
    }
  }
  printf("node %u: %ld NPAM requests to all %u ranks (Medium/Long x client_buf/GASNet buffer x 0..16 "
         "args), each answered by an NPAM reply, verified: args, checksums, alignment, Token_Info; "
         "%ld with nbytes == SrcDescSize, %ld with the size capped at Max, %ld with dest_addr at Prepare\n",
         (unsigned)me, sent, (unsigned)n, at_size, capped, pdest);
  t_barrier(); /* every request to this rank was answered */
  T_EXPECT(got_req == (int)sent, "%d requests handled here, each rank sent %ld", got_req, sent);

  /* GEX_FLAG_IMMEDIATE: a NO_OP sent nothing. */
  gex_Rank_t peer = (me + 1) % n;
  long accepted = 0, refused = 0;
  for (int i = 0; i < 3000; i++) {
    const void *cb = (i & 1) ? cbuf : NULL;
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(tm, peer, cb, 4096, 4096, cb ? GEX_EVENT_NOW : NULL,
                                                      GEX_FLAG_IMMEDIATE, 0);
    if (sd == GEX_AM_SRCDESC_NO_OP) { refused++; continue; }
    accepted++;
    memset(gex_AM_SrcDescAddr(sd), i & 0xff, 4096);
    gex_AM_CommitRequestMedium0(sd, h_imm_i, 4096);
  }
  T_CHECK(gex_AM_RequestShort1(tm, peer, h_imm_count_i, 0, (gex_AM_Arg_t)accepted));
  GASNET_BLOCKUNTIL(imm_count >= 0 && got_imm >= imm_count);
  t_barrier();
  t_barrier(); /* a refused request delivered after all would show up by now */
  printf("node %u: GEX_FLAG_IMMEDIATE: 3000 Prepares, %ld committed, %ld refused (NO_OP); node %u says "
         "it committed %d, %d arrived here\n", (unsigned)me, accepted, refused,
         (unsigned)((me + n - 1) % n), imm_count, got_imm);
  T_EXPECT(got_imm == imm_count, "IMMEDIATE: %d arrived, the sender committed %d", got_imm, imm_count);

  /* A flood of NPAM Mediums with GASNet's buffer, verified at the target. */
  const int nflood = 20000;
  for (int i = 0; i < nflood; i++) {
    size_t len = flood_len((unsigned)i);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(tm, peer, NULL, len, len, NULL, 0, 1);
    fill(gex_AM_SrcDescAddr(sd), len, (unsigned)i);
    gex_AM_CommitRequestMedium1(sd, h_flood_i, len, i);
  }
  T_CHECK(gex_AM_RequestShort1(tm, peer, h_flood_count_i, 0, nflood));
  GASNET_BLOCKUNTIL(flood_count >= 0 && got_flood >= flood_count);
  printf("node %u: flood: %d NPAM Mediums of 0..8999 bytes sent to %u; %d of %d arrived here, %d bad\n",
         (unsigned)me, nflood, (unsigned)peer, got_flood, flood_count, flood_bad);
  T_EXPECT(got_flood == flood_count && flood_bad == 0, "flood: %d of %d arrived, %d bad", got_flood,
           flood_count, flood_bad);
  t_barrier();
  printf("node %u: NPAM requests committed: %ld\n", (unsigned)me, sent + accepted + nflood);
  printf("node %u: all negotiated-payload checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
