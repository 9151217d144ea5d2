/*
 * gasnetc_segment.c - the remote-access segment (spec 2.1.0.2-2.1.0.4,
 * 2.2.0.3): its maximum size, its mmap at attach, the job's segment table,
 * and the range checks Long messages use.
 *
 * GASNET_MAX_SEGSIZE caps the segment (gasneti_parse_memlimit): a size,
 * "256MB", or a fraction of the physical memory, "0.25", per process, or
 * with "/H" for the whole host, shared by its processes ("0.85/H").
 * Default: half of physical memory per process. The memory
 * is mapped MAP_NORESERVE, so only pages the job touches cost anything.
 *
 * Segments shared within a host: when another rank of the neighbourhood
 * (the ranks of one host, at most GASNET_SUPERNODE_MAXSIZE of them in job
 * order; 1 = none) may map it, the segment is a memfd (never a named file,
 * so nothing is left behind whatever way the job ends). Its (pid, fd)
 * travel in the segment exchange, and each rank maps its neighbours'
 * segments by /proc/<pid>/fd/<fd>: put and get to them are then memcpy
 * (extended-ref/gasnete_rma.c), and gex_EP_QueryBoundSegmentNB gives the
 * local address.
 *
 * Endpoints: a segment is bound to one EP (the attached one to EP 0), and
 * what a rank publishes is the segment of its EP of some index. What this
 * process knows is kept per index (gasnetc_epview_t, gasnetc_ext.h): an
 * address names memory in the EP of that index at a rank, whichever local
 * EP the message leaves from.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "gasnetc_internal.h"
#include "gasneti_env.h"

#define GASNETC_PAGE_DOWN(x) ((x) & ~(uintptr_t)(GASNET_PAGESIZE - 1))
#define GASNETC_PAGE_UP(x) GASNETC_PAGE_DOWN((x) + GASNET_PAGESIZE - 1)

static uintptr_t gasnetc_physmem(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psize <= 0) return (uintptr_t)1 << 30; /* guess 1 GiB */
  return (uintptr_t)pages * (uintptr_t)psize;
}

uintptr_t gasnetc_segment_max_from_env(const char *value, int *per_host) {
  *per_host = 0;
#if defined(GASNET_SEGMENT_EVERYTHING)
  (void)value;
  return (uintptr_t)-1; /* spec 2.1.0.3 */
#else
  uintptr_t phys = gasnetc_physmem();
  if (!value || !*value) return GASNETC_PAGE_DOWN(phys / 2);
  uint64_t bytes;
  const char *why;
  if (gasneti_parse_memlimit(value, phys, &bytes, per_host, &why) < 0)
    gasnetc_fatal("GASNET_MAX_SEGSIZE='%s': %s", value, why);
  if (bytes > UINTPTR_MAX / 2) bytes = UINTPTR_MAX / 2;
  return *per_host ? (uintptr_t)bytes : GASNETC_PAGE_DOWN((uintptr_t)bytes);
#endif
}

uintptr_t gasnetc_segment_max_share(uintptr_t host_bytes, unsigned host_nodes) {
  return GASNETC_PAGE_DOWN(host_bytes / (host_nodes ? host_nodes : 1));
}

uintptr_t gasnet_getMaxLocalSegmentSize(void) {
  if (!gasnetc_g.inited)
    gasnetc_not_ready("gasnet_getMaxLocalSegmentSize", 0);
  return gasnetc_g.max_local_seg;
}

uintptr_t gasnet_getMaxGlobalSegmentSize(void) {
  if (!gasnetc_g.inited)
    gasnetc_not_ready("gasnet_getMaxGlobalSegmentSize", 0);
  return gasnetc_g.max_global_seg;
}

/* Ranks a and b share memory: one neighbourhood (core/gasnetc_host.c:
 * the ranks of a host, at most GASNET_SUPERNODE_MAXSIZE of them). */
static int gasnetc_same_nbrhd(gasnet_node_t a, gasnet_node_t b) {
  return gasnetc_g.nbrhd_of[a] == gasnetc_g.nbrhd_of[b];
}

/* Some other rank may map this rank's segment. */
static int gasnetc_segment_shared(void) {
  for (gasnet_node_t i = 0; i < gasnetc_g.nodes; i++)
    if (i != gasnetc_g.mynode && gasnetc_same_nbrhd(i, gasnetc_g.mynode)) return 1;
  return 0;
}

/* A rank's segment of one EP index as published here: its (pid, fd), and
 * what the mapping here was made from (a later publish maps only what
 * changed). */
struct gasnetc_segpeer {
  gasnetc_seg_handle_t h;
  gasnetc_seg_handle_t mapped_h;
  uintptr_t mapped_size;
};
static gasnetc_epview_t *gasnetc_views[GASNET_MAXEPS];

gasnetc_epview_t *gasnetc_epview(unsigned idx) {
  gasnetc_epview_t *v = __atomic_load_n(&gasnetc_views[idx], __ATOMIC_ACQUIRE);
  if (v) return v;
  size_t n = gasnetc_g.nodes;
  v = calloc(1, sizeof *v);
  if (v) {
    v->seg = calloc(n, sizeof *v->seg);
    v->local = calloc(n, sizeof *v->local);
    v->peer = calloc(n, sizeof *v->peer);
  }
  if (!v || !v->seg || !v->local || !v->peer)
    gasnetc_fatal("out of memory for the segment table of %zu nodes", n);
  gasnetc_epview_t *was = NULL; /* another thread may have made it meanwhile */
  if (__atomic_compare_exchange_n(&gasnetc_views[idx], &was, v, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE))
    return v;
  free(v->seg), free(v->local), free(v->peer), free(v);
  return was;
}

/* ---- gex_Segment_Create, gex_Segment_Destroy, gex_EP_BindSegment -------------
 * The alternative to gex_Segment_Attach (spec v0.19, [PROPOSED]): host memory
 * only, GASNet's (a memfd when a neighbour may map it, as at attach) or the
 * client's (reached by neighbours through AMs, never mapped); bound to any
 * EP that has none, and made known by gex_EP_PublishBoundSegment
 * (gasnetc_init.c). */
static void *gasnetc_segment_mmap(void *hint, uintptr_t size, int shared, int *fd);

int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address,
                       uintptr_t length, gex_MK_t kind, gex_Flags_t flags) {
  const char *call = "gex_Segment_Create";
  GASNETC_CHECK_INITED(call);
#if defined(GASNET_SEGMENT_EVERYTHING)
  (void)segment_p; (void)client; (void)address; (void)length; (void)kind; (void)flags;
  return gasnetc_soft_error(GASNET_ERR_RESOURCE, call, "GASNET_SEGMENT_EVERYTHING: all memory "
                            "is the segment already (GASNET_ERR_RESOURCE)");
#else
  if (!segment_p || client != &gasnetc_g || flags || length == 0)
    return gasnetc_soft_error(GASNET_ERR_BAD_ARG, call, "%s (GASNET_ERR_BAD_ARG)",
                              !segment_p ? "segment_p is NULL"
                              : client != &gasnetc_g ? "not the client of gex_Client_Init"
                              : flags ? "flags must be 0" : "length is 0");
  if (!gasnetc_mk_is_host(kind))
    return gasnetc_soft_error(GASNET_ERR_BAD_ARG, call, "kind %p: not GEX_MK_HOST nor a host "
                              "kind of gex_MK_Create (no device memory here) "
                              "(GASNET_ERR_BAD_ARG)", (void *)kind);
  uintptr_t size = address ? length : GASNETC_PAGE_UP(length);
  if (!address && size > gasnetc_g.max_local_seg)
    return gasnetc_soft_error(GASNET_ERR_RESOURCE, call, "length %lu is above "
                              "gasnet_getMaxLocalSegmentSize() = %lu (GASNET_ERR_RESOURCE)",
                              (unsigned long)length, (unsigned long)gasnetc_g.max_local_seg);
  gasnetc_segment_t *s = calloc(1, sizeof *s);
  if (!s) return gasnetc_soft_error(GASNET_ERR_RESOURCE, call, "out of memory");
  *s = (gasnetc_segment_t){ .addr = address, .size = size, .client = &gasnetc_g, .fd = -1,
                            .created = 1 };
  if (!address) {
    s->addr = gasnetc_segment_mmap(NULL, size, gasnetc_segment_shared(), &s->fd);
    if (s->addr == MAP_FAILED) {
      int err = errno;
      free(s);
      return gasnetc_soft_error(GASNET_ERR_RESOURCE, call, "cannot map %lu bytes: %s "
                                "(GASNET_ERR_RESOURCE)", (unsigned long)size, strerror(err));
    }
    s->owned = 1;
  }
  *segment_p = s;
  return GASNET_OK;
#endif
}

/* Only an unbound segment of gex_Segment_Create: there is no unbind. */
void gex_Segment_Destroy(gex_Segment_t s, gex_Flags_t flags) {
  const char *call = "gex_Segment_Destroy";
  if (!s || !s->created)
    gasnetc_fatal("%s: segment %p was not made by gex_Segment_Create (the attached segment "
                  "lives until exit)", call, (void *)s);
  if (s->bound)
    gasnetc_fatal("%s: segment %p is bound to %u EP(s) (there is no unbind)", call, (void *)s,
                  s->bound);
  if (flags) gasnetc_fatal("%s: flags %#x: must be 0", call, (unsigned)flags);
  if (s->owned) munmap(s->addr, s->size);
  if (s->fd >= 0) close(s->fd);
  free(s);
}

int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t s, gex_Flags_t flags) {
  const char *call = "gex_EP_BindSegment";
  if (!ep || ep->client != &gasnetc_g || !s || s->client != &gasnetc_g || flags || ep->seg)
    return gasnetc_soft_error(GASNET_ERR_BAD_ARG, call, "%s (GASNET_ERR_BAD_ARG)",
                              !ep || ep->client != &gasnetc_g ? "not an EP of this client"
                              : !s || s->client != &gasnetc_g ? "not a segment of this client"
                              : flags ? "flags must be 0"
                              : "the EP has a bound segment already");
  s->bound++;
  __atomic_store_n(&ep->seg, s, __ATOMIC_RELEASE); /* handlers check Longs against it */
  return GASNET_OK;
}

gasnetc_seg_handle_t gasnetc_segment_handle(const gasnetc_segment_t *s) {
  gasnetc_seg_handle_t h = { 0, -1 };
  if (s && s->fd >= 0) h = (gasnetc_seg_handle_t){ (int32_t)getpid(), s->fd };
  return h;
}

void gasnetc_segment_learn(unsigned idx, gasnet_node_t node, const gasnet_seginfo_t *s,
                           gasnetc_seg_handle_t h) {
  gasnetc_epview_t *v = gasnetc_epview(idx);
  v->seg[node] = *s;
  v->peer[node].h = h;
}

/* Map rank r's segment of v here, by its memfd; fatal if it cannot be. */
static void *gasnetc_segment_map_peer(const char *call, const gasnetc_epview_t *v,
                                      gasnet_node_t r) {
  const gasnetc_seg_handle_t *h = &v->peer[r].h;
  const gasnet_seginfo_t *s = &v->seg[r];
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)h->pid, (int)h->fd);
  int fd = h->pid > 0 ? open(path, O_RDWR | O_CLOEXEC) : -1;
  void *p = fd < 0 ? MAP_FAILED
                   : mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  int err = errno;
  if (fd >= 0) close(fd);
  if (p != MAP_FAILED) return p;
  gasnetc_fatal("%s: cannot map node %u's segment (%s: %s); GASNET_SUPERNODE_MAXSIZE=1 turns "
                "sharing memory between the ranks of a host off", call, (unsigned)r,
                h->pid > 0 ? path : "it has no shareable segment",
                h->pid > 0 ? strerror(err) : "memfd_create failed there");
  return NULL;
}

/* Rank r's segment of v here: the mapping there is, or a new one. */
static void gasnetc_segment_remap(const char *call, gasnetc_epview_t *v, gasnet_node_t r) {
  struct gasnetc_segpeer *p = &v->peer[r];
  uintptr_t size = v->seg[r].size;
  if (v->local[r] && !memcmp(&p->mapped_h, &p->h, sizeof p->h) && p->mapped_size == size)
    return;
  if (v->local[r]) munmap(v->local[r], p->mapped_size);
  v->local[r] = size && p->h.pid > 0 ? gasnetc_segment_map_peer(call, v, r) : NULL;
  p->mapped_h = p->h;
  p->mapped_size = size;
}

/* Every index this process has an EP of, or has heard of. */
void gasnetc_segment_share(const char *call) {
  gasnet_node_t n = gasnetc_g.nodes, me = gasnetc_g.mynode;
  for (unsigned idx = 0; idx < GASNET_MAXEPS; idx++) {
    const gasnetc_ep_t *ep = gasnetc_ep_at(idx);
    gasnetc_epview_t *v = __atomic_load_n(&gasnetc_views[idx], __ATOMIC_ACQUIRE);
    if (!v && !ep) continue;
    if (!v) v = gasnetc_epview(idx);
    v->local[me] = ep && ep->seg ? ep->seg->addr : NULL;
#if !defined(GASNET_SEGMENT_EVERYTHING)
    for (gasnet_node_t r = 0; r < n; r++)
      if (r != me && gasnetc_same_nbrhd(r, me)) gasnetc_segment_remap(call, v, r);
#endif
  }
  (void)n;
}

/* A segment of size bytes: a memfd when a neighbour may map it (fd in
 * *fd), else private anonymous memory; hint as mmap's. */
static void *gasnetc_segment_mmap(void *hint, uintptr_t size, int shared, int *fd) {
  *fd = -1;
  if (shared) {
    int f = (int)syscall(SYS_memfd_create, "gasnet-segment", 1u /* MFD_CLOEXEC */);
    if (f >= 0 && ftruncate(f, (off_t)size) == 0) {
      void *p = mmap(hint, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, f, 0);
      if (p != MAP_FAILED) {
        *fd = f;
        return p;
      }
    }
    if (f >= 0) close(f);
    return MAP_FAILED;
  }
  return mmap(hint, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
              -1, 0);
}

/* Map this node's segment: at most segsize (capped by the maximum), page
 * aligned, halving on failure. minheapoffset (spec 2.1.0.2): the segment must
 * start at least that far above the current end of the heap; on Linux mmap
 * places it far above the break already, we only check and retry with a hint. */
/* No segment can start further above the heap than the user address space
 * reaches (x86-64: 2^47 bytes; 32-bit: 2^31 at best), so a minheapoffset
 * beyond it is a mistake, not a request we could honour. */
#if UINTPTR_MAX > 0xffffffffu
#define GASNETC_MAX_HEAPOFFSET ((uintptr_t)1 << 47)
#define GASNETC_MAX_HEAPOFFSET_NAME "2^47"
#else
#define GASNETC_MAX_HEAPOFFSET ((uintptr_t)1 << 31)
#define GASNETC_MAX_HEAPOFFSET_NAME "2^31"
#endif

int gasnetc_segment_attach(uintptr_t segsize, uintptr_t minheapoffset,
                           gasnet_seginfo_t *mine) {
#if defined(GASNET_SEGMENT_EVERYTHING)
  (void)segsize; (void)minheapoffset;
  mine->addr = 0;
  mine->size = (uintptr_t)-1;
  return GASNET_OK;
#else
  mine->addr = NULL;
  mine->size = 0;
  if (minheapoffset > GASNETC_MAX_HEAPOFFSET)
    return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, "gasnet_attach",
                                "minheapoffset %llu is above %llu (" GASNETC_MAX_HEAPOFFSET_NAME
                                ", the user address space): no segment can start that far "
                                "above the heap (spec 2.1.0.2)", (unsigned long long)minheapoffset,
                                (unsigned long long)GASNETC_MAX_HEAPOFFSET);
  if (segsize == 0) return GASNET_OK; /* no segment: no Long can target us */
  if (segsize > gasnetc_g.max_local_seg) segsize = gasnetc_g.max_local_seg;
  uintptr_t heap_end = (uintptr_t)sbrk(0);
  const int shared = gasnetc_segment_shared();
  for (uintptr_t size = segsize; size >= GASNET_PAGESIZE;
       size = GASNETC_PAGE_DOWN(size / 2)) {
    int fd;
    void *p = gasnetc_segment_mmap(NULL, size, shared, &fd);
    if (p == MAP_FAILED) continue;
    if ((uintptr_t)p < heap_end + minheapoffset && (uintptr_t)p + size > heap_end) {
      munmap(p, size);
      if (fd >= 0) close(fd);
      void *hint = (void *)GASNETC_PAGE_UP(heap_end + minheapoffset);
      p = gasnetc_segment_mmap(hint, size, shared, &fd);
      if (p == MAP_FAILED) continue;
    }
    gasnetc_g.seg0.fd = fd;
    mine->addr = p;
    mine->size = size;
    return GASNET_OK;
  }
  return gasnetc_setup_failed(GASNET_ERR_RESOURCE, "gasnet_attach",
                              "cannot map a segment of %lu bytes: %s",
                              (unsigned long)segsize, strerror(errno));
#endif
}

static int gasnetc_seginfo_contains(const gasnet_seginfo_t *s, const void *addr, size_t n) {
#if defined(GASNET_SEGMENT_EVERYTHING)
  (void)s; (void)addr; (void)n;
  return 1; /* spec 2.1.0.2: the client's responsibility */
#else
  uintptr_t a = (uintptr_t)addr, base = (uintptr_t)s->addr;
  if (n == 0) return 1; /* nothing is written */
  return a >= base && n <= s->size && a - base <= s->size - n;
#endif
}

static const gasnet_seginfo_t gasnetc_no_seg = { NULL, 0 };
static const gasnet_seginfo_t *gasnetc_seginfo_of(unsigned idx, gasnet_node_t node) {
  const gasnetc_epview_t *v = __atomic_load_n(&gasnetc_views[idx], __ATOMIC_ACQUIRE);
  return v ? &v->seg[node] : &gasnetc_no_seg;
}

int gasnetc_segment_contains(unsigned idx, gasnet_node_t node, const void *addr, size_t n) {
  return gasnetc_seginfo_contains(gasnetc_seginfo_of(idx, node), addr, n);
}

int gasnetc_ep_contains(const gasnetc_ep_t *ep, const void *addr, size_t n) {
  gasnet_seginfo_t si = gasnetc_ep_seginfo(ep);
  return gasnetc_seginfo_contains(&si, addr, n);
}

void gasnetc_segment_format(unsigned idx, gasnet_node_t node, char *buf, size_t len) {
  const gasnet_seginfo_t *s = gasnetc_seginfo_of(idx, node);
  if (s->size == 0)
    snprintf(buf, len, "(none%s)", idx ? " published here" : ": segment size 0");
  else
    snprintf(buf, len, "[%p,%p)", s->addr, (void *)((uintptr_t)s->addr + s->size));
}

int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries) {
  GASNETC_CHECK_ATTACHED("gasnet_getSegmentInfo");
  if (numentries < 0 || (numentries > 0 && !seginfo_table))
    return GASNET_ERR_BAD_ARG;
  int n = numentries < (int)gasnetc_g.nodes ? numentries : (int)gasnetc_g.nodes;
  for (int i = 0; i < n; i++) seginfo_table[i] = *gasnetc_seginfo_of(0, (gasnet_node_t)i);
  return GASNET_OK;
}

/* ---- the bound segment of (tm, rank), GASNet-EX ---------------------------
 * The view of index 0 holds every rank's primordial segment from the
 * attach on, another index what was published here, and the caller's own
 * EPs are at hand: no query needs to communicate. A segment never has size
 * 0, so size 0 (GASNet-1's segsize 0, no attach yet, or not published
 * here) is "no bound segment". Returns 1 and fills *out when there is one. */
static int gasnetc_bound_segment(const char *fname, gex_TM_t tm, gex_Rank_t rank,
                                 gex_Flags_t flags, gasnet_seginfo_t *out, void **localaddr) {
  GASNETC_CHECK_INITED(fname);
  gasnet_node_t node = gasnetc_tm_jobrank(tm, rank, fname);
  /* We would be allowed here; a program that relies on it would hang or
   * fail on an implementation that communicates for remote ranks. */
  if (!(flags & GEX_FLAG_IMMEDIATE) &&
      GASNETC_UNLIKELY(gasnetc_thread.token || gasnetc_thread.hsl_depth))
    gasnetc_fatal("%s: called %s without GEX_FLAG_IMMEDIATE (the description allows it there "
                  "only with the flag)", fname,
                  gasnetc_thread.token ? "inside an AM handler" : "holding an HSL");
  unsigned idx = gasnetc_tm_via(tm)->remote;
  if (node == gasnetc_g.mynode) {
    const gasnetc_ep_t *ep = gasnetc_ep_at(idx);
    const gasnetc_segment_t *own = ep ? ep->seg : NULL;
    if (!own || own->size == 0) return 0;
    out->addr = own->addr;
    out->size = own->size;
    *localaddr = own->addr;
    return 1;
  }
  const gasnet_seginfo_t *peer = gasnetc_seginfo_of(idx, node);
  if (peer->size == 0) return 0;
  *out = *peer;
  /* mapped here when it is a neighbour's (gasnetc_segment_share) */
  *localaddr = gasnetc_epview(idx)->local[node];
  return 1;
}

gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                       void **localaddr_p, uintptr_t *size_p, gex_Flags_t flags) {
  gasnet_seginfo_t s = {NULL, 0};
  void *local = NULL;
  gasnetc_bound_segment("gex_EP_QueryBoundSegmentNB", tm, rank, flags, &s, &local);
  /* Unsuccessful: the description asks only for size 0; NULLs are kinder. */
  if (owneraddr_p) *owneraddr_p = s.addr;
  if (localaddr_p) *localaddr_p = local;
  if (size_p) *size_p = s.size;
  return GEX_EVENT_INVALID; /* complete: nothing was sent */
}

int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                           uintptr_t *size_p) {
  gasnet_seginfo_t s;
  void *local;
  if (!gasnetc_bound_segment("gex_Segment_QueryBound", tm, rank, 0, &s, &local))
    return GASNET_ERR_RESOURCE; /* outputs untouched, as the description says */
  if (owneraddr_p) *owneraddr_p = s.addr;
  if (localaddr_p) *localaddr_p = local;
  if (size_p) *size_p = s.size;
  return GASNET_OK;
}
