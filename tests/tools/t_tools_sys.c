/*
 * t_tools_sys.c - system helpers against what the kernel says, process
 * ends (killmyprocess, fatalerror) in children, signal handlers and
 * backtraces through the client's gasnett_backtrace_user hook (defined
 * here: the library's weak one must give way, also when linked statically).
 */
#define _GNU_SOURCE 1 /* memfd_create, sched_getaffinity */
#include "t_tools_util.h"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the client's backtrace hook ----------------------------------------- */
static int t_user_calls;
static int t_user_bt(int fd) {
  t_user_calls++;
  dprintf(fd, "T_USER_BACKTRACE: the client's hook ran\n");
  return 0;
}
gasnett_backtrace_type_t gasnett_backtrace_user = {"MYBT", t_user_bt, 1};

int t_child(void (*fn)(void), char *out, size_t outsz) {
  int p[2];
  if (pipe(p) != 0) return -1;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(p[1], 1);
    dup2(p[1], 2);
    close(p[0]);
    close(p[1]);
    fn();
    fflush(stdout);
    _exit(0);
  }
  close(p[1]);
  size_t len = 0;
  int killed = 0;
  char scratch[256];
  for (int waited_ms = 0;; waited_ms += 100) {
    struct pollfd pf = {p[0], POLLIN, 0};
    if (poll(&pf, 1, 100) > 0) {
      char *dst = len + 1 < outsz ? out + len : scratch;
      size_t room = len + 1 < outsz ? outsz - 1 - len : sizeof scratch;
      ssize_t n = read(p[0], dst, room);
      if (n <= 0) break; /* EOF: the child is gone */
      if (dst != scratch) len += (size_t)n;
    }
    if (waited_ms > 20000) {
      kill(pid, SIGKILL);
      killed = 1;
      break;
    }
  }
  close(p[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  out[len] = '\0';
  return killed ? -1 : st;
}

/* ---- system helpers ------------------------------------------------------ */
static uint64_t t_meminfo_total(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  unsigned long long kb = 0;
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) break;
  if (f) fclose(f);
  return (uint64_t)kb * 1024;
}

static void t_affinity(void) {
  cpu_set_t orig, now;
  sched_getaffinity(0, sizeof orig, &orig);
  int n = CPU_COUNT(&orig);
  T_OK(gasnett_cpu_count() == n, "cpu_count %d, sched_getaffinity %d", gasnett_cpu_count(), n);
  int want = -1, k = 1 % n;
  for (int cpu = 0; cpu < CPU_SETSIZE && want < 0; cpu++)
    if (CPU_ISSET(cpu, &orig) && k-- == 0) want = cpu;
  int rc = gasnett_set_affinity(1);
  sched_getaffinity(0, sizeof now, &now);
  T_OK(rc == 0 && CPU_COUNT(&now) == 1 && CPU_ISSET(want, &now),
       "set_affinity(1) of %d allowed CPUs = %d (want 0): pinned to %d CPU(s), CPU %d set "
       "(want CPU %d)", n, rc, CPU_COUNT(&now), want, want);
  T_OK(gasnett_set_affinity(-1) != 0, "set_affinity(-1) fails (non-zero)");
  sched_setaffinity(0, sizeof orig, &orig);
}

static int t_handled;
static void t_handler_a(int sig) { t_handled = 100 + sig; }
static void t_handler_b(int sig) { t_handled = 200 + sig; }

void t_system(void) {
  T_SECTION("system");
  t_affinity();
  uint64_t phys = gasnett_getPhysMemSz(1), mt = t_meminfo_total();
  T_OK(phys > 0 && phys + phys / 100 >= mt && phys <= mt + mt / 100,
       "getPhysMemSz %" PRIu64 ", /proc/meminfo MemTotal %" PRIu64 " (within 1%%)", phys, mt);
  struct rlimit rl;
  int all = gasnett_maximize_rlimits();
  getrlimit(RLIMIT_NOFILE, &rl);
  T_OK(!all || rl.rlim_cur == rl.rlim_max,
       "maximize_rlimits %d: RLIMIT_NOFILE soft %llu, hard %llu", all,
       (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
  struct utsname u;
  uname(&u);
  const char *h = gasnett_gethostname();
  T_OK(!strcmp(h, u.nodename) && gasnett_gethostname() == h, "gethostname '%s' (uname '%s'), cached",
       h, u.nodename);
  union { uint16_t word; unsigned char byte[2]; } e = {1};
  T_OK(gasnett_isLittleEndian() == (e.byte[0] == 1), "isLittleEndian %d", gasnett_isLittleEndian());
  T_OK(gasnett_performance_warning_str() && !strcmp(gasnett_performance_warning_str(), ""),
       "performance_warning_str '%s'", gasnett_performance_warning_str());
  char *m = (char *)gasnett_mmap(2 * GASNETT_PAGESIZE);
  m[0] = 1, m[2 * GASNETT_PAGESIZE - 1] = 2;
  T_OK((uintptr_t)m % GASNETT_PAGESIZE == 0 && m[1] == 0, "mmap of 2 pages at %p: aligned, "
       "zeroed, writable", (void *)m);
  munmap(m, 2 * GASNETT_PAGESIZE);
  T_OK(gasnett_sched_yield() == 0, "sched_yield");
  gasnett_flush_streams();
  gasnett_sighandlerfn_t prev0 = gasnett_reghandler(SIGUSR1, t_handler_a);
  gasnett_sighandlerfn_t prev1 = gasnett_reghandler(SIGUSR1, t_handler_b);
  raise(SIGUSR1);
  gasnett_sighandlerfn_t prev2 = gasnett_reghandler(SIGUSR1, prev0);
  T_OK(prev0 == SIG_DFL && prev1 == t_handler_a && prev2 == t_handler_b &&
           t_handled == 200 + SIGUSR1,
       "reghandler returns the previous handler; the new one ran (%d)", t_handled);
}

/* ---- ends of processes --------------------------------------------------- */
static void t_atexit(void) { printf("ATEXIT RAN\n"); fflush(stdout); }
static void *t_sleeper(void *arg) {
  (void)arg;
  for (;;) pause();
  return NULL;
}
static void t_kill_child(void) {
  atexit(t_atexit);
#if defined(GASNETT_THREAD_SAFE)
  pthread_t t;
  pthread_create(&t, NULL, t_sleeper, NULL);
#else
  (void)t_sleeper;
#endif
  printf("before the kill\n");
  fflush(stdout);
  printf("UNFLUSHED");
  gasnett_killmyprocess(7);
}
static void t_fatal_child(void) { gasnett_fatalerror("boom %d", 42); }
static void t_fatal_bt_child(void) {
  gasnett_setenv("GASNET_BACKTRACE", "1");
  gasnett_setenv("GASNET_BACKTRACE_TYPE", "USER");
  gasnett_backtrace_init("t_tools");
  gasnett_fatalerror("boom with a backtrace");
}

void t_processes(void) {
  T_SECTION("process ends (children)");
  char out[8192];
  int st = t_child(t_kill_child, out, sizeof out);
  T_OK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 7 && strstr(out, "before the kill") &&
           !strstr(out, "ATEXIT") && !strstr(out, "UNFLUSHED"),
       "killmyprocess(7): exit %d, no atexit handler, nothing flushed: '%s'",
       st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1, out);
  st = t_child(t_fatal_child, out, sizeof out);
  T_OK(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT &&
           strstr(out, "*** FATAL ERROR: boom 42\n"),
       "fatalerror: SIGABRT and '*** FATAL ERROR: boom 42': '%s'", out);
  st = t_child(t_fatal_bt_child, out, sizeof out);
  T_OK(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT &&
           strstr(out, "*** FATAL ERROR: boom with a backtrace\n") &&
           strstr(out, "T_USER_BACKTRACE") && !strstr(out, "Caught SIGABRT"),
       "fatalerror with GASNET_BACKTRACE=1, TYPE=USER: the hook's backtrace, one report:\n%s",
       out);
}

/* ---- backtraces ---------------------------------------------------------- */
/* print_backtrace into a memory file with GASNET_BACKTRACE_TYPE=types. */
static int t_backtrace_to(const char *types, char *out, size_t outsz) {
  gasnett_setenv("GASNET_BACKTRACE_TYPE", types);
  gasnett_backtrace_init("t_tools");
  int fd = memfd_create("t_tools_bt", 0);
  int rc = gasnett_print_backtrace(fd);
  ssize_t n = pread(fd, out, outsz - 1, 0);
  out[n > 0 ? n : 0] = '\0';
  close(fd);
  return rc;
}

static int t_gdb_on_path(void) {
  return system("command -v gdb >/dev/null 2>&1") == 0;
}

void t_backtrace(const char *argv0) {
  T_SECTION("backtrace");
  (void)argv0;
  static char out[65536];
  int rc = t_backtrace_to("USER", out, sizeof out);
  T_OK(rc == 0 && t_user_calls == 1 && strstr(out, "T_USER_BACKTRACE"),
       "TYPE=USER: rc %d, the client's hook ran %d time(s)", rc, t_user_calls);
  rc = t_backtrace_to("mybt", out, sizeof out);
  T_OK(rc == 0 && t_user_calls == 2, "TYPE=mybt (the hook's own name): rc %d, hook ran %d times",
       rc, t_user_calls);
  rc = t_backtrace_to("NOSUCH,EXECINFO", out, sizeof out);
  T_OK(rc == 0 && t_user_calls == 2 && strstr(out, "(t_backtrace+") && strstr(out, "(main+"),
       "TYPE=NOSUCH,EXECINFO: rc %d, frames name t_backtrace and main:\n%.600s", rc, out);
  rc = t_backtrace_to("NOSUCH", out, sizeof out);
  T_OK(rc != 0, "TYPE=NOSUCH: rc %d (no mechanism worked)", rc);
  if (t_gdb_on_path()) {
    rc = t_backtrace_to("GDB", out, sizeof out);
    T_OK(rc == 0 && strstr(out, "t_backtrace"), "TYPE=GDB: rc %d, gdb's frames name t_backtrace "
         "(%zu bytes of output)", rc, strlen(out));
  } else {
    printf("skip TYPE=GDB: no gdb on the PATH\n");
  }
  gasnett_unsetenv("GASNET_BACKTRACE_TYPE");
  gasnett_backtrace_init("t_tools");
}
