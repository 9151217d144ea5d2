/*
 * fuzz_boot_pmi1.c - libFuzzer harness for the PMI-1 reply parser
 * (bootstrap/boot_pmi1.c: read_line, which never reads past a newline, and
 * the word-by-word checks of every reply). The production client runs
 * unchanged on PMI_FD, one end of a socketpair whose other end holds the
 * input and is then shut: every reply it waits for is the next line of
 * the input, and the end of the input is the launcher closing PMI_FD.
 * Sequence: init (init, get_maxes, get_my_kvsname), put, fence, three
 * gets, finalize.
 *
 * Input: the launcher's reply lines.
 */
#include "boot_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int boot_err(const char *name, int rc, const char *fmt, ...) {
  (void)name; (void)fmt;
  return rc;
}
int boot_mpi_state(void) { return -1; } /* no MPI in this process */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) abort();
  /* Room for the whole input and for every request the client sends. */
  int big = 1 << 20;
  setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  for (size_t off = 0; off < size;) {
    ssize_t n = write(sv[1], data + off, size - off);
    if (n <= 0) abort();
    off += (size_t)n;
  }
  shutdown(sv[1], SHUT_WR);
  char fd[16];
  snprintf(fd, sizeof fd, "%d", sv[0]);
  setenv("PMI_FD", fd, 1);
  setenv("PMI_RANK", "1", 1);
  setenv("PMI_SIZE", "2", 1);
  boot_kvs_t *k = &boot_pmi1_kvs;
  uint32_t rank, nranks;
  if (k->init(&rank, &nranks) == 0) {
    if (k->max_val > 1 << 20) k->max_val = 1 << 20; /* what boot_kvs.c allocates */
    char *val = malloc(k->max_val + 1);
    if (k->put("gn0-1-0", "dmFsdWU") == 0 && k->fence() == 0) {
      for (int i = 0; i < 3; i++) {
        char key[32];
        snprintf(key, sizeof key, "gn1-0-%d", i);
        if (k->get(0, key, val, k->max_val + 1) < 0) break;
        if (strlen(val) > k->max_val) __builtin_trap();
      }
    }
    free(val);
    k->fini();
  }
  close(sv[0]);
  close(sv[1]);
  return 0;
}
