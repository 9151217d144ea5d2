/*
 * gasnett_internal.h - what tools/ shares among its files, and the hooks the
 * core and the transports call (they add -I$(top_srcdir)/tools).
 */
#ifndef GASNETT_INTERNAL_H
#define GASNETT_INTERNAL_H

#include "gasnet_tools.h"

/* ---- hooks for the core (docs/tools.md, "For the core") ---------------- */

/* From gasnet_init on, gasnett_getenv asks fn (the job's environment). */
void gasnett__set_getenv(const char *(*fn)(const char *name));
/* Only the reporter prints GASNET_VERBOSEENV lines (in a job: rank 0). */
void gasnett__set_verbose_reporter(int is_reporter);
/* Report a variable the caller read itself, like the *_withdefault readers
 * do (value NULL: not set). Once per name per process. */
void gasnett__envreport(const char *name, const char *value, const char *dflt);
/* Read GASNET_BACKTRACE, GASNET_BACKTRACE_TYPE, GASNET_FREEZE_ON_ERROR and,
 * if a backtrace or a freeze is asked for, catch the fatal signals. */
void gasnett__diag_init(void);
/* Backtrace and freeze, as asked for, on a fatal error (then the caller ends
 * the job). */
void gasnett__fatal_diag(void);
/* How the job ends on a misuse error once the process is in one: the core
 * passes a function that has the launcher print line, naming the rank, and
 * end every rank with code (boot_abort); it does not return. */
void gasnett__set_job_end(void (*end)(int code, const char *line));
/* The one fatal path of every layer: flushes stdout; prints line on stderr
 * ("[rank R] " first once the rank is known) unless the job end prints it;
 * backtrace and freeze as GASNET_BACKTRACE / GASNET_FREEZE_ON_ERROR say;
 * then code GASNETT__END_ABORT: abort() (gasnett_fatalerror, tools spec),
 * any other code: the job end with code, else (no job) _exit(code). */
#define GASNETT__END_ABORT (-1)
GASNETT_NORETURN void gasnett__fatal_end(int code, const char *line);
/* Prefix "[rank R] " to the crash lines. */
void gasnett__set_rank(int rank);

/* ---- shared inside tools/ ---------------------------------------------- */

/* The mechanism list used when GASNET_BACKTRACE_TYPE is not set. */
#define GASNETT__BACKTRACE_TYPE_DEFAULT "USER,EXECINFO,GDB"

/* (Re)reads GASNET_BACKTRACE_TYPE for gasnett_print_backtrace. */
void gasnett__backtrace_configure(void);

/* Parses str as gasnett_parse_int does; NULL on success, else why not. */
const char *gasnett__parse_int(const char *str, uint64_t memmul, int64_t *out);
/* Async-signal-safe writes of n bytes / a whole string (EINTR retried). */
void gasnett__write_buf(int fd, const char *p, size_t n);
void gasnett__write_str(int fd, const char *s);
/* Decimal text of v into buf (>= 24 bytes), async-signal-safe. */
char *gasnett__utoa(uint64_t v, char *buf);

#endif /* GASNETT_INTERNAL_H */
