/* startup_rank - the rank of the start-up benchmark (bench/startup.sh):
 * boot_init, one boot_barrier, boot_fini(0), exit. */
#include "boot.h"

#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  if (boot_init(&argc, &argv) || boot_barrier()) {
    fprintf(stderr, "startup_rank: bootstrap failed\n");
    return 1;
  }
  boot_fini(0);
  _exit(0);
}
