/*
 * gasneti_host.c - this process's host record (gasneti_host.h).
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gasneti_host.h"

_Static_assert(sizeof(cpu_set_t) == sizeof(((gasneti_host_rec_t *)0)->cpus),
               "the record carries a whole cpu_set_t");

/* 16 bytes that differ between kernels: the boot id, else the host name. */
static void gasneti_host_id(uint8_t id[16]) {
  memset(id, 0, 16);
  char text[64] = "";
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f) {
    if (!fgets(text, sizeof text, f)) text[0] = 0;
    fclose(f);
  }
  int n = 0; /* hex digits read */
  for (const char *c = text; *c && n < 32; c++) {
    int v = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10 : -1;
    if (v < 0) continue;
    id[n / 2] |= (uint8_t)(n % 2 ? v : v << 4);
    n++;
  }
  if (n == 32) return;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  memset(id, 0, 16);
  for (size_t i = 0; host[i]; i++) id[i % 16] ^= (uint8_t)host[i];
}

void gasneti_host_rec(gasneti_host_rec_t *mine) {
  gasneti_host_id(mine->id);
  struct stat st;
  mine->netns = stat("/proc/self/ns/net", &st) == 0 ? (uint64_t)st.st_ino : 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < (n > 0 ? n : 1) && c < CPU_SETSIZE; c++) CPU_SET(c, &set);
  }
  memcpy(mine->cpus, &set, sizeof set);
}

int gasneti_same_kernel(const gasneti_host_rec_t *a, const gasneti_host_rec_t *b) {
  return !memcmp(a->id, b->id, sizeof a->id);
}

int gasneti_same_host(const gasneti_host_rec_t *a, const gasneti_host_rec_t *b) {
  return gasneti_same_kernel(a, b) && a->netns == b->netns;
}
