/*
 * gasneti_host.h - where a process runs, as the processes of a job tell
 * each other at start-up (the GASNet core, core/gasnetc_host.c, and
 * Portals, portals/ptli_net.c, exchange it through the bootstrap).
 *
 * Processes share CPUs when their kernels have the same boot id
 * (/proc/sys/kernel/random/boot_id): network namespaces and containers on
 * one kernel share its CPUs, two machines never share an id. A "host" is
 * narrower: one kernel AND one network namespace (the inode of
 * /proc/self/ns/net): containers and the test suite's namespace "hosts"
 * share a kernel, a host name and /dev/shm, yet each has its own
 * addresses, the way separate machines do.
 */
#ifndef GASNETI_HOST_H
#define GASNETI_HOST_H

#include <stdint.h>

typedef struct {
  uint8_t id[16];     /* the kernel: its boot id (else the host name, folded) */
  uint64_t netns;     /* inode of the network namespace: with id, the host */
  uint8_t cpus[128];  /* the CPUs this process may run on (a cpu_set_t) */
} gasneti_host_rec_t;

/* This process's record (reads /proc; no state kept). */
void gasneti_host_rec(gasneti_host_rec_t *mine);
/* One kernel (the CPUs are shared). */
int gasneti_same_kernel(const gasneti_host_rec_t *a, const gasneti_host_rec_t *b);
/* One kernel and one network namespace. */
int gasneti_same_host(const gasneti_host_rec_t *a, const gasneti_host_rec_t *b);

#endif /* GASNETI_HOST_H */
