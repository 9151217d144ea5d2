/*
 * gasnett_crash.c - what happens when a process fails: the one fatal path of
 * every layer (gasnett__fatal_end: gasnett_fatalerror here, gasnetc_fatal in
 * the core, gasnete_fatal in the extended layer through it), the handlers of
 * the fatal signals, and the freeze for a debugger. What
 * they do is read from GASNET_BACKTRACE (print a backtrace) and
 * GASNET_FREEZE_ON_ERROR (wait for a debugger), by gasnett__diag_init.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "gasnett_internal.h"

volatile int gasnett_frozen;

static struct {
  int read;              /* the settings below have been read */
  int backtrace, freeze; /* GASNET_BACKTRACE, GASNET_FREEZE_ON_ERROR */
  int rank;              /* -1: not in a job (no "[rank R] " prefix) */
  const char *host;      /* cached here: the handlers may not look it up */
} gasnett__diag = {0, 0, 0, -1, "?"};

static const struct {
  int sig;
  const char *name;
} gasnett__fatal_signals[] = {
    {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
    {SIGILL, "SIGILL"},   {SIGABRT, "SIGABRT"},
};
#define GASNETT__NSIGNALS (sizeof gasnett__fatal_signals / sizeof gasnett__fatal_signals[0])

/* The handlers run on their own stack, so a stack overflow is reported. */
static char gasnett__altstack[64 * 1024];

void gasnett__write_buf(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

void gasnett__write_str(int fd, const char *s) { gasnett__write_buf(fd, s, strlen(s)); }

char *gasnett__utoa(uint64_t v, char *buf) {
  char tmp[24];
  int n = 0;
  do tmp[n++] = (char)('0' + v % 10); while ((v /= 10) > 0);
  for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
  buf[n] = '\0';
  return buf;
}

void gasnett__set_rank(int rank) { gasnett__diag.rank = rank; }

static void gasnett__write_rank_prefix(void) {
  char num[24];
  if (gasnett__diag.rank < 0) return;
  gasnett__write_str(2, "[rank ");
  gasnett__write_str(2, gasnett__utoa((uint64_t)gasnett__diag.rank, num));
  gasnett__write_str(2, "] ");
}

/* Waits until a debugger clears *flag (or the process is killed); the
 * message names flagsym, the variable to clear. Async-signal-safe. */
static void gasnett__freeze_on(volatile int *flag, const char *flagsym) {
  char pid[24];
  gasnett__utoa((uint64_t)getpid(), pid);
  gasnett__write_rank_prefix();
  gasnett__write_str(2, "GASNet: process ");
  gasnett__write_str(2, pid);
  gasnett__write_str(2, " on host ");
  gasnett__write_str(2, gasnett__diag.host);
  gasnett__write_str(2, " is frozen for a debugger: attach with gdb -p ");
  gasnett__write_str(2, pid);
  gasnett__write_str(2, ", then 'set var ");
  gasnett__write_str(2, flagsym);
  gasnett__write_str(2, "=0' and 'continue'\n");
  *flag = 1;
  while (*flag) {
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

/* Marked read first: a malformed value makes the reader call
 * gasnett_fatalerror, which must not come back here. */
static void gasnett__diag_read(void) {
  gasnett__diag.read = 1;
  gasnett__diag.backtrace = gasnett_getenv_yesno_withdefault("GASNET_BACKTRACE", 0);
  gasnett__diag.freeze = gasnett_getenv_yesno_withdefault("GASNET_FREEZE_ON_ERROR", 0);
  gasnett__backtrace_configure();
  gasnett__diag.host = gasnett_gethostname();
}

static void gasnett__freeze(void) { gasnett__freeze_on(&gasnett_frozen, "gasnett_frozen"); }

void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname) {
  if (!gasnett__diag.read) gasnett__diag.host = gasnett_gethostname();
  gasnett__freeze_on(flag, flagsymname);
}

void gasnett_freezeForDebuggerErr(void) {
  if (!gasnett__diag.read) gasnett__diag_read();
  if (gasnett__diag.freeze) gasnett__freeze();
}

/* The default gasnett_print_backtrace_ifenabled. */
static int gasnett__print_backtrace_ifenabled(int fd) {
  if (!gasnett__diag.read) gasnett__diag_read();
  return gasnett__diag.backtrace ? gasnett_print_backtrace(fd) : 1;
}
int (*gasnett_print_backtrace_ifenabled)(int fd) = gasnett__print_backtrace_ifenabled;

void gasnett__fatal_diag(void) {
  if (!gasnett__diag.read) gasnett__diag_read();
  gasnett_print_backtrace_ifenabled(2);
  if (gasnett__diag.freeze) gasnett__freeze();
}

/* One line naming the signal and the process, then as configured; the
 * signal is then re-raised with its default action (SA_RESETHAND), so the
 * process ends as it would have without us. */
static void gasnett__crash_handler(int sig) {
  const char *name = "a fatal signal";
  for (size_t i = 0; i < GASNETT__NSIGNALS; i++)
    if (gasnett__fatal_signals[i].sig == sig) name = gasnett__fatal_signals[i].name;
  char pid[24];
  gasnett__write_rank_prefix();
  gasnett__write_str(2, "*** Caught ");
  gasnett__write_str(2, name);
  gasnett__write_str(2, " in process ");
  gasnett__write_str(2, gasnett__utoa((uint64_t)getpid(), pid));
  gasnett__write_str(2, " on host ");
  gasnett__write_str(2, gasnett__diag.host);
  gasnett__write_str(2, "\n");
  gasnett_print_backtrace_ifenabled(2);
  if (gasnett__diag.freeze) gasnett__freeze();
  raise(sig);
}

static void gasnett__catch_fatal_signals(void) {
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = gasnett__altstack;
  ss.ss_size = sizeof gasnett__altstack;
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = gasnett__crash_handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  for (size_t i = 0; i < GASNETT__NSIGNALS; i++)
    sigaction(gasnett__fatal_signals[i].sig, &sa, NULL);
}

void gasnett__diag_init(void) {
  gasnett__diag_read();
  if (gasnett__diag.backtrace || gasnett__diag.freeze) gasnett__catch_fatal_signals();
}

/* Set by the core once it is in a job (gasnett__set_job_end). */
static void (*gasnett__job_end)(int code, const char *line);

void gasnett__set_job_end(void (*end)(int code, const char *line)) { gasnett__job_end = end; }

/* The one fatal path of every layer (docs/tools.md, "Fatal errors"): the
 * line, the diagnostics the environment asks for, then the end. In a job a
 * misuse line goes to the launcher, which prints it naming the rank, after
 * the diagnostics, so that a frozen process does not end its job. */
void gasnett__fatal_end(int code, const char *line) {
  fflush(stdout);
  int to_launcher = code != GASNETT__END_ABORT && gasnett__job_end;
  if (!to_launcher) {
    gasnett__write_rank_prefix();
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
  }
  gasnett__fatal_diag();
  if (code == GASNETT__END_ABORT) {
    signal(SIGABRT, SIG_DFL); /* abort() is the end: no second report */
    abort();
  }
  if (to_launcher) gasnett__job_end(code, line);
  _exit(code);
}

/* The message, then where (if known); the tools spec's end is abort(). */
GASNETT_NORETURN
static void gasnett__fatal_v(const char *fn, const char *file, int line, const char *msg,
                             va_list ap) {
  char text[1024], where[1300];
  vsnprintf(text, sizeof text, msg, ap);
  if (file)
    snprintf(where, sizeof where, "*** FATAL ERROR: %s\n    at %s:%d in %s()", text, file, line, fn);
  else
    snprintf(where, sizeof where, "*** FATAL ERROR: %s", text);
  gasnett__fatal_end(GASNETT__END_ABORT, where);
}

void gasnett__fatalerror_at(const char *fn, const char *file, int line, const char *msg, ...) {
  va_list ap;
  va_start(ap, msg);
  gasnett__fatal_v(fn, file, line, msg, ap);
}

void gasnett_fatalerror_nopos(const char *msg, ...) {
  va_list ap;
  va_start(ap, msg);
  gasnett__fatal_v(NULL, NULL, 0, msg, ap);
}
