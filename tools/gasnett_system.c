/*
 * gasnett_system.c - system helpers: CPUs, memory, limits, affinity, host
 * name, sleeping, signals, ending the process, mmap, version strings.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "gasnett_internal.h"

/* The library's mode, for the header's link check (gasnet_tools.h). */
#if defined(GASNETT_THREAD_SAFE)
const int gasnett__linkcheck_THREAD_SAFE = 1;
#else
const int gasnett__linkcheck_THREAD_SINGLE = 1;
#endif

int gasnett_sched_yield(void) { return sched_yield(); }

/* The spec lets a signal end the sleep early; sleeping the rest is kinder
 * to callers that assume the full delay. */
int gasnett_nsleep(uint64_t ns) {
  struct timespec left = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  if (ns == 0) return 0;
  while (nanosleep(&left, &left) != 0)
    if (errno != EINTR) return -1;
  return 0;
}

/* _exit: every thread ends now, no atexit handler runs, nothing is flushed. */
void gasnett_killmyprocess(int exitcode) { _exit(exitcode); }

int gasnett_cpu_count(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

uint64_t gasnett_getPhysMemSz(int failureIsFatal) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && size > 0) return (uint64_t)pages * (uint64_t)size;
  if (failureIsFatal) gasnett_fatalerror("gasnett_getPhysMemSz: the kernel does not say");
  return 0;
}

/* Soft limit up to the hard one, unless GASNET_MAXIMIZE_<lim_desc> says no. */
int gasnett_maximize_rlimit(int res, const char *lim_desc) {
  char var[96];
  snprintf(var, sizeof var, "GASNET_MAXIMIZE_%s", lim_desc);
  if (!gasnett_getenv_yesno_withdefault(var, 1)) return 1;
  struct rlimit rl;
  if (getrlimit(res, &rl) != 0) return 0;
  if (rl.rlim_cur == rl.rlim_max) return 1;
  rl.rlim_cur = rl.rlim_max;
  if (setrlimit(res, &rl) == 0) return 1;
  if (gasnett_verboseenv())
    fprintf(stderr, "gasnett_maximize_rlimit: cannot raise %s: %s\n", lim_desc, strerror(errno));
  return 0;
}

/* Each resource a large job may hit (not RLIMIT_CORE: crashing tests must
 * not leave core files, nor the file-system limits the spec excludes). */
int gasnett_maximize_rlimits(void) {
  static const struct {
    int res;
    const char *name;
  } limits[] = {
      {RLIMIT_CPU, "RLIMIT_CPU"},         {RLIMIT_DATA, "RLIMIT_DATA"},
      {RLIMIT_RSS, "RLIMIT_RSS"},         {RLIMIT_STACK, "RLIMIT_STACK"},
      {RLIMIT_AS, "RLIMIT_AS"},           {RLIMIT_NPROC, "RLIMIT_NPROC"},
      {RLIMIT_NOFILE, "RLIMIT_NOFILE"},   {RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK"},
  };
  int ok = 1;
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
    ok &= gasnett_maximize_rlimit(limits[i].res, limits[i].name) != 0;
  return ok;
}

/* The calling thread goes on the (rank % n)-th CPU it may run on. */
int gasnett_set_affinity(int rank) {
  cpu_set_t allowed, one;
  int n = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
  if (n <= 0 || rank < 0) return -1;
  int want = rank % n;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (CPU_ISSET(cpu, &allowed) && want-- == 0) {
      CPU_SET(cpu, &one);
      break;
    }
  }
  if (sched_setaffinity(0, sizeof one, &one) == 0) return 0;
  if (gasnett_verboseenv())
    fprintf(stderr, "gasnett_set_affinity(%d): %s\n", rank, strerror(errno));
  return -1;
}

static char gasnett__hostname[256];
static void gasnett__read_hostname(void) {
  if (gethostname(gasnett__hostname, sizeof gasnett__hostname - 1) != 0)
    strcpy(gasnett__hostname, "unknown-host");
}

const char *gasnett_gethostname(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, gasnett__read_hostname);
  return gasnett__hostname;
}

/* No slow build options exist in this library (no debug, trace, stats). */
const char *gasnett_performance_warning_str(void) { return ""; }

const char *gasnett_release_version_str(void) { return GASNETT__RELEASE_STRING; }

uint64_t gasnett_release_version(void) {
  return (uint64_t)GASNETT_RELEASE_VERSION_MAJOR * 1000000u +
         (uint64_t)GASNETT_RELEASE_VERSION_MINOR * 10000u + GASNETT_RELEASE_VERSION_PATCH;
}

static char gasnett__exe[4096];
static void gasnett__read_exe(void) {
  ssize_t n = readlink("/proc/self/exe", gasnett__exe, sizeof gasnett__exe - 1);
  gasnett__exe[n > 0 ? n : 0] = '\0';
}

const char *gasnett_exe_name(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, gasnett__read_exe);
  return gasnett__exe;
}

char *gasnett__current_loc(const char *fn, const char *file, int line) {
  size_t n = strlen(fn) + strlen(file) + 32;
  char *s = (char *)malloc(n);
  if (!s) gasnett_fatalerror("gasnett_current_loc: out of memory (%zu bytes)", n);
  snprintf(s, n, "%s() at %s:%d", fn, file, line);
  return s;
}

gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fn) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (sigaction(sigtocatch, &sa, &old) != 0)
    gasnett_fatalerror("gasnett_reghandler(%d): %s", sigtocatch, strerror(errno));
  return old.sa_handler;
}

void gasnett_flush_streams(void) {
  fflush(stdout);
  fflush(stderr);
  fflush(NULL);
}

/* Errors are ignored, as the spec says (a stream may be closed already). */
void gasnett_close_streams(void) {
  gasnett_flush_streams();
  fclose(stdin);
  fclose(stdout);
  fclose(stderr);
}

void *gasnett_mmap(uintptr_t size) {
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    gasnett_fatalerror("gasnett_mmap(%" PRIuPTR "): %s", size, strerror(errno));
  return p;
}
