/*
 * gasnett_format.c - text forms of address lists, memvec lists and strided
 * transfer descriptors, and of GASNet-EX's DT, OP and TI masks, for traces
 * and error messages. Each *_bufsz gives a size that always suffices; the
 * formatters write with sprintf into it.
 */
#include <stdio.h>

#include "gasnet_fwd.h"
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

static char *gasnett__format_strides(char *p, const char *name, const ptrdiff_t *v, size_t n) {
  p += sprintf(p, " %s=[", name);
  for (size_t i = 0; i < n; i++) p += sprintf(p, "%s%td", i ? ", " : "", v[i]);
  return p + sprintf(p, "]");
}

/* "rank=1 dst=0x1000 dststrides=[64] src=0x2000 srcstrides=[128]
 *  elemsz=8 count=[4] (1 stride level, 32 bytes)" */
char *gasnett_format_putsgets(char *buf, void *stats, struct gasnetc_team *tm, uint32_t rank,
                              void *dstaddr, const ptrdiff_t dststrides[], void *srcaddr,
                              const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                              size_t stridelevels) {
  (void)stats;
  (void)tm;
  size_t total = elemsz;
  for (size_t i = 0; i < stridelevels; i++) total *= count[i];
  char *p = buf;
  p += sprintf(p, "rank=%" PRIu32 " dst=0x%" PRIxPTR, rank, (uintptr_t)dstaddr);
  p = gasnett__format_strides(p, "dststrides", dststrides, stridelevels);
  p += sprintf(p, " src=0x%" PRIxPTR, (uintptr_t)srcaddr);
  p = gasnett__format_strides(p, "srcstrides", srcstrides, stridelevels);
  p += sprintf(p, " elemsz=%zu", elemsz);
  p = gasnett__format_sizes(p, "count", count, stridelevels);
  sprintf(p, " (%zu stride level%s, %zu bytes)", stridelevels, stridelevels == 1 ? "" : "s",
          total);
  return buf;
}

/* ---- GASNet-EX masks ------------------------------------------------------ */
typedef struct {
  uint32_t bit;
  const char *name;
} gasnett__bitname_t;
#define GASNETT__BIT(name) {name, #name}
#define GASNETT__NBITS(table) (sizeof table / sizeof table[0])

static const gasnett__bitname_t gasnett__dt_names[] = {
    GASNETT__BIT(GEX_DT_I32), GASNETT__BIT(GEX_DT_U32), GASNETT__BIT(GEX_DT_I64),
    GASNETT__BIT(GEX_DT_U64), GASNETT__BIT(GEX_DT_FLT), GASNETT__BIT(GEX_DT_DBL),
    GASNETT__BIT(GEX_DT_USER),
};
static const gasnett__bitname_t gasnett__op_names[] = {
    GASNETT__BIT(GEX_OP_SET),  GASNETT__BIT(GEX_OP_SWAP),  GASNETT__BIT(GEX_OP_CAS),
    GASNETT__BIT(GEX_OP_FCAS), GASNETT__BIT(GEX_OP_ADD),   GASNETT__BIT(GEX_OP_FADD),
    GASNETT__BIT(GEX_OP_SUB),  GASNETT__BIT(GEX_OP_FSUB),  GASNETT__BIT(GEX_OP_INC),
    GASNETT__BIT(GEX_OP_FINC), GASNETT__BIT(GEX_OP_DEC),   GASNETT__BIT(GEX_OP_FDEC),
    GASNETT__BIT(GEX_OP_MULT), GASNETT__BIT(GEX_OP_FMULT), GASNETT__BIT(GEX_OP_MIN),
    GASNETT__BIT(GEX_OP_FMIN), GASNETT__BIT(GEX_OP_MAX),   GASNETT__BIT(GEX_OP_FMAX),
    GASNETT__BIT(GEX_OP_AND),  GASNETT__BIT(GEX_OP_FAND),  GASNETT__BIT(GEX_OP_OR),
    GASNETT__BIT(GEX_OP_FOR),  GASNETT__BIT(GEX_OP_XOR),   GASNETT__BIT(GEX_OP_FXOR),
    GASNETT__BIT(GEX_OP_GET),  GASNETT__BIT(GEX_OP_USER),  GASNETT__BIT(GEX_OP_USER_NC),
};
static const gasnett__bitname_t gasnett__ti_names[] = {
    GASNETT__BIT(GEX_TI_SRCRANK), GASNETT__BIT(GEX_TI_EP), GASNETT__BIT(GEX_TI_ENTRY),
    GASNETT__BIT(GEX_TI_IS_REQ),  GASNETT__BIT(GEX_TI_IS_LONG),
};

/* Names of the set bits joined by '|', the rest in hex, "0" for none;
 * the size of the text with its NUL, written to buf unless buf is NULL. */
static size_t gasnett__format_mask(char *buf, uint32_t mask, const gasnett__bitname_t *names,
                                   size_t n) {
  char text[512] = "0";
  size_t len = mask ? 0 : 1;
  for (size_t i = 0; i < n; i++) {
    if (!(mask & names[i].bit)) continue;
    len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", len ? "|" : "", names[i].name);
    mask &= ~names[i].bit;
  }
  if (mask) /* bits without a name */
    len += (size_t)snprintf(text + len, sizeof text - len, "%s0x%" PRIx32, len ? "|" : "", mask);
  if (buf) memcpy(buf, text, len + 1);
  return len + 1;
}

size_t gasnett_format_dt(char *buf, uint32_t dt) {
  return gasnett__format_mask(buf, dt, gasnett__dt_names, GASNETT__NBITS(gasnett__dt_names));
}
size_t gasnett_format_op(char *buf, uint32_t op) {
  return gasnett__format_mask(buf, op, gasnett__op_names, GASNETT__NBITS(gasnett__op_names));
}
size_t gasnett_format_ti(char *buf, uint32_t ti) {
  return gasnett__format_mask(buf, ti, gasnett__ti_names, GASNETT__NBITS(gasnett__ti_names));
}
