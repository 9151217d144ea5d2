/*
 * gasnett_env.c - environment: the getenv hook (libc getenv until the core
 * installs the job's), setenv, the typed *_withdefault readers with their
 * GASNET_VERBOSEENV report, and integer/size parsing and formatting.
 */
#include <ctype.h>
#include <stdio.h>
#include <strings.h>

#include "gasnett_internal.h"
#include "gasneti_env.h"

static const char *(*gasnett__getenv_fn)(const char *name);
static int gasnett__reporter = 1;

/* A set of variable names, kept as a list: few names, rare calls. */
typedef struct gasnett__name {
  struct gasnett__name *next;
  char name[];
} gasnett__name_t;
/* overrides: set or unset here with gasnett_setenv/unsetenv, so this
 * process's value wins over the job's; reported: GASNET_VERBOSEENV lines
 * already printed. */
static gasnett__name_t *gasnett__overrides, *gasnett__reported;
static pthread_mutex_t gasnett__env_lock = PTHREAD_MUTEX_INITIALIZER;

static int gasnett__set_has(gasnett__name_t *set, const char *name) {
  for (; set; set = set->next)
    if (!strcmp(set->name, name)) return 1;
  return 0;
}

/* Adds name; 1 if it was new. An allocation failure counts as "not new"
 * (at worst a line is not printed). */
static int gasnett__set_add(gasnett__name_t **set, const char *name) {
  pthread_mutex_lock(&gasnett__env_lock);
  int added = 0;
  if (!gasnett__set_has(*set, name)) {
    gasnett__name_t *n = (gasnett__name_t *)malloc(sizeof *n + strlen(name) + 1);
    if (n) {
      strcpy(n->name, name);
      n->next = *set;
      *set = n;
      added = 1;
    }
  }
  pthread_mutex_unlock(&gasnett__env_lock);
  return added;
}

static int gasnett__is_override(const char *name) {
  pthread_mutex_lock(&gasnett__env_lock);
  int found = gasnett__set_has(gasnett__overrides, name);
  pthread_mutex_unlock(&gasnett__env_lock);
  return found;
}

void gasnett__set_getenv(const char *(*fn)(const char *name)) {
  __atomic_store_n(&gasnett__getenv_fn, fn, __ATOMIC_RELEASE);
}

void gasnett__set_verbose_reporter(int is_reporter) {
  __atomic_store_n(&gasnett__reporter, is_reporter, __ATOMIC_RELAXED);
}

char *gasnett_getenv(const char *name) {
  const char *(*fn)(const char *) = __atomic_load_n(&gasnett__getenv_fn, __ATOMIC_ACQUIRE);
  if (!fn || gasnett__is_override(name)) return getenv(name);
  return (char *)fn(name);
}

int gasnett_setenv(const char *name, const char *value) {
  gasnett__set_add(&gasnett__overrides, name);
  return setenv(name, value, 1);
}

int gasnett_unsetenv(const char *name) {
  gasnett__set_add(&gasnett__overrides, name);
  return unsetenv(name);
}

/* 1 yes, 0 no, -1 neither. */
static int gasnett__parse_yesno(const char *s) {
  static const char *const yes[] = {"Y", "YES", "1"}, *const no[] = {"N", "NO", "0"};
  for (int i = 0; i < 3; i++) {
    if (!strcasecmp(s, yes[i])) return 1;
    if (!strcasecmp(s, no[i])) return 0;
  }
  return -1;
}

int gasnett_verboseenv(void) {
  if (!__atomic_load_n(&gasnett__reporter, __ATOMIC_RELAXED)) return 0;
  const char *v = gasnett_getenv("GASNET_VERBOSEENV");
  return v && gasnett__parse_yesno(v) == 1;
}

void gasnett__envreport(const char *name, const char *value, const char *dflt) {
  if (!gasnett_verboseenv() || !gasnett__set_add(&gasnett__reported, name)) return;
  if (value)
    fprintf(stderr, "ENV parameter: %s = %s   (default %s)\n", name, value, dflt);
  else
    fprintf(stderr, "ENV parameter: %s = %s   (not set; default %s)\n", name, dflt, dflt);
}

/* One line per key, as gasnett__envreport; "(default)" when the value is
 * the default, "(set)" when it came from the environment. */
void gasnett_envstr_display(const char *key, const char *val, int is_dflt) {
  if (!gasnett_verboseenv() || !gasnett__set_add(&gasnett__reported, key)) return;
  fprintf(stderr, "ENV parameter: %s = %s   (%s)\n", key, val ? val : "(null)",
          is_dflt ? "default" : "set");
}

void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size) {
  char text[64];
  gasnett_format_number(val, text, sizeof text, is_mem_size);
  gasnett_envstr_display(key, text, is_dflt);
}

void gasnett_envdbl_display(const char *key, double val, int is_dflt) {
  char text[64];
  snprintf(text, sizeof text, "%g", val);
  gasnett_envstr_display(key, text, is_dflt);
}

const char *gasnett_getenv_withdefault(const char *name, const char *dflt) {
  const char *v = gasnett_getenv(name);
  gasnett__envreport(name, v, dflt);
  return v ? v : dflt;
}

/* The typed readers take an empty value as "not set". */
static const char *gasnett__getenv_nonempty(const char *name) {
  const char *v = gasnett_getenv(name);
  return v && *v ? v : NULL;
}

int gasnett_getenv_yesno_withdefault(const char *name, int dflt) {
  const char *v = gasnett__getenv_nonempty(name);
  gasnett__envreport(name, v, dflt ? "YES" : "NO");
  if (!v) return dflt;
  int yes = gasnett__parse_yesno(v);
  if (yes < 0)
    gasnett_fatalerror("environment variable %s='%s' is not a yes/no value "
                       "(use Y, YES, 1, N, NO or 0)", name, v);
  return yes;
}

int64_t gasnett_getenv_int_withdefault(const char *name, int64_t dflt, uint64_t memmul) {
  const char *v = gasnett__getenv_nonempty(name);
  char dtext[32];
  gasnett__envreport(name, v, gasnett_format_number(dflt, dtext, sizeof dtext, memmul != 0));
  if (!v) return dflt;
  int64_t val;
  const char *why = gasnett__parse_int(v, memmul, &val);
  if (why) gasnett_fatalerror("environment variable %s='%s' %s", name, v, why);
  return val;
}

double gasnett_getenv_dbl_withdefault(const char *name, double dflt) {
  const char *v = gasnett__getenv_nonempty(name);
  char dtext[32];
  snprintf(dtext, sizeof dtext, "%g", dflt);
  gasnett__envreport(name, v, dtext);
  if (!v) return dflt;
  char *end;
  double val = strtod(v, &end);
  while (isspace((unsigned char)*end)) end++;
  if (end == v || *end)
    gasnett_fatalerror("environment variable %s='%s' is not a number", name, v);
  return val;
}

/* ---- integers and sizes -------------------------------------------------- */

/* [sign] (decimal[.fraction] | 0xHEX) [spaces] [suffix] [spaces]; the
 * suffix is a size unit as gasneti_size_unit reads it (B, K, KB, KiB, M, ...
 * T, TB, TiB: powers of 1024, any case). */
const char *gasnett__parse_int(const char *str, uint64_t memmul, int64_t *out) {
  const char *p = str;
  while (isspace((unsigned char)*p)) p++;
  int neg = (*p == '-');
  if (*p == '-' || *p == '+') p++;
  int base = (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ? 16 : 10;
  if (base == 16) p += 2;
  if (!(base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
    return "is not a number";
  char *end;
  errno = 0;
  uint64_t whole = strtoull(p, &end, base);
  if (errno == ERANGE) return "is out of range";
  double frac = 0;
  if (base == 10 && *end == '.') frac = strtod(end, &end); /* ".5" -> 0.5 */
  p = end;
  while (isspace((unsigned char)*p)) p++;
  uint64_t unit = gasneti_size_unit(&p);
  if (unit && !memmul) return "has a size suffix where a plain number is expected";
  while (isspace((unsigned char)*p)) p++;
  if (*p) return "is not a number";
  if (!unit) unit = memmul ? memmul : 1;
  if (frac != 0 && !memmul) return "is not a whole number";
  if (whole > (uint64_t)INT64_MAX / unit) return "is out of range";
  uint64_t mag = whole * unit + (uint64_t)(frac * (double)unit + 0.5) /* rounded */;
  if (mag > (uint64_t)INT64_MAX) return "is out of range";
  *out = neg ? -(int64_t)mag : (int64_t)mag;
  return NULL;
}

int64_t gasnett_parse_int(const char *str, uint64_t memmul) {
  int64_t val;
  const char *why = gasnett__parse_int(str, memmul, &val);
  if (why) gasnett_fatalerror("gasnett_parse_int: '%s' %s", str, why);
  return val;
}

/* ismem: the largest unit that divides val exactly, so parsing gives val
 * back ("3KB", "1536B", "0B"). */
char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int ismem) {
  static const struct { char suffix[3]; int shift; } units[] = {
    {"TB", 40}, {"GB", 30}, {"MB", 20}, {"KB", 10},
  };
  const char *suffix = "";
  int64_t shown = val;
  if (ismem) {
    suffix = "B";
    for (size_t i = 0; i < sizeof units / sizeof units[0] && val; i++) {
      int64_t mul = (int64_t)1 << units[i].shift;
      if (val % mul == 0) {
        suffix = units[i].suffix;
        shown = val / mul;
        break;
      }
    }
  }
  snprintf(buf, bufsz, "%" PRId64 "%s", shown, suffix);
  return buf;
}
