/*
 * gasnetc_poll.c - making progress: gasnet_AMPoll (spec 2.3.5.1) and the
 * step behind GASNET_BLOCKUNTIL (spec 2.3.5.2).
 *
 * Each is a short list of bounded phases:
 *   1. check the calling context (attached, not in a handler, not in a
 *      No-Interrupt Section: spec 2.4.1 / 2.4.3);
 *   2. let every transport do one bounded, non-blocking pass (read what has
 *      arrived, run due timers, deliver frames -> handlers): gasnetc_progress;
 *   3. BLOCKUNTIL only: after GASNET_SPIN_USEC of finding nothing (state->mode
 *      may say never, or at once), sleep in the one wait of all transports
 *      (gasnetc_wait.c; at most GASNETC_BLOCK_SLICE_MS), then go round
 *      again; before that, yield the CPU while spinning: after each empty
 *      poll on an overcommitted host (gasnetc_host.c), else now and then
 *      (gasnetc_spin_yield);
 *   4. honour an exit requested by another node (spec 2.1.0.5).
 * Loopback messages never wait here: they run inside the sending call.
 */
#include <sched.h>
#include <time.h>
#include <string.h>

#include "gasnetc_internal.h"
#include "gasneti_sys.h" /* sched_yield, made directly */

/* Longest single sleep of a blocked thread, ms. With other client threads
 * (PAR, PARSYNC) it is bounded, so that a thread whose condition was set by
 * a handler run on another thread, which the transport knows nothing of,
 * still re-evaluates it promptly (spec 2.3.5.2 implementor's note). In SEQ
 * the condition changes only in a handler this thread runs (2.3.5.2), after
 * something arrived and woke it: -1, no limit but the transport's own
 * deadlines, so idle ranks do not wake a thousand times a second and take
 * the CPU from busy ones on a crowded host. */
#if defined(GASNET_SEQ)
#define GASNETC_BLOCK_SLICE_MS (-1)
#else
#define GASNETC_BLOCK_SLICE_MS 1
#endif

/* A spinning thread yields the CPU now and then, even with a CPU per node.
 * When other work keeps the other CPUs busy, the kernel runs a woken process
 * on the waker's CPU: the node our request woke then waits behind our spin
 * for its reply until GASNET_SPIN_USEC ends and we sleep, and it does the
 * same to us: each round trip costs two whole spins, and the pair stays on
 * one CPU, each waking the other there. A yield that comes back late gave the
 * CPU to someone: yield again GASNETC_SPIN_YIELD_MIN_NS later. One that
 * comes back at once (the bare system call) found nobody waiting: double
 * the period, up to GASNETC_SPIN_YIELD_MAX_NS, so that a thread alone on its
 * CPU rarely yields and a round trip's wait not at all. "At once" is
 * measured, not assumed: the bare call's cost differs by an order of
 * magnitude between machines (page-table isolation in a virtual machine),
 * so "late" is GASNETC_SPIN_YIELD_BUSY_NS past the quickest yield this
 * thread has seen. The figures behind both: docs/rationale.md,
 * "core/gasnetc_poll.c (gasnetc_spin_yield)". */
#define GASNETC_SPIN_YIELD_MIN_NS 1000u
#define GASNETC_SPIN_YIELD_MAX_NS 64000u
#define GASNETC_SPIN_YIELD_BUSY_NS 2000u /* this much past the bare call: ran someone else */
static GASNETC_TLS uint64_t gasnetc_spin_yield_at; /* this thread's next yield */
/* A spinning thread reads the clock at its first empty poll and then at
 * every GASNETC_SPIN_CLOCK_EVERY-th: the spin's end and its yields are
 * timed to within that many polls (a few us over the network, well under
 * one through shared memory, where the clock read was a third of an empty
 * poll). A polite thread's polls each yield: it reads it every time. */
#define GASNETC_SPIN_CLOCK_EVERY 8u
static GASNETC_TLS uint64_t gasnetc_spin_period = GASNETC_SPIN_YIELD_MIN_NS;
static GASNETC_TLS uint64_t gasnetc_spin_yield_bare = UINT64_MAX; /* the quickest yield, ns */

/* After an empty poll of a spinning thread (fresh: the first of this wait). */
GASNETI_HOT
static void gasnetc_spin_yield(uint64_t now, int fresh) {
  if (gasnetc_g.polite) { /* a crowded host: after every empty poll */
    gasneti_sys_sched_yield();
    return;
  }
  if (fresh) gasnetc_spin_yield_at = now + gasnetc_spin_period;
  if (now < gasnetc_spin_yield_at) return;
  gasneti_sys_sched_yield();
  uint64_t after = gasneti_now_ns(), took = after - now;
  if (took < gasnetc_spin_yield_bare) gasnetc_spin_yield_bare = took;
  if (took > gasnetc_spin_yield_bare + GASNETC_SPIN_YIELD_BUSY_NS)
    gasnetc_spin_period = GASNETC_SPIN_YIELD_MIN_NS;
  else if (gasnetc_spin_period < GASNETC_SPIN_YIELD_MAX_NS) gasnetc_spin_period *= 2;
  gasnetc_spin_yield_at = after + gasnetc_spin_period;
}

static void gasnetc_poll_check_context(const char *fname) {
  const gasnetc_thread_t *th = &gasnetc_thread;
  GASNETC_CHECK_ATTACHED(fname);
  if (GASNETC_UNLIKELY(th->token))
    gasnetc_fatal("%s: called inside an AM handler (spec 2.4.1)", fname);
  if (GASNETC_UNLIKELY(th->nis || th->hsl_depth))
    gasnetc_fatal("%s: called inside a No-Interrupt Section or holding an HSL "
                  "(spec 2.4.3)", fname);
}

GASNETI_HOT
int gasnet_AMPoll(void) {
  gasnetc_poll_check_context("gasnet_AMPoll");
  gasnetc_progress();
  gasnetc_exit_check();
  return GASNET_OK;
}

GASNETI_HOT
void gasnetc_block_step(gasnetc_block_t *state) {
  gasnetc_poll_check_context("GASNET_BLOCKUNTIL");
  if (gasnetc_progress() > 0) {
    state->idle_since_ns = 0;
  } else if (state->skip && state->idle_since_ns) {
    state->skip--; /* spinning, and the clock was read a few polls ago */
  } else {
    uint64_t now = gasneti_now_ns();
    int fresh = state->idle_since_ns == 0;
    if (fresh) state->idle_since_ns = now;
    int spin = state->mode == GASNETC_BLOCK_SPIN ||
               (state->mode != GASNETC_BLOCK_SLEEP &&
                (fresh || now - state->idle_since_ns < gasnetc_g.spin_ns));
    if (spin) {
      state->skip = gasnetc_g.polite ? 0 : GASNETC_SPIN_CLOCK_EVERY - 1;
      gasnetc_spin_yield(now, fresh);
    } else {
      /* A remote exit is acted on at a poll point once its linger is over:
       * come back for it even when nothing else will wake us. */
      int slice = gasnetc_g.remote_exit ? 1 : GASNETC_BLOCK_SLICE_MS;
      if (gasnetc_wait(slice) > 0) state->idle_since_ns = 0;
    }
  }
  gasnetc_exit_check();
}
