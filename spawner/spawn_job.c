/*
 * spawn_job.c - what only the launcher (the root node) does: assemble each
 * rank's output into whole lines, apply the exit policy, tear the job down.
 *
 * Exit policy: the job's code is the first non-zero code seen (a rank's
 * boot_fini/boot_abort code, or a rank's exit status), else 0. A rank that
 * dies by a signal, or that connected and exited without boot_fini, or that
 * never connected and exited non-zero, fails the job: one line naming it,
 * SIGTERM to every rank, SIGKILL GASNET_KILL_GRACE later. After a first
 * boot_fini the job is ending: GASNET_EXIT_GRACE for the rest to exit, then
 * SIGQUIT, then SIGKILL; deaths by those signals are not failures.
 */
#include "spawn.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A line longer than this is written in pieces rather than held forever. */
#define JOB_LINE_MAX (1u << 20)
/* A rank that aborts because it lost a peer ("lost node N", the core's
 * gasnetc_peer_dead_cb) often tells us before we have reaped that peer:
 * its abort waits this long for our own wait status of the peer, which
 * names the real cause (a signal, an exit) when it comes in time. */
#define JOB_LOST_HOLD_MS 500

enum job_phase { JOB_RUNNING, JOB_ENDING, JOB_ABORTING, JOB_SIGNALED };

typedef struct job_line { char *p; size_t len, cap; } job_line_t;

static struct {
  spawn_node_t *node;
  int phase, code, verbose;
  uint32_t size;
  job_line_t *lines;         /* [rank*2 + stream-1] */
  uv_timer_t timer;          /* next step of a teardown */
  int next_sig;              /* what the timer sends */
  uint64_t exit_grace_ms, kill_grace_ms;
  struct {                   /* an abort waiting for the lost peer's status */
    int active, code;
    int later;               /* a finished rank's code meanwhile (its abort's, as a rule) */
    uint32_t rank, lost;
    char *why;
    uv_timer_t timer;
  } held;
} job;

int spawn_job_dying(void) { return job.phase == JOB_ABORTING || job.phase == JOB_SIGNALED; }

/* Output the launcher could not write (its stdout or stderr closed, a
 * full disk): counted per stream, said once on stderr when it happens, and
 * again at the end with the count, which also makes the job fail. */
static struct { uint64_t bytes; int err; } job_lost[3];

static void output_lost(int fd, int err, size_t n)
{
  if (!job_lost[fd].bytes) {
    char msg[200];
    int l = snprintf(msg, sizeof msg, SPAWN_NAME ": cannot write the ranks' %s: %s; the job "
                     "will exit 1\n", fd == 1 ? "stdout" : "stderr", strerror(err));
    if (fd != 2 && write(2, msg, (size_t)l) < 0) { /* stderr too: the exit status says it */ }
    job_lost[fd].err = err;
  }
  job_lost[fd].bytes += n;
}

static void write_all(int fd, const char *p, size_t n)
{
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {           /* inherited non-blocking */
      struct pollfd pf = { .fd = fd, .events = POLLOUT };
      poll(&pf, 1, 1000);
      continue;
    }
    if (w <= 0) { output_lost(fd, w < 0 ? errno : EIO, n); return; }
    p += w; n -= (size_t)w;
  }
}


/* Write complete lines p[0..n), with the "[rank] " prefix under -v. */
static void emit(uint32_t rank, uint32_t stream, const char *p, size_t n)
{
  int fd = (int)stream;
  if (!job.verbose) { write_all(fd, p, n); return; }
  spawn_buf_t b = {0};
  char pre[24];
  int pl = snprintf(pre, sizeof pre, "[%u] ", (unsigned)rank);
  while (n > 0) {
    const char *e = memchr(p, '\n', n);
    size_t l = e ? (size_t)(e - p) + 1 : n;
    spawn_buf_put(&b, pre, (size_t)pl);
    spawn_buf_put(&b, p, l);
    p += l; n -= l;
  }
  write_all(fd, (char *)b.p, b.len);
  spawn_buf_free(&b);
}

void spawn_job_output(uint32_t rank, uint32_t stream, const uint8_t *p, size_t n)
{
  job_line_t *l = &job.lines[rank * 2 + stream - 1];
  const uint8_t *nl = NULL;
  for (size_t i = n; i > 0; i--) if (p[i - 1] == '\n') { nl = p + i - 1; break; }
  if (!nl && l->len + n < JOB_LINE_MAX) {      /* no line ends here: hold it */
    if (l->len + n > l->cap) {
      l->cap = (l->len + n) * 2;
      l->p = realloc(l->p, l->cap);
    }
    memcpy(l->p + l->len, p, n);
    l->len += n;
    return;
  }
  size_t whole = nl ? (size_t)(nl - p) + 1 : n;
  if (l->len) {                                /* finish the held line first */
    spawn_buf_t b = {0};
    spawn_buf_put(&b, l->p, l->len);
    spawn_buf_put(&b, p, whole);
    emit(rank, stream, (char *)b.p, b.len);
    spawn_buf_free(&b);
    l->len = 0;
  } else {
    emit(rank, stream, (const char *)p, whole);
  }
  if (whole < n) spawn_job_output(rank, stream, p + whole, n - whole);
}

/* A rank is gone: write what it left without a newline. */
static void job_flush(uint32_t rank)
{
  for (uint32_t s = 1; s <= 2; s++) {
    job_line_t *l = &job.lines[rank * 2 + s - 1];
    if (!l->len) continue;
    /* alone, a rank's bytes go out as they are; in company, end the line */
    if (job.size > 1 || job.verbose) spawn_job_output(rank, s, (const uint8_t *)"\n", 1);
    else { emit(rank, s, l->p, l->len); l->len = 0; }
  }
}

void spawn_job_host_of(uint32_t rank, char *out, size_t len)
{
  spawn_node_t *n = job.node;
  spawn_cfg_t *c = n->cfg;
  const char *h = "?";
  if (rank >= c->lo && rank - c->lo < c->n) h = n->host;
  for (uint32_t i = 0; i < c->nhosts; i++)
    if (rank >= c->hosts[i].lo && rank - c->hosts[i].lo < c->hosts[i].n) h = c->hosts[i].name;
  for (uint32_t i = 0; c->cspawn && i < n->nkids; i++)
    if (rank - n->kids[i].lo < n->kids[i].n && n->kids[i].host) h = n->kids[i].host;
  snprintf(out, len, "%s", h);
}

static void on_teardown_timer(uv_timer_t *t)
{
  (void)t;
  int sig = job.next_sig;
  spawn_node_signal(job.node, sig);
  if (sig != SIGKILL) {
    job.next_sig = SIGKILL;
    uv_timer_start(&job.timer, on_teardown_timer, job.kill_grace_ms, 0);
  }
}

/* Send `now` to every rank (0: none yet), then `later` after `delay_ms`. */
static void teardown(int now, int later, uint64_t delay_ms)
{
  if (now) spawn_node_signal(job.node, now);
  job.next_sig = later;
  uv_timer_start(&job.timer, on_teardown_timer, delay_ms, 0);
}

static void set_code(int code)
{
  if (code && !job.code) job.code = code;
}

void spawn_job_fail(const char *msg)
{
  if (spawn_job_dying()) return;
  fprintf(stderr, SPAWN_NAME ": %s\n", msg);
  set_code(1);
  job.phase = JOB_ABORTING;
  teardown(SIGTERM, SIGKILL, job.kill_grace_ms);
}

/* A host given up: the job fails, and this is said even while it ends. */
void spawn_job_notice(const char *msg)
{
  if (!spawn_job_dying()) { spawn_job_fail(msg); return; }
  fprintf(stderr, SPAWN_NAME ": %s\n", msg);
  set_code(1);
}

void spawn_job_fini(uint32_t rank, int code)
{
  (void)rank;
  set_code(code);
  if (job.phase != JOB_RUNNING) return;
  job.phase = JOB_ENDING;
  teardown(0, SIGQUIT, job.exit_grace_ms);
}

static void abort_now(uint32_t rank, int code, const char *why)
{
  char host[256];
  spawn_job_host_of(rank, host, sizeof host);
  fprintf(stderr, SPAWN_NAME ": rank %u (on host %s) aborted the job%s%s\n", (unsigned)rank, host,
          why && *why ? ": " : "", why ? why : "");
  set_code(code ? code : 1);
  job.phase = JOB_ABORTING;
  teardown(SIGTERM, SIGKILL, job.kill_grace_ms);
}

/* The held abort goes ahead (release) or is dropped for a better cause. */
static void held_end(int release)
{
  if (!job.held.active) return;
  job.held.active = 0;
  uv_timer_stop(&job.held.timer);
  if (release && job.phase == JOB_RUNNING) abort_now(job.held.rank, job.held.code, job.held.why);
  else if (release) set_code(job.held.code ? job.held.code : 1);
  /* dropped: the caller sets the better cause's code, before any of these */
  if (release) set_code(job.held.later);
  job.held.later = 0;
  free(job.held.why);
  job.held.why = NULL;
}

static void on_held_timer(uv_timer_t *t)
{
  (void)t;
  held_end(1);
}

/* The peer an abort message says was lost (gasnetc_peer_dead_cb: "lost
 * node N (...)"), or -1. */
static long abort_lost_peer(const char *why)
{
  const char *p = why ? strstr(why, "lost node ") : NULL;
  char *end;
  if (!p) return -1;
  unsigned long n = strtoul(p + 10, &end, 10);
  return end == p + 10 || n >= job.size ? -1 : (long)n;
}

void spawn_job_abort(uint32_t rank, int code, const char *why)
{
  if (job.held.active) return;           /* the same loss, told by another */
  if (spawn_job_dying()) { set_code(code); return; }
  long lost = abort_lost_peer(why);
  if (lost < 0 || job.phase != JOB_RUNNING) { abort_now(rank, code, why); return; }
  job.held.active = 1;
  job.held.rank = rank;
  job.held.code = code;
  job.held.lost = (uint32_t)lost;
  job.held.why = strdup(why);
  uv_timer_start(&job.held.timer, on_held_timer, JOB_LOST_HOLD_MS, 0);
}

void spawn_job_exit(uint32_t rank, uint32_t how, uint32_t value, uint32_t flags)
{
  char host[256], why[64];
  int code = how == SPAWN_HOW_SIGNALED ? 128 + (int)value : (int)value;
  job_flush(rank);
  /* the peer a held abort is about: a failure of its own is the cause */
  int failed = !(flags & SPAWN_EXIT_FINISHED)
               && !(how == SPAWN_HOW_EXITED && value == 0 && !(flags & SPAWN_EXIT_CONNECTED));
  if (job.held.active && (rank == job.held.lost || job.phase != JOB_RUNNING))
    held_end(!failed || job.phase != JOB_RUNNING);
  if (flags & SPAWN_EXIT_FINISHED) {       /* its boot_fini/abort code counts */
    if (how == SPAWN_HOW_EXITED && job.held.active) { /* after the held abort's cause */
      if (!job.held.later) job.held.later = code;
    } else if (how == SPAWN_HOW_EXITED) {
      set_code(code);
    }
    return;
  }
  if (job.phase != JOB_RUNNING) {          /* the job is ending anyway */
    if (how == SPAWN_HOW_EXITED) set_code(code);
    return;
  }
  if (how == SPAWN_HOW_EXITED && value == 0 && !(flags & SPAWN_EXIT_CONNECTED))
    return;                                /* a plain program, done */
  spawn_job_host_of(rank, host, sizeof host);
  spawn_describe_status(how == SPAWN_HOW_SIGNALED ? (int)value : (int)(value << 8), why, sizeof why);
  fprintf(stderr, SPAWN_NAME ": rank %u (on host %s) %s%s\n", (unsigned)rank, host, why,
          (flags & SPAWN_EXIT_CONNECTED) ? " before calling gasnet_exit" : "");
  set_code(code ? code : 1);
  job.phase = JOB_ABORTING;
  teardown(SIGTERM, SIGKILL, job.kill_grace_ms);
}

void spawn_job_signal(int sig)
{
  held_end(0);
  if (job.phase == JOB_SIGNALED) {         /* asked twice: no more waiting */
    spawn_node_signal(job.node, SIGKILL);
    spawn_node_give_up(job.node);
    return;
  }
  set_code(128 + sig);
  job.phase = JOB_SIGNALED;
  teardown(sig, SIGKILL, job.kill_grace_ms);
}

/* At the end: lost output fails the job (docs/launcher.md, "Output"). */
static void job_output_verdict(void)
{
  for (int fd = 1; fd <= 2; fd++) {
    if (!job_lost[fd].bytes) continue;
    if (fd == 1 || !job_lost[2].err)
      fprintf(stderr, SPAWN_NAME ": %llu bytes of the ranks' %s were lost: %s\n",
              (unsigned long long)job_lost[fd].bytes, fd == 1 ? "stdout" : "stderr",
              strerror(job_lost[fd].err));
    set_code(1);
  }
}

void spawn_job_done(void)
{
  held_end(1);
  for (uint32_t r = 0; r < job.size; r++) {
    job_flush(r);
    free(job.lines[2 * r].p);
    free(job.lines[2 * r + 1].p);
  }
  job_output_verdict();
  free(job.lines);
  if (job.node->keyfile) unlink(job.node->keyfile);
  spawn_node_log_flush(job.node);
  /* a code the shell cannot show as it is (gasnet_exit(300) would read as
   * 44, gasnet_exit(256) as success) becomes 1 */
  exit(job.code >= 0 && job.code <= 255 ? job.code : 1);
}

int spawn_job_init(spawn_node_t *n, int verbose)
{
  job.node = n;
  job.verbose = verbose;
  job.size = n->cfg->size;
  job.exit_grace_ms = n->opt.exit_grace_ms;
  job.kill_grace_ms = n->opt.kill_grace_ms;
  job.lines = calloc((size_t)job.size * 2, sizeof *job.lines);
  uv_timer_init(n->loop, &job.timer);
  uv_timer_init(n->loop, &job.held.timer);
  return job.lines ? 0 : -ENOMEM;
}
