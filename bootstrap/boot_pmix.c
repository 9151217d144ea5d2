/*
 * boot_pmix.c - the PMIx key-value space (boot_kvs_t) through libpmix
 * (Open MPI's mpirun, srun --mpi=pmix), loaded at run time (boot_dl.c).
 *
 * PMIx_Init may be called again by an MPI library in the same process (or
 * before us): PMIx counts the calls, and dlopen hands us the copy of
 * libpmix that libmpi loaded, so there is one client. Values are strings
 * put with PMIX_GLOBAL scope; a fence is PMIx_Commit and a PMIx_Fence over
 * the whole namespace that collects the data, so later gets are local.
 */
#include "boot_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#define NAME "pmix"
#define PMIX_LIB "libpmix.so.2"
/* Our values are cut to this size (PMIx itself has no small limit). */
#define PMIX_VAL_MAX (64 * 1024)

static const char *const syms[] = {
  "PMIx_Init", "PMIx_Put", "PMIx_Commit", "PMIx_Fence", "PMIx_Get",
  "PMIx_Abort", "PMIx_Finalize", "PMIx_Error_string", NULL
};
static struct {
  pmix_status_t (*init)(pmix_proc_t *, pmix_info_t *, size_t);
  pmix_status_t (*put)(pmix_scope_t, const char *, pmix_value_t *);
  pmix_status_t (*commit)(void);
  pmix_status_t (*fence)(const pmix_proc_t *, size_t, const pmix_info_t *, size_t);
  pmix_status_t (*get)(const pmix_proc_t *, const char *, const pmix_info_t *, size_t, pmix_value_t **);
  pmix_status_t (*abort)(int, const char *, pmix_proc_t *, size_t);
  pmix_status_t (*finalize)(const pmix_info_t *, size_t);
  const char *(*error_string)(pmix_status_t);
} fn;
static pmix_proc_t me;

static int px_fail(pmix_status_t rc, const char *what, const char *key)
{
  return boot_err(NAME, -EPROTO, "%s%s%s failed: %s", what, key ? " of " : "", key ? key : "",
                  fn.error_string(rc));
}

/* A value of rank r (PMIX_RANK_WILDCARD: the job's) or NULL, after an error. */
static pmix_value_t *px_value(uint32_t r, const char *key, int type)
{
  pmix_proc_t p = me;
  pmix_value_t *v = NULL;
  p.rank = r;
  pmix_status_t rc = fn.get(&p, key, NULL, 0, &v);
  if (rc != PMIX_SUCCESS) { px_fail(rc, "PMIx_Get", key); return NULL; }
  if (v->type != type) {
    boot_err(NAME, -EPROTO, "PMIx_Get of %s: type %d, not %d", key, (int)v->type, type);
    free(v);
    return NULL;
  }
  return v;
}

static int px_init(uint32_t *rank, uint32_t *size)
{
  int rc;
  if ((rc = boot_dl_load(NAME, PMIX_LIB, "libpmix2", syms, (void **)&fn)) < 0) return rc;
  pmix_status_t st = fn.init(&me, NULL, 0);
  if (st != PMIX_SUCCESS) return px_fail(st, "PMIx_Init", NULL);
  pmix_value_t *v = px_value(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, PMIX_UINT32);
  if (!v) return -EPROTO;
  *size = v->data.uint32;
  *rank = me.rank;
  free(v);
  boot_pmix_kvs.max_key = PMIX_MAX_KEYLEN;
  boot_pmix_kvs.max_val = PMIX_VAL_MAX;
  return 0;
}

static int px_put(const char *key, const char *val)
{
  pmix_value_t v;
  memset(&v, 0, sizeof v);
  v.type = PMIX_STRING;
  v.data.string = (char *)val;
  pmix_status_t rc = fn.put(PMIX_GLOBAL, key, &v);
  return rc == PMIX_SUCCESS ? 0 : px_fail(rc, "PMIx_Put", key);
}

static int px_fence(void)
{
  pmix_info_t info;
  pmix_status_t rc;
  memset(&info, 0, sizeof info);
  snprintf(info.key, sizeof info.key, "%s", PMIX_COLLECT_DATA);
  info.value.type = PMIX_BOOL;
  info.value.data.flag = true;
  if ((rc = fn.commit()) != PMIX_SUCCESS) return px_fail(rc, "PMIx_Commit", NULL);
  if ((rc = fn.fence(NULL, 0, &info, 1)) != PMIX_SUCCESS) return px_fail(rc, "PMIx_Fence", NULL);
  return 0;
}

static int px_get(uint32_t rank, const char *key, char *val, size_t cap)
{
  pmix_value_t *v = px_value(rank, key, PMIX_STRING);
  if (!v) return -EPROTO;
  size_t n = v->data.string ? strlen(v->data.string) : 0;
  int rc = n < cap ? 0 : boot_err(NAME, -EMSGSIZE, "rank %u's %s is %zu bytes, more than %zu",
                                  (unsigned)rank, key, n, cap - 1);
  if (rc == 0) memcpy(val, v->data.string ? v->data.string : "", n + 1);
  free(v->data.string);
  free(v);
  return rc;
}

static void px_abort(int code, const char *why)
{
  fn.abort(code, why ? why : "gasnet abort", NULL, 0);
}

static void px_fini(void) { fn.finalize(NULL, 0); }

boot_kvs_t boot_pmix_kvs = {
  .name = NAME,
  .local_gets = 1,           /* the fence collected every value here */
  .init = px_init,
  .put = px_put,
  .fence = px_fence,
  .get = px_get,
  .abort = px_abort,
  .fini = px_fini,
};
