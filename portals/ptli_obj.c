/*
 * ptli_obj.c - match entries and memory descriptors (spec "Match List
 * Entries and Match Lists", "Memory Descriptors"): PtlMEAttach,
 * PtlMEAttachAny, PtlMEInsert, PtlMEUnlink, PtlMDAttach, PtlMDBind,
 * PtlMDUnlink, PtlMDUpdate, and the slot tables behind their handles.
 *
 * A match list is a doubly linked list of table slots per Portal index.
 * Unlinking an MD unlinks its match entry too when the entry was made
 * with PTL_UNLINK (entries made by PtlMEInsert always are: the spec's
 * prototype gives them no unlink argument; docs/portals.md). Every call
 * holds ni->lock throughout, so each is atomic with respect to incoming
 * operations (PtlMDUpdate's test of the queue and its update included).
 */
#include <stddef.h>

#include "ptli.h"

/* ---- slots ---------------------------------------------------------------- */

static uint32_t ptli_next_gen(uint32_t g) {
  g = (g + 1) & PTLI_GEN_MASK;
  return g ? g : 1;
}

ptli_me_t *ptli_me_get(ptli_ni_t *ni, ptl_handle_me_t h) {
  uint32_t s = ptli_h_slot(h);
  if (ptli_h_kind(h) != PTLI_K_ME || ptli_h_iface(h) || s >= PTLI_MAX_ME) return NULL;
  ptli_me_t *me = &ni->me[s];
  return me->used && me->gen == ptli_h_gen(h) ? me : NULL;
}

ptli_md_t *ptli_md_get(ptli_ni_t *ni, ptl_handle_md_t h) {
  uint32_t s = ptli_h_slot(h);
  if (ptli_h_kind(h) != PTLI_K_MD || ptli_h_iface(h) || s >= PTLI_MAX_MD) return NULL;
  ptli_md_t *md = &ni->md[s];
  return md->used && md->gen == ptli_h_gen(h) ? md : NULL;
}

ptl_handle_md_t ptli_md_handle(ptli_ni_t *ni, ptli_md_t *md) {
  return ptli_handle(PTLI_K_MD, md->gen, (uint32_t)(md - ni->md));
}

static ptl_handle_me_t ptli_me_handle(ptli_ni_t *ni, ptli_me_t *me) {
  return ptli_handle(PTLI_K_ME, me->gen, (uint32_t)(me - ni->me));
}

void ptli_objects_reset(ptli_ni_t *ni) {
  for (int i = 0; i < PTLI_MAX_ME; i++) {
    ni->me[i].used = 0;
    ni->me[i].gen = ptli_next_gen(ni->me[i].gen);
    ni->me[i].nextfree = i + 1 < PTLI_MAX_ME ? i + 1 : -1;
  }
  for (int i = 0; i < PTLI_MAX_MD; i++) {
    ni->md[i].used = 0;
    ni->md[i].gen = ptli_next_gen(ni->md[i].gen);
    ni->md[i].nextfree = i + 1 < PTLI_MAX_MD ? i + 1 : -1;
  }
  for (int i = 0; i < PTLI_MAX_EQ; i++) {
    ni->eq[i].gen = ptli_next_gen(ni->eq[i].gen);
    ni->eq[i].nextfree = i + 1 < PTLI_MAX_EQ ? i + 1 : -1;
  }
  ni->me_free = ni->md_free = ni->eq_free = 0;
  ni->nme = ni->nmd = 0;
  for (int p = 0; p <= PTLI_MAX_PT_INDEX; p++) ni->pt[p] = (ptli_pt_t){-1, -1, 0};
}

static ptli_me_t *ptli_me_new(ptli_ni_t *ni) {
  if (ni->me_free < 0) return NULL;
  ptli_me_t *me = &ni->me[ni->me_free];
  ni->me_free = me->nextfree;
  me->used = 1;
  me->md = me->prev = me->next = -1;
  ni->nme++;
  return me;
}

static void ptli_me_free(ptli_ni_t *ni, ptli_me_t *me) {
  me->used = 0;
  me->gen = ptli_next_gen(me->gen);
  me->nextfree = ni->me_free;
  ni->me_free = (int32_t)(me - ni->me);
  ni->nme--;
}

void ptli_md_free(ptli_ni_t *ni, ptli_md_t *md) {
  md->used = 0;
  md->gen = ptli_next_gen(md->gen);
  md->nextfree = ni->md_free;
  ni->md_free = (int32_t)(md - ni->md);
  ni->nmd--;
}

/* ---- match lists ---------------------------------------------------------- */

/* Link me into portal's list before or after `at` (-1: the list's head or
 * tail for BEFORE / AFTER). */
static void ptli_ml_link(ptli_ni_t *ni, ptli_me_t *me, uint32_t portal, int32_t at,
                         ptl_ins_pos_t pos) {
  ptli_pt_t *pt = &ni->pt[portal];
  int32_t i = (int32_t)(me - ni->me);
  if (at < 0) at = pos == PTL_INS_BEFORE ? pt->head : pt->tail;
  me->portal = portal;
  if (at < 0) { /* empty list */
    pt->head = pt->tail = i;
  } else if (pos == PTL_INS_BEFORE) {
    me->next = at;
    me->prev = ni->me[at].prev;
    ni->me[at].prev = i;
    if (me->prev >= 0) ni->me[me->prev].next = i;
    else pt->head = i;
  } else {
    me->prev = at;
    me->next = ni->me[at].next;
    ni->me[at].next = i;
    if (me->next >= 0) ni->me[me->next].prev = i;
    else pt->tail = i;
  }
  pt->len++;
}

static void ptli_ml_unlink(ptli_ni_t *ni, ptli_me_t *me) {
  ptli_pt_t *pt = &ni->pt[me->portal];
  if (me->prev >= 0) ni->me[me->prev].next = me->next;
  else pt->head = me->next;
  if (me->next >= 0) ni->me[me->next].prev = me->prev;
  else pt->tail = me->prev;
  pt->len--;
}

void ptli_md_unlink(ptli_ni_t *ni, ptli_md_t *md) {
  if (md->me >= 0) {
    ptli_me_t *me = &ni->me[md->me];
    me->md = -1;
    if (me->unlink == PTL_UNLINK) {
      ptli_ml_unlink(ni, me);
      ptli_me_free(ni, me);
    }
  }
  ptli_md_free(ni, md);
}

static int ptli_id_ok(ptl_process_id_t id) {
  (void)id; /* every nid and pid may be named: a wildcard, or one that may yet come */
  return 1;
}

static int ptli_me_make(ptli_ni_t *ni, uint32_t portal, ptl_process_id_t matchid,
                        ptl_match_bits_t bits, ptl_match_bits_t ignore, ptl_unlink_t unlink,
                        int32_t at, ptl_ins_pos_t pos, ptl_handle_me_t *handle) {
  if (ni->pt[portal].len >= PTLI_MAX_ML) return PTL_ML_TOOLONG;
  ptli_me_t *me = ptli_me_new(ni);
  if (!me) return PTL_NOSPACE;
  me->matchid = matchid;
  me->bits = bits;
  me->ignore = ignore;
  me->unlink = unlink;
  ptli_ml_link(ni, me, portal, at, pos);
  *handle = ptli_me_handle(ni, me);
  return PTL_OK;
}

static int ptli_pos_ok(ptl_ins_pos_t pos) { return pos == PTL_INS_BEFORE || pos == PTL_INS_AFTER; }
static int ptli_unlink_ok(ptl_unlink_t u) { return u == PTL_RETAIN || u == PTL_UNLINK; }

int PtlMEAttach(ptl_handle_ni_t interface, ptl_pt_index_t index, ptl_process_id_t matchid,
                ptl_match_bits_t match_bits, ptl_match_bits_t ignorebits, ptl_unlink_t unlink,
                ptl_ins_pos_t position, ptl_handle_me_t *handle) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(interface);
  if (!ni || ptli_h_kind(interface) != PTLI_K_NI) return PTL_INV_NI;
  if (index > PTLI_MAX_PT_INDEX) return PTL_INV_PTINDEX;
  if (!ptli_id_ok(matchid)) return PTL_INV_PROC;
  if (!handle || !ptli_pos_ok(position) || !ptli_unlink_ok(unlink)) return PTL_SEGV;
  pthread_mutex_lock(&ni->lock);
  int rc = ptli_me_make(ni, index, matchid, match_bits, ignorebits, unlink, -1, position, handle);
  pthread_mutex_unlock(&ni->lock);
  return rc;
}

int PtlMEAttachAny(ptl_handle_ni_t interface, ptl_pt_index_t *index, ptl_process_id_t matchid,
                   ptl_match_bits_t match_bits, ptl_match_bits_t ignorebits, ptl_unlink_t unlink,
                   ptl_handle_me_t *handle) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(interface);
  if (!ni || ptli_h_kind(interface) != PTLI_K_NI) return PTL_INV_NI;
  if (!ptli_id_ok(matchid)) return PTL_INV_PROC;
  if (!index || !handle || !ptli_unlink_ok(unlink)) return PTL_SEGV;
  pthread_mutex_lock(&ni->lock);
  int rc = PTL_PT_FULL;
  for (uint32_t p = 0; p <= PTLI_MAX_PT_INDEX; p++) {
    if (ni->pt[p].len) continue;
    rc = ptli_me_make(ni, p, matchid, match_bits, ignorebits, unlink, -1, PTL_INS_AFTER, handle);
    if (rc == PTL_OK) *index = p;
    break;
  }
  pthread_mutex_unlock(&ni->lock);
  return rc;
}

int PtlMEInsert(ptl_handle_me_t current, ptl_process_id_t matchid, ptl_match_bits_t match_bits,
                ptl_match_bits_t ignorebits, ptl_ins_pos_t position, ptl_handle_me_t *handle) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(current);
  if (!ni) return PTL_INV_ME;
  if (!ptli_id_ok(matchid)) return PTL_INV_PROC;
  if (!handle || !ptli_pos_ok(position)) return PTL_SEGV;
  pthread_mutex_lock(&ni->lock);
  ptli_me_t *at = ptli_me_get(ni, current);
  int rc = !at ? PTL_INV_ME
               : ptli_me_make(ni, at->portal, matchid, match_bits, ignorebits, PTL_UNLINK,
                              (int32_t)(at - ni->me), position, handle);
  pthread_mutex_unlock(&ni->lock);
  return rc;
}

int PtlMEUnlink(ptl_handle_me_t entry) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(entry);
  if (!ni) return PTL_INV_ME;
  pthread_mutex_lock(&ni->lock);
  ptli_me_t *me = ptli_me_get(ni, entry);
  int rc = !me ? PTL_INV_ME : me->md >= 0 && ni->md[me->md].landing ? PTL_MD_INUSE : PTL_OK;
  if (rc == PTL_OK) {
    if (me->md >= 0) ptli_md_free(ni, &ni->md[me->md]); /* its MD goes with it, no event */
    ptli_ml_unlink(ni, me);
    ptli_me_free(ni, me);
  }
  pthread_mutex_unlock(&ni->lock);
  return rc; /* PTL_MD_INUSE: data lands in its MD's memory now (docs/portals.md) */
}

/* ---- memory descriptors ----------------------------------------------------- */

/* PTL_OK, PTL_ILL_MD or PTL_INV_EQ for the values d (lock held). */
int ptli_md_check(ptli_ni_t *ni, const ptl_md_t *d) {
  if (!d->start && d->length) return PTL_ILL_MD;
  if ((uintptr_t)d->start + d->length < (uintptr_t)d->start) return PTL_ILL_MD;
  if (d->threshold < PTL_MD_THRESH_INF) return PTL_ILL_MD;
  if (d->options & ~(unsigned)(PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE |
                               PTL_MD_TRUNCATE | PTL_MD_ACK_DISABLE))
    return PTL_ILL_MD;
  if (d->eventq != PTL_EQ_NONE && !ptli_eq_get(ni, d->eventq)) return PTL_INV_EQ;
  return PTL_OK;
}

static ptli_md_t *ptli_md_new(ptli_ni_t *ni, const ptl_md_t *d, int32_t me) {
  if (ni->md_free < 0) return NULL;
  ptli_md_t *md = &ni->md[ni->md_free];
  ni->md_free = md->nextfree;
  md->used = 1;
  md->d = *d;
  md->loff = 0;
  md->pending = md->landing = 0;
  md->me = me;
  md->unlink_op = md->unlink_nofit = PTL_RETAIN;
  ni->nmd++;
  return md;
}

int PtlMDAttach(ptl_handle_me_t match, ptl_md_t mem_desc, ptl_unlink_t unlink_op,
                ptl_unlink_t unlink_nofit, ptl_handle_md_t *handle) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(match);
  if (!ni) return PTL_INV_ME;
  if (!ptli_unlink_ok(unlink_op) || !ptli_unlink_ok(unlink_nofit)) return PTL_ILL_MD;
  pthread_mutex_lock(&ni->lock);
  ptli_me_t *me = ptli_me_get(ni, match);
  int rc = !me ? PTL_INV_ME : me->md >= 0 ? PTL_INUSE : ptli_md_check(ni, &mem_desc);
  ptli_md_t *md = NULL;
  if (rc == PTL_OK && !(md = ptli_md_new(ni, &mem_desc, (int32_t)(me - ni->me)))) rc = PTL_NOSPACE;
  if (md) {
    md->unlink_op = unlink_op;
    md->unlink_nofit = unlink_nofit;
    me->md = (int32_t)(md - ni->md);
    if (handle) *handle = ptli_md_handle(ni, md); /* may be NULL (spec) */
  }
  pthread_mutex_unlock(&ni->lock);
  return rc == PTL_INV_EQ ? PTL_ILL_MD : rc;
}

int PtlMDBind(ptl_handle_ni_t interface, ptl_md_t mem_desc, ptl_handle_md_t *handle) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(interface);
  if (!ni || ptli_h_kind(interface) != PTLI_K_NI) return PTL_INV_NI;
  if (!handle) return PTL_SEGV;
  pthread_mutex_lock(&ni->lock);
  int rc = ptli_md_check(ni, &mem_desc);
  ptli_md_t *md = NULL;
  if (rc == PTL_OK && !(md = ptli_md_new(ni, &mem_desc, -1))) rc = PTL_NOSPACE;
  if (md) *handle = ptli_md_handle(ni, md);
  pthread_mutex_unlock(&ni->lock);
  return rc;
}

int PtlMDUnlink(ptl_handle_md_t mem_desc) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(mem_desc);
  if (!ni) return PTL_INV_MD;
  pthread_mutex_lock(&ni->lock);
  ptli_md_t *md = ptli_md_get(ni, mem_desc);
  int rc = !md ? PTL_INV_MD : md->pending ? PTL_MD_INUSE : PTL_OK;
  if (rc == PTL_OK) ptli_md_unlink(ni, md); /* explicit: no UNLINK event */
  pthread_mutex_unlock(&ni->lock);
  return rc;
}

static int ptli_md_update(ptli_ni_t *ni, ptli_md_t *md, ptl_md_t *old_md, ptl_md_t *new_md,
                          ptl_handle_eq_t testq) {
  if (old_md) *old_md = md->d;
  if (!new_md) return PTL_OK;
  if (testq != PTL_EQ_NONE) {
    ptli_eq_t *q = ptli_eq_get(ni, testq);
    if (!q) return PTL_INV_EQ;
    if (q->count) return PTL_NOUPDATE; /* something arrived since it was looked at */
  }
  if (md->landing) return PTL_NOUPDATE; /* a transport writes into its memory now */
  int rc = ptli_md_check(ni, new_md);
  if (rc != PTL_OK) return rc;
  if (new_md->start != md->d.start || new_md->length != md->d.length) md->loff = 0;
  md->d = *new_md;
  return PTL_OK;
}

int PtlMDUpdate(ptl_handle_md_t mem_desc, ptl_md_t *old_md, ptl_md_t *new_md,
                ptl_handle_eq_t testq) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(mem_desc);
  if (!ni) return PTL_INV_MD;
  pthread_mutex_lock(&ni->lock);
  ptli_md_t *md = ptli_md_get(ni, mem_desc);
  int rc = md ? ptli_md_update(ni, md, old_md, new_md, testq) : PTL_INV_MD;
  pthread_mutex_unlock(&ni->lock);
  return rc;
}
