/*
 * gasnete_internal.h - state and helpers shared by the files of extended-ref/.
 * Not installed. Compiled three times, with -DGASNET_SEQ, -DGASNET_PARSYNC
 * or -DGASNET_PAR -DGASNETC_THREADS=1. Uses only the public core API
 * (gasnet.h): AMs on the handlers 64..127 below, AMPoll, GASNET_BLOCKUNTIL's
 * step, getSegmentInfo, getenv, exit.
 *
 * Completion model: every operation in flight is counted in a
 * gasnete_counter_t (one per explicit handle, per access region, per
 * thread for nbi puts and for nbi gets, or on the stack of a blocking call).
 * The initiator adds 1 per AM request before sending it; the handler of the
 * matching reply, on whatever thread polls, subtracts 1 through the counter's
 * address carried in the AM arguments. Done = 0 pending. Nothing else is
 * shared between threads, so no lock is taken anywhere in this directory.
 */
#ifndef GASNETE_INTERNAL_H
#define GASNETE_INTERNAL_H

#include <stdint.h>
#include <stddef.h>

#include "gasnet.h"
#include "gasnetc_ext.h" /* teams, gasnetc_extension_t */

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
  GASNETE_H_BARRIER,        /* Short request: team phase round flags id */
  GASNETE_H_COLL_DATA,      /* Medium request: team seq total(2) offset(2): broadcast chunk */
  GASNETE_H_COLL_SYNC,      /* Short request: team seq phase kind: ALLSYNC arrive / release */
};

/* ---- counters -------------------------------------------------------------- */
typedef struct {
  uint32_t pending; /* AM requests whose reply has not been handled */
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

/* ---- handles (gasnete_sync.c) ---------------------------------------------- */
enum { GASNETE_H_FREE = 0x66726565u /* "free" */, GASNETE_H_NB = 0x6e62u, GASNETE_H_REGION = 0x7267u };

struct gasnete_threaddata;
struct gasnete_handle {
  gasnete_counter_t ctr;
  uint32_t state;                    /* GASNETE_H_* */
  struct gasnete_handle *next;       /* free list */
  struct gasnete_threaddata *owner;  /* handles are per thread (spec 3.3.2) */
};

struct gasnete_valget {
  gasnete_counter_t ctr;
  uint32_t state;
  uint32_t nbytes;
  struct gasnete_valget *next;
  struct gasnete_threaddata *owner;
  uint64_t buf; /* the fetched bytes (a Medium reply lands here) */
};

typedef struct gasnete_threaddata {
  gasnete_counter_t nbi_puts, nbi_gets;  /* this thread's implicit ops */
  struct gasnete_handle *region;         /* open access region, else NULL */
  struct gasnete_handle *free_handles;   /* pools, grown in chunks */
  struct gasnete_valget *free_valgets;
} gasnete_threaddata_t;

extern GASNETE_TLS gasnete_threaddata_t *gasnete_td;
gasnete_threaddata_t *gasnete_td_new(void);
static inline gasnete_threaddata_t *gasnete_mythread(void) {
  gasnete_threaddata_t *td = gasnete_td;
  return GASNETE_LIKELY(td != NULL) ? td : gasnete_td_new();
}

struct gasnete_handle *gasnete_handle_new(gasnete_threaddata_t *td, uint32_t state);
void gasnete_handle_free(gasnete_threaddata_t *td, struct gasnete_handle *h);
struct gasnete_valget *gasnete_valget_new(gasnete_threaddata_t *td);
void gasnete_valget_free(gasnete_threaddata_t *td, struct gasnete_valget *v);

/* ---- waiting (gasnete_sync.c): GASNET_BLOCKUNTIL's step, shaped by the
 * wait mode of gasnet_set_waitmode (spec 3.6.2.1). cond may send AMs (the
 * barrier advances its rounds there): it is evaluated outside handlers. */
void gasnete_wait_step(gasnetc_block_t *st);
#define GASNETE_WAIT_UNTIL(cond)                 \
  do {                                           \
    gasnetc_block_t gasnete_st_ = { 0 };         \
    while (!(cond)) gasnete_wait_step(&gasnete_st_); \
  } while (0)

/* ---- process-wide state (gasnete_init.c), written once in gasnete_init ---- */
typedef struct {
  int attached;
  gasnet_node_t mynode, nodes;
  gasnet_seginfo_t *seg;   /* [nodes] */
  size_t pipeline_bytes;   /* GASNET_EXT_PIPELINE_BYTES */
  size_t put_chunk;        /* bytes per put AM: min(MaxLongRequest, pipeline/2) */
  size_t get_chunk;        /* bytes per Long get reply: min(MaxLongReply, pipeline/2) */
  volatile int waitmode;   /* GASNET_WAIT_* */
} gasnete_state_t;
extern gasnete_state_t gasnete_g;

/* Print "GASNet error: <msg> (on node N of M)" and end the job (spec 3:
 * errors in the extended API are fatal). */
void gasnete_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2), cold));

/* Fatal unless attached, node exists and [addr, addr+n) is in its segment;
 * what names the address ("destination", "source") in the message. */
void gasnete_check_remote_slow(const char *fname, gasnet_node_t node, const void *addr,
                               size_t n, const char *what) __attribute__((noreturn, cold));
static inline int gasnete_in_segment(gasnet_node_t node, const void *addr, size_t n) {
#if defined(GASNET_SEGMENT_EVERYTHING)
  (void)node; (void)addr; (void)n;
  return 1;
#else
  uintptr_t a = (uintptr_t)addr, b = (uintptr_t)gasnete_g.seg[node].addr;
  uintptr_t sz = gasnete_g.seg[node].size;
  return a >= b && n <= sz && a - b <= sz - n;
#endif
}
static inline void gasnete_check_remote(const char *fname, gasnet_node_t node,
                                        const void *addr, size_t n, const char *what) {
  if (GASNETE_UNLIKELY(!gasnete_g.attached || node >= gasnete_g.nodes ||
                       !gasnete_in_segment(node, addr, n)))
    gasnete_check_remote_slow(fname, node, addr, n, what);
}

/* ---- transfers (gasnete_putget.c) ---------------------------------------- */
/* Start the AMs of one operation, counted in c; node != mynode, nbytes > 0,
 * arguments already checked. May poll (and so run handlers) while the
 * operation has pipeline_bytes in flight. */
void gasnete_put_start(gasnete_counter_t *c, gasnet_node_t node, void *dest, void *src,
                       size_t nbytes);
void gasnete_get_start(gasnete_counter_t *c, void *dest, gasnet_node_t node, void *src,
                       size_t nbytes);
void gasnete_memset_start(gasnete_counter_t *c, gasnet_node_t node, void *dest, int val,
                          size_t nbytes);

/* ---- what the core calls (strong references in core/) -------------------- */
/* What the extended API gives the core (listed by conduit/<name>.c). */
extern const gasnetc_extension_t gasnete_extension;
void gasnete_barrier_attach(void); /* gasnete_barrier.c: team 0's barrier */
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
                             gasnete_arg_t round, gasnete_arg_t flags, gasnete_arg_t id);
void gasnete_coll_data_handler(gasnet_token_t t, void *buf, size_t n, gasnete_arg_t team,
                               gasnete_arg_t seq, gasnete_arg_t thi, gasnete_arg_t tlo,
                               gasnete_arg_t ohi, gasnete_arg_t olo);
void gasnete_coll_sync_handler(gasnet_token_t t, gasnete_arg_t team, gasnete_arg_t seq,
                               gasnete_arg_t phase, gasnete_arg_t kind);

#endif /* GASNETE_INTERNAL_H */
