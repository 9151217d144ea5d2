/*
 * t_ex_sys.c - GASNet-EX neighbourhood, host and bound-segment queries,
 * against ../shared/spec/gasnet-ex-api.txt ("Neighborhood and Host",
 * gex_EP_QueryBoundSegmentNB, gex_Segment_QueryBound), on any number of
 * ranks. Each check prints what it compared; the program exits 0 only when
 * all matched (T_EXPECT ends the job otherwise).
 *
 *  - gex_System_QueryNbrhdInfo / _QueryHostInfo: a non-zero count, entries
 *    sorted by increasing gex_jobrank, (*info_p)[*my_info_index_p].gex_jobrank
 *    == gex_System_QueryJobRank(); every output may be NULL (any subset);
 *    the host's members are the ranks whose gasnet_getNodeInfo host is
 *    mine; the neighbourhood's members are the ranks whose
 *    gasnet_getNodeInfo supernode is mine, all of my host, at most
 *    GASNET_SUPERNODE_MAXSIZE of them (when not 0); the line
 *    "node N: neighbourhood of K ranks" lets a script check K;
 *  - gex_System_QueryMyPosition: ranks in [0, size); across the job (node 0
 *    collects every rank's answers by AM): every rank sees the same set
 *    sizes, ranks of one host (neighbourhood) the same set rank, ranks of
 *    different ones different set ranks, and the sizes count the distinct
 *    sets;
 *  - gex_EP_QueryBoundSegmentNB before gex_Segment_Attach: size 0, event
 *    GEX_EVENT_INVALID; gex_Segment_QueryBound non-zero, outputs untouched;
 *  - after it, for every rank, through the team and through a TM-pair, with
 *    and without GEX_FLAG_IMMEDIATE: GEX_EVENT_INVALID, owner address and
 *    size equal to gasnet_getSegmentInfo's table, local address the segment
 *    for the caller's own rank and NULL for the others; NULL outputs
 *    accepted; gex_Segment_QueryBound agrees and returns 0; with
 *    GEX_FLAG_IMMEDIATE it works inside an AM handler.
 *
 *   t_ex_sys            the checks above
 *   t_ex_sys misuse     node 0 calls gex_EP_QueryBoundSegmentNB without
 *                       GEX_FLAG_IMMEDIATE inside an AM handler: fatal
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "../lib/t_check.h"

#define SEGSIZE (64u * GASNET_PAGESIZE)
#define NFACTS 6 /* per rank: nbrhd size, rank, first member; host size, rank, first member */

static gex_TM_t tm;
static gex_Rank_t me, n;
static gex_AM_Index_t h_fact, h_done, h_misuse;
static gex_AM_Arg_t *facts;      /* node 0: [n][NFACTS] */
static volatile int nfacts, done;
static volatile int imm_ok = -1; /* the IMMEDIATE query inside a handler matched */
static gasnet_seginfo_t *si;     /* gasnet_getSegmentInfo's table */

/* Rank r is in this rank's neighbourhood: its segment is mapped here
 * (gex_System_QueryNbrhdInfo may be called in a handler, the description
 * says). */
static int in_my_nbrhd(gex_Rank_t r) {
  gex_RankInfo_t *nb;
  gex_Rank_t count;
  gex_System_QueryNbrhdInfo(&nb, &count, NULL);
  for (gex_Rank_t k = 0; k < count; k++)
    if (nb[k].gex_jobrank == r) return 1;
  return 0;
}

/* A rank's answers, to node 0; the handler also queries the sender's
 * segment with GEX_FLAG_IMMEDIATE, allowed in a handler. */
static void hf(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
               gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5) {
  gex_Token_Info_t ti;
  gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
  gex_AM_Arg_t *f = &facts[(size_t)ti.gex_srcrank * NFACTS];
  f[0] = a0; f[1] = a1; f[2] = a2; f[3] = a3; f[4] = a4; f[5] = a5;
  if (si) {
    void *owner = NULL, *local = (void *)1;
    uintptr_t size = 0;
    gex_Event_t ev = gex_EP_QueryBoundSegmentNB(tm, ti.gex_srcrank, &owner, &local, &size,
                                                GEX_FLAG_IMMEDIATE);
    int ok = ev == GEX_EVENT_INVALID && owner == si[ti.gex_srcrank].addr &&
             size == si[ti.gex_srcrank].size &&
             (ti.gex_srcrank == me ? local == si[me].addr
                                   : in_my_nbrhd(ti.gex_srcrank) ? local != NULL : local == NULL);
    imm_ok = (imm_ok != 0) && ok;
  }
  __atomic_fetch_add(&nfacts, 1, __ATOMIC_RELEASE);
}
static void hd(gex_Token_t t) { (void)t; done = 1; }
static void hmis(gex_Token_t t) {
  (void)t;
  uintptr_t size;
  gex_EP_QueryBoundSegmentNB(tm, 0, NULL, NULL, &size, 0); /* fatal here */
  printf("node %u: FAILED: the query without GEX_FLAG_IMMEDIATE in a handler returned\n",
         (unsigned)me);
}

/* Entries sorted by strictly increasing job rank, all < n, and mine at my index. */
static void check_info(const char *what, gex_RankInfo_t *info, gex_Rank_t count, gex_Rank_t idx) {
  T_EXPECT(info != NULL && count > 0 && count <= n && idx < count,
           "%s: info %p, count %u, my index %u (want non-NULL, 1..%u, < count)", what,
           (const void *)info, (unsigned)count, (unsigned)idx, (unsigned)n);
  for (gex_Rank_t i = 0; i < count; i++) {
    T_EXPECT(info[i].gex_jobrank < n, "%s: entry %u is rank %u", what, (unsigned)i,
             (unsigned)info[i].gex_jobrank);
    T_EXPECT(i == 0 || info[i - 1].gex_jobrank < info[i].gex_jobrank,
             "%s: entries %u and %u are ranks %u and %u: not increasing", what, (unsigned)i - 1,
             (unsigned)i, (unsigned)info[i - 1].gex_jobrank, (unsigned)info[i].gex_jobrank);
  }
  T_EXPECT(info[idx].gex_jobrank == gex_System_QueryJobRank(),
           "%s: (*info_p)[%u].gex_jobrank is %u, gex_System_QueryJobRank() %u", what,
           (unsigned)idx, (unsigned)info[idx].gex_jobrank, (unsigned)gex_System_QueryJobRank());
}

typedef void (*info_fn)(gex_RankInfo_t **, gex_Rank_t *, gex_Rank_t *);

/* Every subset of NULL outputs gives the same values as the full call. */
static void check_nulls(const char *what, info_fn fn, gex_RankInfo_t *info, gex_Rank_t count,
                        gex_Rank_t idx) {
  for (int mask = 0; mask < 8; mask++) {
    gex_RankInfo_t *i2 = NULL;
    gex_Rank_t c2 = GEX_RANK_INVALID, x2 = GEX_RANK_INVALID;
    fn(mask & 1 ? &i2 : NULL, mask & 2 ? &c2 : NULL, mask & 4 ? &x2 : NULL);
    T_EXPECT((mask & 1 ? i2 == info : i2 == NULL) && (mask & 2 ? c2 == count : c2 == GEX_RANK_INVALID) &&
                 (mask & 4 ? x2 == idx : x2 == GEX_RANK_INVALID),
             "%s with outputs %d%d%d (1 = non-NULL): other values, or a NULL output written", what,
             mask & 1, !!(mask & 2), !!(mask & 4));
  }
}

static void print_members(const char *what, gex_RankInfo_t *info, gex_Rank_t count) {
  printf("node %u: %s: %u member%s:", (unsigned)me, what, (unsigned)count, count == 1 ? "" : "s");
  for (gex_Rank_t i = 0; i < count; i++) printf(" %u", (unsigned)info[i].gex_jobrank);
  printf("\n");
}

/* Every rank's bound segment by (tm, rank) equals gasnet_getSegmentInfo's table. */
static void check_bound(gex_TM_t t, const char *how, gex_Flags_t flags) {
  for (gex_Rank_t r = 0; r < n; r++) {
    void *owner = (void *)1, *local = (void *)1;
    uintptr_t size = 0;
    gex_Event_t ev = gex_EP_QueryBoundSegmentNB(t, r, &owner, &local, &size, flags);
    int mapped = in_my_nbrhd(r); /* team rank = job rank; mapped here, no other */
    void *want_local = r == me ? si[me].addr : mapped ? local : NULL;
    T_EXPECT(ev == GEX_EVENT_INVALID && owner == si[r].addr && size == si[r].size &&
                 local == want_local && (!mapped || local != NULL),
             "%s, rank %u, flags %#x: event %p, owner %p size %lu local %p; want event 0, owner %p "
             "size %lu local %p", how, (unsigned)r, (unsigned)flags, (void *)ev, owner,
             (unsigned long)size, local, si[r].addr, (unsigned long)si[r].size, want_local);
    void *o2 = NULL, *l2 = (void *)1;
    uintptr_t s2 = 0;
    T_EXPECT(gex_Segment_QueryBound(t, r, &o2, &l2, &s2) == 0 && o2 == owner && l2 == local &&
                 s2 == size, "%s, rank %u: gex_Segment_QueryBound disagrees", how, (unsigned)r);
    T_EXPECT(gex_EP_QueryBoundSegmentNB(t, r, NULL, NULL, NULL, flags) == GEX_EVENT_INVALID &&
                 gex_Segment_QueryBound(t, r, NULL, NULL, NULL) == 0,
             "%s, rank %u: NULL outputs not accepted", how, (unsigned)r);
  }
}

int main(int argc, char **argv) {
  gex_Client_t client;
  gex_EP_t ep;
  T_CHECK(gex_Client_Init(&client, &ep, &tm, "T_EX_SYS", &argc, &argv, 0));
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();
  int misuse = argc > 1 && !strcmp(argv[1], "misuse");
  gex_AM_Entry_t handlers[] = {
    {0, (gex_AM_Fn_t)hf, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, NFACTS, NULL, "t_ex_sys fact"},
    {0, (gex_AM_Fn_t)hd, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "t_ex_sys done"},
    {0, (gex_AM_Fn_t)hmis, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "t_ex_sys misuse"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, handlers, 3));
  h_fact = handlers[0].gex_index; h_done = handlers[1].gex_index; h_misuse = handlers[2].gex_index;

  /* Neighbourhood: the ranks sharing memory with this one (checked
   * against gasnet_getNodeInfo's supernode below). */
  gex_RankInfo_t *ninfo = NULL;
  gex_Rank_t ncount = 0, nidx = GEX_RANK_INVALID;
  gex_System_QueryNbrhdInfo(&ninfo, &ncount, &nidx);
  check_info("gex_System_QueryNbrhdInfo", ninfo, ncount, nidx);
  check_nulls("gex_System_QueryNbrhdInfo", gex_System_QueryNbrhdInfo, ninfo, ncount, nidx);
  print_members("neighbourhood", ninfo, ncount);
  printf("node %u: neighbourhood of %u ranks\n", (unsigned)me, (unsigned)ncount);

  /* Host: the ranks gasnet_getNodeInfo puts on my host, in rank order. */
  gex_RankInfo_t *hinfo = NULL;
  gex_Rank_t hcount = 0, hidx = GEX_RANK_INVALID;
  gex_System_QueryHostInfo(&hinfo, &hcount, &hidx);
  check_info("gex_System_QueryHostInfo", hinfo, hcount, hidx);
  check_nulls("gex_System_QueryHostInfo", gex_System_QueryHostInfo, hinfo, hcount, hidx);
  print_members("host", hinfo, hcount);
  gasnet_nodeinfo_t *ni = malloc(sizeof *ni * n);
  T_EXPECT(ni != NULL, "malloc");
  T_CHECK(gasnet_getNodeInfo(ni, (int)n));
  gex_Rank_t k = 0;
  for (gex_Rank_t r = 0; r < n; r++) {
    if (ni[r].host != ni[me].host) continue;
    T_EXPECT(k < hcount && hinfo[k].gex_jobrank == r,
             "host member %u: gasnet_getNodeInfo says rank %u, gex_System_QueryHostInfo %u of %u",
             (unsigned)k, (unsigned)r, k < hcount ? (unsigned)hinfo[k].gex_jobrank : 0u,
             (unsigned)hcount);
    k++;
  }
  T_EXPECT(k == hcount, "gasnet_getNodeInfo puts %u ranks on my host, QueryHostInfo %u",
           (unsigned)k, (unsigned)hcount);
  printf("node %u: host members = the %u ranks gasnet_getNodeInfo gives host %u\n", (unsigned)me,
         (unsigned)k, (unsigned)ni[me].host);
  k = 0;
  for (gex_Rank_t r = 0; r < n; r++) {
    if (ni[r].supernode != ni[me].supernode) continue;
    T_EXPECT(k < ncount && ninfo[k].gex_jobrank == r && ni[r].host == ni[me].host,
             "neighbourhood member %u: gasnet_getNodeInfo says rank %u (host %u, mine %u), "
             "gex_System_QueryNbrhdInfo %u of %u", (unsigned)k, (unsigned)r,
             (unsigned)ni[r].host, (unsigned)ni[me].host,
             k < ncount ? (unsigned)ninfo[k].gex_jobrank : 0u, (unsigned)ncount);
    k++;
  }
  T_EXPECT(k == ncount, "gasnet_getNodeInfo puts %u ranks in my supernode, QueryNbrhdInfo %u",
           (unsigned)k, (unsigned)ncount);
  const char *maxs = gasnet_getenv("GASNET_SUPERNODE_MAXSIZE");
  unsigned max = maxs ? (unsigned)atoi(maxs) : 0;
  T_EXPECT(!max || ncount <= max, "neighbourhood of %u ranks, GASNET_SUPERNODE_MAXSIZE=%u",
           (unsigned)ncount, max);

  /* Position. */
  gex_Rank_t nsize = GEX_RANK_INVALID, nrank = GEX_RANK_INVALID, hsize = GEX_RANK_INVALID,
             hrank = GEX_RANK_INVALID;
  gex_System_QueryMyPosition(&nsize, &nrank, &hsize, &hrank);
  printf("node %u: position: neighbourhood %u of %u, host %u of %u\n", (unsigned)me,
         (unsigned)nrank, (unsigned)nsize, (unsigned)hrank, (unsigned)hsize);
  T_EXPECT(nrank < nsize && hrank < hsize && nsize <= n && hsize <= nsize,
           "set ranks not in [0, size), or more sets than ranks, or more hosts than neighbourhoods");
  for (int mask = 0; mask < 16; mask++) {
    gex_Rank_t v[4] = {GEX_RANK_INVALID, GEX_RANK_INVALID, GEX_RANK_INVALID, GEX_RANK_INVALID};
    gex_System_QueryMyPosition(mask & 1 ? &v[0] : NULL, mask & 2 ? &v[1] : NULL,
                               mask & 4 ? &v[2] : NULL, mask & 8 ? &v[3] : NULL);
    const gex_Rank_t want[4] = {nsize, nrank, hsize, hrank};
    for (int i = 0; i < 4; i++)
      T_EXPECT(v[i] == ((mask >> i) & 1 ? want[i] : GEX_RANK_INVALID),
               "gex_System_QueryMyPosition with output mask %#x: output %d is %u", mask, i,
               (unsigned)v[i]);
  }

  /* Before the segment: no bound segment anywhere. */
  for (gex_Rank_t r = 0; r < n; r++) {
    void *owner = (void *)1, *local = (void *)1;
    uintptr_t size = 12345;
    gex_Event_t ev = gex_EP_QueryBoundSegmentNB(tm, r, &owner, &local, &size, 0);
    T_EXPECT(ev == GEX_EVENT_INVALID && size == 0,
             "before gex_Segment_Attach, rank %u: event %p size %lu (want 0 and 0)", (unsigned)r,
             (void *)ev, (unsigned long)size);
    owner = local = (void *)1;
    size = 12345;
    int rc = gex_Segment_QueryBound(tm, r, &owner, &local, &size);
    T_EXPECT(rc != 0 && owner == (void *)1 && local == (void *)1 && size == 12345,
             "before gex_Segment_Attach, rank %u: gex_Segment_QueryBound returned %d, outputs "
             "%p %p %lu (want non-zero, untouched)", (unsigned)r, rc, owner, local,
             (unsigned long)size);
  }
  printf("node %u: before gex_Segment_Attach: gex_EP_QueryBoundSegmentNB size 0 and event 0 for "
         "all %u ranks; gex_Segment_QueryBound %d (GASNET_ERR_RESOURCE), outputs untouched\n",
         (unsigned)me, (unsigned)n, GASNET_ERR_RESOURCE);

  gex_Segment_t seg;
  T_CHECK(gex_Segment_Attach(&seg, tm, SEGSIZE));
  si = malloc(sizeof *si * n);
  T_EXPECT(si != NULL, "malloc");
  T_CHECK(gasnet_getSegmentInfo(si, (int)n));
  T_EXPECT(si[me].addr == gex_Segment_QueryAddr(seg) && si[me].size == gex_Segment_QuerySize(seg),
           "gasnet_getSegmentInfo's own entry is not the attached segment");

  if (misuse) {
    if (me == 0) T_CHECK(gex_AM_RequestShort0(tm, 0, h_misuse, 0));
    GASNET_BLOCKUNTIL(done); /* node 0's fatal error ends everyone */
  }

  gex_TM_t pair = gex_TM_Pair(ep, 0);
  check_bound(tm, "team", 0);
  check_bound(tm, "team", GEX_FLAG_IMMEDIATE);
  check_bound(pair, "TM-pair", 0);
  check_bound(pair, "TM-pair", GEX_FLAG_IMMEDIATE);
  printf("node %u: gex_EP_QueryBoundSegmentNB = gasnet_getSegmentInfo for all %u ranks (team and "
         "TM-pair, with and without GEX_FLAG_IMMEDIATE, event 0, a local address for my own "
         "[%p, +%lu) and my neighbourhood's only); gex_Segment_QueryBound agrees\n", (unsigned)me, (unsigned)n, si[me].addr,
         (unsigned long)si[me].size);

  /* Across the job: node 0 collects every rank's answers. */
  if (me == 0) {
    facts = calloc((size_t)n * NFACTS, sizeof *facts);
    T_EXPECT(facts != NULL, "calloc");
  }
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS); /* facts allocated before any arrives */
  T_CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
  T_CHECK(gex_AM_RequestShort6(tm, 0, h_fact, 0, (gex_AM_Arg_t)nsize, (gex_AM_Arg_t)nrank,
                               (gex_AM_Arg_t)ninfo[0].gex_jobrank, (gex_AM_Arg_t)hsize,
                               (gex_AM_Arg_t)hrank, (gex_AM_Arg_t)hinfo[0].gex_jobrank));
  if (me == 0) {
    GASNET_BLOCKUNTIL(__atomic_load_n(&nfacts, __ATOMIC_ACQUIRE) == (int)n);
    gex_Rank_t nsets = 0, hsets = 0;
    for (gex_Rank_t a = 0; a < n; a++) {
      const gex_AM_Arg_t *fa = &facts[(size_t)a * NFACTS];
      T_EXPECT(fa[0] == (gex_AM_Arg_t)nsize && fa[3] == (gex_AM_Arg_t)hsize,
               "rank %u sees %d neighbourhoods and %d hosts, node 0 %u and %u", (unsigned)a,
               fa[0], fa[3], (unsigned)nsize, (unsigned)hsize);
      nsets += fa[2] == (gex_AM_Arg_t)a; /* a is the lowest rank of its set */
      hsets += fa[5] == (gex_AM_Arg_t)a;
      for (gex_Rank_t b = 0; b < a; b++) {
        const gex_AM_Arg_t *fb = &facts[(size_t)b * NFACTS];
        T_EXPECT((fa[2] == fb[2]) == (fa[1] == fb[1]),
                 "ranks %u and %u: neighbourhoods led by %d and %d, set ranks %d and %d",
                 (unsigned)b, (unsigned)a, fb[2], fa[2], fb[1], fa[1]);
        T_EXPECT((fa[5] == fb[5]) == (fa[4] == fb[4]),
                 "ranks %u and %u: hosts led by %d and %d, set ranks %d and %d", (unsigned)b,
                 (unsigned)a, fb[5], fa[5], fb[4], fa[4]);
      }
    }
    T_EXPECT(nsets == nsize && hsets == hsize,
             "%u distinct neighbourhoods and %u hosts, the sizes say %u and %u", (unsigned)nsets,
             (unsigned)hsets, (unsigned)nsize, (unsigned)hsize);
    T_EXPECT(imm_ok == 1, "gex_EP_QueryBoundSegmentNB with GEX_FLAG_IMMEDIATE in the handler "
             "did not match gasnet_getSegmentInfo");
    printf("node 0: position across %u ranks: all see %u neighbourhoods and %u hosts; same set "
           "<=> same set rank; %u and %u distinct sets; IMMEDIATE query in a handler matched\n",
           (unsigned)n, (unsigned)nsize, (unsigned)hsize, (unsigned)nsets, (unsigned)hsets);
    for (gex_Rank_t r = 0; r < n; r++) T_CHECK(gex_AM_RequestShort0(tm, r, h_done, 0));
  }
  GASNET_BLOCKUNTIL(done);
  printf("node %u: all GASNet-EX system checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
