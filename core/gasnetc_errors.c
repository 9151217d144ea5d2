/*
 * gasnetc_errors.c - error codes (spec 1.6): names and descriptions from one
 * table, and the fatal-error path every misuse check ends in.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gasnetc_internal.h"
#include "gasnett_internal.h"
#include "boot.h"

#define GASNETC_ERRORS(X)                                                   \
  X(GASNET_OK, "No error")                                                  \
  X(GASNET_ERR_RESOURCE, "Problem with requested resource")                 \
  X(GASNET_ERR_BAD_ARG, "Invalid function parameter passed")                \
  X(GASNET_ERR_NOT_INIT, "Called a GASNet function before initialization") \
  X(GASNET_ERR_BARRIER_MISMATCH, "Barrier id's mismatched")                 \
  X(GASNET_ERR_NOT_READY, "Non-blocking operation not complete")

static const struct {
  int code;
  const char *name, *desc;
} gasnetc_errors[] = {
#define GASNETC_ERROR_ROW(code, desc) { code, #code, desc },
    GASNETC_ERRORS(GASNETC_ERROR_ROW)
#undef GASNETC_ERROR_ROW
};

const char *gasnet_ErrorName(int errval) {
  for (size_t i = 0; i < sizeof gasnetc_errors / sizeof gasnetc_errors[0]; i++)
    if (gasnetc_errors[i].code == errval) return gasnetc_errors[i].name;
  return "GASNET_ERR_UNKNOWN";
}

const char *gasnet_ErrorDesc(int errval) {
  for (size_t i = 0; i < sizeof gasnetc_errors / sizeof gasnetc_errors[0]; i++)
    if (gasnetc_errors[i].code == errval) return gasnetc_errors[i].desc;
  return "Unknown GASNet error code";
}

int gasnetc_soft_error(int rc, const char *call, const char *fmt, ...) {
  if (!gasnetc_g.verbose_errors) return rc;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "GASNet: %s: %s\n", call, msg);
  return rc;
}

int gasnetc_setup_failed(int rc, const char *call, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(gasnetc_g.failure, sizeof gasnetc_g.failure, fmt, ap);
  va_end(ap);
  gasnetc_g.failed_call = call;
  if (gasnetc_g.verbose_errors) fprintf(stderr, "GASNet: %s: %s\n", call, gasnetc_g.failure);
  return rc;
}

void gasnetc_not_ready(const char *fname, int need_attach) {
  /* After gasnet_init a call that needs the objects gex_Client_Init makes
   * (teams, collectives) waits for gasnet_attach, which makes them there. */
  const char *need = need_attach || gasnetc_g.inited ? "gasnet_attach" : "gasnet_init";
  if (gasnetc_g.failed_call)
    gasnetc_fatal("%s: called after %s failed (%s); after a failed %s only "
                  "gasnet_exit may be called", fname, gasnetc_g.failed_call,
                  gasnetc_g.failure, gasnetc_g.failed_call);
  gasnetc_fatal("%s: called before %s (spec 2.1.0.1)", fname, need);
}

/* Spec 2.3: misuse prints a message and terminates the job. The line goes
 * down the one fatal path (tools/gasnett_crash.c: backtrace, freeze) to
 * gasnetc_job_end: the launcher prints it and ends every rank with a
 * non-zero code. Before gasnet_init there is no job: it is printed here. */
void gasnetc_vfatal(const char *fmt, va_list ap) {
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  char line[600];
  if (gasnetc_g.inited)
    snprintf(line, sizeof line, "GASNet error: %s (on node %u of %u)", msg,
             (unsigned)gasnetc_g.mynode, (unsigned)gasnetc_g.nodes);
  else
    snprintf(line, sizeof line, "GASNet error: %s", msg);
  __atomic_store_n(&gasnetc_g.exiting, 1, __ATOMIC_SEQ_CST);
  gasnett__fatal_end(1, line);
}

void gasnetc_fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gasnetc_vfatal(fmt, ap);
}

void gasnetc_job_end(int code, const char *line) { boot_abort(code, line); }
