/*
 * gasnete_internal.h - state and helpers shared by the files of extended-ref/.
 * Not installed. Compiled three times, with -DGASNET_SEQ, -DGASNET_PARSYNC
 * or -DGASNET_PAR -DGASNETC_THREADS=1. Uses only the public API (gasnet.h,
 * gasnetex.h): GASNet-EX AMs on the handlers 64..127 below, AMPoll, the
 * core's blocking step, getSegmentInfo, getenv, exit.
 *
 * Layers in this directory: gasnete_putget.c is the protocol (the AMs of a
 * put, get or memset); gasnete_rma.c the GASNet-EX RMA calls over it;
 * gasnete_event.c events, NBI and access regions; gasnete_barrier.c the
 * barrier; gasnete_team.c teams; gasnete_coll.c the collectives engine,
 * gasnete_coll_ops.c its algorithms and the GASNet-EX collectives,
 * gasnete_coll_g1.c GASNet-1's gasnet_coll.h over them; gasnete_gasnet1.c every GASNet-1 extended call, each one EX call;
 * gasnete_ratomic.c remote atomics (gasnet_ratomic.h); gasnete_vis.c vector,
 * indexed and strided transfers (gasnet_vis.h).
 *
 * Completion model: every operation in flight is counted in a
 * gasnete_counter_t (one per event, per access region, per thread for nbi
 * puts, nbi gets and nbi atomics, or on the stack of a blocking call).
 * The initiator adds 1 per AM request before sending it; the handler of the
 * matching reply, on whatever thread polls, subtracts 1 through the counter's
 * address carried in the AM arguments. Done = 0 pending. Nothing else is
 * shared between threads, so no lock is taken anywhere in this directory.
 */
#ifndef GASNETE_INTERNAL_H
#define GASNETE_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "gasnet.h"
#include "gasnetc_ext.h" /* teams, gasnetc_extension_t */
#include "gasneti_hot.h" /* GASNETI_HOT: the path of every message */

#define GASNETE_LIKELY(x) __builtin_expect(!!(x), 1)
#define GASNETE_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Per-thread storage (SEQ: one client thread, plain statics do). */
#if defined(GASNET_SEQ)
#define GASNETE_TLS
#else
#define GASNETE_TLS __thread
#endif

/* ---- handler indexes: 64..127 are ours (docs/api.md, Limits) ------------ */
enum {
  GASNETE_H_PUT_REQ = 64,   /* Long request: payload -> dest; args counter(2) */
  GASNETE_H_ACK,            /* Short reply: counter(2) nbytes: -1 message, -nbytes */
  GASNETE_H_GET_REQ,        /* Short request: src(2) nbytes dest(2) counter(2) long */
  GASNETE_H_GET_REP_MED,    /* Medium reply: dest(2) counter(2): copy, -1 */
  GASNETE_H_GET_REP_LONG,   /* Long reply into requester's segment: counter(2) */
  GASNETE_H_MEMSET_REQ,     /* Short request: dest(2) val nbytes(2) counter(2) */
  GASNETE_H_BARRIER = 70,   /* Short request: team phase what idx kind id (gasnete_barrier.c) */
  GASNETE_H_COLL_DATA = 71, /* Medium request: team seq stage from total(2) offset(2) */
  GASNETE_H_BARRIER_PULL = 73,   /* Short request: team phase what idx: send it again */
  GASNETE_H_BARRIER_AGAIN = 74,  /* Short request or reply: as BARRIER, a message sent
                                    again (pulled, or at exit): no team here, dropped */
  /* remote atomics (gasnete_ratomic.c) own 80..87 */
  GASNETE_H_RATOMIC_REQ = 80, /* Short request: addr(2) op1(2) op2(2) code counter(2) result(2) */
  GASNETE_H_RATOMIC_REP = 81, /* Short reply: op0(2) result(2) counter(2) size: store op0, -1 */
  /* VIS (gasnete_vis.c, where the payload formats are defined): 88..103 */
  GASNETE_H_VIS_PUT = 88,   /* Medium request: pieces {addr,len,bytes}; counter(2): scatter, ACK */
  GASNETE_H_VIS_GET_REQ = 89, /* Medium request: {raddr,laddr,len}...; counter(2): gather, reply */
  GASNETE_H_VIS_GET_REP = 90, /* Medium reply: pieces {laddr,len,bytes}; counter(2): scatter, -1 */
  GASNETE_H_VIS_PC = 91,    /* Medium request: client payload; handler counter(2): run it, ACK */
};

/* ---- notice kinds: ours to number (core/gasnetc_ext.h); they travel, so
 * a number never changes meaning ------------------------------------------ */
enum {
  GASNETE_NOTICE_BARRIER = 1, /* words team phase what|kind<<8 idx id (gasnete_barrier.c) */
};

/* ---- counters -------------------------------------------------------------- */
typedef struct {
  uint32_t pending; /* AM requests whose reply has not been handled, and
                       puts' chunks whose source the transport still reads
                       (borrowed: gasnete_put_start) */
  size_t bytes;     /* payload bytes of those requests and replies (the window) */
} gasnete_counter_t;

/* SEQ: handlers run on the only thread, inside calls the compiler cannot see
 * through, so plain accesses are enough; otherwise handlers may run on any
 * thread (PAR) or on the next thread to call (PARSYNC): atomics. A reply
 * handler releases the bytes first and the message last, with release order:
 * once pending reads 0, everything the handlers wrote is visible. */
#if defined(GASNET_SEQ)
#define GASNETE_CTR_ADD(c, n) ((c)->pending += (n))
#define GASNETE_CTR_SUB1(c) ((void)((c)->pending--))
#define GASNETE_CTR_LOAD(c) (*(volatile uint32_t *)&(c)->pending)
#define GASNETE_BYTES_ADD(c, n) ((c)->bytes += (n))
#define GASNETE_BYTES_SUB(c, n) ((c)->bytes -= (n))
#define GASNETE_BYTES_LOAD(c) (*(volatile size_t *)&(c)->bytes)
#else
#define GASNETE_CTR_ADD(c, n) ((void)__atomic_fetch_add(&(c)->pending, (n), __ATOMIC_RELAXED))
#define GASNETE_CTR_SUB1(c) ((void)__atomic_fetch_sub(&(c)->pending, 1, __ATOMIC_RELEASE))
#define GASNETE_CTR_LOAD(c) __atomic_load_n(&(c)->pending, __ATOMIC_ACQUIRE)
#define GASNETE_BYTES_ADD(c, n) ((void)__atomic_fetch_add(&(c)->bytes, (n), __ATOMIC_RELAXED))
#define GASNETE_BYTES_SUB(c, n) ((void)__atomic_fetch_sub(&(c)->bytes, (n), __ATOMIC_RELAXED))
#define GASNETE_BYTES_LOAD(c) __atomic_load_n(&(c)->bytes, __ATOMIC_RELAXED)
#endif
#define GASNETE_CTR_DONE(c) (GASNETE_CTR_LOAD(c) == 0)

/* 64-bit values (pointers, sizes) travel as two 32-bit handler arguments. */
#define GASNETE_HI(v) ((gasnet_handlerarg_t)(uint32_t)((uint64_t)(uintptr_t)(v) >> 32))
#define GASNETE_LO(v) ((gasnet_handlerarg_t)(uint32_t)(uintptr_t)(v))
#define GASNETE_U64(hi, lo) (((uint64_t)(uint32_t)(hi) << 32) | (uint32_t)(lo))
#define GASNETE_PTR(hi, lo) ((void *)(uintptr_t)GASNETE_U64(hi, lo))

/* ---- events = GASNet-1 handles (gasnete_event.c) ----------------------------
 * An event is done when its counter is (NB operations, access regions) or
 * when the barrier instance it names has completed (gex_Coll_BarrierNB). */
enum {
  GASNETE_H_FREE = 0x66726565u, /* "free" */
  GASNETE_H_NB = 0x6e62u,       /* counter of an NB operation */
  GASNETE_H_REGION = 0x7267u,   /* counter of an access region */
  GASNETE_H_BAR = 0x6272u,      /* barrier instance `phase` of `barrier` */
  GASNETE_H_COLL = 0x636cu,     /* collective operation `coll` (gasnete_coll.c) */
};

struct gasnete_threaddata;
struct gasnete_barrier;
struct gasnete_handle {
  gasnete_counter_t ctr;
  uint32_t state;                    /* GASNETE_H_* */
  uint32_t phase;                    /* GASNETE_H_BAR: the instance */
  struct gasnete_barrier *barrier;   /* GASNETE_H_BAR: its team's barrier */
  struct gasnete_coll_op *coll;      /* GASNETE_H_COLL: the operation */
  struct gasnete_handle *next;       /* free list */
  struct gasnete_threaddata *owner;  /* events are per thread (spec 1.8 3.3.2) */
};

struct gasnete_valget {
  uint32_t state;
  uint32_t nbytes;
  struct gasnete_valget *next;
  struct gasnete_threaddata *owner;
  gex_Event_t ev; /* the get filling buf */
  uint64_t buf;   /* the fetched bytes (a Medium reply lands here) */
};

typedef struct gasnete_threaddata {
  gasnete_counter_t nbi_puts, nbi_gets;  /* this thread's implicit ops */
  gasnete_counter_t nbi_rmw;             /* its NBI atomics but SET and GET */
  struct gasnete_handle *region;         /* open access region, else NULL */
  struct gasnete_handle *free_handles;   /* pools, grown in chunks */
  struct gasnete_valget *free_valgets;
  struct {                               /* gex_VIS_SetPeerCompletionHandler */
    gex_AM_Index_t handler;              /* 0: none armed */
    const void *src;
    size_t nbytes;
  } vis_pc;
} gasnete_threaddata_t;

extern GASNETE_TLS gasnete_threaddata_t *gasnete_td;
gasnete_threaddata_t *gasnete_td_new(void);
static inline gasnete_threaddata_t *gasnete_mythread(void) {
  gasnete_threaddata_t *td = gasnete_td;
  return GASNETE_LIKELY(td != NULL) ? td : gasnete_td_new();
}

struct gasnete_handle *gasnete_handle_new(gasnete_threaddata_t *td, uint32_t state);
void gasnete_handle_free(gasnete_threaddata_t *td, struct gasnete_handle *h);
/* 1 when h's operation is complete (does not poll; a barrier instance may
 * send its next round). */
int gasnete_barrier_event_done(struct gasnete_handle *h);
/* The same for a collective (gasnete_coll.c; may advance every collective
 * in flight); and what its event holds, freed with the event. */
int gasnete_coll_event_done(struct gasnete_handle *h);
void gasnete_coll_event_free(struct gasnete_handle *h);
static inline int gasnete_event_done(struct gasnete_handle *h) {
  if (GASNETE_LIKELY(h->state != GASNETE_H_BAR && h->state != GASNETE_H_COLL))
    return GASNETE_CTR_DONE(&h->ctr);
  return h->state == GASNETE_H_BAR ? gasnete_barrier_event_done(h) : gasnete_coll_event_done(h);
}
/* Advance every collective in flight as far as what has arrived allows
 * (gasnete_coll.c); cheap when none is. Outside handlers only. */
void gasnete_coll_progress(void);
struct gasnete_valget *gasnete_valget_new(gasnete_threaddata_t *td);
void gasnete_valget_free(gasnete_threaddata_t *td, struct gasnete_valget *v);

/* ---- waiting (gasnete_event.c): GASNET_BLOCKUNTIL's step, shaped by the
 * wait mode of gasnet_set_waitmode (spec 3.6.2.1). cond may send AMs (the
 * barrier advances its rounds there): it is evaluated outside handlers. */
void gasnete_wait_step(gasnetc_block_t *st);
#define GASNETE_WAIT_UNTIL(cond)                 \
  do {                                           \
    gasnetc_block_t gasnete_st_ = { 0 };         \
    while (!(cond)) gasnete_wait_step(&gasnete_st_); \
  } while (0)

/* The segment-disposition flags ([UNIMPLEMENTED] in the description). */
#define GASNETE_SEG_FLAGS                                                         \
  (GEX_FLAG_SELF_SEG_UNKNOWN | GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_SELF_SEG_SOME | \
   GEX_FLAG_PEER_SEG_SOME | GEX_FLAG_SELF_SEG_BOUND | GEX_FLAG_PEER_SEG_BOUND |    \
   GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET)

/* ---- process-wide state (gasnete_init.c), written once in gasnete_init ---- */
typedef struct {
  int connected;           /* AMs flow: barriers, collectives, teams work */
  int attached;            /* and the segments are known: RMA, atomics */
  gex_TM_t tm0;            /* the primordial team: GASNet-1 node = its rank */
  gex_TM_t pair;           /* TM-pair of EP 0: AMs addressed by job rank */
  gasnet_node_t mynode, nodes;
  /* The primordial EPs' segments (the core's view of index 0) */
  const gasnet_seginfo_t *seg; /* [nodes] */
  void *const *local;      /* [nodes]: each segment's address here, NULL if not mapped */
  size_t pipeline_bytes;   /* GASNET_EXT_PIPELINE_BYTES */
  size_t put_chunk;        /* bytes per put AM: min(MaxLongRequest, pipeline/2) */
  size_t get_chunk;        /* bytes per Long get reply: min(MaxLongReply, pipeline/2) */
  volatile int waitmode;   /* GASNET_WAIT_* */
} gasnete_state_t;
extern gasnete_state_t gasnete_g;

/* The call named fname is a GASNet-1 one: its messages use GASNet-1's words
 * (node, handle) rather than GASNet-EX's (rank, event). */
#define GASNETE_IS_GASNET1(fname) (strncmp((fname), "gasnet_", 7) == 0)

/* Print "GASNet error: <msg> (on node N of M)" and end the job (spec 3:
 * errors in the extended API are fatal). */
void gasnete_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2), cold));

/* ---- the other end of a point-to-point operation -------------------------
 * The EP that (tm, rank) names: its job rank and index, the TM-pair its AMs
 * go through (this process's EP to it), its segment as known here, and
 * where that is mapped here. A team names primordial EPs; a TM-pair may
 * name any (core/gasnetc_ep.c). */
typedef struct {
  gasnet_node_t node;
  unsigned index;
  gex_TM_t pair;
  gasnet_seginfo_t seg;    /* {NULL, 0}: none known */
  char *local;             /* seg mapped here (a neighbour's), else NULL */
} gasnete_peer_t;

static inline int gasnete_seg_has(const gasnet_seginfo_t *s, const void *addr, size_t n) {
#if defined(GASNET_SEGMENT_EVERYTHING)
  (void)s; (void)addr; (void)n;
  return 1;
#else
  uintptr_t a = (uintptr_t)addr, b = (uintptr_t)s->addr;
  return a >= b && n <= s->size && a - b <= s->size - n;
#endif
}
static inline int gasnete_in_segment(gasnet_node_t node, const void *addr, size_t n) {
  return gasnete_seg_has(&gasnete_g.seg[node], addr, n);
}
/* node's primordial EP. */
static inline void gasnete_peer_node(gasnete_peer_t *p, gasnet_node_t node) {
  p->node = node, p->index = 0, p->pair = gasnete_g.pair;
  p->seg = gasnete_g.seg[node];
  p->local = (char *)gasnete_g.local[node];
}
/* A TM-pair to another EP (gasnete_init.c); fatal, naming fname, unless the
 * local EP has capability caps. */
void gasnete_peer_pair(gasnete_peer_t *p, const char *fname, gex_TM_t tm, gasnet_node_t node,
                       gex_EP_Capabilities_t caps);
/* The peer is this process, or its segment is mapped here: memory copies. */
static inline int gasnete_peer_mapped(const gasnete_peer_t *p) {
  return p->node == gasnete_g.mynode || p->local;
}
/* Where remote address addr of a mapped peer lies in this process. */
static inline char *gasnete_peer_addr(const gasnete_peer_t *p, void *addr) {
  if (p->node == gasnete_g.mynode) return addr;
  return p->local + ((char *)addr - (char *)p->seg.addr);
}
/* [addr, addr+n) lies in the local EP's own segment (where a Long reply
 * may land). */
static inline int gasnete_peer_own_has(const gasnete_peer_t *p, const void *addr, size_t n) {
  if (GASNETE_LIKELY(p->pair == gasnete_g.pair)) return gasnete_in_segment(gasnete_g.mynode, addr, n);
  gasnet_seginfo_t own = gasnetc_tm_own_segment(p->pair);
  return gasnete_seg_has(&own, addr, n);
}

/* Fatal unless attached, the peer exists and [addr, addr+n) is in its
 * segment; what names the address ("destination", "source") in the message. */
void gasnete_check_remote_slow(const char *fname, const gasnete_peer_t *p, const void *addr,
                               size_t n, const char *what) __attribute__((noreturn, cold));
static inline void gasnete_check_remote(const char *fname, const gasnete_peer_t *p,
                                        const void *addr, size_t n, const char *what) {
  if (GASNETE_UNLIKELY(!gasnete_g.attached || !gasnete_seg_has(&p->seg, addr, n)))
    gasnete_check_remote_slow(fname, p, addr, n, what);
}

/* ---- the pipeline window (gasnete_putget.c, gasnete_vis.c) ----------------
 * Before another len bytes go out on counter c, wait until they fit in
 * GASNET_EXT_PIPELINE_BYTES with what c has in flight (always admit one
 * message on an idle counter). This bounds what a large transfer, or a
 * stream of nbi operations, queues in the transport, while keeping chunks
 * back to back: a chunk leaves as soon as an older one is acknowledged,
 * never one round trip at a time. */
static inline int gasnete_window_fits(gasnete_counter_t *c, size_t len) {
  size_t inflight = GASNETE_BYTES_LOAD(c);
  return inflight == 0 || inflight + len <= gasnete_g.pipeline_bytes;
}
/* Wait for room, or with immediate say 1 (no room now). */
static inline int gasnete_window_wait(gasnete_counter_t *c, size_t len, int immediate) {
  if (GASNETE_LIKELY(gasnete_window_fits(c, len))) return 0;
  if (immediate) return 1;
  GASNETE_WAIT_UNTIL(gasnete_window_fits(c, len));
  return 0;
}
/* Count one request on c before sending it (its reply may run at once);
 * take the count back when GEX_FLAG_IMMEDIATE refused it. */
static inline void gasnete_count(gasnete_counter_t *c, size_t len) {
  GASNETE_BYTES_ADD(c, len);
  GASNETE_CTR_ADD(c, 1);
}
static inline void gasnete_uncount(gasnete_counter_t *c, size_t len) {
  GASNETE_BYTES_SUB(c, len);
  GASNETE_CTR_SUB1(c);
}

/* Where the calling thread counts an NBI operation: its open access
 * region, else its gets or its puts (memset is a put, spec 1.8 3.3.4.1). */
static inline gasnete_counter_t *gasnete_nbi_counter(int isget) {
  gasnete_threaddata_t *td = gasnete_mythread();
  if (td->region) return &td->region->ctr;
  return isget ? &td->nbi_gets : &td->nbi_puts;
}

/* The job rank of (tm, rank) for the call fname, attached (fatal, naming
 * the call, when not attached or the rank does not exist). */
static inline gasnet_node_t gasnete_tm_node(const char *fname, gex_TM_t tm, gex_Rank_t rank) {
  if (GASNETE_UNLIKELY(!gasnete_g.attached)) gasnetc_not_ready(fname, 1);
  gex_Rank_t node = gasnetc_tm_rank_fast(tm, rank, gasnete_g.nodes);
  if (GASNETE_LIKELY(node != GEX_RANK_INVALID)) return node;
  if (GASNETE_IS_GASNET1(fname)) /* in GASNet-1's words */
    gasnete_fatal("%s: node %u does not exist (the job has %u nodes)", fname, (unsigned)rank,
                  (unsigned)gasnete_g.nodes);
  return gasnetc_tm_jobrank(tm, rank, fname);
}

/* The peer (tm, rank) names for the call fname, attached; caps: what the
 * call needs of the local EP (a team's, primordial, has everything). */
static inline void gasnete_peer(gasnete_peer_t *p, const char *fname, gex_TM_t tm,
                                gex_Rank_t rank, gex_EP_Capabilities_t caps) {
  gasnet_node_t node = gasnete_tm_node(fname, tm, rank);
  if (GASNETE_LIKELY(!((uintptr_t)tm & GASNETC_TM_PAIR_BIT) || tm == gasnete_g.pair))
    gasnete_peer_node(p, node);
  else
    gasnete_peer_pair(p, fname, tm, node, caps);
}

/* ---- transfers (gasnete_putget.c) ---------------------------------------- */
/* Start the AMs of one operation, counted in c; node != mynode, nbytes > 0,
 * arguments already checked. May poll (and so run handlers) while the
 * operation has pipeline_bytes in flight. immediate (GEX_FLAG_IMMEDIATE):
 * return 1 with nothing sent when the first AM would have to wait for room
 * (the window or the transport); once one AM is out the rest follow, as an
 * operation that has begun must finish. Otherwise 0. */
int gasnete_put_start(gasnete_counter_t *c, const gasnete_peer_t *p, void *dest,
                      const void *src, size_t nbytes, int immediate, int borrow);
int gasnete_get_start(gasnete_counter_t *c, void *dest, const gasnete_peer_t *p, void *src,
                      size_t nbytes, int immediate);
int gasnete_memset_start(gasnete_counter_t *c, const gasnete_peer_t *p, void *dest, int val,
                         size_t nbytes, int immediate);

/* ---- copies in memory a neighbour shares (gasnete_rma.c) -------------------
 * A put, get or memset to this process or to a neighbour whose segment is
 * mapped here, and each piece of a VIS one, is a copy in memory another
 * process may read or write at the same moment. These store each byte of
 * dst exactly once, an aligned 2, 4 or 8 bytes in one access, up to
 * GASNETE_ONCE_MAX bytes (see gasnete_rma.c for why memmove will not do);
 * longer, or overlapping in this process, they are memmove/memset. */
#define GASNETE_ONCE_MAX 256
void gasnete_copy_once(void *dst, const void *src, size_t n);
void gasnete_set_once(void *dst, int val, size_t n);

/* ---- GASNet-EX RMA with the caller's name (gasnete_rma.c) ------------------
 * gex_RMA_* are these with their own names; the GASNet-1 calls
 * (gasnete_gasnet1.c) are these with theirs, so an error names the call the
 * client made. op is GASNETE_OP_*; local is a put's source or a get's
 * destination, remote the other end; val is memset's byte. */
enum { GASNETE_OP_PUT, GASNETE_OP_GET, GASNETE_OP_MEMSET };
int gasnete_rma_blocking(const char *fname, int op, gex_TM_t tm, gex_Rank_t rank,
                         void *local, void *remote, int val, size_t nbytes, gex_Flags_t flags);
gex_Event_t gasnete_rma_nb(const char *fname, int op, gex_TM_t tm, gex_Rank_t rank, void *local,
                           void *remote, int val, size_t nbytes, gex_Event_t *lc_opt,
                           gex_Flags_t flags);
int gasnete_rma_nbi(const char *fname, int op, gex_TM_t tm, gex_Rank_t rank, void *local,
                    void *remote, int val, size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);
/* Value operations (spec 1.8 3.4.1.1: the 8*nbytes low-order bits, in this
 * host's byte order). Fatal unless 0 < nbytes <= SIZEOF_GEX_RMA_VALUE_T. */
void gasnete_val_check(const char *fname, size_t nbytes);
void gasnete_val_to_bytes(void *p, gex_RMA_Value_t v, size_t n);
gex_RMA_Value_t gasnete_val_from_bytes(const void *p, size_t n);

/* ---- events, NBI with the caller's name (gasnete_event.c) ----------------- */
int gasnete_event_test(const char *fname, gex_Event_t ev);
void gasnete_event_wait(const char *fname, gex_Event_t ev);
int gasnete_event_test_some(const char *fname, gex_Event_t *evs, size_t n);
void gasnete_event_wait_some(const char *fname, gex_Event_t *evs, size_t n);
int gasnete_event_test_all(const char *fname, gex_Event_t *evs, size_t n);
void gasnete_event_wait_all(const char *fname, gex_Event_t *evs, size_t n);
int gasnete_nbi_test(const char *fname, gex_EC_t mask);
void gasnete_nbi_wait(const char *fname, gex_EC_t mask);
void gasnete_region_begin(const char *fname);
gex_Event_t gasnete_region_end(const char *fname);

/* ---- what the core calls (strong references in core/) -------------------- */
/* What the extended API gives the core (listed by conduit/<name>.c). */
extern const gasnetc_extension_t gasnete_extension;
void gasnete_barrier_attach(void); /* gasnete_barrier.c: team 0's barrier */
/* A team's barrier and collectives state, made before any member may send
 * it a message; freed once every operation on it is complete here. */
void gasnete_barrier_team_init(gasnetc_team_t *tm);
void gasnete_barrier_team_fini(gasnetc_team_t *tm);
void gasnete_coll_team_init(gasnetc_team_t *tm);
void gasnete_coll_team_fini(gasnetc_team_t *tm);
/* The primordial team's id in collective AMs (gasnetc_team_t.id). */
#define GASNETE_TEAM_ALL_ID 0

/* ---- handlers (the table is in gasnete_init.c) ---------------------------- */
typedef gasnet_handlerarg_t gasnete_arg_t;
void gasnete_put_req_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                             gasnete_arg_t clo);
void gasnete_ack_handler(gasnet_token_t t, gasnete_arg_t chi, gasnete_arg_t clo,
                         gasnete_arg_t nbytes);
void gasnete_get_req_handler(gasnet_token_t t, gasnete_arg_t shi, gasnete_arg_t slo,
                             gasnete_arg_t n, gasnete_arg_t dhi, gasnete_arg_t dlo,
                             gasnete_arg_t chi, gasnete_arg_t clo, gasnete_arg_t uselong);
void gasnete_get_rep_med_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t dhi,
                                 gasnete_arg_t dlo, gasnete_arg_t chi, gasnete_arg_t clo);
void gasnete_get_rep_long_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                                  gasnete_arg_t clo);
void gasnete_memset_req_handler(gasnet_token_t t, gasnete_arg_t dhi, gasnete_arg_t dlo,
                                gasnete_arg_t val, gasnete_arg_t nhi, gasnete_arg_t nlo,
                                gasnete_arg_t chi, gasnete_arg_t clo);
void gasnete_barrier_handler(gasnet_token_t t, gasnete_arg_t team, gasnete_arg_t phase,
                             gasnete_arg_t what, gasnete_arg_t idx, gasnete_arg_t kind,
                             gasnete_arg_t id);
void gasnete_barrier_again_handler(gasnet_token_t t, gasnete_arg_t team, gasnete_arg_t phase,
                                   gasnete_arg_t what, gasnete_arg_t idx, gasnete_arg_t kind,
                                   gasnete_arg_t id);
void gasnete_barrier_pull_handler(gasnet_token_t t, gasnete_arg_t team, gasnete_arg_t phase,
                                  gasnete_arg_t what, gasnete_arg_t idx);
/* Send, as frames, what peers may still wait for (gasnetc_extension_t.exit). */
void gasnete_barrier_exit(void);
void gasnete_coll_data_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t team,
                               gasnete_arg_t seq, gasnete_arg_t stage, gasnete_arg_t from,
                               gasnete_arg_t thi, gasnete_arg_t tlo, gasnete_arg_t ohi,
                               gasnete_arg_t olo);
void gasnete_vis_put_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                             gasnete_arg_t clo);
void gasnete_vis_get_req_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                                 gasnete_arg_t clo);
void gasnete_vis_get_rep_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t chi,
                                 gasnete_arg_t clo);
void gasnete_vis_pc_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t handler,
                            gasnete_arg_t chi, gasnete_arg_t clo);
void gasnete_ratomic_req_handler(gasnet_token_t t, gasnete_arg_t ahi, gasnete_arg_t alo,
                                 gasnete_arg_t o1hi, gasnete_arg_t o1lo, gasnete_arg_t o2hi,
                                 gasnete_arg_t o2lo, gasnete_arg_t code, gasnete_arg_t chi,
                                 gasnete_arg_t clo, gasnete_arg_t rhi, gasnete_arg_t rlo);
void gasnete_ratomic_rep_handler(gasnet_token_t t, gasnete_arg_t vhi, gasnete_arg_t vlo,
                                 gasnete_arg_t rhi, gasnete_arg_t rlo, gasnete_arg_t chi,
                                 gasnete_arg_t clo, gasnete_arg_t size);

#endif /* GASNETE_INTERNAL_H */
