/*
 * boot_self.c - a program started without a launcher as `./prog N args`
 * (Berkeley's udp-conduit convention) becomes the launcher of its own job:
 * it execs `gasnetrun -n N -- ./prog args`, which starts N ranks that see
 * argv without N, as under `gasnetrun -n N ./prog args`. gasnetrun reads
 * GASNET_SPAWNFN, GASNET_SSH_SERVERS, GASNET_CSPAWN_CMD, ... as always, and
 * its exit code (the job's) becomes the program's.
 *
 * Only a first argument of decimal digits is a rank count; anything else
 * (no argument, "foo", "-v", "4x") leaves a job of one rank with argv
 * untouched (docs/launcher.md, "A program started by itself").
 */
#include "boot_internal.h"
#include "gasneti_env.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most ranks gasnetrun's -n takes (spawner/gasnetrun.c, parse_count). */
#define BOOT_SELF_MAX_RANKS 1000000
/* Longest /proc/self/cmdline we read when the caller passed no argv. */
#define BOOT_SELF_CMDLINE_MAX (1 << 20)

#ifndef BOOT_BINDIR
#define BOOT_BINDIR "/usr/local/bin"
#endif

/* argv from /proc/self/cmdline (gex_Client_Init may be given NULL), or NULL. */
static char **cmdline_argv(int *argc)
{
  static char buf[BOOT_SELF_CMDLINE_MAX];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  ssize_t n = 0, r;
  if (fd < 0) return NULL;
  while (n < (ssize_t)sizeof buf - 1 && (r = read(fd, buf + n, sizeof buf - 1 - (size_t)n)) > 0) n += r;
  close(fd);
  if (n <= 0) return NULL;
  buf[n] = 0;
  int c = 0;
  for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) c++;
  char **v = calloc((size_t)c + 1, sizeof *v);
  if (!v) return NULL;
  c = 0;
  for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) v[c++] = buf + i;
  *argc = c;
  return v;
}

/* The launcher to exec: GASNET_LAUNCHER, else the installed gasnetrun, else
 * gasnetrun on PATH. Malloc'd, or NULL with what was tried in `tried`. */
static char *find_gasnetrun(char *tried, size_t len)
{
  const char *env = getenv("GASNET_LAUNCHER");
  if (env && *env) {
    snprintf(tried, len, "GASNET_LAUNCHER=%s", env);
    return access(env, X_OK) == 0 ? strdup(env) : NULL;
  }
  const char *inst = BOOT_BINDIR "/gasnetrun";
  if (access(inst, X_OK) == 0) return strdup(inst);
  const char *path = getenv("PATH");
  while (path && *path) {
    size_t dl = strcspn(path, ":");
    char *f = malloc(dl + sizeof "/gasnetrun" + 1);
    if (!f) break;
    snprintf(f, dl + sizeof "/gasnetrun" + 1, "%.*s/gasnetrun", (int)dl, dl ? path : ".");
    if (access(f, X_OK) == 0) return f;
    free(f);
    path += dl + (path[dl] == ':');
  }
  snprintf(tried, len, "%s and PATH; set GASNET_LAUNCHER to its path", inst);
  return NULL;
}

/* The launcher starts with the signal state a shell would give it: the
 * client may have blocked or ignored signals before gasnet_init. */
static void reset_signals(void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE };
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
}

int boot_self_launch(int *argc, char ***argv)
{
  int ac = argc && argv && *argv ? *argc : 0;
  char **av = ac ? *argv : cmdline_argv(&ac);
  const char *first = av && ac >= 2 ? av[1] : NULL;
  uint64_t n;
  if (!first || !*first || first[strspn(first, "0123456789")]) return 0;  /* not a count */
  if (gasneti_parse_uint(first, 1, BOOT_SELF_MAX_RANKS, &n) < 0)
    return boot_err("none", -EINVAL, "%s %s: the number of ranks to start must be 1 to %d",
                    av[0], first, BOOT_SELF_MAX_RANKS);
  char tried[512] = "";
  char *run = find_gasnetrun(tried, sizeof tried);
  if (!run)
    return boot_err("none", -ENOENT, "%s %s asks for %s ranks, but no gasnetrun was found "
                    "(looked for %s)", av[0], first, first, tried);
  /* gasnetrun -n N -- prog args...: prog as typed, so the ranks' argv[0]
   * is the one this process got */
  char **nv = calloc((size_t)ac + 4, sizeof *nv);
  if (!nv) return boot_err("none", -ENOMEM, "starting %s ranks", first);
  nv[0] = run; nv[1] = "-n"; nv[2] = (char *)first; nv[3] = "--"; nv[4] = av[0];
  for (int i = 2; i < ac; i++) nv[i + 3] = av[i];
  fflush(NULL);
  reset_signals();
  execv(run, nv);
  int rc = boot_err("none", -errno, "cannot execute %s to start %s ranks", run, first);
  free(nv);
  free(run);
  return rc;
}
