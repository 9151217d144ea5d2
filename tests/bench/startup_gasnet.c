/* startup_gasnet - a whole GASNet program for the start-up benchmark
 * (bench/launchers.sh): gasnet_init, gasnet_attach (no segment), one
 * gasnet barrier, gasnet_exit(0). */
#define GASNET_SEQ 1
#include <gasnet.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  if (gasnet_init(&argc, &argv) != GASNET_OK || gasnet_attach(NULL, 0, 0, 0) != GASNET_OK) {
    fprintf(stderr, "startup_gasnet: init failed\n");
    return 1;
  }
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_exit(0);
  return 0;
}
