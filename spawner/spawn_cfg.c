/* spawn_cfg.c - a node's configuration on the wire (the body of a relay's
 * WELCOME, spawn_proto.h): encoded and decoded here only. */
#include "spawn.h"
#include "gasneti_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_strv(spawn_buf_t *b, char **v, uint32_t n)
{
  spawn_buf_u32(b, n);
  for (uint32_t i = 0; i < n; i++) spawn_buf_str(b, v[i]);
}

static char **get_strv(spawn_rd_t *r, uint32_t *n)
{
  *n = spawn_rd_u32(r);
  if (r->bad || *n > (size_t)(r->end - r->p) / 4) { r->bad = 1; *n = 0; return NULL; }
  char **v = calloc((size_t)*n + 1, sizeof *v);
  if (!v) { r->bad = 1; return NULL; }
  for (uint32_t i = 0; i < *n && !r->bad; i++) v[i] = spawn_rd_str(r);
  return v;
}

void spawn_cfg_put(spawn_buf_t *b, const spawn_cfg_t *c)
{
  spawn_buf_u32(b, c->size);
  spawn_buf_u32(b, c->lo);
  spawn_buf_u32(b, c->n);
  spawn_buf_u32(b, c->sub_lo);
  spawn_buf_u32(b, c->sub_n);
  spawn_buf_u32(b, c->degree);
  spawn_buf_u32(b, c->self_host);
  spawn_buf_u32(b, c->connect_ms);
  spawn_buf_u32(b, c->nhosts);
  for (uint32_t i = 0; i < c->nhosts; i++) {
    spawn_buf_str(b, c->hosts[i].name);
    spawn_buf_u32(b, c->hosts[i].lo);
    spawn_buf_u32(b, c->hosts[i].n);
  }
  spawn_buf_str(b, c->cwd);
  spawn_buf_str(b, c->relay_path);
  put_strv(b, c->argv, c->argc);
  put_strv(b, c->exports, c->nexports);
  put_strv(b, c->env, c->nenv);
}

/* Decode, then check; a malformed description leaves nothing allocated. */
static int cfg_decode(spawn_rd_t *r, spawn_cfg_t *c)
{
  c->size = spawn_rd_u32(r);
  c->lo = spawn_rd_u32(r);
  c->n = spawn_rd_u32(r);
  c->sub_lo = spawn_rd_u32(r);
  c->sub_n = spawn_rd_u32(r);
  c->degree = spawn_rd_u32(r);
  c->self_host = spawn_rd_u32(r);
  c->connect_ms = spawn_rd_u32(r);
  c->nhosts = spawn_rd_u32(r);
  if (r->bad || c->nhosts > (size_t)(r->end - r->p) / 12) { c->nhosts = 0; return -EPROTO; }
  c->hosts = calloc((size_t)c->nhosts + 1, sizeof *c->hosts);
  if (!c->hosts) return -ENOMEM;
  for (uint32_t i = 0; i < c->nhosts && !r->bad; i++) {
    c->hosts[i].name = spawn_rd_str(r);
    c->hosts[i].lo = spawn_rd_u32(r);
    c->hosts[i].n = spawn_rd_u32(r);
  }
  c->cwd = spawn_rd_str(r);
  c->relay_path = spawn_rd_str(r);
  c->argv = get_strv(r, &c->argc);
  c->exports = get_strv(r, &c->nexports);
  c->env = get_strv(r, &c->nenv);
  if (r->bad || c->size == 0 || c->argc == 0 || c->degree == 0 || !c->self_host || c->nhosts == 0
      || c->lo != c->hosts[0].lo || c->n != c->hosts[0].n
      || c->sub_n > c->size || c->sub_lo > c->size - c->sub_n
      || c->lo < c->sub_lo || c->n > c->sub_n || c->lo - c->sub_lo > c->sub_n - c->n)
    return -EPROTO;
  /* the subtree's hosts must be consecutive ranks inside it */
  uint32_t at = c->lo;
  for (uint32_t i = 0; i < c->nhosts; i++) {
    if (c->hosts[i].lo != at || c->hosts[i].n > c->sub_lo + c->sub_n - at) return -EPROTO;
    at += c->hosts[i].n;
  }
  if (c->lo != c->sub_lo || at != c->sub_lo + c->sub_n) return -EPROTO;
  return 0;
}

int spawn_cfg_get(spawn_rd_t *r, spawn_cfg_t *c)
{
  memset(c, 0, sizeof *c);
  int rc = cfg_decode(r, c);
  if (rc < 0) spawn_cfg_free(c);
  return rc;
}

static void free_strv(char **v, uint32_t n)
{
  for (uint32_t i = 0; v && i < n; i++) free(v[i]);
  free(v);
}

void spawn_cfg_free(spawn_cfg_t *c)
{
  for (uint32_t i = 0; c->hosts && i < c->nhosts; i++) free(c->hosts[i].name);
  free(c->hosts);
  free(c->cwd);
  free(c->relay_path);
  free_strv(c->argv, c->argc);
  free_strv(c->exports, c->nexports);
  free_strv(c->env, c->nenv);
  memset(c, 0, sizeof *c);
}

const char *spawn_cfg_getenv(const spawn_cfg_t *c, const char *name)
{
  size_t n = strlen(name);
  for (uint32_t i = 0; i < c->nenv; i++)
    if (c->env[i] && !strncmp(c->env[i], name, n) && c->env[i][n] == '=') return c->env[i] + n + 1;
  return NULL;
}

static const char *opt_str(const spawn_cfg_t *c, const char *name)
{
  const char *v = spawn_cfg_getenv(c, name);
  return v && *v ? v : NULL;
}

static int opt_num(const spawn_cfg_t *c, const char *name, double dflt, double min, double *out,
                   char *why, size_t whylen)
{
  const char *v = opt_str(c, name);
  *out = dflt;
  if (v && gasneti_parse_num(v, min, 1e6, out) < 0) {
    snprintf(why, whylen, "%s='%s' is not a number >= %g", name, v, min);
    return -EINVAL;
  }
  return 0;
}

int spawn_opts_read(const spawn_cfg_t *c, spawn_opts_t *o, char *why, size_t whylen)
{
  double deg, conn, ppn, eg, kg, rt;
  const char *fn = opt_str(c, "GASNET_SPAWNFN");
  memset(o, 0, sizeof *o);
  o->mode = fn ? (char)(*fn & ~0x20) : 0;
  if (fn && (fn[1] || (o->mode != 'L' && o->mode != 'S' && o->mode != 'C'))) {
    snprintf(why, whylen, "GASNET_SPAWNFN must be L, S or C, not '%s'", fn);
    return -EINVAL;
  }
  o->ssh_servers = opt_str(c, "GASNET_SSH_SERVERS");
  o->ssh_nodefile = opt_str(c, "GASNET_SSH_NODEFILE");
  o->ssh_cmd = opt_str(c, "GASNET_SSH_CMD");
  if (!o->ssh_cmd) o->ssh_cmd = "ssh";
  o->ssh_options = opt_str(c, "GASNET_SSH_OPTIONS");
  o->remote_path = opt_str(c, "GASNET_SSH_REMOTE_PATH");
  o->masterip = opt_str(c, "GASNET_MASTERIP");
  o->cspawn_cmd = opt_str(c, "GASNET_CSPAWN_CMD");
  o->cspawn_servers = opt_str(c, "GASNET_CSPAWN_SERVERS");
  o->keydir = opt_str(c, "GASNET_CSPAWN_KEYDIR");
  if (opt_num(c, "GASNET_SSH_OUT_DEGREE", 32, 1, &deg, why, whylen)
      || opt_num(c, "GASNET_CONNECT_TIMEOUT", 30, 1, &conn, why, whylen)
      || opt_num(c, "GASNET_MAX_PPN", 0, 0, &ppn, why, whylen)
      || opt_num(c, "GASNET_EXIT_GRACE", 2, 0, &eg, why, whylen)
      || opt_num(c, "GASNET_KILL_GRACE", 2, 0, &kg, why, whylen)
      || opt_num(c, "GASNET_RELAY_TIMEOUT", 30, 0, &rt, why, whylen))
    return -EINVAL;
  o->out_degree = (uint32_t)deg;
  o->connect_s = (uint32_t)conn;
  o->max_ppn = (uint32_t)ppn;
  o->exit_grace_ms = (uint64_t)(eg * 1000);
  o->kill_grace_ms = (uint64_t)(kg * 1000);
  o->relay_timeout_ms = (uint64_t)(rt * 1000);
  return 0;
}
