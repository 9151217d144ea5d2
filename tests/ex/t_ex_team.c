/*
 * t_ex_team.c - GASNet-EX teams (the description, "Operations on gex_TM_t")
 * against its sentences, on any number of ranks. Every new team is checked
 * the same way (check_team): its queries (rank, size, EP, client, flags,
 * CData NULL), the translations of every member both ways and of every
 * non-member (GEX_RANK_INVALID), gex_TM_TranslateRankToEP; then the data:
 * an AM through the team to every member (each arrives at the job rank the
 * model says and names its sender's), gex_Coll_BarrierNB, a broadcast from
 * every root, and a ReduceToAll that gathers the members' job ranks by team
 * rank. Every rank computes every team from the arguments all ranks pass
 * (they are functions of the parent rank), so the model is local.
 *
 *  - gex_TM_Split: equal keys (parent order), reversed keys, keys with ties
 *    (ties by parent rank), extreme colors and keys, a team per rank, a
 *    caller with NULL new_tm_p (takes part, gets no team, is in none);
 *    splits of a split, three deep;
 *  - the scratch-size query (GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) on Split
 *    and Create: non-zero, equal on every member of the team-to-be (gathered
 *    over AMs), 0 for a NULL new_tm_p, and nothing written to new_tm_p;
 *  - gex_TM_Create: parent ranks in reverse order (GEX_FLAG_TM_LOCAL_SCRATCH);
 *    job ranks, several disjoint pairs in one call, each reversed
 *    (GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET); a caller
 *    with numargs 0 beside a team of the others (GEX_FLAG_TM_GLOBAL_SCRATCH,
 *    every member's address); GEX_FLAG_TM_NO_SCRATCH from a non-primordial
 *    parent; new_tms untouched for the numargs 0 caller;
 *  - gex_TM_Destroy returns 1 and the scratch given (address and length)
 *    when the client gave one, 0 with scratch_p untouched for
 *    GEX_FLAG_TM_NO_SCRATCH; a NULL scratch_p; GEX_FLAG_GLOBALLY_QUIESCED;
 *  - collectives on several teams in flight at once (a broadcast on one, a
 *    reduction on another, barriers on the primordial team), waited in
 *    reverse order;
 *  - CData: NULL on a new team even when its parent's is set, then what
 *    was set, independently per team;
 *  - 40 rounds of split, broadcast, destroy (ids reused or not, no
 *    cross-talk).
 * The AM-based gather (allgather) used to compare values across ranks
 * does not use the collectives under test.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gasnetex.h"
#include "gasnet_coll.h"
#include "../lib/t_check.h"

enum { H_GATHER = 128, H_TEAMAM };

#define MAXN 64
#define SEGSIZE (32u << 20)
#define SYM_OFF (SEGSIZE - (8u << 20))   /* the symmetric scratch: same offset everywhere */
#define GLOB_OFF (SEGSIZE - (4u << 20))  /* the global scratch: every member's */
#define SENTINEL_TM ((gex_TM_t)(uintptr_t)0x5eed)

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm0;
static gex_Rank_t me, n;
static uint8_t *seg;
static void *peer_seg[MAXN];      /* every rank's segment, owner addresses */
static size_t bump;               /* the next free byte of my segment for scratch */

static void wait_ev(gex_Event_t e) { gex_Event_Wait(e); }

/* ---- a gather over AMs on the primordial team ------------------------------
 * Every rank's value, by job rank. Slot by call number: a rank can be at
 * most one call ahead (it needs everyone's value of the call before). */
#define AG_SLOTS 4
static uint64_t ag_val[AG_SLOTS][MAXN];
static volatile int ag_got[AG_SLOTS];
static unsigned ag_calls;
static void h_gather(gex_Token_t t, gex_AM_Arg_t slot, gex_AM_Arg_t hi, gex_AM_Arg_t lo) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  ag_val[slot][info.gex_srcrank] = ((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo;
  ag_got[slot]++;
}
static void allgather(uint64_t v, uint64_t *out) {
  int s = (int)(ag_calls++ % AG_SLOTS);
  ag_val[s][me] = v;
  for (gex_Rank_t k = 1; k < n; k++)
    T_CHECK(gex_AM_RequestShort3(tm0, (me + k) % n, H_GATHER, 0, s, (gex_AM_Arg_t)(v >> 32),
                                 (gex_AM_Arg_t)v));
  GASNET_BLOCKUNTIL(ag_got[s] == (int)n - 1);
  memcpy(out, ag_val[s], sizeof(uint64_t) * n);
  ag_got[s] = 0;
}

/* ---- an AM through a team ----------------------------------------------------
 * Sent to team rank r with (round, sender's team rank, the job rank the
 * model says r is); the handler records the sender's job rank by its team
 * rank. Two slots by round parity: a member may be one round ahead. */
static gex_Rank_t ta_from[2][MAXN];
static volatile int ta_got[2];
static int ta_wrong;
static void h_teamam(gex_Token_t t, gex_AM_Arg_t round, gex_AM_Arg_t from, gex_AM_Arg_t to_job) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  if ((gex_Rank_t)to_job != me || from < 0 || from >= MAXN) ta_wrong++;
  else ta_from[round & 1][from] = info.gex_srcrank;
  ta_got[round & 1]++;
}

/* ---- scratch in my segment ------------------------------------------------------ */
static void *scratch_alloc(size_t len) {
  T_EXPECT(len > 0 && bump + len <= SYM_OFF, "scratch of %zu bytes: %zu of %u left in the "
           "test's segment (the recommended size is too large for this test)", len,
           (size_t)SYM_OFF - bump, (unsigned)SYM_OFF);
  void *p = seg + bump;
  bump += (len + 4095) & ~(size_t)4095;
  return p;
}

/* ---- the model of a split ----------------------------------------------------
 * Pattern pat gives parent rank p of a parent of size ps its color and key,
 * and whether it passes a non-NULL new_tm_p. */
enum { P_PARITY, P_REVERSED, P_TIES, P_EXTREME, P_ALONE, P_LAST_NULL, NPAT };
static const char *const pat_name[NPAT] = {
  "color parity, equal keys (parent order)", "one color, keys -p (reversed)",
  "one color, keys p%2 (evens then odds, ties by parent rank)",
  "colors 0 / 1000000, keys INT_MAX-p / INT_MIN+p (reversed)", "color p (a team per rank)",
  "last rank NULL new_tm_p (color 1), the others color 0 key 0" };
static int split_args(int pat, gex_Rank_t p, gex_Rank_t ps, int *color, int *key) {
  switch (pat) {
  case P_PARITY: *color = (int)(p % 2); *key = 7; return 1;
  case P_REVERSED: *color = 0; *key = -(int)p; return 1;
  case P_TIES: *color = 3; *key = (int)(p % 2); return 1;
  case P_EXTREME:
    *color = p % 2 ? 1000000 : 0;
    *key = p % 2 ? INT_MIN + (int)p : INT_MAX - (int)p;
    return 1;
  case P_ALONE: *color = (int)p; *key = 0; return 1;
  case P_LAST_NULL: *color = p == ps - 1; *key = 0; return p != ps - 1;
  }
  return 0;
}
/* The members (parent ranks, in new rank order) of the team parent rank q
 * joins; 0 when it joins none. */
static gex_Rank_t model_split(int pat, gex_Rank_t ps, gex_Rank_t q, gex_Rank_t *out) {
  int cq, kq, c, k;
  if (!split_args(pat, q, ps, &cq, &kq)) return 0;
  gex_Rank_t m = 0;
  for (gex_Rank_t p = 0; p < ps; p++) {
    if (!split_args(pat, p, ps, &c, &k) || c != cq) continue;
    gex_Rank_t i = m++; /* insertion sort by (key, parent rank): p ascends */
    while (i > 0) {
      int kp;
      split_args(pat, out[i - 1], ps, &c, &kp);
      if (kp <= k) break;
      out[i] = out[i - 1];
      i--;
    }
    out[i] = p;
  }
  return m;
}

/* A team and what the model says about it, for this rank. */
typedef struct {
  const char *label;
  gex_TM_t tm;           /* GEX_TM_INVALID: not a member */
  gex_Rank_t size;       /* the model's */
  gex_Rank_t job[MAXN];  /* members' job ranks by team rank */
  gex_Flags_t flags;     /* passed at creation */
  void *scratch;         /* given at creation, or NULL */
  size_t scratch_len;
} team_t;

static gex_Rank_t my_rank_in(const team_t *t) {
  for (gex_Rank_t r = 0; r < t->size; r++)
    if (t->job[r] == me) return r;
  return GEX_RANK_INVALID;
}
static void list(char *buf, size_t len, const gex_Rank_t *v, gex_Rank_t m) {
  size_t o = 0;
  buf[0] = 0;
  for (gex_Rank_t i = 0; i < m && o + 12 < len; i++)
    o += (size_t)snprintf(buf + o, len - o, "%s%u", i ? " " : "", (unsigned)v[i]);
}

/* ---- the checks every team gets ----------------------------------------------
 * Collective over the job: non-members (t->tm invalid) only take part in
 * the gather at the end. */
static unsigned round_no;
static void check_team(const team_t *t) {
  unsigned round = round_no++;
  gex_TM_t tm = t->tm;
  if (tm != GEX_TM_INVALID) {
    gex_Rank_t size = t->size, mine = my_rank_in(t);
    char mem[400];
    list(mem, sizeof mem, t->job, size);
    T_EXPECT(mine != GEX_RANK_INVALID, "%s: this rank got a team the model says it is not in", t->label);
    /* queries */
    T_EXPECT(gex_TM_QuerySize(tm) == size, "%s: QuerySize %u, the model %u", t->label,
             (unsigned)gex_TM_QuerySize(tm), (unsigned)size);
    T_EXPECT(gex_TM_QueryRank(tm) == mine, "%s: QueryRank %u, the model %u (members %s)",
             t->label, (unsigned)gex_TM_QueryRank(tm), (unsigned)mine, mem);
    T_EXPECT(gex_TM_QueryEP(tm) == ep, "%s: QueryEP is not the primordial EP", t->label);
    T_EXPECT(gex_TM_QueryClient(tm) == client, "%s: QueryClient", t->label);
    T_EXPECT(gex_TM_QueryFlags(tm) == t->flags, "%s: QueryFlags %#x, passed at creation %#x",
             t->label, (unsigned)gex_TM_QueryFlags(tm), (unsigned)t->flags);
    /* translations: every member both ways, every non-member */
    for (gex_Rank_t r = 0; r < size; r++) {
      gex_Rank_t j = gex_TM_TranslateRankToJobrank(tm, r);
      T_EXPECT(j == t->job[r], "%s: TranslateRankToJobrank(%u) = %u, the model %u", t->label,
               (unsigned)r, (unsigned)j, (unsigned)t->job[r]);
      gex_Rank_t back = gex_TM_TranslateJobrankToRank(tm, t->job[r]);
      T_EXPECT(back == r, "%s: TranslateJobrankToRank(%u) = %u, want %u", t->label,
               (unsigned)t->job[r], (unsigned)back, (unsigned)r);
      gex_EP_Location_t loc = gex_TM_TranslateRankToEP(tm, r, 0);
      T_EXPECT(loc.gex_rank == t->job[r] && loc.gex_ep_index == 0,
               "%s: TranslateRankToEP(%u) = {%u, %u}, want {%u, 0}", t->label, (unsigned)r,
               (unsigned)loc.gex_rank, (unsigned)loc.gex_ep_index, (unsigned)t->job[r]);
    }
    int outsiders = 0;
    for (gex_Rank_t j = 0; j < n; j++) {
      int in = 0;
      for (gex_Rank_t r = 0; r < size; r++) in |= t->job[r] == j;
      if (in) continue;
      outsiders++;
      gex_Rank_t got = gex_TM_TranslateJobrankToRank(tm, j);
      T_EXPECT(got == GEX_RANK_INVALID, "%s: TranslateJobrankToRank(%u), not a member, = %u, "
               "want GEX_RANK_INVALID", t->label, (unsigned)j, (unsigned)got);
    }
    T_EXPECT(gex_TM_QueryCData(tm) == NULL, "%s: CData of a new team is not NULL", t->label);
    /* an AM through the team to every member, myself too */
    for (gex_Rank_t r = 0; r < size; r++)
      T_CHECK(gex_AM_RequestShort3(tm, r, H_TEAMAM, 0, (gex_AM_Arg_t)round, (gex_AM_Arg_t)mine,
                                   (gex_AM_Arg_t)t->job[r]));
    GASNET_BLOCKUNTIL(ta_got[round & 1] == (int)size);
    ta_got[round & 1] = 0;
    T_EXPECT(ta_wrong == 0, "%s: %d AMs through the team reached the wrong job rank", t->label,
             ta_wrong);
    for (gex_Rank_t r = 0; r < size; r++)
      T_EXPECT(ta_from[round & 1][r] == t->job[r], "%s: the AM from team rank %u came from job "
               "rank %u, the model %u", t->label, (unsigned)r,
               (unsigned)ta_from[round & 1][r], (unsigned)t->job[r]);
    /* collectives: a barrier, a broadcast from every root, a gather by reduction */
    wait_ev(gex_Coll_BarrierNB(tm, 0));
    for (gex_Rank_t root = 0; root < size; root++) {
      uint64_t src[2] = { round, 1000u + t->job[root] }, dst[2] = { 0, 0 };
      wait_ev(gex_Coll_BroadcastNB(tm, root, dst, src, sizeof src, 0));
      T_EXPECT(dst[0] == round && dst[1] == 1000u + t->job[root], "%s: broadcast from root %u "
               "gave {%llu, %llu}, want {%u, %u}", t->label, (unsigned)root,
               (unsigned long long)dst[0], (unsigned long long)dst[1], round,
               1000u + (unsigned)t->job[root]);
    }
    uint64_t in[MAXN] = { 0 }, out[MAXN];
    in[mine] = (uint64_t)me + 1;
    wait_ev(gex_Coll_ReduceToAllNB(tm, out, in, GEX_DT_U64, 8, size, GEX_OP_ADD, NULL, NULL, 0));
    for (gex_Rank_t r = 0; r < size; r++)
      T_EXPECT(out[r] == (uint64_t)t->job[r] + 1, "%s: the reduction gathered %llu at team "
               "rank %u, want job rank %u + 1", t->label, (unsigned long long)out[r],
               (unsigned)r, (unsigned)t->job[r]);
    uint64_t mx = 0, mine_v = me;
    wait_ev(gex_Coll_ReduceToOneNB(tm, size - 1, &mx, &mine_v, GEX_DT_U64, 8, 1, GEX_OP_MAX,
                                   NULL, NULL, 0));
    if (mine == size - 1) {
      uint64_t want = 0;
      for (gex_Rank_t r = 0; r < size; r++) want = t->job[r] > want ? t->job[r] : want;
      T_EXPECT(mx == want, "%s: ReduceToOne MAX of the job ranks at root %u: %llu, want %llu",
               t->label, (unsigned)(size - 1), (unsigned long long)mx, (unsigned long long)want);
    }
    printf("node %u: %s: rank %u of %u, members (job ranks) %s as the model; %d non-members "
           "translate to GEX_RANK_INVALID; AMs through it came from and went to those job "
           "ranks; barrier, broadcast from %u roots and a gather by ReduceToAll agree\n",
           (unsigned)me, t->label, (unsigned)mine, (unsigned)size, mem, outsiders,
           (unsigned)size);
  }
  uint64_t rounds[MAXN];
  allgather(round, rounds);
  for (gex_Rank_t j = 0; j < n; j++)
    T_EXPECT(rounds[j] == round, "%s: job rank %u is at check %llu, this one at %u", t->label,
             (unsigned)j, (unsigned long long)rounds[j], round);
}

/* gex_TM_Destroy: 1 and the scratch given, or 0 and *scratch_p untouched. */
static void destroy(team_t *t, gex_Flags_t flags) {
  if (t->tm == GEX_TM_INVALID) return;
  gex_Memvec_t mv = { (void *)(uintptr_t)0xdead, 12345 };
  int rc = gex_TM_Destroy(t->tm, &mv, flags);
  if (t->scratch) {
    T_EXPECT(rc == 1 && mv.gex_addr == t->scratch && mv.gex_len == t->scratch_len,
             "%s: gex_TM_Destroy returned %d, {%p, %zu}; want 1, {%p, %zu} (the scratch given)",
             t->label, rc, mv.gex_addr, mv.gex_len, t->scratch, t->scratch_len);
    memset(t->scratch, 0xa5, t->scratch_len); /* the client's again */
  } else {
    T_EXPECT(rc == 0 && mv.gex_addr == (void *)(uintptr_t)0xdead && mv.gex_len == 12345,
             "%s: gex_TM_Destroy of a team without scratch returned %d, {%p, %zu}; want 0 and "
             "scratch_p untouched", t->label, rc, mv.gex_addr, mv.gex_len);
  }
  t->tm = GEX_TM_INVALID;
}

/* Check that the recommended scratch sizes (by job rank) are equal over
 * the members of t; returns mine. */
static size_t check_query(const char *label, size_t mine, const team_t *t) {
  uint64_t all[MAXN];
  allgather(mine, all);
  if (t->size == 0) {
    return mine;
  }
  T_EXPECT(mine > 0, "%s: recommended scratch size 0 for a member", label);
  for (gex_Rank_t r = 0; r < t->size; r++)
    T_EXPECT(all[t->job[r]] == mine, "%s: recommended scratch %llu on job rank %u, %zu here "
             "(must be single-valued over the team)", label, (unsigned long long)all[t->job[r]],
             (unsigned)t->job[r], mine);
  if (t->job[0] == me)
    printf("node %u: %s: the recommended scratch size is %zu on all %u members; no team made\n",
           (unsigned)me, label, mine, (unsigned)t->size);
  return mine;
}

/* Split parent (whose members' job ranks are pj[0..ps)) by pattern pat,
 * with scratch from my segment (queried first) or GEX_FLAG_TM_NO_SCRATCH. */
static void split(team_t *t, const char *label, const team_t *parent, int pat, int with_scratch) {
  gex_Rank_t ps = parent->size, p = my_rank_in(parent), memb[MAXN];
  memset(t, 0, sizeof *t);
  t->label = label;
  t->tm = GEX_TM_INVALID;
  if (p == GEX_RANK_INVALID) { /* not in the parent: only the gathers */
    if (with_scratch) check_query(label, 0, t);
    check_team(t);
    return;
  }
  int color, key, joins = split_args(pat, p, ps, &color, &key);
  t->size = model_split(pat, ps, p, memb);
  for (gex_Rank_t r = 0; r < t->size; r++) t->job[r] = parent->job[memb[r]];
  gex_TM_t got = SENTINEL_TM;
  if (with_scratch) {
    size_t q = gex_TM_Split(joins ? &got : NULL, parent->tm, color, key, NULL, 0,
                            GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    T_EXPECT(got == SENTINEL_TM, "%s: the scratch query wrote new_tm_p", label);
    if (!joins)
      T_EXPECT(q == 0, "%s: the scratch query with a NULL new_tm_p returned %zu, want 0", label, q);
    check_query(label, q, t);
    if (joins) {
      t->scratch = scratch_alloc(q);
      t->scratch_len = q;
    }
  }
  t->flags = with_scratch ? 0 : GEX_FLAG_TM_NO_SCRATCH;
  gex_TM_Split(joins ? &got : NULL, parent->tm, color, key, t->scratch, t->scratch_len, t->flags);
  if (joins) {
    T_EXPECT(got != SENTINEL_TM && got != GEX_TM_INVALID, "%s: no team written", label);
    t->tm = got;
  } else {
    T_EXPECT(got == SENTINEL_TM, "%s: a caller with a NULL new_tm_p got a team", label);
  }
  check_team(t);
}

static team_t world;

/* ---- gex_TM_Split ----------------------------------------------------------- */
static void check_split(void) {
  team_t t[NPAT], a, b, c, d;
  char labels[NPAT][120];
  for (int pat = 0; pat < NPAT; pat++) {
    snprintf(labels[pat], sizeof labels[pat], "split of the job: %s, %s", pat_name[pat],
             pat % 2 ? "no scratch" : "scratch from the segment");
    split(&t[pat], labels[pat], &world, pat, pat % 2 == 0);
  }
  /* splits of a split: the reversed team by parity (of its ranks), that by
   * reversed keys again, and the tie pattern of the reversed team */
  split(&a, "split of the reversed team: parity of its ranks, equal keys", &t[P_REVERSED], P_PARITY, 1);
  split(&b, "split of that split: reversed keys", &a, P_REVERSED, 0);
  split(&c, "split of the reversed team: keys p%2 (ties)", &t[P_REVERSED], P_TIES, 1);
  split(&d, "split of the team without the last rank: parity", &t[P_LAST_NULL], P_PARITY, 0);
  destroy(&d, 0);
  destroy(&b, 0);
  destroy(&c, 0);
  destroy(&a, 0);
  for (int pat = NPAT - 1; pat >= 0; pat--) destroy(&t[pat], 0);
  bump = 0;
  if (me == 0)
    printf("node 0: gex_TM_Split: %d patterns of the job and 4 splits of splits as the model; "
           "every gex_TM_Destroy gave back the scratch given (or 0 without)\n", NPAT);
}

/* ---- gex_TM_Create ----------------------------------------------------------- */
/* Create; t->job / t->size / flags set by the caller for members. */
static void create(team_t *t, const team_t *parent, gex_EP_Location_t *args, size_t numargs,
                   gex_Addr_t *scratch_addrs, gex_Flags_t kind) {
  gex_TM_t got = SENTINEL_TM;
  /* the query first: the recommended size, equal over the team, no team */
  size_t q = gex_TM_Create(&got, numargs ? 1 : 0, parent->tm, args, numargs, NULL, 0,
                           t->flags | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
  T_EXPECT(got == SENTINEL_TM, "%s: the scratch query wrote new_tms", t->label);
  check_query(t->label, numargs ? q : 0, t);
  T_EXPECT(kind == GEX_FLAG_TM_LOCAL_SCRATCH || q <= (4u << 20), "%s: recommended scratch %zu "
           "is more than the 4 MiB the test keeps for it", t->label, q);
  if (kind == GEX_FLAG_TM_LOCAL_SCRATCH && numargs) {
    t->scratch = scratch_alloc(q);
    t->scratch_len = q;
    scratch_addrs[0] = t->scratch;
  } else if (kind != GEX_FLAG_TM_NO_SCRATCH && numargs) {
    t->scratch_len = q;
  }
  gex_TM_Create(&got, numargs ? 1 : 0, parent->tm, args, numargs, scratch_addrs, t->scratch_len,
                t->flags);
  if (numargs) {
    T_EXPECT(got != SENTINEL_TM && got != GEX_TM_INVALID, "%s: no team written", t->label);
    t->tm = got;
  } else {
    T_EXPECT(got == SENTINEL_TM, "%s: a caller with numargs 0 got new_tms[0] written", t->label);
    t->tm = GEX_TM_INVALID;
  }
  check_team(t);
}

static void check_create(const team_t *reversed) {
  team_t t1, t2, t3, t4;
  gex_EP_Location_t args[MAXN];
  gex_Addr_t addrs[MAXN];
  /* 1. every rank, parent ranks in reverse order, local scratch */
  memset(&t1, 0, sizeof t1);
  t1.label = "create: the job in reverse order (parent ranks, GEX_FLAG_TM_LOCAL_SCRATCH)";
  t1.size = n;
  for (gex_Rank_t i = 0; i < n; i++) {
    t1.job[i] = n - 1 - i;
    args[i].gex_rank = n - 1 - i;
    args[i].gex_ep_index = 0;
  }
  t1.flags = GEX_FLAG_TM_LOCAL_SCRATCH;
  create(&t1, &world, args, n, addrs, GEX_FLAG_TM_LOCAL_SCRATCH);
  /* 2. disjoint pairs in one call, by job rank, each reversed; the same
   * offset on every member */
  memset(&t2, 0, sizeof t2);
  t2.label = "create: disjoint pairs {2k+1, 2k} in one call (job ranks, GEX_FLAG_TM_SYMMETRIC_"
             "SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET)";
  gex_Rank_t lo = me - me % 2;
  t2.size = lo + 1 < n ? 2 : 1;
  for (gex_Rank_t i = 0; i < t2.size; i++) {
    t2.job[i] = lo + t2.size - 1 - i;
    args[i].gex_rank = t2.job[i];
    args[i].gex_ep_index = 0;
  }
  t2.flags = GEX_FLAG_RANK_IS_JOBRANK | GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET;
  addrs[0] = (gex_Addr_t)(uintptr_t)SYM_OFF;
  create(&t2, &world, args, t2.size, addrs, GEX_FLAG_TM_SYMMETRIC_SCRATCH);
  t2.scratch = seg + SYM_OFF; /* gex_TM_Destroy gives the address */
  /* 3. rank 0 passes numargs 0; the others make a team of ranks 1.., each
   * member's scratch named by its owner's address */
  memset(&t3, 0, sizeof t3);
  t3.label = "create: job ranks 1.. beside rank 0 with numargs 0 (GEX_FLAG_TM_GLOBAL_SCRATCH)";
  size_t na = 0;
  if (me != 0) {
    t3.size = n - 1;
    for (gex_Rank_t i = 0; i < t3.size; i++) {
      t3.job[i] = i + 1;
      args[i].gex_rank = i + 1; /* parent (the job) ranks */
      args[i].gex_ep_index = 0;
      addrs[i] = (uint8_t *)peer_seg[i + 1] + GLOB_OFF;
    }
    na = t3.size;
  }
  t3.flags = GEX_FLAG_TM_GLOBAL_SCRATCH;
  create(&t3, &world, args, na, addrs, GEX_FLAG_TM_GLOBAL_SCRATCH);
  if (me != 0) t3.scratch = seg + GLOB_OFF;
  /* 4. from the reversed team, its ranks forward (so the job reversed), no scratch */
  memset(&t4, 0, sizeof t4);
  t4.label = "create: from the reversed team, its ranks in order (GEX_FLAG_TM_NO_SCRATCH)";
  t4.size = reversed->size;
  for (gex_Rank_t i = 0; i < t4.size; i++) {
    t4.job[i] = reversed->job[i];
    args[i].gex_rank = i;
    args[i].gex_ep_index = 0;
  }
  t4.flags = GEX_FLAG_TM_NO_SCRATCH;
  create(&t4, reversed, args, t4.size, addrs, GEX_FLAG_TM_NO_SCRATCH);
  /* the scratch given comes back from gex_TM_Destroy, the quiesced flag too */
  destroy(&t4, 0);
  wait_ev(gex_Coll_BarrierNB(tm0, 0));
  destroy(&t3, GEX_FLAG_GLOBALLY_QUIESCED);
  destroy(&t2, GEX_FLAG_GLOBALLY_QUIESCED);
  destroy(&t1, 0);
  bump = 0;
  if (me == 0)
    printf("node 0: gex_TM_Create: reversed, disjoint pairs in one call, a numargs 0 caller, "
           "from a non-primordial parent: as the model; scratch query and gex_TM_Destroy as "
           "described\n");
}

/* ---- collectives on several teams at once ------------------------------------------ */
static void check_concurrent(const team_t *par, const team_t *rev) {
  gex_Rank_t pr = my_rank_in(par), rr = my_rank_in(rev);
  uint64_t bsrc[4] = { 11, 22, 33, (uint64_t)me }, bdst[4] = { 0 };
  uint64_t rsrc[3] = { me, (uint64_t)1 << me, 5 }, rdst[3] = { 0 };
  uint64_t b2src = 0xabcdef00u + me, b2dst = 0;
  gex_Event_t ev[5];
  ev[0] = gex_Coll_BarrierNB(tm0, 0);
  ev[1] = gex_Coll_BroadcastNB(par->tm, 0, bdst, bsrc, sizeof bsrc, 0);
  ev[2] = gex_Coll_ReduceToAllNB(rev->tm, rdst, rsrc, GEX_DT_U64, 8, 3, GEX_OP_ADD, NULL, NULL, 0);
  ev[3] = gex_Coll_BroadcastNB(rev->tm, rev->size - 1, &b2dst, &b2src, 8, 0);
  ev[4] = gex_Coll_BarrierNB(par->tm, 0);
  for (int i = 4; i >= 0; i--) wait_ev(ev[i]);
  uint64_t sum = 0, bits = 0;
  for (gex_Rank_t j = 0; j < n; j++) { sum += j; bits |= (uint64_t)1 << j; }
  T_EXPECT(bdst[0] == 11 && bdst[1] == 22 && bdst[2] == 33 && bdst[3] == par->job[0],
           "in flight: broadcast on the parity team gave root %llu, want %u",
           (unsigned long long)bdst[3], (unsigned)par->job[0]);
  T_EXPECT(rdst[0] == sum && rdst[1] == bits && rdst[2] == 5 * (uint64_t)n,
           "in flight: ReduceToAll on the reversed team gave {%llu, %#llx, %llu}, want {%llu, "
           "%#llx, %llu}", (unsigned long long)rdst[0], (unsigned long long)rdst[1],
           (unsigned long long)rdst[2], (unsigned long long)sum, (unsigned long long)bits,
           (unsigned long long)(5 * n));
  T_EXPECT(b2dst == 0xabcdef00u + rev->job[rev->size - 1],
           "in flight: broadcast on the reversed team from its last rank gave %#llx",
           (unsigned long long)b2dst);
  printf("node %u: in flight at once: a barrier on the job, a broadcast and a barrier on the "
         "parity team (rank %u), a reduction and a broadcast on the reversed team (rank %u), "
         "waited in reverse order: values as expected\n", (unsigned)me, (unsigned)pr, (unsigned)rr);
}

/* ---- CData ----------------------------------------------------------------------- */
static void check_cdata(team_t *par) {
  static int mark0, mark1;
  gex_TM_SetCData(tm0, &mark0);
  team_t t;
  split(&t, "split for CData: reversed keys", &world, P_REVERSED, 0);
  T_EXPECT(gex_TM_QueryCData(t.tm) == NULL, "CData of a team split from one with CData");
  gex_TM_SetCData(t.tm, &mark1);
  gex_TM_SetCData(par->tm, &t);
  T_EXPECT(gex_TM_QueryCData(t.tm) == &mark1 && gex_TM_QueryCData(tm0) == &mark0 &&
           gex_TM_QueryCData(par->tm) == &t, "CData is not per team");
  gex_TM_SetCData(par->tm, NULL);
  gex_TM_SetCData(tm0, NULL);
  destroy(&t, 0);
  printf("node %u: CData: NULL on a new team whose parent has one, then per team what was set\n",
         (unsigned)me);
}

/* ---- many teams, one after another ------------------------------------------------- */
static void check_churn(int rounds) {
  for (int i = 0; i < rounds; i++) {
    int color = (int)((me + (gex_Rank_t)i) % 2), key = i % 3 ? 0 : -(int)me;
    gex_TM_t t;
    gex_TM_Split(&t, tm0, color, key, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    uint64_t v = 0, src = (uint64_t)i * 100 + me;
    gex_Rank_t root = gex_TM_QuerySize(t) - 1;
    wait_ev(gex_Coll_BroadcastNB(t, root, &v, &src, 8, 0));
    gex_Rank_t rj = gex_TM_TranslateRankToJobrank(t, root);
    T_EXPECT(v == (uint64_t)i * 100 + rj, "churn round %d: broadcast gave %llu, want %llu", i,
             (unsigned long long)v, (unsigned long long)((uint64_t)i * 100 + rj));
    T_EXPECT((rj + (gex_Rank_t)i) % 2 == (gex_Rank_t)color, "churn round %d: root %u is not "
             "of my color", i, (unsigned)rj);
    T_EXPECT(gex_TM_Destroy(t, NULL, 0) == 0, "churn: gex_TM_Destroy with NULL scratch_p");
  }
  printf("node %u: %d rounds of split, broadcast, destroy: every broadcast came from its own "
         "team's root\n", (unsigned)me, rounds);
}

int main(int argc, char **argv) {
  gex_Segment_t segment;
  T_CHECK(gex_Client_Init(&client, &ep, &tm0, "T_EX_TEAM", &argc, &argv, 0));
  me = gex_TM_QueryRank(tm0);
  n = gex_TM_QuerySize(tm0);
  T_EXPECT(n <= MAXN, "at most %d ranks", MAXN);
  gex_AM_Entry_t table[] = {
    {H_GATHER, (gex_AM_Fn_t)h_gather, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 3, NULL, "gather"},
    {H_TEAMAM, (gex_AM_Fn_t)h_teamam, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 3, NULL, "teamam"},
  };
  T_CHECK(gex_EP_RegisterHandlers(ep, table, 2));
  T_CHECK(gex_Segment_Attach(&segment, tm0, SEGSIZE));
  seg = gex_Segment_QueryAddr(segment);
  for (gex_Rank_t r = 0; r < n; r++)
    wait_ev(gex_EP_QueryBoundSegmentNB(tm0, r, &peer_seg[r], NULL, NULL, 0));
  gex_RankInfo_t *nb;
  gex_Rank_t nbn;
  gex_System_QueryNbrhdInfo(&nb, &nbn, NULL);
  printf("node %u: %u ranks, %u in my neighbourhood\n", (unsigned)me, (unsigned)n, (unsigned)nbn);

  world.label = "the primordial team";
  world.tm = tm0;
  world.size = n;
  for (gex_Rank_t r = 0; r < n; r++) world.job[r] = r;
  check_team(&world);
  check_split();
  team_t par, rev;
  split(&par, "parity team (kept)", &world, P_PARITY, 0);
  split(&rev, "reversed team (kept)", &world, P_REVERSED, 1);
  check_create(&rev);
  check_concurrent(&par, &rev);
  check_cdata(&par);
  destroy(&rev, 0);
  destroy(&par, 0);
  check_churn(getenv("T_TEAM_CHURN") ? atoi(getenv("T_TEAM_CHURN")) : 40);
  wait_ev(gex_Coll_BarrierNB(tm0, 0));
  printf("node %u: all team checks passed\n", (unsigned)me);
  gasnet_exit(0);
  return 0;
}
