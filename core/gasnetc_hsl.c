/*
 * gasnetc_hsl.c - atomicity control (spec 2.4): No-Interrupt Sections and
 * Handler-Safe Locks.
 *
 * This implementation runs handlers only inside GASNet calls (polling, never
 * signals), so a No-Interrupt Section needs no masking: the state is kept
 * per thread only so that the calls spec 2.4.3 forbids inside one (requests,
 * polls) are caught. Holding an HSL is an implicit section (spec 2.4.5).
 *
 * HSLs: SEQ has a single client thread, so an HSL is just a flag (a second
 * lock of a held HSL can only be recursion: fatal). PARSYNC and PAR use a
 * real POSIX mutex (spec 2.4.5 implementor's note).
 */
#include <errno.h>
#include <string.h>

#include "gasnetc_internal.h"

void gasnet_hold_interrupts(void) {
  gasnetc_thread_t *th = &gasnetc_thread;
  if (th->token || th->hsl_depth) return; /* ignored in handlers / under HSL */
  th->nis = 1;
}

void gasnet_resume_interrupts(void) {
  gasnetc_thread_t *th = &gasnetc_thread;
  if (th->token || th->hsl_depth) return;
  th->nis = 0;
}

void gasnet_hsl_init(gasnet_hsl_t *hsl) {
  if (!hsl) gasnetc_fatal("gasnet_hsl_init: NULL HSL");
#if !defined(GASNET_SEQ)
  int rc = pthread_mutex_init(&hsl->mutex, NULL);
  if (rc) gasnetc_fatal("gasnet_hsl_init: %s (spec 2.4.4.2)", strerror(rc));
#endif
  hsl->locked = 0;
}

void gasnet_hsl_destroy(gasnet_hsl_t *hsl) {
  if (!hsl) gasnetc_fatal("gasnet_hsl_destroy: NULL HSL");
#if !defined(GASNET_SEQ)
  int rc = pthread_mutex_destroy(&hsl->mutex);
  if (rc == EBUSY)
    gasnetc_fatal("gasnet_hsl_destroy: the HSL is locked (spec 2.4.4.2)");
  if (rc) gasnetc_fatal("gasnet_hsl_destroy: %s", strerror(rc));
#else
  if (hsl->locked)
    gasnetc_fatal("gasnet_hsl_destroy: the HSL is locked (spec 2.4.4.2)");
#endif
}

void gasnet_hsl_lock(gasnet_hsl_t *hsl) {
#if !defined(GASNET_SEQ)
  int rc = pthread_mutex_lock(&hsl->mutex);
  if (rc) gasnetc_fatal("gasnet_hsl_lock: %s", strerror(rc));
#else
  if (hsl->locked)
    gasnetc_fatal("gasnet_hsl_lock: the HSL is already held: recursive locking "
                  "(spec 2.4.5)");
#endif
  hsl->locked = 1;
  gasnetc_thread.hsl_depth++;
}

int gasnet_hsl_trylock(gasnet_hsl_t *hsl) {
#if !defined(GASNET_SEQ)
  int rc = pthread_mutex_trylock(&hsl->mutex);
  if (rc == EBUSY) return GASNET_ERR_NOT_READY;
  if (rc) gasnetc_fatal("gasnet_hsl_trylock: %s", strerror(rc));
#else
  if (hsl->locked) return GASNET_ERR_NOT_READY;
#endif
  hsl->locked = 1;
  gasnetc_thread.hsl_depth++;
  return GASNET_OK;
}

void gasnet_hsl_unlock(gasnet_hsl_t *hsl) {
  if (!hsl->locked || gasnetc_thread.hsl_depth <= 0)
    gasnetc_fatal("gasnet_hsl_unlock: the HSL is not held by this thread");
  hsl->locked = 0;
  gasnetc_thread.hsl_depth--;
#if !defined(GASNET_SEQ)
  int rc = pthread_mutex_unlock(&hsl->mutex);
  if (rc) gasnetc_fatal("gasnet_hsl_unlock: %s", strerror(rc));
#endif
}
