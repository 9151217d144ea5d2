/*
 * t_spec120.c - a tools-only client of the names tools spec 1.20 added or
 * changed, the platform headers and gasnet_config.h's sizes, built by
 * t-spec120.sh through the INSTALLED gasnet_tools-{seq,par}.mak as C and as
 * C++ (the same file). Checks values where they are checkable; names with
 * no checkable value are used so that they must compile and link.
 *   t_spec120            all checks, "t_spec120: N failures" at the end
 *   t_spec120 fatal      gasnett_fatalerror("spec120 fatal %d", 7)
 *   t_spec120 nopos      gasnett_fatalerror_nopos("spec120 nopos")
 */
#include <gasnet_tools.h>
#include <gasnet_portable_platform.h>
#include <gasnet_fwd.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>

static int failures;
#define CHECK(cond, ...)                                  \
  do {                                                    \
    int ok_ = !!(cond);                                   \
    printf("%s ", ok_ ? "ok  " : "FAIL");                 \
    printf(__VA_ARGS__);                                  \
    printf("\n");                                         \
    failures += !ok_;                                     \
  } while (0)

/* ---- configuration: sizes, versions, size_t formats ------------------- */
#if SIZEOF_INT != 4 && SIZEOF_INT != 8
#error "SIZEOF_INT is not a literal usable in #if"
#endif
static void t_config(void) {
  CHECK(SIZEOF_CHAR == sizeof(char) && SIZEOF_SHORT == sizeof(short) &&
            SIZEOF_INT == sizeof(int) && SIZEOF_LONG == sizeof(long) &&
            SIZEOF_LONG_LONG == sizeof(long long) && SIZEOF_VOID_P == sizeof(void *) &&
            SIZEOF_SIZE_T == sizeof(size_t) && SIZEOF_PTRDIFF_T == sizeof(ptrdiff_t) &&
            SIZEOF_FLOAT == sizeof(float) && SIZEOF_DOUBLE == sizeof(double) &&
            SIZEOF_LONG_DOUBLE == sizeof(long double),
        "SIZEOF_*: INT %d LONG %d VOID_P %d SIZE_T %d LONG_DOUBLE %d equal sizeof", SIZEOF_INT,
        SIZEOF_LONG, SIZEOF_VOID_P, SIZEOF_SIZE_T, SIZEOF_LONG_DOUBLE);
  char buf[128];
  snprintf(buf, sizeof buf, "%" PRIuSZ " %" PRIdSZ " %" PRIxSZ " %" PRIXSZ " %" PRIoSZ
           " %" PRIdPD " %" PRIuPD " %" PRIxPD,
           (size_t)1234567890u, (size_t)42, (size_t)0xbeefu, (size_t)0xbeefu, (size_t)8,
           (ptrdiff_t)-5, (ptrdiff_t)7, (ptrdiff_t)255);
  CHECK(!strcmp(buf, "1234567890 42 beef BEEF 10 -5 7 ff"), "PRI*SZ/PRI*PD: '%s'", buf);
  size_t z = 0;
  CHECK(sscanf("987", "%" SCNuSZ, &z) == 1 && z == 987, "SCNuSZ reads %" PRIuSZ, z);

  uint64_t v = gasnett_release_version();
  CHECK(v == GASNETT_RELEASE_VERSION_MAJOR * (uint64_t)1000000 +
                 GASNETT_RELEASE_VERSION_MINOR * (uint64_t)10000 + GASNETT_RELEASE_VERSION_PATCH &&
            GASNETT_RELEASE_VERSION_MAJOR == GASNET_RELEASE_VERSION_MAJOR &&
            GASNETT_RELEASE_VERSION_MINOR == GASNET_RELEASE_VERSION_MINOR,
        "gasnett_release_version() = %" PRIu64 " (%s)", v, gasnett_release_version_str());
  CHECK(GASNETT_SPEC_VERSION_MAJOR == 1 && GASNETT_SPEC_VERSION_MINOR == 20, "tools spec %d.%d",
        GASNETT_SPEC_VERSION_MAJOR, GASNETT_SPEC_VERSION_MINOR);
}

/* ---- platform identification ------------------------------------------- */
static void t_platform(void) {
#if PLATFORM_ARCH_64 && !PLATFORM_ARCH_32
  CHECK(sizeof(void *) == 8, "PLATFORM_ARCH_64 and 8-byte pointers");
#elif PLATFORM_ARCH_32 && !PLATFORM_ARCH_64
  CHECK(sizeof(void *) == 4, "PLATFORM_ARCH_32 and 4-byte pointers");
#else
#error "exactly one of PLATFORM_ARCH_32, PLATFORM_ARCH_64"
#endif
  CHECK(!!PLATFORM_ARCH_LITTLE_ENDIAN == !!gasnett_isLittleEndian(),
        "PLATFORM_ARCH_LITTLE_ENDIAN agrees with gasnett_isLittleEndian()");
#if defined(__linux__)
  CHECK(PLATFORM_OS_LINUX && !strcmp(_STRINGIFY(PLATFORM_OS_FAMILYNAME), "LINUX"),
        "PLATFORM_OS_LINUX, FAMILYNAME %s", _STRINGIFY(PLATFORM_OS_FAMILYNAME));
#endif
/* Names a platform lacks are undefined: tested with #if, as clients do. */
#if defined(__x86_64__) && PLATFORM_ARCH_X86_64 && !PLATFORM_ARCH_X86
  const int arch_ok = 1;
#elif defined(__x86_64__)
  const int arch_ok = 0;
#else
  const int arch_ok = 1;
#endif
  CHECK(arch_ok, "PLATFORM_ARCH_X86_64 iff __x86_64__ (%s)", _STRINGIFY(PLATFORM_ARCH_FAMILYNAME));
  const char *fam = _STRINGIFY(PLATFORM_COMPILER_FAMILYNAME);
#if defined(__clang__) && PLATFORM_COMPILER_CLANG && !PLATFORM_COMPILER_GNU &&            \
    PLATFORM_COMPILER_FAMILYID == PLATFORM_COMPILER_FAMILYID_CLANG &&                      \
    PLATFORM_COMPILER_VERSION_EQ(__clang_major__, __clang_minor__, __clang_patchlevel__)
  int want = !strcmp(fam, "CLANG");
#elif !defined(__clang__) && PLATFORM_COMPILER_GNU && !PLATFORM_COMPILER_CLANG &&         \
    PLATFORM_COMPILER_FAMILYID == PLATFORM_COMPILER_FAMILYID_GNU &&                        \
    PLATFORM_COMPILER_VERSION_EQ(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)
  int want = !strcmp(fam, "GNU");
#else
  int want = 0;
#endif
#if defined(__cplusplus) && (PLATFORM_COMPILER_GNU_CXX || PLATFORM_COMPILER_CLANG_CXX) && \
    !PLATFORM_COMPILER_GNU_C && !PLATFORM_COMPILER_CLANG_C && PLATFORM_COMPILER_CXX_LANGLVL
#elif !defined(__cplusplus) && (PLATFORM_COMPILER_GNU_C || PLATFORM_COMPILER_CLANG_C) && \
    !PLATFORM_COMPILER_GNU_CXX && !PLATFORM_COMPILER_CLANG_CXX && PLATFORM_COMPILER_C_LANGLVL
#else
  want = 0;
#endif
#if !PLATFORM_COMPILER_VERSION_GE(1, 0, 0) || !PLATFORM_COMPILER_VERSION_LT(999, 0, 0) || \
    PLATFORM_COMPILER_VERSION_GT(999, 0, 0) || !PLATFORM_COMPILER_VERSION_LE(999, 0, 0)
#error "PLATFORM_COMPILER_VERSION_* do not work in #if"
#endif
  CHECK(want && strstr(PLATFORM_COMPILER_IDSTR, "|COMPILER_FAMILY:") &&
            strstr(PLATFORM_COMPILER_IDSTR, fam) && *PLATFORM_COMPILER_VERSION_STR,
        "compiler %s, id %d, version 0x%x, IDSTR %s, VERSION_STR %s", fam,
        PLATFORM_COMPILER_FAMILYID, (unsigned)PLATFORM_COMPILER_VERSION, PLATFORM_COMPILER_IDSTR,
        PLATFORM_COMPILER_VERSION_STR);
}

/* ---- annotations ------------------------------------------------------- */
GASNETT_IDENT(t_spec120_ident, "$T_spec120: tools 1.20 $");
GASNETT_INLINE(t_inline) int t_inline(int x) { return x + 1; }
GASNETT_NEVER_INLINE(t_never, int t_never(int x)) { return x * 2; }
GASNETT_PURE int t_pure(const int *p) GASNETT_WARN_UNUSED_RESULT;
GASNETT_PUREP(t_pure)
int t_pure(const int *p) { return *p; }
GASNETT_CONST int t_const(int x);
GASNETT_CONSTP(t_const)
int t_const(int x) { return x - 1; }
GASNETT_HOT int t_hot(int x);
int t_hot(int x) { return x; }
GASNETT_COLD void t_cold(void);
void t_cold(void) { fflush(stdout); }
GASNETT_DEPRECATED void t_deprecated(void);
GASNETT_USED static int t_used_but_never_called(void) { return 1; }
GASNETT_MALLOC void *t_alloc(size_t n);
GASNETT_MALLOCP(t_alloc)
void *t_alloc(size_t n) { return malloc(n); }
GASNETT_NORETURN void t_noreturn(void);
GASNETT_NORETURNP(t_noreturn)
void t_noreturn(void) { gasnett_killmyprocess(3); }
GASNETT_FORMAT_PRINTF(t_fmt, 2, 3, static int t_fmt(char *buf, const char *f, ...));
static int t_fmt(char *buf, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int n = vsprintf(buf, f, ap);
  va_end(ap);
  return n;
}
typedef int (*t_fmt_fn)(char *, const char *, ...);
static GASNETT_FORMAT_PRINTF_FUNCPTR(t_fmtp, 2, 3, t_fmt_fn t_fmtp) = t_fmt;
static void t_copy(char *GASNETT_RESTRICT d, const char *GASNETT_RESTRICT s) { strcpy(d, s); }

static int t_switch(int k) {
  int steps = 0;
  switch (k) {
    case 1:
      steps++;
      GASNETT_FALLTHROUGH
    case 2:
      steps++;
      break;
    case 3:
      break;
    default:
      gasnett_unreachable();
  }
  return steps;
}

#define T_PICK2_OF_3(x, y, z) (GASNETT_UNUSED_ARGS2(x, z), (y))
static void t_annotations(void) {
  int c[9] = {0};
  GASNETT_UNUSED_ARGS1(++c[1]);
  GASNETT_UNUSED_ARGS2(++c[1], ++c[2]);
  GASNETT_UNUSED_ARGS3(++c[1], ++c[2], ++c[3]);
  GASNETT_UNUSED_ARGS4(++c[1], ++c[2], ++c[3], ++c[4]);
  GASNETT_UNUSED_ARGS5(++c[1], ++c[2], ++c[3], ++c[4], ++c[5]);
  GASNETT_UNUSED_ARGS6(++c[1], ++c[2], ++c[3], ++c[4], ++c[5], ++c[6]);
  GASNETT_UNUSED_ARGS7(++c[1], ++c[2], ++c[3], ++c[4], ++c[5], ++c[6], ++c[7]);
  GASNETT_UNUSED_ARGS8(++c[1], ++c[2], ++c[3], ++c[4], ++c[5], ++c[6], ++c[7], ++c[8]);
  int y = T_PICK2_OF_3(++c[0], 42, ++c[0]);
  CHECK(c[1] == 8 && c[2] == 7 && c[5] == 4 && c[8] == 1 && c[0] == 2 && y == 42,
        "GASNETT_UNUSED_ARGS1..8: each argument evaluated once (c1=%d c2=%d c5=%d c8=%d)", c[1],
        c[2], c[5], c[8]);
  int one = 1;
  CHECK(t_inline(1) == 2 && t_never(4) == 8 && t_pure(&one) == 1 && t_const(1) == 0 &&
            t_hot(5) == 5,
        "GASNETT_INLINE, NEVER_INLINE, PURE, CONST, HOT functions give their values");
  t_cold();
  CHECK(GASNETT_PREDICT_TRUE(7) == 1 && GASNETT_PREDICT_FALSE(0) == 0 &&
            GASNETT_PREDICT_FALSE(-3) == 1,
        "GASNETT_PREDICT_TRUE/FALSE are 1 iff the expression is non-zero");
  int taken = 0;
  if_pt(one) taken++;
  if_pf(!one) taken += 10;
  CHECK(taken == 1, "if_pt / if_pf branch as if");
  gasnett_assume(one == 1);
  CHECK(t_switch(1) == 2 && t_switch(2) == 1 && t_switch(3) == 0,
        "GASNETT_FALLTHROUGH falls through; gasnett_unreachable() compiles in a default");
  char buf[64], copy[64];
  t_fmtp(buf, "%s-%d", "fmt", 5);
  t_copy(copy, buf);
  CHECK(!strcmp(copy, "fmt-5") && gasnett_constant_p(3) && !strcmp(GASNETT_CURRENT_FUNCTION,
                                                                   "t_annotations"),
        "FORMAT_PRINTF(_FUNCPTR), RESTRICT: '%s'; constant_p(3); CURRENT_FUNCTION %s", copy,
        GASNETT_CURRENT_FUNCTION);
  void *p = t_alloc(8);
  free(p);
  gasnett_spinloop_hint();
  gasnett_compiler_fence();
  (void)t_spec120_ident;
}

/* ---- trace and stats: statements, as clients write them ----------------- */
static void t_trace_stats(void) {
  const char *file = "x";
  unsigned int line = 1;
  GASNETT_TRACE_GETSOURCELINE(&file, &line);
  GASNETT_TRACE_SETSOURCELINE(file, line);
  GASNETT_TRACE_FREEZESOURCELINE();
  GASNETT_TRACE_UNFREEZESOURCELINE();
  if (GASNETT_TRACE_ENABLED) GASNETT_TRACE_PRINTF("never %d", 1);
  GASNETT_TRACE_PRINTF_FORCE("force %d", 2);
  GASNETT_TRACE_SETMASK(GASNETT_TRACE_GETMASK());
  GASNETT_STATS_SETMASK(GASNETT_STATS_GETMASK());
  GASNETT_TRACE_SET_TRACELOCAL(GASNETT_TRACE_GET_TRACELOCAL());
  GASNETT_STATS_PRINTF("stats %d", 3);
  GASNETT_STATS_PRINTF_FORCE("stats force %d", 4);
  int resets = 0;
  GASNETT_STATS_DUMP(++resets);
  CHECK(file == NULL && line == 0 && !GASNETT_TRACE_ENABLED && !GASNETT_STATS_ENABLED &&
            resets == 1 && !*GASNETT_TRACE_GETMASK(),
        "trace/stats macros: no tracing, GETSOURCELINE gives NULL/0, STATS_DUMP evaluates once");
}

/* ---- weak fences between two threads, whatever the mode ----------------
 * The writer stores x then y, the reader loads y then x: with the fences
 * between, the reader never sees a y newer than its x. */
#define T_FENCE_ITERS 2000000
static unsigned t_x, t_y;
static gasnett_atomic_t t_go = gasnett_atomic_init(0);
static void *t_writer(void *arg) {
  while (!gasnett_atomic_read(&t_go, GASNETT_ATOMIC_ACQ)) gasnett_spinloop_hint();
  for (unsigned i = 1; i <= T_FENCE_ITERS; i++) {
    t_x = i;
    gasnett_weak_wmb();
    t_y = i;
    gasnett_weak_mb();
  }
  return arg;
}
static void t_weak_fences(void) {
  pthread_t w;
  int rc = pthread_create(&w, NULL, t_writer, NULL);
  CHECK(rc == 0, "pthread_create in a %s client: %d", GASNETT_CONFIG_STRING, rc);
  if (rc) return;
  gasnett_atomic_set(&t_go, 1, GASNETT_ATOMIC_REL);
  unsigned bad = 0, seen = 0;
  for (unsigned i = 0; i < T_FENCE_ITERS && seen < T_FENCE_ITERS; i++) {
    unsigned y = *(volatile unsigned *)&t_y;
    gasnett_weak_rmb();
    unsigned x = t_x;
    bad += x < y;
    seen = y;
  }
  pthread_join(w, NULL);
  CHECK(bad == 0, "weak wmb/rmb with 2 threads (%s): %u reads saw y newer than x",
        GASNETT_CONFIG_STRING, bad);
}

/* ---- locks, environment, system ------------------------------------------ */
static volatile int t_frozen_flag;
static void *t_thaw(void *arg) {
  while (t_frozen_flag != 1) gasnett_nsleep(1000000);
  gasnett_nsleep(50000000);
  t_frozen_flag = 0;
  return arg;
}
static int t_my_bt_called;
static int t_my_bt(int fd) { return t_my_bt_called = fd; }

static void t_system(const char *argv0) {
  gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;
  gasnett_mutex_lock(&m);
  gasnett_mutex_assertlocked(&m);
  gasnett_mutex_unlock(&m);
  gasnett_mutex_assertunlocked(&m);
  gasnett_rwlock_t l = GASNETT_RWLOCK_INITIALIZER;
  gasnett_rwlock_rdlock(&l);
  gasnett_rwlock_assertrdlocked(&l);
  gasnett_rwlock_assertlocked(&l);
  gasnett_rwlock_unlock(&l);
  gasnett_rwlock_wrlock(&l);
  gasnett_rwlock_assertwrlocked(&l);
  gasnett_rwlock_unlock(&l);
  gasnett_rwlock_assertunlocked(&l);
  CHECK(gasnett_mutex_destroy_ignoreerr(&m) == 0, "mutex_destroy_ignoreerr of a free mutex: 0");

  /* GASNET_VERBOSEENV=1 (t-spec120.sh): one line each on stderr. */
  gasnett_envint_display("T_SPEC120_INT", 2 << 20, 1, 1);
  gasnett_envstr_display("T_SPEC120_STR", "hello", 0);
  gasnett_envdbl_display("T_SPEC120_DBL", 0.5, 1);
  gasnett_envstr_display("T_SPEC120_STR", "again", 0); /* once per key */

  const char *exe = gasnett_exe_name();
  const char *base = strrchr(argv0, '/');
  CHECK(exe[0] == '/' && strstr(exe, base ? base + 1 : argv0), "gasnett_exe_name() = %s", exe);
  CHECK(gasnett_nsleep(0) == 0 && gasnett_nsleep(1000) == 0, "gasnett_nsleep returns 0");
  CHECK(gasnett_set_affinity(0) == 0, "gasnett_set_affinity(0) = 0");
  struct rlimit before;
  getrlimit(RLIMIT_NOFILE, &before);
  int raised = gasnett_maximize_rlimit(RLIMIT_NOFILE, "RLIMIT_NOFILE");
  struct rlimit after;
  getrlimit(RLIMIT_NOFILE, &after);
  CHECK(raised && after.rlim_cur == after.rlim_max && gasnett_maximize_rlimits(),
        "maximize_rlimit(NOFILE): soft %llu -> %llu (hard %llu)",
        (unsigned long long)before.rlim_cur, (unsigned long long)after.rlim_cur,
        (unsigned long long)after.rlim_max);
  char *loc = gasnett_current_loc;
  CHECK(strstr(loc, "t_system() at ") && strstr(loc, "t_spec120.c:"), "gasnett_current_loc: %s",
        loc);
  free(loc);

  pthread_t th;
  pthread_create(&th, NULL, t_thaw, NULL);
  gasnett_freezeForDebuggerNow(&t_frozen_flag, "t_frozen_flag");
  pthread_join(th, NULL);
  CHECK(t_frozen_flag == 0, "freezeForDebuggerNow returned once the flag was cleared");
  gasnett_freezeForDebuggerErr(); /* GASNET_FREEZE_ON_ERROR not set: returns */

  int (*saved)(int) = gasnett_print_backtrace_ifenabled;
  int rc = gasnett_print_backtrace_ifenabled(2); /* GASNET_BACKTRACE not set */
  gasnett_print_backtrace_ifenabled = t_my_bt;
  gasnett_print_backtrace_ifenabled(5);
  gasnett_print_backtrace_ifenabled = saved;
  CHECK(rc != 0 && t_my_bt_called == 5, "print_backtrace_ifenabled: %d when off; a client's hook "
        "is called through it", rc);
}

/* ---- formatting and diagnostics with the 1.20 arities ------------------- */
static void t_format(void) {
  char buf[256];
  size_t need = gasnett_format_dt(NULL, GEX_DT_I32 | GEX_DT_DBL);
  size_t got = gasnett_format_dt(buf, GEX_DT_I32 | GEX_DT_DBL);
  CHECK(need == got && need == strlen(buf) + 1 && !strcmp(buf, "GEX_DT_I32|GEX_DT_DBL"),
        "format_dt: '%s' (%zu bytes)", buf, got);
  gasnett_format_op(buf, GEX_OP_FADD | 0x80000000u);
  CHECK(!strcmp(buf, "GEX_OP_FADD|0x80000000"), "format_op: '%s'", buf);
  gasnett_format_ti(buf, GEX_TI_ALL);
  CHECK(!strcmp(buf, "GEX_TI_SRCRANK|GEX_TI_EP|GEX_TI_ENTRY|GEX_TI_IS_REQ|GEX_TI_IS_LONG"),
        "format_ti(GEX_TI_ALL): '%s'", buf);
  CHECK(gasnett_format_dt(buf, 0) == 2 && !strcmp(buf, "0"), "format_dt(0): '%s'", buf);

  ptrdiff_t ds[1] = {64}, ss[1] = {-128};
  size_t cnt[1] = {4};
  char *pb = (char *)malloc(gasnett_format_putsgets_bufsz(1));
  gasnett_format_putsgets(pb, NULL, NULL, 3, (void *)0x1000, ds, (void *)0x2000, ss, 8, cnt, 1);
  CHECK(!strcmp(pb, "rank=3 dst=0x1000 dststrides=[64] src=0x2000 srcstrides=[-128] elemsz=8 "
                    "count=[4] (1 stride level, 32 bytes)"),
        "format_putsgets: %s", pb);
  free(pb);
  int diag = gasnett_run_diagnostics(100, 2, "TAKF", NULL, NULL, 0, NULL, 12345);
  CHECK(diag == 0, "gasnett_run_diagnostics(100, 2, \"TAKF\", NULL, NULL, 0, NULL, 12345) = %d",
        diag);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "fatal")) gasnett_fatalerror("spec120 fatal %d", 7);
  if (argc > 1 && !strcmp(argv[1], "nopos")) gasnett_fatalerror_nopos("spec120 nopos");
  if (argc > 1 && !strcmp(argv[1], "noreturn")) t_noreturn();
  printf("t_spec120 (%s, %s)\n", GASNETT_CONFIG_STRING,
#ifdef __cplusplus
         "C++"
#else
         "C"
#endif
  );
  t_config();
  t_platform();
  t_annotations();
  t_trace_stats();
  t_weak_fences();
  t_system(argv[0]);
  t_format();
  printf("t_spec120: %d failures\n", failures);
  gasnett_flush_streams();
  gasnett_close_streams();
  return failures ? 1 : 0;
}
