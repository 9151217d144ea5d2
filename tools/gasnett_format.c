/*
 * gasnett_format.c - text forms of address lists, memvec lists and strided
 * transfer descriptors, for traces and error messages. Each *_bufsz gives
 * a size that always suffices; the formatters write with sprintf into it.
 */
#include <stdio.h>

#include "gasnett_internal.h"

/* Widest pieces: "0x" + 16 hex digits; 20 decimal digits; ", ". */
#define GASNETT__ADDR_CHARS 18
#define GASNETT__SIZE_CHARS 20
#define GASNETT__SEP_CHARS 2
/* Room for the fixed words and counts around a list. */
#define GASNETT__HEADER_CHARS 96

size_t gasnett_format_addrlist_bufsz(size_t count) {
  return GASNETT__HEADER_CHARS + count * (GASNETT__ADDR_CHARS + GASNETT__SEP_CHARS);
}

/* "2 addresses of 64 bytes: [0x7f0000001000, 0x7f0000002000]" */
char *gasnett_format_addrlist(char *buf, size_t count, void *const *list, size_t len) {
  char *p = buf;
  p += sprintf(p, "%zu address%s of %zu bytes: [", count, count == 1 ? "" : "es", len);
  for (size_t i = 0; i < count; i++)
    p += sprintf(p, "%s0x%" PRIxPTR, i ? ", " : "", (uintptr_t)list[i]);
  strcpy(p, "]");
  return buf;
}

size_t gasnett_format_memveclist_bufsz(size_t count) {
  return GASNETT__HEADER_CHARS +
         count * (GASNETT__ADDR_CHARS + GASNETT__SIZE_CHARS + 3 + GASNETT__SEP_CHARS);
}

/* "2 memvecs, 96 bytes: [{0x1000,64}, {0x2000,32}]" */
char *gasnett_format_memveclist(char *buf, size_t count, const void *list) {
  const gasnett_memvec_t *v = (const gasnett_memvec_t *)list;
  size_t total = 0;
  for (size_t i = 0; i < count; i++) total += v[i].len;
  char *p = buf;
  p += sprintf(p, "%zu memvec%s, %zu bytes: [", count, count == 1 ? "" : "s", total);
  for (size_t i = 0; i < count; i++)
    p += sprintf(p, "%s{0x%" PRIxPTR ",%zu}", i ? ", " : "", (uintptr_t)v[i].addr, v[i].len);
  strcpy(p, "]");
  return buf;
}

size_t gasnett_format_putsgets_bufsz(size_t stridelevels) {
  return 2 * GASNETT__HEADER_CHARS +
         (3 * stridelevels + 1) * (GASNETT__SIZE_CHARS + GASNETT__SEP_CHARS);
}

static char *gasnett__format_sizes(char *p, const char *name, const size_t *v, size_t n) {
  p += sprintf(p, " %s=[", name);
  for (size_t i = 0; i < n; i++) p += sprintf(p, "%s%zu", i ? ", " : "", v[i]);
  return p + sprintf(p, "]");
}

/* "dst=0x1000 dststrides=[64] src=0x2000 srcstrides=[128] count=[8, 4]
 *  (1 stride level, 32 bytes)": count[0] is the contiguous run in bytes. */
char *gasnett_format_putsgets(char *buf, void *dstaddr, const size_t dststrides[],
                              void *srcaddr, const size_t srcstrides[],
                              const size_t count[], size_t stridelevels) {
  size_t total = 1;
  for (size_t i = 0; i <= stridelevels; i++) total *= count[i];
  char *p = buf;
  p += sprintf(p, "dst=0x%" PRIxPTR, (uintptr_t)dstaddr);
  p = gasnett__format_sizes(p, "dststrides", dststrides, stridelevels);
  p += sprintf(p, " src=0x%" PRIxPTR, (uintptr_t)srcaddr);
  p = gasnett__format_sizes(p, "srcstrides", srcstrides, stridelevels);
  p = gasnett__format_sizes(p, "count", count, stridelevels + 1);
  sprintf(p, " (%zu stride level%s, %zu bytes)", stridelevels, stridelevels == 1 ? "" : "s",
          total);
  return buf;
}
