/*
 * gasnetc_stats.c - per-rank counters, written at exit when GASNET_STATSFILE
 * is set: to "<GASNET_STATSFILE>.<rank>", one "name value" per line: the
 * host and wait policy (config.*), the core's counters, then the
 * transport's (ops->stats). gasnetc_stat_get (gasnet.h) reads one of
 * the same lines at run time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gasnetc_internal.h"
#include "gasnetc_live.h"

uint64_t gasnetc_stats[GASNETC_STAT_COUNT];

static const char *const gasnetc_stat_names[] = {
#define GASNETC_STAT_NAME(name) #name,
  GASNETC_STATS(GASNETC_STAT_NAME)
#undef GASNETC_STAT_NAME
};

/* Every counter of this node, one "name value" per line (comments: "#"). */
static void gasnetc_stats_print(FILE *f) {
  fprintf(f, "# GASNet core, node %u of %u, %s\n", (unsigned)gasnetc_g.mynode,
          (unsigned)gasnetc_g.nodes, GASNET_CONFIG_STRING);
  fprintf(f, "config.host_nodes %u\nconfig.host_cpus %u\nconfig.polite %d\nconfig.spin_usec %llu\n",
          gasnetc_g.host_nodes, gasnetc_g.host_cpus, gasnetc_g.polite,
          (unsigned long long)(gasnetc_g.spin_ns / 1000));
  for (int i = 0; i < GASNETC_STAT_COUNT; i++)
    fprintf(f, "core.%s %llu\n", gasnetc_stat_names[i],
            (unsigned long long)__atomic_load_n(&gasnetc_stats[i], __ATOMIC_RELAXED));
  for (unsigned i = 0; i < gasnetc_g.ntp; i++) {
    fprintf(f, "# transport %s\n", gasnetc_g.tp[i].ops->name);
    if (gasnetc_g.tp[i].ops->stats) gasnetc_g.tp[i].ops->stats(gasnetc_g.tp[i].t, f);
  }
  fprintf(f, "# liveness\n");
  gasnetc_live_stats(f);
}

void gasnetc_stats_write(void) {
  if (!gasnetc_g.statsfile) return;
  char path[4096];
  snprintf(path, sizeof path, "%s.%u", gasnetc_g.statsfile, (unsigned)gasnetc_g.mynode);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "GASNet: GASNET_STATSFILE: cannot write %s\n", path);
    return;
  }
  gasnetc_stats_print(f);
  fclose(f);
}

/* gasnet.h: the same lines as GASNET_STATSFILE, into memory, searched for
 * `name`: one source of names and values, whatever the transport. */
int gasnetc_stat_get(const char *name, uint64_t *value) {
  GASNETC_CHECK_ATTACHED("gasnetc_stat_get");
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return 0;
  gasnetc_stats_print(f);
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
