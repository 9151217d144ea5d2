/*
 * t_stress.c - random extended-API traffic checked against a model.
 *
 *   gasnetrun -n N tests/extended/t_stress [OPS [SEED]]
 *   (t_stress_parsync: the same, built for GASNET_PARSYNC)
 *
 * Every segment is cut into N slices; slice w of every node is written only
 * by rank w, which keeps a model of its N slices. Each rank issues OPS random
 * operations to random nodes (itself included) and offsets, of random size
 * (1 byte to 2 MiB, most small), in epochs: within an epoch no two
 * operations touch the same block, so every result is defined (spec 3.3.1);
 * puts take their source from the model itself, which the epoch does not
 * change, so bulk sources stay valid until synced. Operations: put / memset
 * / put_val and get / get_val in every shape (blocking, nb, nb_bulk, nbi,
 * nbi_bulk, access region, get_nb_val), synced at the end of the epoch with
 * a random choice of the sync calls; gets are then compared with the model.
 * At the end every rank reads back all its slices on all nodes and compares
 * them with its model. Prints the counts and the seed.
 */
#if !defined(GASNET_PARSYNC) /* also built as t_stress_parsync */
#define GASNET_SEQ 1
#endif
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "t_ext_util.h"

#define BLK (512u * 1024u)        /* unit of conflict avoidance */
#define KBLK 8                    /* blocks per slice */
#define SLICE (BLK * KBLK)        /* 4 MiB written by one rank on each node */
#define SCRATCH (6u * 1024 * 1024) /* landing area for gets (heap and segment) */
#define EPOCH_OPS 40
#define MAXPEND 64

static gasnet_node_t me, n;
static gasnet_seginfo_t *seg;
static unsigned char **model;     /* [n][SLICE]: what our slice on node t holds */
static unsigned char *heapscr;
static uint64_t rs;
static unsigned long count[8];
enum { C_PUT, C_GET, C_MEMSET, C_PUTVAL, C_GETVAL, C_REGION, C_BYTES, C_EPOCH };

static unsigned char *remote_slice(gasnet_node_t t) {
  return (unsigned char *)seg[t].addr + (size_t)me * SLICE;
}
static unsigned char *seg_scratch(void) {
  return (unsigned char *)seg[me].addr + (size_t)n * SLICE;
}

/* state of one epoch */
static unsigned char used[256][KBLK];
static gasnet_handle_t handles[MAXPEND * 2];
static int nhandles;
static struct { gasnet_valget_handle_t h; size_t nb; gasnet_register_value_t want; } vg[MAXPEND];
static int nvg;
static struct { void *dst; const void *want; size_t len; int kind; } chk[MAXPEND];
static int nchk;
static size_t heap_used, seg_used;
static int region_open;

static size_t pick_size(void) {
  uint64_t r = t_rand(&rs) % 100;
  if (r < 55) return 1 + t_rand(&rs) % 64;
  if (r < 80) return 65 + t_rand(&rs) % 70000;
  if (r < 95) return 1 + t_rand(&rs) % BLK;
  return BLK + 1 + t_rand(&rs) % (3 * BLK); /* 2 to 4 blocks: chunked, pipelined */
}

/* Find a free span for len bytes on node t; 0 if none quickly. */
static int pick_span(gasnet_node_t t, size_t len, size_t *off) {
  size_t nblk = (len + BLK - 1) / BLK;
  for (int tries = 0; tries < 8; tries++) {
    size_t b = t_rand(&rs) % (KBLK - nblk + 1);
    int ok = 1;
    for (size_t k = b; k < b + nblk; k++) ok &= !used[t][k];
    if (!ok) continue;
    size_t room = nblk * BLK - len;
    *off = b * BLK + (room ? t_rand(&rs) % (room + 1) : 0);
    for (size_t k = b; k < b + nblk; k++) used[t][k] = 1;
    return 1;
  }
  return 0;
}

static void *scratch(size_t len) {
  int inseg = t_rand(&rs) & 1;
  size_t *u = inseg ? &seg_used : &heap_used;
  size_t at = *u + (t_rand(&rs) % 8); /* unaligned on purpose */
  if (at + len > SCRATCH) return NULL;
  *u = at + len;
  return (inseg ? seg_scratch() : heapscr) + at;
}

static void do_write(gasnet_node_t t, size_t off, size_t len) {
  unsigned char *m = model[t] + off, *r = remote_slice(t) + off;
  int shape = (int)(t_rand(&rs) % 7), what = (int)(t_rand(&rs) % 10);
  if (what == 0) { /* memset */
    int val = (int)(t_rand(&rs) & 0xff);
    memset(m, val, len);
    if (shape < 3) gasnet_memset(t, r, val, len);
    else if (shape < 5 && nhandles < MAXPEND) handles[nhandles++] = gasnet_memset_nb(t, r, val, len);
    else gasnet_memset_nbi(t, r, val, len);
    count[C_MEMSET]++;
  } else if (what == 1) { /* value put of 1..8 bytes at the start of the span */
    len = 1 + t_rand(&rs) % (len < sizeof(gasnet_register_value_t) ? len : sizeof(gasnet_register_value_t));
    gasnet_register_value_t v = (gasnet_register_value_t)t_rand(&rs);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    memcpy(m, (char *)&v + sizeof v - len, len);
#else
    memcpy(m, &v, len);
#endif
    if (shape < 3) gasnet_put_val(t, r, v, len);
    else if (shape < 5 && nhandles < MAXPEND) handles[nhandles++] = gasnet_put_nb_val(t, r, v, len);
    else gasnet_put_nbi_val(t, r, v, len);
    count[C_PUTVAL]++;
  } else {
    t_fill(m, len, (uint32_t)t_rand(&rs));
    switch (shape) {
    case 0: gasnet_put(t, r, m, len); break;
    case 1: gasnet_put_bulk(t, r, m, len); break;
    case 2: if (nhandles < MAXPEND) { handles[nhandles++] = gasnet_put_nb(t, r, m, len); break; }
      /* fall through */
    case 3: if (nhandles < MAXPEND) { handles[nhandles++] = gasnet_put_nb_bulk(t, r, m, len); break; }
      /* fall through */
    case 4: gasnet_put_nbi(t, r, m, len); break;
    default: gasnet_put_nbi_bulk(t, r, m, len); break;
    }
    count[C_PUT]++;
  }
  count[C_BYTES] += len;
}

static void do_read(gasnet_node_t t, size_t off, size_t len) {
  const unsigned char *m = model[t] + off;
  unsigned char *r = remote_slice(t) + off;
  int shape = (int)(t_rand(&rs) % 8);
  if (shape >= 6) { /* value get of 1..8 bytes at the start of the span */
    len = 1 + t_rand(&rs) % (len < sizeof(gasnet_register_value_t) ? len : sizeof(gasnet_register_value_t));
    gasnet_register_value_t want = 0;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    memcpy((char *)&want + sizeof want - len, m, len);
#else
    memcpy(&want, m, len);
#endif
    if (shape == 6 || nvg >= MAXPEND) {
      gasnet_register_value_t got = gasnet_get_val(t, r, len);
      T_EXPECT(got == want, "get_val(%u, +%zu, %zu) = %#llx, model %#llx", (unsigned)t, off, len,
               (unsigned long long)got, (unsigned long long)want);
    } else {
      vg[nvg].h = gasnet_get_nb_val(t, r, len);
      vg[nvg].nb = len;
      vg[nvg++].want = want;
    }
    count[C_GETVAL]++;
    return;
  }
  unsigned char *d = scratch(len);
  if (!d || nchk >= MAXPEND) return;
  switch (shape) {
  case 0: gasnet_get(d, t, r, len); break;
  case 1: gasnet_get_bulk(d, t, r, len); break;
  case 2: if (nhandles < MAXPEND) { handles[nhandles++] = gasnet_get_nb(d, t, r, len); break; }
    /* fall through */
  case 3: if (nhandles < MAXPEND) { handles[nhandles++] = gasnet_get_nb_bulk(d, t, r, len); break; }
    /* fall through */
  case 4: gasnet_get_nbi(d, t, r, len); break;
  default: gasnet_get_nbi_bulk(d, t, r, len); break;
  }
  chk[nchk].dst = d; chk[nchk].want = m; chk[nchk].len = len; chk[nchk++].kind = shape;
  count[C_GET]++;
  count[C_BYTES] += len;
}

static void end_region(void) {
  if (!region_open) return;
  handles[nhandles++] = gasnet_end_nbi_accessregion();
  region_open = 0;
  count[C_REGION]++;
}

static void end_epoch(void) {
  end_region();
  switch (t_rand(&rs) % 3) { /* explicit handles */
  case 0: gasnet_wait_syncnb_all(handles, (size_t)nhandles); break;
  case 1: while (gasnet_try_syncnb_all(handles, (size_t)nhandles) != GASNET_OK) {} break;
  default:
    for (;;) {
      int left = 0;
      for (int i = 0; i < nhandles; i++) left += handles[i] != GASNET_INVALID_HANDLE;
      if (!left) break;
      gasnet_wait_syncnb_some(handles, (size_t)nhandles);
    }
  }
  for (int i = 0; i < nhandles; i++)
    T_EXPECT(handles[i] == GASNET_INVALID_HANDLE, "handle %d valid after sync", i);
  switch (t_rand(&rs) % 3) { /* implicit */
  case 0: gasnet_wait_syncnbi_all(); break;
  case 1: gasnet_wait_syncnbi_gets(); gasnet_wait_syncnbi_puts(); break;
  default: while (gasnet_try_syncnbi_puts() != GASNET_OK || gasnet_try_syncnbi_gets() != GASNET_OK) {}
  }
  for (int i = 0; i < nvg; i++) {
    gasnet_register_value_t got = gasnet_wait_syncnb_valget(vg[i].h);
    T_EXPECT(got == vg[i].want, "get_nb_val of %zu bytes = %#llx, model %#llx", vg[i].nb,
             (unsigned long long)got, (unsigned long long)vg[i].want);
  }
  for (int i = 0; i < nchk; i++)
    T_EXPECT(memcmp(chk[i].dst, chk[i].want, chk[i].len) == 0,
             "get (shape %d) of %zu bytes differs from the model", chk[i].kind, chk[i].len);
  nhandles = nvg = nchk = 0;
  heap_used = seg_used = 0;
  memset(used, 0, sizeof used);
  count[C_EPOCH]++;
}

static void bar(void) {
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  T_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  long ops = argc > 1 ? atol(argv[1]) : 2000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 12345;
  n = gasnet_nodes();
  me = gasnet_mynode();
  T_EXPECT(n <= 256, "at most 256 ranks");
  T_CHECK(gasnet_attach(NULL, 0, (uintptr_t)n * SLICE + SCRATCH, 0));
  seg = malloc(n * sizeof *seg);
  T_CHECK(gasnet_getSegmentInfo(seg, (int)n));
  model = malloc(n * sizeof *model);
  for (gasnet_node_t t = 0; t < n; t++) model[t] = calloc(1, SLICE);
  heapscr = malloc(SCRATCH);
  rs = seed * 1000003u + me;
  for (gasnet_node_t t = 0; t < n; t++) gasnet_memset_nbi(t, remote_slice(t), 0, SLICE);
  gasnet_wait_syncnbi_puts();
  bar();

  for (long i = 0; i < ops; i++) {
    if (i % EPOCH_OPS == EPOCH_OPS - 1) end_epoch();
    uint64_t r = t_rand(&rs) % 100;
    if (r < 4 && !region_open) { gasnet_begin_nbi_accessregion(); region_open = 1; }
    else if (r < 8) end_region();
    gasnet_node_t t = (gasnet_node_t)(t_rand(&rs) % n);
    size_t len = pick_size(), off;
    int write = t_rand(&rs) % 2;
    if (!pick_span(t, len, &off)) { end_epoch(); continue; }
    if (write) do_write(t, off, len);
    else do_read(t, off, len);
  }
  end_epoch();
  bar();
  /* the final check: all our slices everywhere, against the model */
  unsigned char *back = malloc(SLICE);
  for (gasnet_node_t t = 0; t < n; t++) {
    memset(back, 0xA5, SLICE);
    gasnet_get_bulk(back, t, remote_slice(t), SLICE);
    size_t bad = 0, first = 0;
    for (size_t k = 0; k < SLICE; k++)
      if (back[k] != model[t][k]) { if (!bad++) first = k; }
    T_EXPECT(bad == 0, "slice on node %u: %zu bytes differ from the model (first at %zu)",
             (unsigned)t, bad, first);
  }
  bar();
  printf("t_stress: node %u of %u seed %llu: %ld ops (%lu put, %lu get, %lu memset, %lu put_val, "
         "%lu get_val, %lu regions, %lu epochs, %.1f MB); %u slices match the model\n",
         (unsigned)me, (unsigned)n, (unsigned long long)seed, ops, count[C_PUT], count[C_GET],
         count[C_MEMSET], count[C_PUTVAL], count[C_GETVAL], count[C_REGION], count[C_EPOCH],
         count[C_BYTES] / 1e6, (unsigned)n);
  fflush(stdout);
  bar();
  gasnet_exit(0);
}
