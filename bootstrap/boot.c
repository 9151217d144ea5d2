/*
 * boot.c - the bootstrap client (boot.h): picks the back end that matches
 * how this process was started, and forwards every call to it.
 *
 * Back ends (boot_internal.h): gasnetrun (the launcher's connection),
 * pmi1 (the PMI-1 wire protocol over PMI_FD: MPICH's Hydra mpiexec), pmi2
 * (Slurm's libpmi2: srun --mpi=pmi2), pmix (libpmix: Open MPI's mpirun,
 * srun --mpi=pmix), and none (a job of one rank). GASNET_SPAWNER names one;
 * unset, the environment decides (boot_pick); with no launcher at all, a
 * first argument that is a number starts that many ranks (boot_self.c). A process that shows per-task
 * signs of a launcher this build cannot use stops with one line saying so,
 * rather than run as a silent job of one rank (docs/launcher.md, "Other
 * launchers").
 */
#include "boot_internal.h"
#include "spawn_proto.h"
#include "gasneti_env.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
  int inited;
  const boot_ops_t *ops;      /* NULL: a job of one rank */
  uint32_t rank, size;
  uint8_t key[BOOT_JOB_KEY_LEN];
} boot = { 0, NULL, 0, 1, {0} };

int boot_err(const char *name, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "gasnet boot (%s): ", name);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (rc < 0) fprintf(stderr, ": %s", strerror(-rc));
  fputc('\n', stderr);
  return rc;
}

/* MPI_Initialized has the same signature in every MPI, and may be called
 * before MPI_Init. Weak: a program that links no MPI leaves it NULL. */
extern int MPI_Initialized(int *flag) __attribute__((weak));

int boot_mpi_state(void)
{
  int flag = 0;
  if (!MPI_Initialized) return -1;
  MPI_Initialized(&flag);
  return flag != 0;
}

/* A number from the environment, 0 when unset or not a number. */
static long env_num(const char *name)
{
  uint64_t x;
  return gasneti_parse_uint(getenv(name), 0, LONG_MAX, &x) == 0 ? (long)x : 0;
}

/* The launcher is there but this build cannot talk to it: one line, exit. */
static void boot_unusable(const char *launcher, const char *missing) __attribute__((noreturn));
static void boot_unusable(const char *launcher, const char *missing)
{
  fprintf(stderr, "gasnet boot: started by %s, but %s (see docs/launcher.md, \"Other launchers\")\n",
          launcher, missing);
  exit(1);
}

static boot_kvs_t *kvs_named(const char *name)
{
  if (!strcmp(name, "pmi1")) return &boot_pmi1_kvs;
#ifdef HAVE_PMI2
  if (!strcmp(name, "pmi2")) return &boot_pmi2_kvs;
#endif
#ifdef HAVE_PMIX
  if (!strcmp(name, "pmix")) return &boot_pmix_kvs;
#endif
  return NULL;
}

static const boot_ops_t *use_kvs(boot_kvs_t *k)
{
  boot_kvs_use(k);
  return &boot_kvs_ops;
}

/* GASNET_SPAWNER=NAME: that back end or an error (-EINVAL). */
static int pick_named(const char *s, const boot_ops_t **ops)
{
  boot_kvs_t *k;
  if (!strcmp(s, "none")) { *ops = NULL; return 0; }
  if (!strcmp(s, "gasnetrun")) {
    if (!getenv("GASNET_BOOT_FD"))
      return boot_err("gasnetrun", -EINVAL, "GASNET_SPAWNER=gasnetrun, but this process was not "
                      "started by gasnetrun (no GASNET_BOOT_FD)");
    *ops = &boot_gasnetrun_ops;
    return 0;
  }
  if ((k = kvs_named(s))) { *ops = use_kvs(k); return 0; }
  if (!strcmp(s, "pmi2") || !strcmp(s, "pmix"))
    return boot_err(s, -EINVAL, "GASNET_SPAWNER=%s, but this library was built without %s "
                    "(configure found no %s)", s, s,
                    !strcmp(s, "pmi2") ? "slurm/pmi2.h: install libpmi2-0-dev" : "pmix.h: install libpmix-dev");
  return boot_err("GASNET_SPAWNER", -EINVAL, "'%s' is not one of gasnetrun, pmi1, pmi2, pmix, none", s);
}

/* PMI_FD is set: Hydra's mpiexec, or Slurm's srun --mpi=pmi2 (Hydra sets
 * HYDI_CONTROL_FD). Slurm's server takes one init per connection, PMI-1 or
 * PMI2: after MPI_Init we speak PMI-1 on MPI's session (boot_pmi1.c);
 * before it, MPI's own init would hang. */
static const boot_ops_t *pick_pmi_fd(void)
{
  if (getenv("SLURM_STEP_ID") && !getenv("HYDI_CONTROL_FD")) {
    int mpi = boot_mpi_state();
    if (mpi == 0)
      boot_unusable("srun --mpi=pmi2 in a program that uses MPI",
                    "gasnet_init was called before MPI_Init: Slurm's PMI server takes one "
                    "init per process, and MPI's would hang; call MPI_Init first, or use srun --mpi=pmix");
#ifdef HAVE_PMI2
    if (mpi < 0) return use_kvs(&boot_pmi2_kvs);
#endif
  }
  return use_kvs(&boot_pmi1_kvs);
}

/* Per-task signs of a launcher that gave us no PMI we can use: stop. */
static void refuse_unusable(void)
{
  char why[160];
  if (env_num("OMPI_COMM_WORLD_SIZE") > 1) {
    snprintf(why, sizeof why, "Open MPI's launcher (OMPI_COMM_WORLD_SIZE=%ld)", env_num("OMPI_COMM_WORLD_SIZE"));
    boot_unusable(why, "it passed no PMIx server (no PMIX_NAMESPACE)");
  }
  if (getenv("SLURM_STEP_ID") && env_num("SLURM_NTASKS") > 1) {
    snprintf(why, sizeof why, "srun with %ld tasks (SLURM_STEP_ID is set)", env_num("SLURM_NTASKS"));
    boot_unusable(why, "it gave them no PMI: use srun --mpi=pmi2 or srun --mpi=pmix");
  }
  if (env_num("PMI_SIZE") > 1) {
    snprintf(why, sizeof why, "a PMI launcher (PMI_SIZE=%ld)", env_num("PMI_SIZE"));
    boot_unusable(why, "it passed no PMI_FD (PMI_PORT singletons are not supported)");
  }
}

/* No GASNET_SPAWNER: what the environment shows (docs/launcher.md); NULL
 * for a job of one rank. */
static const boot_ops_t *pick_auto(void)
{
  if (getenv("GASNET_BOOT_FD")) return &boot_gasnetrun_ops;
  if (getenv("PMIX_NAMESPACE") && getenv("PMIX_RANK")) {
#ifdef HAVE_PMIX
    return use_kvs(&boot_pmix_kvs);
#else
    boot_unusable("a PMIx launcher (PMIX_NAMESPACE is set: Open MPI's mpirun or srun --mpi=pmix)",
                  "this library was built without PMIx (install libpmix-dev and rebuild)");
#endif
  }
  if (getenv("PMI_FD")) return pick_pmi_fd();
  refuse_unusable();
  return NULL;
}

int boot_init(int *argc, char ***argv)
{
  (void)argc; (void)argv;
  if (boot.inited) return -EALREADY;
  boot.inited = 1;
  const char *s = getenv("GASNET_SPAWNER");
  int rc;
  if (s && *s) {
    if ((rc = pick_named(s, &boot.ops)) < 0) return rc;
  } else if (!(boot.ops = pick_auto()) && (rc = boot_self_launch(argc, argv)) < 0) {
    return rc;                                       /* ./prog N that cannot start */
  }
  if (!boot.ops) {                                   /* no launcher: one rank */
    rc = spawn_random(boot.key, sizeof boot.key);
    return rc < 0 ? boot_err("none", rc, "getrandom") : 0;
  }
  return boot.ops->init(&boot.rank, &boot.size, boot.key);
}

uint32_t boot_rank(void) { return boot.rank; }
uint32_t boot_size(void) { return boot.size; }
const char *boot_name(void) { return boot.ops ? boot.ops->name : "none"; }

int boot_exchange(const void *mine, size_t len, void *all)
{
  if (!boot.ops) { if (len) memmove(all, mine, len); return 0; }
  return boot.ops->exchange(mine, len, all);
}

int boot_broadcast(void *buf, size_t len, uint32_t root)
{
  if (root >= boot.size) return boot_err(boot_name(), -EINVAL, "boot_broadcast root %u", (unsigned)root);
  return boot.ops ? boot.ops->broadcast(buf, len, root) : 0;
}

int boot_barrier(void)
{
  return boot.ops ? boot.ops->barrier() : 0;
}

const char *boot_getenv(const char *name)
{
  return boot.ops && boot.ops->getenv ? boot.ops->getenv(name) : getenv(name);
}

void boot_job_key(unsigned char key[BOOT_JOB_KEY_LEN])
{
  if (boot.ops && boot.ops->key_ready) boot.ops->key_ready();
  memcpy(key, boot.key, BOOT_JOB_KEY_LEN);
}

int boot_self_addr(struct sockaddr_storage *addr, socklen_t *len)
{
  return boot.ops && boot.ops->self_addr ? boot.ops->self_addr(addr, len) : -ENOTCONN;
}

void boot_fini(int code)
{
  if (boot.ops) boot.ops->fini(code);
}

void boot_abort(int code, const char *why)
{
  if (boot.ops) boot.ops->abort(code, why);      /* it prints why, or has it printed */
  else if (why) fprintf(stderr, "gasnet: abort: %s\n", why);
  fflush(stderr);
  _exit(code ? code : 1);
}
