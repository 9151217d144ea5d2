/*
 * gasnetc_stats.c - per-rank counters, written at exit when GASNET_STATSFILE
 * is set (gasnetc_trace.c opens the file at gasnet_init: '%' is the rank,
 * or ".<rank>" is appended): one "name value" per line, the sections the
 * categories of GASNET_STATSMASK select: the host and wait policy
 * (config.*, I), the core's AM counters (A), the extended API's (ext.*,
 * P G B C R S), then each transport's (ops->stats) and liveness (N).
 * gasnetc_stat_get (gasnet.h) reads one of the same lines at run time.
 * When the name has '%' and every rank writes, the last rank to finish
 * writes the job's sum too ('%' replaced by "sum"): "name sum min max".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gasnetc_internal.h"

uint64_t gasnetc_stats[GASNETC_STAT_COUNT];

static const char *const gasnetc_stat_names[] = {
#define GASNETC_STAT_NAME(name) #name,
  GASNETC_STATS(GASNETC_STAT_NAME)
#undef GASNETC_STAT_NAME
};

#define GASNETC_IN(mask, c) ((mask) & GASNETC_TRACE_BIT(c))

/* Every counter of this node in the categories of mask, one "name value"
 * per line (comments: "#"). */
void gasnetc_stats_print(FILE *f, unsigned mask) {
  fprintf(f, "# GASNet core, node %u of %u, %s\n", (unsigned)gasnetc_g.mynode,
          (unsigned)gasnetc_g.nodes, GASNET_CONFIG_STRING);
  if (GASNETC_IN(mask, 'I'))
    fprintf(f, "config.host_nodes %u\nconfig.host_cpus %u\nconfig.polite %d\nconfig.spin_usec %llu\n",
            gasnetc_g.host_nodes, gasnetc_g.host_cpus, gasnetc_g.polite,
            (unsigned long long)(gasnetc_g.spin_ns / 1000));
  if (GASNETC_IN(mask, 'A'))
    for (int i = 0; i < GASNETC_STAT_COUNT; i++)
      fprintf(f, "core.%s %llu\n", gasnetc_stat_names[i],
              (unsigned long long)__atomic_load_n(&gasnetc_stats[i], __ATOMIC_RELAXED));
  gasnetc_xstats_print(f, mask);
  if (!GASNETC_IN(mask, 'C')) return;
  for (unsigned i = 0; i < gasnetc_g.ntp; i++) {
    fprintf(f, "# transport %s\n", gasnetc_g.tp[i].ops->name);
    if (gasnetc_g.tp[i].ops->stats) gasnetc_g.tp[i].ops->stats(gasnetc_g.tp[i].t, f);
  }
  fprintf(f, "# liveness\n");
  gasnetc_conduit.live->stats(f);
}

/* ---- the job's sum ---------------------------------------------------------- */

#define GASNETC_SUM_MAX 512 /* distinct counter names (a few hundred today) */
typedef struct {
  char name[64];
  unsigned long long sum, min, max;
} gasnetc_sum_t;

/* Add the final block of one rank's file to sums; 0 unless it is complete
 * (its last line is "# end"). */
static int gasnetc_sum_file(const char *path, gasnetc_sum_t *sums, unsigned *n, int first) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[512];
  long start = 0;
  int ended = 0;
  while (fgets(line, sizeof line, f)) { /* the last block starts at its marker */
    if (!strncmp(line, "# counters: at exit", 19)) start = ftell(f);
    ended = !strcmp(line, "# end\n");
  }
  if (!ended) { fclose(f); return 0; }
  fseek(f, start, SEEK_SET);
  while (fgets(line, sizeof line, f)) {
    char name[64];
    unsigned long long v;
    if (line[0] == '#' || sscanf(line, "%63s %llu", name, &v) != 2) continue;
    unsigned i = 0;
    while (i < *n && strcmp(sums[i].name, name)) i++;
    if (i == *n) {
      if (*n == GASNETC_SUM_MAX) continue;
      snprintf(sums[i].name, sizeof sums[i].name, "%s", name);
      sums[i].sum = 0; sums[i].min = v; sums[i].max = v;
      (*n)++;
      if (!first) sums[i].min = 0; /* absent from an earlier rank */
    }
    sums[i].sum += v;
    if (v < sums[i].min) sums[i].min = v;
    if (v > sums[i].max) sums[i].max = v;
  }
  fclose(f);
  return 1;
}

/* Sum every rank's file if all are complete. Ranks finish in any order and
 * none waits for another: each tries after closing its own, so the last
 * one to close sees them all; two that both do write the same bytes, each
 * through its own temporary file renamed into place. */
static void gasnetc_stats_sum(const char *pattern) {
  gasnetc_sum_t *sums = calloc(GASNETC_SUM_MAX, sizeof *sums);
  unsigned n = 0;
  char path[4096], tmp[4200];
  if (!sums) return;
  for (gasnet_node_t r = 0; r < gasnetc_g.nodes; r++) {
    char rank[16];
    snprintf(rank, sizeof rank, "%u", (unsigned)r);
    gasnetc_trace_path(path, sizeof path, pattern, rank);
    if (!gasnetc_sum_file(path, sums, &n, r == 0)) { free(sums); return; }
  }
  gasnetc_trace_path(path, sizeof path, pattern, "sum");
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (f) {
    fprintf(f, "# GASNet statistics: the sum of %u ranks (name sum min max)\n",
            (unsigned)gasnetc_g.nodes);
    for (unsigned i = 0; i < n; i++)
      fprintf(f, "%s %llu %llu %llu\n", sums[i].name, sums[i].sum, sums[i].min, sums[i].max);
    if (fclose(f) == 0 && rename(tmp, path) == 0) tmp[0] = 0;
    if (tmp[0]) unlink(tmp);
  }
  free(sums);
}

void gasnetc_stats_write(void) {
  FILE *f = gasnetc_stats_take();
  if (!f) return;
  fprintf(f, "# counters: at exit\n");
  gasnetc_stats_print(f, gasnetc_stats_outmask());
  fputs("# end\n", f);
  if (f == stdout || f == stderr) { fflush(f); return; }
  if (fclose(f) != 0) fprintf(stderr, "GASNet: GASNET_STATSFILE: cannot write this rank's file\n");
  if (gasnetc_stats_sumpattern()) gasnetc_stats_sum(gasnetc_stats_sumpattern());
}

/* gasnet.h: the same lines as GASNET_STATSFILE, into memory, searched for
 * `name`: one source of names and values, whatever the transport. */
int gasnetc_stat_get(const char *name, uint64_t *value) {
  GASNETC_CHECK_ATTACHED("gasnetc_stat_get");
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return 0;
  gasnetc_stats_print(f, ~0u);
  fclose(f);
  int found = 0;
  size_t n = strlen(name);
  for (const char *line = text; line && *line;) {
    if (!strncmp(line, name, n) && line[n] == ' ') {
      *value = strtoull(line + n + 1, NULL, 10);
      found = 1;
      break;
    }
    line = strchr(line, '\n');
    if (line) line++;
  }
  free(text);
  return found;
}
