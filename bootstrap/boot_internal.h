/*
 * boot_internal.h - the bootstrap client's back ends (not installed).
 *
 * boot.c chooses one back end per process (boot_pick) and forwards the
 * boot.h calls to it. There are two kinds:
 *
 *   boot_ops_t   a whole bootstrap: boot_gasnetrun (the gasnetrun launcher's
 *                connection, boot_gasnetrun.c) and boot_kvs_ops (below).
 *   boot_kvs_t   a launcher's key-value space (PMI-1, PMI2, PMIx): put,
 *                fence, get. boot_kvs.c builds the collectives on top of
 *                it once, for every such launcher.
 *
 * HAVE_PMI2 and HAVE_PMIX come from bootstrap/Makefile.am (configure's
 * choice); a build without them has gasnetrun and pmi1 only.
 *
 * Every function returns 0 or a negative errno value, after printing one
 * line that names the back end and the problem ("gasnet boot (pmi1): ...").
 */
#ifndef BOOT_INTERNAL_H
#define BOOT_INTERNAL_H

#include "boot.h"

typedef struct boot_ops {
  const char *name;
  /* key: static storage for the job key; valid once key_ready ran */
  int (*init)(uint32_t *rank, uint32_t *size, uint8_t key[BOOT_JOB_KEY_LEN]);
  int (*exchange)(const void *mine, size_t len, void *all);
  int (*broadcast)(void *buf, size_t len, uint32_t root);
  int (*barrier)(void);
  const char *(*getenv)(const char *name);   /* NULL: the process's getenv */
  void (*key_ready)(void);                   /* NULL, or make init's key valid */
  int (*self_addr)(struct sockaddr_storage *addr, socklen_t *len);
  void (*fini)(int code);
  void (*abort)(int code, const char *why);  /* may return: boot.c exits */
} boot_ops_t;

/*
 * A launcher's key-value space. Keys and values are printable text without
 * blanks, '=' or ';' (boot_kvs.c encodes binary data), at most max_key and
 * max_val bytes. A put is visible to every rank after the next fence, which
 * is also a barrier. Not re-entered; called from one thread.
 */
typedef struct boot_kvs {
  const char *name;                          /* "pmi1", "pmi2", "pmix" */
  size_t max_key, max_val;                   /* set by init */
  int local_gets;            /* a get after a fence costs no round trip */
  int (*init)(uint32_t *rank, uint32_t *size);
  int (*put)(const char *key, const char *val);
  int (*fence)(void);
  /* rank's value of key into val (NUL-terminated, at most max_val bytes) */
  int (*get)(uint32_t rank, const char *key, char *val, size_t cap);
  void (*abort)(int code, const char *why);  /* tell the launcher; may return */
  void (*fini)(void);
} boot_kvs_t;

extern const boot_ops_t boot_gasnetrun_ops;
extern boot_ops_t boot_kvs_ops;              /* named after its boot_kvs_t */
extern boot_kvs_t boot_pmi1_kvs;
#ifdef HAVE_PMI2
extern boot_kvs_t boot_pmi2_kvs;
#endif
#ifdef HAVE_PMIX
extern boot_kvs_t boot_pmix_kvs;
#endif

/* boot_kvs.c: the key-value space boot_kvs_ops runs on (set before init). */
void boot_kvs_use(boot_kvs_t *kvs);

/* boot.c: whether this program uses MPI: -1 not linked with it, 0 linked
 * but MPI_Init not called yet, 1 initialised (MPI_Initialized). */
int boot_mpi_state(void);

/* boot.c: print "gasnet boot (NAME): <what>: <strerror(-rc)>", return rc. */
/* boot_self.c: no launcher, and argv[1] (else /proc/self/cmdline's) is a
 * rank count: exec gasnetrun to start that many; returns only on failure
 * (-errno, said on stderr). 0: argv[1] is not a count, a job of one rank. */
int boot_self_launch(int *argc, char ***argv);

int boot_err(const char *name, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* boot_dl.c: dlopen `lib` and fill fns[i] with syms[i] (NULL-terminated);
 * on failure print why (naming pkg, the Debian package) and return -ENOENT. */
int boot_dl_load(const char *backend, const char *lib, const char *pkg,
                 const char *const *syms, void **fns);

#endif /* BOOT_INTERNAL_H */
