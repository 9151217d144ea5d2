/*
 * amshm_ring.h - the shared-memory queue: the layout of a rank's inbound
 * region and the single-producer single-consumer ring of records that
 * carries frames from one rank to another of the same host
 * (docs/transports.md, "The shared-memory transport").
 *
 * A rank's region (one memfd, never a named file) is
 *
 *   page 0                 amshm_region_t: magic, job tag, ring size, the
 *                          count of this rank's threads asleep, the doorbell
 *                          bits
 *   slot s, s = 0..n-1     at amshm_slot_off(s): what rank s sends here:
 *     one page               amshm_slot_t: the control lines of its two
 *                            rings (requests, replies), its BYE flag, the
 *                            owner's CMA flag (direct reads welcome) and
 *                            the copy of a direct-read frame
 *     ring bytes             the request ring
 *     ring bytes             the reply ring
 *
 * The file is sized for every job rank at open (memfd pages are allocated
 * on first touch, so an unused slot costs nothing); a sender maps page 0
 * and its own slot of each peer's region, a receiver the slots of its
 * peers in its own.
 *
 * A ring is a byte ring of `size` (a power of two) with two free-running
 * 64-bit counters, head (bytes published, written by the producer only)
 * and tail (bytes consumed, written by the consumer only), each on a cache
 * line of its own: the producer publishes with a release store of head,
 * the consumer frees with a release store of tail. Records are contiguous
 * in the ring, 16-byte aligned, and never wrap: a record that would cross
 * the end is preceded by a PAD record filling the rest. Byte order is the
 * host's (both ends run on one kernel).
 */
#ifndef AMSHM_RING_H
#define AMSHM_RING_H

#include <stddef.h>
#include <stdint.h>

#define AMSHM_MAGIC 0x314d4853u /* "SHM1" */
#define AMSHM_LINE 64           /* cache line: head, tail, want_space apart */
#define AMSHM_PAGE 4096u

/* A record: this header, then (first fragment only) the core header, then
 * the fragment's payload bytes, padded to 16. The payload of a first
 * record starts 16 + hdrlen bytes after a 16-aligned record, at an address
 * congruent to hdrlen mod 16, as core/transport.h asks. */
enum {
  AMSHM_REC_FIRST = 1u << 0, /* the frame's first fragment: carries the header */
  AMSHM_REC_LAST = 1u << 1,  /* the frame's last fragment */
  AMSHM_REC_PAD = 1u << 2,   /* filler up to the ring's end; skip */
  /* A whole frame (FIRST and LAST) whose payload stays in the sender's
   * memory: after the header comes an amshm_cma_t, not the payload, and
   * the receiver reads the `total` bytes from the sender's address space
   * (process_vm_readv) before it consumes the record. Sent only to a
   * receiver that set the slot's `cma` flag (amshm.c, "Direct reads"). */
  AMSHM_REC_CMA = 1u << 3,
};
typedef struct amshm_rec {
  uint32_t len;     /* bytes of this record in the ring, a multiple of 16 */
  uint16_t flags;   /* AMSHM_REC_* */
  uint16_t hdrlen;  /* core header bytes following (FIRST only) */
  uint32_t fraglen; /* payload bytes in this record */
  uint32_t total;   /* the frame's payload bytes */
} amshm_rec_t;
_Static_assert(sizeof(amshm_rec_t) == 16, "a record header is 16 bytes");

/* The payload part of an AMSHM_REC_CMA record: where the payload lies in
 * the sender's address space. */
typedef struct amshm_cma {
  uint64_t addr;
  uint64_t zero;
} amshm_cma_t;
_Static_assert(sizeof(amshm_cma_t) == 16, "keeps a record's size a multiple of 16");

/* One ring's control lines. want_space: the producer found the ring full
 * and waits for room; the consumer that frees room clears it and wakes the
 * producer (its wake-up pipe). */
typedef struct amshm_ring_ctl {
  uint64_t head;
  uint8_t pad0[AMSHM_LINE - 8];
  uint64_t tail;
  uint8_t pad1[AMSHM_LINE - 8];
  uint32_t want_space;
  uint8_t pad2[AMSHM_LINE - 4];
} amshm_ring_ctl_t;
_Static_assert(sizeof(amshm_ring_ctl_t) == 3 * AMSHM_LINE, "three lines per ring");

enum { AMSHM_REQ = 0, AMSHM_REP = 1 }; /* the two rings of a slot */

/*
 * The copy of an AMSHM_REC_CMA frame, shared out in chunks between the
 * receiver (reading) and its sender (writing, while it waits). The
 * receiver opens a job by writing src, dst, total and chunks, then
 * `ticket` = (generation << 32) | 0; a copier claims chunk i by moving
 * ticket from (g << 32 | i) to (g << 32 | i + 1) with a compare-and-swap,
 * i < chunks, so a claim read from an earlier job (whose fields it may
 * have read half rewritten) fails; and adds 1 to `done` after the copy.
 * The receiver delivers the frame when done == chunks: every byte is in
 * place (or `bad` says one copy failed and it copies the whole again) and
 * no copier writes there any more. Fields are read and written
 * as atomics (relaxed; the ticket and done release and acquire).
 */
typedef struct amshm_cma_job {
  uint64_t ticket;
  uint64_t src, dst;
  uint32_t total, chunks, done;
  uint32_t bad; /* a chunk failed (its errno): the receiver copies the whole again */
  uint8_t pad[AMSHM_LINE - 40];
} amshm_cma_job_t;
_Static_assert(sizeof(amshm_cma_job_t) == AMSHM_LINE, "a job is one line");

typedef struct amshm_slot {
  amshm_ring_ctl_t ring[2];
  uint32_t bye; /* the sender closed normally: its exit is not a death */
  uint32_t cma; /* the receiver can read the sender's memory: AMSHM_REC_CMA welcome */
  uint8_t pad[AMSHM_LINE - 8];
  amshm_cma_job_t job; /* the request ring's AMSHM_REC_CMA frame being copied */
} amshm_slot_t;
_Static_assert(sizeof(amshm_slot_t) <= AMSHM_PAGE, "a slot's control fits a page");

typedef struct amshm_region {
  uint32_t magic, ring, nranks, owner;
  uint8_t tag[16]; /* from the job key: a foreign region is refused */
  uint8_t pad0[AMSHM_LINE - 32];
  uint32_t sleepers; /* the owner's threads about to sleep (idle .. poll) */
  uint8_t pad1[AMSHM_LINE - 4];
  /* The doorbell (neighbourhoods of AMSHM_DOORBELL_PEERS or more, amshm.c):
   * a sender sets the bit of its position in the neighbourhood after it
   * published; the owner takes a word's bits and looks at those peers only. */
  _Alignas(AMSHM_LINE) uint64_t bell[];
} amshm_region_t;
#define AMSHM_BELL_BITS ((AMSHM_PAGE - sizeof(amshm_region_t)) * 8)
_Static_assert(sizeof(amshm_region_t) <= AMSHM_PAGE, "the region header fits a page");

static inline uint64_t amshm_slot_size(uint32_t ring) {
  return AMSHM_PAGE + 2 * (uint64_t)ring;
}
static inline uint64_t amshm_slot_off(uint32_t ring, uint32_t rank) {
  return AMSHM_PAGE + (uint64_t)rank * amshm_slot_size(ring);
}
static inline size_t amshm_align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* One end's view of a ring: its control lines and its bytes. */
typedef struct amshm_ring {
  amshm_ring_ctl_t *ctl;
  uint8_t *data;
  uint32_t size; /* power of two */
} amshm_ring_t;

/*
 * Producer: room for a record of `need` bytes (a multiple of 16) at the
 * head, preceded by a PAD record if it would cross the end. Returns the
 * record's address, or NULL when the ring lacks the room now. The record
 * is published by amshm_ring_publish.
 */
static inline uint8_t *amshm_ring_reserve(amshm_ring_t *r, size_t need, uint64_t *head_p) {
  uint64_t head = __atomic_load_n(&r->ctl->head, __ATOMIC_RELAXED); /* ours alone */
  uint64_t tail = __atomic_load_n(&r->ctl->tail, __ATOMIC_ACQUIRE);
  uint64_t used = head - tail, pos = head & (r->size - 1), contig = r->size - pos;
  if (need <= contig) {
    if (used + need > r->size) return NULL;
  } else {
    if (used + contig + need > r->size) return NULL;
    amshm_rec_t *pad = (amshm_rec_t *)(r->data + pos);
    pad->len = (uint32_t)contig;
    pad->flags = AMSHM_REC_PAD;
    head += contig; /* published with the record */
    pos = 0;
  }
  *head_p = head;
  return r->data + pos;
}
static inline void amshm_ring_publish(amshm_ring_t *r, uint64_t head, size_t len) {
  __atomic_store_n(&r->ctl->head, head + len, __ATOMIC_RELEASE);
}

/* Consumer: the record at the tail, or NULL when the ring is empty.
 * PAD records are skipped here. Freed by amshm_ring_consume. A PAD always
 * fills the ring to its end (amshm_ring_reserve); one that does not is
 * malformed (a len of 0 would loop here forever): it is returned, PAD flag
 * and all, for the caller to refuse like any bad record. */
static inline const amshm_rec_t *amshm_ring_peek(amshm_ring_t *r) {
  for (;;) {
    uint64_t tail = __atomic_load_n(&r->ctl->tail, __ATOMIC_RELAXED); /* ours alone */
    if (__atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE) == tail) return NULL;
    uint64_t pos = tail & (r->size - 1);
    const amshm_rec_t *rec = (const amshm_rec_t *)(r->data + pos);
    if (!(rec->flags & AMSHM_REC_PAD) || rec->len != r->size - pos) return rec;
    __atomic_store_n(&r->ctl->tail, tail + rec->len, __ATOMIC_RELEASE);
  }
}
static inline void amshm_ring_consume(amshm_ring_t *r, const amshm_rec_t *rec) {
  __atomic_store_n(&r->ctl->tail, __atomic_load_n(&r->ctl->tail, __ATOMIC_RELAXED) + rec->len,
                   __ATOMIC_RELEASE);
}
static inline int amshm_ring_empty(const amshm_ring_t *r) {
  return __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE) ==
         __atomic_load_n(&r->ctl->tail, __ATOMIC_RELAXED);
}

#endif /* AMSHM_RING_H */
