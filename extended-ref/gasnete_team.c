/*
 * gasnete_team.c - making and destroying teams: gex_TM_Split, gex_TM_Create,
 * gex_TM_Destroy (the description, "Operations on gex_TM_t"). The queries
 * and translations, which need no communication, are the core's
 * (core/gasnetc_ex.c).
 *
 * Construction runs over the parent team's own collectives: every member
 * gives the others one record (gather_all): what it asks for (color and
 * key, or a digest of its member list), and an id it reserves. Each caller
 * then builds its team from the records alone; the team takes the id its
 * rank 0 reserved, so ids are unique in the job without a central counter:
 * a process reserves ids from its own range [jobrank * span, +span). A
 * barrier over the parent ends the call, so no member can send a message
 * for the new team before every member knows it.
 *
 * Scratch space: the collectives keep their buffers in private memory, so a
 * team needs none; what the client grants is checked (it must lie in its
 * bound segment), kept, and returned by gex_TM_Destroy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gasnete_coll_internal.h"

/* What the scratch-size query recommends: a page, though none is used. */
#define GASNETE_TEAM_SCRATCH_SIZE ((size_t)4096)

/* One parent member's record. */
typedef struct {
  int32_t color, key;   /* Split */
  uint32_t joins;       /* Split: 1 if it takes a team; Create: its numargs */
  uint32_t id;          /* the id it reserved for a team it would be rank 0 of */
  uint64_t digest;      /* Create: of its member list, as job ranks */
} gasnete_tmrec_t;

static uint32_t gasnete_team_counter = 1; /* ids reserved so far by this process, + 1 */

/* A fresh id from this process's range (0 is the primordial team's). */
static uint32_t gasnete_team_reserve(const char *fname) {
  uint32_t span = UINT32_MAX / gasnete_g.nodes;
  uint32_t c = __atomic_fetch_add(&gasnete_team_counter, 1, __ATOMIC_RELAXED);
  if (c >= span)
    gasnete_fatal("%s: this process has made %u teams, the most a job of %u ranks can "
                  "number (ids are 32 bits)", fname, (unsigned)span, (unsigned)gasnete_g.nodes);
  return gasnete_g.mynode * span + c;
}

/* Every parent member's record, in parent rank order (collective). */
static gasnete_tmrec_t *gasnete_team_exchange(const char *fname, gasnetc_team_t *parent,
                                              const gasnete_tmrec_t *mine) {
  gasnete_tmrec_t *all = malloc(sizeof *all * parent->size);
  if (!all) gasnete_fatal("%s: out of memory for %u records", fname, (unsigned)parent->size);
  gasnete_event_wait(fname, gasnete_coll_gather_all(fname, parent, all, mine, sizeof *mine, 0));
  return all;
}

/* No member goes on before all have registered their new teams. */
static void gasnete_team_sync(const char *fname, gasnetc_team_t *tm) {
  gasnete_event_wait(fname, gex_Coll_BarrierNB(tm, 0));
}

typedef struct { gex_Rank_t job, rank; } gasnete_pair_t;
static int gasnete_pair_cmp(const void *a, const void *b) {
  const gasnete_pair_t *x = a, *y = b;
  return x->job < y->job ? -1 : x->job > y->job;
}

/* A team of n members with these job ranks (taken), this process at rank
 * me: made, known to the core, its barrier and collectives ready. */
static gasnetc_team_t *gasnete_team_new(gex_Rank_t *jobrank, gex_Rank_t n, gex_Rank_t me,
                                        uint32_t id, gex_Flags_t flags, void *scratch,
                                        size_t scratch_size) {
  gasnetc_team_t *tm = calloc(1, sizeof *tm);
  gasnete_pair_t *pairs = malloc(sizeof *pairs * n);
  gex_Rank_t *byjob = malloc(sizeof *byjob * n);
  if (!tm || !pairs || !byjob) gasnete_fatal("out of memory for a team of %u", (unsigned)n);
  for (gex_Rank_t r = 0; r < n; r++) pairs[r] = (gasnete_pair_t){ jobrank[r], r };
  qsort(pairs, n, sizeof *pairs, gasnete_pair_cmp);
  for (gex_Rank_t i = 0; i < n; i++) byjob[i] = pairs[i].rank;
  free(pairs);
  tm->id = id;
  tm->rank = me;
  tm->size = n;
  tm->jobrank = jobrank;
  tm->byjob = byjob;
  tm->flags = flags;
  tm->ep = gasnete_g.tm0->ep;
  tm->scratch.gex_addr = scratch;
  tm->scratch.gex_len = scratch ? scratch_size : 0;
  gasnete_barrier_team_init(tm);
  gasnete_coll_team_init(tm);
  gasnetc_team_register(tm);
  return tm;
}

/* The client's scratch for a team: fatal unless [addr, +size) lies in this
 * process's bound segment (the description: "must reside in a bound
 * segment"); offsets (GEX_FLAG_SCRATCH_SEG_OFFSET) are made addresses. */
static void *gasnete_team_scratch(const char *fname, void *addr, size_t size, gex_Flags_t flags) {
  if (!gasnete_g.attached)
    gasnete_fatal("%s: scratch space is given but no segment is attached (pass "
                  "GEX_FLAG_TM_NO_SCRATCH, or attach first)", fname);
  const gasnet_seginfo_t *seg = &gasnete_g.seg[gasnete_g.mynode];
  if (flags & GEX_FLAG_SCRATCH_SEG_OFFSET) addr = (char *)seg->addr + (uintptr_t)addr;
  uintptr_t a = (uintptr_t)addr, b = (uintptr_t)seg->addr;
  if (size == 0) gasnete_fatal("%s: scratch_size is 0 (the description: non-zero)", fname);
  if (a < b || size > seg->size || a - b > seg->size - size)
    gasnete_fatal("%s: scratch [%p,+%zu) lies outside this rank's bound segment [%p,+%zu)",
                  fname, addr, size, seg->addr, (size_t)seg->size);
  return addr;
}

static void gasnete_team_flags(const char *fname, gex_Flags_t flags, gex_Flags_t allowed) {
  if (flags & ~allowed)
    gasnete_fatal("%s: flags %#x include ones this call does not take (%#x)", fname,
                  (unsigned)flags, (unsigned)(flags & ~allowed));
  if (flags & GEX_FLAG_TM_SCRATCH_SIZE_MIN) {
    static int warned;
    if (!warned++)
      fprintf(stderr, "GASNet warning: %s: GEX_FLAG_TM_SCRATCH_SIZE_MIN is deprecated (spec "
                      "0.11); use GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED\n", fname);
  }
}
#define GASNETE_TM_QUERY (GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED | GEX_FLAG_TM_SCRATCH_SIZE_MIN)

/* ---- gex_TM_Split ----------------------------------------------------------------------- */

typedef struct { int32_t key; gex_Rank_t prank; } gasnete_member_t;
static int gasnete_member_cmp(const void *a, const void *b) {
  const gasnete_member_t *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->prank < y->prank ? -1 : x->prank > y->prank;
}

size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                    void *scratch_addr, size_t scratch_size, gex_Flags_t flags) {
  const char *fname = "gex_TM_Split";
  gasnetc_team_t *parent = gasnete_coll_team(fname, parent_tm);
  gasnete_team_flags(fname, flags, GASNETE_TM_QUERY | GEX_FLAG_TM_NO_SCRATCH |
                                       GEX_FLAG_SCRATCH_SEG_OFFSET);
  if (flags & GASNETE_TM_QUERY) return new_tm_p ? GASNETE_TEAM_SCRATCH_SIZE : 0;
  if (new_tm_p && color < 0)
    gasnete_fatal("%s: color %d is negative (the description: a non-negative integer)", fname,
                  color);
  void *scratch = NULL;
  if (new_tm_p && !(flags & GEX_FLAG_TM_NO_SCRATCH))
    scratch = gasnete_team_scratch(fname, scratch_addr, scratch_size, flags);
  gasnete_tmrec_t mine = { color, key, new_tm_p != NULL, gasnete_team_reserve(fname), 0 };
  gasnete_tmrec_t *all = gasnete_team_exchange(fname, parent, &mine);
  gasnetc_team_t *tm = NULL;
  if (new_tm_p) {
    gasnete_member_t *m = malloc(sizeof *m * parent->size);
    gex_Rank_t n = 0, me = 0;
    if (!m) gasnete_fatal("%s: out of memory", fname);
    for (gex_Rank_t r = 0; r < parent->size; r++)
      if (all[r].joins && all[r].color == color) m[n++] = (gasnete_member_t){ all[r].key, r };
    qsort(m, n, sizeof *m, gasnete_member_cmp);
    gex_Rank_t *jobrank = malloc(sizeof *jobrank * n);
    if (!jobrank) gasnete_fatal("%s: out of memory", fname);
    for (gex_Rank_t i = 0; i < n; i++) {
      jobrank[i] = gasnetc_team_jobrank(parent, m[i].prank);
      if (m[i].prank == parent->rank) me = i;
    }
    tm = gasnete_team_new(jobrank, n, me, all[m[0].prank].id, flags & GEX_FLAG_TM_NO_SCRATCH,
                          scratch, scratch_size);
    free(m);
  }
  free(all);
  gasnete_team_sync(fname, parent);
  if (new_tm_p) *new_tm_p = tm;
  return 0;
}

/* ---- gex_TM_Create ---------------------------------------------------------------------- */

/* FNV-1a of the member list: members of one new team must pass the same. */
static uint64_t gasnete_digest(const gex_Rank_t *job, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= job[i];
    h *= 1099511628211ull;
  }
  return h ^ n;
}

/* args[] as job ranks; fatal unless each names an EP 0 of a parent member,
 * once. *me: this process's index in it, or numargs. */
static gex_Rank_t *gasnete_create_members(const char *fname, gasnetc_team_t *parent,
                                          const gex_EP_Location_t *args, size_t numargs,
                                          gex_Flags_t flags, size_t *me) {
  gex_Rank_t *job = malloc(sizeof *job * numargs);
  char *seen = calloc(gasnete_g.nodes, 1);
  if (!job || !seen) gasnete_fatal("%s: out of memory for %zu members", fname, numargs);
  *me = numargs;
  for (size_t i = 0; i < numargs; i++) {
    gex_Rank_t r = args[i].gex_rank, j;
    if (args[i].gex_ep_index != 0)
      gasnete_fatal("%s: args[%zu] names EP index %u: only EP 0 exists (GASNET_MAXEPS is %d)",
                    fname, i, (unsigned)args[i].gex_ep_index, GASNET_MAXEPS);
    if (flags & GEX_FLAG_RANK_IS_JOBRANK) {
      if (r >= gasnete_g.nodes || gex_TM_TranslateJobrankToRank(parent, r) == GEX_RANK_INVALID)
        gasnete_fatal("%s: args[%zu] names job rank %u, %s", fname, i, (unsigned)r,
                      r >= gasnete_g.nodes ? "which does not exist"
                                           : "which is not in the parent team");
      j = r;
    } else {
      if (r >= parent->size)
        gasnete_fatal("%s: args[%zu] names rank %u: the parent team has %u members", fname, i,
                      (unsigned)r, (unsigned)parent->size);
      j = gasnetc_team_jobrank(parent, r);
    }
    if (seen[j]++) gasnete_fatal("%s: args[%zu] names job rank %u twice", fname, i, (unsigned)j);
    if (j == gasnete_g.mynode) *me = i;
    job[i] = j;
  }
  free(seen);
  return job;
}

/* This member's scratch among scratch_addrs (the GEX_FLAG_TM_*_SCRATCH kind). */
static void *gasnete_create_scratch(const char *fname, gex_Addr_t *addrs, size_t size, size_t me,
                                    gex_Flags_t flags) {
  gex_Flags_t kind = flags & (GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH |
                              GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_NO_SCRATCH);
  if (!kind || (kind & (kind - 1)))
    gasnete_fatal("%s: flags %#x: give exactly one of GEX_FLAG_TM_{GLOBAL,LOCAL,SYMMETRIC,NO}"
                  "_SCRATCH (the description: there is no default)", fname, (unsigned)flags);
  if (kind == GEX_FLAG_TM_NO_SCRATCH) return NULL;
  if (!addrs) gasnete_fatal("%s: scratch_addrs is NULL", fname);
  size_t i = kind == GEX_FLAG_TM_GLOBAL_SCRATCH ? me : 0; /* LOCAL: our one member's */
  return gasnete_team_scratch(fname, addrs[i], size, flags);
}

size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                     gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                     size_t scratch_size, gex_Flags_t flags) {
  const char *fname = "gex_TM_Create";
  gasnetc_team_t *parent = gasnete_coll_team(fname, parent_tm);
  gasnete_team_flags(fname, flags, GASNETE_TM_QUERY | GEX_FLAG_RANK_IS_JOBRANK |
                                       GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH |
                                       GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_NO_SCRATCH |
                                       GEX_FLAG_SCRATCH_SEG_OFFSET);
  if (flags & GASNETE_TM_QUERY) return numargs ? GASNETE_TEAM_SCRATCH_SIZE : 0;
  if (numargs && !args) gasnete_fatal("%s: numargs %zu with a NULL args", fname, numargs);
  if (numargs > parent->size)
    gasnete_fatal("%s: numargs %zu: more members than the parent team's %u", fname, numargs,
                  (unsigned)parent->size);
  size_t me = 0;
  gex_Rank_t *job = numargs ? gasnete_create_members(fname, parent, args, numargs, flags, &me)
                            : NULL;
  int member = numargs && me < numargs;
  if (num_new_tms != (size_t)member)
    gasnete_fatal("%s: num_new_tms %zu: this process has %d endpoint%s in args (one EP per "
                  "process)", fname, num_new_tms, member, member ? "" : "s");
  if (member && !new_tms) gasnete_fatal("%s: new_tms is NULL", fname);
  void *scratch = member ? gasnete_create_scratch(fname, scratch_addrs, scratch_size, me, flags)
                         : NULL;
  gasnete_tmrec_t mine = { 0, 0, (uint32_t)numargs, gasnete_team_reserve(fname),
                           numargs ? gasnete_digest(job, numargs) : 0 };
  gasnete_tmrec_t *all = gasnete_team_exchange(fname, parent, &mine);
  if (member) {
    for (size_t i = 0; i < numargs; i++) { /* the members agree on the team */
      const gasnete_tmrec_t *o = &all[gex_TM_TranslateJobrankToRank(parent, job[i])];
      if (o->joins != numargs || o->digest != mine.digest)
        gasnete_fatal("%s: job rank %u, member %zu of this caller's team, passed other args "
                      "(%u entries): members of one team must pass the same", fname,
                      (unsigned)job[i], i, (unsigned)o->joins);
    }
    uint32_t id = all[gex_TM_TranslateJobrankToRank(parent, job[0])].id;
    new_tms[0] = gasnete_team_new(job, (gex_Rank_t)numargs, (gex_Rank_t)me, id,
                                  flags & ~GASNETE_TM_QUERY, scratch, scratch_size);
  } else {
    free(job);
  }
  free(all);
  gasnete_team_sync(fname, parent); /* also the barrier LOCAL_SCRATCH asks for */
  return 0;
}

/* ---- gex_TM_Destroy --------------------------------------------------------------------- */

int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags) {
  const char *fname = "gex_TM_Destroy";
  gasnetc_team_t *t = gasnete_coll_team(fname, tm);
  if (t == gasnete_g.tm0)
    gasnete_fatal("%s: the primordial team cannot be destroyed (the description)", fname);
  gasnete_team_flags(fname, flags, GEX_FLAG_GLOBALLY_QUIESCED | GEX_FLAG_SCRATCH_SEG_OFFSET);
  gasnete_coll_team_quiesced(fname, t);
  unsigned ads = __atomic_load_n(&t->ads, __ATOMIC_RELAXED);
  if (ads) /* an atomic domain keeps a pointer to its team */
    gasnete_fatal("%s: team %u still has %u atomic domain%s: gex_AD_Destroy %s first (the "
                  "description: locally quiesced)", fname, (unsigned)t->id, ads,
                  ads == 1 ? "" : "s", ads == 1 ? "it" : "them");
  if (!(flags & GEX_FLAG_GLOBALLY_QUIESCED)) gasnete_team_sync(fname, t);
  gasnetc_team_unregister(t);
  gasnete_barrier_team_fini(t);
  gasnete_coll_team_fini(t);
  int given = t->scratch.gex_addr != NULL;
  if (given && scratch_p) {
    *scratch_p = t->scratch;
    if (flags & GEX_FLAG_SCRATCH_SEG_OFFSET)
      scratch_p->gex_addr = (void *)((char *)t->scratch.gex_addr -
                                     (char *)gasnete_g.seg[gasnete_g.mynode].addr);
  }
  free((void *)t->jobrank);
  free((void *)t->byjob);
  free(t);
  return given && scratch_p;
}
