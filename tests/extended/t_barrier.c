/*
 * t_barrier.c - split-phase barrier semantics (spec 3.5) on any number of
 * ranks.
 *
 *   gasnetrun -n N tests/extended/t_barrier [RANDOM_TRIALS]
 *
 * 1. Fixed cases of named / anonymous / mismatch notifies and waits, each
 *    rank checking the result spec 3.5.0.2 prescribes for it, as Berkeley's
 *    library (since GASNet 1.20) and its clients read it:
 *      MISMATCH if any node notified with GASNET_BARRIERFLAG_MISMATCH, if any
 *      two nodes notified named with different ids, if the wait passes
 *      GASNET_BARRIERFLAG_MISMATCH, or if the wait is named and its id
 *      differs from this node's named notify or from the id the named
 *      notifies agreed on; else OK (an anonymous notify with a named wait,
 *      or a named notify with an anonymous wait, is no mismatch).
 *    Then RANDOM_TRIALS random combinations (same pattern on every rank,
 *    from a shared seed), completed alternately by wait and by a try loop.
 * 2. A barrier separates phases: before notifying, every rank writes the
 *    phase number into a slot of every rank with a blocking put; after the
 *    wait, all n slots of this rank must hold it.
 * 3. gasnet_barrier_try returns GASNET_ERR_NOT_READY while the last rank
 *    holds back its notify (it waits for an AM from rank 0, sent after rank
 *    0 has seen 200 NOT_READYs over >= 20 ms), then completes.
 */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

#include "t_ext_util.h"

#define ANON GASNET_BARRIERFLAG_ANONYMOUS
#define MISM GASNET_BARRIERFLAG_MISMATCH
#define H_GO 200

static gasnet_node_t me, n;
static volatile int go;
static void h_go(gasnet_token_t t) { (void)t; go = 1; }

typedef struct { int nid, nflags, wid, wflags; } t_call;

/* What spec 3.5.0.2 (Berkeley's reading) says node `node` gets. */
static int expected(const t_call *c, gasnet_node_t node) {
  int global_mismatch = 0, have = 0, id = 0;
  for (gasnet_node_t i = 0; i < n; i++) {
    if (c[i].nflags == MISM) global_mismatch = 1;
    if (c[i].nflags == 0) {
      if (have && c[i].nid != id) global_mismatch = 1;
      have = 1; id = c[i].nid;
    }
  }
  const t_call *m = &c[node];
  if (global_mismatch || m->wflags == MISM) return GASNET_ERR_BARRIER_MISMATCH;
  if (m->wflags == ANON) return GASNET_OK;
  if ((m->nflags == 0 && m->wid != m->nid) || (have && m->wid != id))
    return GASNET_ERR_BARRIER_MISMATCH;
  return GASNET_OK;
}

static unsigned long ncases, nmismatch;
static int run_case(const char *name, const t_call *c, int use_try) {
  const t_call *m = &c[me];
  gasnet_barrier_notify(m->nid, m->nflags);
  int rc;
  if (use_try) while ((rc = gasnet_barrier_try(m->wid, m->wflags)) == GASNET_ERR_NOT_READY) {}
  else rc = gasnet_barrier_wait(m->wid, m->wflags);
  int want = expected(c, me);
  if (rc != want) {
    fprintf(stderr, "node %u: case '%s': notify(%d,%d) wait(%d,%d) returned %s, spec 3.5 says %s\n",
            (unsigned)me, name, m->nid, m->nflags, m->wid, m->wflags, gasnet_ErrorName(rc),
            gasnet_ErrorName(want));
    for (gasnet_node_t i = 0; i < n; i++)
      fprintf(stderr, "   node %u: notify(%d,%d) wait(%d,%d)\n", (unsigned)i, c[i].nid,
              c[i].nflags, c[i].wid, c[i].wflags);
    gasnet_exit(3);
  }
  ncases++;
  nmismatch += rc == GASNET_ERR_BARRIER_MISMATCH;
  return rc;
}

static void fixed_cases(void) {
  t_call *c = calloc(n, sizeof *c);
  const gasnet_node_t k = n - 1; /* the odd one out */
#define CASE(name, expr)                                                   \
  do {                                                                     \
    for (gasnet_node_t i = 0; i < n; i++) { t_call *x = &c[i]; (void)x; expr; } \
    int rc_ = run_case(name, c, 0);                                        \
    if (me == 0) printf("case %-44s node 0 got %s\n", name, gasnet_ErrorName(rc_)); \
    (void)run_case(name " (try)", c, 1);                                   \
  } while (0)
  CASE("all named, same id", (*x = (t_call){ 7, 0, 7, 0 }));
  CASE("all anonymous", (*x = (t_call){ (int)i, ANON, -1, ANON }));
  CASE("named and anonymous, one id", (*x = (t_call){ 9, i % 2 ? ANON : 0, 9, i % 2 ? ANON : 0 }));
  CASE("only the last node named", (*x = (t_call){ 5, i == k ? 0 : ANON, 5, i == k ? 0 : ANON }));
  CASE("two named ids differ (others anonymous)",
       (*x = (t_call){ i == 0 ? 1 : 2, (i == 0 || i == k) ? 0 : ANON, i == 0 ? 1 : 2,
                       (i == 0 || i == k) ? 0 : ANON }));
  CASE("every node a different id", (*x = (t_call){ (int)i, 0, (int)i, 0 }));
  CASE("last node notifies MISMATCH, others named",
       (*x = (t_call){ 3, i == k ? MISM : 0, 3, i == k ? MISM : 0 }));
  CASE("last node notifies MISMATCH, others anonymous",
       (*x = (t_call){ 3, i == k ? MISM : ANON, 3, i == k ? MISM : ANON }));
  CASE("last node waits with another id", (*x = (t_call){ 4, 0, i == k ? 5 : 4, 0 }));
  CASE("last node waits anonymous after named notify", (*x = (t_call){ 4, 0, 4, i == k ? ANON : 0 }));
  CASE("last node waits named after anonymous notify", (*x = (t_call){ 4, ANON, 4, i == k ? 0 : ANON }));
  CASE("anonymous wait ignores the id", (*x = (t_call){ 1, ANON, 99, ANON }));
  CASE("all anonymous notifies, named waits", (*x = (t_call){ 6, ANON, 6 + (int)i, 0 }));
  CASE("last node anonymous, waits with the others' id",
       (*x = (t_call){ i == k ? 1 : 6, i == k ? ANON : 0, 6, 0 }));
  CASE("last node anonymous, waits with another id",
       (*x = (t_call){ 6, i == k ? ANON : 0, i == k ? 7 : 6, 0 }));
  CASE("back to all named, same id", (*x = (t_call){ 8, 0, 8, 0 }));
  free(c);
}

static void random_cases(int trials) {
  t_call *c = calloc(n, sizeof *c);
  uint64_t rs = 4242; /* same stream on every rank: every rank knows all calls */
  const int flagset[] = { 0, 0, ANON, ANON, ANON, MISM };
  for (int t = 0; t < trials; t++) {
    int skew = t_rand(&rs) % 4 != 0; /* mostly one id for all, else random ids */
    for (gasnet_node_t i = 0; i < n; i++) {
      c[i].nflags = flagset[t_rand(&rs) % (t % 5 == 0 ? 6 : 5)];
      c[i].nid = skew ? 11 : (int)(t_rand(&rs) % 3);
      c[i].wflags = t_rand(&rs) % 20 ? c[i].nflags : flagset[t_rand(&rs) % 6];
      c[i].wid = t_rand(&rs) % 20 ? c[i].nid : c[i].nid + 1;
    }
    run_case("random", c, t % 2);
  }
  free(c);
}

static void phases(int rounds) {
  gasnet_seginfo_t *seg = malloc(n * sizeof *seg);
  T_CHECK(gasnet_getSegmentInfo(seg, (int)n));
  for (int p = 1; p <= rounds; p++) {
    for (gasnet_node_t i = 0; i < n; i++)
      gasnet_put_val(i, (int *)seg[i].addr + (p % 2) * n + me, (gasnet_register_value_t)p,
                     sizeof(int));
    gasnet_barrier_notify(p, 0);
    T_CHECK(gasnet_barrier_wait(p, 0));
    /* two sets of slots: a node can be one phase ahead of us, not two */
    const int *slots = (const int *)seg[me].addr + (p % 2) * n;
    for (gasnet_node_t i = 0; i < n; i++)
      T_EXPECT(slots[i] == p, "phase %d: slot of node %u holds %d after the barrier", p,
               (unsigned)i, slots[i]);
  }
  free(seg);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void try_not_ready(void) {
  if (n == 1) {
    gasnet_barrier_notify(0, 0);
    T_EXPECT(gasnet_barrier_try(0, 0) == GASNET_OK, "one node: try after notify is OK");
    return;
  }
  if (me == n - 1) {
    GASNET_BLOCKUNTIL(go);
    gasnet_barrier_notify(0, 0);
    T_CHECK(gasnet_barrier_wait(0, 0));
  } else if (me == 0) {
    gasnet_barrier_notify(0, 0);
    int notready = 0;
    double t0 = now();
    while (notready < 200 || now() - t0 < 0.02) {
      int rc = gasnet_barrier_try(0, 0);
      T_EXPECT(rc == GASNET_ERR_NOT_READY, "barrier_try returned %s while node %u had not notified",
               gasnet_ErrorName(rc), (unsigned)(n - 1));
      notready++;
    }
    T_CHECK(gasnet_AMRequestShort0(n - 1, H_GO));
    int rc;
    while ((rc = gasnet_barrier_try(0, 0)) == GASNET_ERR_NOT_READY) {}
    T_CHECK(rc);
    printf("barrier_try: %d x GASNET_ERR_NOT_READY while node %u held back its notify, then %s\n",
           notready, (unsigned)(n - 1), gasnet_ErrorName(rc));
  } else {
    gasnet_barrier_notify(0, 0);
    T_CHECK(gasnet_barrier_wait(0, 0));
  }
}

int main(int argc, char **argv) {
  gasnet_handlerentry_t table[] = { { H_GO, (void (*)())h_go } };
  T_CHECK(gasnet_init(&argc, &argv));
  int trials = argc > 1 ? atoi(argv[1]) : 200;
  T_CHECK(gasnet_attach(table, 1, GASNET_PAGESIZE, 0));
  me = gasnet_mynode(); n = gasnet_nodes();
  fixed_cases();
  random_cases(trials);
  phases(50);
  try_not_ready();
  printf("t_barrier: node %u of %u: %lu barriers as spec 3.5 prescribes (%lu mismatches), "
         "50 phases separated\n", (unsigned)me, (unsigned)n, ncases, nmismatch);
  fflush(stdout);
  gasnet_barrier_notify(0, ANON);
  T_CHECK(gasnet_barrier_wait(0, ANON));
  gasnet_exit(0);
}
