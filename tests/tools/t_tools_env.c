/*
 * t_tools_env.c - environment readers (set with gasnett_setenv first),
 * size parsing, GASNET_VERBOSEENV reports and fatal errors on malformed
 * values (in children), number formatting round trips, checksums, count0s.
 */
#include "t_tools_util.h"

#include <sys/wait.h>

static const struct {
  const char *text;
  uint64_t memmul;
  int64_t want;
} t_ints[] = {
    {"0", 0, 0},           {"42", 0, 42},         {"-17", 0, -17},     {"0x1F", 0, 31},
    {"+8", 0, 8},          {"10", 1, 10},         {"10", 1024, 10240}, {"4K", 1, 4096},
    {"4kb", 1, 4096},      {"3M", 1, 3 << 20},    {"3mB", 1, 3 << 20}, {"2G", 1, 2ll << 30},
    {"2GB", 1, 2ll << 30}, {"1T", 1, 1ll << 40},  {"5tb", 1, 5ll << 40}, {"7B", 1, 7},
    {"7b", 4096, 7},       {"1.5K", 1, 1536},     {"0.5M", 1, 1 << 19}, {" 12 MB ", 1, 12 << 20},
    {"-2K", 1, -2048},     {"0x10", 1 << 20, 16 << 20},
};
static const struct {
  const char *text;
  uint64_t memmul;
} t_bad_ints[] = {{"12abc", 0}, {"4K", 0}, {"", 1}, {"1.5", 0}, {"0x", 0}, {"K", 1}, {"1KBB", 1}};

void t_format(void) {
  T_SECTION("parse_int and format_number");
  int bad = 0;
  for (size_t i = 0; i < sizeof t_ints / sizeof t_ints[0]; i++) {
    int64_t got = gasnett_parse_int(t_ints[i].text, t_ints[i].memmul);
    if (got != t_ints[i].want)
      printf("     parse_int('%s', %" PRIu64 ") = %" PRId64 ", want %" PRId64 "\n",
             t_ints[i].text, t_ints[i].memmul, got, t_ints[i].want);
    bad += got != t_ints[i].want;
  }
  T_OK(bad == 0, "%zu parse_int cases (decimal, 0x, signs, B/K/KB/M/MB/G/GB/T/TB any case, "
       "fractions, memmul units): %d wrong", sizeof t_ints / sizeof t_ints[0], bad);
  int trips = 0;
  bad = 0;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int64_t v = (int64_t)(x >> (i % 63));
    if (i % 3 == 1) v = -v;
    if (i % 3 == 2) v = (int64_t)((x % 1000) << (10 * (i % 5)));
    for (int ismem = 0; ismem <= 1; ismem++, trips++) {
      char buf[64];
      gasnett_format_number(v, buf, sizeof buf, ismem);
      int64_t back = gasnett_parse_int(buf, ismem ? 1 : 0);
      if (back != v && bad++ < 5)
        printf("     %" PRId64 " -> '%s' -> %" PRId64 "\n", v, buf, back);
    }
  }
  char b1[32], b2[32], b3[32];
  T_OK(bad == 0, "%d format_number/parse_int round trips: %d wrong; e.g. 3 MiB -> '%s', "
       "1536 -> '%s', -5 -> '%s'", trips, bad, gasnett_format_number(3 << 20, b1, 32, 1),
       gasnett_format_number(1536, b2, 32, 1), gasnett_format_number(-5, b3, 32, 0));

  T_SECTION("checksum and count0s");
  uint64_t ca = gasnett_checksum("a", 1), cf = gasnett_checksum("foobar", 6);
  T_OK(ca == 0xaf63dc4c8601ec8cull && cf == 0x85944171f73967e8ull &&
           gasnett_checksum("foobar", 6) == cf,
       "FNV-1a 64: 'a' -> %016" PRIx64 ", 'foobar' -> %016" PRIx64 " (known values), stable", ca,
       cf);
  char buf[1000], copy[1000];
  for (int i = 0; i < 1000; i++) buf[i] = (char)(i % 7 == 0 ? 0 : i % 251 + 1);
  size_t zeros = gasnett_count0s(buf, 1000), zc = gasnett_count0s_copy(copy, buf, 1000);
  T_OK(zeros == 143 && zc == 143 && !memcmp(buf, copy, 1000),
       "count0s of 1000 bytes with every 7th zero: %zu and %zu (copy) (want 143)", zeros, zc);
  T_OK(gasnett_count0s_uint32_t(0x00120000u) == 3 && gasnett_count0s_uint64_t(0) == 8 &&
           gasnett_count0s_uint64_t(0x1122334455667788ull) == 0 &&
           gasnett_count0s_uintptr_t((uintptr_t)0x1100) == (int)sizeof(uintptr_t) - 1,
       "count0s of words: %d %d %d %d", gasnett_count0s_uint32_t(0x00120000u),
       gasnett_count0s_uint64_t(0), gasnett_count0s_uint64_t(0x1122334455667788ull),
       gasnett_count0s_uintptr_t((uintptr_t)0x1100));

  T_SECTION("format lists");
  void *addrs[3] = {(void *)0x1000, (void *)0x2000, (void *)0xdeadbeef0};
  char *ab = (char *)malloc(gasnett_format_addrlist_bufsz(3));
  gasnett_format_addrlist(ab, 3, addrs, 64);
  T_OK(!strcmp(ab, "3 addresses of 64 bytes: [0x1000, 0x2000, 0xdeadbeef0]"), "addrlist: %s", ab);
  gasnett_memvec_t mv[2] = {{(void *)0x1000, 64}, {(void *)0x2000, 32}};
  char *mb = (char *)malloc(gasnett_format_memveclist_bufsz(2));
  gasnett_format_memveclist(mb, 2, mv);
  T_OK(!strcmp(mb, "2 memvecs, 96 bytes: [{0x1000,64}, {0x2000,32}]"), "memveclist: %s", mb);
  ptrdiff_t ds[2] = {256, 4096}, ss[2] = {128, -1024};
  size_t cnt[2] = {2, 3};
  char *pb = (char *)malloc(gasnett_format_putsgets_bufsz(2));
  gasnett_format_putsgets(pb, NULL, NULL, 7, (void *)0x10000, ds, (void *)0x20000, ss, 64, cnt, 2);
  T_OK(!strcmp(pb, "rank=7 dst=0x10000 dststrides=[256, 4096] src=0x20000 srcstrides=[128, -1024] "
                   "elemsz=64 count=[2, 3] (2 stride levels, 384 bytes)"), "putsgets: %s", pb);
  free(ab), free(mb), free(pb);
}

/* ---- environment --------------------------------------------------------- */
static const char *t_bad_value;
static uint64_t t_bad_memmul;
static void t_read_bad_int(void) {
  gasnett_setenv("T_TOOLS_BAD", t_bad_value);
  gasnett_getenv_int_withdefault("T_TOOLS_BAD", 1, t_bad_memmul);
  printf("SURVIVED\n");
}
static void t_read_bad_yesno(void) {
  gasnett_setenv("T_TOOLS_YN", "maybe");
  gasnett_getenv_yesno_withdefault("T_TOOLS_YN", 0);
  printf("SURVIVED\n");
}
static void t_read_bad_dbl(void) {
  gasnett_setenv("T_TOOLS_DBL", "1.5x");
  gasnett_getenv_dbl_withdefault("T_TOOLS_DBL", 0);
  printf("SURVIVED\n");
}
static void t_verbose_reads(void) {
  gasnett_setenv("GASNET_VERBOSEENV", "1");
  gasnett_setenv("T_TOOLS_SET", "4MB");
  gasnett_unsetenv("T_TOOLS_UNSET");
  printf("verboseenv=%d\n", gasnett_verboseenv());
  gasnett_getenv_int_withdefault("T_TOOLS_SET", 1024, 1);
  gasnett_getenv_int_withdefault("T_TOOLS_SET", 1024, 1); /* reported once */
  gasnett_getenv_yesno_withdefault("T_TOOLS_UNSET", 1);
  fflush(stdout);
}

static void t_expect_fatal(void (*fn)(void), const char *what, const char *want) {
  char out[4096];
  int st = t_child(fn, out, sizeof out);
  int died = st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
  T_OK(died && strstr(out, want) && !strstr(out, "SURVIVED"),
       "%s: SIGABRT and a message with \"%s\": %s; output: %s", what, want,
       died ? "aborted" : "did not abort", out);
}

void t_env(void) {
  T_SECTION("environment");
  gasnett_setenv("T_TOOLS_S", "hello");
  gasnett_setenv("T_TOOLS_Y", "yes");
  gasnett_setenv("T_TOOLS_N", "0");
  gasnett_setenv("T_TOOLS_I", "0x20");
  gasnett_setenv("T_TOOLS_M", "2KB");
  gasnett_setenv("T_TOOLS_U", "3");
  gasnett_setenv("T_TOOLS_D", "2.5e3");
  gasnett_setenv("T_TOOLS_E", "");
  const char *s = gasnett_getenv("T_TOOLS_S");
  T_OK(s && !strcmp(s, "hello") && !strcmp(gasnett_getenv_withdefault("T_TOOLS_S", "d"), "hello") &&
           !strcmp(gasnett_getenv_withdefault("T_TOOLS_NONE", "d"), "d") &&
           gasnett_getenv("T_TOOLS_NONE") == NULL,
       "getenv / getenv_withdefault: '%s'", s ? s : "(null)");
  T_OK(gasnett_getenv_yesno_withdefault("T_TOOLS_Y", 0) == 1 &&
           gasnett_getenv_yesno_withdefault("T_TOOLS_N", 1) == 0 &&
           gasnett_getenv_yesno_withdefault("T_TOOLS_NONE", 1) == 1 &&
           gasnett_getenv_yesno_withdefault("T_TOOLS_E", 0) == 0,
       "yesno: yes -> 1, 0 -> 0, unset -> default, empty -> default");
  int64_t i = gasnett_getenv_int_withdefault("T_TOOLS_I", 7, 0),
          m = gasnett_getenv_int_withdefault("T_TOOLS_M", 7, 1),
          u = gasnett_getenv_int_withdefault("T_TOOLS_U", 7, 1 << 20),
          d = gasnett_getenv_int_withdefault("T_TOOLS_NONE", -7, 0);
  T_OK(i == 32 && m == 2048 && u == 3 << 20 && d == -7,
       "int: 0x20 -> %" PRId64 ", 2KB -> %" PRId64 ", 3 in MB units -> %" PRId64
       ", unset -> %" PRId64, i, m, u, d);
  double dv = gasnett_getenv_dbl_withdefault("T_TOOLS_D", 1.0),
         dd = gasnett_getenv_dbl_withdefault("T_TOOLS_NONE", 0.25);
  T_OK(dv == 2500.0 && dd == 0.25, "dbl: 2.5e3 -> %g, unset -> %g", dv, dd);
  gasnett_unsetenv("T_TOOLS_S");
  T_OK(gasnett_getenv("T_TOOLS_S") == NULL, "unsetenv");

  char out[4096];
  int st = t_child(t_verbose_reads, out, sizeof out);
  T_OK(st == 0 && strstr(out, "verboseenv=1") &&
           strstr(out, "ENV parameter: T_TOOLS_SET = 4MB   (default 1KB)\n") &&
           strstr(strstr(out, "T_TOOLS_SET") + 1, "T_TOOLS_SET") == NULL &&
           strstr(out, "ENV parameter: T_TOOLS_UNSET = YES   (not set; default YES)\n"),
       "GASNET_VERBOSEENV=1: each variable reported once:\n%s", out);
  T_OK(gasnett_verboseenv() == 0, "verboseenv() here (GASNET_VERBOSEENV unset): %d",
       gasnett_verboseenv());
  for (size_t k = 0; k < sizeof t_bad_ints / sizeof t_bad_ints[0]; k++) {
    char want[128];
    t_bad_value = t_bad_ints[k].text;
    t_bad_memmul = t_bad_ints[k].memmul;
    if (!*t_bad_value) continue; /* empty means unset for the readers */
    snprintf(want, sizeof want, "T_TOOLS_BAD='%s'", t_bad_value);
    t_expect_fatal(t_read_bad_int, "malformed int", want);
  }
  t_expect_fatal(t_read_bad_yesno, "malformed yes/no", "T_TOOLS_YN='maybe'");
  t_expect_fatal(t_read_bad_dbl, "malformed double", "T_TOOLS_DBL='1.5x'");
}
