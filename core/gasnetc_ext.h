/*
 * gasnetc_ext.h - the internal core API that the extensions (extended-ref/)
 * may use besides the public one: how an extension registers itself, and
 * the team objects whose ids travel in collective AMs. Not installed.
 */
#ifndef GASNETC_EXT_H
#define GASNETC_EXT_H

#include <stdarg.h>
#include <stdint.h>
#include "gasnet.h"

/* gasnetc_fatal's va_list form (gasnetc_errors.c): "GASNet error: <msg> (on
 * node N of M)" down the one fatal path of every layer; the job ends with 1. */
void gasnetc_vfatal(const char *fmt, va_list ap) __attribute__((noreturn, format(printf, 1, 0)));

/* What an extension gives the core; listed by the conduit (conduit/<name>.c). */
typedef struct gasnetc_extension {
  const char *name;
  /* Handlers with fixed indexes in GASNETC_HANDLER_EXT_FIRST..EXT_LAST. */
  const gasnet_handlerentry_t *handlers;
  int nhandlers;
  /* Called once AMs may flow (gex_Client_Init, gasnet_attach), before the
   * barrier that ends that call; no segment is known yet. */
  void (*connect)(void);
  /* Called by gasnet_attach / gex_Segment_Attach once the segments are
   * known, before its barrier (so no rank uses the extension before all
   * have it ready). */
  void (*attach)(void);
  /* Optional. Called by gasnet_exit (any way a process ends through it)
   * before the transports close and flush what is unacknowledged, unless
   * it is called from a transport callback: send, as frames, what a peer
   * may still wait for that went as notices (below). */
  void (*exit)(void);
} gasnetc_extension_t;

/* A team: an ordered set of ranks. Its id travels in collective AMs and is
 * unique in the job (extended-ref/gasnete_team.c makes them); id 0 is the
 * primordial team (every rank, in job order). */
typedef struct gasnetc_team {
  uint32_t id;
  gasnet_node_t rank, size;
  const gasnet_node_t *jobrank;        /* [size]; NULL: rank i is job rank i */
  const gasnet_node_t *byjob;          /* [size] ranks by increasing job rank; NULL as above */
  gex_Flags_t flags;                   /* given at creation (gex_TM_QueryFlags) */
  struct gasnetc_ep *ep;               /* the local member's endpoint */
  void *coll;                          /* the collectives engine's state for it */
  void *barrier;                       /* its barrier (extended-ref/gasnete_barrier.c) */
  void *cdata;                         /* gex_TM_SetCData */
  gex_Memvec_t scratch;                /* the client's scratch, {NULL, 0} if none */
  unsigned ads;                        /* atomic domains made on it and not destroyed
                                          (gex_TM_Destroy refuses while any remain) */
  struct gasnetc_team *next;           /* the registry */
} gasnetc_team_t;

/* The team with this id, or NULL when this rank has none such. Any thread,
 * handlers too. */
gasnetc_team_t *gasnetc_team_lookup(uint32_t id);
/* The primordial team (id 0): every rank, in job order. */
gasnetc_team_t *gasnetc_team_primordial(void);
/* Make tm known to gasnetc_team_lookup, or forget it. */
void gasnetc_team_register(gasnetc_team_t *tm);
void gasnetc_team_unregister(gasnetc_team_t *tm);
/* Team rank -> job rank. */
static inline gasnet_node_t gasnetc_team_jobrank(const gasnetc_team_t *tm, gasnet_node_t r) {
  return tm->jobrank ? tm->jobrank[r] : r;
}

/* Whether job rank r's kernel runs more ranks of this job than CPUs they
 * may run on (core/gasnetc_host.c), the same answer on every rank: there a
 * collective costs CPU time, not round trips, and wants the fewest
 * messages. */
int gasnetc_node_crowded(gasnet_node_t r);

/* A TM-pair (gex_TM_Pair(ep, i)) is the address of ep->pairs[i] with this
 * bit set: it names job ranks, and in each the EP of index i. */
#define GASNETC_TM_PAIR_BIT ((uintptr_t)1)
typedef struct gasnetc_pair {
  struct gasnetc_ep *ep; /* the local EP */
  unsigned remote;       /* the remote EP's index */
} gasnetc_pair_t;
/* tm's pair, or NULL when tm is a team (whose members are primordial EPs). */
static inline const gasnetc_pair_t *gasnetc_tm_pair(gex_TM_t tm) {
  return (uintptr_t)tm & GASNETC_TM_PAIR_BIT
             ? (const gasnetc_pair_t *)((uintptr_t)tm & ~GASNETC_TM_PAIR_BIT) : NULL;
}
/* (tm, rank) -> job rank, tm a team or a TM-pair, in a job of jobsize
 * ranks; GEX_RANK_INVALID when tm or rank is invalid. */
static inline gex_Rank_t gasnetc_tm_rank_fast(gex_TM_t tm, gex_Rank_t rank, gex_Rank_t jobsize) {
  if ((uintptr_t)tm & GASNETC_TM_PAIR_BIT) return rank < jobsize ? rank : GEX_RANK_INVALID;
  return tm && rank < tm->size ? gasnetc_team_jobrank(tm, rank) : GEX_RANK_INVALID;
}
/* The same, fatal (naming fname and the problem) when invalid (gasnetc_ex.c). */
gasnet_node_t gasnetc_tm_jobrank(gex_TM_t tm, gex_Rank_t rank, const char *fname);

/* What this process knows of the EPs of one index in every rank: their
 * bound segments as published to it (gex_Segment_Attach, or
 * gex_EP_PublishBoundSegment; {NULL, 0}: none known), and where each is
 * mapped here (its own, and the neighbourhood's: gasnetc_segment.c), else
 * NULL. Made on first use, by any thread, and never freed. */
typedef struct gasnetc_epview {
  gasnet_seginfo_t *seg;           /* [nodes] */
  void **local;                    /* [nodes] */
  struct gasnetc_segpeer *peer;    /* [nodes]: the core's own */
} gasnetc_epview_t;
gasnetc_epview_t *gasnetc_epview(unsigned idx);
/* The bound segment of tm's local EP, and of this process's EP of index
 * idx ({NULL, 0}: none, or no such EP). */
gasnet_seginfo_t gasnetc_tm_own_segment(gex_TM_t tm);
gasnet_seginfo_t gasnetc_ep_segment(unsigned idx);
/* Fatal, naming fname, unless tm's local EP was created with every
 * capability of caps (GEX_EP_CAPABILITY_*). */
void gasnetc_tm_need(gex_TM_t tm, gex_EP_Capabilities_t caps, const char *fname);

/* Run client handler idx of the EP token's message came to, here, now, as
 * a 0-argument Medium reply from its sender with buf[nbytes] (the VIS peer
 * completion); fatal, naming fname, unless it was registered for that
 * (gasnetc_handler.c). */
void gasnetc_handler_run_reply_medium(const char *fname, gex_Token_t token, gex_AM_Index_t idx,
                                      void *buf, size_t nbytes);

/* gex_AM_RequestLongM(pair, node, handler, src, nbytes, dest_addr,
 * GEX_EVENT_DEFER-like, flags, nargs, args): a Long request whose source
 * the transport may go on reading after the return instead of copying it
 * (a large payload over UDP is sent from it until acknowledged). While it
 * does, *lc is one more: it is added to (atomically) before the send and
 * taken from (release order) once src may change, possibly on another
 * thread in a PAR build. The caller keeps src unchanged and *lc alive
 * until *lc drops to what it was. Returns as gex_AM_RequestLong*. */
int gasnetc_am_request_long_lc(gex_TM_t pair, gasnet_node_t node, gex_AM_Index_t handler,
                               const void *src,
                               size_t nbytes, void *dest_addr, gex_Flags_t flags,
                               uint32_t *lc, int nargs, const gex_AM_Arg_t *args);

/* Notices (core/transport.h, gasnetc_notice.c): a few words sent once,
 * perhaps lost, for messages whose loss the extension repairs itself. A
 * notice's handler runs like an AM handler (any thread in PAR), and may
 * send notices but no requests. The kinds are the extensions' to number
 * (1..GASNETC_NOTICE_KINDS - 1; 0 is none), the same on every rank since
 * they travel: the core only checks that a kind has one owner. */
#define GASNETC_NOTICE_KINDS 8
#define GASNETC_NOTICE_NWORDS 5
typedef void (*gasnetc_notice_fn)(gasnet_node_t src, const uint32_t *w);
/* fn gets the notices of kind; fatal for a kind out of range or owned by
 * another fn. Register before the first notice of kind may arrive (at
 * connect): until then they are dropped, as lost ones. */
void gasnetc_notice_register(unsigned kind, gasnetc_notice_fn fn);
/* Send job rank node (not this one) a notice of GASNETC_NOTICE_NWORDS words:
 * 0 (sent, and perhaps lost), -ENOTSUP (its transport carries no notices:
 * send a frame), -EPIPE (node is dead). */
int gasnetc_notice_send(gasnet_node_t node, unsigned kind, const uint32_t *w);
/* 1 when notices to job rank node go as notices (not -ENOTSUP). */
int gasnetc_notices_to(gasnet_node_t node);
/* The next sleep of a waiting thread ends by time ns (gasneti_now_ns) at
 * the latest: a deadline of the caller's, such as a lost notice's repair. */
void gasnetc_wake_by(uint64_t ns);

/* ---- tracing and statistics (gasnetc_trace.c) ------------------------------
 * Categories are Berkeley's letters (docs/api.md, "Tracing and
 * statistics"). gasnetc_trace_on (gasnet.h) holds the categories traced or
 * counted now, 0 unless GASNET_TRACEFILE or GASNET_STATSFILE is set: a hot
 * path tests it with GASNETC_TRACING and calls out of line only then. */
#define GASNETC_TRACING(c) \
  __builtin_expect((__atomic_load_n(&gasnetc_trace_on, __ATOMIC_RELAXED) & GASNETC_TRACE_BIT(c)) != 0, 0)
/* The extended API's counters, each with its category. */
#define GASNETC_XSTATS(X) \
  X(puts, 'P') X(put_bytes, 'P') X(puts_local, 'P') X(gets, 'G') X(get_bytes, 'G') \
  X(gets_local, 'G') X(barriers, 'B') X(collectives, 'C') X(ratomics, 'R') X(waits_blocked, 'S')
enum {
#define GASNETC_XSTAT_ENUM(name, cat) GASNETC_XSTAT_##name,
  GASNETC_XSTATS(GASNETC_XSTAT_ENUM)
#undef GASNETC_XSTAT_ENUM
  GASNETC_XSTAT_COUNT
};
/* A put (is_put) or get of nbytes with job rank node; local: a copy here
 * (this process or a mapped neighbour), traced unless GASNET_TRACELOCAL=0. */
void gasnetc_trace_rma(int is_put, gasnet_node_t node, size_t nbytes, int local);
/* done 0: this rank notified barrier `phase` of team; 1: it completed. */
void gasnetc_trace_barrier(int done, uint32_t team, uint32_t phase);
/* done 0: collective `name` number seq of team started; 1: it completed. */
void gasnetc_trace_coll(int done, const char *name, uint32_t team, uint32_t seq);
void gasnetc_trace_ratomic(gasnet_node_t node, const char *op);
/* A blocking wait for events began (0) or ended (1). */
void gasnetc_trace_wait(int done);

#endif /* GASNETC_EXT_H */
