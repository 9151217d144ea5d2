/*
 * t_tools_util.h - shared by the t_tools*.c files: which headers this build
 * includes (see t_tools.c), the check macro and the sections.
 */
#ifndef T_TOOLS_UTIL_H
#define T_TOOLS_UTIL_H

#if defined(T_GASNET_FIRST)
#include <gasnet.h>
#include <gasnet_tools.h>
#elif defined(T_TOOLS_FIRST)
#include <gasnet_tools.h>
#include <gasnet.h>
#include <gasnet_tools.h> /* what gasnet.h will do at its end */
#else
#include <gasnet_tools.h>
#endif
#include <stdio.h>

extern int t_failures;

/* Prints the comparison either way; a failure is counted. */
#define T_OK(cond, ...)                                  \
  do {                                                   \
    int ok_ = !!(cond);                                  \
    printf("%s ", ok_ ? "ok  " : "FAIL");                \
    printf(__VA_ARGS__);                                 \
    printf("\n");                                        \
    if (!ok_) t_failures++;                              \
    fflush(stdout);                                      \
  } while (0)
#define T_SECTION(name) printf("== %s\n", name)

/* Runs fn in a forked child with stdout and stderr into out (at most outsz
 * bytes, NUL-terminated); waits at most 20 s. Returns the wait status, or
 * -1 if the child had to be killed. */
int t_child(void (*fn)(void), char *out, size_t outsz);

void t_atomics(int iters);
void t_locks_and_keys(void);
void t_env(void);
void t_format(void);
void t_system(void);
void t_processes(void);
void t_backtrace(const char *argv0);

#endif /* T_TOOLS_UTIL_H */
