/*
 * ptli_init.c - initialization and the interface (spec "Initialization
 * and Cleanup", "Network Interfaces", "User Identification", "Process
 * Identification", "The Access Control Table"): PtlInit, PtlFini,
 * PtlNIInit, PtlNIFini, PtlNIStatus, PtlNIDist, PtlNIHandle, PtlGetUid,
 * PtlGetId, PtlACEntry, and the runtime's PtlGetRank, PtlGetRankId.
 *
 * PtlInit joins the job's bootstrap (the first call; later ones only
 * count); a process started by gasnetrun then tells the launcher its exit
 * code when it exits (on_exit), as GASNet processes do. PtlNIInit's first
 * call is collective (ptli_net.c); later calls in the process return the
 * same interface (PTL_INIT_DUP when they ask for another pid), and each
 * needs its PtlNIFini: the last one, collective too (a barrier, so that no
 * rank closes its transports while another still sends to it), closes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "ptli.h"

ptli_ni_t ptli_ni = {.lock = PTHREAD_MUTEX_INITIALIZER, .epfd = -1, .wakefd = -1,
                     .park_lock = PTHREAD_MUTEX_INITIALIZER, .park_cond = PTHREAD_COND_INITIALIZER};
int ptli_inited;
static int ptli_booted, ptli_conds;

static void ptli_on_exit(int status, void *arg) {
  (void)arg;
  fflush(NULL);
  boot_fini(status);
}

int PtlInit(int *max_interfaces) {
  if (!max_interfaces) return PTL_SEGV;
  pthread_mutex_lock(&ptli_ni.lock);
  int rc = PTL_OK;
  if (!ptli_booted) {
    if (boot_init(NULL, NULL) != 0) rc = PTL_FAIL;
    else {
      ptli_booted = 1;
      on_exit(ptli_on_exit, NULL);
    }
  }
  if (rc == PTL_OK) ptli_inited = 1;
  pthread_mutex_unlock(&ptli_ni.lock);
  *max_interfaces = 1;
  return rc;
}

void PtlFini(void) {
  /* The bootstrap stays: the exit code goes to the launcher at exit. */
  ptli_inited = 0;
}

ptli_ni_t *ptli_ni_of(ptl_handle_any_t h) {
  if (ptli_h_iface(h) != 0 || !ptli_h_kind(h) || ptli_h_kind(h) > PTLI_K_ME) return NULL;
  if (ptli_h_kind(h) == PTLI_K_NI && ptli_h_gen(h) != ptli_ni.gen) return NULL;
  return __atomic_load_n(&ptli_ni.live, __ATOMIC_ACQUIRE) ? &ptli_ni : NULL;
}

static ptli_ni_t *ptli_ni_handle(ptl_handle_ni_t h) {
  return ptli_h_kind(h) == PTLI_K_NI ? ptli_ni_of(h) : NULL;
}

ptl_seq_t ptli_link(ptli_ni_t *ni) { return ++ni->link_next; }

static void ptli_limits(ptl_ni_limits_t *l) {
  l->max_match_entries = PTLI_MAX_ME;
  l->max_mem_descriptors = PTLI_MAX_MD;
  l->max_event_queues = PTLI_MAX_EQ;
  l->max_atable_index = PTLI_MAX_AC_INDEX;
  l->max_ptable_index = PTLI_MAX_PT_INDEX;
}

/* Fresh tables; AC entry 0 admits every process of this job's user. */
static void ptli_tables(ptli_ni_t *ni) {
  if (!ptli_conds) {
    for (int i = 0; i < PTLI_MAX_EQ; i++) pthread_cond_init(&ni->eq[i].cond, NULL);
    ptli_conds = 1;
  }
  ptli_objects_reset(ni);
  memset(ni->ac, 0, sizeof ni->ac);
  ni->ac[0] = (ptli_ac_t){1, {PTL_NID_ANY, PTL_PID_ANY}, ni->uid, PTL_PT_INDEX_ANY};
  ni->drops = ni->malformed = 0;
  __atomic_store_n(&ni->sleep_timeouts, 0, __ATOMIC_RELAXED);
  ni->link_next = 0;
}

/* The tables are ready before the transports open: a request may come as
 * soon as the peers are through the bootstrap barrier that ends open. */
static int ptli_ni_first(ptli_ni_t *ni, ptl_pid_t pid) {
  pthread_mutex_lock(&ni->lock);
  ni->uid = (ptl_uid_t)getuid();
  ptli_tables(ni);
  pthread_mutex_unlock(&ni->lock);
  int rc = ptli_net_open(ni, pid);
  if (rc != PTL_OK) {
    ptli_net_close(ni);
    return rc;
  }
  pthread_mutex_lock(&ni->lock);
  ni->gen = (ni->gen + 1) & PTLI_GEN_MASK;
  if (!ni->gen) ni->gen = 1;
  ni->refs = 1;
  __atomic_store_n(&ni->live, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&ni->lock);
  return PTL_OK;
}

int PtlNIInit(ptl_interface_t interface, ptl_pid_t pid, ptl_ni_limits_t *desired,
              ptl_ni_limits_t *actual, ptl_handle_ni_t *handle) {
  (void)desired; /* the limits are fixed (docs/portals.md) */
  if (!ptli_inited) return PTL_NOINIT;
  if (interface != PTL_IFACE_DEFAULT) return PTL_INIT_INV;
  if (!handle) return PTL_SEGV;
  ptli_ni_t *ni = &ptli_ni;
  int rc = PTL_OK;
  if (ni->live) {
    pthread_mutex_lock(&ni->lock);
    if (pid != PTL_PID_ANY && pid != ni->id.pid) rc = PTL_INIT_DUP;
    else ni->refs++;
    pthread_mutex_unlock(&ni->lock);
  } else {
    rc = ptli_ni_first(ni, pid);
  }
  if (rc != PTL_OK) return rc;
  if (actual) ptli_limits(actual);
  *handle = ptli_handle(PTLI_K_NI, ni->gen, 0);
  return PTL_OK;
}

int PtlNIFini(ptl_handle_ni_t interface) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_handle(interface);
  if (!ni) return PTL_INV_NI;
  pthread_mutex_lock(&ni->lock);
  int last = --ni->refs == 0;
  pthread_mutex_unlock(&ni->lock);
  if (!last) return PTL_OK;
  int rc = boot_barrier() == 0 ? PTL_OK : PTL_FAIL; /* nobody sends to us any more */
  ptli_net_close(ni);
  pthread_mutex_lock(&ni->lock);
  __atomic_store_n(&ni->live, 0, __ATOMIC_RELEASE);
  ptli_eq_free_all(ni); /* wakes waiters: PTL_INV_EQ */
  ptli_objects_reset(ni);
  pthread_mutex_unlock(&ni->lock);
  return rc;
}

int PtlNIStatus(ptl_handle_ni_t interface, ptl_sr_index_t status_register,
                ptl_sr_value_t *status) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_handle(interface);
  if (!ni) return PTL_INV_NI;
  if (!status) return PTL_SEGV;
  if (status_register == PTL_SR_SLEEP_TIMEOUT_COUNT) {
    *status = __atomic_load_n(&ni->sleep_timeouts, __ATOMIC_RELAXED);
    return PTL_OK;
  }
  if (status_register != PTL_SR_DROP_COUNT && status_register != PTL_SR_MALFORMED_COUNT)
    return PTL_INV_SR_INDX;
  pthread_mutex_lock(&ni->lock);
  *status = status_register == PTL_SR_DROP_COUNT ? ni->drops : ni->malformed;
  pthread_mutex_unlock(&ni->lock);
  return PTL_OK;
}

int PtlNIDist(ptl_handle_ni_t interface, ptl_process_id_t process, unsigned long *distance) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_handle(interface);
  if (!ni) return PTL_INV_NI;
  if (!distance) return PTL_SEGV;
  int r = ptli_rank_of(ni, process);
  if (r < 0) return PTL_INV_PROC;
  *distance = ni->peers[r].dist;
  return PTL_OK;
}

int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t *interface) {
  if (!ptli_inited) return PTL_NOINIT;
  if (!interface) return PTL_SEGV;
  ptli_ni_t *ni = ptli_ni_of(handle);
  if (!ni) return PTL_INV_HANDLE;
  pthread_mutex_lock(&ni->lock);
  unsigned k = ptli_h_kind(handle);
  int ok = k == PTLI_K_NI || (k == PTLI_K_EQ && ptli_eq_get(ni, handle)) ||
           (k == PTLI_K_MD && ptli_md_get(ni, handle)) || (k == PTLI_K_ME && ptli_me_get(ni, handle));
  pthread_mutex_unlock(&ni->lock);
  if (!ok) return PTL_INV_HANDLE;
  *interface = ptli_handle(PTLI_K_NI, ni->gen, 0);
  return PTL_OK;
}

int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t *uid) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_handle(ni_handle);
  if (!ni) return PTL_INV_NI;
  if (!uid) return PTL_SEGV;
  *uid = ni->uid;
  return PTL_OK;
}

int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_id_t *id) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_handle(ni_handle);
  if (!ni) return PTL_INV_NI;
  if (!id) return PTL_SEGV;
  *id = ni->id;
  return PTL_OK;
}

int PtlGetRank(ptl_handle_ni_t ni_handle, unsigned *rank, unsigned *size) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_handle(ni_handle);
  if (!ni) return PTL_INV_NI;
  if (!rank || !size) return PTL_SEGV;
  *rank = ni->rank;
  *size = ni->size;
  return PTL_OK;
}

int PtlGetRankId(ptl_handle_ni_t ni_handle, unsigned rank, ptl_process_id_t *id) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_handle(ni_handle);
  if (!ni) return PTL_INV_NI;
  if (rank >= ni->size) return PTL_INV_PROC;
  if (!id) return PTL_SEGV;
  *id = ni->peers[rank].id;
  return PTL_OK;
}

int PtlACEntry(ptl_handle_ni_t interface, ptl_ac_index_t index, ptl_process_id_t matchid,
               ptl_uid_t user, ptl_pt_index_t portal) {
  if (!ptli_inited) return PTL_NOINIT;
  ptli_ni_t *ni = ptli_ni_handle(interface);
  if (!ni) return PTL_INV_NI;
  if (index > PTLI_MAX_AC_INDEX) return PTL_AC_INV_INDEX;
  if (portal != PTL_PT_INDEX_ANY && portal > PTLI_MAX_PT_INDEX) return PTL_PT_INV_INDEX;
  pthread_mutex_lock(&ni->lock);
  ni->ac[index] = (ptli_ac_t){1, matchid, user, portal};
  pthread_mutex_unlock(&ni->lock);
  return PTL_OK;
}

/* ---- names -------------------------------------------------------------------- */

const char *PtlErrorStr(int code) {
  static const char *const names[] = {
    "PTL_OK", "PTL_AC_INV_INDEX", "PTL_EQ_DROPPED", "PTL_EQ_EMPTY", "PTL_FAIL", "PTL_ILL_MD",
    "PTL_INIT_DUP", "PTL_INIT_INV", "PTL_INUSE", "PTL_INV_ASIZE", "PTL_INV_EQ",
    "PTL_INV_HANDLE", "PTL_INV_MD", "PTL_INV_ME", "PTL_INV_NI", "PTL_INV_PROC",
    "PTL_INV_PTINDEX", "PTL_INV_REG", "PTL_INV_SR_INDX", "PTL_ML_TOOLONG", "PTL_MD_INUSE",
    "PTL_NOINIT", "PTL_NOSPACE", "PTL_NOUPDATE", "PTL_PT_FULL", "PTL_SEGV"};
  _Static_assert(sizeof names / sizeof *names == PTL_MAX_ERRNO + 1, "a name per code");
  return code >= 0 && code <= PTL_MAX_ERRNO ? names[code] : "(not a Portals return code)";
}

const char *PtlEventKindStr(ptl_event_kind_t kind) {
  static const char *const names[] = {
    "PTL_EVENT_GET_START", "PTL_EVENT_GET_END", "PTL_EVENT_GET_FAIL",
    "PTL_EVENT_PUT_START", "PTL_EVENT_PUT_END", "PTL_EVENT_PUT_FAIL",
    "PTL_EVENT_REPLY_START", "PTL_EVENT_REPLY_END", "PTL_EVENT_REPLY_FAIL",
    "PTL_EVENT_SEND_START", "PTL_EVENT_SEND_END", "PTL_EVENT_SEND_FAIL",
    "PTL_EVENT_ACK", "PTL_EVENT_UNLINK", "PTL_EVENT_ACK_START", "PTL_EVENT_ACK_FAIL"};
  unsigned k = (unsigned)kind;
  return k < sizeof names / sizeof *names ? names[k] : "(not a Portals event kind)";
}
