/*
 * gasnete_coll.c - the collectives engine: mailboxes, operations in flight,
 * their progress and their events. The algorithms are in gasnete_coll_ops.c.
 *
 * Numbering. Every member of a team calls the team's collectives in the
 * same order, so the n-th one is the same operation everywhere: a message
 * carries (team id, n, stage, sender's team rank) and needs no other
 * matching. Team ids are unique in the job (gasnete_team.c).
 *
 * Mailboxes. A message lands in the mailbox of (team, n), made by whichever
 * comes first, the message or the local call, in a slot for (stage,
 * sender) holding the whole message (it may come in several Medium
 * chunks). So a message may arrive before the local call (a root that ran
 * ahead, a late member): it waits parked. The operation takes a slot when
 * it needs it and owns the buffer from then on. Nothing remote ever writes
 * a client buffer: the receiver copies out of its slot.
 *
 * Progress. Handlers may not send (spec 2.4.1), so an operation advances
 * (takes what arrived, combines, forwards) only on a client thread: when
 * any collective or barrier event is tested or waited, in every blocking
 * wait of the extended API (gasnete_wait_step) and in gasnet_barrier_try.
 * gasnete_coll_progress kicks every operation in flight, not only the one
 * waited on: another rank may need this one's forwarding of an older
 * operation before it can send what this one waits for. One thread at a
 * time does it (a try-lock); the others just poll.
 *
 * Stages IN and OUT (GASNet-1's ALLSYNC): a barrier among the members
 * (pairwise exchange or dissemination: gasnete_bpeer_to), before and after
 * the data stages; their rounds never bring two messages from one sender
 * (2^r != 2^s mod n, and me ^ 2^r != me ^ 2^s, for r < s < ceil(log2 n)).
 */
#include <stdlib.h>
#include <string.h>

#include "gasnete_coll_internal.h"
#include "gasnete_coll_ops.h"

/* ---- mailboxes ------------------------------------------------------------------ */

typedef struct {
  uint32_t stage, from;
  size_t total, got; /* bytes announced, bytes arrived */
  int arrived;       /* some chunk came (a 0-byte message is one chunk) */
  int taken;
  char *buf;
} gasnete_cslot_t;

typedef struct gasnete_mbox {
  uint32_t team, seq;
  gasnete_cslot_t *slot;
  size_t nslots, cap;
  struct gasnete_mbox *next;
} gasnete_mbox_t;

static struct {
  gasnet_hsl_t lock;        /* guards the mailboxes */
  gasnete_mbox_t *mboxes;
  gasnete_coll_op_t *active; /* operations in flight, oldest first */
  gasnete_coll_op_t **tail;
  int nactive;              /* read without the lock: a hint */
  int busy;                 /* a thread is in gasnete_coll_progress */
} gasnete_cg = { .lock = GASNET_HSL_INITIALIZER, .tail = &gasnete_cg.active };

static void *gasnete_coll_alloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) gasnete_fatal("collectives: out of memory for %zu bytes", n);
  return p;
}

/* The mailbox of (team, seq), made when first needed. Hold the lock. */
static gasnete_mbox_t *gasnete_mbox(uint32_t team, uint32_t seq) {
  gasnete_mbox_t *m = gasnete_cg.mboxes;
  while (m && (m->seq != seq || m->team != team)) m = m->next;
  if (m) return m;
  m = calloc(1, sizeof *m);
  if (!m) gasnete_fatal("collectives: out of memory for a mailbox");
  m->team = team;
  m->seq = seq;
  m->next = gasnete_cg.mboxes;
  gasnete_cg.mboxes = m;
  return m;
}

/* The slot of (stage, from) in m, made when first needed. Hold the lock. */
static gasnete_cslot_t *gasnete_mbox_slot(gasnete_mbox_t *m, uint32_t stage, uint32_t from) {
  for (size_t i = 0; i < m->nslots; i++)
    if (m->slot[i].stage == stage && m->slot[i].from == from) return &m->slot[i];
  if (m->nslots == m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 4;
    gasnete_cslot_t *s = realloc(m->slot, cap * sizeof *s);
    if (!s) gasnete_fatal("collectives: out of memory for a mailbox of %zu slots", cap);
    m->slot = s;
    m->cap = cap;
  }
  gasnete_cslot_t *s = &m->slot[m->nslots++];
  memset(s, 0, sizeof *s);
  s->stage = stage;
  s->from = from;
  return s;
}

/* The operation is over: every message for it has come and been taken. */
static void gasnete_mbox_drop(gasnete_coll_op_t *op) {
  gasnet_hsl_lock(&gasnete_cg.lock);
  gasnete_mbox_t **pp = &gasnete_cg.mboxes;
  while (*pp && ((*pp)->seq != op->seq || (*pp)->team != op->tm->id)) pp = &(*pp)->next;
  gasnete_mbox_t *m = *pp;
  if (m) *pp = m->next;
  gasnet_hsl_unlock(&gasnete_cg.lock);
  if (!m) return;
  for (size_t i = 0; i < m->nslots; i++)
    if (!m->slot[i].taken)
      gasnete_fatal("%s: team %u's collective %u got a message nobody takes (stage %u from "
                    "rank %u): the members' collective calls differ", op->fname,
                    (unsigned)m->team, (unsigned)m->seq, (unsigned)m->slot[i].stage,
                    (unsigned)m->slot[i].from);
  free(m->slot);
  free(m);
}

void gasnete_coll_data_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t team,
                               gasnete_arg_t seq, gasnete_arg_t stage, gasnete_arg_t from,
                               gasnete_arg_t thi, gasnete_arg_t tlo, gasnete_arg_t ohi,
                               gasnete_arg_t olo) {
  (void)t;
  size_t total = (size_t)GASNETE_U64(thi, tlo), off = (size_t)GASNETE_U64(ohi, olo);
  gasnet_hsl_lock(&gasnete_cg.lock);
  gasnete_cslot_t *s = gasnete_mbox_slot(gasnete_mbox((uint32_t)team, (uint32_t)seq),
                                         (uint32_t)stage, (uint32_t)from);
  if (!s->arrived) {
    s->total = total;
    s->buf = total ? malloc(total) : NULL;
    if (total && !s->buf)
      gasnete_fatal("collective %u of team %u: out of memory for %zu bytes", (unsigned)seq,
                    (unsigned)team, total);
  }
  if (GASNETE_UNLIKELY(s->taken || total != s->total || off > total || n > total - off))
    gasnete_fatal("collective %u of team %u: a chunk [%zu,+%zu) of %zu bytes from rank %u "
                  "does not fit the %zu announced: the members' collective calls differ",
                  (unsigned)seq, (unsigned)team, off, n, total, (unsigned)from, s->total);
  if (n) memcpy(s->buf + off, buf, n);
  s->got += n;
  s->arrived = 1;
  gasnet_hsl_unlock(&gasnete_cg.lock);
}

/* ---- what the algorithms use ------------------------------------------------------ */

void gasnete_coll_send(gasnete_coll_op_t *op, uint32_t stage, gex_Rank_t to, const void *buf,
                       size_t nbytes) {
  gasnetc_team_t *tm = op->tm;
  size_t chunk = gex_AM_MaxRequestMedium(gasnete_g.pair, gasnetc_team_jobrank(tm, to), NULL, 0, 8);
  static const char none;
  if (!buf) buf = &none; /* a 0-byte message */
  size_t off = 0;
  do {
    size_t n = nbytes - off < chunk ? nbytes - off : chunk;
    gex_AM_RequestMedium8(gasnete_g.pair, gasnetc_team_jobrank(tm, to), GASNETE_H_COLL_DATA,
                          (const char *)buf + off, n, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)tm->id,
                          (gex_AM_Arg_t)op->seq, (gex_AM_Arg_t)stage, (gex_AM_Arg_t)tm->rank,
                          GASNETE_HI(nbytes), GASNETE_LO(nbytes), GASNETE_HI(off),
                          GASNETE_LO(off));
    off += n;
  } while (off < nbytes);
}

char *gasnete_coll_take(gasnete_coll_op_t *op, uint32_t stage, gex_Rank_t from, size_t nbytes) {
  char *buf = NULL;
  int whole = 0;
  gasnet_hsl_lock(&gasnete_cg.lock);
  gasnete_cslot_t *s = gasnete_mbox_slot(gasnete_mbox(op->tm->id, op->seq), stage, from);
  if (s->arrived && s->got == s->total && !s->taken) {
    if (GASNETE_UNLIKELY(s->total != nbytes))
      gasnete_fatal("%s: rank %u sent %zu bytes where this rank expects %zu: the members' "
                    "arguments differ (they must be single-valued)", op->fname,
                    (unsigned)from, s->total, nbytes);
    whole = 1;
    buf = s->buf;
    s->buf = NULL;
    s->taken = 1;
  }
  gasnet_hsl_unlock(&gasnete_cg.lock);
  if (whole && !buf) buf = gasnete_coll_alloc(0); /* a 0-byte message: not NULL */
  return buf;
}

/* Stage IN or OUT: a barrier (gasnete_bpeer_to), round op->sround next. */
static int gasnete_coll_sync_kick(gasnete_coll_op_t *op, uint32_t stage) {
  gex_Rank_t n = op->tm->size, me = op->tm->rank;
  while (((gex_Rank_t)1 << op->sround) < n) {
    gex_Rank_t d = (gex_Rank_t)1 << op->sround;
    if (!op->ssent) {
      gasnete_coll_send(op, stage, gasnete_bpeer_to(me, d, n), NULL, 0);
      op->ssent = 1;
    }
    char *got = gasnete_coll_take(op, stage, gasnete_bpeer_from(me, d, n), 0);
    if (!got) return 0;
    free(got);
    op->sround++;
    op->ssent = 0;
  }
  op->sround = 0;
  return 1;
}

/* Advance op as far as what has arrived allows; 1 when it is complete. */
static int gasnete_coll_kick(gasnete_coll_op_t *op) {
  if (op->phase == GASNETE_CPHASE_IN) {
    if ((op->sync & GASNETE_COLL_SYNC_IN) && !gasnete_coll_sync_kick(op, GASNETE_CSTAGE_IN))
      return 0;
    op->phase = GASNETE_CPHASE_DATA;
  }
  if (op->phase == GASNETE_CPHASE_DATA) {
    if (!op->kick(op)) return 0;
    op->phase = GASNETE_CPHASE_OUT;
  }
  if (op->phase == GASNETE_CPHASE_OUT) {
    if ((op->sync & GASNETE_COLL_SYNC_OUT) && !gasnete_coll_sync_kick(op, GASNETE_CSTAGE_OUT))
      return 0;
    op->phase = GASNETE_CPHASE_DONE;
    gasnete_mbox_drop(op);
    if (op->fini) op->fini(op);
  }
  return 1; /* the caller publishes op->done once it no longer touches op */
}

/* ---- operations in flight ------------------------------------------------------------ */

gasnete_coll_op_t *gasnete_coll_op_new(const char *fname, gasnetc_team_t *tm, int sync,
                                       int (*kick)(gasnete_coll_op_t *)) {
  gasnete_coll_op_t *op = calloc(1, sizeof *op);
  if (!op) gasnete_fatal("%s: out of memory for a collective", fname);
  gasnete_cteam_t *ct = tm->coll;
  op->fname = fname;
  op->tm = tm;
  op->seq = ++ct->seq;
  op->sync = sync;
  op->kick = kick;
  op->phase = GASNETE_CPHASE_IN;
  if (GASNETC_TRACING('W')) gasnetc_trace_coll(0, fname, tm->id, op->seq);
  return op;
}

void gasnete_coll_progress(void) {
  if (__atomic_load_n(&gasnete_cg.nactive, __ATOMIC_RELAXED) == 0) return;
  if (__atomic_exchange_n(&gasnete_cg.busy, 1, __ATOMIC_ACQUIRE)) return;
  gasnete_coll_op_t **pp = &gasnete_cg.active;
  while (*pp) {
    gasnete_coll_op_t *op = *pp;
    if (!gasnete_coll_kick(op)) {
      pp = &op->next;
      continue;
    }
    *pp = op->next; /* complete: no longer in flight (its event still holds it) */
    if (!*pp) gasnete_cg.tail = pp;
    __atomic_fetch_sub(&gasnete_cg.nactive, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&((gasnete_cteam_t *)op->tm->coll)->inflight, 1, __ATOMIC_RELAXED);
    if (GASNETC_TRACING('W')) gasnetc_trace_coll(1, op->fname, op->tm->id, op->seq);
    __atomic_store_n(&op->done, 1, __ATOMIC_RELEASE); /* its owner may free it now */
  }
  __atomic_store_n(&gasnete_cg.busy, 0, __ATOMIC_RELEASE);
}

/* Start op: it runs as far as it can now; its event, or GEX_EVENT_INVALID
 * when it is already complete. */
gex_Event_t gasnete_coll_op_start(gasnete_coll_op_t *op) {
  if (gasnete_coll_kick(op)) {
    if (GASNETC_TRACING('W')) gasnetc_trace_coll(1, op->fname, op->tm->id, op->seq);
    free(op);
    return GEX_EVENT_INVALID;
  }
  /* In flight: queued after every older one (the progress pass keeps order). */
  while (__atomic_exchange_n(&gasnete_cg.busy, 1, __ATOMIC_ACQUIRE)) gasnet_AMPoll();
  op->next = NULL;
  *gasnete_cg.tail = op;
  gasnete_cg.tail = &op->next;
  __atomic_fetch_add(&gasnete_cg.nactive, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&((gasnete_cteam_t *)op->tm->coll)->inflight, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&gasnete_cg.busy, 0, __ATOMIC_RELEASE);
  struct gasnete_handle *h = gasnete_handle_new(gasnete_mythread(), GASNETE_H_COLL);
  h->coll = op;
  return h;
}

int gasnete_coll_event_done(struct gasnete_handle *h) {
  gasnete_coll_op_t *op = h->coll;
  if (__atomic_load_n(&op->done, __ATOMIC_ACQUIRE)) return 1;
  gasnete_coll_progress();
  return __atomic_load_n(&op->done, __ATOMIC_ACQUIRE);
}

void gasnete_coll_event_free(struct gasnete_handle *h) {
  free(h->coll);
  h->coll = NULL;
}

/* ---- teams ---------------------------------------------------------------------------- */

gasnetc_team_t *gasnete_coll_team(const char *fname, gex_TM_t tm) {
  if (GASNETE_UNLIKELY(!gasnete_g.tm0)) gasnetc_not_ready(fname, 0);
  if (GASNETE_UNLIKELY(!tm))
    gasnete_fatal("%s: the team is %s", fname,
                  GASNETE_IS_GASNET1(fname) ? "NULL" : "GEX_TM_INVALID");
  if (GASNETE_UNLIKELY((uintptr_t)tm & GASNETC_TM_PAIR_BIT))
    gasnete_fatal("%s: a TM-pair is not a team (the description: a TM-pair is not valid for "
                  "collectives)", fname);
  if (GASNETE_UNLIKELY(!tm->coll || gasnetc_team_lookup(tm->id) != tm))
    gasnete_fatal("%s: team %p is not a team of this process (destroyed, or not a %s)", fname,
                  (void *)tm, GASNETE_IS_GASNET1(fname) ? "gasnet_team_handle_t" : "gex_TM_t");
  return tm;
}

/* Members by neighbourhood (ties by rank): the order of the trees and
 * rounds of commutative collectives, so that their first steps stay on a
 * host (shared memory) and few cross the network. */
static void gasnete_coll_order(gasnete_cteam_t *ct, gasnetc_team_t *tm) {
  gasnet_nodeinfo_t *info = gasnete_coll_alloc(sizeof *info * gasnete_g.nodes);
  if (gasnet_getNodeInfo(info, (int)gasnete_g.nodes) != GASNET_OK)
    gasnete_fatal("collectives: cannot learn the neighbourhoods of the job's ranks");
  gex_Rank_t n = tm->size, k = 0;
  ct->at = gasnete_coll_alloc(sizeof *ct->at * n);
  ct->pos = gasnete_coll_alloc(sizeof *ct->pos * n);
  ct->group = gasnete_coll_alloc(sizeof *ct->group * n);
  ct->gstart = gasnete_coll_alloc(sizeof *ct->gstart * (n + 1));
  char *placed = calloc(n ? n : 1, 1);
  if (!placed) gasnete_fatal("collectives: out of memory");
  for (gex_Rank_t r = 0; r < n; r++) { /* n^2 at team creation only; fine to 10^4 */
    if (placed[r]) continue;
    gasnet_node_t s = info[gasnetc_team_jobrank(tm, r)].supernode;
    ct->gstart[ct->ngroups++] = k;
    for (gex_Rank_t q = r; q < n; q++)
      if (!placed[q] && info[gasnetc_team_jobrank(tm, q)].supernode == s) {
        placed[q] = 1;
        ct->pos[q] = k;
        ct->group[k] = ct->ngroups - 1;
        ct->at[k++] = q;
      }
  }
  ct->gstart[ct->ngroups] = n;
  free(placed);
  free(info);
}

void gasnete_coll_team_quiesced(const char *fname, gasnetc_team_t *tm) {
  gasnete_coll_progress();
  gasnete_cteam_t *ct = tm->coll;
  int n = __atomic_load_n(&ct->inflight, __ATOMIC_RELAXED);
  if (n || !gasnete_barrier_team_idle(tm))
    gasnete_fatal("%s: team %u is not quiesced here: %s in flight (sync every collective's "
                  "event first; the description, gex_TM_Destroy)", fname, (unsigned)tm->id,
                  n ? "collectives are" : "a barrier is");
}

int gasnete_coll_by_host = 1;

void gasnete_coll_team_init(gasnetc_team_t *tm) {
  if (tm == gasnetc_team_primordial()) { /* once, at connect */
    const char *v = gasnet_getenv("GASNET_COLL_BY_HOST");
    if (v && *v && ((v[0] != '0' && v[0] != '1') || v[1]))
      gasnete_fatal("GASNET_COLL_BY_HOST='%s': 1 (reduce by host, the default) or 0", v);
    if (v && *v) gasnete_coll_by_host = v[0] == '1';
  }
  gasnete_cteam_t *ct = calloc(1, sizeof *ct);
  if (!ct) gasnete_fatal("collectives: out of memory for a team");
  gasnete_coll_order(ct, tm);
  tm->coll = ct;
}

void gasnete_coll_team_fini(gasnetc_team_t *tm) {
  gasnete_cteam_t *ct = tm->coll;
  tm->coll = NULL;
  if (!ct) return;
  free(ct->at);
  free(ct->pos);
  free(ct->group);
  free(ct->gstart);
  free(ct);
}
