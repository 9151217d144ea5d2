/*
 * boot_pmi1.c - the PMI-1 key-value space (boot_kvs_t) over the PMI-1 wire
 * protocol: one line of "key=value" words per request and per reply, on the
 * socket whose number the launcher put in PMI_FD (MPICH's Hydra mpiexec;
 * Slurm's srun --mpi=pmi2 answers it too). Rank and size come from PMI_RANK
 * and PMI_SIZE, as in MPICH's own client.
 *
 *   cmd=init pmi_version=1 pmi_subversion=1    -> cmd=response_to_init ... rc=0
 *   cmd=get_maxes                              -> cmd=maxes kvsname_max= keylen_max= vallen_max=
 *   cmd=get_my_kvsname                         -> cmd=my_kvsname kvsname=K
 *   cmd=put kvsname=K key=k value=v            -> cmd=put_result rc=0
 *   cmd=barrier_in                             -> cmd=barrier_out
 *   cmd=get kvsname=K key=k                    -> cmd=get_result rc=0 value=v
 *   cmd=finalize                               -> cmd=finalize_ack
 *   cmd=abort exitcode=N                       (no reply)
 *
 * Every request gets exactly one reply before the next is sent, and nothing
 * is read past a reply's newline: an MPI library in the same process can use
 * the same PMI_FD before or after us (never during one of our calls; the
 * core makes its boot calls from one thread). After MPI_Init we send no init
 * of our own: the session is MPI's (boot_mpi_state). Replies are checked word by
 * word: a truncated, oversized or unexpected reply is an error that names
 * this back end, never a crash.
 */
#include "boot_internal.h"
#include "gasneti_env.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME "pmi1"
/* The longest reply line we accept: a get_result with the largest value. */
#define PMI1_LINE_MAX 8192
/* A reply may be a barrier waiting for ranks that are slow to start; past
 * this the launcher is taken to be gone. */
#define PMI1_REPLY_TIMEOUT_MS (600 * 1000)

static struct {
  int fd;
  ino_t ino;                  /* PMI_FD's socket, to know it again at fini */
  char kvsname[256];
  char line[PMI1_LINE_MAX + 1];
} p1 = { .fd = -1 };

static int send_line(const char *s)
{
  size_t len = strlen(s), off = 0;
  while (off < len) {
    ssize_t n = send(p1.fd, s + off, len - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return boot_err(NAME, -errno, "writing to PMI_FD %d", p1.fd);
    off += (size_t)n;
  }
  return 0;
}

/* Up to `cap` bytes, never past the first newline: peek, then take what
 * the peek shows of the line. */
static ssize_t read_upto_newline(char *buf, size_t cap)
{
  ssize_t n = recv(p1.fd, buf, cap, MSG_PEEK);
  if (n <= 0) return n;
  char *nl = memchr(buf, '\n', (size_t)n);
  return recv(p1.fd, buf, nl ? (size_t)(nl - buf) + 1 : (size_t)n, 0);
}

/* One reply line into p1.line (without its newline); reads nothing after it. */
static int read_line(void)
{
  size_t len = 0;
  for (;;) {
    struct pollfd pf = { .fd = p1.fd, .events = POLLIN };
    int pr = poll(&pf, 1, PMI1_REPLY_TIMEOUT_MS);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) return boot_err(NAME, -ETIMEDOUT, "no reply from the launcher in %d s", PMI1_REPLY_TIMEOUT_MS / 1000);
    if (pr < 0) return boot_err(NAME, -errno, "waiting for the launcher");
    if (len == PMI1_LINE_MAX)
      return boot_err(NAME, -EMSGSIZE, "reply longer than %d bytes", PMI1_LINE_MAX);
    ssize_t n = read_upto_newline(p1.line + len, PMI1_LINE_MAX - len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return boot_err(NAME, -errno, "reading PMI_FD %d", p1.fd);
    if (n == 0) {
      p1.line[len] = 0;
      return boot_err(NAME, -EPIPE, len ? "truncated reply '%.60s' (the launcher closed PMI_FD)"
                                        : "the launcher closed PMI_FD%.0s", p1.line);
    }
    len += (size_t)n;
    if (p1.line[len - 1] == '\n') { len--; break; }
  }
  p1.line[len] = 0;
  return 0;
}

/* The value of word `key` in the reply line, copied into out; 0 or -ENOENT. */
static int word(const char *key, char *out, size_t cap)
{
  size_t kl = strlen(key);
  for (const char *s = p1.line; *s; ) {
    s += strspn(s, " ");
    size_t wl = strcspn(s, " ");
    if (wl > kl && !strncmp(s, key, kl) && s[kl] == '=') {
      if (wl - kl - 1 >= cap) return -EMSGSIZE;
      memcpy(out, s + kl + 1, wl - kl - 1);
      out[wl - kl - 1] = 0;
      return 0;
    }
    s += wl;
  }
  return -ENOENT;
}

/* The reply line made printable for an error message (at most 80 bytes). */
static const char *shown(void)
{
  static char out[81];
  size_t i;
  for (i = 0; i < 80 && p1.line[i]; i++)
    out[i] = p1.line[i] >= 0x20 && p1.line[i] < 0x7f ? p1.line[i] : '?';
  out[i] = 0;
  return out;
}

/* Send `req`, read the reply, check that it is cmd=`cmd` with rc 0 (when it
 * carries an rc). */
static int call(const char *req, const char *cmd)
{
  char got[64], rc[16], msg[256];
  int r;
  if ((r = send_line(req)) < 0 || (r = read_line()) < 0) return r;
  if (word("cmd", got, sizeof got) < 0 || strcmp(got, cmd))
    return boot_err(NAME, -EPROTO, "expected cmd=%s, got '%s'", cmd, shown());
  if (word("rc", rc, sizeof rc) == 0 && strcmp(rc, "0")) {
    if (word("msg", msg, sizeof msg) < 0) snprintf(msg, sizeof msg, "no message");
    return boot_err(NAME, -EPROTO, "%s failed: rc=%s (%s)", cmd, rc, msg);
  }
  return 0;
}

static int env_uint(const char *name, uint32_t *out)
{
  const char *v = getenv(name);
  uint64_t x;
  if (gasneti_parse_uint(v, 0, UINT32_MAX, &x) < 0) return boot_err(NAME, -EINVAL, "%s='%s' is not a number", name, v ? v : "");
  *out = (uint32_t)x;
  return 0;
}

static int maxes_num(const char *key, size_t *out)
{
  char v[24];
  uint64_t x;
  if (word(key, v, sizeof v) < 0) return boot_err(NAME, -EPROTO, "no %s in '%s'", key, shown());
  if (gasneti_parse_uint(v, 0, SIZE_MAX, &x) < 0) return boot_err(NAME, -EPROTO, "%s='%s' is not a number", key, v);
  *out = (size_t)x;
  return 0;
}

static int p1_init(uint32_t *rank, uint32_t *size)
{
  uint32_t fd;
  int rc;
  size_t kvsmax;
  if ((rc = env_uint("PMI_FD", &fd)) < 0 || (rc = env_uint("PMI_RANK", rank)) < 0
      || (rc = env_uint("PMI_SIZE", size)) < 0)
    return rc;
  p1.fd = (int)fd;
  struct stat st;
  if (fstat(p1.fd, &st) < 0 || !S_ISSOCK(st.st_mode))
    return boot_err(NAME, -EBADF, "PMI_FD=%d is not a socket this process has", p1.fd);
  p1.ino = st.st_ino;
  /* After MPI_Init, MPI's client has opened this session already (Slurm's
   * server refuses a second init; the queries below need none). */
  if (boot_mpi_state() != 1
      && (rc = call("cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init")) < 0)
    return rc;
  if ((rc = call("cmd=get_maxes\n", "maxes")) < 0) return rc;
  if ((rc = maxes_num("keylen_max", &boot_pmi1_kvs.max_key)) < 0
      || (rc = maxes_num("vallen_max", &boot_pmi1_kvs.max_val)) < 0
      || (rc = maxes_num("kvsname_max", &kvsmax)) < 0)
    return rc;
  /* what a get_result line can carry besides the value */
  if (boot_pmi1_kvs.max_val > PMI1_LINE_MAX - 64) boot_pmi1_kvs.max_val = PMI1_LINE_MAX - 64;
  if ((rc = call("cmd=get_my_kvsname\n", "my_kvsname")) < 0) return rc;
  if (word("kvsname", p1.kvsname, sizeof p1.kvsname) < 0)
    return boot_err(NAME, -EPROTO, "no usable kvsname in '%s'", shown());
  return 0;
}

static int p1_put(const char *key, const char *val)
{
  size_t n = strlen(p1.kvsname) + strlen(key) + strlen(val) + 40;
  char *req = malloc(n);
  if (!req) return boot_err(NAME, -ENOMEM, "put");
  snprintf(req, n, "cmd=put kvsname=%s key=%s value=%s\n", p1.kvsname, key, val);
  int rc = call(req, "put_result");
  free(req);
  return rc;
}

static int p1_fence(void) { return call("cmd=barrier_in\n", "barrier_out"); }

static int p1_get(uint32_t rank, const char *key, char *val, size_t cap)
{
  char req[512];
  int rc;
  (void)rank;                 /* one key-value space per job; keys name the rank */
  snprintf(req, sizeof req, "cmd=get kvsname=%s key=%s\n", p1.kvsname, key);
  if ((rc = call(req, "get_result")) < 0) return rc;
  if ((rc = word("value", val, cap)) < 0)
    return boot_err(NAME, -EPROTO, rc == -EMSGSIZE ? "the value of %s is longer than %zu bytes"
                                                   : "no value for %s%.0zu in the reply", key, cap - 1);
  return 0;
}

static void p1_abort(int code, const char *why)
{
  char req[64];
  (void)why;                  /* PMI-1's abort carries no message: printed already */
  snprintf(req, sizeof req, "cmd=abort exitcode=%d\n", code);
  send_line(req);
}

/* A normal end: finalize, unless an MPI library in this process already
 * did and closed PMI_FD (the descriptor is then gone, or is something else). */
static void p1_fini(void)
{
  struct stat st;
  if (fstat(p1.fd, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == p1.ino)
    call("cmd=finalize\n", "finalize_ack");
}

boot_kvs_t boot_pmi1_kvs = {
  .name = NAME,
  .init = p1_init,
  .put = p1_put,
  .fence = p1_fence,
  .get = p1_get,
  .abort = p1_abort,
  .fini = p1_fini,
};
