/*
 * ptli_match.c - an incoming put or get request at its target: access
 * control, then the walk of the Portal's match list (spec "Portals Address
 * Translation" and "Receiving Messages"). Read top to bottom:
 *
 *   ptli_request      the whole path: target, Portal index, access
 *                     control, the walk, the operation, its events, the
 *                     ack or reply, the unlink;
 *   ptli_ac_admits    the access control entry named by the cookie;
 *   ptli_me_matches   an entry's match criteria: source id (with
 *                     wildcards) and match bits under the ignore bits;
 *   ptli_md_accepts   the entry's memory descriptor: active, the operation
 *                     enabled, room (or truncation); where and how much.
 *
 * The first entry whose criteria match and whose MD accepts wins. An entry
 * without an MD, or whose MD rejects, lets the walk go on; an MD that
 * rejects for want of room is unlinked first when it asked for that
 * (unlink_nofit). A request no entry takes, or that fails a check before
 * the walk, is discarded without an event and counted in the drop register
 * (PTL_SR_DROP_COUNT). Called with ni->lock held, in each initiator's
 * order (ptli_net.c restores it).
 */
#include <string.h>

#include "ptli.h"

enum { PTLI_ACCEPT, PTLI_REJECT, PTLI_NOFIT };

static int ptli_ac_admits(ptli_ni_t *ni, const ptli_peer_t *from, const ptli_msg_t *m) {
  if (m->cookie > PTLI_MAX_AC_INDEX) return 0;
  const ptli_ac_t *ac = &ni->ac[m->cookie];
  if (!ac->used) return 0;
  if (ac->id.nid != PTL_NID_ANY && ac->id.nid != from->id.nid) return 0;
  if (ac->id.pid != PTL_PID_ANY && ac->id.pid != from->id.pid) return 0;
  if (ac->uid != PTL_UID_ANY && ac->uid != from->uid) return 0;
  return ac->portal == PTL_PT_INDEX_ANY || ac->portal == m->portal;
}

static int ptli_me_matches(const ptli_me_t *me, const ptli_peer_t *from, ptl_match_bits_t bits) {
  if (me->matchid.nid != PTL_NID_ANY && me->matchid.nid != from->id.nid) return 0;
  if (me->matchid.pid != PTL_PID_ANY && me->matchid.pid != from->id.pid) return 0;
  return ((me->bits ^ bits) & ~me->ignore) == 0;
}

/* Does md take operation m? On PTLI_ACCEPT, *off and *mlen say where and
 * how many bytes. */
static int ptli_md_accepts(const ptli_md_t *md, const ptli_msg_t *m, ptl_size_t *off,
                           ptl_size_t *mlen) {
  const ptl_md_t *d = &md->d;
  if (d->threshold == 0) return PTLI_REJECT;
  unsigned need = m->op == PTLI_OP_PUT ? PTL_MD_OP_PUT : PTL_MD_OP_GET;
  if (!(d->options & need)) return PTLI_REJECT;
  int remote = (d->options & PTL_MD_MANAGE_REMOTE) != 0;
  if (!remote && md->loff > d->max_offset) return PTLI_REJECT; /* inactive */
  *off = remote ? m->offset : md->loff;
  ptl_size_t room = *off < d->length ? d->length - *off : 0;
  *mlen = m->rlength;
  if (m->rlength <= room) return PTLI_ACCEPT;
  if (!(d->options & PTL_MD_TRUNCATE)) return PTLI_NOFIT;
  *mlen = room;
  return PTLI_ACCEPT;
}

/* The UNLINK event of md, on its queue; the MD must still be linked. */
static void ptli_unlink_event(ptli_ni_t *ni, ptli_md_t *md, ptl_seq_t link, ptl_event_t *ev) {
  ptli_event_fill(ni, ev, PTL_EVENT_UNLINK, md);
  ev->link = link;
}

static void ptli_nofit(ptli_ni_t *ni, ptli_md_t *md, const ptli_msg_t *m, const ptli_peer_t *from,
                       ptl_seq_t link) {
  if (md->unlink_nofit != PTL_UNLINK) return;
  ptl_event_t ev;
  ptli_unlink_event(ni, md, link, &ev);
  ev.initiator = from->id;
  ev.uid = from->uid;
  ev.portal = m->portal;
  ev.match_bits = m->bits;
  ev.rlength = m->rlength;
  ptl_handle_eq_t eq = md->d.eventq;
  ptli_md_unlink(ni, md);
  ptli_eq_post(ni, eq, &ev);
}

/* The events of an accepted operation: every field but the type. */
static void ptli_op_event(ptli_ni_t *ni, ptl_event_t *ev, ptli_md_t *md, const ptli_msg_t *m,
                          const ptli_peer_t *from, ptl_size_t off, ptl_size_t mlen,
                          ptl_seq_t link) {
  ptli_event_fill(ni, ev, PTL_EVENT_PUT_START, md);
  ev->initiator = from->id;
  ev->uid = from->uid;
  ev->portal = m->portal;
  ev->match_bits = m->bits;
  ev->rlength = m->rlength;
  ev->mlength = mlen;
  ev->offset = off;
  ev->hdr_data = m->op == PTLI_OP_PUT ? m->hdr_data : 0;
  ev->link = link;
}

/* After a successful operation: is md used up (threshold 0, or the local
 * offset past max_offset) and to be unlinked? */
static int ptli_used_up(const ptli_md_t *md) {
  if (md->unlink_op != PTL_UNLINK) return 0;
  if (md->d.threshold == 0) return 1;
  return !(md->d.options & PTL_MD_MANAGE_REMOTE) && md->loff > md->d.max_offset;
}

static ptli_md_t *ptli_walk(ptli_ni_t *ni, const ptli_msg_t *m, const ptli_peer_t *from,
                            ptl_seq_t link, ptl_size_t *off, ptl_size_t *mlen) {
  int32_t i = ni->pt[m->portal].head;
  while (i >= 0) {
    ptli_me_t *me = &ni->me[i];
    i = me->next; /* before a nofit unlink may free this entry */
    if (!ptli_me_matches(me, from, m->bits) || me->md < 0) continue;
    ptli_md_t *md = &ni->md[me->md];
    int r = ptli_md_accepts(md, m, off, mlen);
    if (r == PTLI_ACCEPT) return md;
    if (r == PTLI_NOFIT) ptli_nofit(ni, md, m, from, link);
  }
  return NULL;
}

/* A put's end: PUT_END, and the UNLINK when that used the MD up. */
static void ptli_put_end(ptli_ni_t *ni, ptli_md_t *md, ptl_event_t *ev) {
  ptl_handle_eq_t eq = md->d.eventq;
  ev->type = PTL_EVENT_PUT_END;
  ptli_eq_post(ni, eq, ev);
  if (!ptli_used_up(md)) return;
  ptl_event_t u;
  ptli_unlink_event(ni, md, ev->link, &u);
  ptli_md_unlink(ni, md);
  ptli_eq_post(ni, eq, &u);
}

/* A frame after the first of a put longer than one frame (they follow it
 * with nothing between), or a placed first frame (at 0): its data (there
 * already if it was placed), and at the last the put's end and ack. */
static void ptli_cont_frame(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, ptl_size_t at,
                            const void *data, size_t paylen, ptli_out_t *out) {
  ptli_cont_t *c = &ni->peers[src].cont;
  if (!c->active || m->rlength != c->rlength || at != c->got) {
    ni->malformed++; /* no put in progress, or not its next part */
    return;
  }
  c->got += paylen;
  ptli_md_t *md = c->drop ? NULL : ptli_md_get(ni, c->md);
  if (md && at < c->mlen) {
    ptl_size_t n = c->mlen - at < paylen ? c->mlen - at : paylen;
    char *to = (char *)md->d.start + c->off + at;
    if (to != (const char *)data) memcpy(to, data, n);
  }
  if (c->got < c->rlength) return;
  c->active = 0;
  if (!md) return; /* refused at its first frame (counted then), or its MD gone */
  md->pending--;
  out->dest = src;
  out->m = c->ack;
  out->send = c->ack_send;
  c->ev.mem_desc = md->d;
  ptli_put_end(ni, md, &c->ev);
}

/* The first frame of a put that more frames follow: they are awaited. */
static void ptli_cont_start(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, size_t paylen,
                            ptli_md_t *md, const ptl_event_t *ev, ptli_out_t *out) {
  ptli_cont_t *c = &ni->peers[src].cont;
  c->active = 1;
  c->rlength = m->rlength;
  c->got = paylen;
  c->drop = md == NULL;
  if (!md) return;
  md->pending++; /* PtlMDUnlink: in use until the last frame */
  c->md = ptli_md_handle(ni, md);
  c->off = ev->offset;
  c->mlen = ev->mlength;
  c->ev = *ev;
  c->ack = out->m;
  c->ack_send = out->send;
  out->send = 0;
}

/* defer: the frame's data comes later (placed): every put is then kept
 * as one in several frames, its end logged when the data is there. */
static void ptli_request_in(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, const void *data,
                            size_t paylen, ptli_out_t *out, int defer) {
  const ptli_peer_t *from = &ni->peers[src];
  int put = m->op == PTLI_OP_PUT, more = put && (defer || paylen < m->rlength);
  out->send = 0;
  out->op = NULL;
  out->data = NULL;
  if (put && (m->flags & PTLI_WF_CONT)) {
    ptli_cont_frame(ni, src, m, m->offset, data, paylen, out);
    return;
  }
  if (ni->peers[src].cont.active) { /* its frames cut short: the sender broke the protocol */
    ni->malformed++;
    ptli_md_t *old = ptli_md_get(ni, ni->peers[src].cont.md);
    if (old && !ni->peers[src].cont.drop) old->pending--;
    ni->peers[src].cont.active = 0;
  }
  if (m->tnid != ni->id.nid || m->tpid != ni->id.pid || m->portal > PTLI_MAX_PT_INDEX ||
      !ptli_ac_admits(ni, from, m)) {
    ni->drops++;
    if (more) ptli_cont_start(ni, src, m, paylen, NULL, NULL, out);
    return;
  }
  ptl_seq_t link = ptli_link(ni);
  ptl_size_t off = 0, mlen = 0;
  ptli_md_t *md = ptli_walk(ni, m, from, link, &off, &mlen);
  if (!md) {
    ni->drops++;
    if (more) ptli_cont_start(ni, src, m, paylen, NULL, NULL, out);
    return;
  }
  if (put && mlen && paylen) memcpy((char *)md->d.start + off, data, mlen < paylen ? mlen : paylen);
  if (md->d.threshold != PTL_MD_THRESH_INF) md->d.threshold--;
  if (!(md->d.options & PTL_MD_MANAGE_REMOTE)) md->loff += mlen;
  ptl_handle_eq_t eq = md->d.eventq;
  ptl_event_t ev;
  ptli_op_event(ni, &ev, md, m, from, off, mlen, link);
  ev.type = put ? PTL_EVENT_PUT_START : PTL_EVENT_GET_START;
  ptli_eq_post(ni, eq, &ev);
  out->dest = src;
  out->m = *m;
  out->m.tnid = from->id.nid;
  out->m.tpid = from->id.pid;
  out->m.cookie = out->m.seq = 0;
  out->m.flags = 0;
  out->m.hdr_data = 0;
  out->m.offset = off;
  out->m.mlength = mlen;
  if (put) {
    out->m.op = PTLI_OP_ACK;
    out->send = (m->flags & PTLI_WF_ACK) && !(md->d.options & PTL_MD_ACK_DISABLE);
    if (more) ptli_cont_start(ni, src, m, paylen, md, &ev, out);
    else ptli_put_end(ni, md, &ev);
    return;
  }
  /* A get: GET_END (and the UNLINK after it) once the reply has left. */
  int unlink = ptli_used_up(md);
  ptli_op_t *op = &out->op_store;
  op->md = ptli_md_handle(ni, md);
  op->eq = eq;
  op->ev = ev;
  op->ev.type = PTL_EVENT_GET_END;
  op->unlinked = unlink;
  md->pending++;
  out->m.op = PTLI_OP_REPLY;
  out->m.seq = m->seq; /* the initiator counts the reply's frames by it */
  out->data = (const char *)md->d.start + off;
  out->op = op;
  if (unlink) ptli_md_unlink(ni, md); /* no longer matches; its memory is the user's */
  out->send = 1;
}

void ptli_request(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, const void *data,
                  size_t paylen, ptli_out_t *out) {
  ptli_request_in(ni, src, m, data, paylen, out, 0);
}

/* ---- data landing in place (the transports' place()) -------------------------- */

int ptli_md_placeable(const ptli_md_t *md) {
  return md->unlink_op == PTL_RETAIN && md->unlink_nofit == PTL_RETAIN;
}

void *ptli_put_place(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, size_t paylen) {
  ptli_peer_t *p = &ni->peers[src];
  ptli_cont_t *c = &p->cont;
  if (m->op != PTLI_OP_PUT || m->seq != p->recv_seq || p->placed.active) return NULL;
  ptl_size_t at = 0;
  if (m->flags & PTLI_WF_CONT) {
    if (!c->active || c->drop || m->rlength != c->rlength || m->offset != c->got) return NULL;
    at = m->offset;
  } else {
    ptli_out_t out; /* nothing to send yet: the ack waits for the data */
    ptli_request_in(ni, src, m, NULL, 0, &out, 1);
  }
  p->placed.active = 1;
  p->placed.landing = 0;
  ptli_md_t *md = c->active && !c->drop ? ptli_md_get(ni, c->md) : NULL;
  if (!md || !ptli_md_placeable(md) || at > c->mlen || paylen > c->mlen - at) return NULL;
  md->landing++;
  p->placed.landing = 1;
  p->placed.md = c->md;
  return (char *)md->d.start + c->off + at;
}

void ptli_placed_frame(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, const void *data,
                       size_t paylen, ptli_out_t *out) {
  ptli_peer_t *p = &ni->peers[src];
  p->placed.active = 0;
  if (p->placed.landing) {
    ptli_md_t *md = ptli_md_get(ni, p->placed.md);
    if (md) md->landing--;
    p->placed.landing = 0;
  }
  out->send = 0;
  out->op = NULL;
  out->data = NULL;
  ptli_cont_frame(ni, src, m, m->flags & PTLI_WF_CONT ? m->offset : 0, data, paylen, out);
}
