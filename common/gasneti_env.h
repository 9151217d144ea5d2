/*
 * gasneti_env.h - reading the numbers and byte sizes that environment
 * variables (and option values) hold, one grammar each for the whole
 * library.
 *
 * Each parser reads the whole text: it returns 0 and sets its outputs, or
 * returns -1 and leaves them alone (also for a NULL text). Deciding what an
 * unset or empty variable means, and the message for a bad value, stay with
 * the caller, which names the variable in its own words.
 */
#ifndef GASNETI_ENV_H
#define GASNETI_ENV_H

#include <stdint.h>

/* A real number (strtod's syntax: "30", "0.5", "1e6") in [lo, hi]; NaN is
 * in no range. */
int gasneti_parse_num(const char *s, double lo, double hi, double *out);

/* A whole number in decimal in [lo, hi]: digits after optional white space
 * and '+'. A '-' is refused, not wrapped round as strtoul would. */
int gasneti_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* A byte size: a number >= 0 (strtod's syntax) followed directly by an
 * optional unit (gasneti_size_unit: K, M, G or T, powers of 1024, then an
 * optional B or iB; or a B alone), in any case: "4096", "100k", "256MB",
 * "2GiB", "1.5G", "512B". *num is the number and *unit the unit's
 * multiplier, 1 for a B alone, and 0 when nothing follows the number, so a
 * caller may give a bare number a meaning of its own (GASNET_MAX_SEGSIZE:
 * below 1, a fraction of physical memory). */
int gasneti_parse_size(const char *s, double *num, uint64_t *unit);

/* A byte size as above, as a whole number of bytes (a bare number is
 * bytes; fractions of a byte are dropped); -1 also past UINT64_MAX. */
int gasneti_parse_bytes(const char *s, uint64_t *out);

/* A memory limit, Berkeley's GASNET_MAX_SEGSIZE grammar: SIZE or SIZE/P or
 * SIZE/H (P or H in either case). SIZE is a byte size with a unit as
 * above ("128MB", "4G", "1.5GiB"), a bare whole number of bytes
 * ("1048576"), or a bare number with a decimal point, at most 1: that
 * fraction of physmem ("0.5", ".85"). /P (also the meaning without a
 * suffix) makes it a limit per process, /H a limit for the whole host,
 * which the caller shares among the host's processes (*per_host = 1).
 * 0 and *bytes, *per_host set; or -1 and *why saying what is wrong (the
 * caller names the variable and the value). */
int gasneti_parse_memlimit(const char *s, uint64_t physmem, uint64_t *bytes, int *per_host,
                           const char **why);

/* The unit of a size at *s, which is moved past it: K, M, G or T (any case)
 * then an optional B or iB, or a B alone. Its multiplier (1 for a B alone),
 * or 0 and *s unmoved when there is none. For parsers with a grammar of
 * their own around it (gasnett_parse_int). */
uint64_t gasneti_size_unit(const char **s);

/* A transport's numeric tunable, read once at open: getenv_fn(name) (the
 * job's environment), reported through report (GASNET_VERBOSEENV, may be
 * NULL) with dflt as the default; dflt when unset or empty, and also when
 * not a number in [lo, hi], after one line "<who>: ignoring NAME=VALUE
 * (want a number in [lo, hi]); using DFLT" unless quiet (every rank but
 * one reads the same value). */
double gasneti_env_num(const char *(*getenv_fn)(const char *name), const char *who, int quiet,
                       const char *name, double dflt, double lo, double hi,
                       void (*report)(const char *name, const char *value, const char *dflt));

#endif /* GASNETI_ENV_H */
