/*
 * gasnetc_ex.c - GASNet-EX's objects (../shared/spec/gasnet-ex-api.txt):
 * gex_Client_Init and gex_Segment_Attach over the core's two-step attach,
 * the client, segment, EP and team queries and CData, TM-pairs, handler
 * registration, gex_Token_Info, the AM limit queries and the gex_System_*
 * queries. The AM calls themselves are in gasnetc_am.c.
 *
 * The handles are pointers to the core's objects (gasnetc_internal.h). A
 * TM-pair is the address of one of its EP's pairs with the low bit set
 * (gasnetc_ep.c): it names job ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gasnetc_internal.h"
#include "boot.h"
#include "gasnet_mk.h"

/* ---- teams and TM-pairs ---------------------------------------------------- */

static inline int gasnetc_tm_is_pair(gex_TM_t tm) {
  return ((uintptr_t)tm & GASNETC_TM_PAIR_BIT) != 0;
}

gasnet_node_t gasnetc_tm_jobrank(gex_TM_t tm, gex_Rank_t rank, const char *fname) {
  if (GASNETC_UNLIKELY(!tm)) gasnetc_fatal("%s: the team is GEX_TM_INVALID", fname);
  gex_Rank_t size = gasnetc_tm_is_pair(tm) ? gasnetc_g.nodes : tm->size;
  if (GASNETC_UNLIKELY(rank >= size))
    gasnetc_fatal("%s: rank %u does not exist (the team has %u)", fname, (unsigned)rank,
                  (unsigned)size);
  return gasnetc_tm_is_pair(tm) ? rank : gasnetc_team_jobrank(tm, rank);
}

static gasnetc_ep_t *gasnetc_tm_ep(gex_TM_t tm) { return gasnetc_tm_via(tm)->ep; }

gex_Client_t gex_TM_QueryClient(gex_TM_t tm) { return gasnetc_tm_ep(tm)->client; }
gex_EP_t gex_TM_QueryEP(gex_TM_t tm) { return gasnetc_tm_ep(tm); }
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm) { return gasnetc_tm_is_pair(tm) ? 0 : tm->flags; }
gex_Rank_t gex_TM_QueryRank(gex_TM_t tm) {
  return gasnetc_tm_is_pair(tm) ? gasnetc_g.mynode : tm->rank;
}
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm) {
  return gasnetc_tm_is_pair(tm) ? gasnetc_g.nodes : tm->size;
}
void gex_TM_SetCData(gex_TM_t tm, const void *val) {
  if (gasnetc_tm_is_pair(tm)) gasnetc_fatal("gex_TM_SetCData: a TM-pair has no CData");
  tm->cdata = (void *)val;
}
void *gex_TM_QueryCData(gex_TM_t tm) { return gasnetc_tm_is_pair(tm) ? NULL : tm->cdata; }

/* Translations: no communication, the team holds its members' job ranks. */
static gasnetc_team_t *gasnetc_tm_team(gex_TM_t tm, const char *fname) {
  if (GASNETC_UNLIKELY(!tm || gasnetc_tm_is_pair(tm)))
    gasnetc_fatal("%s: %s is not a team (the description: a TM-pair is not valid for gex_TM_ "
                  "calls)", fname, tm ? "a TM-pair" : "GEX_TM_INVALID");
  return tm;
}

gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank) {
  return gasnetc_tm_jobrank(gasnetc_tm_team(tm, "gex_TM_TranslateRankToJobrank"), rank,
                            "gex_TM_TranslateRankToJobrank");
}

gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank) {
  const char *fname = "gex_TM_TranslateJobrankToRank";
  gasnetc_team_t *t = gasnetc_tm_team(tm, fname);
  if (GASNETC_UNLIKELY(jobrank >= gasnetc_g.nodes))
    gasnetc_fatal("%s: job rank %u does not exist (the job has %u)", fname, (unsigned)jobrank,
                  (unsigned)gasnetc_g.nodes);
  if (!t->byjob) return jobrank < t->size ? jobrank : GEX_RANK_INVALID;
  size_t lo = 0, hi = t->size; /* binary search of byjob by job rank */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    gex_Rank_t j = t->jobrank[t->byjob[mid]];
    if (j == jobrank) return t->byjob[mid];
    if (j < jobrank) lo = mid + 1;
    else hi = mid;
  }
  return GEX_RANK_INVALID;
}

gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags) {
  const char *fname = "gex_TM_TranslateRankToEP";
  if (GASNETC_UNLIKELY(flags))
    gasnetc_fatal("%s: flags %#x: the description reserves them; pass 0", fname,
                  (unsigned)flags);
  gex_EP_Location_t loc = { gasnetc_tm_jobrank(gasnetc_tm_team(tm, fname), rank, fname), 0 };
  return loc;
}

/* ---- clients, endpoints, segments: queries and CData ------------------------ */

gex_Flags_t gex_Client_QueryFlags(gex_Client_t client) { return client->flags; }
const char *gex_Client_QueryName(gex_Client_t client) { return client->name; }
void gex_Client_SetCData(gex_Client_t client, const void *val) { client->cdata = (void *)val; }
void *gex_Client_QueryCData(gex_Client_t client) { return client->cdata; }

gex_Client_t gex_EP_QueryClient(gex_EP_t ep) { return ep->client; }
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep) { return ep->flags; }
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep) { return ep->seg; }
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep) { return (gex_EP_Index_t)ep->index; }
void gex_EP_SetCData(gex_EP_t ep, const void *val) { ep->cdata = (void *)val; }
void *gex_EP_QueryCData(gex_EP_t ep) { return ep->cdata; }

gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg) { return seg->client; }
gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg) { (void)seg; return 0; }
void *gex_Segment_QueryAddr(gex_Segment_t seg) { return seg->addr; }
uintptr_t gex_Segment_QuerySize(gex_Segment_t seg) { return seg->size; }
void gex_Segment_SetCData(gex_Segment_t seg, const void *val) { seg->cdata = (void *)val; }
void *gex_Segment_QueryCData(gex_Segment_t seg) { return seg->cdata; }

void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                            gex_Segment_t *segment_p) {
  GASNETC_CHECK_INITED("gasnet_QueryGexObjects");
  if (client_p) *client_p = &gasnetc_g;
  if (endpoint_p) *endpoint_p = &gasnetc_g.ep0;
  if (tm_p) *tm_p = &gasnetc_g.tm0;
  if (segment_p) *segment_p = gasnetc_g.ep0.seg;
}

/* ---- a barrier that serves AMs while it waits ---------------------------------
 * The bootstrap's barrier and exchange do not poll the network: a rank
 * blocked in them would not resend a lost frame, nor acknowledge one, that
 * a peer still waiting for this barrier needs (the job would hang under
 * loss). So once AMs flow, the collective EX calls meet here instead, and
 * exchange over AMs (gasnetc_segment_publish). Dissemination, ceil(log2 n)
 * rounds of one Short each (core handler GASNETC_HANDLER_SYNC). */
static uint32_t gasnetc_sync_got[2][32]; /* [phase parity][round]: arrivals */

void gasnetc_sync_handler(gasnet_token_t token, gasnet_handlerarg_t phase,
                          gasnet_handlerarg_t round) {
  (void)token;
  __atomic_fetch_add(&gasnetc_sync_got[phase & 1][round & 31], 1, __ATOMIC_RELEASE);
}

void gasnetc_sync(void) {
  static uint32_t phase;
  gasnet_node_t me = gasnetc_g.mynode, n = gasnetc_g.nodes;
  phase++;
  for (int k = 0; ((gasnet_node_t)1 << k) < n; k++) {
    gasnet_handlerarg_t args[2] = {(gasnet_handlerarg_t)phase, k};
    gasnetc_AMRequest(GASNETC_AM_SHORT, (me + ((gasnet_node_t)1 << k)) % n, GASNETC_HANDLER_SYNC,
                      NULL, 0, NULL, 2, args);
    uint32_t *got = &gasnetc_sync_got[phase & 1][k];
    GASNET_BLOCKUNTIL(__atomic_load_n(got, __ATOMIC_ACQUIRE) > 0);
    __atomic_fetch_sub(got, 1, __ATOMIC_RELAXED);
  }
}

/* ---- gex_Client_Init and gex_Segment_Attach ----------------------------------- */

/* The description asks for [A-Z][A-Z0-9_]+, but Berkeley's library takes
 * any name and clients pass lower-case ones ("testam", "UPCXX", "chapel"):
 * any non-empty string is taken (docs/api.md, "Where we differ"). */
static int gasnetc_name_ok(const char *s) { return s && s[0]; }

int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                    const char *clientName, int *argc, char ***argv, gex_Flags_t flags) {
  static int called;
  const char *call = "gex_Client_Init";
  if (called || gasnetc_g.attached) {
    fprintf(stderr, "GASNet: %s: called twice, or after gasnet_attach (one client per job)\n",
            call);
    return GASNET_ERR_RESOURCE;
  }
  called = 1;
  if (!client_p || !ep_p || !tm_p)
    return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call, "an output pointer is NULL");
  if (!gasnetc_name_ok(clientName))
    return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call,
                                "clientName is %s", clientName ? "empty" : "NULL");
  if (flags & ~(gex_Flags_t)(GEX_FLAG_USES_GASNET1 | GEX_FLAG_DEFER_THREADS))
    return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call,
                                "flags %#x: only GEX_FLAG_USES_GASNET1 and "
                                "GEX_FLAG_DEFER_THREADS are defined", (unsigned)flags);
  int rc = gasnetc_g.inited ? GASNET_OK : gasnet_init(argc, argv);
  if (rc) return rc;
  gasnetc_g.name = strdup(clientName);
  gasnetc_g.flags = flags;
  if (flags & GEX_FLAG_DEFER_THREADS) gasnetc_conduit.live->defer();
  if ((rc = gasnetc_connect(call))) return rc;
  /* "an implicit barrier ... prior to return" */
  if (boot_barrier() != 0) gasnetc_fatal("%s: the bootstrap barrier failed", call);
  *client_p = &gasnetc_g;
  *ep_p = &gasnetc_g.ep0;
  *tm_p = &gasnetc_g.tm0;
  return GASNET_OK;
}

int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size) {
  static int called;
  const char *call = "gex_Segment_Attach";
  if (!gasnetc_g.attached) gasnetc_not_ready(call, 1);
  if (called || gasnetc_g.ep0.seg)
    return gasnetc_setup_failed(GASNET_ERR_RESOURCE, call,
                                "a segment is already attached (one per process)");
  if (!segment_p || tm != &gasnetc_g.tm0)
    return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call,
                                "%s", !segment_p ? "segment_p is NULL"
                                                 : "tm is not the team of gex_Client_Init");
#if !defined(GASNET_SEGMENT_EVERYTHING)
  if (size == 0 || size % GASNET_PAGESIZE)
    return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, call,
                                "size %lu is not a non-zero multiple of GASNET_PAGESIZE (%d)",
                                (unsigned long)size, GASNET_PAGESIZE);
#endif
  called = 1;
  int rc = gasnetc_segment_publish(call, size, 0);
  if (rc) return rc;
  gasnetc_g.seg0.client = &gasnetc_g;
#if defined(GASNET_SEGMENT_EVERYTHING)
  *segment_p = GEX_SEGMENT_INVALID; /* the description's rule for EVERYTHING */
#else
  *segment_p = &gasnetc_g.seg0;
#endif
  return GASNET_OK;
}

/* ---- handlers, tokens, limits --------------------------------------------------- */

int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries) {
  GASNETC_CHECK_INITED("gex_EP_RegisterHandlers");
  if (!ep) gasnetc_fatal("gex_EP_RegisterHandlers: the endpoint is GEX_EP_INVALID");
  /* A refused registration is not a set-up failure: later calls go on. */
  const char *failed = gasnetc_g.failed_call;
  char why[sizeof gasnetc_g.failure];
  memcpy(why, gasnetc_g.failure, sizeof why);
  int rc = gasnetc_ep_register_ex(ep, table, numentries, GEX_AM_INDEX_BASE, 255, 1,
                                  "gex_EP_RegisterHandlers");
  if (rc) {
    gasnetc_g.failed_call = failed;
    memcpy(gasnetc_g.failure, why, sizeof why);
  }
  return rc;
}

gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask) {
  if (!token || token->magic != GASNETC_TOKEN_MAGIC || !info)
    gasnetc_fatal("gex_Token_Info: not the token of a running handler, or a NULL info");
  gasnetc_ep_t *ep = token->ep;
  if (mask & GEX_TI_SRCRANK) info->gex_srcrank = token->src;
  if (mask & GEX_TI_EP) info->gex_ep = ep;
  if (mask & GEX_TI_ENTRY) info->gex_entry = &ep->entries[token->handler];
  if (mask & GEX_TI_IS_REQ) info->gex_is_req = token->is_request;
  if (mask & GEX_TI_IS_LONG) info->gex_is_long = token->is_long;
  return mask & GEX_TI_ALL;
}

unsigned int gex_AM_MaxArgs(void) { return GASNETC_AM_MAX_ARGS; }

/* Every peer, every lc_opt and every argument count allow the same sizes
 * here, so the Max queries equal the LUBs. */
size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                               gex_Flags_t flags, unsigned int nargs) {
  (void)tm; (void)rank; (void)lc_opt; (void)flags; (void)nargs;
  return GASNETC_AM_MAX_MEDIUM;
}
size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int nargs) {
  return gex_AM_MaxRequestMedium(tm, rank, lc_opt, flags, nargs);
}
size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int nargs) {
  (void)tm; (void)rank; (void)lc_opt; (void)flags; (void)nargs;
  return GASNETC_AM_MAX_LONG;
}
size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                           gex_Flags_t flags, unsigned int nargs) {
  return gex_AM_MaxRequestLong(tm, rank, lc_opt, flags, nargs);
}
size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt,
                                gex_Flags_t flags, unsigned int nargs) {
  (void)token; (void)lc_opt; (void)flags; (void)nargs;
  return GASNETC_AM_MAX_MEDIUM;
}
size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt,
                              gex_Flags_t flags, unsigned int nargs) {
  (void)token; (void)lc_opt; (void)flags; (void)nargs;
  return GASNETC_AM_MAX_LONG;
}

/* ---- the system ------------------------------------------------------------------- */

gex_Rank_t gex_System_QueryJobRank(void) { return gasnet_mynode(); }
gex_Rank_t gex_System_QueryJobSize(void) { return gasnet_nodes(); }
int gex_System_GetVerboseErrors(void) { return gasnetc_g.verbose_errors; }
void gex_System_SetVerboseErrors(int enable) { gasnetc_g.verbose_errors = enable != 0; }
int gex_System_QueryHiddenAMConcurrencyLevel(void) { return GASNET_HIDDEN_AM_CONCURRENCY_LEVEL; }

/* The one thread a client may have deferred: the liveness thread. */
int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                    const gex_ProgressThreadInfo_t **info_p, gex_Flags_t flags) {
  static gex_ProgressThreadInfo_t live = { "liveness", GEX_THREAD_ROLE_SND, NULL, NULL };
  const char *call = "gex_System_QueryProgressThreads";
  GASNETC_CHECK_INITED(call);
  if (client != &gasnetc_g) gasnetc_fatal("%s: not the client of gex_Client_Init", call);
  if (!count_p || !info_p || flags)
    return gasnetc_soft_error(GASNET_ERR_BAD_ARG, call, "count_p or info_p is NULL, or "
                              "flags is not 0 (GASNET_ERR_BAD_ARG)");
  if (!(gasnetc_g.flags & GEX_FLAG_DEFER_THREADS))
    return gasnetc_soft_error(GASNET_ERR_RESOURCE, call, "gex_Client_Init was not given "
                              "GEX_FLAG_DEFER_THREADS (GASNET_ERR_RESOURCE)");
  live.gex_progress_fn = gasnetc_conduit.live->deferred();
  live.gex_progress_arg = &live; /* unused by the function; non-NULL, as clients check */
  *count_p = live.gex_progress_fn ? 1 : 0;
  *info_p = &live;
  return GASNET_OK;
}

/* No table is sized by it (per-thread state is thread-local, made on first
 * use): SEQ is 1 by definition, and the others promise a bound they meet. */
#define GASNETC_MAX_THREADS 1024
uint64_t gex_System_QueryMaxThreads(void) {
#if defined(GASNET_SEQ)
  return 1;
#else
  return GASNETC_MAX_THREADS;
#endif
}

/* ---- [PROPOSED] memory kinds --------------------------------------------------
 * Host memory only here: a documented error and a message (unless
 * gex_System_SetVerboseErrors(0)), nothing changed. gex_EP_Create:
 * gasnetc_ep.c; gex_Segment_Create and gex_EP_BindSegment: gasnetc_segment.c. */

/* A kind made by gex_MK_Create: host memory is the only class here. */
#define GASNETC_MK_MAGIC 0x4d4b484fu /* "MKHO" */
struct gasnetc_mk {
  uint32_t magic;
};

int gasnetc_mk_is_host(gex_MK_t kind) {
  return kind == GEX_MK_HOST || (kind && kind->magic == GASNETC_MK_MAGIC);
}

int gex_MK_Create(gex_MK_t *memkind_p, gex_Client_t client, const gex_MK_Create_args_t *args,
                  gex_Flags_t flags) {
  const char *call = "gex_MK_Create";
  static const char *const names[] = { "GEX_MK_CLASS_HOST", "GEX_MK_CLASS_CUDA_UVA",
                                       "GEX_MK_CLASS_HIP", "GEX_MK_CLASS_ZE" };
  if (!memkind_p || !args || client != &gasnetc_g || flags || args->gex_flags)
    return gasnetc_soft_error(GASNET_ERR_BAD_ARG, call, "%s (GASNET_ERR_BAD_ARG)",
                              !memkind_p ? "memkind_p is NULL" : !args ? "args is NULL"
                              : client != &gasnetc_g ? "not the client of gex_Client_Init"
                              : "flags and args->gex_flags must be 0");
  unsigned c = (unsigned)args->gex_class;
  if (args->gex_class != GEX_MK_CLASS_HOST)
    return gasnetc_soft_error(GASNET_ERR_BAD_ARG, call, "%s: no device memory is supported "
                              "by this build (GASNET_ERR_BAD_ARG)",
                              c < 4 ? names[c] : "an unknown class");
  struct gasnetc_mk *mk = malloc(sizeof *mk);
  if (!mk) return gasnetc_soft_error(GASNET_ERR_RESOURCE, call, "out of memory");
  mk->magic = GASNETC_MK_MAGIC;
  *memkind_p = mk;
  return GASNET_OK;
}
/* A segment made with the kind keeps working after: it is host memory. */
void gex_MK_Destroy(gex_MK_t memkind, gex_Flags_t flags) {
  if (memkind == GEX_MK_HOST || !gasnetc_mk_is_host(memkind))
    gasnetc_fatal("gex_MK_Destroy: memory kind %p was not made by gex_MK_Create",
                  (void *)memkind);
  if (flags) gasnetc_fatal("gex_MK_Destroy: flags %#x: must be 0", (unsigned)flags);
  memkind->magic = 0;
  free(memkind);
}
