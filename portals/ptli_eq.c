/*
 * ptli_eq.c - event queues (spec "Events and Event Queues"): PtlEQAlloc,
 * PtlEQFree, PtlEQGet, PtlEQWait, and ptli_eq_post, which logs an event.
 *
 * A queue is a ring of `count` events. An event that finds it full is
 * dropped (its sequence number is used up all the same), and the next
 * event stored carries the mark that makes PtlEQGet / PtlEQWait return
 * PTL_EQ_DROPPED for it: at least one event between it and the one
 * obtained before was lost. The `sequence` member is written last, after a
 * release fence (the spec's rule for SMP readers).
 *
 * PtlEQWait, the one blocking call, serves its waiters in FIFO order (a
 * ticket each): exactly one waiter gets each event. PtlEQGet returns
 * PTL_EQ_EMPTY while a thread waits on the queue, as the spec allows.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptli.h"

ptli_eq_t *ptli_eq_get(ptli_ni_t *ni, ptl_handle_eq_t h) {
  uint32_t s = ptli_h_slot(h);
  if (ptli_h_kind(h) != PTLI_K_EQ || ptli_h_iface(h) || s >= PTLI_MAX_EQ) return NULL;
  ptli_eq_t *eq = &ni->eq[s];
  return eq->used && eq->gen == ptli_h_gen(h) ? eq : NULL;
}

int ptli_eq_full(ptli_ni_t *ni, ptl_handle_eq_t h) {
  ptli_eq_t *eq = ptli_eq_get(ni, h);
  return !eq || eq->count == eq->cap;
}

void ptli_eq_post(ptli_ni_t *ni, ptl_handle_eq_t h, ptl_event_t *ev) {
  ptli_eq_t *eq = ptli_eq_get(ni, h);
  if (!eq) return; /* no queue (PTL_EQ_NONE), or freed: not logged */
  ptl_seq_t seq = ++eq->seq;
  if (eq->count == eq->cap) {
    eq->gap = 1;
    return;
  }
  uint64_t at = (eq->head + eq->count) % eq->cap;
  ptl_event_t *e = &eq->ev[at];
  memcpy(e, ev, offsetof(ptl_event_t, sequence));
  eq->gap_before[at] = (uint8_t)eq->gap;
  eq->gap = 0;
  __atomic_thread_fence(__ATOMIC_RELEASE);
  e->sequence = seq;
  __atomic_store_n(&eq->count, eq->count + 1, __ATOMIC_RELEASE); /* a spinning waiter peeks */
  pthread_cond_broadcast(&eq->cond);
}

/* Take the oldest event (lock held, count > 0). */
static int ptli_eq_take(ptli_eq_t *eq, ptl_event_t *out) {
  uint64_t at = eq->head;
  memcpy(out, &eq->ev[at], sizeof *out);
  int dropped = eq->gap_before[at];
  eq->head = (eq->head + 1) % eq->cap;
  __atomic_store_n(&eq->count, eq->count - 1, __ATOMIC_RELAXED);
  return dropped ? PTL_EQ_DROPPED : PTL_OK;
}

static int ptli_eq_slot(ptli_ni_t *ni, ptl_size_t count) {
  if (ni->eq_free < 0) return -1;
  int32_t i = ni->eq_free;
  ptli_eq_t *eq = &ni->eq[i];
  eq->ev = calloc(count, sizeof *eq->ev);
  eq->gap_before = calloc(count, 1);
  if (!eq->ev || !eq->gap_before) {
    free(eq->ev);
    free(eq->gap_before);
    eq->ev = NULL;
    eq->gap_before = NULL;
    return -1;
  }
  ni->eq_free = eq->nextfree;
  return i;
}

int PtlEQAlloc(ptl_handle_ni_t interface, ptl_size_t count, ptl_handle_eq_t *handle) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(interface);
  if (!ni || ptli_h_kind(interface) != PTLI_K_NI) return PTL_INV_NI;
  if (!handle) return PTL_SEGV;
  if (count == 0 || count > PTLI_MAX_EQ_COUNT) return PTL_NOSPACE;
  pthread_mutex_lock(&ni->lock);
  int i = ptli_eq_slot(ni, count);
  if (i >= 0) {
    ptli_eq_t *eq = &ni->eq[i];
    eq->used = 1;
    eq->cap = count;
    eq->head = eq->count = 0;
    eq->seq = 0;
    eq->gap = 0;
    eq->tk_next = eq->tk_serve = 0;
    eq->waiters = 0;
    ni->neq++;
    *handle = ptli_handle(PTLI_K_EQ, eq->gen, (uint32_t)i);
  }
  pthread_mutex_unlock(&ni->lock);
  return i >= 0 ? PTL_OK : PTL_NOSPACE;
}

static void ptli_eq_release(ptli_ni_t *ni, ptli_eq_t *eq) {
  eq->used = 0;
  eq->gen = (eq->gen + 1) & PTLI_GEN_MASK;
  if (!eq->gen) eq->gen = 1;
  free(eq->ev);
  free(eq->gap_before);
  eq->ev = NULL;
  eq->gap_before = NULL;
  eq->nextfree = ni->eq_free;
  ni->eq_free = (int32_t)(eq - ni->eq);
  ni->neq--;
  pthread_cond_broadcast(&eq->cond); /* waiters find it gone */
}

int PtlEQFree(ptl_handle_eq_t eventq) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(eventq);
  if (!ni) return PTL_INV_EQ;
  pthread_mutex_lock(&ni->lock);
  ptli_eq_t *eq = ptli_eq_get(ni, eventq);
  if (eq) ptli_eq_release(ni, eq);
  pthread_mutex_unlock(&ni->lock);
  return eq ? PTL_OK : PTL_INV_EQ;
}

void ptli_eq_free_all(ptli_ni_t *ni) {
  for (int i = 0; i < PTLI_MAX_EQ; i++)
    if (ni->eq[i].used) ptli_eq_release(ni, &ni->eq[i]);
}

int PtlEQGet(ptl_handle_eq_t eventq, ptl_event_t *event) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(eventq);
  if (!ni) return PTL_INV_EQ;
  if (!event) return PTL_SEGV;
  pthread_mutex_lock(&ni->lock);
  ptli_eq_t *eq = ptli_eq_get(ni, eventq);
  int rc = !eq ? PTL_INV_EQ : eq->waiters || !eq->count ? PTL_EQ_EMPTY : ptli_eq_take(eq, event);
  pthread_mutex_unlock(&ni->lock);
  return rc;
}

/* A waiter sleeps in slices: it looks again at least this often (the
 * interface may be finalized, the queue freed). */
#define PTLI_WAIT_SLICE_MS 100

static void ptli_wait_slice(ptli_eq_t *eq, pthread_mutex_t *lock) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += PTLI_WAIT_SLICE_MS * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  pthread_cond_timedwait(&eq->cond, lock, &ts);
}

/* A waiter first polls the transports itself (ptli_spin_step, without the
 * lock: what it delivers takes it) until GASNET_SPIN_USEC pass with nothing
 * arriving, then sleeps on the queue's condition; the progress thread
 * serves arrivals meanwhile (ptli_net.c, "progress and waiting"). Between
 * looks under the lock it peeks at the queue's count, at most
 * PTLI_WAIT_PEEKS polls (a lock round per poll was a seventh of an 8-byte
 * round trip's time; the look under the lock sees a queue freed meanwhile). */
#define PTLI_WAIT_PEEKS 64
int PtlEQWait(ptl_handle_eq_t eventq, ptl_event_t *event) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_of(eventq);
  if (!ni) return PTL_INV_EQ;
  if (!event) return PTL_SEGV;
  pthread_mutex_lock(&ni->lock);
  ptli_eq_t *eq = ptli_eq_get(ni, eventq);
  if (!eq) {
    pthread_mutex_unlock(&ni->lock);
    return PTL_INV_EQ;
  }
  uint64_t ticket = eq->tk_next++;
  eq->waiters++;
  int rc, spun = 0;
  ptli_spin_t spin = {0};
  for (;;) {
    if (ptli_eq_get(ni, eventq) != eq || !ni->live) {
      rc = PTL_INV_EQ; /* freed (or the interface finalized) while we waited */
      break;
    }
    if (eq->count && eq->tk_serve == ticket) {
      rc = ptli_eq_take(eq, event);
      eq->tk_serve++;
      eq->waiters--;
      pthread_cond_broadcast(&eq->cond); /* the next ticket may go on */
      break;
    }
    if (!spun) { /* only when it must wait: an event there costs no spin set-up */
      spun = 1;
      ptli_spin_start(ni, &spin);
    }
    if (spin.on) {
      pthread_mutex_unlock(&ni->lock);
      for (int k = 0; k < PTLI_WAIT_PEEKS && ptli_spin_step(ni, &spin); k++)
        if (__atomic_load_n(&eq->count, __ATOMIC_ACQUIRE)) break;
      pthread_mutex_lock(&ni->lock);
    } else {
      ptli_wait_slice(eq, &ni->lock);
    }
  }
  pthread_mutex_unlock(&ni->lock);
  ptli_spin_stop(ni, &spin, 0);
  return rc;
}
