/*
 * t_ex_variadic.c - the AM forms without [M] (gasnet-ex-api.txt: "on
 * compilers supporting the __VA_ARGS__ preprocessor feature ... the [M] may
 * optionally be omitted entirely and is inferred based on the argument
 * count"), compiled as a strict ISO C99 client (-std=c99 -pedantic
 * -Werror, tests/ex/Makefile.inc) and run on one rank: every category and
 * direction with 0, 1, 3 and 16 arguments reaches a handler registered for
 * that count with the values sent. gasnet_ratomic.h compiles there too:
 * one FADD of each type on the rank's own segment.
 * gasnet_vis.h too: one strided put (a 2x2 transpose onto itself) and
 * one vector get.
 */
#include <stdio.h>
#include <string.h>
#include "gasnetex.h"
#include "gasnet_ratomic.h"
#include "gasnet_vis.h"
#include "../lib/t_check.h"

enum { H_S0 = 130, H_S1, H_S3, H_S16, H_M0, H_M3, H_L1, H_L16, H_R0, H_R3 };
typedef gex_AM_Arg_t A;
static int calls, bad;
static char seg_dummy;
static void got(int nargs, const A *a) {
  calls++;
  for (int i = 0; i < nargs; i++) bad += a[i] != 100 + i;
}
static void s0(gex_Token_t t) { (void)t; got(0, NULL); }
static void s1(gex_Token_t t, A a0) { A a[] = {a0}; (void)t; got(1, a); }
static void s3(gex_Token_t t, A a0, A a1, A a2) {
  A a[] = {a0, a1, a2};
  got(3, a);
  gex_AM_ReplyShort(t, H_R3, 0, 100, 101, 102); /* a reply with 3 */
}
static void s16(gex_Token_t t, A a0, A a1, A a2, A a3, A a4, A a5, A a6, A a7, A a8, A a9, A a10,
                A a11, A a12, A a13, A a14, A a15) {
  A a[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  (void)t;
  got(16, a);
}
static void m0(gex_Token_t t, void *b, size_t n) {
  (void)b; (void)n;
  got(0, NULL);
  gex_AM_ReplyMedium(t, H_R0, &seg_dummy, 1, GEX_EVENT_NOW, 0); /* a reply with 0 */
}
static void m3(gex_Token_t t, void *b, size_t n, A a0, A a1, A a2) {
  A a[] = {a0, a1, a2};
  (void)t; (void)b; (void)n;
  got(3, a);
}
static void l1(gex_Token_t t, void *b, size_t n, A a0) { A a[] = {a0}; (void)t; (void)b; (void)n; got(1, a); }
static void l16(gex_Token_t t, void *b, size_t n, A a0, A a1, A a2, A a3, A a4, A a5, A a6, A a7,
                A a8, A a9, A a10, A a11, A a12, A a13, A a14, A a15) {
  A a[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  (void)t; (void)b; (void)n;
  got(16, a);
}
static void r0(gex_Token_t t, void *b, size_t n) { (void)t; (void)b; (void)n; got(0, NULL); }
static void r3(gex_Token_t t, A a0, A a1, A a2) { A a[] = {a0, a1, a2}; (void)t; got(3, a); }

#define E(i, f, fl, n) { i, (gex_AM_Fn_t)f, fl | GEX_FLAG_AM_REQUEST, n, NULL, #f }
#define R(i, f, fl, n) { i, (gex_AM_Fn_t)f, fl | GEX_FLAG_AM_REPLY, n, NULL, #f }

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  gex_TM_t tm;
  gex_Segment_t seg;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_VARIADIC", &argc, &argv, 0));
  gex_AM_Entry_t h[] = {
    E(H_S0, s0, GEX_FLAG_AM_SHORT, 0), E(H_S1, s1, GEX_FLAG_AM_SHORT, 1),
    E(H_S3, s3, GEX_FLAG_AM_SHORT, 3), E(H_S16, s16, GEX_FLAG_AM_SHORT, 16),
    E(H_M0, m0, GEX_FLAG_AM_MEDIUM, 0), E(H_M3, m3, GEX_FLAG_AM_MEDIUM, 3),
    E(H_L1, l1, GEX_FLAG_AM_LONG, 1), E(H_L16, l16, GEX_FLAG_AM_LONG, 16),
    R(H_R0, r0, GEX_FLAG_AM_MEDIUM, 0), R(H_R3, r3, GEX_FLAG_AM_SHORT, 3),
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, h, sizeof h / sizeof h[0]));
  T_CHECK(gex_Segment_Attach(&seg, tm, GASNET_PAGESIZE));
  char *dst = gex_Segment_QueryAddr(seg), src[8] = "abcdefg";
  gex_Rank_t me = gex_System_QueryJobRank();
  gex_AM_RequestShort(tm, me, H_S0, 0);
  gex_AM_RequestShort(tm, me, H_S1, 0, 100);
  gex_AM_RequestShort(tm, me, H_S3, 0, 100, 101, 102);
  gex_AM_RequestShort(tm, me, H_S16, 0, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110,
                      111, 112, 113, 114, 115);
  gex_AM_RequestMedium(tm, me, H_M0, src, 8, GEX_EVENT_NOW, 0);
  gex_AM_RequestMedium(tm, me, H_M3, src, 8, GEX_EVENT_NOW, 0, 100, 101, 102);
  gex_AM_RequestLong(tm, me, H_L1, src, 8, dst, GEX_EVENT_NOW, 0, 100);
  gex_AM_RequestLong(tm, me, H_L16, src, 8, dst, GEX_EVENT_NOW, 0, 100, 101, 102, 103, 104, 105,
                     106, 107, 108, 109, 110, 111, 112, 113, 114, 115);
  gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(tm, me, NULL, 8, 8, NULL, 0, 3);
  memcpy(gex_AM_SrcDescAddr(sd), src, 8);
  gex_AM_CommitRequestMedium(sd, H_M3, 8, 100, 101, 102);
  sd = gex_AM_PrepareRequestLong(tm, me, NULL, 8, 8, dst, NULL, 0, 1);
  memcpy(gex_AM_SrcDescAddr(sd), src, 8);
  gex_AM_CommitRequestLong(sd, H_L1, 8, dst, 100);
  GASNET_BLOCKUNTIL(calls == 12);
  printf("node %u: %d handlers ran through the forms without [M], %d wrong arguments "
         "(want 12 and 0)\n", (unsigned)me, calls, bad);
  T_EXPECT(calls == 12 && bad == 0, "the [M]-less forms");
  gex_AD_t ad[6];
  const gex_DT_t dts[6] = { GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64, GEX_DT_FLT, GEX_DT_DBL };
  for (int i = 0; i < 6; i++) gex_AD_Create(&ad[i], tm, dts[i], GEX_OP_FADD, 0);
  int32_t i32 = 0;
  uint32_t u32 = 0;
  int64_t i64 = 0;
  uint64_t u64 = 0;
  float f = 0;
  double d = 0;
  void *slot = dst + 64; /* 8-byte aligned, 0 after the Longs */
  memset(slot, 0, 8);
  gex_Event_Wait(gex_AD_OpNB_I32(ad[0], &i32, me, slot, GEX_OP_FADD, 1, 0, 0));
  gex_Event_Wait(gex_AD_OpNB_U32(ad[1], &u32, me, slot, GEX_OP_FADD, 1, 0, 0));
  memset(slot, 0, 8);
  gex_Event_Wait(gex_AD_OpNB_I64(ad[2], &i64, me, slot, GEX_OP_FADD, 1, 0, 0));
  gex_Event_Wait(gex_AD_OpNB_U64(ad[3], &u64, me, slot, GEX_OP_FADD, 1, 0, 0));
  memset(slot, 0, 8);
  T_CHECK(gex_AD_OpNBI_FLT(ad[4], &f, me, slot, GEX_OP_FADD, 1.5f, 0, 0));
  memset(slot, 0, 8);
  T_CHECK(gex_AD_OpNBI_DBL(ad[5], &d, me, slot, GEX_OP_FADD, 2.5, 0, 0));
  T_CHECK(gex_AD_OpNBI_DBL(ad[5], &d, me, slot, GEX_OP_FADD, 2.5, 0, 0));
  gex_NBI_Wait(GEX_EC_RMW, 0);
  T_EXPECT(i32 == 0 && u32 == 1 && i64 == 0 && u64 == 1 && f == 0 && d == 2.5,
           "gasnet_ratomic.h: fetched %d %u %lld %llu %g %g", (int)i32, (unsigned)u32,
           (long long)i64, (unsigned long long)u64, (double)f, d);
  for (int i = 0; i < 6; i++) gex_AD_Destroy(ad[i]);
  { /* gasnet_vis.h in a strict client: a transpose, then a vector get back */
    uint32_t m[4] = { 1, 2, 3, 4 }, back[4] = { 0, 0, 0, 0 };
    size_t count[2] = { 2, 2 };
    ptrdiff_t rows[2] = { 4, 8 }, cols[2] = { 8, 4 };
    gex_Memvec_t dv[2] = { { back, 8 }, { back + 2, 8 } }, sv[1] = { { dst, 16 } };
    T_EXPECT(gex_VIS_StridedPutBlocking(tm, me, dst, cols, m, rows, 4, count, 2, 0) == 0, "VIS put");
    gex_Event_Wait(gex_VIS_VectorGetNB(tm, 2, dv, me, 1, sv, 0));
    printf("node %u: gasnet_vis.h: a transposed 2x2 put read back as %u %u %u %u (want 1 3 2 4)\n",
           (unsigned)me, back[0], back[1], back[2], back[3]);
    T_EXPECT(back[0] == 1 && back[1] == 3 && back[2] == 2 && back[3] == 4, "VIS transpose");
  }
  printf("node %u: all variadic checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
