/*
 * boot_pmi2.c - the PMI2 key-value space (boot_kvs_t) through Slurm's
 * libpmi2 (srun --mpi=pmi2), loaded at run time (boot_dl.c). Rank and size
 * come from PMI2_Init, values are at most PMI2_MAX_VALLEN bytes, a fence is
 * PMI2_KVS_Fence, and the launcher is told of an abort by PMI2_Abort.
 */
#include "boot_internal.h"

#include <errno.h>
#include <stdio.h>
#include <slurm/pmi2.h>

#define NAME "pmi2"
#define PMI2_LIB "libpmi2.so.0"

static const char *const syms[] = {
  "PMI2_Init", "PMI2_Job_GetId", "PMI2_KVS_Put", "PMI2_KVS_Fence",
  "PMI2_KVS_Get", "PMI2_Abort", "PMI2_Finalize", NULL
};
static struct {
  int (*init)(int *, int *, int *, int *);
  int (*job_getid)(char *, int);
  int (*put)(const char *, const char *);
  int (*fence)(void);
  int (*get)(const char *, int, const char *, char *, int, int *);
  int (*abort)(int, const char *);
  int (*finalize)(void);
} fn;
static char jobid[PMI2_MAX_VALLEN];

static int p2_init(uint32_t *rank, uint32_t *size)
{
  int spawned, sz, rk, appnum, rc;
  if (boot_mpi_state() == 1)   /* Slurm's server would never answer a second init */
    return boot_err(NAME, -EBUSY, "MPI_Init has opened this process's PMI session already; "
                    "use GASNET_SPAWNER=pmi1 (or leave GASNET_SPAWNER unset)");
  if ((rc = boot_dl_load(NAME, PMI2_LIB, "libpmi2-0", syms, (void **)&fn)) < 0) return rc;
  if ((rc = fn.init(&spawned, &sz, &rk, &appnum)) != PMI2_SUCCESS)
    return boot_err(NAME, -EPROTO, "PMI2_Init failed (error %d)", rc);
  if (sz <= 0 || rk < 0) return boot_err(NAME, -EPROTO, "PMI2_Init says rank %d of %d", rk, sz);
  if ((rc = fn.job_getid(jobid, sizeof jobid)) != PMI2_SUCCESS)
    return boot_err(NAME, -EPROTO, "PMI2_Job_GetId failed (error %d)", rc);
  *rank = (uint32_t)rk;
  *size = (uint32_t)sz;
  boot_pmi2_kvs.max_key = PMI2_MAX_KEYLEN - 1;
  boot_pmi2_kvs.max_val = PMI2_MAX_VALLEN - 1;
  return 0;
}

static int p2_put(const char *key, const char *val)
{
  int rc = fn.put(key, val);
  return rc == PMI2_SUCCESS ? 0 : boot_err(NAME, -EPROTO, "PMI2_KVS_Put of %s failed (error %d)", key, rc);
}

static int p2_fence(void)
{
  int rc = fn.fence();
  return rc == PMI2_SUCCESS ? 0 : boot_err(NAME, -EPROTO, "PMI2_KVS_Fence failed (error %d)", rc);
}

static int p2_get(uint32_t rank, const char *key, char *val, size_t cap)
{
  int len = 0, rc = fn.get(jobid, (int)rank, key, val, (int)cap, &len);
  if (rc != PMI2_SUCCESS) return boot_err(NAME, -EPROTO, "PMI2_KVS_Get of rank %u's %s failed (error %d)",
                                          (unsigned)rank, key, rc);
  if (len < 0 || (size_t)len >= cap)
    return boot_err(NAME, -EMSGSIZE, "rank %u's %s is %d bytes, more than %zu", (unsigned)rank, key, len, cap - 1);
  val[len] = 0;
  return 0;
}

static void p2_abort(int code, const char *why)
{
  (void)code;                 /* PMI2 carries no code; our exit status does */
  fn.abort(1, why ? why : "gasnet abort");
}

static void p2_fini(void) { fn.finalize(); }

boot_kvs_t boot_pmi2_kvs = {
  .name = NAME,
  .init = p2_init,
  .put = p2_put,
  .fence = p2_fence,
  .get = p2_get,
  .abort = p2_abort,
  .fini = p2_fini,
};
