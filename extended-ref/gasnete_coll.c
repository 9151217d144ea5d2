/*
 * gasnete_coll.c - the GASNet-1 collectives of gasnet_coll.h on core AMs:
 * gasnet_coll_init and gasnet_coll_broadcast over GASNET_TEAM_ALL, one
 * image per node.
 *
 * Every node numbers its collective calls (seq); all nodes make the same
 * calls in the same order, so a message tagged seq belongs to the same call
 * everywhere. What arrives for a call is kept in a mailbox for that seq
 * until the call on this node has used it, so a root may send before a
 * receiver has entered (IN_NOSYNC) and nothing remote ever writes the
 * client's dst: the receiver copies its data there itself.
 *
 *   broadcast   the root sends nbytes in Medium chunks to every other node;
 *               each copies them from its mailbox into dst.
 *   ALLSYNC     every node tells node 0 it has arrived at the entry (or
 *               exit) of call seq; node 0, once it has heard from all,
 *               releases them. MYSYNC and NOSYNC need nothing more: data
 *               only moves between nodes inside the call, through mailboxes.
 *
 * Handlers may not send (spec 2.4.1), so node 0 sends the releases from its
 * waiting thread. Mailboxes are guarded by an HSL: in PAR, handlers run on
 * whichever thread polls.
 */
#include <stdlib.h>
#include <string.h>

#include "gasnete_internal.h"
#include "gasnet_coll.h"

gasnet_team_handle_t gasnete_coll_team_all; /* set by gasnete_connect */

enum { GASNETE_SYNC_IN = 0, GASNETE_SYNC_OUT = 1 };
enum { GASNETE_SYNC_ARRIVE = 0, GASNETE_SYNC_RELEASE = 1 };

typedef struct gasnete_mbox {
  uint32_t seq;
  size_t nbytes, got;       /* broadcast data received so far */
  char *buf;
  uint32_t arrived[2];      /* node 0: nodes arrived at the entry / exit sync */
  uint32_t released[2];     /* the entry / exit sync is over */
  struct gasnete_mbox *next;
} gasnete_mbox_t;

static struct {
  int inited;
  uint32_t seq;             /* collective calls made by this node */
  gasnet_coll_fn_entry_t *fns;
  size_t nfns;
  gasnet_hsl_t lock;        /* guards mboxes */
  gasnete_mbox_t *mboxes;
} gasnete_coll = { .lock = GASNET_HSL_INITIALIZER };

/* The mailbox of call seq, made when first needed. Hold the lock. */
static gasnete_mbox_t *gasnete_mbox(uint32_t seq) {
  gasnete_mbox_t *m = gasnete_coll.mboxes;
  while (m && m->seq != seq) m = m->next;
  if (m) return m;
  m = calloc(1, sizeof *m);
  if (!m) gasnete_fatal("collective %u: out of memory for its mailbox", (unsigned)seq);
  m->seq = seq;
  m->next = gasnete_coll.mboxes;
  gasnete_coll.mboxes = m;
  return m;
}

/* The call seq is over on this node: no message for it can arrive any more. */
static void gasnete_mbox_drop(uint32_t seq) {
  gasnet_hsl_lock(&gasnete_coll.lock);
  gasnete_mbox_t **pp = &gasnete_coll.mboxes;
  while (*pp && (*pp)->seq != seq) pp = &(*pp)->next;
  gasnete_mbox_t *m = *pp;
  if (m) *pp = m->next;
  gasnet_hsl_unlock(&gasnete_coll.lock);
  if (m) free(m->buf);
  free(m);
}

/* ---- handlers ---------------------------------------------------------------- */

/* The team a collective message names: only the primordial team has
 * collectives here (GASNET_TEAM_ALL); the id is on the wire so that teams
 * can come without a wire change. */
static void gasnete_coll_team(gasnete_arg_t team) {
  if (GASNETE_UNLIKELY(!gasnetc_team_lookup((uint32_t)team)))
    gasnete_fatal("collective message for team %u, which this node does not have",
                  (unsigned)team);
}

void gasnete_coll_data_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t team,
                               gasnete_arg_t seq, gasnete_arg_t thi, gasnete_arg_t tlo,
                               gasnete_arg_t ohi, gasnete_arg_t olo) {
  (void)t;
  gasnete_coll_team(team);
  size_t total = (size_t)GASNETE_U64(thi, tlo), off = (size_t)GASNETE_U64(ohi, olo);
  gasnet_hsl_lock(&gasnete_coll.lock);
  gasnete_mbox_t *m = gasnete_mbox((uint32_t)seq);
  if (!m->buf) {
    m->nbytes = total;
    if (!(m->buf = malloc(total ? total : 1)))
      gasnete_fatal("collective %u: out of memory for %zu bytes", (unsigned)seq, total);
  }
  if (GASNETE_UNLIKELY(total != m->nbytes || off > total || n > total - off))
    gasnete_fatal("collective %u: a chunk [%zu,+%zu) of %zu bytes does not fit the %zu "
                  "announced: the nodes' collective calls differ", (unsigned)seq, off, n,
                  total, m->nbytes);
  memcpy(m->buf + off, buf, n);
  m->got += n;
  gasnet_hsl_unlock(&gasnete_coll.lock);
}

void gasnete_coll_sync_handler(gasnet_token_t t, gasnete_arg_t team, gasnete_arg_t seq,
                               gasnete_arg_t phase, gasnete_arg_t kind) {
  (void)t;
  gasnete_coll_team(team);
  gasnet_hsl_lock(&gasnete_coll.lock);
  gasnete_mbox_t *m = gasnete_mbox((uint32_t)seq);
  if (kind == GASNETE_SYNC_ARRIVE) m->arrived[phase & 1]++;
  else m->released[phase & 1] = 1;
  gasnet_hsl_unlock(&gasnete_coll.lock);
}

/* ---- waiting on a mailbox ------------------------------------------------------ */

static uint32_t gasnete_mbox_arrived(uint32_t seq, int phase) {
  gasnet_hsl_lock(&gasnete_coll.lock);
  uint32_t v = gasnete_mbox(seq)->arrived[phase];
  gasnet_hsl_unlock(&gasnete_coll.lock);
  return v;
}
static int gasnete_mbox_released(uint32_t seq, int phase) {
  gasnet_hsl_lock(&gasnete_coll.lock);
  int v = gasnete_mbox(seq)->released[phase];
  gasnet_hsl_unlock(&gasnete_coll.lock);
  return v;
}
static int gasnete_mbox_full(uint32_t seq, size_t nbytes) {
  gasnet_hsl_lock(&gasnete_coll.lock);
  gasnete_mbox_t *m = gasnete_mbox(seq);
  int v = m->buf && m->got == nbytes;
  gasnet_hsl_unlock(&gasnete_coll.lock);
  return v;
}

/* Every node has reached this point of call seq. */
static void gasnete_coll_allsync(uint32_t seq, int phase) {
  gasnet_node_t me = gasnete_g.mynode, n = gasnete_g.nodes;
  if (n == 1) return;
  if (me != 0) {
    gasnet_AMRequestShort4(0, GASNETE_H_COLL_SYNC, GASNETE_TEAM_ALL_ID,
                           (gasnet_handlerarg_t)seq, phase, GASNETE_SYNC_ARRIVE);
    GASNETE_WAIT_UNTIL(gasnete_mbox_released(seq, phase));
    return;
  }
  GASNETE_WAIT_UNTIL(gasnete_mbox_arrived(seq, phase) == n - 1);
  for (gasnet_node_t i = 1; i < n; i++)
    gasnet_AMRequestShort4(i, GASNETE_H_COLL_SYNC, GASNETE_TEAM_ALL_ID,
                           (gasnet_handlerarg_t)seq, phase, GASNETE_SYNC_RELEASE);
}

/* ---- the calls ------------------------------------------------------------------ */

void gasnet_coll_init(gasnet_image_t *images, gasnet_image_t my_image,
                      gasnet_coll_fn_entry_t *fn_table, size_t fn_count, int flags) {
  (void)my_image; (void)flags;
  if (!gasnete_g.attached) gasnetc_not_ready("gasnet_coll_init", 1);
  if (gasnete_coll.inited)
    gasnete_fatal("gasnet_coll_init: called twice; it is called once per job");
  if (images)
    gasnete_fatal("gasnet_coll_init: images != NULL: this library runs one image per node; "
                  "pass NULL");
  if (fn_count && !fn_table)
    gasnete_fatal("gasnet_coll_init: fn_count %zu with a NULL fn_table", fn_count);
  if (fn_count) {
    gasnete_coll.fns = malloc(fn_count * sizeof *fn_table);
    if (!gasnete_coll.fns) gasnete_fatal("gasnet_coll_init: out of memory");
    memcpy(gasnete_coll.fns, fn_table, fn_count * sizeof *fn_table);
  }
  gasnete_coll.nfns = fn_count;
  gasnete_coll.inited = 1;
}

static int gasnete_one_bit(int v) { return v && !(v & (v - 1)); }

static void gasnete_coll_check(const char *fname, gasnet_team_handle_t team, int flags) {
  if (!gasnete_g.attached) gasnetc_not_ready(fname, 1);
  if (!gasnete_coll.inited) gasnete_fatal("%s: called before gasnet_coll_init", fname);
  if (!team || team != gasnete_g.tm0)
    gasnete_fatal("%s: team %p is not GASNET_TEAM_ALL, the only team", fname, (void *)team);
  int in = flags & (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC);
  int out = flags & (GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC);
  if (!gasnete_one_bit(in) || !gasnete_one_bit(out))
    gasnete_fatal("%s: flags %#x: give exactly one GASNET_COLL_IN_* and one GASNET_COLL_OUT_*",
                  fname, (unsigned)flags);
  if ((flags & GASNET_COLL_SINGLE) && (flags & GASNET_COLL_LOCAL))
    gasnete_fatal("%s: flags %#x: GASNET_COLL_SINGLE and GASNET_COLL_LOCAL exclude each other",
                  fname, (unsigned)flags);
}

static void gasnete_bcast_send(uint32_t seq, gasnet_node_t to, void *src, size_t nbytes) {
  size_t chunk = gasnet_AMMaxMedium();
  for (size_t off = 0; off < nbytes; off += chunk) {
    size_t n = nbytes - off < chunk ? nbytes - off : chunk;
    gasnet_AMRequestMedium6(to, GASNETE_H_COLL_DATA, (char *)src + off, n,
                            GASNETE_TEAM_ALL_ID, (gasnet_handlerarg_t)seq, GASNETE_HI(nbytes), GASNETE_LO(nbytes),
                            GASNETE_HI(off), GASNETE_LO(off));
  }
}

void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t root,
                           void *src, size_t nbytes, int flags) {
  gasnete_coll_check("gasnet_coll_broadcast", team, flags);
  gasnet_node_t me = gasnete_g.mynode, n = gasnete_g.nodes;
  if (root >= n)
    gasnete_fatal("gasnet_coll_broadcast: root %u does not exist (the job has %u nodes)",
                  (unsigned)root, (unsigned)n);
  uint32_t seq = ++gasnete_coll.seq;
  if (flags & GASNET_COLL_IN_ALLSYNC) gasnete_coll_allsync(seq, GASNETE_SYNC_IN);
  if (me == root) {
    for (gasnet_node_t k = 1; k < n && nbytes; k++)
      gasnete_bcast_send(seq, (root + k) % n, src, nbytes);
    if (dst != src && nbytes) memmove(dst, src, nbytes);
  } else if (nbytes) {
    GASNETE_WAIT_UNTIL(gasnete_mbox_full(seq, nbytes));
    gasnet_hsl_lock(&gasnete_coll.lock);
    memcpy(dst, gasnete_mbox(seq)->buf, nbytes);
    gasnet_hsl_unlock(&gasnete_coll.lock);
  }
  if (flags & GASNET_COLL_OUT_ALLSYNC) gasnete_coll_allsync(seq, GASNETE_SYNC_OUT);
  gasnete_mbox_drop(seq);
}
