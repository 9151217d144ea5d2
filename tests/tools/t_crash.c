/*
 * t_crash.c - a tools-only program that fails on purpose, for t-crash.sh:
 *   t_crash segv    gasnett_backtrace_init, then a NULL write in t_crash_deref
 *   t_crash rank    the same after gasnett__set_rank(3) (the core's hook)
 *   t_crash fatal   gasnett_backtrace_init, then gasnett_fatalerror
 * What happens is steered by GASNET_BACKTRACE, GASNET_BACKTRACE_TYPE and
 * GASNET_FREEZE_ON_ERROR. It defines gasnett_backtrace_user, which must
 * replace the library's weak default (t-crash.sh also links it -static).
 */
#include <gasnet_tools.h>
#include <stdio.h>
#include <unistd.h>

#include "gasnett_internal.h"

static int t_crash_user_bt(int fd) {
  dprintf(fd, "T_CRASH_USER_BACKTRACE: the client's hook ran\n");
  return 0;
}
gasnett_backtrace_type_t gasnett_backtrace_user = {"USER", t_crash_user_bt, 0};

/* Not static, not inlined: its name must show in the backtrace. */
__attribute__((noinline)) void t_crash_deref(int *volatile *pp) {
  **pp = 42;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  gasnett_backtrace_init(argv[0]);
  printf("t_crash %s: pid %d\n", mode, (int)getpid());
  fflush(stdout);
  if (!strcmp(mode, "rank")) gasnett__set_rank(3);
  if (!strcmp(mode, "fatal")) gasnett_fatalerror("t_crash fatal %d", 1);
  int *volatile p = NULL;
  t_crash_deref(&p);
  printf("t_crash: SURVIVED\n");
  return 0;
}
