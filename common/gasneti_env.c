/* gasneti_env.c - number and byte-size parsing, and the transports'
 * numeric tunables (see gasneti_env.h). */
#include "gasneti_env.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gasneti_parse_num(const char *s, double lo, double hi, double *out) {
  char *end;
  if (!s) return -1;
  double v = strtod(s, &end);
  if (end == s || *end || !(v >= lo && v <= hi)) return -1;
  *out = v;
  return 0;
}

int gasneti_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  char *end;
  if (!s) return -1;
  const char *p = s;
  while (isspace((unsigned char)*p)) p++;
  if (*p == '-') return -1;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || *end || errno || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

uint64_t gasneti_size_unit(const char **s) {
  const char *p = *s;
  uint64_t mul = 0;
  switch (toupper((unsigned char)*p)) {
  case 'K': mul = 1ull << 10; p++; break;
  case 'M': mul = 1ull << 20; p++; break;
  case 'G': mul = 1ull << 30; p++; break;
  case 'T': mul = 1ull << 40; p++; break;
  default: break;
  }
  if (mul && toupper((unsigned char)p[0]) == 'I' && toupper((unsigned char)p[1]) == 'B')
    p += 2;
  else if (toupper((unsigned char)*p) == 'B') {
    p++;
    if (!mul) mul = 1; /* a B alone: bytes */
  }
  *s = p;
  return mul;
}

int gasneti_parse_size(const char *s, double *num, uint64_t *unit) {
  char *end;
  if (!s) return -1;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || !(v >= 0)) return -1;
  const char *p = end;
  uint64_t u = gasneti_size_unit(&p);
  if (*p) return -1;
  *num = v;
  *unit = u;
  return 0;
}

int gasneti_parse_bytes(const char *s, uint64_t *out) {
  double v;
  uint64_t unit;
  if (gasneti_parse_size(s, &v, &unit) < 0) return -1;
  double bytes = v * (double)(unit ? unit : 1);
  if (!(bytes < 18446744073709551616.0)) return -1; /* 2^64 */
  *out = (uint64_t)bytes;
  return 0;
}

/* The size part of a memory limit: bytes with a unit, a bare whole number
 * of bytes, or a bare number with a decimal point: a fraction of physmem. */
static int gasneti_limit_size(const char *s, size_t len, uint64_t physmem, uint64_t *bytes,
                              const char **why) {
  char buf[64];
  double v, b;
  uint64_t unit;
  if (len == 0 || len >= sizeof buf) { *why = "not a size (e.g. 256MB, 4G, 0.5, 0.85/H, 128MB/P)"; return -1; }
  memcpy(buf, s, len);
  buf[len] = 0;
  /* digits first (no sign, space, "inf" or "nan"), and no hexadecimal */
  if (!(isdigit((unsigned char)buf[0]) || buf[0] == '.') || strpbrk(buf, "xX")
      || gasneti_parse_size(buf, &v, &unit) < 0) {
    *why = "not a size (e.g. 256MB, 4G, 0.5, 0.85/H, 128MB/P)";
    return -1;
  }
  if (!unit && strchr(buf, '.')) { /* a fraction of physical memory */
    if (v > 1.0) { *why = "a fraction of physical memory is at most 1 (0.5 is half)"; return -1; }
    b = v * (double)physmem;
  } else {
    b = v * (double)(unit ? unit : 1);
  }
  if (!(b < 18446744073709551616.0)) { *why = "more bytes than 64 bits hold"; return -1; } /* 2^64 */
  *bytes = (uint64_t)b;
  return 0;
}

int gasneti_parse_memlimit(const char *s, uint64_t physmem, uint64_t *bytes, int *per_host,
                           const char **why) {
  const char *slash;
  int host = 0;
  if (!s) { *why = "not a size"; return -1; }
  slash = strchr(s, '/');
  if (slash) {
    char c = (char)toupper((unsigned char)slash[1]);
    if ((c != 'P' && c != 'H') || slash[2]) {
      *why = "after '/' comes P (per process) or H (per host, shared by its processes)";
      return -1;
    }
    host = c == 'H';
  }
  uint64_t b;
  if (gasneti_limit_size(s, slash ? (size_t)(slash - s) : strlen(s), physmem, &b, why) < 0)
    return -1;
  *bytes = b;
  *per_host = host;
  return 0;
}

double gasneti_env_num(const char *(*getenv_fn)(const char *name), const char *who, int quiet,
                       const char *name, double dflt, double lo, double hi,
                       void (*report)(const char *name, const char *value, const char *dflt)) {
  const char *s = getenv_fn ? getenv_fn(name) : getenv(name);
  char dtext[32];
  snprintf(dtext, sizeof dtext, "%g", dflt);
  if (report) report(name, s, dtext);
  if (!s || !*s) return dflt;
  double v;
  if (gasneti_parse_num(s, lo, hi, &v) < 0) {
    if (!quiet)
      fprintf(stderr, "%s: ignoring %s=%s (want a number in [%g, %g]); using %g\n", who, name,
              s, lo, hi, dflt);
    return dflt;
  }
  return v;
}
