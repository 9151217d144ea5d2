/*
 * ptl_mpi.h - a small MPI-style send/receive layer built only on Portals 3.2
 * (a test client: tests/portals/t_ptl_mpi.c; docs/portals.md). The classic
 * design of MPI over Portals 3:
 *
 *   portal PM_PT's match list:  [posted receives ...] anchor [unexpected ...]
 *
 * A posted receive is an entry (source id, tag under ignore bits for the
 * wildcards) inserted before the anchor, so receives match in posting
 * order, ahead of the unexpected-message catch-alls behind it: entries
 * that match anything, each with a large buffer whose max_offset leaves
 * room for one eager message, recycled once every message in it has been
 * taken. A receive is posted inactive (threshold 0), the unexpected
 * messages already arrived are searched, and only then is it activated
 * with PtlMDUpdate whose test queue is the layer's event queue: if
 * anything arrived meanwhile the update is refused (PTL_NOUPDATE), the
 * queue is drained and the search done again (the posted-receive race).
 *
 * Messages up to PM_EAGER bytes go eagerly (the data in the put); larger
 * ones by rendezvous: the sender exposes its buffer on PM_RNDV_PT under a
 * fresh id and puts a 0-byte header; the receiver gets the data into its
 * buffer once the header has matched a receive.
 *
 * Single-threaded use (the progress thread of Portals moves the data).
 */
#ifndef PTL_MPI_H
#define PTL_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "portals3.h"

#define PM_ANY_SOURCE (-1)
#define PM_ANY_TAG (-1)
#define PM_EAGER 8192 /* larger messages go by rendezvous */

typedef struct pm_status {
  int source, tag;
  size_t len;    /* bytes received */
  size_t sent;   /* bytes the sender sent (> len: truncated) */
} pm_status_t;

typedef struct pm_req pm_req_t;

typedef struct pm_stats {
  unsigned long posted, unexpected, rndv, noupdate, recycled;
} pm_stats_t;

/* PtlInit + PtlNIInit (collective) and the receive side's match list. */
void pm_init(unsigned *rank, unsigned *size);
void pm_fini(void);
ptl_handle_ni_t pm_ni(void);

/* tag >= 0 and < 2^31; src may be PM_ANY_SOURCE, tag PM_ANY_TAG. */
pm_req_t *pm_isend(const void *buf, size_t len, unsigned dest, int tag);
pm_req_t *pm_irecv(void *buf, size_t len, int src, int tag);
/* Waits for r (bounded by the test's watchdog) and frees it. */
void pm_wait(pm_req_t *r, pm_status_t *st);
void pm_barrier(void);
const pm_stats_t *pm_stats(void);
/* Tests: a pause between searching the unexpected messages and activating
 * a receive, widening the race PtlMDUpdate's test queue closes. */
extern unsigned pm_post_delay_us;

#endif /* PTL_MPI_H */
