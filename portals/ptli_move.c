/*
 * ptli_move.c - the initiator's side of data movement (spec "Data Movement
 * Operations"): PtlPut and PtlGet, and the acknowledgements and replies
 * that come back for them.
 *
 * A put or get is one operation on its MD (its threshold counts it; an MD
 * whose threshold is 0 is inactive and refused with PTL_INV_MD). A put
 * logs SEND_START, then SEND_END once the transport no longer reads the
 * MD's memory; its ack, when asked for, allowed (the MD has an event
 * queue) and sent by the target, logs PTL_EVENT_ACK. An ack whose MD is
 * gone, or whose queue is gone or full, is dropped and counted. A get
 * keeps its MD in use (PtlMDUnlink: PTL_MD_INUSE) until the reply comes;
 * the reply is always accepted, truncated to the MD's length, written from
 * the MD's start, and logs REPLY_START and REPLY_END. Data longer than a
 * transport frame (ni->max_msg) goes in several (ptli_send); a put's
 * SEND_END waits for the last to leave, a reply's events for the last to
 * come (its parts counted per target and get, in any order).
 */
#include <stdlib.h>
#include <string.h>

#include "ptli.h"

void ptli_event_fill(ptli_ni_t *ni, ptl_event_t *ev, ptl_event_kind_t type, ptli_md_t *md) {
  memset(ev, 0, sizeof *ev);
  ev->type = type;
  ev->md_handle = ptli_md_handle(ni, md);
  ev->mem_desc = md->d;
  ev->ni_fail_type = PTL_NI_OK;
}

void ptli_op_done(ptli_ni_t *ni, ptli_op_t *op, int rc) {
  pthread_mutex_lock(&ni->lock);
  ptli_md_t *md = ptli_md_get(ni, op->md);
  if (md) {
    md->pending--;
    op->ev.mem_desc = md->d;
  }
  if (rc < 0) {
    op->ev.type = op->ev.type == PTL_EVENT_SEND_END ? PTL_EVENT_SEND_FAIL : PTL_EVENT_GET_FAIL;
    op->ev.ni_fail_type = PTL_NI_FAIL;
  }
  ptli_eq_post(ni, op->eq, &op->ev);
  if (op->unlinked) {
    op->ev.type = PTL_EVENT_UNLINK;
    op->ev.ni_fail_type = PTL_NI_OK;
    ptli_eq_post(ni, op->eq, &op->ev);
  }
  pthread_mutex_unlock(&ni->lock);
}

/* Common checks and the request header of PtlPut / PtlGet (lock held).
 * Takes one operation of the MD's threshold. */
static int ptli_start(ptli_ni_t *ni, ptli_md_t *md, ptl_process_id_t target, int *dest) {
  if (!md || md->d.threshold == 0) return PTL_INV_MD;
  if ((*dest = ptli_rank_of(ni, target)) < 0) return PTL_INV_PROC;
  if (md->d.threshold != PTL_MD_THRESH_INF) md->d.threshold--;
  md->pending++;
  return PTL_OK;
}

static void ptli_req_fill(ptli_ni_t *ni, ptli_msg_t *m, int op, int dest, ptl_pt_index_t portal,
                          ptl_ac_index_t cookie, ptl_match_bits_t bits, ptl_size_t offset,
                          ptli_md_t *md) {
  memset(m, 0, sizeof *m);
  m->op = (uint8_t)op;
  m->portal = portal;
  m->cookie = cookie;
  m->tnid = ni->peers[dest].id.nid;
  m->tpid = ni->peers[dest].id.pid;
  m->bits = bits;
  m->offset = offset;
  m->md = ptli_md_handle(ni, md);
  m->rlength = md->d.length;
}

int PtlPut(ptl_handle_md_t mem_desc, ptl_ack_req_t ack_req, ptl_process_id_t target,
           ptl_pt_index_t portal, ptl_ac_index_t cookie, ptl_match_bits_t match_bits,
           ptl_size_t offset, ptl_hdr_data_t hdr_data) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(mem_desc);
  if (!ni) return PTL_INV_MD;
  pthread_mutex_lock(&ni->lock);
  ptli_md_t *md = ptli_md_get(ni, mem_desc);
  int dest = -1, rc = ptli_start(ni, md, target, &dest);
  if (rc != PTL_OK) {
    pthread_mutex_unlock(&ni->lock);
    return rc;
  }
  ptli_msg_t m;
  ptli_req_fill(ni, &m, PTLI_OP_PUT, dest, portal, cookie, match_bits, offset, md);
  m.hdr_data = hdr_data;
  /* An ack only when asked for and there is a queue to log it in. */
  if (ack_req == PTL_ACK_REQ && md->d.eventq != PTL_EQ_NONE) m.flags = PTLI_WF_ACK;
  ptli_op_t op;
  ptli_event_fill(ni, &op.ev, PTL_EVENT_SEND_START, md);
  op.ev.initiator = ni->id;
  op.ev.uid = ni->uid;
  op.ev.portal = portal;
  op.ev.match_bits = match_bits;
  op.ev.rlength = op.ev.mlength = md->d.length;
  op.ev.offset = offset;
  op.ev.hdr_data = hdr_data;
  op.ev.link = ptli_link(ni);
  op.md = mem_desc;
  op.eq = md->d.eventq;
  op.unlinked = 0;
  ptli_eq_post(ni, op.eq, &op.ev);
  op.ev.type = PTL_EVENT_SEND_END;
  const void *data = md->d.start;
  size_t len = (size_t)md->d.length;
  pthread_mutex_unlock(&ni->lock);
  ptli_send(ni, (uint32_t)dest, &m, data, len, 0, &op);
  return PTL_OK;
}

int PtlGet(ptl_handle_md_t mem_desc, ptl_process_id_t target, ptl_pt_index_t portal,
           ptl_ac_index_t cookie, ptl_match_bits_t match_bits, ptl_size_t offset) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(mem_desc);
  if (!ni) return PTL_INV_MD;
  pthread_mutex_lock(&ni->lock);
  ptli_md_t *md = ptli_md_get(ni, mem_desc);
  int dest = -1, rc = ptli_start(ni, md, target, &dest);
  if (rc != PTL_OK) {
    pthread_mutex_unlock(&ni->lock);
    return rc;
  }
  ptli_msg_t m; /* the MD stays pending until the reply */
  ptli_req_fill(ni, &m, PTLI_OP_GET, dest, portal, cookie, match_bits, offset, md);
  pthread_mutex_unlock(&ni->lock);
  ptli_send(ni, (uint32_t)dest, &m, NULL, 0, 0, NULL);
  return PTL_OK;
}

/* ---- what comes back ---------------------------------------------------------- */

void ptli_on_ack(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m) {
  pthread_mutex_lock(&ni->lock);
  ptli_md_t *md = ptli_md_get(ni, m->md);
  if (!md || ptli_eq_full(ni, md->d.eventq) || m->tnid != ni->id.nid || m->tpid != ni->id.pid) {
    ni->drops++; /* no MD, no queue, or no room: dropped (spec) */
    pthread_mutex_unlock(&ni->lock);
    return;
  }
  ptl_event_t ev;
  ptli_event_fill(ni, &ev, PTL_EVENT_ACK, md);
  ev.initiator = ni->peers[src].id; /* the target that acknowledges */
  ev.uid = ni->peers[src].uid;
  ev.portal = m->portal;
  ev.match_bits = m->bits;
  ev.rlength = m->rlength;
  ev.mlength = m->mlength;
  ev.offset = m->offset;
  ev.link = ptli_link(ni);
  ptli_eq_post(ni, md->d.eventq, &ev);
  pthread_mutex_unlock(&ni->lock);
}

/* Where a reply's part may land in place (lock held): in its MD, when the
 * part fits whole (not truncated) and the MD is placeable. */
void *ptli_reply_place(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, size_t paylen) {
  (void)src;
  ptli_md_t *md = ptli_md_get(ni, m->md);
  if (!md || !md->pending || m->tnid != ni->id.nid || m->tpid != ni->id.pid || !ptli_md_placeable(md))
    return NULL;
  ptl_size_t n = m->mlength < md->d.length ? m->mlength : md->d.length, at = m->hdr_data;
  if (at > n || paylen > n - at) return NULL;
  md->landing++;
  return (char *)md->d.start + at;
}

/* A reply's part: counted; 1 when the whole reply has come. */
static int ptli_reply_part(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, size_t paylen) {
  if (paylen == m->mlength) return 1; /* in one frame */
  ptli_rx_t **at = &ni->rx;
  while (*at && ((*at)->src != src || (*at)->seq != m->seq)) at = &(*at)->next;
  ptli_rx_t *rx = *at;
  if (!rx) {
    if (!(rx = calloc(1, sizeof *rx))) return 0; /* cannot count: this get never ends */
    rx->src = src;
    rx->seq = m->seq;
    rx->next = ni->rx;
    ni->rx = rx;
    at = &ni->rx;
  }
  rx->got += paylen;
  if (rx->got < m->mlength) return 0;
  *at = rx->next;
  free(rx);
  return 1;
}

void ptli_on_reply(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, const void *data,
                   size_t paylen) {
  pthread_mutex_lock(&ni->lock);
  ptli_md_t *md = ptli_md_get(ni, m->md);
  if (!md || !md->pending || m->tnid != ni->id.nid || m->tpid != ni->id.pid) {
    ni->drops++;
    pthread_mutex_unlock(&ni->lock);
    return;
  }
  ptl_size_t n = m->mlength < md->d.length ? m->mlength : md->d.length; /* truncated */
  ptl_size_t at = m->hdr_data; /* this part's place in the reply */
  char *to = (char *)md->d.start + at;
  if (at < n && to == (const char *)data) md->landing--; /* placed: there already */
  else if (at < n) memcpy(to, data, n - at < paylen ? n - at : paylen);
  if (!ptli_reply_part(ni, src, m, paylen)) {
    pthread_mutex_unlock(&ni->lock);
    return;
  }
  md->pending--;
  ptl_event_t ev;
  ptli_event_fill(ni, &ev, PTL_EVENT_REPLY_START, md);
  ev.initiator = ni->peers[src].id;
  ev.uid = ni->peers[src].uid;
  ev.portal = m->portal;
  ev.match_bits = m->bits;
  ev.rlength = m->rlength;
  ev.mlength = n;
  ev.offset = 0;
  ev.link = ptli_link(ni);
  ptli_eq_post(ni, md->d.eventq, &ev);
  ev.type = PTL_EVENT_REPLY_END;
  ptli_eq_post(ni, md->d.eventq, &ev);
  pthread_mutex_unlock(&ni->lock);
}
