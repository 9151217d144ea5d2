/*
 * ptl_mpi.c - the MPI-style layer over Portals 3.2 (ptl_mpi.h): posted and
 * unexpected receives, eager and rendezvous sends, tag and source matching
 * with wildcards. Only portals3.h is used.
 *
 * Match bits: bit 63 rendezvous header (ignored by every receive), bit 62
 * the layer's own context (its barrier: never matched by a user's
 * PM_ANY_TAG), bits 0..31 the tag. The source is matched by the entry's
 * matchid (the initiator's id, known from the transport, not the message).
 * hdr_data: the message's length << 24 | the rendezvous id (24 bits).
 *
 * Every event goes to one queue, eq; the objects' user_ptr says whose it
 * is (a pm_obj_t first in each). A request is done when its last event has
 * come (pending reaches 0), so no event ever names a freed request.
 */
#include "ptl_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PM_PT 4
#define PM_RNDV_PT 5
#define PM_HELLO_PT 6
#define PM_RNDV_BIT (1ull << 63)
#define PM_COLL_BIT (1ull << 62)
#define PM_TAG_MASK 0xffffffffull
#define PM_UBUF_SIZE (32 * 1024)
#define PM_NUBUF 16
#define PM_EQ_SIZE 16384

enum { PM_K_SEND = 1, PM_K_RECV, PM_K_UBUF };
typedef struct { int kind; } pm_obj_t;

struct pm_req {
  pm_obj_t obj;
  int pending;                /* events still to come */
  int active;                 /* a receive: matched (no longer searchable) */
  void *buf;
  size_t len;
  int src, tag;
  ptl_match_bits_t bits;
  ptl_handle_me_t me;
  ptl_handle_md_t md, md2;    /* md2: a send's rendezvous data / a receive's get */
  pm_status_t st;
};

typedef struct pm_ubuf {
  pm_obj_t obj;
  char *mem;
  int refs, linked;
} pm_ubuf_t;

typedef struct pm_unex {   /* an unexpected message, in arrival order */
  struct pm_unex *next;
  int src;
  ptl_process_id_t from;
  ptl_match_bits_t bits;
  ptl_hdr_data_t hdr;
  const char *data;          /* eager: in its buffer */
  size_t mlen;
  pm_ubuf_t *ub;
} pm_unex_t;

static ptl_handle_ni_t ni;
static ptl_handle_eq_t eq;
static ptl_handle_me_t anchor;
static unsigned my_rank, nranks;
static ptl_process_id_t *ids;
static pm_ubuf_t ubufs[PM_NUBUF];
static pm_unex_t *unex_head, **unex_tail = &unex_head;
static uint32_t rndv_next = 1;
static pm_stats_t stats;
unsigned pm_post_delay_us;

static void pm_die(const char *what, int rc) {
  fprintf(stderr, "ptl_mpi: rank %u: %s: %s\n", my_rank, what, PtlErrorStr(rc));
  exit(3);
}
#define PM_OK(call)                     \
  do {                                  \
    int rc_ = (call);                   \
    if (rc_ != PTL_OK) pm_die(#call, rc_); \
  } while (0)

ptl_handle_ni_t pm_ni(void) { return ni; }
const pm_stats_t *pm_stats(void) { return &stats; }

static int pm_rank_of(ptl_process_id_t id) {
  for (unsigned r = 0; r < nranks; r++)
    if (ids[r].nid == id.nid && ids[r].pid == id.pid) return (int)r;
  return -1;
}

static ptl_process_id_t pm_any_id(void) {
  ptl_process_id_t a = {PTL_NID_ANY, PTL_PID_ANY};
  return a;
}

static ptl_md_t pm_md(void *start, size_t len, int thresh, unsigned opts, void *user) {
  ptl_md_t d = {start, len, thresh, len, opts, user, eq};
  return d;
}

/* ---- unexpected buffers --------------------------------------------------- */

static void pm_ubuf_link(pm_ubuf_t *ub) {
  ptl_handle_me_t me;
  ptl_md_t d = pm_md(ub->mem, PM_UBUF_SIZE, PTL_MD_THRESH_INF, PTL_MD_OP_PUT, ub);
  d.max_offset = PM_UBUF_SIZE - PM_EAGER; /* room for one more eager message */
  PM_OK(PtlMEAttach(ni, PM_PT, pm_any_id(), 0, ~0ull, PTL_UNLINK, PTL_INS_AFTER, &me));
  PM_OK(PtlMDAttach(me, d, PTL_UNLINK, PTL_RETAIN, NULL));
  ub->linked = 1;
}

static void pm_ubuf_release(pm_ubuf_t *ub) {
  if (--ub->refs == 0 && !ub->linked) {
    stats.recycled++;
    pm_ubuf_link(ub);
  }
}

static void pm_unex_add(const ptl_event_t *ev) {
  pm_unex_t *u = malloc(sizeof *u);
  if (!u) pm_die("unexpected message", PTL_NOSPACE);
  u->next = NULL;
  u->from = ev->initiator;
  u->src = pm_rank_of(ev->initiator);
  u->bits = ev->match_bits;
  u->hdr = ev->hdr_data;
  u->ub = ev->mem_desc.user_ptr;
  u->data = u->ub->mem + ev->offset;
  u->mlen = (size_t)ev->mlength;
  u->ub->refs++;
  *unex_tail = u;
  unex_tail = &u->next;
  stats.unexpected++;
}

/* ---- completing receives ---------------------------------------------------- */

static void pm_recv_status(pm_req_t *r, int src, ptl_match_bits_t bits, ptl_hdr_data_t hdr,
                           size_t got) {
  r->st.source = src;
  r->st.tag = (int)(bits & PM_TAG_MASK);
  r->st.sent = (size_t)(hdr >> 24);
  r->st.len = got;
}

/* A rendezvous header matched r: get the data from the sender. */
static void pm_rndv_get(pm_req_t *r, ptl_process_id_t from, ptl_hdr_data_t hdr) {
  size_t n = (size_t)(hdr >> 24) < r->len ? (size_t)(hdr >> 24) : r->len;
  PM_OK(PtlMDBind(ni, pm_md(r->buf, n, 1, 0, r), &r->md2));
  r->pending++;
  PM_OK(PtlGet(r->md2, from, PM_RNDV_PT, 0, hdr & 0xffffff, 0));
  r->st.len = n;
  stats.rndv++;
}

static void pm_on_recv(pm_req_t *r, const ptl_event_t *ev) {
  switch (ev->type) {
  case PTL_EVENT_PUT_END:
    pm_recv_status(r, pm_rank_of(ev->initiator), ev->match_bits, ev->hdr_data,
                   (size_t)ev->mlength);
    if (ev->match_bits & PM_RNDV_BIT) pm_rndv_get(r, ev->initiator, ev->hdr_data);
    break;
  case PTL_EVENT_UNLINK: /* the posted entry, used */
    r->pending--;
    break;
  case PTL_EVENT_REPLY_END:
    PM_OK(PtlMDUnlink(r->md2));
    r->pending--;
    break;
  case PTL_EVENT_REPLY_FAIL:
    pm_die("rendezvous get", PTL_FAIL);
    break;
  default:
    break;
  }
}

static void pm_on_send(pm_req_t *r, const ptl_event_t *ev) {
  switch (ev->type) {
  case PTL_EVENT_SEND_END:
    PM_OK(PtlMDUnlink(r->md));
    r->pending--;
    break;
  case PTL_EVENT_UNLINK: /* the rendezvous data, taken */
    r->pending--;
    break;
  case PTL_EVENT_SEND_FAIL:
  case PTL_EVENT_GET_FAIL:
    pm_die("send", PTL_FAIL);
    break;
  default:
    break;
  }
}

static void pm_on_ubuf(pm_ubuf_t *ub, const ptl_event_t *ev) {
  if (ev->type == PTL_EVENT_PUT_END) pm_unex_add(ev);
  if (ev->type == PTL_EVENT_UNLINK) {
    ub->linked = 0;
    if (ub->refs == 0) {
      ub->refs = 1;
      pm_ubuf_release(ub);
    }
  }
}

/* Take one event (wait for one if block). 1 if one was handled. */
static int pm_progress(int block) {
  ptl_event_t ev;
  int rc = block ? PtlEQWait(eq, &ev) : PtlEQGet(eq, &ev);
  if (rc == PTL_EQ_EMPTY) return 0;
  if (rc != PTL_OK) pm_die("the event queue", rc); /* PTL_EQ_DROPPED: lost events */
  pm_obj_t *o = ev.mem_desc.user_ptr;
  if (!o) return 1;
  if (o->kind == PM_K_RECV) pm_on_recv((pm_req_t *)o, &ev);
  else if (o->kind == PM_K_SEND) pm_on_send((pm_req_t *)o, &ev);
  else if (o->kind == PM_K_UBUF) pm_on_ubuf((pm_ubuf_t *)o, &ev);
  return 1;
}

/* ---- init: start-up ------------------------------------------------------------- */

static double pm_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A request nothing matches is dropped, so a peer may not be sent to before
 * its match list is in place: each rank puts to every other's hello entry
 * (attached last) until the put is acknowledged. Extra copies land there
 * harmlessly. */
static void pm_hello(void) {
  ptl_handle_me_t me;
  ptl_handle_eq_t hq;
  ptl_handle_md_t md;
  ptl_md_t d = {NULL, 0, PTL_MD_THRESH_INF, 0, PTL_MD_OP_PUT | PTL_MD_TRUNCATE, NULL, PTL_EQ_NONE};
  PM_OK(PtlMEAttach(ni, PM_HELLO_PT, pm_any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER, &me));
  PM_OK(PtlMDAttach(me, d, PTL_RETAIN, PTL_RETAIN, NULL));
  PM_OK(PtlEQAlloc(ni, 256, &hq));
  d.options = 0;
  d.eventq = hq;
  PM_OK(PtlMDBind(ni, d, &md));
  for (unsigned q = 0; q < nranks; q++) {
    int acked = q == my_rank;
    for (int tries = 0; tries < 150 && !acked; tries++) {
      PM_OK(PtlPut(md, PTL_ACK_REQ, ids[q], PM_HELLO_PT, 0, 0, 0, 0));
      ptl_event_t ev;
      for (double end = pm_now() + 0.2; !acked && pm_now() < end;)
        if (PtlEQGet(hq, &ev) == PTL_OK)
          acked = ev.type == PTL_EVENT_ACK && ev.initiator.nid == ids[q].nid && ev.initiator.pid == ids[q].pid;
        else
          usleep(200);
    }
    if (!acked) pm_die("no answer from a peer at start", PTL_FAIL);
  }
  int rc;
  for (double end = pm_now() + 10; (rc = PtlMDUnlink(md)) == PTL_MD_INUSE && pm_now() < end;) usleep(200);
  PM_OK(rc);
  PM_OK(PtlEQFree(hq));
}

/* ---- init: the match list ----------------------------------------------------  */

void pm_init(unsigned *rank, unsigned *size) {
  int maxif;
  PM_OK(PtlInit(&maxif));
  PM_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_PID_ANY, NULL, NULL, &ni));
  PM_OK(PtlGetRank(ni, &my_rank, &nranks));
  ids = calloc(nranks, sizeof *ids);
  if (!ids) pm_die("ids", PTL_NOSPACE);
  for (unsigned r = 0; r < nranks; r++) PM_OK(PtlGetRankId(ni, r, &ids[r]));
  PM_OK(PtlEQAlloc(ni, PM_EQ_SIZE, &eq));
  /* The anchor: an entry without an MD, which every walk passes. */
  PM_OK(PtlMEAttach(ni, PM_PT, pm_any_id(), 0, 0, PTL_RETAIN, PTL_INS_AFTER, &anchor));
  for (int i = 0; i < PM_NUBUF; i++) {
    ubufs[i].obj.kind = PM_K_UBUF;
    ubufs[i].mem = malloc(PM_UBUF_SIZE);
    if (!ubufs[i].mem) pm_die("unexpected buffers", PTL_NOSPACE);
    pm_ubuf_link(&ubufs[i]);
  }
  *rank = my_rank;
  *size = nranks;
  pm_hello();
  pm_barrier();
}

void pm_fini(void) {
  pm_barrier();
  PM_OK(PtlNIFini(ni));
  PtlFini();
  for (int i = 0; i < PM_NUBUF; i++) free(ubufs[i].mem);
  while (unex_head) {
    pm_unex_t *u = unex_head;
    unex_head = u->next;
    free(u);
  }
  unex_tail = &unex_head;
  free(ids);
}

/* ---- send --------------------------------------------------------------------------- */

static pm_req_t *pm_req_new(int kind) {
  pm_req_t *r = calloc(1, sizeof *r);
  if (!r) pm_die("request", PTL_NOSPACE);
  r->obj.kind = kind;
  return r;
}

static pm_req_t *pm_send_bits(const void *buf, size_t len, unsigned dest, ptl_match_bits_t bits) {
  pm_req_t *r = pm_req_new(PM_K_SEND);
  ptl_hdr_data_t hdr = (ptl_hdr_data_t)len << 24;
  if (len > PM_EAGER) { /* rendezvous: expose the data, then the header */
    uint32_t id = rndv_next++ & 0xffffff;
    hdr |= id;
    PM_OK(PtlMEAttach(ni, PM_RNDV_PT, ids[dest], id, 0, PTL_UNLINK, PTL_INS_AFTER, &r->me));
    PM_OK(PtlMDAttach(r->me, pm_md((void *)buf, len, 1, PTL_MD_OP_GET, r), PTL_UNLINK,
                      PTL_RETAIN, &r->md2));
    r->pending++;
    bits |= PM_RNDV_BIT;
    len = 0;
  }
  PM_OK(PtlMDBind(ni, pm_md((void *)buf, len, 1, 0, r), &r->md));
  r->pending++;
  PM_OK(PtlPut(r->md, PTL_NOACK_REQ, ids[dest], PM_PT, 0, bits, 0, hdr));
  return r;
}

pm_req_t *pm_isend(const void *buf, size_t len, unsigned dest, int tag) {
  if (dest >= nranks || tag < 0) pm_die("pm_isend: bad destination or tag", PTL_INV_PROC);
  return pm_send_bits(buf, len, dest, (ptl_match_bits_t)(uint32_t)tag);
}

/* ---- receive ----------------------------------------------------------------------------- */

static int pm_unex_matches(const pm_req_t *r, const pm_unex_t *u) {
  if ((u->bits & PM_COLL_BIT) != (r->bits & PM_COLL_BIT)) return 0;
  if (r->src != PM_ANY_SOURCE && r->src != u->src) return 0;
  return r->tag == PM_ANY_TAG || (u->bits & PM_TAG_MASK) == (uint32_t)r->tag;
}

/* Search the unexpected messages for r; take the first that matches. */
static int pm_unex_take(pm_req_t *r) {
  pm_unex_t **at = &unex_head;
  while (*at && !pm_unex_matches(r, *at)) at = &(*at)->next;
  pm_unex_t *u = *at;
  if (!u) return 0;
  *at = u->next;
  if (unex_tail == &u->next) unex_tail = at;
  PM_OK(PtlMEUnlink(r->me)); /* the inactive entry: nothing reached it */
  pm_recv_status(r, u->src, u->bits, u->hdr, 0);
  if (u->bits & PM_RNDV_BIT) {
    pm_rndv_get(r, u->from, u->hdr);
  } else {
    size_t n = u->mlen < r->len ? u->mlen : r->len;
    memcpy(r->buf, u->data, n);
    r->st.len = n;
  }
  pm_ubuf_release(u->ub);
  free(u);
  return 1;
}

static pm_req_t *pm_recv_bits(void *buf, size_t len, int src, int tag, ptl_match_bits_t ctx) {
  pm_req_t *r = pm_req_new(PM_K_RECV);
  r->buf = buf;
  r->len = len;
  r->src = src;
  r->tag = tag;
  r->bits = ctx | (tag == PM_ANY_TAG ? 0 : (uint32_t)tag);
  ptl_match_bits_t ignore = PM_RNDV_BIT | (tag == PM_ANY_TAG ? PM_TAG_MASK : 0);
  ptl_process_id_t from = src == PM_ANY_SOURCE ? pm_any_id() : ids[src];
  /* Posted inactive, after every receive posted before it. */
  PM_OK(PtlMEInsert(anchor, from, r->bits, ignore, PTL_INS_BEFORE, &r->me));
  ptl_md_t d = pm_md(buf, len, 0, PTL_MD_OP_PUT | PTL_MD_TRUNCATE, r);
  PM_OK(PtlMDAttach(r->me, d, PTL_UNLINK, PTL_RETAIN, &r->md));
  d.threshold = 1;
  for (;;) {
    while (pm_progress(0)) {} /* everything arrived so far is in the list */
    if (pm_unex_take(r)) return r;
    if (pm_post_delay_us) usleep(pm_post_delay_us); /* a slow poster: arrivals meet the update */
    int rc = PtlMDUpdate(r->md, NULL, &d, eq);
    if (rc == PTL_OK) break;
    if (rc != PTL_NOUPDATE) pm_die("PtlMDUpdate", rc);
    stats.noupdate++; /* something arrived meanwhile: look again */
  }
  r->pending = 1; /* its UNLINK */
  stats.posted++;
  return r;
}

pm_req_t *pm_irecv(void *buf, size_t len, int src, int tag) {
  if (src != PM_ANY_SOURCE && (src < 0 || (unsigned)src >= nranks))
    pm_die("pm_irecv: bad source", PTL_INV_PROC);
  if (tag < 0 && tag != PM_ANY_TAG) pm_die("pm_irecv: bad tag", PTL_INV_PROC);
  return pm_recv_bits(buf, len, src, tag, 0);
}

void pm_wait(pm_req_t *r, pm_status_t *st) {
  while (r->pending > 0) pm_progress(1);
  if (st) *st = r->st;
  free(r);
}

/* ---- barrier: dissemination, in the layer's own context ------------------------------------ */

void pm_barrier(void) {
  static uint32_t epoch;
  epoch++;
  for (unsigned k = 1, round = 0; k < nranks; k <<= 1, round++) {
    int tag = (int)((epoch & 0xffffff) << 6 | round);
    pm_req_t *rr = pm_recv_bits(NULL, 0, (int)((my_rank + nranks - k) % nranks), tag, PM_COLL_BIT);
    pm_req_t *sr = pm_send_bits(NULL, 0, (my_rank + k) % nranks, PM_COLL_BIT | (uint32_t)tag);
    pm_wait(sr, NULL);
    pm_wait(rr, NULL);
  }
}
