/*
 * gasnett_backtrace.c - gasnett_print_backtrace: the mechanisms listed in
 * GASNET_BACKTRACE_TYPE are tried in order until one works:
 *   USER      the client's gasnett_backtrace_user hook (also by its name)
 *   EXECINFO  glibc backtrace() (function names need -rdynamic)
 *   GDB       gdb attached to this process, if gdb is on the PATH
 * Everything called from a crash handler is async-signal-safe except what
 * the mechanisms themselves do (backtrace() is preloaded at init).
 */
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gasnett_internal.h"

/* The library's default hook does nothing; a client's definition of
 * gasnett_backtrace_user replaces it at link time (static or shared). */
__attribute__((weak)) gasnett_backtrace_type_t gasnett_backtrace_user = {NULL, NULL, 0};

/* A gdb that has not finished by then is killed: a backtrace must not
 * hang the crash path. */
#define GASNETT__GDB_TIMEOUT_MS 20000
#define GASNETT__BT_MAXFRAMES 128

static char gasnett__bt_types[128] = GASNETT__BACKTRACE_TYPE_DEFAULT;
static char gasnett__gdb_path[512]; /* "" if not found */
static int gasnett__bt_configured;

static void gasnett__find_gdb(void) {
  const char *path = getenv("PATH");
  gasnett__gdb_path[0] = '\0';
  while (path && *path) {
    size_t n = strcspn(path, ":");
    if (n > 0 && n + 5 < sizeof gasnett__gdb_path) {
      memcpy(gasnett__gdb_path, path, n);
      strcpy(gasnett__gdb_path + n, "/gdb");
      if (access(gasnett__gdb_path, X_OK) == 0) return;
    }
    path += n + (path[n] == ':');
  }
  gasnett__gdb_path[0] = '\0';
}

void gasnett__backtrace_configure(void) {
  const char *types =
      gasnett_getenv_withdefault("GASNET_BACKTRACE_TYPE", GASNETT__BACKTRACE_TYPE_DEFAULT);
  snprintf(gasnett__bt_types, sizeof gasnett__bt_types, "%s", types);
  gasnett__find_gdb();
  gasnett__bt_configured = 1;
}

void gasnett_backtrace_init(const char *exename) {
  (void)exename; /* gdb finds the program through the pid */
  void *frame;
  backtrace(&frame, 1); /* loads libgcc now, not inside a crash handler */
  gasnett__diag_init();
}

static int gasnett__bt_user(int fd) {
  return gasnett_backtrace_user.fnp ? gasnett_backtrace_user.fnp(fd) : -1;
}

static int gasnett__bt_execinfo(int fd) {
  void *frames[GASNETT__BT_MAXFRAMES];
  int n = backtrace(frames, GASNETT__BT_MAXFRAMES);
  if (n <= 0) return -1;
  backtrace_symbols_fd(frames, n, fd);
  return 0;
}

/* Waits for the gdb child at most GASNETT__GDB_TIMEOUT_MS; its status. */
static int gasnett__wait_gdb(pid_t child) {
  for (int ms = 0; ms < GASNETT__GDB_TIMEOUT_MS; ms += 10) {
    int status;
    pid_t r = waitpid(child, &status, WNOHANG);
    if (r == child) return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
    if (r < 0 && errno != EINTR) return -1;
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  return -1;
}

static int gasnett__bt_gdb(int fd) {
  if (!gasnett__gdb_path[0]) return -1;
  char pid[24];
  gasnett__utoa((uint64_t)getpid(), pid);
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama: let gdb attach */
  pid_t child = fork();
  if (child == 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    execl(gasnett__gdb_path, "gdb", "-nx", "-batch", "-q", "-p", pid, "-ex",
          "thread apply all bt", (char *)NULL);
    _exit(127);
  }
  int rc = child < 0 ? -1 : gasnett__wait_gdb(child);
  prctl(PR_SET_PTRACER, 0, 0, 0, 0);
  return rc;
}

/* The mechanism named by the n bytes at name, or NULL. */
static int (*gasnett__bt_mechanism(const char *name, size_t n))(int) {
  const char *uname = gasnett_backtrace_user.name;
  if ((n == 4 && !strncasecmp(name, "USER", 4)) ||
      (uname && *uname && n == strlen(uname) && !strncasecmp(name, uname, n)))
    return gasnett__bt_user;
  if (n == 8 && !strncasecmp(name, "EXECINFO", 8)) return gasnett__bt_execinfo;
  if (n == 3 && !strncasecmp(name, "GDB", 3)) return gasnett__bt_gdb;
  return NULL;
}

int gasnett_print_backtrace(int fd) {
  if (!gasnett__bt_configured) gasnett__backtrace_configure();
  for (const char *p = gasnett__bt_types; *p;) {
    size_t n = strcspn(p, ", ");
    int (*mech)(int) = n ? gasnett__bt_mechanism(p, n) : NULL;
    if (mech) {
      char pid[24];
      gasnett__write_str(fd, "GASNet backtrace (");
      gasnett__write_buf(fd, p, n);
      gasnett__write_str(fd, ") of process ");
      gasnett__write_str(fd, gasnett__utoa((uint64_t)getpid(), pid));
      gasnett__write_str(fd, ":\n");
      if (mech(fd) == 0) return 0;
    }
    p += n;
    p += strspn(p, ", ");
  }
  return -1;
}
