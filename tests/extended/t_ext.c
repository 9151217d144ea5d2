/*
 * t_ext.c - every put/get/memset/value/sync call of spec section 3, data
 * verified, on any number of ranks.
 *
 *   gasnetrun -n N tests/extended/t_ext [MAXSIZE]
 *
 * Rank i writes only into rank (i+1)%N's area A (itself when N = 1, which
 * exercises loopback) and lands Long-reply gets in its own area B, so ranks
 * never disturb each other. For each size around every internal threshold
 * (0, tiny, around 4 KiB, gasnet_AMMaxMedium, gasnet_AMMaxLong, the 4 MiB
 * pipeline, up to 16 MiB), at unaligned offsets:
 *   fence the target window with gasnet_memset guards, put it with one of
 *   the 7 put shapes (blocking, bulk, nb, nb_bulk, nbi, nbi_bulk, access
 *   region), read it back with one of the 7 get shapes into heap memory
 *   (Medium replies) or into our segment (Long replies), compare, and check
 *   the guards are intact.
 * Then memset_nb/nbi, value operations of 1..8 bytes, the sync list calls,
 * 65535 outstanding nb puts and nbi gets, access-region coverage, wait modes
 * and the thread-info macros. Prints one summary line per rank.
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "t_ext_util.h"

#define MiB (1024u * 1024u)
#define AREA (17u * MiB)         /* A: written by our left neighbour */
#define MISC (4u * MiB)
#define SEGSIZE (2u * AREA + MISC)
#define GUARD 8

static gasnet_seginfo_t *seg;
static gasnet_node_t me, n, peer;
static char *areaA(gasnet_node_t node) { return (char *)seg[node].addr; }
static char *areaB(void) { return (char *)seg[me].addr + AREA; }
static char *misc(gasnet_node_t node) { return (char *)seg[node].addr + 2 * AREA; }
static unsigned long checks;

#include <time.h>
static double t_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}
static double t_last;
static void phase_done(const char *what) {
  double t = t_now();
  if (me == 0 && getenv("T_EXT_TIMES")) printf("node 0: %-12s %.2f s\n", what, t - t_last);
  t_last = t;
}

static void bar(void) {
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  T_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
}

static const char *put_names[] = { "put", "put_bulk", "put_nb", "put_nb_bulk", "put_nbi",
                                   "put_nbi_bulk", "region put_nbi" };
static const char *get_names[] = { "get", "get_bulk", "get_nb", "get_nb_bulk", "get_nbi",
                                   "get_nbi_bulk", "region get_nbi_bulk" };

static void do_put(int v, gasnet_node_t node, void *dst, void *src, size_t len) {
  GASNET_BEGIN_FUNCTION();
  gasnet_handle_t h;
  switch (v) {
  case 0: gasnet_put(node, dst, src, len); break;
  case 1: gasnet_put_bulk(node, dst, src, len); break;
  case 2: gasnet_wait_syncnb(gasnet_put_nb(node, dst, src, len)); break;
  case 3:
    h = gasnet_put_nb_bulk(node, dst, src, len);
    while (gasnet_try_syncnb(h) != GASNET_OK) {}
    break;
  case 4: gasnet_put_nbi(node, dst, src, len); gasnet_wait_syncnbi_puts(); break;
  case 5:
    gasnet_put_nbi_bulk(node, dst, src, len);
    while (gasnet_try_syncnbi_all() != GASNET_OK) {}
    break;
  case 6:
    gasnet_begin_nbi_accessregion();
    gasnet_put_nbi(node, dst, src, len / 2);
    gasnet_put_nbi_bulk(node, (char *)dst + len / 2, (char *)src + len / 2, len - len / 2);
    gasnet_wait_syncnb(gasnet_end_nbi_accessregion());
    break;
  }
}

static void do_get(int v, void *dst, gasnet_node_t node, void *src, size_t len) {
  GASNET_POST_THREADINFO(GASNET_GET_THREADINFO());
  gasnet_handle_t h[2];
  switch (v) {
  case 0: gasnet_get(dst, node, src, len); break;
  case 1: gasnet_get_bulk(dst, node, src, len); break;
  case 2: gasnet_wait_syncnb(gasnet_get_nb(dst, node, src, len)); break;
  case 3:
    h[0] = gasnet_get_nb_bulk(dst, node, src, len / 3);
    h[1] = gasnet_get_nb_bulk((char *)dst + len / 3, node, (char *)src + len / 3, len - len / 3);
    gasnet_wait_syncnb_all(h, 2);
    T_EXPECT(h[0] == GASNET_INVALID_HANDLE && h[1] == GASNET_INVALID_HANDLE,
             "wait_syncnb_all left a handle valid");
    break;
  case 4: gasnet_get_nbi(dst, node, src, len); gasnet_wait_syncnbi_gets(); break;
  case 5:
    gasnet_get_nbi_bulk(dst, node, src, len);
    while (gasnet_try_syncnbi_gets() != GASNET_OK) {}
    break;
  case 6:
    gasnet_begin_nbi_accessregion();
    gasnet_get_nbi_bulk(dst, node, src, len);
    h[0] = gasnet_end_nbi_accessregion();
    while (gasnet_try_syncnb_some(h, 1) != GASNET_OK) {}
    T_EXPECT(h[0] == GASNET_INVALID_HANDLE, "try_syncnb_some OK but handle still valid");
    break;
  }
}

/* One put + get round: guards, put shape pv, get shape gv into heap/segment. */
static void round_trip(size_t len, size_t soff, size_t doff, int pv, int gv, int into_seg,
                       char *src, char *heapdst, uint32_t seed) {
  char *rdst = areaA(peer) + GUARD + doff;
  t_fill(src + soff, len, seed);
  /* fence [rdst-GUARD, rdst+len+GUARD) with 0xEE */
  gasnet_memset(peer, rdst - GUARD, 0xEE, len + 2 * GUARD);
  do_put(pv, peer, rdst, src + soff, len);
  char *ldst = into_seg ? areaB() + 5 : heapdst + 3;
  memset(ldst, 0x11, len + 2 * GUARD);
  do_get(gv, ldst, peer, rdst - GUARD, len + 2 * GUARD);
  for (int g = 0; g < GUARD; g++)
    T_EXPECT((unsigned char)ldst[g] == 0xEE && (unsigned char)ldst[GUARD + len + g] == 0xEE,
             "guard byte %d around %zu bytes changed (%s / %s)", g, len, put_names[pv],
             get_names[gv]);
  T_EXPECT(memcmp(ldst + GUARD, src + soff, len) == 0,
           "%zu bytes differ after %s + %s (%s)", len, put_names[pv], get_names[gv],
           into_seg ? "into segment" : "into heap");
  checks++;
}

static void test_sizes(size_t maxsize) {
  const size_t M = gasnet_AMMaxMedium(), L = gasnet_AMMaxLongRequest();
  const size_t sizes[] = { 0, 1, 2, 3, 7, 8, 9, 16, 31, 64, 100, 4095, 4096, 4097, M - 1, M,
                           M + 1, 2 * M + 17, L - 1, L, L + 1, 2 * L + 3, 4 * L - 5, 4 * L,
                           4 * L + 1, 9 * L + 77, 16 * MiB };
  char *src = malloc(AREA), *heapdst = malloc(AREA);
  int k = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t len = sizes[s];
    if (len > maxsize) continue;
    for (int v = 0; v < 7; v++) {
      /* above 1 MiB two shapes per size (rotating), to keep the run short */
      if (len > L && v % 4 != (int)s % 4) continue;
      int gv = (v + (int)s) % 7, into_seg = (k++ & 1);
      size_t soff = (size_t)(v + s) % 8, doff = (size_t)(3 * v + s) % 8;
      round_trip(len, soff, doff, v, gv, into_seg, src, heapdst, (uint32_t)(me * 1000 + s * 10 + v));
    }
  }
  free(src);
  free(heapdst);
}

static void test_memset(void) {
  char *r = areaA(peer) + 1000, *buf = malloc(300000);
  size_t lens[] = { 1, 77, 65536, 300000 - 16 };
  for (size_t i = 0; i < 4; i++) {
    size_t len = lens[i];
    gasnet_memset(peer, r, 0x5A, len + 16);
    gasnet_handle_t h = gasnet_memset_nb(peer, r + 8, (int)(0x30 + i), len);
    gasnet_wait_syncnb(h);
    gasnet_get_bulk(buf, peer, r, len + 16);
    for (size_t j = 0; j < len + 16; j++) {
      unsigned char want = (j < 8 || j >= len + 8) ? 0x5A : (unsigned char)(0x30 + i);
      T_EXPECT((unsigned char)buf[j] == want, "memset_nb byte %zu of %zu: %#x, want %#x", j,
               len, (unsigned char)buf[j], want);
    }
    gasnet_memset_nbi(peer, r + 8, 0x77, len);
    gasnet_wait_syncnbi_puts();
    gasnet_get(buf, peer, r + 8, len);
    for (size_t j = 0; j < len; j++) T_EXPECT((unsigned char)buf[j] == 0x77, "memset_nbi byte %zu", j);
    checks += 2;
  }
  free(buf);
}

static void test_values(void) {
  const gasnet_register_value_t v = (gasnet_register_value_t)0x8877665544332211ull;
  char *r = misc(peer);
  for (size_t nb = 1; nb <= sizeof(gasnet_register_value_t); nb++) {
    gasnet_register_value_t mask = nb == sizeof v ? ~(gasnet_register_value_t)0
                                                  : (((gasnet_register_value_t)1 << (8 * nb)) - 1);
    gasnet_memset(peer, r, 0, 16);
    int shape = (int)nb % 3;
    if (shape == 0) gasnet_put_val(peer, r + 1, v, nb);
    else if (shape == 1) gasnet_wait_syncnb(gasnet_put_nb_val(peer, r + 1, v, nb));
    else { gasnet_put_nbi_val(peer, r + 1, v, nb); gasnet_wait_syncnbi_all(); }
    unsigned char bytes[16];
    gasnet_get_bulk(bytes, peer, r, 16);
    /* the low-order nbytes of v, as an nbytes-wide integer of this host */
    unsigned char want[16] = { 0 };
    for (size_t b = 0; b < nb; b++) {
      unsigned char lowbyte = (unsigned char)(v >> (8 * b));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      want[1 + nb - 1 - b] = lowbyte;
#else
      want[1 + b] = lowbyte;
#endif
    }
    T_EXPECT(memcmp(bytes, want, 16) == 0, "put_val of %zu bytes wrote the wrong bytes", nb);
    gasnet_register_value_t g = gasnet_get_val(peer, r + 1, nb);
    T_EXPECT(g == (v & mask), "get_val(%zu) = %#llx, want %#llx", nb, (unsigned long long)g,
             (unsigned long long)(v & mask));
    checks += 2;
  }
  /* aligned natural sizes read back as C integers */
  uint16_t u16 = 0xBEEF; uint32_t u32 = 0xDEADBEEF; uint64_t u64 = 0x0123456789ABCDEFull;
  gasnet_put_val(peer, r + 16, u16, 2);
  gasnet_put_val(peer, r + 20, u32, 4);
  gasnet_put_val(peer, r + 24, (gasnet_register_value_t)u64, sizeof(gasnet_register_value_t));
  uint16_t g16; uint32_t g32; uint64_t g64 = 0;
  gasnet_get(&g16, peer, r + 16, 2);
  gasnet_get(&g32, peer, r + 20, 4);
  gasnet_get(&g64, peer, r + 24, sizeof(gasnet_register_value_t));
  T_EXPECT(g16 == u16 && g32 == u32 && g64 == (uint64_t)(gasnet_register_value_t)u64,
           "natural-size put_val");
  /* several get_nb_val outstanding at once, synced in reverse order */
  gasnet_valget_handle_t vh[8];
  for (int i = 0; i < 8; i++) {
    gasnet_put_val(peer, r + 32 + 8 * i, (gasnet_register_value_t)(0xF0 + i) * 0x01010101u, 4);
  }
  for (int i = 0; i < 8; i++) vh[i] = gasnet_get_nb_val(peer, r + 32 + 8 * i, 4);
  for (int i = 7; i >= 0; i--) {
    gasnet_register_value_t g = gasnet_wait_syncnb_valget(vh[i]);
    T_EXPECT(g == (gasnet_register_value_t)(0xF0 + i) * 0x01010101u, "get_nb_val %d: %#llx", i,
             (unsigned long long)g);
  }
  /* zero extension: a high bit set in the byte read is not sign-extended */
  gasnet_put_val(peer, r + 100, 0xFF, 1);
  T_EXPECT(gasnet_get_val(peer, r + 100, 1) == 0xFF, "get_val of 0xFF sign-extended");
  checks += 10;
}

/* Sync list calls and 65535 outstanding operations. */
static void test_many(void) {
  const size_t N = 65535;
  uint64_t *vals = malloc(N * sizeof *vals), *back = malloc(N * sizeof *back);
  gasnet_handle_t *h = malloc(N * sizeof *h);
  uint64_t *r = (uint64_t *)misc(peer);
  for (size_t i = 0; i < N; i++) vals[i] = ((uint64_t)me << 48) | (i * 2654435761u);
  for (size_t i = 0; i < N; i++) h[i] = gasnet_put_nb(peer, r + i, &vals[i], 8);
  gasnet_wait_syncnb_all(h, N);
  for (size_t i = 0; i < N; i++)
    T_EXPECT(h[i] == GASNET_INVALID_HANDLE, "handle %zu still valid after wait_syncnb_all", i);
  for (size_t i = 0; i < N; i++) gasnet_get_nbi(&back[i], peer, r + i, 8);
  gasnet_wait_syncnbi_all();
  T_EXPECT(memcmp(vals, back, N * 8) == 0, "65535 nb puts / nbi gets of 8 bytes differ");
  /* try_syncnb_some / wait_syncnb_some drain a list one completion at a time */
  memset(back, 0, N * 8);
  for (size_t i = 0; i < 1000; i++) h[i] = gasnet_get_nb(&back[i], peer, r + i, 8);
  h[500] = GASNET_INVALID_HANDLE; /* ignored entry */
  back[500] = vals[500];
  size_t left = 999;
  while (left) {
    if (left % 2) gasnet_wait_syncnb_some(h, 1000);
    else while (gasnet_try_syncnb_some(h, 1000) != GASNET_OK) {}
    size_t now = 0;
    for (size_t i = 0; i < 1000; i++) now += h[i] != GASNET_INVALID_HANDLE;
    T_EXPECT(now < left, "syncnb_some returned with no completion (%zu left)", left);
    left = now;
  }
  T_EXPECT(memcmp(vals, back, 1000 * 8) == 0, "gets synced by syncnb_some differ");
  T_EXPECT(gasnet_try_syncnb_some(h, 1000) == GASNET_OK, "try_syncnb_some of all-invalid");
  T_EXPECT(gasnet_try_syncnb_all(h, 0) == GASNET_OK, "try_syncnb_all of an empty list");
  gasnet_wait_syncnb_some(h, 0);
  gasnet_wait_syncnb(GASNET_INVALID_HANDLE);
  T_EXPECT(gasnet_try_syncnb(GASNET_INVALID_HANDLE) == GASNET_OK, "try_syncnb(INVALID)");
  /* try_syncnb_all: NOT_READY leaves the pending ones valid, eventually OK */
  for (size_t i = 0; i < 200; i++) h[i] = gasnet_put_nb_bulk(peer, r + i, &vals[i], 8);
  int rc, polls = 0;
  while ((rc = gasnet_try_syncnb_all(h, 200)) != GASNET_OK) {
    T_EXPECT(rc == GASNET_ERR_NOT_READY, "try_syncnb_all returned %d", rc);
    polls++;
  }
  /* 65535 operations inside one access region, one handle for all */
  gasnet_begin_nbi_accessregion();
  for (size_t i = 0; i < N; i++) gasnet_put_nbi_val(peer, r + i, vals[N - 1 - i], 8);
  gasnet_handle_t rh = gasnet_end_nbi_accessregion();
  gasnet_wait_syncnb(rh);
  gasnet_get_bulk(back, peer, r, N * 8);
  for (size_t i = 0; i < N; i++)
    T_EXPECT(back[i] == vals[N - 1 - i], "region put_nbi_val %zu", i);
  /* an empty region */
  gasnet_begin_nbi_accessregion();
  gasnet_wait_syncnb(gasnet_end_nbi_accessregion());
  /* explicit-handle ops inside a region are not part of it, nbi outside not either */
  gasnet_put_nbi(peer, r, &vals[1], 8);
  gasnet_begin_nbi_accessregion();
  gasnet_handle_t eh = gasnet_get_nb(&back[0], peer, r + 10, 8);
  gasnet_put_nbi(peer, r + 20, &vals[2], 8);
  rh = gasnet_end_nbi_accessregion();
  gasnet_wait_syncnb(eh);
  gasnet_wait_syncnb(rh);
  gasnet_wait_syncnbi_all();
  T_EXPECT(gasnet_get_val(peer, r, 8) == vals[1] && gasnet_get_val(peer, r + 20, 8) == vals[2],
           "region/nbi mix");
  checks += 8;
  free(vals); free(back); free(h);
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  size_t maxsize = argc > 1 ? strtoul(argv[1], NULL, 0) : 16 * MiB;
  T_CHECK(gasnet_attach(NULL, 0, SEGSIZE, 0));
  me = gasnet_mynode(); n = gasnet_nodes(); peer = (me + 1) % n;
  seg = malloc(n * sizeof *seg);
  T_CHECK(gasnet_getSegmentInfo(seg, (int)n));
  t_last = t_now();
  T_EXPECT(gasnet_set_waitmode(12345) == GASNET_ERR_BAD_ARG, "set_waitmode(bad)");
  /* the size sweep once per wait mode (spec 3.6.2.1) */
  int modes[] = { GASNET_WAIT_SPIN, GASNET_WAIT_BLOCK, GASNET_WAIT_SPINBLOCK };
  for (int m = 0; m < 3; m++) {
    T_CHECK(gasnet_set_waitmode(modes[m]));
    test_sizes(m == 2 ? maxsize : (maxsize < 65537 ? maxsize : 65537));
    bar();
    phase_done(m == 0 ? "sizes SPIN" : m == 1 ? "sizes BLOCK" : "sizes SPINBLOCK");
  }
  test_memset();
  bar();
  phase_done("memset");
  test_values();
  bar();
  phase_done("values");
  test_many();
  bar();
  phase_done("many");
  printf("t_ext: node %u of %u: %lu transfers verified (peer %u, sizes up to %zu)\n",
         (unsigned)me, (unsigned)n, checks, (unsigned)peer, maxsize);
  fflush(stdout);
  bar();
  gasnet_exit(0);
}
