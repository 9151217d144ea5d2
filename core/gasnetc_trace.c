/*
 * gasnetc_trace.c - tracing and statistics with Berkeley's variables:
 * GASNET_TRACEFILE / GASNET_STATSFILE name one file per rank ('%' is the
 * rank), GASNET_TRACEMASK / GASNET_STATSMASK choose categories by letter,
 * GASNET_TRACENODES / GASNET_STATSNODES the ranks that write, and
 * GASNET_TRACELOCAL / GASNET_TRACEFLUSH what and how a trace writes.
 *
 * Always built, switched at run time: the hot paths test one word,
 * gasnetc_trace_on (GASNETC_TRACING), which is 0 unless some category is
 * traced or counted, and call out of line only when it is not. A trace
 * line is "<rank> <usec> (<cat>) <EVENT> key=value ...", usec counted from
 * the end of gasnet_init's bootstrap exchange, which every rank leaves at
 * the same moment (to the launcher's latency): that is how
 * contrib/gasnet-timeline aligns the ranks' clocks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gasnetc_internal.h"

unsigned gasnetc_trace_mask, gasnetc_stats_mask, gasnetc_trace_on;
uint64_t gasnetc_xstats[GASNETC_XSTAT_COUNT];

/* Berkeley's category letters (its README, GASNET_TRACEMASK): A active
 * messages, B barriers, C conduit-specific (here the transports' counters),
 * G gets, H the client's GASNETT_TRACE_PRINTF, I configuration, P puts, R
 * remote atomics, S waits for non-blocking operations, U unsuppressable, W
 * collectives. D, L, N, O and X are accepted and have nothing here (no
 * message data, locks, source lines, object or AMPoll events). */
#define GASNETC_TRACE_ALL "ABCDGHILNOPRSUWX"

static FILE *gasnetc_tracef, *gasnetc_statsf;
static int gasnetc_trace_local = 1, gasnetc_trace_flush;
static uint64_t gasnetc_t0_ns;               /* the clock's zero: see the top */
static char gasnetc_stats_path[4096];        /* this rank's, for the job's sum */
static const char *gasnetc_stats_pattern;    /* GASNET_STATSFILE, when it has '%' */
static char gasnetc_mask_text[2][32];        /* GETMASK's answers */
/* Per peer: AMs sent to it and received from it while A is traced, by
 * class (0 requests, 1 replies): a message's number on both ends, so that
 * the timeline pairs a send with its handler (transports keep order per
 * pair and class). */
static uint32_t *gasnetc_am_nsent, *gasnetc_am_nrecv;

/* A mask string; '^' first: every category but those listed. */
static unsigned gasnetc_mask_parse(const char *s) {
  unsigned m = 0, all = 0;
  int complement = s && *s == '^';
  for (const char *a = GASNETC_TRACE_ALL; *a; a++) all |= GASNETC_TRACE_BIT(*a);
  for (s += complement; s && *s; s++)
    if (*s >= 'A' && *s <= 'Z') m |= GASNETC_TRACE_BIT(*s);
  if (complement) m = all & ~m;
  return m | GASNETC_TRACE_BIT('U');
}

static void gasnetc_mask_format(char *buf, unsigned m) {
  for (int c = 'A'; c <= 'Z'; c++)
    if (m & GASNETC_TRACE_BIT(c)) *buf++ = (char)c;
  *buf = 0;
}

/* The categories whose paths call out: traced ones, and counted ones that
 * have ext.* counters (the core's and the transports' count always). */
#define GASNETC_XSTAT_CATS                                                          \
  (GASNETC_TRACE_BIT('P') | GASNETC_TRACE_BIT('G') | GASNETC_TRACE_BIT('B') |       \
   GASNETC_TRACE_BIT('W') | GASNETC_TRACE_BIT('R') | GASNETC_TRACE_BIT('S'))
static void gasnetc_trace_recompute(void) {
  __atomic_store_n(&gasnetc_trace_on, gasnetc_trace_mask | (gasnetc_stats_mask & GASNETC_XSTAT_CATS),
                   __ATOMIC_RELAXED);
}

/* "0,2,5-7": whether rank is listed; NULL or "": every rank. */
static int gasnetc_nodes_has(const char *var, const char *list, unsigned rank) {
  if (!list || !*list) return 1;
  for (const char *p = list; *p;) {
    char *end;
    unsigned long lo = strtoul(p, &end, 10), hi = lo;
    if (end == p) gasnetc_fatal("%s='%s': expected ranks and ranges, as in 0,2,5-7", var, list);
    if (*end == '-') {
      p = end + 1;
      hi = strtoul(p, &end, 10);
      if (end == p || hi < lo) gasnetc_fatal("%s='%s': a bad range", var, list);
    }
    if (rank >= lo && rank <= hi) return 1;
    if (*end && *end != ',') gasnetc_fatal("%s='%s': expected ranks and ranges, as in 0,2,5-7", var, list);
    p = *end ? end + 1 : end;
  }
  return 0;
}

/* The name with every '%' replaced by `with`; without '%', ".<with>" is
 * appended (as this library always did): one file per rank either way. */
void gasnetc_trace_path(char *out, size_t len, const char *name, const char *with) {
  size_t o = 0;
  int had = 0;
  for (const char *p = name; *p && o + 1 < len; p++) {
    if (*p != '%') { out[o++] = *p; continue; }
    had = 1;
    o += (size_t)snprintf(out + o, len - o, "%s", with);
    if (o >= len) o = len - 1;
  }
  out[o] = 0;
  if (!had) snprintf(out + o, len - o, ".%s", with);
}

static FILE *gasnetc_open_out(const char *var, const char *name, char *path, size_t len) {
  if (!strcmp(name, "stdout")) return stdout;
  if (!strcmp(name, "stderr") || !strcmp(name, "-")) return stderr;
  char rank[16];
  snprintf(rank, sizeof rank, "%u", (unsigned)gasnetc_g.mynode);
  gasnetc_trace_path(path, len, name, rank);
  FILE *f = fopen(path, "w");
  if (!f) gasnetc_fatal("%s: cannot write %s: %s", var, path, strerror(errno));
  return f;
}

void gasnetc_trace_read_env(const char *(*env)(const char *name, const char *dflt)) {
  unsigned me = gasnetc_g.mynode;
  const char *tf = env("GASNET_TRACEFILE", "unset (no trace)");
  const char *tm = env("GASNET_TRACEMASK", GASNETC_TRACE_ALL);
  const char *tn = env("GASNET_TRACENODES", "every rank");
  const char *tl = env("GASNET_TRACELOCAL", "1");
  const char *tfl = env("GASNET_TRACEFLUSH", "0");
  const char *sf = env("GASNET_STATSFILE", "unset (no statistics)");
  const char *sm = env("GASNET_STATSMASK", GASNETC_TRACE_ALL);
  const char *sn = env("GASNET_STATSNODES", "every rank");
  gasnetc_trace_local = !(tl && !strcmp(tl, "0"));
  gasnetc_trace_flush = tfl && *tfl && strcmp(tfl, "0");
  char path[4096];
  if (tf && *tf && gasnetc_nodes_has("GASNET_TRACENODES", tn, me)) {
    gasnetc_tracef = gasnetc_open_out("GASNET_TRACEFILE", tf, path, sizeof path);
    gasnetc_trace_mask = gasnetc_mask_parse(tm && *tm ? tm : GASNETC_TRACE_ALL);
    fprintf(gasnetc_tracef, "# GASNet trace, rank %u of %u, %s\n", me,
            (unsigned)gasnetc_g.nodes, GASNET_CONFIG_STRING);
  }
  gasnetc_g.statsfile = sf && *sf ? sf : NULL;
  if (gasnetc_g.statsfile && gasnetc_nodes_has("GASNET_STATSNODES", sn, me)) {
    gasnetc_statsf = gasnetc_open_out("GASNET_STATSFILE", sf, gasnetc_stats_path,
                                      sizeof gasnetc_stats_path);
    if (strchr(sf, '%') && (!sn || !*sn)) gasnetc_stats_pattern = sf;
    gasnetc_stats_mask = gasnetc_mask_parse(sm && *sm ? sm : GASNETC_TRACE_ALL);
  }
  if (!gasnetc_tracef) return; /* A is never traced: no message numbers */
  gasnetc_am_nsent = calloc(2 * (size_t)gasnetc_g.nodes, sizeof *gasnetc_am_nsent);
  gasnetc_am_nrecv = calloc(2 * (size_t)gasnetc_g.nodes, sizeof *gasnetc_am_nrecv);
  if (!gasnetc_am_nsent || !gasnetc_am_nrecv) gasnetc_fatal("gasnet_init: out of memory");
}

/* Called as gasnet_init's bootstrap exchange returns: the common zero of
 * every rank's clock; tracing and counting start now. */
void gasnetc_trace_start(void) {
  gasnetc_t0_ns = gasneti_now_ns();
  if (gasnetc_tracef) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char m[32];
    gasnetc_mask_format(m, gasnetc_trace_mask);
    fprintf(gasnetc_tracef, "# clock zero: the end of the bootstrap exchange, %lld.%09ld (CLOCK_REALTIME)\n"
            "# mask %s local %d\n", (long long)ts.tv_sec, ts.tv_nsec, m, gasnetc_trace_local);
    fflush(gasnetc_tracef);
  }
  gasnetc_trace_recompute();
}

/* One whole line per call (stdio locks the stream), so the threads of a
 * PAR rank never interleave within a line. */
static void gasnetc_trace_vline(uint64_t now, char cat, const char *fmt, va_list ap) {
  char line[1024];
  uint64_t t = now > gasnetc_t0_ns ? now - gasnetc_t0_ns : 0;
  int n = snprintf(line, sizeof line, "%u %llu.%03u (%c) ", (unsigned)gasnetc_g.mynode,
                   (unsigned long long)(t / 1000), (unsigned)(t % 1000), cat);
  int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
  if (len > sizeof line - 2) len = sizeof line - 2;
  line[len++] = '\n';
  fwrite(line, 1, len, gasnetc_tracef);
  if (gasnetc_trace_flush) fflush(gasnetc_tracef);
}

void gasnetc_trace_printf(char cat, const char *fmt, ...) {
  if (!gasnetc_tracef || !(gasnetc_trace_mask & GASNETC_TRACE_BIT(cat))) return;
  va_list ap;
  va_start(ap, fmt);
  gasnetc_trace_vline(gasneti_now_ns(), cat, fmt, ap);
  va_end(ap);
}

/* The same, for an event that happened at time now (gasneti_now_ns). */
static void gasnetc_trace_at(uint64_t now, char cat, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void gasnetc_trace_at(uint64_t now, char cat, const char *fmt, ...) {
  if (!gasnetc_tracef || !(gasnetc_trace_mask & GASNETC_TRACE_BIT(cat))) return;
  va_list ap;
  va_start(ap, fmt);
  gasnetc_trace_vline(now, cat, fmt, ap);
  va_end(ap);
}

void gasnetc_stats_printf(char cat, const char *fmt, ...) {
  if (!gasnetc_statsf || !(gasnetc_stats_mask & GASNETC_TRACE_BIT(cat))) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(gasnetc_statsf, "# (%c) %s\n", cat, line);
}

/* ---- the events ---------------------------------------------------------- */

static const char *gasnetc_am_cat(int wire_category) {
  return wire_category == GASNETC_WIRE_SHORT ? "short"
         : wire_category == GASNETC_WIRE_MEDIUM ? "medium" : "long";
}

void gasnetc_trace_am_send(uint64_t t, int is_request, int wire_category, gasnet_node_t dest,
                           unsigned handler, size_t nbytes) {
  if (!(gasnetc_trace_mask & GASNETC_TRACE_BIT('A'))) return;
  uint32_t seq = __atomic_add_fetch(&gasnetc_am_nsent[2 * (size_t)dest + !is_request], 1,
                                    __ATOMIC_RELAXED);
  gasnetc_trace_at(t, 'A', "AM_SEND %s %s to=%u handler=%u bytes=%zu seq=%u",
                       is_request ? "request" : "reply", gasnetc_am_cat(wire_category),
                       (unsigned)dest, handler, nbytes, seq);
}

void gasnetc_trace_am_recv(int is_request, int wire_category, gasnet_node_t src,
                           unsigned handler, size_t nbytes) {
  if (!(gasnetc_trace_mask & GASNETC_TRACE_BIT('A'))) return;
  uint32_t seq = __atomic_add_fetch(&gasnetc_am_nrecv[2 * (size_t)src + !is_request], 1,
                                    __ATOMIC_RELAXED);
  gasnetc_trace_printf('A', "AM_RECV %s %s from=%u handler=%u bytes=%zu seq=%u",
                       is_request ? "request" : "reply", gasnetc_am_cat(wire_category),
                       (unsigned)src, handler, nbytes, seq);
}

void gasnetc_trace_rma(int is_put, gasnet_node_t node, size_t nbytes, int local) {
  char cat = is_put ? 'P' : 'G';
  if (gasnetc_stats_mask & GASNETC_TRACE_BIT(cat)) {
    GASNETC_ATOMIC_ADD(&gasnetc_xstats[is_put ? GASNETC_XSTAT_puts : GASNETC_XSTAT_gets], 1);
    GASNETC_ATOMIC_ADD(&gasnetc_xstats[is_put ? GASNETC_XSTAT_put_bytes : GASNETC_XSTAT_get_bytes],
                       nbytes);
    if (local)
      GASNETC_ATOMIC_ADD(&gasnetc_xstats[is_put ? GASNETC_XSTAT_puts_local : GASNETC_XSTAT_gets_local], 1);
  }
  if (local && !gasnetc_trace_local) return;
  gasnetc_trace_printf(cat, "%s %s=%u bytes=%zu local=%d", is_put ? "PUT" : "GET",
                       is_put ? "to" : "from", (unsigned)node, nbytes, local);
}

void gasnetc_trace_barrier(int done, uint32_t team, uint32_t phase) {
  if (!done && (gasnetc_stats_mask & GASNETC_TRACE_BIT('B')))
    GASNETC_ATOMIC_ADD(&gasnetc_xstats[GASNETC_XSTAT_barriers], 1);
  gasnetc_trace_printf('B', "%s team=%u phase=%u", done ? "BARRIER_DONE" : "BARRIER_NOTIFY",
                       (unsigned)team, (unsigned)phase);
}

void gasnetc_trace_coll(int done, const char *name, uint32_t team, uint32_t seq) {
  if (!done && (gasnetc_stats_mask & GASNETC_TRACE_BIT('W')))
    GASNETC_ATOMIC_ADD(&gasnetc_xstats[GASNETC_XSTAT_collectives], 1);
  gasnetc_trace_printf('W', "%s op=%s team=%u seq=%u", done ? "COLL_DONE" : "COLL_START",
                       name, (unsigned)team, (unsigned)seq);
}

void gasnetc_trace_ratomic(gasnet_node_t node, const char *op) {
  if (gasnetc_stats_mask & GASNETC_TRACE_BIT('R'))
    GASNETC_ATOMIC_ADD(&gasnetc_xstats[GASNETC_XSTAT_ratomics], 1);
  gasnetc_trace_printf('R', "RATOMIC op=%s to=%u", op, (unsigned)node);
}

void gasnetc_trace_wait(int done) {
  if (!done && (gasnetc_stats_mask & GASNETC_TRACE_BIT('S')))
    GASNETC_ATOMIC_ADD(&gasnetc_xstats[GASNETC_XSTAT_waits_blocked], 1);
  gasnetc_trace_printf('S', done ? "WAIT_END" : "WAIT_BEGIN");
}

/* ---- masks at run time (GASNETT_{TRACE,STATS}_{GET,SET}MASK) --------------- */

const char *gasnetc_trace_getmask(int stats) {
  gasnetc_mask_format(gasnetc_mask_text[stats], stats ? gasnetc_stats_mask : gasnetc_trace_mask);
  return gasnetc_mask_text[stats];
}

/* A mask has effect only where the file is open (the spec's note). */
void gasnetc_trace_setmask(int stats, const char *mask) {
  unsigned m = gasnetc_mask_parse(mask);
  if (stats && gasnetc_statsf) __atomic_store_n(&gasnetc_stats_mask, m, __ATOMIC_RELAXED);
  if (!stats && gasnetc_tracef) __atomic_store_n(&gasnetc_trace_mask, m, __ATOMIC_RELAXED);
  gasnetc_trace_recompute();
}

/* Whether local puts and gets are traced: never without a trace file. */
int gasnetc_trace_getlocal(void) { return gasnetc_tracef ? gasnetc_trace_local : 0; }
void gasnetc_trace_setlocal(int on) { gasnetc_trace_local = on != 0; }

/* ---- statistics ------------------------------------------------------------ */

static const char *const gasnetc_xstat_names[] = {
#define GASNETC_XSTAT_NAME(name, cat) #name,
  GASNETC_XSTATS(GASNETC_XSTAT_NAME)
#undef GASNETC_XSTAT_NAME
};
static const char gasnetc_xstat_cats[] = {
#define GASNETC_XSTAT_CAT(name, cat) cat,
  GASNETC_XSTATS(GASNETC_XSTAT_CAT)
#undef GASNETC_XSTAT_CAT
};

/* The extended API's counters of the categories in mask. */
void gasnetc_xstats_print(FILE *f, unsigned mask) {
  for (int i = 0; i < GASNETC_XSTAT_COUNT; i++)
    if (mask & GASNETC_TRACE_BIT(gasnetc_xstat_cats[i]))
      fprintf(f, "ext.%s %llu\n", gasnetc_xstat_names[i],
              (unsigned long long)__atomic_load_n(&gasnetc_xstats[i], __ATOMIC_RELAXED));
}

void gasnetc_stats_reset(void) {
  for (int i = 0; i < GASNETC_XSTAT_COUNT; i++)
    __atomic_store_n(&gasnetc_xstats[i], 0, __ATOMIC_RELAXED);
  for (int i = 0; i < GASNETC_STAT_COUNT; i++)
    __atomic_store_n(&gasnetc_stats[i], 0, __ATOMIC_RELAXED);
}

/* GASNETT_STATS_DUMP: the counters now, appended; reset if asked. */
void gasnetc_stats_dump(int reset) {
  if (!gasnetc_statsf) return;
  fprintf(gasnetc_statsf, "# counters: GASNETT_STATS_DUMP%s\n", reset ? ", then reset" : "");
  gasnetc_stats_print(gasnetc_statsf, gasnetc_stats_mask);
  fflush(gasnetc_statsf);
  if (reset) gasnetc_stats_reset();
}

/* The stream, for the last time (exit): nothing is written or counted after. */
FILE *gasnetc_stats_take(void) {
  FILE *f = gasnetc_statsf;
  gasnetc_statsf = NULL;
  return f;
}
unsigned gasnetc_stats_outmask(void) { return gasnetc_stats_mask | GASNETC_TRACE_BIT('U'); }
const char *gasnetc_stats_rankpath(void) { return gasnetc_stats_pattern ? gasnetc_stats_path : NULL; }
const char *gasnetc_stats_sumpattern(void) { return gasnetc_stats_pattern; }

void gasnetc_trace_close(void) {
  if (!gasnetc_tracef) return;
  fputs("# end\n", gasnetc_tracef);
  if (gasnetc_tracef != stdout && gasnetc_tracef != stderr) fclose(gasnetc_tracef);
  else fflush(gasnetc_tracef);
  __atomic_store_n(&gasnetc_trace_mask, 0, __ATOMIC_RELAXED);
  gasnetc_trace_recompute();
  gasnetc_tracef = NULL;
}
