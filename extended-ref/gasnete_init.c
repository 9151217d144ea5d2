/*
 * gasnete_init.c - how the extended API registers itself with the core
 * (gasnete_extension: its handler table, which the core installs at
 * gasnet_init, and its attach step, run by gasnet_attach once the segments
 * are known, before attach's barrier); plus the fatal-error path and the
 * argument checks every call shares.
 *
 * Tunable (read once here, through gasnet_getenv):
 *   GASNET_EXT_PIPELINE_BYTES  payload bytes in flight per completion
 *                              counter (default 4 MiB; a size as
 *                              gasneti_parse_bytes reads it: 512k, 4M, 1G);
 *                              chunks are min(1 MiB, this / 2)
 *   GASNET_BARRIER_BY_HOST     1 (default) or 0, read by gasnete_barrier.c
 *   GASNET_COLL_BY_HOST        1 (default) or 0, read by gasnete_coll.c
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gasnete_internal.h"
#include "gasnet_coll.h"
#include "gasneti_env.h"

#define GASNETE_PIPELINE_DEFAULT (4u << 20)

gasnete_state_t gasnete_g = { .waitmode = GASNET_WAIT_SPINBLOCK };

#define GASNETE_ENTRY(idx, fn) { idx, (void (*)())fn }
static const gasnet_handlerentry_t gasnete_handlers[] = {
  GASNETE_ENTRY(GASNETE_H_PUT_REQ, gasnete_put_req_handler),
  GASNETE_ENTRY(GASNETE_H_ACK, gasnete_ack_handler),
  GASNETE_ENTRY(GASNETE_H_GET_REQ, gasnete_get_req_handler),
  GASNETE_ENTRY(GASNETE_H_GET_REP_MED, gasnete_get_rep_med_handler),
  GASNETE_ENTRY(GASNETE_H_GET_REP_LONG, gasnete_get_rep_long_handler),
  GASNETE_ENTRY(GASNETE_H_MEMSET_REQ, gasnete_memset_req_handler),
  GASNETE_ENTRY(GASNETE_H_BARRIER, gasnete_barrier_handler),
  GASNETE_ENTRY(GASNETE_H_COLL_DATA, gasnete_coll_data_handler),
  GASNETE_ENTRY(GASNETE_H_BARRIER_PULL, gasnete_barrier_pull_handler),
  GASNETE_ENTRY(GASNETE_H_BARRIER_AGAIN, gasnete_barrier_again_handler),
  GASNETE_ENTRY(GASNETE_H_RATOMIC_REQ, gasnete_ratomic_req_handler),
  GASNETE_ENTRY(GASNETE_H_RATOMIC_REP, gasnete_ratomic_rep_handler),
  GASNETE_ENTRY(GASNETE_H_VIS_PUT, gasnete_vis_put_handler),
  GASNETE_ENTRY(GASNETE_H_VIS_GET_REQ, gasnete_vis_get_req_handler),
  GASNETE_ENTRY(GASNETE_H_VIS_GET_REP, gasnete_vis_get_rep_handler),
  GASNETE_ENTRY(GASNETE_H_VIS_PC, gasnete_vis_pc_handler),
};


static size_t gasnete_parse_bytes(const char *name, const char *v, size_t dflt) {
  uint64_t n;
  if (!v || !*v) return dflt;
  if (gasneti_parse_bytes(v, &n) < 0 || n == 0)
    gasnete_fatal("%s='%s' is not a positive number of bytes", name, v);
  return (size_t)n;
}

/* Called once AMs may flow (core/gasnetc_init.c): what needs no segment. */
static void gasnete_connect(void) {
  gasnete_g.connected = 1;
  gasnete_g.mynode = gasnet_mynode();
  gasnete_g.nodes = gasnet_nodes();
  gex_EP_t ep;
  gasnet_QueryGexObjects(NULL, &ep, &gasnete_g.tm0, NULL);
  gasnete_coll_team_all = gasnete_g.tm0;
  gasnete_g.pair = gex_TM_Pair(ep, 0);
  gasnete_g.pipeline_bytes = gasnete_parse_bytes(
      "GASNET_EXT_PIPELINE_BYTES", gasnet_getenv("GASNET_EXT_PIPELINE_BYTES"),
      GASNETE_PIPELINE_DEFAULT);
  /* At least two chunks fit in the window, so a large transfer is always a
   * pipeline; no chunk below a Medium's worth. */
  size_t half = gasnete_g.pipeline_bytes / 2;
  if (half < gasnet_AMMaxMedium()) half = gasnet_AMMaxMedium();
  gasnete_g.put_chunk = half < gasnet_AMMaxLongRequest() ? half : gasnet_AMMaxLongRequest();
  gasnete_g.get_chunk = half < gasnet_AMMaxLongReply() ? half : gasnet_AMMaxLongReply();
  gasnete_barrier_attach();
  gasnete_coll_team_init(gasnete_g.tm0);
}

/* Called by gasnet_attach / gex_Segment_Attach with the segments known, and
 * again by each gex_EP_PublishBoundSegment. */
static void gasnete_attach(void) {
  gasnetc_epview_t *v = gasnetc_epview(0);
  gasnete_g.seg = v->seg;
  gasnete_g.local = v->local;
  gasnete_g.attached = 1;
}

void gasnete_peer_pair(gasnete_peer_t *p, const char *fname, gex_TM_t tm, gasnet_node_t node,
                       gex_EP_Capabilities_t caps) {
  const gasnetc_pair_t *pr = gasnetc_tm_pair(tm);
  gasnetc_tm_need(tm, caps, fname);
  const gasnetc_epview_t *v = gasnetc_epview(pr->remote);
  p->node = node, p->index = pr->remote, p->pair = tm;
  p->seg = v->seg[node];
  p->local = (char *)v->local[node];
  if (node == gasnete_g.mynode) /* this process's EP of that index, published or not */
    p->seg = gasnetc_ep_segment(pr->remote);
}

const gasnetc_extension_t gasnete_extension = {
  .name = "extended-ref",
  .handlers = gasnete_handlers,
  .nhandlers = (int)(sizeof gasnete_handlers / sizeof gasnete_handlers[0]),
  .connect = gasnete_connect,
  .attach = gasnete_attach,
  .exit = gasnete_barrier_exit,
};

/* Spec 3: fatal, with a message: the core's fatal path (one for every layer:
 * the same line, backtrace and freeze, the job ended through the launcher
 * with code 1), not SIGABRT: every node ends promptly, no core file. */
void gasnete_fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gasnetc_vfatal(fmt, ap);
}

void gasnete_check_remote_slow(const char *fname, const gasnete_peer_t *p, const void *addr,
                               size_t n, const char *what) {
  if (!gasnete_g.attached) gasnetc_not_ready(fname, 1);
  if (p->index == 0)
    gasnete_fatal("%s: %s [%p,+%zu) outside node %u's segment [%p,%p) (spec 3.1)", fname, what,
                  addr, n, (unsigned)p->node, p->seg.addr,
                  (void *)((char *)p->seg.addr + p->seg.size));
  if (p->seg.size == 0)
    gasnete_fatal("%s: no segment of EP %u of node %u is known here (a non-primordial EP's "
                  "segment must be published with gex_EP_PublishBoundSegment before RMA)", fname,
                  p->index, (unsigned)p->node);
  gasnete_fatal("%s: %s [%p,+%zu) outside the segment [%p,%p) of EP %u of node %u", fname, what,
                addr, n, p->seg.addr, (void *)((char *)p->seg.addr + p->seg.size), p->index,
                (unsigned)p->node);
}
