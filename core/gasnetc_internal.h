/*
 * gasnetc_internal.h - state and helpers shared by the files of core/.
 * Not installed. Every file of core/ is compiled three times, with one of
 * -DGASNET_SEQ, -DGASNET_PARSYNC, -DGASNET_PAR -DGASNETC_THREADS=1.
 */
#ifndef GASNETC_INTERNAL_H
#define GASNETC_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "gasnet.h"
#include "transport.h"
#include "transport_live.h" /* the liveness service's ops */
#include "gasnetc_wire.h"
#include "gasnetc_ext.h"
#include "gasneti_time.h" /* gasneti_now_ns: the one monotonic clock */
#include "gasneti_host.h"
#include "gasneti_hot.h"  /* GASNETI_HOT: the path of every message */

/* Per-thread storage: SEQ has one client thread, so plain statics do. */
#if defined(GASNET_SEQ)
#define GASNETC_TLS
#else
#define GASNETC_TLS __thread
#endif

/* Atomic add for counters touched by several threads in PAR only. */
#if defined(GASNET_PAR)
#define GASNETC_ATOMIC_ADD(p, n) __atomic_fetch_add((p), (n), __ATOMIC_RELAXED)
#else
#define GASNETC_ATOMIC_ADD(p, n) (*(p) += (n))
#endif

#define GASNETC_LIKELY(x) __builtin_expect(!!(x), 1)
#define GASNETC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Handler indexes (spec 2.1.0.2: 0..127 reserved). 1..63 are the core's,
 * 64..127 the extended API's, 128..255 the client's. */
enum {
  GASNETC_HANDLER_EXIT = 1,        /* Short1(code): a node called gasnet_exit */
  GASNETC_HANDLER_SYNC = 2,        /* Short2(phase, round): gasnetc_ex.c's barrier */
  GASNETC_HANDLER_SEGINFO = 3,     /* Medium1: gex_Segment_Attach's and _PublishBoundSegment's exchange */
  GASNETC_HANDLER_CORE_LAST = 63,
  GASNETC_HANDLER_EXT_FIRST = 64,
  GASNETC_HANDLER_EXT_LAST = 127,
  GASNETC_HANDLER_CLIENT_FIRST = 128,
  GASNETC_HANDLER_CLIENT_LAST = 255,
};

/* What a handler's gasnet_token_t points to: lives on the dispatcher's stack
 * for the duration of the handler. */
#define GASNETC_TOKEN_MAGIC 0x746f6b6eu /* "tokn" */
struct gasnetc_token {
  uint32_t magic;
  gasnet_node_t src;
  struct gasnetc_ep *ep; /* the EP the message came to */
  uint8_t src_ep;        /* the sender's EP index: a reply goes to it */
  uint8_t is_request; /* a request handler may reply, once */
  uint8_t replied;
  uint8_t handler;    /* its index (gex_Token_Info) */
  uint8_t is_long;
};

/* A negotiated-payload AM between its Prepare and its Commit (gasnetc_am.c):
 * what a gex_AM_SrcDesc_t points to. One per thread: the description makes
 * the SrcDesc thread-specific, consumed by exactly one Commit in the same
 * thread, and Prepare/Commit pairs do not nest. */
struct gasnetc_srcdesc {
  void *addr;             /* gex_AM_SrcDescAddr: client_buf, or the lent buffer */
  size_t size;            /* gex_AM_SrcDescSize, in [least_payload, most_payload] */
  uint8_t open;           /* between Prepare and Commit */
  uint8_t is_request, category, nargs; /* fixed at Prepare (GASNETC_AM_MEDIUM / _LONG) */
  uint8_t lent;           /* lend holds a buffer: GASNet's, or the copy of client_buf */
  uint8_t discard;        /* the job is ending and the peer is gone: Commit sends nothing */
  gasnet_node_t dest;
  const struct gasnetc_pair *via; /* the local EP, and the remote one's index */
  const void *client_buf; /* NULL: addr is GASNet's buffer */
  void *dest_addr;        /* Long: the one given at Prepare, or NULL */
  gex_Event_t *lc_opt;    /* client_buf only */
  gasnetc_lend_t lend;
};

/* Per-thread context (spec 2.4: the no-interrupt state is per thread). */
typedef struct {
  struct gasnetc_token *token; /* innermost running handler's, else NULL */
  int nis;                     /* inside gasnet_hold_interrupts() */
  int hsl_depth;               /* HSLs held by this thread */
  int in_callback;             /* inside a transport callback */
  struct gasnetc_srcdesc sd;   /* this thread's negotiated-payload AM */
} gasnetc_thread_t;
extern GASNETC_TLS gasnetc_thread_t gasnetc_thread;

typedef void (*gasnetc_handler_fn_t)();

/* ---- the core's objects --------------------------------------------------
 * GASNet-1 has exactly one of each (the primordial ones); GASNet-EX names
 * them with handles. Written during init/attach (one thread), read after,
 * except the handler table, which may grow at any time after init. */

/* A segment of this process's memory (gasnetc_segment.c). */
typedef struct gasnetc_segment {
  void *addr;
  uintptr_t size;
  struct gasnetc_client *client;
  unsigned bound;                      /* EPs it is bound to (one segment may serve several) */
  void *cdata;                         /* gex_Segment_SetCData */
  int fd;                              /* its memfd when neighbours may map it, else -1 */
  int created;                         /* by gex_Segment_Create (heap object), not attach */
  int owned;                           /* mapped by the library (unmapped at Destroy) */
} gasnetc_segment_t;

/* An endpoint: a handler table and a bound segment. Index 0 is the
 * primordial EP, the one GASNet-1 uses; gex_EP_Create makes the others
 * (gasnetc_ep.c). */
typedef struct gasnetc_ep {
  unsigned index;
  struct gasnetc_client *client;
  gex_EP_Capabilities_t caps;          /* what it may be used for (the primordial: all) */
  gex_Flags_t flags;                   /* gex_EP_Create's (gex_EP_QueryFlags) */
  gasnetc_handler_fn_t handlers[256];  /* set once per index, atomically */
  gex_AM_Entry_t entries[256];         /* what was registered (gex_Token_Info) */
  gasnetc_segment_t *seg;              /* bound segment, NULL before attach/bind */
  void *cdata;                         /* gex_EP_SetCData */
  gasnetc_pair_t pairs[GASNET_MAXEPS]; /* gex_TM_Pair(this, i): &pairs[i] | 1 */
} gasnetc_ep_t;

/* One transport of the client, and the callbacks' context. */
typedef struct gasnetc_tp {
  const gasnetc_transport_ops_t *ops;
  gasnetc_transport_t *t;
  struct gasnetc_client *client;
  unsigned index;
  /* Some rank is routed to it (gasnetc_route_connect). One that serves
   * none (the network transport of a job on one host) is polled only after
   * a sleep, not by every poll: its poll is a system call for nothing. */
  int serves_any;
  /* A network transport in a job whose shared-memory transport serves
   * ranks too: polled on the hot path at most every GASNETC_QUIET_POLL_NS
   * unless it delivered a frame in the last GASNETC_HOT_NS (gasnetc_wait.c). */
  int throttled;
  uint64_t last_poll_ns, last_frame_ns;
} gasnetc_tp_t;

#define GASNETC_TP_MAX 4          /* transports in one conduit */
#define GASNETC_ROUTE_SELF 0xffu  /* route[mynode]: loopback, in the core */

/* The client: the job as this process sees it. */
typedef struct gasnetc_client {
  int inited, attached;
  const char *name;           /* gex_Client_Init's clientName, or "GASNET1" */
  gex_Flags_t flags;          /* gex_Client_Init's flags */
  void *cdata;                /* gex_Client_SetCData */
  int verbose_errors;         /* gex_System_{Get,Set}VerboseErrors */
  /* The set-up call that failed ("gasnet_init", "gasnet_attach") and why;
   * failed_call is NULL while none has failed. */
  const char *failed_call;
  char failure[256];
  gasnet_node_t mynode, nodes;

  /* Transports and the route table (gasnetc_route.c): route[r] is the
   * index in tp[] of the transport that serves rank r. */
  gasnetc_tp_t tp[GASNETC_TP_MAX];
  unsigned ntp;
  uint8_t *route;             /* [nodes] */
  size_t max_payload;         /* the least of the transports' */
  int epfd;                   /* the one wait (gasnetc_wait.c), -1 before init */
  uint64_t wake_ns;           /* gasnetc_wake_by's deadline for the next sleep; 0: none */

  /* The primordial objects, and the EPs by index (eps[0] is &ep0; a
   * slot is written once, with release order, by gex_EP_Create). */
  gasnetc_ep_t ep0;
  gasnetc_ep_t *eps[GASNET_MAXEPS];
  unsigned neps;
  gasnetc_segment_t seg0;
  gasnetc_team_t tm0;

  /* Segment limits (gasnetc_segment.c). */
  uintptr_t max_local_seg, max_global_seg;

  /* Tunables, read once in gasnet_init (GASNET_* environment). */
  uint64_t spin_ns;           /* GASNET_SPIN_USEC */
  const char *statsfile;      /* GASNET_STATSFILE */
  const char *network;        /* GASNET_NETWORK: interface, subnet or address */

  /* This host (gasnetc_host.c): nodes on it, CPUs they may run on, and
   * whether a blocked thread yields the CPU while it spins. */
  unsigned host_nodes, host_cpus;
  int polite;                 /* host_nodes > host_cpus */
  /* Per node: whether its kernel is crowded, more nodes of the job on it
   * than CPUs they may run on (gasnetc_node_crowded); this node's is polite. */
  uint8_t *crowded_of;        /* [nodes] */
  /* gasnet_getNodeInfo: each node's host, numbered 0.. in order of each
   * host's lowest node (a host: one kernel and one network namespace). */
  gasnet_node_t *host_of;     /* [nodes] */
  gasnet_node_t nhosts;       /* hosts in the job (gex_System_QueryMyPosition) */
  /* gex_System_QueryHostInfo: the nodes of this node's host by increasing
   * rank, and this node's index among them; built with host_of. */
  struct gasnetc_rankinfo *host_members; /* [host_size] */
  gasnet_node_t host_size, host_index;
  /* The shared-memory neighbourhood (gasnetc_host.c): the ranks of a host
   * in chunks of at most supernode_max (GASNET_SUPERNODE_MAXSIZE, 0: no
   * limit), numbered 0.. in order of their lowest rank; its members by
   * increasing rank, and this node's index among them. */
  gasnet_node_t supernode_max;
  gasnet_node_t *nbrhd_of;    /* [nodes] */
  gasnet_node_t nnbrhds;
  struct gasnetc_rankinfo *nbrhd_members; /* [nbrhd_size] */
  gasnet_node_t nbrhd_size, nbrhd_index;

  /* Exit (gasnetc_init.c). */
  volatile int exiting;       /* this process is in its exit path */
  volatile int remote_exit;   /* another node called gasnet_exit ... */
  volatile int remote_code;   /* ... with this code */
  uint64_t remote_exit_ns;    /* ... learnt then (gasneti_now_ns) */
} gasnetc_client_t;
/* The one client of a GASNet-1 program (and of EX's gex_Client_Init). */
extern gasnetc_client_t gasnetc_g;

/* ---- what a conduit library is assembled from (conduit/<name>.c) ---------
 * The core knows its transports and the layers above it only through this:
 * it never names amudp, amtcp or extended-ref. */

typedef struct gasnetc_conduit {
  const char *name;                    /* "udp", "tcp" */
  const gasnetc_transport_ops_t *transports[GASNETC_TP_MAX];
  unsigned ntransports;
  /* Which of transports[] serves the pair (me, peer), me != peer. Both
   * ends must get the same answer. NULL: transports[0] serves everyone. */
  unsigned (*route)(gasnet_node_t me, gasnet_node_t peer);
  const gasnetc_extension_t *extensions[2];
  unsigned nextensions;
  /* The liveness service (core/transport_live.h; live/live_udp.c). */
  const gasnetc_live_ops_t *live;
  /* The variable holding the liveness timeout of the transports that have
   * none of their own (shm): the network transport's, handed to
   * live->open. NULL: the default, 30 s. */
  const char *live_timeout_env;
} gasnetc_conduit_t;
extern const gasnetc_conduit_t gasnetc_conduit;

/* ---- attach in two steps (gasnetc_init.c), for gex_Client_Init and
 * gex_Segment_Attach: open and connect the transports (AMs may flow);
 * later allocate, bind and publish EP 0's segment (collective, ending in a
 * barrier). 0 or a GASNET_ERR_*; call names the public function. */
int gasnetc_connect(const char *call);
int gasnetc_segment_publish(const char *call, uintptr_t segsize, uintptr_t minheapoffset);

/* ---- GASNet-EX (gasnetc_ex.c) -------------------------------------------- */
void gasnetc_sync_handler(gasnet_token_t token, gasnet_handlerarg_t phase,
                          gasnet_handlerarg_t round);
/* A barrier over AMs that polls while it waits (every rank calls it). */
void gasnetc_sync(void);
/* Medium1(parity): the segments the sender publishes, a record each
 * (gasnetc_init.c). */
void gasnetc_seginfo_handler(gasnet_token_t token, void *buf, size_t nbytes,
                             gasnet_handlerarg_t parity);

/* ---- errors (gasnetc_errors.c) ---------------------------------------- */
/* Print "GASNet error: <msg> (on node N of M)" and end the whole job with
 * code 1, through the one fatal path (tools/gasnett_crash.c). The
 * extended layer's gasnete_fatal is this too (gasnetc_vfatal, gasnetc_ext.h). */
void gasnetc_fatal(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
/* The end of that path in a job (gasnett__set_job_end): boot_abort. */
void gasnetc_job_end(int code, const char *line) __attribute__((noreturn));
/* gasnet_init or gasnet_attach cannot go on: print "GASNet: CALL: reason",
 * remember both (a later call then says that CALL failed and why, instead
 * of "called before CALL") and return rc, the error code CALL returns. */
/* A documented error return of an EX call: the message (unless
 * gex_System_SetVerboseErrors(0)) and rc; nothing was changed. */
int gasnetc_soft_error(int rc, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int gasnetc_setup_failed(int rc, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));
/* gasnetc_not_ready (declared in gasnet.h for extended-ref/) is fatal:
 * fname needs a successful gasnet_init (need_attach 0) or gasnet_attach. */
#define GASNETC_CHECK_ATTACHED(fname)                                    \
  do {                                                                   \
    if (GASNETC_UNLIKELY(!gasnetc_g.attached)) gasnetc_not_ready((fname), 1); \
  } while (0)
#define GASNETC_CHECK_INITED(fname)                                      \
  do {                                                                   \
    if (GASNETC_UNLIKELY(!gasnetc_g.inited)) gasnetc_not_ready((fname), 0); \
  } while (0)

/* ---- this host (gasnetc_host.c) ------------------------------------------ */
/* What each node tells the others at gasnet_init about its host
 * (common/gasneti_host.h: gasneti_host_rec, gasneti_same_host). */
typedef gasneti_host_rec_t gasnetc_host_rec_t;

/* gasnetc_addr.c: the address the transport binds and advertises (see there).
 * An address as gasnet_init's exchange carries it: family 4 or 6 (0: none),
 * IPv4 in the first 4 bytes. */
typedef struct {
  uint8_t family, pad[7];
  uint8_t addr[16];
} gasnetc_addr_rec_t;
void gasnetc_addr_first(const char *network, gasnetc_addr_rec_t *rec);
/* addrs and hosts: node 0's record, the next node's `stride` bytes on */
void gasnetc_addr_final(const gasnetc_addr_rec_t *addrs, const gasnetc_host_rec_t *hosts, size_t stride,
                        const gasnetc_host_rec_t *myhost);
void gasnetc_addr_get(struct sockaddr_storage *addr, socklen_t *len);
/* From every node's record (node i's at all + i*stride): set host_nodes,
 * host_cpus, polite, crowded_of, host_of, nhosts and the neighbourhood and
 * host member lists. */
void gasnetc_host_learn(const void *all, size_t stride);
/* A conduit's route rule (gasnetc_conduit_t.route): 1 (its second
 * transport, shared memory) for a peer of this node's neighbourhood, else
 * 0 (the network). */
unsigned gasnetc_route_nbrhd(gasnet_node_t me, gasnet_node_t peer);

/* ---- statistics (gasnetc_stats.c) -------------------------------------- */
#define GASNETC_STATS(X)                                              \
  X(requests_sent) X(replies_sent) X(loopback_msgs) X(payload_bytes_sent) \
  X(requests_handled) X(replies_handled) X(payload_bytes_received)     \
  X(medium_realigned) X(long_copied) X(polls) X(waits) X(send_retries)   \
  X(sends_inflight) X(notices_sent) X(notices_received)
enum {
#define GASNETC_STAT_ENUM(name) GASNETC_STAT_##name,
  GASNETC_STATS(GASNETC_STAT_ENUM)
#undef GASNETC_STAT_ENUM
  GASNETC_STAT_COUNT
};
extern uint64_t gasnetc_stats[GASNETC_STAT_COUNT];
#define GASNETC_STAT_ADD(name, n) \
  ((void)GASNETC_ATOMIC_ADD(&gasnetc_stats[GASNETC_STAT_##name], (uint64_t)(n)))
/* Write this rank's counters if GASNET_STATSFILE is set (at exit). */
void gasnetc_stats_write(void);
/* Every counter of this rank in the categories of mask, "name value" lines. */
void gasnetc_stats_print(FILE *f, unsigned mask);

/* ---- tracing (gasnetc_trace.c; the extensions' part is in gasnetc_ext.h) -- */
extern uint64_t gasnetc_xstats[GASNETC_XSTAT_COUNT];
/* Read GASNET_TRACE* and GASNET_STATS* through env and open the files. */
void gasnetc_trace_read_env(const char *(*env)(const char *name, const char *dflt));
/* The common zero of the ranks' clocks: tracing and counting start. */
void gasnetc_trace_start(void);
/* An AM left for dest; t: when the send began (gasneti_now_ns). */
void gasnetc_trace_am_send(uint64_t t, int is_request, int wire_category, gasnet_node_t dest,
                           unsigned handler, size_t nbytes);
void gasnetc_trace_am_recv(int is_request, int wire_category, gasnet_node_t src,
                           unsigned handler, size_t nbytes);
void gasnetc_xstats_print(FILE *f, unsigned mask);
void gasnetc_stats_reset(void);
/* The statistics stream, taken for the last time at exit (NULL: this rank
 * writes none). */
FILE *gasnetc_stats_take(void);
/* name with '%' replaced by `with` (no '%' and several ranks: ".<with>"
 * appended): the per-rank file names of both variables. */
void gasnetc_trace_path(char *out, size_t len, const char *name, const char *with);
unsigned gasnetc_stats_outmask(void);
/* This rank's statistics file and GASNET_STATSFILE, when the job's sum is
 * to be written ('%' in the name, every rank writing); else NULL. */
const char *gasnetc_stats_rankpath(void);
const char *gasnetc_stats_sumpattern(void);
void gasnetc_trace_close(void);

/* ---- segments (gasnetc_segment.c) -------------------------------------- */
/* GASNET_MAX_SEGSIZE's value (gasneti_parse_memlimit): a limit per
 * process, or (*per_host) one for the whole host, which
 * gasnetc_segment_max_share divides among its host_nodes processes. */
uintptr_t gasnetc_segment_max_from_env(const char *value, int *per_host);
uintptr_t gasnetc_segment_max_share(uintptr_t host_bytes, unsigned host_nodes);
/* Segments shared within the neighbourhood (gasnetc_segment.c): a segment
 * is a memfd when a neighbour may map it; its (pid, fd) travel in the
 * segment exchange; gasnetc_segment_share maps the neighbours' after it. */
typedef struct { int32_t pid, fd; } gasnetc_seg_handle_t;
gasnetc_seg_handle_t gasnetc_segment_handle(const gasnetc_segment_t *s);
/* Rank node published s (and h) as the segment of its EP of index idx. */
void gasnetc_segment_learn(unsigned idx, gasnet_node_t node, const gasnet_seginfo_t *s,
                           gasnetc_seg_handle_t h);
/* Map what changed among the neighbours' published segments, every index. */
void gasnetc_segment_share(const char *call);
int gasnetc_segment_attach(uintptr_t segsize, uintptr_t minheapoffset,
                           gasnet_seginfo_t *mine);
/* 1 when [addr, addr+n) lies in the segment node published for EP index
 * idx (always in EVERYTHING). */
int gasnetc_segment_contains(unsigned idx, gasnet_node_t node, const void *addr, size_t n);
/* Name that segment in a message: "[0x...,0x...)". */
void gasnetc_segment_format(unsigned idx, gasnet_node_t node, char *buf, size_t len);
/* ep's bound segment ({NULL, 0}: none, or ep NULL); any thread. */
static inline gasnet_seginfo_t gasnetc_ep_seginfo(const gasnetc_ep_t *ep) {
  const gasnetc_segment_t *s = ep ? __atomic_load_n(&ep->seg, __ATOMIC_ACQUIRE) : NULL;
  gasnet_seginfo_t si = { s ? s->addr : NULL, s ? s->size : 0 };
  return si;
}
/* 1 when [addr, addr+n) lies in ep's bound segment (always in EVERYTHING). */
int gasnetc_ep_contains(const gasnetc_ep_t *ep, const void *addr, size_t n);

/* ---- endpoints (gasnetc_ep.c) ---------------------------------------------- */
/* Give ep its index and TM-pairs, its handlers, and its slot in eps[]. */
int gasnetc_ep_init(gasnetc_ep_t *ep, unsigned index, gex_EP_Capabilities_t caps,
                    gex_Flags_t flags);
/* This process's EP of index idx, NULL if it has none (any thread). */
static inline gasnetc_ep_t *gasnetc_ep_at(unsigned idx) {
  return idx < GASNET_MAXEPS ? __atomic_load_n(&gasnetc_g.eps[idx], __ATOMIC_ACQUIRE) : NULL;
}
/* The pair of (tm, any rank): a TM-pair's own, or a team's local EP to
 * the members' primordial EPs. */
static inline const gasnetc_pair_t *gasnetc_tm_via(gex_TM_t tm) {
  const gasnetc_pair_t *p = gasnetc_tm_pair(tm);
  return p ? p : &tm->ep->pairs[0];
}

/* ---- handlers (gasnetc_handler.c) -------------------------------------- */
/* Register the core's and the extensions' handlers in ep (gasnet_init). */
int gasnetc_handler_init(gasnetc_ep_t *ep);
/* Register client entries in ep, at any time after init: explicit indexes
 * must lie in [lo, hi]; index 0 takes the lowest free one there, in table
 * order, written back into the entry (spec 2.1.0.2). 0, or a GASNET_ERR_*
 * after printing the reason, naming `call`, with nothing registered. */
int gasnetc_ep_register(gasnetc_ep_t *ep, gasnet_handlerentry_t *table, int numentries,
                        int lo, int hi, const char *call);
/* The same for EX entries; index 0 takes the highest free index when
 * `highest` (gex_EP_RegisterHandlers), else the lowest (gasnet_attach). */
int gasnetc_ep_register_ex(gasnetc_ep_t *ep, gex_AM_Entry_t *table, size_t numentries,
                           int lo, int hi, int highest, const char *call);
/* Copy EP 0's client handlers into ep (gex_EP_Create). */
void gasnetc_handler_inherit(gasnetc_ep_t *ep);
/* Run handler m->handler for a message from src (transport or loopback). */
void gasnetc_handler_run(gasnetc_ep_t *ep, gasnet_node_t src, const gasnetc_wire_msg_t *m,
                         void *buf, size_t nbytes);
/* Transport callbacks (installed in the transport config at attach); ctx
 * is the gasnetc_tp_t. */
void gasnetc_deliver_cb(void *ctx, uint32_t src, const void *hdr,
                        size_t hdrlen, void *payload, size_t paylen);
void *gasnetc_place_cb(void *ctx, uint32_t src, const void *hdr,
                       size_t hdrlen, size_t paylen);
void gasnetc_peer_dead_cb(void *ctx, uint32_t rank, const char *why);
void gasnetc_send_done_cb(void *ctx, void *cookie, int rc); /* gasnetc_route.c */
void gasnetc_notice_cb(void *ctx, uint32_t src, const gasnetc_notice_t *n); /* gasnetc_notice.c */

/* ---- transports and routes (gasnetc_route.c) ------------------------------ */
/* Open the conduit's transports (gasnet_attach). 0 or a GASNET_ERR_*. */
int gasnetc_route_open(const gasnetc_transport_config_t *base);
/* Give every transport every rank's address blobs (rank r's blob for
 * transport i at blobs + r*stride + i*GASNETC_ADDR_MAX), fill the route
 * table and connect. 0, or -1 after printing why. */
int gasnetc_route_connect(const void *blobs, size_t stride);
static inline gasnetc_tp_t *gasnetc_route_tp(gasnet_node_t node) {
  return &gasnetc_g.tp[gasnetc_g.route[node]];
}
/* Send one frame to node (not this one) through its transport: when the
 * transport says "not now", make progress (gasnetc_wait) and try again; a
 * payload the transport still reads (INFLIGHT) is waited for, unless lc is
 * given: then the transport may borrow the payload (GASNETC_SEND_BORROW),
 * and while it does *lc is one more (atomically; one less, with release
 * order, when the payload may change again). Returns 0 or the transport's
 * -errno (-EPIPE: the node is dead). */
int gasnetc_route_send(gasnet_node_t node, const void *hdr, size_t hdrlen,
                       const void *payload, size_t paylen, unsigned flags, uint32_t *lc);
/* route_send flag of the core's own (not passed on): give up with -EAGAIN,
 * without progress, when the transport says "not now" (GEX_FLAG_IMMEDIATE). */
#define GASNETC_SEND_IMMEDIATE (1u << 16)
/* Buffer lending through the route (transport.h prepare/commit; a copy
 * when the transport has none, and for lend->dest == this node): lend->dest
 * and lend->flags set by the caller; prepare waits, making progress, rather
 * than say "not now", unless lend->flags has GASNETC_SEND_IMMEDIATE (then
 * -EAGAIN; prepare clears that flag). The core's own buffer is one per
 * thread and handler depth: a handler run while a commit waits may lend
 * one itself. */
int gasnetc_route_prepare(gasnetc_lend_t *lend, size_t paylen);
int gasnetc_route_commit(gasnetc_lend_t *lend, const void *hdr, size_t hdrlen,
                         size_t paylen);
void gasnetc_route_cancel(gasnetc_lend_t *lend); /* give a lent buffer back unsent */
/* GEX_MK_HOST, or a kind gex_MK_Create made (host memory: gasnetc_ex.c). */
int gasnetc_mk_is_host(gex_MK_t kind);
void gasnetc_route_close(void);

/* ---- the one wait (gasnetc_wait.c) ----------------------------------------- */
int gasnetc_wait_init(void);
/* cfg.watch of every transport: ctx is its gasnetc_tp_t. */
int gasnetc_watch_cb(void *ctx, int fd, unsigned events);
/* One bounded, non-blocking pass over every transport; frames delivered. */
int gasnetc_progress(void);
/* Sleep until a descriptor of any transport is ready, the earliest
 * transport deadline, or timeout_ms (-1: none but the deadlines), then
 * make progress; frames delivered. */
int gasnetc_wait(int timeout_ms);

/* A per-thread buffer of GASNETC_AM_MAX_MEDIUM bytes, 64-byte aligned, one
 * per handler nesting depth (a loopback reply's handler runs inside the
 * request handler, whose buffer is still live). */
void *gasnetc_thread_buf(int slot);
/* Number of handlers running on this thread (0 outside handlers). */
int gasnetc_handler_depth(void);

/* ---- exit (gasnetc_init.c) ---------------------------------------------- */
/* Called from poll points: if another node asked the job to exit, do so
 * (after GASNETC_EXIT_LINGER_MS). */
void gasnetc_exit_check_slow(void);
static inline void gasnetc_exit_check(void) {
  if (GASNETC_UNLIKELY(gasnetc_g.remote_exit)) gasnetc_exit_check_slow();
}


#endif /* GASNETC_INTERNAL_H */
