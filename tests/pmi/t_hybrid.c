/*
 * t_hybrid.c - an MPI + GASNet program, as Graph500's AML codes are: MPI
 * for set-up and checking, GASNet AMs for the traffic (issue: hybrid).
 *
 *   t_hybrid [gasnet-first|mpi-first]
 *
 * Initialises both libraries in the order named, checks that
 * gasnet_mynode() equals the MPI rank in MPI_COMM_WORLD and that the sizes
 * agree, gets a value from its right-hand neighbour with an AM round trip
 * (that neighbour's rank * 1000 + 7), and, after a GASNet barrier (MPI does
 * not poll GASNet: a rank blocked in MPI would leave its neighbour's request
 * unserved), sums those values with one MPI_Allreduce. Every rank prints
 *   hybrid rank R of N: gasnet node R, AM value V, MPI sum S (expected E) ok
 * and exits 1 on any mismatch.
 */
#include <mpi.h>
#define GASNET_SEQ 1
#include <gasnet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { H_ASK = 200, H_ANSWER };
static volatile int answered;
static volatile long answer;

static void ask(gasnet_token_t t) { gasnet_AMReplyShort1(t, H_ANSWER, (gasnet_handlerarg_t)(gasnet_mynode() * 1000 + 7)); }
static void ans(gasnet_token_t t, gasnet_handlerarg_t v) { (void)t; answer = v; answered = 1; }

static void gasnet_up(int *argc, char ***argv)
{
  gasnet_handlerentry_t h[] = { { H_ASK, (void (*)())ask }, { H_ANSWER, (void (*)())ans } };
  if (gasnet_init(argc, argv) != GASNET_OK) { fprintf(stderr, "gasnet_init failed\n"); _exit(1); }
  if (gasnet_attach(h, 2, 0, 0) != GASNET_OK) { fprintf(stderr, "gasnet_attach failed\n"); _exit(1); }
}

int main(int argc, char **argv)
{
  int gasnet_first = argc > 1 && !strcmp(argv[1], "gasnet-first");
  int rank, size;
  if (gasnet_first) gasnet_up(&argc, &argv);
  MPI_Init(&argc, &argv);
  if (!gasnet_first) gasnet_up(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_AMRequestShort0((me + 1) % n, H_ASK);
  GASNET_BLOCKUNTIL(answered);
  /* every AM served before anyone blocks in MPI (which does not poll GASNet) */
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  long sum = 0, mine = answer, expect = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++) expect += r * 1000L + 7;
  int ok = (int)me == rank && (int)n == size && mine == (long)((me + 1) % n) * 1000 + 7 && sum == expect;
  printf("hybrid rank %d of %d: gasnet node %u of %u, AM value %ld, MPI sum %ld (expected %ld) %s\n",
         rank, size, (unsigned)me, (unsigned)n, mine, sum, expect, ok ? "ok" : "WRONG");
  fflush(stdout);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  MPI_Finalize();
  gasnet_exit(ok ? 0 : 1);
  return 0;
}
