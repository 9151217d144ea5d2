/*
 * boot.h - the bootstrap client: what a GASNet process (a "rank") gets from
 * the job launcher that started it: gasnetrun, or a cluster's launcher
 * through PMI (mpiexec, mpirun, srun). boot.c picks the back end. The
 * client lives in bootstrap/, apart from the launcher (spawner/); the wire
 * protocol the two speak is spawnproto/, which both link and which calls
 * neither.
 *
 * The core (core/) calls these, and nothing else in the library talks to the
 * launcher. Every call here is collective-free except where it says
 * "collective": a collective call must be made by every rank, in the same
 * order, or the job hangs until the launcher tears it down.
 *
 * A program started without any launcher as `prog N args` (N a number)
 * starts N ranks: boot_init execs gasnetrun, and returns only if it cannot
 * (boot_self.c). Otherwise such a program is a job of one rank: boot_init
 * succeeds with rank 0 of 1, the collectives are local copies, boot_getenv
 * is getenv. Under PMI boot_getenv is getenv too: those launchers pass the
 * environment to every rank themselves.
 *
 * Thread safety: none. The core serialises its calls (one at a time).
 * Errors: a call that returns int returns 0 on success and a negative errno
 * value on failure, after printing one line naming the problem to stderr.
 * Lost contact with the launcher is not survivable: the rank exits.
 */
#ifndef BOOT_H
#define BOOT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Size of the per-job key (boot_job_key). */
#define BOOT_JOB_KEY_LEN 32

/*
 * Connect to the launcher (when there is one), authenticate, learn this
 * rank's number and the job's size, and receive the launcher's environment
 * snapshot. Removes nothing from argc/argv (under `prog N` the ranks are
 * new processes whose argv lacks N), but reads argv[1]: callers pass the
 * real ones, or NULL (then /proc/self/cmdline is read). Must be the first boot_ call; a second call returns -EALREADY.
 */
int boot_init(int *argc, char ***argv);

/* This process's rank, 0..boot_size()-1, and the number of ranks. */
uint32_t boot_rank(void);
uint32_t boot_size(void);

/* The back end in use: "gasnetrun", "pmi1", "pmi2", "pmix" or "none". */
const char *boot_name(void);

/*
 * Collective all-gather: every rank contributes `len` bytes (the same len on
 * every rank); on return `all` holds size*len bytes, rank r's blob at
 * all + r*len. Payloads above an internal threshold travel zlib-compressed.
 */
int boot_exchange(const void *mine, size_t len, void *all);

/*
 * Collective broadcast: on return every rank's buf holds the len bytes that
 * rank `root` passed. len must be the same on every rank.
 */
int boot_broadcast(void *buf, size_t len, uint32_t root);

/* Collective barrier: returns once every rank has entered it. */
int boot_barrier(void);

/*
 * getenv over the launcher's environment snapshot (spec 2.2.0.4): the same
 * answer on every rank, whatever that host's own environment says. The
 * returned string lives until the process exits.
 */
const char *boot_getenv(const char *name);

/*
 * A secret shared by the ranks of this job and by nobody else: derived from
 * the launcher's per-job random secret (never the secret itself). The
 * transports derive their datagram tags / frame checks from it. For a
 * one-rank job without a launcher it is fresh random bytes.
 */
void boot_job_key(unsigned char key[BOOT_JOB_KEY_LEN]);

/*
 * The local address of this rank's connection to its node (the launcher or
 * the relay on its host). Usually the address of the interface that reaches
 * the rest of the job, but a loopback address when that node was itself
 * reached over loopback (this host listed as "localhost" or 127.0.0.1): the
 * core then binds to its route toward a remote rank instead
 * (gasnetc_pick_bind_addr). Returns -ENOTCONN when there is no such
 * connection (no launcher, or PMI): the core then finds an address itself.
 */
int boot_self_addr(struct sockaddr_storage *addr, socklen_t *len);

/*
 * Normal exit (spec 2.1.0.5 gasnet_exit): tell the launcher this rank exits
 * with `code`, and that the job is ending. The launcher lets the other ranks
 * exit by themselves for a grace period, then sends them SIGQUIT, then
 * SIGKILL; it returns the first non-zero code of any rank (else 0). The
 * caller flushes its output and _exit()s right after this returns.
 */
void boot_fini(int code);

/*
 * Abnormal end: ask the launcher to tear the whole job down now and exit
 * with `code`, printing `why` (one line, may be NULL). Does not return.
 */
void boot_abort(int code, const char *why) __attribute__((noreturn));

#endif /* BOOT_H */
