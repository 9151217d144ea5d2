/*
 * gasnetc_ep.c - endpoints (spec v0.19, [PROPOSED] gex_EP_Create) and the
 * TM-pairs that name them.
 *
 * An EP is a handler table and a bound segment. Every process has EP 0,
 * the primordial one (GASNet-1's); gex_EP_Create adds EPs of index 1, 2,
 * ... up to GASNET_MAXEPS - 1, in the order of the calls. Each EP has the
 * core's and the extensions' handlers, so that remote memory access (which
 * is AMs here) reaches any EP; client handlers only run in an EP made with
 * GEX_EP_CAPABILITY_AM. Such an EP starts with the client handlers EP 0
 * has at its creation (Berkeley's tests register once, on EP 0, and send
 * AMs to every AM-capable EP); gex_EP_RegisterHandlers adds its own.
 *
 * The AM header carries both EP indexes (gasnetc_wire.h): the target's, to
 * find its handler table and segment, and the sender's, for the reply.
 *
 * A TM-pair, gex_TM_Pair(ep, i), names (this process's ep, the EP of index
 * i in the rank given beside it). It is the address of ep->pairs[i] with
 * the low bit set, so equal arguments give equal pairs, and a team handle
 * (a pointer, aligned) is never one.
 *
 * Teams: gex_TM_Create accepts primordial EPs only, as the description's
 * implementation does (a non-primordial EP is reached through TM-pairs);
 * so GEX_EP_CAPABILITY_COLL and _AD are accepted but give nothing more.
 */
#include <stdlib.h>

#include "gasnetc_internal.h"

int gasnetc_ep_init(gasnetc_ep_t *ep, unsigned index, gex_EP_Capabilities_t caps,
                    gex_Flags_t flags) {
  ep->index = index;
  ep->client = &gasnetc_g;
  ep->caps = caps;
  ep->flags = flags;
  for (unsigned i = 0; i < GASNET_MAXEPS; i++) ep->pairs[i] = (gasnetc_pair_t){ ep, i };
  int rc = gasnetc_handler_init(ep);
  if (rc != GASNET_OK) return rc;
  if (index && (caps & GEX_EP_CAPABILITY_AM)) gasnetc_handler_inherit(ep);
  __atomic_store_n(&gasnetc_g.eps[index], ep, __ATOMIC_RELEASE);
  gasnetc_g.neps = index + 1; /* (the callers serialize) */
  return GASNET_OK;
}

/* One creation at a time: the index is the next free slot. */
static gasnet_hsl_t gasnetc_ep_lock = GASNET_HSL_INITIALIZER;

int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities,
                  gex_Flags_t flags) {
  const char *call = "gex_EP_Create";
  GASNETC_CHECK_INITED(call);
  if (!ep_p || client != &gasnetc_g || !capabilities ||
      (capabilities & ~(gex_EP_Capabilities_t)GEX_EP_CAPABILITY_ALL) ||
      (flags & ~(gex_Flags_t)(GEX_FLAG_HINT_ACCEL_ALL)))
    return gasnetc_soft_error(GASNET_ERR_BAD_ARG, call, "%s (GASNET_ERR_BAD_ARG)",
                              !ep_p ? "ep_p is NULL"
                              : client != &gasnetc_g ? "not the client of gex_Client_Init"
                              : flags & ~(gex_Flags_t)GEX_FLAG_HINT_ACCEL_ALL
                                  ? "flags other than GEX_FLAG_HINT_ACCEL_*"
                                  : "capabilities must be a non-empty set of "
                                    "GEX_EP_CAPABILITY_*");
  gasnetc_ep_t *ep = calloc(1, sizeof *ep);
  if (!ep) return gasnetc_soft_error(GASNET_ERR_RESOURCE, call, "out of memory");
  gasnet_hsl_lock(&gasnetc_ep_lock);
  unsigned index = gasnetc_g.neps;
  int rc = index >= GASNET_MAXEPS ? GASNET_ERR_RESOURCE
                                  : gasnetc_ep_init(ep, index, capabilities, flags);
  gasnet_hsl_unlock(&gasnetc_ep_lock);
  if (rc != GASNET_OK) {
    free(ep);
    return gasnetc_soft_error(GASNET_ERR_RESOURCE, call, "%s (GASNET_ERR_RESOURCE)",
                              index >= GASNET_MAXEPS ? "this process has GASNET_MAXEPS EPs already"
                                                     : "the handler tables conflict");
  }
  *ep_p = ep;
  return GASNET_OK;
}

gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index) {
  if (!local_ep || remote_ep_index >= GASNET_MAXEPS)
    gasnetc_fatal("gex_TM_Pair: %s", local_ep ? "the remote EP index is GASNET_MAXEPS or above"
                                              : "the local EP is GEX_EP_INVALID");
  return (gex_TM_t)((uintptr_t)&local_ep->pairs[remote_ep_index] | GASNETC_TM_PAIR_BIT);
}

gasnet_seginfo_t gasnetc_tm_own_segment(gex_TM_t tm) {
  return gasnetc_ep_seginfo(gasnetc_tm_via(tm)->ep);
}
gasnet_seginfo_t gasnetc_ep_segment(unsigned idx) { return gasnetc_ep_seginfo(gasnetc_ep_at(idx)); }

void gasnetc_tm_need(gex_TM_t tm, gex_EP_Capabilities_t caps, const char *fname) {
  const gasnetc_ep_t *ep = gasnetc_tm_via(tm)->ep;
  if ((ep->caps & caps) != caps)
    gasnetc_fatal("%s: the local EP (index %u) was created without the capability this call "
                  "needs (GEX_EP_CAPABILITY_%s)", fname, ep->index,
                  caps & GEX_EP_CAPABILITY_RMA ? "RMA" : caps & GEX_EP_CAPABILITY_VIS ? "VIS"
                                                                                     : "AM");
}
