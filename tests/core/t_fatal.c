/*
 * t_fatal.c LAYER - a fatal error from one layer, for t-fatal.sh, which
 * checks that every layer's ends the same way (one fatal path,
 * tools/gasnett_crash.c). The last node errs, after a barrier; the others
 * poll until the job is torn down (bounded: 20 s).
 *   core       gasnet_AMRequestShort0 to a node that does not exist (gasnetc_fatal)
 *   extended   gasnet_put to a node that does not exist (gasnete_fatal)
 *   tools      gasnett_fatalerror("t_fatal tools %d", 7)
 * Built with -g -O0 -export-dynamic, so that backtraces name the functions.
 */
#include "t_util.h"
#include <time.h>

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  const char *layer = argc > 1 ? argv[1] : "none";
  gasnet_handlerentry_t table[] = { T_BARRIER_HANDLERS, { 0, NULL } };
  T_CHECK(gasnet_attach(table, 2, 1024 * 1024, 0));
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  t_barrier();
  if (me == n - 1) {
    static char buf[8];
    printf("node %u: a fatal error from the %s layer\n", (unsigned)me, layer);
    fflush(stdout);
    if (!strcmp(layer, "core")) gasnet_AMRequestShort0(n, T_H_ARRIVE);
    if (!strcmp(layer, "extended")) gasnet_put(n, buf, buf, sizeof buf);
    if (!strcmp(layer, "tools")) gasnett_fatalerror("t_fatal tools %d", 7);
  }
  time_t end = time(NULL) + 20;
  while (time(NULL) < end) gasnet_AMPoll();
  printf("node %u: still alive after 20 s: the %s layer's error did not end the job\n",
         (unsigned)me, layer);
  gasnet_exit(0);
}
