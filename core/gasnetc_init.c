/*
 * gasnetc_init.c - job control (spec 2.1) and environment queries (2.2):
 * gasnet_init, gasnet_attach, gasnet_exit, gasnet_mynode/nodes/getenv, and
 * the SIGQUIT behaviour.
 *
 * Exit (spec 2.1.0.5), from any node at any time:
 *   gasnet_exit(code): tell every other node (core handler GASNETC_HANDLER_EXIT),
 *   flush stdio, write statistics, boot_fini(code), close the transport
 *   (which flushes what is unacknowledged, bounded in time), _exit(code).
 *   A node that receives the exit message acts at the first poll point
 *   (gasnet_AMPoll, GASNET_BLOCKUNTIL, a request) once it has run
 *   GASNETC_EXIT_LINGER_MS (of its own CPU time) after it: it raises SIGQUIT, as the spec says GASNet does, so a
 *   client's SIGQUIT handler runs first; then it exits the same way with
 *   the same code, without re-notifying. Until then it runs on as usual, so
 *   that the idiom the spec recommends, a barrier then gasnet_exit, ends
 *   the same way on every node: the first node out of the barrier would
 *   otherwise end the others inside it (their last round's message not yet
 *   read), before the code after their barrier ran. A node that calls
 *   gasnet_exit itself in that time exits with its own code.
 *   SIGQUIT from outside (the launcher sends it to ranks that do not exit by
 *   themselves): unless the client installed its own handler, ours flushes
 *   stdio if it can do so safely and _exits with the job's code (the code of
 *   the exit in progress or received, else 0).
 *   Returning from main() or calling exit() without gasnet_exit runs the same
 *   path with the exit status (on_exit), so other nodes are not orphaned.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "gasnetc_internal.h"
#include "gasnett_internal.h"
#include "gasneti_env.h"
#include "boot.h"

gasnetc_client_t gasnetc_g = { .epfd = -1, .verbose_errors = 1, .name = "GASNET1" };

/* Spec 1.8: the configuration string is embedded in the library. */
const char gasnetc_config_ident[] __attribute__((used)) =
    "$GASNetConfig: (libgasnet-" GASNETC_MODE_STRING ") " GASNET_CONFIG_STRING " $";
/* The conduit's ident strings (gasnetc_ident.c, in each conduit library):
 * referred to here so that every static link of a client keeps them. */
extern const char *const gasnetc_ident_strings[];
static const void *const gasnetc_ident_keep __attribute__((used)) = gasnetc_ident_strings;

/* How long a node runs on after learning of another node's gasnet_exit(0)
 * (see the top of this file): GASNETC_EXIT_LINGER_MS of this process's own
 * CPU time, long enough for a barrier every node has notified to finish.
 * After a non-zero code (an error: the others may be waiting for the node
 * that failed) GASNETC_EXIT_LINGER_MS of the clock: waiting up to the cap
 * there would make every failed job seconds slower.
 * CPU time, not the clock's: with 128 ranks on 2 cores a node may wait
 * a second for its turn, and a linger of the clock would end some of
 * them inside such a barrier, before the line they print after it. A
 * node that sleeps waiting for what never comes uses no CPU: the
 * clock bounds it at GASNETC_EXIT_LINGER_MAX_MS (under gasnetrun, whose
 * GASNET_EXIT_GRACE is shorter, the launcher's SIGQUIT ends it first). */
#define GASNETC_EXIT_LINGER_MS 250
#define GASNETC_EXIT_LINGER_MAX_MS 5000

static volatile sig_atomic_t gasnetc_exit_code;  /* code of the exit in progress */
static volatile sig_atomic_t gasnetc_quit_raised; /* SIGQUIT raised by us */
static __thread volatile sig_atomic_t gasnetc_exiting_here; /* this thread runs the exit */

static void gasnetc_exit_now(int code, int notify) __attribute__((noreturn));

/* ---- tunables: the core's environment, read once -------------------------
 *   GASNET_MAX_SEGSIZE  segment cap (gasnetc_segment.c)   default: physmem/2
 *   GASNET_SPIN_USEC    BLOCKUNTIL spins this long before sleeping  default 100
 *                       (yielding the CPU as it spins on an overcommitted host:
 *                       gasnetc_host.c)
 *   GASNET_TRACE*, GASNET_STATS*  tracing and statistics (gasnetc_trace.c)
 *   GASNET_NETWORK      interface, subnet or address to use (gasnetc_addr.c)
 *   GASNET_SUPERNODE_MAXSIZE  ranks per shared-memory neighbourhood
 *                       (gasnetc_host.c): 0 = all of a host, 1 = no bypass
 *                                                                 default 0 */
#define GASNETC_SPIN_USEC_DEFAULT 100
#define GASNETC_LIVE_TIMEOUT_DEFAULT 30 /* s, as GASNET_UDP_TIMEOUT and GASNET_TCP_TIMEOUT */

/* boot_getenv, reported under GASNET_VERBOSEENV with the default. */
static const char *gasnetc_env(const char *name, const char *dflt) {
  const char *v = boot_getenv(name);
  gasnett__envreport(name, v, dflt);
  return v;
}

static int gasnetc_seg_per_host; /* GASNET_MAX_SEGSIZE is for the whole host (/H) */

static void gasnetc_read_env(void) {
  const char *v;
  gasnetc_g.max_local_seg = gasnetc_segment_max_from_env(
      gasnetc_env("GASNET_MAX_SEGSIZE", "half the physical memory"), &gasnetc_seg_per_host);
  gasnetc_g.spin_ns = (uint64_t)GASNETC_SPIN_USEC_DEFAULT * 1000;
  if ((v = gasnetc_env("GASNET_SPIN_USEC", "100")) && *v) {
    uint64_t us;
    if (gasneti_parse_uint(v, 0, UINT64_MAX / 1000, &us) < 0)
      gasnetc_fatal("GASNET_SPIN_USEC='%s' is not a number of microseconds", v);
    gasnetc_g.spin_ns = us * 1000;
  }
  v = gasnetc_env("GASNET_NETWORK", "the launcher's connection, else the first non-loopback address");
  gasnetc_g.network = v && *v ? v : NULL;
  gasnetc_g.supernode_max = 0;
  if ((v = gasnetc_env("GASNET_SUPERNODE_MAXSIZE", "0 (all the ranks of a host)")) && *v) {
    uint64_t m;
    if (gasneti_parse_uint(v, 0, UINT32_MAX, &m) < 0)
      gasnetc_fatal("GASNET_SUPERNODE_MAXSIZE='%s' is not a number of ranks (0: no limit)", v);
    gasnetc_g.supernode_max = (gasnet_node_t)m;
  }
  gasnetc_trace_read_env(gasnetc_env); /* GASNET_TRACE* and GASNET_STATS* */
}

/* ---- signals ------------------------------------------------------------- */

/* Flush a stream from a signal handler only if no one is writing to it. */
static void gasnetc_flush_if_free(FILE *f) {
  if (ftrylockfile(f) == 0) {
    fflush_unlocked(f);
    funlockfile(f);
  }
}

static void gasnetc_sigquit_handler(int sig) {
  (void)sig;
  if (gasnetc_quit_raised) return; /* ours, synchronous: the caller exits next */
  int code = __atomic_load_n(&gasnetc_g.exiting, __ATOMIC_ACQUIRE) ? gasnetc_exit_code
             : __atomic_load_n(&gasnetc_g.remote_exit, __ATOMIC_ACQUIRE) ? gasnetc_g.remote_code
                                                                          : 0;
  gasnetc_flush_if_free(stdout);
  gasnetc_flush_if_free(stderr);
  _exit(code);
}

/* SIGINT, SIGTERM (spec 2.1.0.5: GASNet sends SIGQUIT when the job gets
 * another terminating signal): a client's SIGQUIT handler runs, and ends
 * the rank with gasnet_exit(code) as it does for a remote exit; without one
 * (or if it returns) the signal does what it would have done. */
static void gasnetc_sigterm_handler(int sig) {
  struct sigaction q;
  if (__atomic_load_n(&gasnetc_g.exiting, __ATOMIC_ACQUIRE)) return; /* it ends us anyway */
  if (sigaction(SIGQUIT, NULL, &q) == 0 && (q.sa_flags & SA_SIGINFO ||
      (q.sa_handler != gasnetc_sigquit_handler && q.sa_handler != SIG_DFL &&
       q.sa_handler != SIG_IGN)))
    raise(SIGQUIT);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Ours only where the signal has its default action: a client's handler,
 * or an ignored SIGINT (a background job), stays. */
static void gasnetc_catch_terminators(void) {
  static const int sigs[] = { SIGINT, SIGTERM };
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old, sa;
    if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_flags & SA_SIGINFO ||
        old.sa_handler != SIG_DFL)
      continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = gasnetc_sigterm_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

static void gasnetc_on_exit(int status, void *arg) {
  (void)arg;
  if (__atomic_load_n(&gasnetc_g.exiting, __ATOMIC_ACQUIRE)) return;
  gasnetc_exit_now(status, 1);
}

/* What each node publishes at init: its maximum segment size, its first
 * address (gasnetc_addr.c) and its host (which nodes share CPUs). */
typedef struct {
  uint64_t max_seg, seg_per_host; /* per_host: max_seg is its host's, to share */
  gasnetc_addr_rec_t addr;
  gasnetc_host_rec_t host;
} gasnetc_init_rec_t;

/* The primordial objects: EP 0 with the core's and the extensions'
 * handlers (a client may add its own from now on), its segment (bound at
 * attach) and team 0, every rank in job order. */
static void gasnetc_objects_init(void) {
  gasnetc_client_t *g = &gasnetc_g;
  g->tm0.id = 0;
  g->tm0.rank = g->mynode;
  g->tm0.size = g->nodes;
  g->tm0.ep = &g->ep0;
  g->seg0.client = g;
  g->seg0.fd = -1;
  if (gasnetc_ep_init(&g->ep0, 0, GEX_EP_CAPABILITY_ALL, 0) != GASNET_OK)
    gasnetc_fatal("gasnet_init: the library's own handler tables conflict");
  if (gasnetc_wait_init() != 0)
    gasnetc_fatal("gasnet_init: cannot create the epoll set of the wait");
}

/* The teams besides tm0, guarded by a lock: handlers look teams up on
 * whatever thread polls while a client thread makes or destroys one. */
static gasnet_hsl_t gasnetc_teams_lock = GASNET_HSL_INITIALIZER;
static gasnetc_team_t *gasnetc_teams;

gasnetc_team_t *gasnetc_team_lookup(uint32_t id) {
  if (id == gasnetc_g.tm0.id) return &gasnetc_g.tm0;
  gasnet_hsl_lock(&gasnetc_teams_lock);
  gasnetc_team_t *tm = gasnetc_teams;
  while (tm && tm->id != id) tm = tm->next;
  gasnet_hsl_unlock(&gasnetc_teams_lock);
  return tm;
}

void gasnetc_team_register(gasnetc_team_t *tm) {
  gasnet_hsl_lock(&gasnetc_teams_lock);
  tm->next = gasnetc_teams;
  gasnetc_teams = tm;
  gasnet_hsl_unlock(&gasnetc_teams_lock);
}

void gasnetc_team_unregister(gasnetc_team_t *tm) {
  gasnet_hsl_lock(&gasnetc_teams_lock);
  gasnetc_team_t **pp = &gasnetc_teams;
  while (*pp && *pp != tm) pp = &(*pp)->next;
  if (*pp) *pp = tm->next;
  gasnet_hsl_unlock(&gasnetc_teams_lock);
}

gasnetc_team_t *gasnetc_team_primordial(void) { return &gasnetc_g.tm0; }

/* Every node's segment limit once the hosts are known: a host-wide one
 * (GASNET_MAX_SEGSIZE=.../H) is shared equally by the host's nodes. */
static void gasnetc_seg_limits(const gasnetc_init_rec_t *all) {
  gasnet_node_t n = gasnetc_g.nodes;
  unsigned *on_host = calloc(n, sizeof *on_host);
  if (!on_host) gasnetc_fatal("gasnet_init: out of memory for %u nodes", (unsigned)n);
  for (gasnet_node_t i = 0; i < n; i++) on_host[gasnetc_g.host_of[i]]++;
  uintptr_t global = UINTPTR_MAX;
  for (gasnet_node_t i = 0; i < n; i++) {
    uintptr_t m = (uintptr_t)all[i].max_seg;
    if (all[i].seg_per_host) m = gasnetc_segment_max_share(m, on_host[gasnetc_g.host_of[i]]);
    if (i == gasnetc_g.mynode) gasnetc_g.max_local_seg = m;
    if (m < global) global = m;
  }
  gasnetc_g.max_global_seg = global;
  free(on_host);
}

/* ---- gasnet_init (spec 2.1.0.1) ------------------------------------------- */

int gasnet_init(int *argc, char ***argv) {
  static int called;
  if (called) {
    fprintf(stderr, "GASNet: gasnet_init: called twice (spec 2.1.0.1)\n");
    return GASNET_ERR_RESOURCE;
  }
  called = 1;
  if (boot_init(argc, argv) != 0)
    return gasnetc_setup_failed(GASNET_ERR_RESOURCE, "gasnet_init",
                                "cannot join the job's bootstrap (see the message above)");
  gasnetc_g.mynode = boot_rank();
  gasnetc_g.nodes = boot_size();
  gasnetc_objects_init();
  gasnetc_g.inited = 1;
  /* The tools read the job's environment from now on; diagnostics
   * (GASNET_BACKTRACE, GASNET_FREEZE_ON_ERROR) name the rank, a fatal error
   * ends the job through the launcher, and
   * GASNET_VERBOSEENV is reported once per job, by node 0. */
  gasnett__set_getenv(boot_getenv);
  gasnett__set_rank((int)gasnetc_g.mynode);
  gasnett__set_verbose_reporter(gasnetc_g.mynode == 0);
  gasnett__set_job_end(gasnetc_job_end);
  gasnett__diag_init();
  if (gasnetc_g.nodes == 0 || gasnetc_g.nodes > GASNET_MAXNODES)
    gasnetc_fatal("gasnet_init: a job of %u nodes; at most %u are supported",
                  (unsigned)gasnetc_g.nodes, GASNET_MAXNODES);
  gasnetc_read_env();

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = gasnetc_sigquit_handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGQUIT, &sa, NULL);
  gasnetc_catch_terminators();
  on_exit(gasnetc_on_exit, NULL);

  /* gasnet_getMaxGlobalSegmentSize is not collective but valid right after
   * init (spec 2.1.0.4): learn every node's maximum now, and with it every
   * node's bootstrap address (for gasnetc_pick_bind_addr). */
  gasnetc_init_rec_t mine;
  memset(&mine, 0, sizeof mine);
  mine.max_seg = gasnetc_g.max_local_seg;
  mine.seg_per_host = (uint64_t)gasnetc_seg_per_host;
  gasnetc_addr_first(gasnetc_g.network, &mine.addr);
  gasneti_host_rec(&mine.host);
  gasnetc_init_rec_t *all = malloc(sizeof *all * gasnetc_g.nodes);
  if (!all || boot_exchange(&mine, sizeof mine, all) != 0) {
    free(all);
    return gasnetc_setup_failed(GASNET_ERR_RESOURCE, "gasnet_init",
                                "the bootstrap exchange of %u nodes failed",
                                (unsigned)gasnetc_g.nodes);
  }
  gasnetc_trace_start(); /* the exchange ends at once on every rank: the clocks' zero */
  gasnetc_addr_final(&all[0].addr, &all[0].host, sizeof *all, &mine.host);
  gasnetc_host_learn(&all[0].host, sizeof *all);
  gasnetc_seg_limits(all);
  free(all);
  return GASNET_OK;
}

/* ---- gasnet_attach (spec 2.1.0.2) ----------------------------------------- */

/* What each node publishes at attach (boot_exchange), in host byte order:
 * all ranks of a job run the same program on the same architecture. */
typedef struct {
  uint64_t seg_addr, seg_size;
  uint64_t minheapoffset;
  gasnetc_seg_handle_t seg_handle; /* (pid, memfd) when neighbours may map it */
  /* then, per transport, its address blob in GASNETC_ADDR_MAX bytes, and
   * the liveness service's (gasnetc_conduit.live) */
  uint8_t addr[];
} gasnetc_attach_rec_t;

static void gasnetc_attach_config(gasnetc_transport_config_t *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->myrank = gasnetc_g.mynode;
  cfg->nranks = gasnetc_g.nodes;
  boot_job_key(cfg->job_key);
  gasnetc_addr_get(&cfg->bind_addr, &cfg->bind_addr_len);
  cfg->getenv = boot_getenv;
  cfg->deliver = gasnetc_deliver_cb;
  cfg->place = gasnetc_place_cb;
  cfg->peer_dead = gasnetc_peer_dead_cb;
  cfg->notice = gasnetc_notice_cb;
}

/* One bootstrap exchange for what attach needs to learn: every node's
 * segment (with_seg) and every transport's address (with_addrs, then
 * connect). gasnet_attach learns both at once (one exchange, the cheaper
 * start-up); gex_Client_Init the addresses, gex_Segment_Attach the segments. */
static void gasnetc_attach_exchange(const char *call, const gasnet_seginfo_t *myseg,
                                    uintptr_t minheapoffset, int with_seg, int with_addrs) {
  gasnet_node_t n = gasnetc_g.nodes;
  size_t naddr = with_addrs ? (size_t)(gasnetc_g.ntp + 1) * GASNETC_ADDR_MAX : 0;
  size_t stride = sizeof(gasnetc_attach_rec_t) + naddr;
  gasnetc_attach_rec_t *rec = calloc(1, stride);
  char *all = malloc(stride * n);
  if (!rec || !all)
    gasnetc_fatal("%s: out of memory for the tables of %u nodes", call, (unsigned)n);
  if (with_seg) {
    rec->seg_addr = (uintptr_t)myseg->addr;
    rec->seg_size = myseg->size;
    rec->minheapoffset = minheapoffset;
    rec->seg_handle = gasnetc_segment_handle(&gasnetc_g.seg0);
  }
  for (unsigned i = 0; i < gasnetc_g.ntp && with_addrs; i++) {
    gasnetc_tp_t *tp = &gasnetc_g.tp[i];
    size_t alen = GASNETC_ADDR_MAX;
    if (tp->ops->address(tp->t, rec->addr + i * GASNETC_ADDR_MAX, &alen) != 0)
      gasnetc_fatal("%s: the %s transport has no address", call, tp->ops->name);
  }
  if (with_addrs) gasnetc_conduit.live->address(rec->addr + gasnetc_g.ntp * GASNETC_ADDR_MAX);
  if (boot_exchange(rec, stride, all) != 0)
    gasnetc_fatal("%s: the bootstrap exchange failed", call);
  for (gasnet_node_t i = 0; i < n && with_seg; i++) {
    const gasnetc_attach_rec_t *r = (const gasnetc_attach_rec_t *)(all + stride * i);
    gasnet_seginfo_t seg = { (void *)(uintptr_t)r->seg_addr, (uintptr_t)r->seg_size };
    gasnetc_segment_learn(0, i, &seg, r->seg_handle);
    if (r->minheapoffset != minheapoffset && gasnetc_g.mynode == 0)
      fprintf(stderr, "GASNet: gasnet_attach: warning: node %u passed "
              "minheapoffset %lu, node 0 %lu; all nodes must pass the same "
              "value (spec 2.1.0.2)\n", (unsigned)i,
              (unsigned long)r->minheapoffset, (unsigned long)minheapoffset);
  }
  if (with_addrs && gasnetc_conduit.live->connect(all + offsetof(gasnetc_attach_rec_t, addr) +
                                              gasnetc_g.ntp * GASNETC_ADDR_MAX, stride) != 0)
    gasnetc_fatal("%s: cannot start the liveness service (see the message above)", call);
  if (with_addrs && gasnetc_route_connect(all + offsetof(gasnetc_attach_rec_t, addr), stride) != 0)
    gasnetc_fatal("%s: the transports could not reach the other nodes", call);
  free(rec);
  free(all);
}

/* The liveness timeout of the transports without a variable of their own
 * (shm): the conduit names the network transport's. Read quietly: that
 * transport reads the same variable and warns. */
static uint64_t gasnetc_live_timeout_ns(const gasnetc_transport_config_t *cfg) {
  const char *var = gasnetc_conduit.live_timeout_env;
  double secs = var ? gasneti_env_num(cfg->getenv, "gasnet", 1, var, GASNETC_LIVE_TIMEOUT_DEFAULT,
                                      0, 86400, gasnett__envreport)
                    : GASNETC_LIVE_TIMEOUT_DEFAULT;
  return (uint64_t)(secs * 1e9);
}

/* Open the liveness service and the conduit's transports (their addresses
 * are exchanged next). */
static int gasnetc_attach_open(const char *call) {
  gasnetc_transport_config_t cfg;
  gasnetc_attach_config(&cfg);
  cfg.live_timeout_ns = gasnetc_live_timeout_ns(&cfg);
  if (gasnetc_conduit.live->open(&cfg) != 0)
    return gasnetc_setup_failed(GASNET_ERR_RESOURCE, call,
                                "cannot open the liveness socket (see the message above)");
  int rc = gasnetc_route_open(&cfg);
  if (rc) return rc;
  if (gasnetc_g.max_payload < GASNETC_AM_MAX_LONG ||
      gasnetc_g.max_payload < GASNETC_AM_MAX_MEDIUM)
    gasnetc_fatal("%s: a transport carries %zu bytes per frame, "
                  "less than the %u this library advertises",
                  call, gasnetc_g.max_payload, GASNETC_AM_MAX_LONG);
  return GASNET_OK;
}

/* AMs may flow (Longs once the segments are known): tell the extensions. */
static void gasnetc_extensions_connect(void) {
  gasnetc_g.attached = 1;
  for (unsigned i = 0; i < gasnetc_conduit.nextensions; i++)
    if (gasnetc_conduit.extensions[i]->connect) gasnetc_conduit.extensions[i]->connect();
}

int gasnetc_connect(const char *call) {
  int rc = gasnetc_attach_open(call);
  if (rc) return rc;
  gasnetc_attach_exchange(call, NULL, 0, 0, 1);
  gasnetc_extensions_connect();
  return GASNET_OK;
}

/* Bind seg to EP 0; with publish, learn every node's (one exchange). */
static void gasnetc_segment_bind(const gasnet_seginfo_t *seg) {
  gasnetc_g.seg0.addr = seg->addr;
  gasnetc_g.seg0.size = seg->size;
  gasnetc_g.seg0.bound = 1;
  gasnetc_g.ep0.seg = &gasnetc_g.seg0;
}

/* The extensions (extended-ref/) learn the segments, before the barrier
 * that ends attach (spec 2.1.0.2), so no node uses them before every node
 * has them ready. am_barrier: once AMs flow, a barrier that polls. */
static void gasnetc_attach_finish(const char *call, int am_barrier) {
  gasnetc_segment_share(call);
  for (unsigned i = 0; i < gasnetc_conduit.nextensions; i++)
    if (gasnetc_conduit.extensions[i]->attach) gasnetc_conduit.extensions[i]->attach();
  if (am_barrier) gasnetc_sync();
  else if (boot_barrier() != 0) gasnetc_fatal("%s: the bootstrap barrier failed", call);
}

/* ---- the segment exchange over AMs (gex_Segment_Attach, and
 * gex_EP_PublishBoundSegment over any team) -------------------------------------
 * Once the transports are up, a rank waiting in the bootstrap would leave
 * unanswered the frames its peers resend (gasnetc_sync): every member sends
 * the segments of the EPs it publishes (and their memfds' pid, fd:
 * gasnetc_segment.c) to every other in one Medium and polls for theirs. A
 * member that publishes nothing in this call still sends, so that all count
 * the same arrivals. The arrivals are counted by the parity of the
 * exchange: a member can be one exchange ahead of another (it left having
 * heard from all), never two. */
static uint32_t gasnetc_seginfo_got[2];
static uint32_t gasnetc_seginfo_phase;

/* One published segment, in the Medium's payload (host byte order: the
 * ranks of a job share one ABI). */
typedef struct {
  uint64_t addr, size;
  uint32_t index, zero; /* zero: no padding byte goes out unwritten */
  gasnetc_seg_handle_t h;
} gasnetc_seginfo_rec_t;

void gasnetc_seginfo_handler(gasnet_token_t token, void *buf, size_t nbytes,
                             gasnet_handlerarg_t parity) {
  gasnetc_seginfo_rec_t rec;
  if (nbytes % sizeof rec)
    gasnetc_fatal("a segment record of %zu bytes from node %u", nbytes, (unsigned)token->src);
  for (size_t off = 0; off < nbytes; off += sizeof rec) {
    memcpy(&rec, (char *)buf + off, sizeof rec);
    if (rec.index >= GASNET_MAXEPS)
      gasnetc_fatal("node %u published EP index %u (GASNET_MAXEPS is %d)",
                    (unsigned)token->src, (unsigned)rec.index, GASNET_MAXEPS);
    gasnet_seginfo_t s = { (void *)(uintptr_t)rec.addr, (uintptr_t)rec.size };
    gasnetc_segment_learn(rec.index, token->src, &s, rec.h);
  }
  __atomic_fetch_add(&gasnetc_seginfo_got[parity & 1], 1, __ATOMIC_RELEASE);
}

/* Exchange among tm's members (every rank when tm is NULL) the bound
 * segments of eps[0..num_eps); an EP with none publishes nothing (Berkeley's
 * testsegment publishes before it binds). */
static void gasnetc_seginfo_exchange(const gasnetc_team_t *tm, gasnetc_ep_t *const *eps,
                                     size_t num_eps) {
  gasnet_node_t me = tm ? tm->rank : gasnetc_g.mynode, n = tm ? tm->size : gasnetc_g.nodes;
  uint32_t parity = gasnetc_seginfo_phase++ & 1;
  gasnetc_seginfo_rec_t recs[GASNET_MAXEPS];
  size_t nrec = 0;
  for (size_t i = 0; i < num_eps; i++) {
    const gasnetc_segment_t *s = eps[i]->seg;
    if (!s) continue;
    recs[nrec] = (gasnetc_seginfo_rec_t){ (uintptr_t)s->addr, s->size, eps[i]->index, 0,
                                          gasnetc_segment_handle(s) };
    gasnet_seginfo_t si = { s->addr, s->size };
    gasnetc_segment_learn(eps[i]->index, gasnetc_g.mynode, &si, recs[nrec++].h);
  }
  gasnet_handlerarg_t arg = (gasnet_handlerarg_t)parity;
  for (gasnet_node_t i = 1; i < n; i++) { /* starting after me: no hot spot */
    gasnet_node_t r = tm ? gasnetc_team_jobrank(tm, (me + i) % n) : (me + i) % n;
    gasnetc_AMRequest(GASNETC_AM_MEDIUM, r, GASNETC_HANDLER_SEGINFO, recs,
                      nrec * sizeof recs[0], NULL, 1, &arg);
  }
  uint32_t *got = &gasnetc_seginfo_got[parity];
  GASNET_BLOCKUNTIL(__atomic_load_n(got, __ATOMIC_ACQUIRE) >= n - 1);
  __atomic_fetch_sub(got, n - 1, __ATOMIC_RELAXED);
}

int gasnetc_segment_publish(const char *call, uintptr_t segsize, uintptr_t minheapoffset) {
  gasnet_seginfo_t myseg;
  int rc = gasnetc_segment_attach(segsize, minheapoffset, &myseg);
  if (rc) return rc;
  gasnetc_segment_bind(&myseg);
  gasnetc_ep_t *ep0 = &gasnetc_g.ep0;
  gasnetc_seginfo_exchange(NULL, &ep0, 1);
  gasnetc_attach_finish(call, 1);
  return GASNET_OK;
}

/* eps[0..num_eps) may be published: EPs of this client, none twice. NULL,
 * or why not. */
static const char *gasnetc_publish_bad(gasnetc_ep_t *const *eps, size_t num_eps) {
  if (num_eps && !eps) return "eps is NULL";
  if (num_eps > GASNET_MAXEPS) return "num_eps is above GASNET_MAXEPS";
  for (size_t i = 0; i < num_eps; i++) {
    if (!eps[i] || eps[i]->client != &gasnetc_g) return "an entry of eps is not an EP of this client";
    for (size_t k = 0; k < i; k++)
      if (eps[k] == eps[i]) return "an EP appears twice in eps";
  }
  return NULL;
}

/* Collective over tm: each member's eps are made known to the others, then
 * the extensions learn the segments. No barrier: each member leaves once it
 * has heard from all, and what it heard is all it needs to communicate
 * (the description permits either). */
int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags) {
  const char *call = "gex_EP_PublishBoundSegment";
  if (!gasnetc_g.attached) gasnetc_not_ready(call, 1);
  if ((uintptr_t)tm & GASNETC_TM_PAIR_BIT || !tm)
    gasnetc_fatal("%s: tm is %s, not a team", call, tm ? "a TM-pair" : "GEX_TM_INVALID");
  const char *bad = flags ? "flags must be 0" : gasnetc_publish_bad(eps, num_eps);
  if (bad)
    gasnetc_fatal("%s: %s (it is collective: every member must call it right)", call, bad);
  gasnetc_seginfo_exchange(tm, eps, num_eps);
  gasnetc_segment_share(call);
  for (unsigned i = 0; i < gasnetc_conduit.nextensions; i++)
    if (gasnetc_conduit.extensions[i]->attach) gasnetc_conduit.extensions[i]->attach();
  return GASNET_OK;
}

int gasnet_attach(gasnet_handlerentry_t *table, int numentries,
                  uintptr_t segsize, uintptr_t minheapoffset) {
  static int called;
  int rc;
  GASNETC_CHECK_INITED("gasnet_attach");
  if (called || gasnetc_g.attached) {
    fprintf(stderr, "GASNet: gasnet_attach: called twice, or after gex_Client_Init "
            "(spec 2.1.0.2)\n");
    return GASNET_ERR_RESOURCE;
  }
  called = 1;
#if !defined(GASNET_SEGMENT_EVERYTHING)
  if (segsize % GASNET_PAGESIZE)
    return gasnetc_setup_failed(GASNET_ERR_BAD_ARG, "gasnet_attach",
                                "segsize %lu is not a multiple of GASNET_PAGESIZE (%d) "
                                "(spec 2.1.0.2)", (unsigned long)segsize, GASNET_PAGESIZE);
#endif
  if ((rc = gasnetc_ep_register(&gasnetc_g.ep0, table, numentries,
                                 GASNETC_HANDLER_CLIENT_FIRST, GASNETC_HANDLER_CLIENT_LAST,
                                 "gasnet_attach")))
    return rc;
  gasnet_seginfo_t myseg;
  if ((rc = gasnetc_segment_attach(segsize, minheapoffset, &myseg))) return rc;
  gasnetc_segment_bind(&myseg);
  if ((rc = gasnetc_attach_open("gasnet_attach"))) return rc;
  gasnetc_attach_exchange("gasnet_attach", &myseg, minheapoffset, 1, 1);
  gasnetc_extensions_connect();
  gasnetc_attach_finish("gasnet_attach", 0);
  return GASNET_OK;
}

/* ---- gasnet_exit (spec 2.1.0.5) ------------------------------------------- */

/* The exit notice goes in the reply class, which transports never refuse:
 * an exiting node does not wait for any peer's window. */
static void gasnetc_exit_notify(int code) {
  uint8_t hdr[GASNETC_WIRE_MAX_LEN];
  int32_t arg = code;
  gasnetc_wire_msg_t m = { .category = GASNETC_WIRE_SHORT, .handler = GASNETC_HANDLER_EXIT,
                           .nargs = 1 };
  size_t hlen = gasnetc_wire_encode(hdr, &m, &arg);
  for (gasnet_node_t i = 0; i < gasnetc_g.nodes; i++)
    if (i != gasnetc_g.mynode) /* errors ignored: a dead node needs no notice */
      (void)gasnetc_route_send(i, hdr, hlen, NULL, 0, GASNETC_SEND_REPLY, NULL);
}

static void gasnetc_exit_now(int code, int notify) {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&gasnetc_g.exiting, &expected, 1, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    /* This thread, from a signal handler (a client's SIGQUIT handler
     * during our flush): the flush cannot resume, end now. */
    if (gasnetc_exiting_here) _exit(gasnetc_exit_code);
    /* Another thread is already exiting (spec 2.1.0.5: one of the codes
     * wins); it will end the process. */
    for (;;) pause();
  }
  gasnetc_exiting_here = 1;
  gasnetc_exit_code = code;
  if (gasnetc_g.attached && notify && gasnetc_g.nodes > 1) gasnetc_exit_notify(code);
  fflush(NULL);
  if (gasnetc_g.attached) gasnetc_stats_write();
  gasnetc_trace_close();
  /* The launcher learns the code first, so its grace period for the other
   * nodes runs while our transport flushes. */
  if (gasnetc_g.inited) boot_fini(code);
  /* Not from inside a transport callback: the transport is mid-call. */
  if (gasnetc_g.attached && !gasnetc_thread.in_callback) {
    for (unsigned i = 0; i < gasnetc_conduit.nextensions; i++)
      if (gasnetc_conduit.extensions[i]->exit) gasnetc_conduit.extensions[i]->exit();
    gasnetc_route_close();
    gasnetc_conduit.live->close(); /* after: peers' probes are answered while we flush */
  }
  _exit(code);
}

void gasnet_exit(int exitcode) { gasnetc_exit_now(exitcode, 1); }

/* This process's CPU time, in ns (0 if the clock cannot be read). */
static uint64_t gasnetc_cpu_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Has this node lingered long enough since the remote exit notice? The
 * CPU clock is read at the first poll point after the notice (its handler
 * ran in that poll) and, to keep poll points cheap, only once the wall
 * clock says GASNETC_EXIT_LINGER_MS have passed (CPU time cannot run
 * faster than that in one thread; a PAR client's several may). */
static int gasnetc_exit_linger_over(void) {
  static uint64_t cpu0; /* + 1: 0 means not read yet */
  uint64_t wall = gasneti_now_ns() - __atomic_load_n(&gasnetc_g.remote_exit_ns, __ATOMIC_RELAXED);
  if (!__atomic_load_n(&cpu0, __ATOMIC_RELAXED)) {
    uint64_t zero = 0;
    __atomic_compare_exchange_n(&cpu0, &zero, gasnetc_cpu_ns() + 1, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
  }
  if (wall >= (uint64_t)GASNETC_EXIT_LINGER_MAX_MS * 1000000u) return 1;
  if (wall < (uint64_t)GASNETC_EXIT_LINGER_MS * 1000000u) return 0;
  if (__atomic_load_n(&gasnetc_g.remote_code, __ATOMIC_ACQUIRE) != 0) return 1;
  return gasnetc_cpu_ns() + 1 - __atomic_load_n(&cpu0, __ATOMIC_RELAXED) >=
         (uint64_t)GASNETC_EXIT_LINGER_MS * 1000000u;
}

void gasnetc_exit_check_slow(void) {
  const gasnetc_thread_t *th = &gasnetc_thread;
  if (th->token || th->in_callback ||
      __atomic_load_n(&gasnetc_g.exiting, __ATOMIC_ACQUIRE))
    return;
  if (!__atomic_load_n(&gasnetc_g.remote_exit, __ATOMIC_ACQUIRE)) return; /* orders the time */
  if (!gasnetc_exit_linger_over()) return;
  int code = __atomic_load_n(&gasnetc_g.remote_code, __ATOMIC_ACQUIRE);
  /* Spec 2.1.0.5: a node learns of a remote gasnet_exit through SIGQUIT. */
  gasnetc_quit_raised = 1;
  raise(SIGQUIT);
  gasnetc_quit_raised = 0;
  gasnetc_exit_now(code, 0);
}

/* ---- spec 2.2 ---------------------------------------------------------------- */

gasnet_node_t gasnet_mynode(void) {
  if (GASNETC_UNLIKELY(!gasnetc_g.inited))
    gasnetc_not_ready("gasnet_mynode", 0);
  return gasnetc_g.mynode;
}

gasnet_node_t gasnet_nodes(void) {
  if (GASNETC_UNLIKELY(!gasnetc_g.inited))
    gasnetc_not_ready("gasnet_nodes", 0);
  return gasnetc_g.nodes;
}

char *gasnet_getenv(const char *name) {
  GASNETC_CHECK_INITED("gasnet_getenv");
  return (char *)boot_getenv(name);
}
