/*
 * ptli.h - the Portals implementation's internal state (portals/).
 *
 * One network interface (PTL_IFACE_DEFAULT) per process, ptli_ni. Its
 * objects (match entries, memory descriptors, event queues) live in tables
 * of fixed size (the limits, docs/portals.md); a handle names the kind,
 * the interface, the slot and the slot's generation, so a stale handle is
 * refused rather than followed.
 *
 * Locking (spec "Multi-threaded Applications": every call but PtlEQWait
 * atomic with respect to other threads and to incoming operations): one
 * mutex per interface, ni->lock, held by every call and by the processing
 * of every incoming message, and never held across a transport call
 * (a transport's deliver callback takes it). Sends, and the acks and
 * replies an incoming request produces, are made after it is released.
 *
 * Layers below: the transports (core/transport.h: amudp or amtcp between
 * hosts, amshm within a host) and the bootstrap (bootstrap/boot.h); no GASNet
 * core call.
 */
#ifndef PTLI_H
#define PTLI_H

#include <pthread.h>
#include <stdint.h>

#include "portals3.h"
#include "ptli_wire.h"
#include "transport.h"

/* Limits (ptl_ni_limits_t, and the match list's length). */
#define PTLI_MAX_ME 16384
#define PTLI_MAX_MD 16384
#define PTLI_MAX_EQ 256
#define PTLI_MAX_AC_INDEX 63
#define PTLI_MAX_PT_INDEX 63
#define PTLI_MAX_ML 4096          /* entries of one match list (PTL_ML_TOOLONG) */
#define PTLI_MAX_EQ_COUNT (1u << 22) /* events one queue may hold */
#define PTLI_NTP 2                /* transports: 0 network, 1 shared memory */

/* Handles: kind (4 bits), interface (4), generation (24), slot (32). */
enum { PTLI_K_NI = 1, PTLI_K_EQ = 2, PTLI_K_MD = 3, PTLI_K_ME = 4 };
#define PTLI_GEN_MASK 0xffffffu
static inline ptl_handle_any_t ptli_handle(unsigned kind, uint32_t gen, uint32_t slot) {
  return (uint64_t)kind << 60 | (uint64_t)(gen & PTLI_GEN_MASK) << 32 | slot;
}
static inline unsigned ptli_h_kind(ptl_handle_any_t h) { return (unsigned)(h >> 60); }
static inline unsigned ptli_h_iface(ptl_handle_any_t h) { return (unsigned)(h >> 56) & 15u; }
static inline uint32_t ptli_h_gen(ptl_handle_any_t h) { return (uint32_t)(h >> 32) & PTLI_GEN_MASK; }
static inline uint32_t ptli_h_slot(ptl_handle_any_t h) { return (uint32_t)h; }

typedef struct ptli_me {
  uint32_t gen, used;
  int32_t prev, next, md, nextfree;
  uint32_t portal;
  ptl_process_id_t matchid;
  ptl_match_bits_t bits, ignore;
  ptl_unlink_t unlink; /* unlinked with its MD */
} ptli_me_t;

typedef struct ptli_md {
  uint32_t gen, used;
  int32_t me, nextfree; /* me: -1 for a free-floating (bound) MD */
  ptl_md_t d;
  ptl_size_t loff;      /* the local offset */
  uint32_t pending;     /* sends still reading it, gets awaiting their reply */
  uint32_t landing;     /* frames a transport writes into its memory now (place) */
  ptl_unlink_t unlink_op, unlink_nofit;
} ptli_md_t;

typedef struct ptli_eq {
  uint32_t gen, used;
  int32_t nextfree;
  ptl_event_t *ev;
  uint8_t *gap_before; /* per slot: events were dropped just before this one */
  uint64_t cap, head, count;
  ptl_seq_t seq;       /* sequence of the last event logged or dropped */
  int gap;             /* an event was dropped since the last one stored */
  uint64_t tk_next, tk_serve; /* PtlEQWait's FIFO tickets */
  uint32_t waiters;
  pthread_cond_t cond;
} ptli_eq_t;

typedef struct ptli_pt { int32_t head, tail; uint32_t len; } ptli_pt_t;

typedef struct ptli_ac {
  int used;
  ptl_process_id_t id;
  ptl_uid_t uid;
  ptl_pt_index_t portal;
} ptli_ac_t;

/* A request that came before one it must follow (ptli_net.c). */
typedef struct ptli_held {
  struct ptli_held *next;
  uint32_t seq;
  ptli_msg_t m;
  size_t len;
  unsigned char data[];
} ptli_held_t;

/* A put longer than one frame, at its target: the frames after the first
 * (ptli_match.c). */
typedef struct ptli_cont {
  int active, drop;        /* more frames to come; drop: the first was refused */
  ptl_size_t rlength, got; /* bytes of the operation, and come so far */
  ptl_handle_md_t md;
  ptl_size_t off, mlen;    /* where the operation goes in the MD, and how much */
  ptl_event_t ev;          /* PUT_END, logged with the last frame */
  ptli_msg_t ack;          /* the ack, sent after the last frame */
  int ack_send, unlink;
} ptli_cont_t;

/* A reply in several frames, at the initiator (ptli_move.c). */
typedef struct ptli_rx {
  struct ptli_rx *next;
  uint32_t src, seq;
  ptl_size_t got;
} ptli_rx_t;

typedef struct ptli_peer {
  ptl_process_id_t id;
  ptl_uid_t uid;
  uint8_t tp;            /* transport serving it; PTLI_NTP for this process */
  uint8_t dist;          /* PtlNIDist */
  uint32_t send_seq;     /* next request sequence to it (atomic) */
  uint32_t recv_seq;     /* next request sequence expected from it (lock) */
  ptli_held_t *held;     /* early requests from it, by seq (lock) */
  ptli_cont_t cont;      /* its put in several frames, or placed (lock) */
  struct {               /* a put frame whose data a transport lands in place */
    int active;          /* place() took request recv_seq; its delivery ends it */
    int landing;         /* ... into md's memory (md->landing counts it) */
    ptl_handle_md_t md;
  } placed;              /* (lock) */
} ptli_peer_t;

typedef struct ptli_ni {
  pthread_mutex_t lock;
  int refs, live;
  uint32_t gen;            /* of the NI handle */
  uint32_t rank, size;
  ptl_process_id_t id;
  ptl_uid_t uid;
  ptli_peer_t *peers;
  uint32_t *by_id;         /* ranks sorted by (nid, pid) */
  ptli_me_t me[PTLI_MAX_ME];
  ptli_md_t md[PTLI_MAX_MD];
  ptli_eq_t eq[PTLI_MAX_EQ];
  int32_t me_free, md_free, eq_free;
  int nme, nmd, neq;
  ptli_pt_t pt[PTLI_MAX_PT_INDEX + 1];
  ptli_ac_t ac[PTLI_MAX_AC_INDEX + 1];
  ptl_seq_t link_next;
  ptl_sr_value_t drops, malformed;
  ptli_rx_t *rx;           /* replies in several frames, in progress (lock) */
  /* transports and progress (ptli_net.c) */
  const gasnetc_transport_ops_t *ops[PTLI_NTP];
  gasnetc_transport_t *tp[PTLI_NTP];
  size_t max_msg;
  int epfd, wakefd;
  pthread_t progress;
  int progress_on;
  volatile int stop;
  /* waiting (ptli_net.c, "Progress and waiting") */
  uint64_t spin_ns;        /* GASNET_SPIN_USEC */
  int polite;              /* more ranks on this kernel than CPUs: yield at each empty poll */
  uint32_t spinners;       /* threads polling in PtlEQWait (atomic) */
  int parked;              /* the progress thread waits on park_cond (atomic) */
  int kicked;              /* wakefd was written (atomic) */
  int sleeping;            /* the progress thread is in ptli_sleep (atomic) */
  uint32_t serves[PTLI_NTP]; /* peers each transport serves (0: not polled) */
  uint32_t inflight;       /* sends of ours not yet done (ptli_busy; atomic) */
  uint64_t arriving_ns;    /* when a large frame last began arriving (atomic) */
  struct ptli_op *spare_op; /* a freed send record, for the next (atomic) */
  pthread_mutex_t park_lock;
  pthread_cond_t park_cond;
  ptl_sr_value_t sleep_timeouts; /* PTL_SR_SLEEP_TIMEOUT_COUNT (atomic) */
} ptli_ni_t;

extern ptli_ni_t ptli_ni;
extern int ptli_inited;
extern const gasnetc_transport_ops_t *const ptli_net_ops; /* ptli_udp.c / ptli_tcp.c */

/* ptli_init.c */
ptli_ni_t *ptli_ni_of(ptl_handle_any_t h); /* the live NI of a handle, or NULL */
int ptli_rank_of(ptli_ni_t *ni, ptl_process_id_t id); /* -1 if none */
ptl_seq_t ptli_link(ptli_ni_t *ni);

/* ptli_obj.c: lookups (lock held); NULL for a stale or foreign handle */
ptli_me_t *ptli_me_get(ptli_ni_t *ni, ptl_handle_me_t h);
ptli_md_t *ptli_md_get(ptli_ni_t *ni, ptl_handle_md_t h);
ptl_handle_md_t ptli_md_handle(ptli_ni_t *ni, ptli_md_t *md);
void ptli_md_free(ptli_ni_t *ni, ptli_md_t *md);
void ptli_md_unlink(ptli_ni_t *ni, ptli_md_t *md); /* and its ME if PTL_UNLINK */
int ptli_md_check(ptli_ni_t *ni, const ptl_md_t *d);
void ptli_objects_reset(ptli_ni_t *ni);

/* ptli_eq.c */
ptli_eq_t *ptli_eq_get(ptli_ni_t *ni, ptl_handle_eq_t h);
void ptli_eq_post(ptli_ni_t *ni, ptl_handle_eq_t h, ptl_event_t *ev); /* lock held */
int ptli_eq_full(ptli_ni_t *ni, ptl_handle_eq_t h);
void ptli_eq_free_all(ptli_ni_t *ni);

/* A send whose end is logged (ptli_move.c, ptli_match.c). */
typedef struct ptli_op {   /* what to log when a send no longer reads memory */
  int parts;               /* frames still to leave (a send in several frames) */
  int rc;                  /* the first error of any of them */
  ptl_handle_md_t md;
  ptl_handle_eq_t eq;
  ptl_event_t ev;          /* SEND_END or GET_END */
  int unlinked;            /* then an UNLINK event after it */
} ptli_op_t;

/* ptli_match.c: an incoming put or get, in order (lock held). Fills *out
 * with the ack or reply to send once the lock is released. */
typedef struct ptli_out {
  int send;                /* 0: nothing */
  uint32_t dest;
  ptli_msg_t m;
  const void *data;        /* reply data (the MD's memory) */
  ptli_op_t *op;           /* completion to run once the reply is sent */
  ptli_op_t op_store;
} ptli_out_t;
void ptli_request(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, const void *data,
                  size_t paylen, ptli_out_t *out);
/* Placing (the transports' place(), ptli_net.c; lock held): where the
 * payload of put frame m (the next request of src) lands, or NULL. A first
 * frame is matched now (the operation starts), its data and end come with
 * its delivery (ptli_placed_frame). */
void *ptli_put_place(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, size_t paylen);
void ptli_placed_frame(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, const void *data,
                       size_t paylen, ptli_out_t *out);
/* May data land in md's memory in place? Only an MD that is never unlinked
 * automatically (unlink_op and unlink_nofit PTL_RETAIN, or bound): then
 * nothing but its owner's calls can end it, and those are refused while
 * data lands (PTL_MD_INUSE, PTL_NOUPDATE). */
int ptli_md_placeable(const ptli_md_t *md);

/* ptli_move.c */
void ptli_op_done(ptli_ni_t *ni, ptli_op_t *op, int rc);
void ptli_on_ack(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m);
void ptli_on_reply(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, const void *data,
                   size_t paylen);
void ptli_event_fill(ptli_ni_t *ni, ptl_event_t *ev, ptl_event_kind_t type, ptli_md_t *md);
void *ptli_reply_place(ptli_ni_t *ni, uint32_t src, const ptli_msg_t *m, size_t paylen);

/* ptli_net.c */
int ptli_net_open(ptli_ni_t *ni, ptl_pid_t want_pid);
void ptli_net_close(ptli_ni_t *ni);
/* Send one message to rank dest, in as many frames as its data needs
 * (ptli_wire.h): 0 (op completed, or to be once every frame has left), or
 * -errno (op completed with the error). reply: an ack or a reply (never
 * refused; a request takes the next sequence numbers, one per frame). */
int ptli_send(ptli_ni_t *ni, uint32_t dest, ptli_msg_t *m, const void *data, size_t len,
              int reply, ptli_op_t *op);
void ptli_poll_once(ptli_ni_t *ni);
/* PtlEQWait's spin: polls the transports itself for spin_ns of finding
 * nothing, while the progress thread stands aside. */
typedef struct ptli_spin {
  uint64_t idle_since, yield_at;
  int on, fresh;  /* fresh: a frame came, time the spin anew at the next empty poll */
  unsigned skip;  /* empty polls before the clock is read again */
} ptli_spin_t;
void ptli_spin_start(ptli_ni_t *ni, ptli_spin_t *s);
int ptli_spin_step(ptli_ni_t *ni, ptli_spin_t *s); /* 0: the spin is over (stopped) */
void ptli_spin_stop(ptli_ni_t *ni, ptli_spin_t *s, int to_sleep);

#endif /* PTLI_H */
