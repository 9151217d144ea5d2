/*
 * t_check.h - the two checks every GASNet test program uses: T_CHECK for a
 * call that must return GASNET_OK, T_EXPECT for a condition; either failing
 * prints what failed on which node and ends the job (exit codes 2 and 3).
 */
#ifndef T_CHECK_H
#define T_CHECK_H

#include <stdio.h>
#include "gasnet.h"

#define T_CHECK(call)                                                     \
  do {                                                                    \
    int rc_ = (call);                                                     \
    if (rc_ != GASNET_OK) {                                               \
      fprintf(stderr, "node %u: %s failed: %s (%s)\n", (unsigned)gasnet_mynode(), \
              #call, gasnet_ErrorName(rc_), gasnet_ErrorDesc(rc_));       \
      gasnet_exit(2);                                                     \
    }                                                                     \
  } while (0)

#define T_EXPECT(cond, ...)                                               \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "node %u: FAILED %s: ", (unsigned)gasnet_mynode(), #cond); \
      fprintf(stderr, __VA_ARGS__);                                       \
      fprintf(stderr, "\n");                                              \
      gasnet_exit(3);                                                     \
    }                                                                     \
  } while (0)

#endif /* T_CHECK_H */
