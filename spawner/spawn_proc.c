/*
 * spawn_proc.c - the processes a node starts: its own ranks (fork/exec with
 * a ticket pipe and output pipes), ssh sessions to child relays, the
 * GASNET_CSPAWN_CMD shell; and reaping them.
 *
 * Every child gets PR_SET_PDEATHSIG (a rank SIGKILL, ssh SIGTERM) so that a
 * node killed with -9 leaves nothing behind, and its own process group so a
 * terminal's ^C reaches it once, through the launcher.
 */
#include "spawn.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define RANK_TICKET_FD 3   /* where a rank finds its ticket pipe, unless kept */

char *spawn_describe_status(int status, char *buf, size_t len)
{
  if (WIFSIGNALED(status)) {
    int s = WTERMSIG(status);
    const char *abbr = sigabbrev_np(s);
    snprintf(buf, len, "killed by signal %d (SIG%s)", s, abbr ? abbr : "?");
  } else {
    snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
  }
  return buf;
}

char **spawn_split_words(const char *s, int *n)
{
  char **v = NULL;
  *n = 0;
  while (s && *s) {
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    if (!*s) break;
    const char *e = s;
    while (*e && *e != ' ' && *e != '\t' && *e != '\n') e++;
    v = realloc(v, (size_t)(*n + 2) * sizeof *v);
    v[(*n)++] = strndup(s, (size_t)(e - s));
    v[*n] = NULL;
    s = e;
  }
  return v;
}

char *spawn_proc_which(const char *prog, const char *path)
{
  if (strchr(prog, '/')) return access(prog, X_OK) == 0 ? strdup(prog) : NULL;
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *e = strchr(path, ':');
    size_t dl = e ? (size_t)(e - path) : strlen(path);
    char *f = malloc(dl + strlen(prog) + 3);
    sprintf(f, "%.*s/%s", (int)dl, dl ? path : ".", prog);
    struct stat st;
    if (access(f, X_OK) == 0 && stat(f, &st) == 0 && S_ISREG(st.st_mode)) return f;
    free(f);
    path += dl + (e ? 1 : 0);
  }
  return NULL;
}

int spawn_addr_toward(const char *host, char *out, size_t len)
{
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM }, *ai;
  struct sockaddr_in me;
  socklen_t ml = sizeof me;
  if (getaddrinfo(host, "9", &hints, &ai) != 0) return -EHOSTUNREACH;
  /* a connected UDP socket sends nothing but tells us the source address */
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -EHOSTUNREACH;
  if (s >= 0 && connect(s, ai->ai_addr, ai->ai_addrlen) == 0
      && getsockname(s, (struct sockaddr *)&me, &ml) == 0
      && inet_ntop(AF_INET, &me.sin_addr, out, (socklen_t)len))
    rc = 0;
  if (s >= 0) close(s);
  freeaddrinfo(ai);
  return rc;
}

/* fork() with every signal blocked, so that no handler of ours (libuv's,
 * which take a lock on a pipe the child shares until it re-creates it)
 * runs in the child: a signal caught there once stole that lock, and the
 * launcher hung in its next handler's read. The parent's mask is back on
 * return; the child's stays blocked until child_common. */
static pid_t fork_quiet(void)
{
  sigset_t all, saved;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &saved);
  pid_t pid = fork();
  int e = errno;
  if (pid != 0) sigprocmask(SIG_SETMASK, &saved, NULL);
  errno = e;
  return pid;
}

/* In a fresh child of fork_quiet: die with the parent, own process group,
 * every caught signal back to its default (ignored ones stay ignored, as
 * exec would leave them, except SIGPIPE), then nothing blocked. */
static void child_common(pid_t parent, int deathsig)
{
  sigset_t none;
  prctl(PR_SET_PDEATHSIG, deathsig);
  if (getppid() != parent) _exit(1);       /* the parent died before prctl */
  setpgid(0, 0);
  for (int s = 1; s < NSIG; s++) {
    struct sigaction sa;
    if (s == SIGKILL || s == SIGSTOP || sigaction(s, NULL, &sa) < 0) continue;
    if (sa.sa_handler != SIG_IGN || s == SIGPIPE) signal(s, SIG_DFL);
  }
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
}

static void child_stdin_null(void)
{
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && fd != 0) dup2(fd, 0);
}

/* The environment of our ranks: ours, the -E exports (relays), the fd. */
static char **rank_env(spawn_node_t *n)
{
  spawn_cfg_t *c = n->cfg;
  size_t k = 0, ne = 0;
  while (environ[ne]) ne++;
  char **v = calloc(ne + c->nexports + 2, sizeof *v);
  for (size_t i = 0; i < ne; i++)
    if (strncmp(environ[i], "GASNET_BOOT_FD=", 15)) v[k++] = environ[i];
  if (!n->is_root) {
    for (uint32_t i = 0; i < c->nexports; i++) {
      const char *val = spawn_cfg_getenv(c, c->exports[i]);
      if (!val) continue;
      size_t nl = strlen(c->exports[i]);
      for (size_t j = 0; j < k; j++)        /* drop our own value of it */
        if (!strncmp(v[j], c->exports[i], nl) && v[j][nl] == '=') { v[j] = v[--k]; break; }
      char *e = malloc(nl + strlen(val) + 2);
      sprintf(e, "%s=%s", c->exports[i], val);
      v[k++] = e;
    }
  }
  char *fdvar = malloc(32);
  snprintf(fdvar, 32, "GASNET_BOOT_FD=%d", n->ticket_fd);
  v[k++] = fdvar;
  v[k] = NULL;
  return v;
}

/* The first descriptor from RANK_TICKET_FD up that is not a kept one. */
static int ticket_fd(const spawn_node_t *n)
{
  int fd = RANK_TICKET_FD;
  for (int i = 0; i < n->nkeep; i++)      /* keep_fds ascending */
    if (n->keep_fds[i] == fd) fd++;
  return fd;
}

/* In a rank's child: close every descriptor from 3 up except the ticket
 * and the kept ones, so nothing else of ours leaks into it. The gaps
 * between the descriptors to keep (ascending, the ticket merged in) go. */
static void close_all_but(const spawn_node_t *n)
{
  unsigned lo = 3, t = (unsigned)n->ticket_fd;
  for (int i = 0, ticket_done = 0;; ) {
    unsigned next = i < n->nkeep ? (unsigned)n->keep_fds[i] : ~0u;
    if (!ticket_done && t < next) { next = t; ticket_done = 1; } else i++;
    if (next > lo) close_range(lo, next - 1, 0);
    if (next == ~0u) return;
    lo = next + 1;
  }
}

/* Fork and exec rank r with its output on two pipes the node watches and
 * its ticket (t, formatted into line) on a third. 0, or -1 with errno set. */
static int spawn_one_rank(spawn_node_t *n, spawn_rank_t *r, pid_t me, spawn_ticket_t *t,
                          char *line, size_t linesz)
{
  spawn_cfg_t *c = n->cfg;
  int out[2], err[2], tk[2];
  if (pipe2(out, O_CLOEXEC) < 0) return -1;
  if (pipe2(err, O_CLOEXEC) < 0) { close(out[0]); close(out[1]); return -1; }
  if (pipe2(tk, O_CLOEXEC) < 0) { close(out[0]); close(out[1]); close(err[0]); close(err[1]); return -1; }
  pid_t pid = fork_quiet();
  if (pid == 0) {
    child_common(me, SIGKILL);
    child_stdin_null();
    dup2(out[1], 1);
    dup2(err[1], 2);
    if (tk[0] == n->ticket_fd) fcntl(tk[0], F_SETFD, 0);
    else dup2(tk[0], n->ticket_fd);
    close_all_but(n);
    execve(n->exec_path, c->argv, n->rank_env);
    dprintf(2, SPAWN_NAME ": cannot execute '%s': %s\n", n->exec_path, strerror(errno));
    _exit(127);
  }
  int e = errno;
  close(out[1]); close(err[1]); close(tk[0]);
  if (pid < 0) {
    close(out[0]); close(err[0]); close(tk[1]);
    errno = e;
    return -1;
  }
  r->pid = pid;
  r->alive = 1;
  r->reported = 0;
  t->id = r->rank;
  spawn_ticket_format(t, line, linesz);
  if (write(tk[1], line, strlen(line)) < 0) { /* it died already: reaped later */ }
  close(tk[1]);
  spawn_node_watch_pipe(n, r, 0, out[0]);
  spawn_node_watch_pipe(n, r, 1, err[0]);
  return 0;
}

/* ---------------------------------------------------------------- limits */

/* Descriptors a node holds besides 3 per rank of its host (listener, loop,
 * signal pipes, kids' connections and ssh pipes, stdio). */
#define PROC_FD_BASE 16u

/* Tasks (threads count: RLIMIT_NPROC counts them) now running in the
 * system, and those of real user `uid`. */
static void count_tasks(uid_t uid, uint64_t *all, uint64_t *mine)
{
  DIR *d = opendir("/proc");
  struct dirent *e;
  char path[64], line[256];
  *all = *mine = 0;
  if (!d) return;
  while ((e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%.20s/status", e->d_name);
    FILE *f = fopen(path, "re");
    if (!f) continue;
    unsigned long ruid = ~0ul, threads = 1;
    while (fgets(line, sizeof line, f)) {
      if (!strncmp(line, "Uid:", 4)) ruid = strtoul(line + 4, NULL, 10);
      else if (!strncmp(line, "Threads:", 8)) threads = strtoul(line + 8, NULL, 10);
    }
    fclose(f);
    *all += threads;
    if (ruid == (unsigned long)uid) *mine += threads;
  }
  closedir(d);
}

/* The kernel does not apply RLIMIT_NPROC to root, nor to a process with
 * CAP_SYS_ADMIN or CAP_SYS_RESOURCE (kernel/fork.c). */
static int nproc_exempt(void)
{
  char line[256];
  unsigned long long eff = 0;
  if (getuid() == 0) return 1;
  FILE *f = fopen("/proc/self/status", "re");
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "CapEff:", 7)) eff = strtoull(line + 7, NULL, 16);
  fclose(f);
  return (eff >> 21 & 1) || (eff >> 24 & 1);
}

static uint64_t sysctl_u64(const char *path)
{
  FILE *f = fopen(path, "re");
  unsigned long long v = 0;
  if (f) { if (fscanf(f, "%llu", &v) != 1) v = 0; fclose(f); }
  return v;
}

int spawn_proc_limits(uint32_t n, char *why, size_t len)
{
  struct rlimit fd = {0, 0}, np = {0, 0};
  uint64_t all, mine, need_fd = 3ull * n + PROC_FD_BASE;
  uint64_t pid_max = sysctl_u64("/proc/sys/kernel/pid_max");
  uint64_t threads_max = sysctl_u64("/proc/sys/kernel/threads-max");
  if (n == 0) return 0;
  getrlimit(RLIMIT_NOFILE, &fd);
  getrlimit(RLIMIT_NPROC, &np);
  int check_np = np.rlim_cur != RLIM_INFINITY && !nproc_exempt();
  count_tasks(getuid(), &all, &mine);
  if (pid_max && all + n > pid_max) {
    snprintf(why, len, "%u ranks do not fit in the kernel's process ids: kernel.pid_max is %llu "
             "and %llu tasks run already", (unsigned)n, (unsigned long long)pid_max,
             (unsigned long long)all);
    return -1;
  }
  if (threads_max && all + n > threads_max) {
    snprintf(why, len, "%u ranks do not fit: kernel.threads-max is %llu and %llu tasks run already",
             (unsigned)n, (unsigned long long)threads_max, (unsigned long long)all);
    return -1;
  }
  if (check_np && mine + n > np.rlim_cur) {
    snprintf(why, len, "%u ranks do not fit in the process limit RLIMIT_NPROC (ulimit -u) of "
             "%llu: this user runs %llu processes and threads already", (unsigned)n,
             (unsigned long long)np.rlim_cur, (unsigned long long)mine);
    return -1;
  }
  if (fd.rlim_cur != RLIM_INFINITY && need_fd > fd.rlim_cur) {
    snprintf(why, len, "%u ranks need about %llu descriptors in the launcher (3 per rank of this "
             "host), but the descriptor limit RLIMIT_NOFILE (ulimit -n) is %llu; raise the hard "
             "limit, ulimit -Hn, or use fewer ranks per host", (unsigned)n,
             (unsigned long long)need_fd, (unsigned long long)fd.rlim_cur);
    return -1;
  }
  return 0;
}

/* The ranks could not all start (errno): fail the job, saying what it
 * needs when descriptors ran out (docs/launcher.md). */
static void ranks_failed(spawn_node_t *n)
{
  if (errno == EMFILE || errno == ENFILE) {
    struct rlimit rl = {0, 0};
    getrlimit(RLIMIT_NOFILE, &rl);
    spawn_node_fail(n, "host %s: cannot start ranks: %s (the launcher holds 3 descriptors per "
                    "rank of its host: %u ranks need about %u, the limit is %llu; raise the hard "
                    "limit, ulimit -Hn, or use fewer ranks per host)", n->host, strerror(errno),
                    (unsigned)n->cfg->n, 3u * (unsigned)n->cfg->n + 16u,
                    (unsigned long long)rl.rlim_cur);
    return;
  }
  spawn_node_fail(n, "host %s: cannot start ranks: %s", n->host, strerror(errno));
}

int spawn_proc_ranks(spawn_node_t *n)
{
  spawn_cfg_t *c = n->cfg;
  spawn_ticket_t t;
  char line[SPAWN_TICKET_MAX];
  pid_t me = getpid();

  /* with GASNET_SSH_REMOTE_PATH, a bare name is looked for there first */
  const char *rp = n->opt.remote_path;
  if (!n->is_root && rp && !strchr(c->argv[0], '/')) n->exec_path = spawn_proc_which(c->argv[0], rp);
  if (!(n->ranks = calloc(c->n, sizeof *n->ranks))) return -ENOMEM;
  for (uint32_t i = 0; i < c->n; i++) {    /* none started yet: none to report */
    n->ranks[i].rank = c->lo + i;
    n->ranks[i].reported = 1;
  }
  n->ticket_fd = ticket_fd(n);
  char why[512];
  if (!n->is_root && spawn_proc_limits(c->n, why, sizeof why) < 0) {
    spawn_node_fail(n, "host %s: cannot start its ranks: %s", n->host, why);
    return 0;                  /* the failure tears the job down */
  }
  if (!n->exec_path && !(n->exec_path = spawn_proc_which(c->argv[0], getenv("PATH")))) {
    spawn_node_fail(n, "host %s: cannot find program '%s'", n->host, c->argv[0]);
    return 0;                  /* the failure tears the job down */
  }
  n->rank_env = rank_env(n);
  memcpy(t.secret, n->secret, sizeof t.secret);
  snprintf(t.addr, sizeof t.addr, "%s", n->addr);
  t.port = n->port;
  t.kind = SPAWN_KIND_RANK;
  int rc = 0;
  for (uint32_t i = 0; i < c->n && rc == 0; i++)
    rc = spawn_one_rank(n, &n->ranks[i], me, &t, line, sizeof line);
  if (rc < 0) ranks_failed(n); /* the failure tears the job down */
  memset(&t, 0, sizeof t);     /* the job's secret */
  memset(line, 0, sizeof line);
  return 0;
}

/* Quote for a POSIX shell: 'it'\''s'. */
static char *shell_quote(const char *s)
{
  spawn_buf_t b = {0};
  spawn_buf_put(&b, "'", 1);
  for (; *s; s++) {
    if (*s == '\'') spawn_buf_put(&b, "'\\''", 4);
    else spawn_buf_put(&b, s, 1);
  }
  spawn_buf_put(&b, "'", 2);   /* with the NUL */
  return (char *)b.p;
}

int spawn_proc_kid(spawn_node_t *n, spawn_kid_t *k)
{
  spawn_cfg_t *c = n->cfg;
  spawn_ticket_t t;
  char line[SPAWN_TICKET_MAX], ct[64];
  int nc = 0, no = 0, in[2];
  char **cmd = spawn_split_words(n->opt.ssh_cmd, &nc);
  char **opt = spawn_split_words(n->opt.ssh_options, &no);
  char *q = shell_quote(c->relay_path), *remote = malloc(strlen(q) + 32);
  char **argv = calloc((size_t)(nc + no) + 12, sizeof *argv);
  int a = 0, rc = 0;

  sprintf(remote, "exec %s --relay", q);
  snprintf(ct, sizeof ct, "ConnectTimeout=%u", (unsigned)n->opt.connect_s);
  if (nc) for (int i = 0; i < nc; i++) argv[a++] = cmd[i];
  else argv[a++] = "ssh";
  for (int i = 0; i < no; i++) argv[a++] = opt[i];  /* the user's first: ssh keeps the first value */
  argv[a++] = "-T"; argv[a++] = "-x";
  argv[a++] = "-o"; argv[a++] = "BatchMode=yes";
  argv[a++] = "-o"; argv[a++] = ct;
  argv[a++] = k->host;
  argv[a++] = remote;
  argv[a] = NULL;

  memcpy(t.secret, n->secret, sizeof t.secret);
  /* The address the relay reaches us at: GASNET_MASTERIP names the
   * launcher's when set (it wins over the route, which may be one the relay
   * cannot use back); a relay's own children get its route's source. */
  if (n->is_root && n->opt.masterip)
    snprintf(t.addr, sizeof t.addr, "%s", n->opt.masterip);
  else if (spawn_addr_toward(k->host, t.addr, sizeof t.addr) < 0)
    snprintf(t.addr, sizeof t.addr, "-");
  t.port = n->port;
  t.kind = SPAWN_KIND_RELAY;
  t.id = k->id;
  spawn_ticket_format(&t, line, sizeof line);

  if (pipe2(in, O_CLOEXEC) < 0) { rc = -errno; goto out; }
  pid_t me = getpid(), pid = fork_quiet();
  if (pid == 0) {
    child_common(me, SIGTERM);
    dup2(in[0], 0);
    dup2(2, 1);                /* nothing of ours travels on ssh's stdout */
    close_range(3, ~0u, 0);
    execvp(argv[0], argv);
    dprintf(2, SPAWN_NAME ": cannot execute '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  if (pid < 0) { rc = -errno; close(in[0]); close(in[1]); goto out; }
  close(in[0]);
  k->pid = pid;
  k->alive = 1;
  k->stdin_fd = in[1];         /* kept open: its EOF tells the relay we are gone */
  if (write(in[1], line, strlen(line)) < 0) { /* ssh died: reaped later */ }
out:
  memset(line, 0, sizeof line);
  memset(&t, 0, sizeof t);
  for (int i = 0; i < nc; i++) free(cmd[i]);
  for (int i = 0; i < no; i++) free(opt[i]);
  free(cmd); free(opt); free(q); free(remote); free(argv);
  return rc;
}

/* Expand GASNET_CSPAWN_CMD: %N count, %W workers (processes to start: %N,
 * or the allocation's nodes for the srun default), %C per-process command,
 * %D cwd, %M hosts (comma separated), %P program, %% a percent sign. */
static char *cspawn_expand(spawn_node_t *n, const char *tmpl, const char *percmd)
{
  spawn_cfg_t *c = n->cfg;
  spawn_buf_t b = {0};
  char num[16];
  for (const char *s = tmpl; *s; s++) {
    if (*s != '%' || !s[1]) { spawn_buf_put(&b, s, 1); continue; }
    char *q = NULL;
    switch (*++s) {
    case 'N': snprintf(num, sizeof num, "%u", (unsigned)c->size); spawn_buf_put(&b, num, strlen(num)); break;
    case 'W': snprintf(num, sizeof num, "%u", (unsigned)c->workers); spawn_buf_put(&b, num, strlen(num)); break;
    case 'C': spawn_buf_put(&b, percmd, strlen(percmd)); break;
    case 'D': q = shell_quote(c->cwd); break;
    case 'P': q = shell_quote(c->argv[0]); break;
    case 'M': {
      spawn_buf_t h = {0};
      for (uint32_t i = 0; i < c->nhosts; i++) {
        if (i) spawn_buf_put(&h, ",", 1);
        spawn_buf_put(&h, c->hosts[i].name, strlen(c->hosts[i].name));
      }
      spawn_buf_put(&h, "", 1);
      q = shell_quote((char *)h.p);
      spawn_buf_free(&h);
      break;
    }
    case '%': spawn_buf_put(&b, "%", 1); break;
    default: spawn_buf_put(&b, s - 1, 2); break;
    }
    if (q) { spawn_buf_put(&b, q, strlen(q)); free(q); }
  }
  spawn_buf_put(&b, "", 1);
  return (char *)b.p;
}

int spawn_proc_cspawn(spawn_node_t *n)
{
  spawn_cfg_t *c = n->cfg;
  spawn_ticket_t t;
  char line[SPAWN_TICKET_MAX], rnd[8];
  const char *dir = n->opt.keydir;
  if (!dir) dir = getenv("HOME");
  if (!dir || !*dir || access(dir, W_OK)) dir = "/tmp";
  spawn_random(rnd, sizeof rnd);
  n->keyfile = malloc(strlen(dir) + 64);
  sprintf(n->keyfile, "%s/.gasnetrun-%d-%02x%02x%02x%02x.ticket", dir, (int)getpid(),
          (uint8_t)rnd[0], (uint8_t)rnd[1], (uint8_t)rnd[2], (uint8_t)rnd[3]);

  memcpy(t.secret, n->secret, sizeof t.secret);
  snprintf(t.addr, sizeof t.addr, "%s", n->addr);
  t.port = n->port;
  t.kind = SPAWN_KIND_RELAY;
  t.id = SPAWN_ID_ANY;
  spawn_ticket_format(&t, line, sizeof line);
  memset(&t, 0, sizeof t);
  int fd = open(n->keyfile, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
    int e = errno;
    memset(line, 0, sizeof line);
    if (fd >= 0) { close(fd); unlink(n->keyfile); }
    spawn_node_fail(n, "cannot write the job ticket %s: %s", n->keyfile, strerror(e));
    free(n->keyfile); n->keyfile = NULL;
    return 0;
  }
  close(fd);
  memset(line, 0, sizeof line);

  char *qr = shell_quote(c->relay_path), *qk = shell_quote(n->keyfile);
  char *percmd = malloc(strlen(qr) + strlen(qk) + 32);
  sprintf(percmd, "%s --relay-ticket %s", qr, qk);
  char *cmd = cspawn_expand(n, n->opt.cspawn_cmd, percmd);
  free(qr); free(qk); free(percmd);

  pid_t me = getpid(), pid = fork_quiet();
  if (pid == 0) {
    child_common(me, SIGTERM);
    child_stdin_null();
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  free(cmd);
  if (pid < 0) { spawn_node_fail(n, "cannot run GASNET_CSPAWN_CMD: %s", strerror(errno)); return 0; }
  n->cspawn_pid = pid;
  return 0;
}

void spawn_proc_reap(spawn_node_t *n)
{
  int st;
  pid_t pid;
  char why[64];
  while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
    uint64_t now = gasneti_now_ms();
    if (pid == n->cspawn_pid) {
      n->cspawn_pid = 0;
      if ((!WIFEXITED(st) || WEXITSTATUS(st)) && n->kids_connected < n->nkids) {
        for (uint32_t i = 0; i < n->nkids; i++)
          if (!n->kids[i].connected && !n->kids[i].lost) { n->kids[i].lost = 1; n->kids[i].ended_ms = now; }
        if (!n->is_root || !spawn_job_dying())
          spawn_node_fail(n, "GASNET_CSPAWN_CMD %s before all %u processes connected",
                          spawn_describe_status(st, why, sizeof why), (unsigned)n->nkids);
      }
      continue;
    }
    for (uint32_t i = 0; i < n->cfg->n && n->ranks; i++) {
      spawn_rank_t *r = &n->ranks[i];
      if (r->pid != pid || !r->alive) continue;
      r->alive = 0; r->status = st; r->reaped_ms = now;
      break;
    }
    for (uint32_t i = 0; i < n->nkids; i++) {
      spawn_kid_t *k = &n->kids[i];
      if (k->pid != pid || !k->alive) continue;
      k->alive = 0; k->status = st;
      if (!k->connected && !k->lost) {
        k->lost = 1; k->ended_ms = now;
        if (!n->is_root || !spawn_job_dying())
          spawn_node_fail(n, "cannot start the relay on host %s: %s %s", k->host,
                          n->opt.ssh_cmd,
                          spawn_describe_status(st, why, sizeof why));
      }
      if (!k->ended_ms) k->ended_ms = now;
      break;
    }
  }
  spawn_node_check(n);
}
