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
#include "gasnetc_wire.h"

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
  uint8_t is_request; /* a request handler may reply, once */
  uint8_t replied;
};

/* Per-thread context (spec 2.4: the no-interrupt state is per thread). */
typedef struct {
  struct gasnetc_token *token; /* innermost running handler's, else NULL */
  int nis;                     /* inside gasnet_hold_interrupts() */
  int hsl_depth;               /* HSLs held by this thread */
  int in_callback;             /* inside a transport callback */
} gasnetc_thread_t;
extern GASNETC_TLS gasnetc_thread_t gasnetc_thread;

/* Process-wide state, written during init/attach (one thread), read after. */
typedef struct {
  int inited, attached;
  /* The set-up call that failed ("gasnet_init", "gasnet_attach") and why;
   * failed_call is NULL while none has failed. */
  const char *failed_call;
  char failure[256];
  gasnet_node_t mynode, nodes;
  const gasnetc_transport_ops_t *ops;
  gasnetc_transport_t *transport;
  size_t max_payload;

  /* Segments (gasnetc_segment.c). */
  uintptr_t max_local_seg, max_global_seg;
  gasnet_seginfo_t *seg;      /* [nodes] */
  /* Handler tables: which indexes each node registered (bit i of byte i/8). */
  uint8_t (*registered)[32];  /* [nodes][32] */

  /* Tunables, read once in gasnet_init (GASNET_* environment). */
  uint64_t spin_ns;           /* GASNET_SPIN_USEC */
  const char *statsfile;      /* GASNET_STATSFILE */
  const char *network;        /* GASNET_NETWORK: interface, subnet or address */

  /* This host (gasnetc_host.c): nodes on it, CPUs they may run on, and
   * whether a blocked thread yields the CPU while it spins. */
  unsigned host_nodes, host_cpus;
  int polite;                 /* host_nodes > host_cpus */
  /* gasnet_getNodeInfo: each node's host, numbered 0.. in order of each
   * host's lowest node (a host: one kernel and one network namespace). */
  gasnet_node_t *host_of;     /* [nodes] */

  /* Exit (gasnetc_init.c). */
  volatile int exiting;       /* this process is in its exit path */
  volatile int remote_exit;   /* another node called gasnet_exit ... */
  volatile int remote_code;   /* ... with this code */
  uint64_t remote_exit_ns;    /* ... learnt then (gasnetc_now_ns) */
} gasnetc_state_t;
extern gasnetc_state_t gasnetc_g;

/* The transport this library was assembled with (core/conduit_<name>.c). */
extern const gasnetc_transport_ops_t *const gasnetc_conduit_ops;

/* ---- errors (gasnetc_errors.c) ---------------------------------------- */
/* Print "GASNet error: <msg>" and end the whole job with a non-zero code. */
void gasnetc_fatal(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
/* gasnet_init or gasnet_attach cannot go on: print "GASNet: CALL: reason",
 * remember both (a later call then says that CALL failed and why, instead
 * of "called before CALL") and return rc, the error code CALL returns. */
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
/* What each node tells the others at gasnet_init about its host. */
typedef struct {
  uint8_t id[16];     /* the kernel's boot id: equal ids share the CPUs */
  uint64_t netns;     /* inode of the network namespace: with id, the host */
  uint8_t cpus[128];  /* the CPUs this node may run on (a cpu_set_t) */
} gasnetc_host_rec_t;
void gasnetc_host_rec(gasnetc_host_rec_t *mine);
int gasnetc_same_host(const gasnetc_host_rec_t *a, const gasnetc_host_rec_t *b);

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
 * host_cpus, polite and host_of. */
void gasnetc_host_learn(const gasnetc_host_rec_t *mine, const void *all, size_t stride);

/* ---- statistics (gasnetc_stats.c) -------------------------------------- */
#define GASNETC_STATS(X)                                              \
  X(requests_sent) X(replies_sent) X(loopback_msgs) X(payload_bytes_sent) \
  X(requests_handled) X(replies_handled) X(payload_bytes_received)     \
  X(medium_realigned) X(long_copied) X(polls) X(waits)
enum {
#define GASNETC_STAT_ENUM(name) GASNETC_STAT_##name,
  GASNETC_STATS(GASNETC_STAT_ENUM)
#undef GASNETC_STAT_ENUM
  GASNETC_STAT_COUNT
};
extern uint64_t gasnetc_stats[GASNETC_STAT_COUNT];
#define GASNETC_STAT_ADD(name, n) \
  ((void)GASNETC_ATOMIC_ADD(&gasnetc_stats[GASNETC_STAT_##name], (uint64_t)(n)))
/* Write this rank's counters if GASNET_STATSFILE is set. */
void gasnetc_stats_write(void);

/* ---- segments (gasnetc_segment.c) -------------------------------------- */
uintptr_t gasnetc_segment_max_from_env(const char *value);
int gasnetc_segment_attach(uintptr_t segsize, uintptr_t minheapoffset,
                           gasnet_seginfo_t *mine);
/* 1 when [addr, addr+n) lies in node's segment (always in EVERYTHING). */
int gasnetc_segment_contains(gasnet_node_t node, const void *addr, size_t n);
/* Name node's segment in a message: "[0x...,0x...)". */
void gasnetc_segment_format(gasnet_node_t node, char *buf, size_t len);

/* ---- handlers (gasnetc_handler.c) -------------------------------------- */
typedef void (*gasnetc_handler_fn_t)();
/* Fill the table from the client's entries and the reserved ones; 0 or a
 * GASNET_ERR_* after printing the reason (spec 2.1.0.2). */
int gasnetc_handler_register(gasnet_handlerentry_t *table, int numentries);
/* The bitmap of registered indexes this node publishes at attach. */
void gasnetc_handler_bitmap(uint8_t bits[32]);
static inline int gasnetc_handler_registered_on(gasnet_node_t node,
                                                gasnet_handler_t h) {
  return (gasnetc_g.registered[node][h >> 3] >> (h & 7)) & 1;
}
/* Run handler m->handler for a message from src (transport or loopback). */
void gasnetc_handler_run(gasnet_node_t src, const gasnetc_wire_msg_t *m,
                         void *buf, size_t nbytes);
/* Transport callbacks (installed in the transport config at attach). */
void gasnetc_deliver_cb(void *ctx, uint32_t src, const void *hdr,
                        size_t hdrlen, void *payload, size_t paylen);
void *gasnetc_place_cb(void *ctx, uint32_t src, const void *hdr,
                       size_t hdrlen, size_t paylen);
void gasnetc_peer_dead_cb(void *ctx, uint32_t rank, const char *why);

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

/* Monotonic clock, nanoseconds. */
uint64_t gasnetc_now_ns(void);

#endif /* GASNETC_INTERNAL_H */
