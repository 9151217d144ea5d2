/*
 * gasnetex.h - GASNet-EX, the native interface (../shared/spec/gasnet-ex-api.txt).
 *
 * This release provides the objects and the Active Messages of GASNet-EX:
 * versions, types and invalid values; gex_Client_Init, gex_Segment_Attach,
 * the client, segment, EP and team queries and CData; gex_EP_RegisterHandlers;
 * gex_TM_Pair; fixed-payload AMs (Short/Medium/Long, request and reply,
 * 0..gex_AM_MaxArgs() arguments) with GEX_FLAG_IMMEDIATE and lc_opt;
 * negotiated-payload AMs (gex_AM_Prepare{Request,Reply}{Medium,Long},
 * gex_AM_Commit{Request,Reply}{Medium,Long}[M], gex_AM_SrcDesc{Addr,Size},
 * GASNET_NATIVE_NP_ALLOC_*: native over udp); gex_Token_Info; the AM limit
 * queries; the bound-segment queries (gex_EP_QueryBoundSegmentNB,
 * gex_Segment_QueryBound); the gex_System_* queries, neighbourhood and host
 * among them; gex_HSL_*; gasnet_QueryGexObjects; RMA (put/get NB, NBI,
 * blocking, value); events and NBI with access regions; teams
 * (gex_TM_Split, _Create, _Destroy, translations); gex_Coll_BarrierNB on
 * any team; the data types, opcodes and flags of the remote atomics and
 * reductions. Remote atomics are in gasnet_ratomic.h, VIS in gasnet_vis.h,
 * the other collectives in gasnet_coll.h. docs/api.md "GASNet-EX" lists
 * what is not there (more than one EP or segment per process).
 *
 * gasnet.h and gasnetex.h include each other: either may be included first.
 */
#ifndef GASNETEX_H
#define GASNETEX_H
#define _INCLUDED_GASNETEX_H 1 /* Berkeley's include guard, which clients test */

#include "gasnet.h"
/* The types and constants a client's headers may need alone (v0.19,
 * "The gasnet_fwd.h header"): defined there, once. */
#include "gasnet_fwd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions (description, "Specification and release versioning") ---- */
#define GEX_SPEC_VERSION_MAJOR 0
#define GEX_SPEC_VERSION_MINOR 19
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 20

/* ---- basic types ----------------------------------------------------------- */
typedef gasnet_token_t gex_Token_t;               /* interoperable with gasnet_token_t */
typedef gasnet_handler_t gex_AM_Index_t;          /* uint8_t */
typedef gasnet_handlerarg_t gex_AM_Arg_t;         /* int32_t */
typedef void (*gex_AM_Fn_t)();
typedef gasnet_register_value_t gex_RMA_Value_t;
#define SIZEOF_GEX_RMA_VALUE_T SIZEOF_GASNET_REGISTER_VALUE_T
typedef struct { void *gex_addr; size_t gex_len; } gex_Memvec_t;

/* Opaque handles: pointers to the core's objects (core/gasnetc_internal.h). */
typedef struct gasnetc_client *gex_Client_t;
typedef struct gasnetc_ep *gex_EP_t;
typedef struct gasnetc_segment *gex_Segment_t;
typedef struct gasnetc_team *gex_TM_t;            /* a team member, or a TM-pair */
#define GEX_CLIENT_INVALID ((gex_Client_t)0)
#define GEX_EP_INVALID ((gex_EP_t)0)
#define GEX_SEGMENT_INVALID ((gex_Segment_t)0)
#define GEX_TM_INVALID ((gex_TM_t)0)
typedef struct { gex_Rank_t gex_rank; gex_EP_Index_t gex_ep_index; } gex_EP_Location_t;

/* The flags, the data types and the operation codes: gasnet_fwd.h. */

/* ---- CData: one client pointer per object, NULL when created --------------- */
void gex_Client_SetCData(gex_Client_t client, const void *val);
void *gex_Client_QueryCData(gex_Client_t client);
void gex_Segment_SetCData(gex_Segment_t seg, const void *val);
void *gex_Segment_QueryCData(gex_Segment_t seg);
void gex_TM_SetCData(gex_TM_t tm, const void *val);
void *gex_TM_QueryCData(gex_TM_t tm);
void gex_EP_SetCData(gex_EP_t ep, const void *val);
void *gex_EP_QueryCData(gex_EP_t ep);

/* ---- the client ------------------------------------------------------------ */
/* Collective over the job; one call per job; ends with a barrier. A link
 * error (gasnetc_client_init_<MODE>) catches a header/library mode mismatch. */
#define gex_Client_Init GASNETC_CONCAT(gasnetc_client_init_, GASNETC_MODE)
extern int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                           const char *clientName, int *argc, char ***argv, gex_Flags_t flags);
gex_Flags_t gex_Client_QueryFlags(gex_Client_t client);
const char *gex_Client_QueryName(gex_Client_t client);

/* ---- segments ---------------------------------------------------------------- */
extern int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size);
gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg);
gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg);
void *gex_Segment_QueryAddr(gex_Segment_t seg);
uintptr_t gex_Segment_QuerySize(gex_Segment_t seg);
/* The bound segment of the EP (tm, rank) names; tm may be a TM-pair, rank
 * must exist (GEX_RANK_INVALID is fatal). Every rank's segment is known here
 * since gex_Segment_Attach, gasnet_attach or gex_EP_PublishBoundSegment, so the query never
 * communicates: it returns GEX_EVENT_INVALID, outputs already written.
 * localaddr is non-NULL for the caller's own segment and for a neighbour's
 * that is mapped here (shared memory); NULL for the rest. No bound segment
 * (before the attach or publish, or
 * GASNet-1's segsize 0): *size_p = 0, *owneraddr_p = *localaddr_p = NULL.
 * Without GEX_FLAG_IMMEDIATE it is fatal in an AM handler or holding an HSL
 * (the description allows it there only with the flag). */
gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                       void **localaddr_p, uintptr_t *size_p, gex_Flags_t flags);
/* [DEPRECATED since spec 0.13] The same query: 0, or GASNET_ERR_RESOURCE
 * with the outputs untouched when (tm, rank) has no bound segment. */
int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                           uintptr_t *size_p);

/* ---- teams and endpoints ----------------------------------------------------- */
gex_Client_t gex_TM_QueryClient(gex_TM_t tm);
gex_EP_t gex_TM_QueryEP(gex_TM_t tm);
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm);
gex_Rank_t gex_TM_QueryRank(gex_TM_t tm);
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm);
/* A TM-pair names (local EP, remote EP index) for point-to-point calls. */
gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index);

/* Team construction and destruction (the description, "Operations on
 * gex_TM_t"; extended-ref/gasnete_team.c). Collective over parent_tm, over
 * AM-based collectives of the parent; team ids are unique in the job.
 * Split: members with the same color form a team, ordered by key, ties by
 * parent rank; a NULL new_tm_p takes part without joining. Create: every
 * caller names its team's members in rank order (parent ranks, or job
 * ranks with GEX_FLAG_RANK_IS_JOBRANK; EP index 0: one EP per process).
 * Scratch: optional here (collectives keep their buffers in private
 * memory); given, it must lie in the caller's bound segment and is
 * returned by gex_TM_Destroy. The GEX_FLAG_TM_SCRATCH_SIZE_* flags turn
 * Split/Create into the collective query of the recommended size. */
size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                    void *scratch_addr, size_t scratch_size, gex_Flags_t flags);
size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                     gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                     size_t scratch_size, gex_Flags_t flags);
/* Collective over tm (not the primordial team); 1 when *scratch_p got the
 * scratch the client gave at construction. */
int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags);
/* No communication: each team holds its members' job ranks and a sorted
 * reverse index. JobrankToRank: GEX_RANK_INVALID when not a member. */
gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank);
gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank);
gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags);
gex_Client_t gex_EP_QueryClient(gex_EP_t ep);
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep);
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep);
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep);

/* ---- AM handlers ---------------------------------------------------------------- */
#define GEX_AM_INDEX_BASE 128
#define GASNET_HIDDEN_AM_CONCURRENCY_LEVEL 0
int gex_System_QueryHiddenAMConcurrencyLevel(void);

/* Progress threads (spec v0.18). The library's one thread of its own is the
 * liveness thread (docs/transports.md, "Liveness"): it answers the probes
 * that tell a computing peer from a dead one and never runs a handler, so
 * it is reported as a send thread and there is no receive thread. With
 * GEX_FLAG_DEFER_THREADS the client starts it, from what
 * gex_System_QueryProgressThreads gives (none in a job of one process). */
#define GASNET_SND_THREAD 1
#undef GASNET_RCV_THREAD
#define GEX_THREAD_ROLE_RCV (1u << 0)
#define GEX_THREAD_ROLE_SND (1u << 1)
typedef struct {
  const char *gex_device_list;        /* "liveness" */
  unsigned int gex_thread_roles;      /* GEX_THREAD_ROLE_SND */
  void *(*gex_progress_fn)(void *);
  void *gex_progress_arg;
} gex_ProgressThreadInfo_t;
int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                    const gex_ProgressThreadInfo_t **info_p, gex_Flags_t flags);
typedef struct {
  gex_AM_Index_t gex_index;   /* 0 or in [GEX_AM_INDEX_BASE .. 255] */
  gex_AM_Fn_t gex_fnptr;
  gex_Flags_t gex_flags;      /* one of SHORT/MEDIUM/LONG/MEDLONG, one of REQUEST/REPLY/REQREP */
  unsigned int gex_nargs;     /* in [0 .. gex_AM_MaxArgs()] */
  const void *gex_cdata;
  const char *gex_name;
} gex_AM_Entry_t;
/* Not collective; may be called again to add handlers. Index 0 entries get
 * the highest free index, in table order. GASNET_OK, or GASNET_ERR_BAD_ARG /
 * GASNET_ERR_RESOURCE with nothing registered (and a message). */
int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries);

/* ---- AM limits ------------------------------------------------------------------- */
unsigned int gex_AM_MaxArgs(void);
size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                               gex_Flags_t flags, unsigned int nargs);
size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int nargs);
size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int nargs);
size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt,
                           gex_Flags_t flags, unsigned int nargs);
size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt,
                                gex_Flags_t flags, unsigned int nargs);
size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt,
                              gex_Flags_t flags, unsigned int nargs);
/* Least upper bounds: every (tm, rank, lc_opt, flags, nargs) allows at least these. */
#define gex_AM_LUBRequestMedium() ((size_t)GASNETC_AM_MAX_MEDIUM)
#define gex_AM_LUBReplyMedium() ((size_t)GASNETC_AM_MAX_MEDIUM)
#define gex_AM_LUBRequestLong() ((size_t)GASNETC_AM_MAX_LONG)
#define gex_AM_LUBReplyLong() ((size_t)GASNETC_AM_MAX_LONG)

/* ---- token info ------------------------------------------------------------------ */
typedef struct {
  gex_Rank_t gex_srcrank;
  gex_EP_t gex_ep;
  const gex_AM_Entry_t *gex_entry;
  int gex_is_req;
  int gex_is_long;
} gex_Token_Info_t;
/* Every field is given on every conduit here. */
#define GASNET_SUPPORTS_TI_SRCRANK 1
#define GASNET_SUPPORTS_TI_EP 1
#define GASNET_SUPPORTS_TI_ENTRY 1
#define GASNET_SUPPORTS_TI_IS_REQ 1
#define GASNET_SUPPORTS_TI_IS_LONG 1
/* Sets the fields asked for in mask and returns the mask of those set. */
gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask);

/* ---- fixed-payload AMs --------------------------------------------------------------
 * One internal function per direction; the [M] forms are macros around it
 * (STYLE.md), as GASNet-1's. Requests return 0, or non-zero only when
 * GEX_FLAG_IMMEDIATE was given and the resources were not available (then
 * nothing was sent). A Medium/Long request's payload may be reused at
 * return: its lc_opt, an event pointer, receives GEX_EVENT_INVALID (already
 * complete); GEX_EVENT_NOW, _DEFER and _GROUP are accepted. */
extern int gasnetc_AMRequestEx(int category, gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                               const void *src, size_t nbytes, void *dest_addr,
                               gex_Event_t *lc_opt, gex_Flags_t flags, int nargs,
                               const gex_AM_Arg_t *args);
extern int gasnetc_AMReplyEx(int category, gex_Token_t token, gex_AM_Index_t handler,
                             const void *src, size_t nbytes, void *dest_addr,
                             gex_Event_t *lc_opt, gex_Flags_t flags, int nargs,
                             const gex_AM_Arg_t *args);

#define GASNETC_EX_AM_FORMS(M)                                                        \
  static inline int gex_AM_RequestShort##M(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t h, \
                                           gex_Flags_t flags GASNETC_AM_PARAMS_##M) { \
    GASNETC_AM_PACK(M);                                                              \
    return gasnetc_AMRequestEx(GASNETC_AM_SHORT, tm, rank, h, 0, 0, 0, 0, flags, M,   \
                               gasnetc_args_);                                        \
  }                                                                                   \
  static inline int gex_AM_RequestMedium##M(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t h, \
                                            const void *src, size_t nbytes,           \
                                            gex_Event_t *lc_opt,                      \
                                            gex_Flags_t flags GASNETC_AM_PARAMS_##M) { \
    GASNETC_AM_PACK(M);                                                              \
    return gasnetc_AMRequestEx(GASNETC_AM_MEDIUM, tm, rank, h, src, nbytes, 0, lc_opt, \
                               flags, M, gasnetc_args_);                              \
  }                                                                                   \
  static inline int gex_AM_RequestLong##M(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t h, \
                                          const void *src, size_t nbytes, void *dest, \
                                          gex_Event_t *lc_opt,                        \
                                          gex_Flags_t flags GASNETC_AM_PARAMS_##M) {  \
    GASNETC_AM_PACK(M);                                                              \
    return gasnetc_AMRequestEx(GASNETC_AM_LONG, tm, rank, h, src, nbytes, dest, lc_opt, \
                               flags, M, gasnetc_args_);                              \
  }                                                                                   \
  static inline int gex_AM_ReplyShort##M(gex_Token_t token, gex_AM_Index_t h,         \
                                         gex_Flags_t flags GASNETC_AM_PARAMS_##M) {   \
    GASNETC_AM_PACK(M);                                                              \
    return gasnetc_AMReplyEx(GASNETC_AM_SHORT, token, h, 0, 0, 0, 0, flags, M,        \
                             gasnetc_args_);                                          \
  }                                                                                   \
  static inline int gex_AM_ReplyMedium##M(gex_Token_t token, gex_AM_Index_t h,        \
                                          const void *src, size_t nbytes,             \
                                          gex_Event_t *lc_opt,                        \
                                          gex_Flags_t flags GASNETC_AM_PARAMS_##M) {  \
    GASNETC_AM_PACK(M);                                                              \
    return gasnetc_AMReplyEx(GASNETC_AM_MEDIUM, token, h, src, nbytes, 0, lc_opt,     \
                             flags, M, gasnetc_args_);                                \
  }                                                                                   \
  static inline int gex_AM_ReplyLong##M(gex_Token_t token, gex_AM_Index_t h,          \
                                        const void *src, size_t nbytes, void *dest,   \
                                        gex_Event_t *lc_opt,                          \
                                        gex_Flags_t flags GASNETC_AM_PARAMS_##M) {    \
    GASNETC_AM_PACK(M);                                                              \
    return gasnetc_AMReplyEx(GASNETC_AM_LONG, token, h, src, nbytes, dest, lc_opt,    \
                             flags, M, gasnetc_args_);                                \
  }
GASNETC_AM_FOREACH_M(GASNETC_EX_AM_FORMS)
#undef GASNETC_EX_AM_FORMS

/* ---- negotiated-payload AMs ---------------------------------------------------------
 * gasnet-ex-api.txt, "Negotiated-payload Active Messages". A Prepare gives a
 * buffer (client_buf, or GASNet's when client_buf is NULL: 16-byte
 * aligned, gex_AM_SrcDescSize() bytes, between least_payload and
 * most_payload, capped at gex_AM_Max*()); the matching Commit[M] on the
 * same thread sends nbytes of it. With GEX_FLAG_IMMEDIATE a request Prepare
 * returns GEX_AM_SRCDESC_NO_OP (nothing taken, nothing sent) when the
 * transport has no room now (udp: the peer's request credits). The forms
 * without [M] are below, with the fixed-payload ones. */
typedef struct gasnetc_srcdesc *gex_AM_SrcDesc_t; /* this thread's (core/gasnetc_internal.h) */
#define GEX_AM_SRCDESC_NO_OP ((gex_AM_SrcDesc_t)0)
extern void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd);
extern size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd);

/* Native (client_buf NULL saves the copy a fixed-payload AM makes) over
 * udp, Medium and Long: amudp lends its own payload buffer, which the
 * fixed-payload send copies into. Not over tcp: the buffer is the core's
 * and Commit sends it as a fixed-payload AM would send client memory
 * (no copy saved, none added). To this node, neither: loopback copies once. */
#if defined(GASNET_CONDUIT_UDP)
#define GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM 1
#define GASNET_NATIVE_NP_ALLOC_REP_MEDIUM 1
#define GASNET_NATIVE_NP_ALLOC_REQ_LONG 1
#define GASNET_NATIVE_NP_ALLOC_REP_LONG 1
#endif

extern gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank,
                                                    const void *client_buf, size_t least_payload,
                                                    size_t most_payload, gex_Event_t *lc_opt,
                                                    gex_Flags_t flags, unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                                  size_t least_payload, size_t most_payload,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank,
                                                  const void *client_buf, size_t least_payload,
                                                  size_t most_payload, void *dest_addr,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                                size_t least_payload, size_t most_payload,
                                                void *dest_addr, gex_Event_t *lc_opt,
                                                gex_Flags_t flags, unsigned int numargs);

/* One internal Commit per direction; the [M] and [M]_v2 forms are macros
 * around it. With GEX_FLAG_IMMEDIATE in commit_flags (the _v2 forms) it
 * returns non-zero, having sent nothing and left the SrcDesc open, when the
 * transport has no room now; else 0. */
extern int gasnetc_AMCommitRequestEx(int category, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                     size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                                     int nargs, const gex_AM_Arg_t *args);
extern int gasnetc_AMCommitReplyEx(int category, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                                   size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                                   int nargs, const gex_AM_Arg_t *args);

/* Spec v0.19, "gex_AM_Commit<XXX>[M]_v2 calls" and "gex_AM_Cancel calls"
 * (both [EXPERIMENTAL]); the values are the description's. */
#define GASNET_SUPPORTS_AM_COMMIT_V2 20240906L
#define GASNET_SUPPORTS_AM_CANCEL 20240418L
/* Consume an open Prepare without sending: a buffer GASNet lent goes back.
 * flags must be 0 (else GASNET_ERR_BAD_ARG, the Prepare still open). */
extern int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);

/* The Commit forms of one direction and category, [M] and [M]_v2:
 * DIR Request or Reply, CAT Medium or Long (CATC its GASNETC_AM_*), LONGP
 * the Long's dest parameter (", void *dest") and LONGA its argument. */
#define GASNETC_EX_COMMIT_FORMS(M, DIR, CAT, CATC, LONGP, LONGA)                              \
  static inline void gex_AM_Commit##DIR##CAT##M(gex_AM_SrcDesc_t sd, gex_AM_Index_t h,  \
                                                size_t nbytes LONGP GASNETC_AM_PARAMS_##M) { \
    GASNETC_AM_PACK(M);                                                                 \
    (void)gasnetc_AMCommit##DIR##Ex(CATC, sd, h, nbytes, LONGA, 0, M,       \
                                    gasnetc_args_);                                     \
  }                                                                                     \
  static inline int gex_AM_Commit##DIR##CAT##M##_v2(gex_AM_SrcDesc_t sd, gex_AM_Index_t h, \
                                                    size_t nbytes LONGP,                \
                                                    gex_Flags_t commit_flags            \
                                                    GASNETC_AM_PARAMS_##M) {            \
    GASNETC_AM_PACK(M);                                                                 \
    return gasnetc_AMCommit##DIR##Ex(CATC, sd, h, nbytes, LONGA, commit_flags, \
                                     M, gasnetc_args_);                                 \
  }
#define GASNETC_LONG_PARAM , void *dest
#define GASNETC_EX_NPAM_FORMS(M)                                                      \
  GASNETC_EX_COMMIT_FORMS(M, Request, Medium, GASNETC_AM_MEDIUM, , 0)                \
  GASNETC_EX_COMMIT_FORMS(M, Reply, Medium, GASNETC_AM_MEDIUM, , 0)                  \
  GASNETC_EX_COMMIT_FORMS(M, Request, Long, GASNETC_AM_LONG, GASNETC_LONG_PARAM, dest) \
  GASNETC_EX_COMMIT_FORMS(M, Reply, Long, GASNETC_AM_LONG, GASNETC_LONG_PARAM, dest)
GASNETC_AM_FOREACH_M(GASNETC_EX_NPAM_FORMS)
#undef GASNETC_EX_NPAM_FORMS
#undef GASNETC_EX_COMMIT_FORMS
#undef GASNETC_LONG_PARAM

/* ---- the AM forms without [M] (the description: "on compilers supporting
 * the __VA_ARGS__ preprocessor feature ... the [M] may optionally be omitted
 * entirely and is inferred based on the argument count"). GASNETC_M_AFTER_K
 * counts the arguments after the first K (at most 24 in all). */
#define GASNETC_PICK25(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15,  \
                       _16, _17, _18, _19, _20, _21, _22, _23, _24, N, ...)              \
  N
#define GASNETC_M_AFTER_3(...) GASNETC_PICK25(__VA_ARGS__, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GASNETC_M_AFTER_4(...) GASNETC_PICK25(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GASNETC_M_AFTER_5(...) GASNETC_PICK25(__VA_ARGS__, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GASNETC_M_AFTER_6(...) GASNETC_PICK25(__VA_ARGS__, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GASNETC_M_AFTER_7(...) GASNETC_PICK25(__VA_ARGS__, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define GASNETC_M_AFTER_8(...) GASNETC_PICK25(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define gex_AM_RequestShort(...) \
  GASNETC_CONCAT(gex_AM_RequestShort, GASNETC_M_AFTER_4(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_RequestMedium(...) \
  GASNETC_CONCAT(gex_AM_RequestMedium, GASNETC_M_AFTER_7(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_RequestLong(...) \
  GASNETC_CONCAT(gex_AM_RequestLong, GASNETC_M_AFTER_8(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_ReplyShort(...) \
  GASNETC_CONCAT(gex_AM_ReplyShort, GASNETC_M_AFTER_3(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_ReplyMedium(...) \
  GASNETC_CONCAT(gex_AM_ReplyMedium, GASNETC_M_AFTER_6(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_ReplyLong(...) \
  GASNETC_CONCAT(gex_AM_ReplyLong, GASNETC_M_AFTER_7(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitRequestMedium(...) \
  GASNETC_CONCAT(gex_AM_CommitRequestMedium, GASNETC_M_AFTER_3(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitReplyMedium(...) \
  GASNETC_CONCAT(gex_AM_CommitReplyMedium, GASNETC_M_AFTER_3(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitRequestLong(...) \
  GASNETC_CONCAT(gex_AM_CommitRequestLong, GASNETC_M_AFTER_4(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitReplyLong(...) \
  GASNETC_CONCAT(gex_AM_CommitReplyLong, GASNETC_M_AFTER_4(__VA_ARGS__))(__VA_ARGS__)
#define GASNETC_V2(name, m) GASNETC_CONCAT(GASNETC_CONCAT(name, m), _v2)
#define gex_AM_CommitRequestMedium_v2(...) \
  GASNETC_V2(gex_AM_CommitRequestMedium, GASNETC_M_AFTER_4(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitReplyMedium_v2(...) \
  GASNETC_V2(gex_AM_CommitReplyMedium, GASNETC_M_AFTER_4(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitRequestLong_v2(...) \
  GASNETC_V2(gex_AM_CommitRequestLong, GASNETC_M_AFTER_5(__VA_ARGS__))(__VA_ARGS__)
#define gex_AM_CommitReplyLong_v2(...) \
  GASNETC_V2(gex_AM_CommitReplyLong, GASNETC_M_AFTER_5(__VA_ARGS__))(__VA_ARGS__)

/* ---- RMA (the description's "Extended API") ------------------------------------------
 * Returns: the blocking and NBI calls non-zero, the NB calls GEX_EVENT_NO_OP,
 * only when GEX_FLAG_IMMEDIATE was given and nothing could be sent now (the
 * description's NOTE 1); otherwise 0 or a real event (GEX_EVENT_INVALID when
 * already complete). Local memory (a put's src, a get's dest) may be anywhere;
 * remote memory must lie in the peer's bound segment (fatal otherwise). A put
 * is locally complete when its initiation returns (the payload has been
 * copied or sent), so lc_opt pointers receive GEX_EVENT_INVALID. Flags:
 * GEX_FLAG_IMMEDIATE, _PEER_NEVER_SELF, _PEER_NEVER_NBRHD; the
 * [UNIMPLEMENTED] *_SEG_* flags are a fatal error naming the flag. */
extern int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                               size_t nbytes, gex_Flags_t flags);
/* lc_opt: GEX_EVENT_NOW, _DEFER or _GROUP. */
extern int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                          size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);
/* lc_opt: GEX_EVENT_NOW, _DEFER or the address of a gex_Event_t. */
extern gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                 size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);
extern int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                               size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags);
extern gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                 size_t nbytes, gex_Flags_t flags);
/* Value forms: 0 < nbytes <= SIZEOF_GEX_RMA_VALUE_T; the low-order bytes. */
extern gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src,
                                              size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                  gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                    gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags);

/* ---- events ---------------------------------------------------------------------------
 * Test never polls (it returns GASNET_OK or GASNET_ERR_NOT_READY); Wait polls
 * until done. An event is synchronized by the thread that initiated it (as
 * GASNet-1 handles, spec 1.8 3.3.2). Completed events in an array are
 * overwritten with GEX_EVENT_INVALID. flags must be 0. */
extern int gex_Event_Test(gex_Event_t event);
extern void gex_Event_Wait(gex_Event_t event);
extern int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);

/* Event categories (one bit each). */
typedef uint32_t gex_EC_t;
#define GEX_EC_GET (1u << 0)
#define GEX_EC_PUT (1u << 1)
#define GEX_EC_AM  (1u << 2)
#define GEX_EC_LC  (1u << 3)
#define GEX_EC_RMW (1u << 4)
#define GEX_EC_ALL 0x1fu
/* The leaf of category event_category (one bit, not GEX_EC_ALL) of root.
 * Local completion (GEX_EC_LC) happens before an initiation returns here,
 * so that leaf is GEX_EVENT_INVALID, which the description allows for an
 * event that "has already happened". */
extern gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category);

/* ---- implicit events (NBI) --------------------------------------------------------------
 * This thread's NBI operations of the categories in event_mask; inside an
 * access region they are erroneous (as GASNet-1's, spec 1.8 3.3.6.1). */
extern int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags);
extern void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags);
/* The same regions as gasnet_begin/end_nbi_accessregion; flags must be 0. */
extern void gex_NBI_BeginAccessRegion(gex_Flags_t flags);
extern gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags);

/* ---- collectives: the barrier (the others are in gasnet_coll.h) ---------------------------
 * On any team. Several may be in flight; each completes when every member
 * has called it (the same number of times). On the primordial team not
 * concurrent with a GASNet-1 barrier (the description, "Collectives").
 * flags must be 0. */
extern gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags);
/* Berkeley's blocking form (used by its tests, not in the description). */
extern void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags);

/* ---- system queries --------------------------------------------------------------- */
gex_Rank_t gex_System_QueryJobRank(void);
gex_Rank_t gex_System_QueryJobSize(void);
int gex_System_GetVerboseErrors(void);
void gex_System_SetVerboseErrors(int enable);
uint64_t gex_System_QueryMaxThreads(void);

/* Neighbourhood (the processes that share memory through GASNet) and host
 * (one kernel and one network namespace: gasnet_getNodeInfo's host).
 * [EXPERIMENTAL] in the description. Every output pointer may be NULL. The
 * arrays hold one entry per member, by increasing gex_jobrank, and belong
 * to the library: never write or free them. Legal from gasnet_init (or
 * gex_Client_Init) on. A neighbourhood is at most GASNET_SUPERNODE_MAXSIZE
 * ranks of one host (0: all of them; 1: every process is its own). */
struct gasnetc_rankinfo {
  gex_Rank_t gex_jobrank;
};
typedef const struct gasnetc_rankinfo gex_RankInfo_t;
void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                               gex_Rank_t *my_info_index_p);
void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                              gex_Rank_t *my_info_index_p);
/* The number of neighbourhoods (hosts) in the job and the caller's among
 * them, in [0, size): the same for every member, different between sets. */
void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size_p, gex_Rank_t *nbrhd_set_rank_p,
                                gex_Rank_t *host_set_size_p, gex_Rank_t *host_set_rank_p);

/* ---- [PROPOSED] memory kinds, segments and endpoints beyond the primordial ones ---
 * (the description's last section). Host memory only; one EP per process. */
typedef struct gasnetc_mk *gex_MK_t;
#define GEX_MK_INVALID ((gex_MK_t)0)
#define GEX_MK_HOST ((gex_MK_t)(uintptr_t)1)
/* A segment of length bytes of host memory (kind GEX_MK_HOST; any other is
 * GASNET_ERR_BAD_ARG): at address, the client's memory, or (address NULL)
 * GASNet's, page-rounded, shared with the neighbourhood as at attach.
 * GASNET_SEGMENT_EVERYTHING: GASNET_ERR_RESOURCE. */
extern int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address,
                              uintptr_t length, gex_MK_t kind, gex_Flags_t flags);
/* A created segment that is not bound (fatal otherwise: there is no unbind). */
extern void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags);
/* Bind a created segment to the primordial EP, which must have none yet;
 * GASNET_ERR_BAD_ARG otherwise (and for a bad ep, segment or flags). */
extern int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags);
/* Collective over tm: each caller's eps (none, or its primordial EP) become
 * known to the other members, for RMA and Longs. flags must be 0. */
extern int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps,
                                      gex_Flags_t flags);
/* GASNET_ERR_RESOURCE: the description implements it for ibv, ofi and ucx only. */
extern int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client,
                         gex_EP_Capabilities_t capabilities, gex_Flags_t flags);

/* ---- handler-safe locks: the same objects as gasnet_hsl_t ------------------------- */
typedef gasnet_hsl_t gex_HSL_t;
#define GEX_HSL_INITIALIZER GASNET_HSL_INITIALIZER
#define gex_HSL_Init(hsl) gasnet_hsl_init(hsl)
#define gex_HSL_Destroy(hsl) gasnet_hsl_destroy(hsl)
#define gex_HSL_Lock(hsl) gasnet_hsl_lock(hsl)
#define gex_HSL_Unlock(hsl) gasnet_hsl_unlock(hsl)
#define gex_HSL_Trylock(hsl) gasnet_hsl_trylock(hsl)

/* ---- the objects behind GASNet-1 (declared here; gasnet.h includes this) ---------- */
extern void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                                   gex_Segment_t *segment_p);

#ifdef __cplusplus
}
#endif

/* GASNet-1's VIS and collectives come with gasnet.h (which includes this
 * header, or is included by it), as clients of Berkeley's library expect:
 * gasnet_memvec_t, GASNET_TEAM_ALL, gasnet_coll_broadcast, ... Here, at
 * the end, both gasnet.h's and this header's declarations are complete. */
#include "gasnet_vis.h"
#include "gasnet_coll.h"

#endif /* GASNETEX_H */
