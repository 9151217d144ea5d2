/*
 * boot_gasnetrun.c - the gasnetrun back end of the bootstrap client
 * (boot_internal.h): a rank's side of the launcher protocol (spawn_proto.h),
 * over one blocking TCP connection to its node (the launcher or the relay on
 * its host). No threads, no signal handlers; the only descriptor it keeps is
 * that connection (FD_CLOEXEC).
 *
 * The launcher hands each rank a ticket (spawn_proto.h) through an inherited
 * pipe whose number is in GASNET_BOOT_FD.
 */
#include "boot_internal.h"
#include "spawn_proto.h"
#include "gasneti_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BOOT_FD_ENV "GASNET_BOOT_FD"

static struct {
  int fd;                     /* connection to the node */
  uint32_t rank, size;
  char **env;                 /* launcher's environment snapshot, "K=V" */
  uint32_t nenv;
} boot = { .fd = -1 };

static int boot_fail(int rc, const char *what)
{
  return boot_err("gasnetrun", rc, "%s", what);
}

/* Lost contact with the launcher: not survivable (boot.h). */
static void boot_lost(int rc, const char *what)
{
  fprintf(stderr, "gasnet boot: rank %u lost contact with the launcher (%s: %s)\n",
          (unsigned)boot.rank, what, rc == -EPIPE ? "connection closed" : strerror(-rc));
  _exit(1);
}

static int gr_init(uint32_t *rank, uint32_t *size, uint8_t key[BOOT_JOB_KEY_LEN])
{
  const char *fdstr = getenv(BOOT_FD_ENV);
  char line[SPAWN_TICKET_MAX];
  spawn_ticket_t t;
  uint64_t tfd;
  int bad = gasneti_parse_uint(fdstr, 0, 65535, &tfd) < 0;
  unsetenv(BOOT_FD_ENV);           /* not for this rank's own children */
  if (bad) return boot_fail(-EINVAL, BOOT_FD_ENV " is not a descriptor");
  int rc = spawn_ticket_read((int)tfd, line, sizeof line);
  close((int)tfd);
  if (rc < 0) return boot_fail(rc, "reading the launcher ticket");
  rc = spawn_ticket_parse(line, &t);
  memset(line, 0, sizeof line);
  if (rc < 0) return boot_fail(rc, "malformed launcher ticket");

  uint8_t *body;
  size_t len;
  const char *why;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  rc = spawn_client_join(&t, host, &boot.fd, &body, &len, &why);
  if (rc == 0) {
    spawn_job_key(t.secret, key);
    rc = spawn_welcome_rank_decode(body, len, &boot.rank, &boot.size, &boot.env, &boot.nenv);
    *rank = boot.rank; *size = boot.size;
    why = "malformed WELCOME from launcher";
    free(body);
    if (rc < 0) { close(boot.fd); boot.fd = -1; }
  }
  memset(&t, 0, sizeof t);
  return rc < 0 ? boot_fail(rc, why) : 0;
}

/* One collective round trip: send our part, wait for the combined result. */
static int boot_coll(uint32_t op, uint32_t len, uint32_t lo, const void *data, size_t dlen,
                     void *out, size_t outlen)
{
  spawn_buf_t b = {0};
  spawn_hdr_t h;
  uint8_t *p;
  size_t plen;
  spawn_coll_encode(&b, lo, 1, data, dlen);
  int rc = spawn_send_frame(boot.fd, SPAWN_COLL, op, len, b.p, b.len);
  spawn_buf_free(&b);
  if (rc < 0) boot_lost(rc, "send");
  if ((rc = spawn_recv_frame(boot.fd, &h, &p, &plen)) < 0) boot_lost(rc, "receive");
  if (h.type != SPAWN_COLL_RESULT || h.a != op || h.b != len || plen != outlen) {
    free(p);
    boot_lost(-EPROTO, "unexpected reply to a collective");
  }
  if (outlen) memcpy(out, p, outlen);
  free(p);
  return 0;
}

static int gr_exchange(const void *mine, size_t len, void *all)
{
  if (len > SPAWN_MAX_RAW / boot.size) return boot_fail(-EMSGSIZE, "boot_exchange");
  return boot_coll(SPAWN_OP_EXCHANGE, (uint32_t)len, boot.rank, mine, len, all, len * boot.size);
}

static int gr_broadcast(void *buf, size_t len, uint32_t root)
{
  if (len > SPAWN_MAX_RAW) return boot_fail(-EMSGSIZE, "boot_broadcast");
  return boot_coll(SPAWN_OP_BCAST, (uint32_t)len, root, buf,
                   boot.rank == root ? len : 0, buf, len);
}

static int gr_barrier(void)
{
  return boot_coll(SPAWN_OP_BARRIER, 0, boot.rank, NULL, 0, NULL, 0);
}

static const char *gr_getenv(const char *name)
{
  if (!boot.env) return getenv(name);
  size_t n = strlen(name);
  for (uint32_t i = 0; i < boot.nenv; i++)
    if (!strncmp(boot.env[i], name, n) && boot.env[i][n] == '=') return boot.env[i] + n + 1;
  return NULL;
}

static int gr_self_addr(struct sockaddr_storage *addr, socklen_t *len)
{
  *len = sizeof *addr;
  if (getsockname(boot.fd, (struct sockaddr *)addr, len) < 0) return -errno;
  return 0;
}

static void gr_fini(int code)
{
  /* the node learns the rest from our exit and the connection's EOF */
  spawn_send_frame(boot.fd, SPAWN_FINI, (uint32_t)code, 0, NULL, 0);
  shutdown(boot.fd, SHUT_WR);
}

/* The launcher prints `why` and tears the job down; boot.c exits. */
static void gr_abort(int code, const char *why)
{
  spawn_send_frame(boot.fd, SPAWN_ABORT, (uint32_t)code, 0, why, why ? strlen(why) : 0);
  shutdown(boot.fd, SHUT_WR);
}

const boot_ops_t boot_gasnetrun_ops = {
  .name = "gasnetrun",
  .init = gr_init,
  .exchange = gr_exchange,
  .broadcast = gr_broadcast,
  .barrier = gr_barrier,
  .getenv = gr_getenv,
  .self_addr = gr_self_addr,
  .fini = gr_fini,
  .abort = gr_abort,
};
