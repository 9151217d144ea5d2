/*
 * gasnetrun.c - the launcher's command line (its environment variables are
 * read in spawn_opts_read, spawn_cfg.c), and its modes:
 *   gasnetrun [options] prog args...   the launcher (root node)
 *   gasnetrun --relay                  a relay started by ssh (ticket on stdin)
 *   gasnetrun --relay-ticket FILE      a GASNET_CSPAWN_CMD worker
 * See docs/launcher.md (and man gasnetrun) for the options and variables.
 */
#include "config.h"  /* PACKAGE_NAME, PACKAGE_VERSION from configure.ac's AC_INIT */
#include "spawn.h"
#include "gasneti_env.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <unistd.h>

extern char **environ;

static void usage(FILE *f)
{
  fprintf(f,
    "usage: gasnetrun -n N [-N hosts] [-H h1,h2,... | --hostfile F] [-E VAR,VAR] [-v] prog [args...]\n"
    "  -n N            number of ranks (processes)\n"
    "  -N H            use the first H hosts of the host list\n"
    "  -H LIST         hosts, comma separated (else GASNET_SSH_SERVERS / GASNET_SSH_NODEFILE)\n"
    "  --hostfile F    hosts, one per line\n"
    "  -E VAR,VAR      export these variables into the ranks' environment\n"
    "  -v              prefix every output line with [rank]\n"
    "  -V, --version   print the package version and the conduits, and exit\n"
    "  -h, --help      print this text and exit\n"
    "With no host list the ranks run on this host. See man gasnetrun (docs/launcher.md)\n"
    "for the environment variables.\n");
}

/* One launcher serves every conduit: gasnetrun_udp and gasnetrun_tcp are
 * links to it (spawner/Makefile.am), so the conduits are listed, not asked. */
static void version(void)
{
  printf("gasnetrun (%s) %s\nconduits: udp tcp\n", PACKAGE_NAME, PACKAGE_VERSION);
}

/* What the user called us, for messages: gasnetrun, or amudprun. */
static const char *launcher_name = SPAWN_NAME;

static void die2(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die2(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs(launcher_name, stderr);
  fputs(": ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

static uint32_t parse_count(const char *opt, const char *v)
{
  uint64_t x;
  if (gasneti_parse_uint(v, 1, 1000000, &x) < 0)
    die2("%s needs a positive number, not '%s'", opt, v ? v : "");
  return (uint32_t)x;
}

/* Host lists: words separated by commas or white space; files one per line
 * (first word; '#' starts a comment). */
static void add_hosts(char ***v, uint32_t *n, const char *s)
{
  while (*s) {
    size_t l = strcspn(s, ", \t\n");
    if (l) {
      *v = realloc(*v, (*n + 1) * sizeof **v);
      (*v)[(*n)++] = strndup(s, l);
    }
    s += l;
    if (*s) s++;
  }
}

static void read_hostfile(char ***v, uint32_t *n, const char *path)
{
  FILE *f = fopen(path, "r");
  char line[1024];
  if (!f) die2("cannot read host file %s: %s", path, strerror(errno));
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "#")] = 0;
    char *w = line + strspn(line, " \t\r\n");
    w[strcspn(w, " \t\r\n")] = 0;
    if (*w) add_hosts(v, n, w);
  }
  fclose(f);
}

static void raise_fd_limit(void)
{
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

static char *self_path(void)
{
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return NULL;
  buf[n] = 0;
  return strdup(buf);
}

static int run_node(spawn_node_t *node)
{
  signal(SIGPIPE, SIG_IGN);
  if (spawn_node_start(node) < 0) return 1;
  uv_run(node->loop, UV_RUN_DEFAULT);
  return 1;  /* the node exits from its last event */
}

/* ------------------------------------------------------------------ relay */

/* A GASNET_CSPAWN_CMD worker keeps for its ranks the descriptors its own
 * launcher gave it (mpiexec's PMI_FD, say): those open now, above stderr,
 * except `skip` (the ticket file). Ascending, as spawn_proc.c wants them. */
static void keep_inherited_fds(spawn_node_t *n, int skip)
{
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  int cap = 0;
  if (!d) return;
  while ((e = readdir(d))) {
    char *end;
    long fd = strtol(e->d_name, &end, 10);
    if (*end || fd <= 2 || fd == skip || fd == dirfd(d)) continue;
    if (n->nkeep == cap) n->keep_fds = realloc(n->keep_fds, (size_t)(cap = cap * 2 + 8) * sizeof *n->keep_fds);
    n->keep_fds[n->nkeep++] = (int)fd;
  }
  closedir(d);
  for (int i = 1; i < n->nkeep; i++)          /* insertion sort: a handful */
    for (int j = i; j > 0 && n->keep_fds[j - 1] > n->keep_fds[j]; j--) {
      int x = n->keep_fds[j]; n->keep_fds[j] = n->keep_fds[j - 1]; n->keep_fds[j - 1] = x;
    }
}

/* A worker's number from its launcher's per-task variables, when there is
 * one: the launcher's numbering then decides which block of ranks it runs
 * (and, one rank per worker, that rank is the launcher's rank too). */
static uint32_t launcher_task_id(void)
{
  static const char *const vars[] = { "PMI_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", NULL };
  for (int i = 0; vars[i]; i++) {
    uint64_t x;
    if (gasneti_parse_uint(getenv(vars[i]), 0, SPAWN_ID_ANY - 1, &x) == 0) return (uint32_t)x;
  }
  return SPAWN_ID_ANY;
}

/* A relay's ticket: from ticket_file (a GASNET_CSPAWN_CMD worker, which
 * keeps the other descriptors its launcher gave it) or from stdin (ssh).
 * 0, or -1 said on stderr. */
static int relay_ticket(spawn_node_t *node, const char *ticket_file, spawn_ticket_t *t)
{
  char line[SPAWN_TICKET_MAX];
  int fd = 0, rc;
  if (ticket_file && (fd = open(ticket_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
    fprintf(stderr, SPAWN_NAME ": relay on %s: cannot read %s: %s\n", node->host, ticket_file, strerror(errno));
    return -1;
  }
  if (ticket_file) keep_inherited_fds(node, fd);
  rc = spawn_ticket_read(fd, line, sizeof line);
  if (ticket_file) close(fd);
  if (rc < 0 || spawn_ticket_parse(line, t) < 0) {
    fprintf(stderr, SPAWN_NAME ": relay on %s: no valid ticket on %s\n", node->host, ticket_file ? ticket_file : "stdin");
    return -1;
  }
  memset(line, 0, sizeof line);
  if (ticket_file && t->id == SPAWN_ID_ANY) t->id = launcher_task_id();
  if (!strcmp(t->addr, "-")) {                /* launcher = ssh's client end */
    const char *sc = getenv("SSH_CONNECTION");
    if (!sc || sscanf(sc, "%63s", t->addr) != 1) {
      fprintf(stderr, SPAWN_NAME ": relay on %s: no address for the launcher (set GASNET_MASTERIP)\n", node->host);
      return -1;
    }
  }
  return 0;
}

static int relay_main(const char *ticket_file)
{
  static spawn_node_t node;
  static spawn_cfg_t cfg;
  spawn_ticket_t t;
  char line[SPAWN_TICKET_MAX];
  int rc, sock;
  uint8_t *body;
  size_t len;
  const char *why;

  gethostname(node.host, sizeof node.host - 1);
  if (relay_ticket(&node, ticket_file, &t) < 0) return 1;
  rc = spawn_client_join(&t, node.host, &sock, &body, &len, &why);
  if (rc < 0) {
    fprintf(stderr, SPAWN_NAME ": relay on %s: cannot join the launcher at %s:%u: %s: %s\n",
            node.host, t.addr, (unsigned)t.port, why, strerror(-rc));
    return 1;
  }
  spawn_rd_t r = { body, body + len, 0 };
  if (spawn_cfg_get(&r, &cfg) < 0) {
    fprintf(stderr, SPAWN_NAME ": relay on %s: malformed job description\n", node.host);
    return 1;
  }
  free(body);
  if (spawn_opts_read(&cfg, &node.opt, line, sizeof line) < 0) {
    fprintf(stderr, SPAWN_NAME ": relay: %s\n", line);
    return 1;
  }
  /* from now on this host is called what the launcher's host list says */
  snprintf(node.host, sizeof node.host, "%s", cfg.hosts[0].name);
  memcpy(node.secret, t.secret, sizeof node.secret);
  memset(&t, 0, sizeof t);

  /* our ranks reach us on the interface that reaches our parent */
  struct sockaddr_in me;
  socklen_t ml = sizeof me;
  if (getsockname(sock, (struct sockaddr *)&me, &ml) < 0
      || !inet_ntop(AF_INET, &me.sin_addr, node.addr, sizeof node.addr))
    snprintf(node.addr, sizeof node.addr, "127.0.0.1");

  node.loop = uv_default_loop();
  node.cfg = &cfg;
  node.watch_stdin = !ticket_file;
  raise_fd_limit();
  if (spawn_node_adopt_parent(&node, sock) < 0) return 1;
  if (chdir(cfg.cwd) < 0) {
    spawn_node_fail(&node, "host %s: cannot enter directory %s: %s", node.host, cfg.cwd, strerror(errno));
    cfg.n = 0;                 /* start nothing; the root tears down */
  }
  return run_node(&node);
}

/* --------------------------------------------------------------- launcher */

/* The command line, the hosts it and the environment name, and what they
 * decide: where the ranks run, on how many hosts. */
typedef struct {
  uint32_t n, nhosts_want, nhosts;
  char **hosts, *hostfile, *exports;
  int verbose, have_h;
  int announce;         /* amudprun -v: say how the job starts */
  int prog;             /* argv index of the program */
  char mode;            /* 'L' local, 'S' ssh, 'C' cspawn (launch_mode) */
  uint32_t alloc_nodes; /* cspawn by srun in a Slurm allocation: its nodes, else 0 */
  uint32_t use;         /* hosts used (hosts_used) */
} launch_args_t;

static void parse_args(int argc, char **argv, launch_args_t *a)
{
  int i;
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    const char *o = argv[i];
    if (!strcmp(o, "--")) { i++; break; }
#define ARG() (i + 1 < argc ? argv[++i] : (die2("option %s needs a value", o), (char *)NULL))
    if (!strcmp(o, "-n") || !strcmp(o, "-np")) a->n = parse_count("-n", ARG());
    else if (!strncmp(o, "-n", 2) && o[2] >= '0' && o[2] <= '9') a->n = parse_count("-n", o + 2);
    else if (!strcmp(o, "-N")) a->nhosts_want = parse_count("-N", ARG());
    else if (!strcmp(o, "-H")) { add_hosts(&a->hosts, &a->nhosts, ARG()); a->have_h = 1; }
    else if (!strcmp(o, "--hostfile")) a->hostfile = ARG();
    else if (!strcmp(o, "-E")) a->exports = ARG();
    else if (!strcmp(o, "-v")) a->verbose = 1;
    else if (!strcmp(o, "-h") || !strcmp(o, "--help")) { usage(stdout); exit(0); }
    else if (!strcmp(o, "-V") || !strcmp(o, "--version")) { version(); exit(0); }
    else die2("unknown option %s (see gasnetrun --help)", o);
#undef ARG
  }
  if (a->n == 0) die2("-n is required and must be positive");
  if (i >= argc) die2("no program to run");
  a->prog = i;
}

/* ------------------------------------------------------------- amudprun */

/* amudprun, the launcher name run scripts call for udp jobs (UPC++'s
 * upcxx-run, OpenSHMEM's oshrun): Berkeley's options, mapped onto ours.
 * -spawn and -depth become the variables they stand for, in the snapshot
 * the ranks read (spawn_opts_read, boot_getenv). */
static void amudprun_usage(FILE *f)
{
  fprintf(f,
    "usage: amudprun -np N [-spawn L|S|C] [-depth D] [-v]... prog [args...]\n"
    "  -np N, -n N     number of ranks\n"
    "  -spawn F        how to start them: L this host, S ssh (GASNET_SSH_SERVERS),\n"
    "                  C GASNET_CSPAWN_CMD (sets GASNET_SPAWNFN)\n"
    "  -depth D        request credits per peer (sets GASNET_UDP_CREDITS)\n"
    "  -v              say how the job is started, on stderr\n"
    "  -h, --help      print this text and exit\n"
    "amudprun is gasnetrun under another name: see man gasnetrun.\n");
}

static void amudprun_args(int argc, char **argv, launch_args_t *a)
{
  int i;
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    const char *o = argv[i];
    if (!strcmp(o, "--")) { i++; break; }
#define ARG() (i + 1 < argc ? argv[++i] : (die2("option %s needs a value", o), (char *)NULL))
    if (!strcmp(o, "-np") || !strcmp(o, "-n")) a->n = parse_count("-np", ARG());
    else if (!strcmp(o, "-spawn")) {
      const char *f = ARG();
      if (strlen(f) != 1 || !strchr("LSClsc", f[0]))
        die2("-spawn takes L (this host), S (ssh) or C (GASNET_CSPAWN_CMD), not '%s'", f);
      char v[2] = { (char)(f[0] & ~0x20), 0 };
      setenv("GASNET_SPAWNFN", v, 1);
    } else if (!strcmp(o, "-depth")) {
      const char *d = ARG();
      parse_count("-depth", d);
      setenv("GASNET_UDP_CREDITS", d, 1);
    } else if (o[1] == 'v' && !o[1 + strspn(o + 1, "v")]) a->announce = 1;  /* -v, -vv, ... */
    else if (!strcmp(o, "-h") || !strcmp(o, "--help")) { amudprun_usage(stdout); exit(0); }
    else die2("unknown option %s (amudprun takes -np N, -spawn L|S|C, -depth D, -v; see amudprun --help)", o);
#undef ARG
  }
  if (a->n == 0) die2("-np is required and must be positive");
  if (i >= argc) die2("no program to run");
  a->prog = i;
}

/* Where the ranks run (a->mode): 'L' local, 'S' ssh or 'C' cspawn
 * (GASNET_CSPAWN_CMD, or srun inside a Slurm allocation of a->alloc_nodes
 * nodes). Fills the host list from the environment when the command line
 * has none. */
static void launch_mode(launch_args_t *a, spawn_opts_t *o)
{
  if (!a->have_h && a->hostfile) read_hostfile(&a->hosts, &a->nhosts, a->hostfile);
  if (!a->have_h && !a->hostfile && o->mode != 'L') {
    if (o->ssh_servers) add_hosts(&a->hosts, &a->nhosts, o->ssh_servers);
    else if (o->ssh_nodefile) read_hostfile(&a->hosts, &a->nhosts, o->ssh_nodefile);
  }
  if ((a->have_h || a->hostfile) && a->nhosts == 0) die2("the host list is empty");
  /* Inside a Slurm allocation with no host list: srun starts one relay per
   * allocated node (docs/launcher.md, "Inside a Slurm allocation"). */
  a->alloc_nodes = 0;
  if (!a->nhosts && !o->cspawn_cmd && (!o->mode || o->mode == 'C') && getenv("SLURM_JOB_ID")) {
    const char *nn = getenv("SLURM_JOB_NUM_NODES") ? getenv("SLURM_JOB_NUM_NODES") : getenv("SLURM_NNODES");
    a->alloc_nodes = parse_count("SLURM_JOB_NUM_NODES", nn ? nn : "1");
    o->cspawn_cmd = SPAWN_SRUN_CMD;
  }
  char mode = o->mode ? o->mode : o->cspawn_cmd ? 'C' : a->nhosts ? 'S' : 'L';
  if (mode == 'C' && !o->cspawn_cmd) die2("GASNET_SPAWNFN=C needs GASNET_CSPAWN_CMD");
  if (mode == 'S' && a->nhosts == 0) die2("ssh spawn needs hosts (-H, --hostfile, GASNET_SSH_SERVERS or GASNET_SSH_NODEFILE)");
  if (mode == 'L') a->nhosts = a->nhosts > 1 ? 1 : a->nhosts;
  /* Berkeley's %M: GASNET_CSPAWN_SERVERS, the first N of them */
  if (mode == 'C' && !a->have_h && !a->hostfile && o->cspawn_servers) {
    a->nhosts = 0;
    add_hosts(&a->hosts, &a->nhosts, o->cspawn_servers);
    if (a->nhosts > a->n) a->nhosts = a->n;
  }
  a->mode = mode;
}

/* The hosts an ssh job uses (-N, or as many as there are ranks), checked
 * against GASNET_MAX_PPN; 1 otherwise: a->use. */
static void hosts_used(launch_args_t *a, const spawn_opts_t *o)
{
  char mode = a->mode;
  uint32_t n = a->n, use = mode == 'S' ? a->nhosts : 1;
  if (a->nhosts_want) {
    if (mode == 'S' && a->nhosts_want > a->nhosts) die2("-N %u but the host list has %u hosts", (unsigned)a->nhosts_want, (unsigned)a->nhosts);
    if (mode == 'L' && a->nhosts_want > 1) die2("-N %u needs a host list", (unsigned)a->nhosts_want);
    if (mode == 'S') use = a->nhosts_want;
    if (mode == 'S' && n < use) die2("-n %u is fewer ranks than the %u hosts of -N", (unsigned)n, (unsigned)use);
  }
  if (mode == 'S' && n < use) use = n;
  if (o->max_ppn && mode != 'C' && (n + use - 1) / use > o->max_ppn)
    die2("-n %u needs more than GASNET_MAX_PPN=%u ranks on one of %u hosts", (unsigned)n, (unsigned)o->max_ppn, (unsigned)use);
  a->use = use;
}

/* The directory the ranks start in. The program must exist here (remote
 * trees share the path), unless GASNET_SSH_REMOTE_PATH names theirs. */
static char *job_cwd(const launch_args_t *a, const spawn_opts_t *o, char **argv)
{
  char mode = a->mode;
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) die2("cannot get the current directory: %s", strerror(errno));
  const char *rpath = o->remote_path;
  if (!(mode == 'S' && rpath)) {
    char *p = spawn_proc_which(argv[a->prog], getenv("PATH"));
    if (!p) die2("program '%s' not found or not executable", argv[a->prog]);
    free(p);
  }
  if (mode == 'S' && rpath) snprintf(cwd, sizeof cwd, "%s", rpath);
  return strdup(cwd);
}

/* Which ranks start where: all here (L), consecutive ranks per host (S), or
 * one worker per allocated node or rank (C). */
static void root_placement(spawn_cfg_t *cfg, const launch_args_t *a)
{
  uint32_t n = a->n, use = a->use, alloc_nodes = a->alloc_nodes;
  if (a->mode == 'L') {
    cfg->lo = 0; cfg->n = n;
  } else if (a->mode == 'S') {
    cfg->nhosts = use;
    cfg->hosts = calloc(use, sizeof *cfg->hosts);
    for (uint32_t h = 0; h < use; h++) {   /* blocked: consecutive ranks per host */
      cfg->hosts[h].name = a->hosts[h];
      cfg->hosts[h].lo = (uint32_t)((uint64_t)h * n / use);
      cfg->hosts[h].n = (uint32_t)((uint64_t)(h + 1) * n / use) - cfg->hosts[h].lo;
    }
  } else {
    cfg->cspawn = 1;
    cfg->workers = alloc_nodes ? (alloc_nodes < n ? alloc_nodes : n) : n;
    cfg->nhosts = a->nhosts;                     /* only for %M */
    cfg->hosts = calloc(a->nhosts + 1, sizeof *cfg->hosts);
    for (uint32_t h = 0; h < a->nhosts; h++) cfg->hosts[h].name = a->hosts[h];
  }
}

/* The configuration of the root node: the job, its program, its hosts. */
static void root_cfg(spawn_cfg_t *cfg, const launch_args_t *a, const spawn_opts_t *o,
                     int argc, char **argv)
{
  cfg->size = a->n;
  cfg->sub_lo = 0; cfg->sub_n = a->n;
  cfg->degree = o->out_degree;
  cfg->connect_ms = o->connect_s * 1000;
  cfg->cwd = job_cwd(a, o, argv);
  if (!(cfg->relay_path = self_path())) die2("cannot find my own executable");
  cfg->argc = (uint32_t)(argc - a->prog);
  cfg->argv = argv + a->prog;
  if (a->exports) {
    int ne;
    for (char *c = a->exports; *c; c++) if (*c == ',') *c = ' ';
    cfg->exports = spawn_split_words(a->exports, &ne);
    cfg->nexports = (uint32_t)ne;
  }
  root_placement(cfg, a);
}

/* The address the ranks and relays reach the root at. */
static void root_addr(spawn_node_t *node, const launch_args_t *a, const spawn_opts_t *o)
{
  if (a->mode == 'L') {
    snprintf(node->addr, sizeof node->addr, "127.0.0.1");
  } else {
    if (o->masterip) snprintf(node->addr, sizeof node->addr, "%s", o->masterip);
    else if (!(a->nhosts && spawn_addr_toward(a->hosts[0], node->addr, sizeof node->addr) == 0)
             && spawn_addr_toward(node->host, node->addr, sizeof node->addr) < 0)
      snprintf(node->addr, sizeof node->addr, "127.0.0.1");
  }
}

int main(int argc, char **argv)
{
  static spawn_node_t node;
  static spawn_cfg_t cfg;
  launch_args_t a = {0};

  if (argc >= 2 && !strcmp(argv[1], "--relay")) return relay_main(NULL);
  if (argc >= 3 && !strcmp(argv[1], "--relay-ticket")) return relay_main(argv[2]);
  const char *base = strrchr(argv[0], '/');
  if (!strcmp(base ? base + 1 : argv[0], "amudprun")) {
    launcher_name = "amudprun";
    amudprun_args(argc, argv, &a);
  }
  else parse_args(argc, argv, &a);

  /* the environment snapshot and the tunables read from it */
  char why[512];
  for (char **e = environ; *e; e++) cfg.nenv++;
  cfg.env = environ;
  if (spawn_opts_read(&cfg, &node.opt, why, sizeof why) < 0) die2("%s", why);
  spawn_opts_t *o = &node.opt;

  launch_mode(&a, o);
  hosts_used(&a, o);
  root_cfg(&cfg, &a, o, argc, argv);
  if (a.announce)
    fprintf(stderr, "amudprun: starting %u ranks of %s, spawn %c (%s)\n",
            (unsigned)a.n, argv[a.prog], a.mode,
            a.mode == 'L' ? "on this host" : a.mode == 'S' ? "by ssh" : "by GASNET_CSPAWN_CMD");

  node.is_root = 1;
  node.cfg = &cfg;
  node.loop = uv_default_loop();
  gethostname(node.host, sizeof node.host - 1);
  if (spawn_random(node.secret, sizeof node.secret) < 0) die2("getrandom failed: %s", strerror(errno));
  root_addr(&node, &a, o);
  raise_fd_limit();
  /* before anything is forked: will this host's ranks fit its limits? */
  if (spawn_proc_limits(cfg.n, why, sizeof why) < 0) die2("-n %u: %s", (unsigned)a.n, why);
  if (spawn_job_init(&node, a.verbose) < 0) die2("out of memory");
  return run_node(&node);
}
