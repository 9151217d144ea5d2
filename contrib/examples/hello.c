/*
 * hello.c - a first GASNet program. Every node asks its right-hand
 * neighbour for a value with an Active Message round trip, waits for the
 * answer with GASNET_BLOCKUNTIL, prints one line, then all meet in an AM
 * barrier and exit.
 *
 *   spawner/gasnetrun -n 4 contrib/examples/hello
 *
 * Outside this tree:  cc hello.c $(pkg-config --cflags --libs gasnet-udp-seq)
 */
#if !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#define GASNET_SEQ 1   /* the threading mode (pkg-config sets it too): one thread */
#endif
#include <gasnet.h>
#include <stdio.h>

enum { H_ASK = 128, H_ANSWER, H_ARRIVE, H_GO };  /* our handler indexes */

static volatile int answered, answer, arrived, go;

/* Runs on the neighbour: reply with a value only it knows (its rank squared). */
static void ask_handler(gasnet_token_t token) {
  gasnet_node_t me = gasnet_mynode();
  gasnet_AMReplyShort1(token, H_ANSWER, (gasnet_handlerarg_t)(me * me));
}
/* Runs back on the asker. */
static void answer_handler(gasnet_token_t token, gasnet_handlerarg_t value) {
  (void)token;
  answer = value;
  answered = 1;
}
/* A barrier made of AMs: everyone tells node 0, node 0 tells everyone. */
static void arrive_handler(gasnet_token_t token) { (void)token; arrived++; }
static void go_handler(gasnet_token_t token) { (void)token; go = 1; }

int main(int argc, char **argv) {
  gasnet_handlerentry_t handlers[] = {
    { H_ASK, (void (*)())ask_handler },
    { H_ANSWER, (void (*)())answer_handler },
    { H_ARRIVE, (void (*)())arrive_handler },
    { H_GO, (void (*)())go_handler },
  };
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  if (gasnet_attach(handlers, 4, 0, 0) != GASNET_OK) gasnet_exit(1);

  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_node_t right = (me + 1) % n;
  gasnet_AMRequestShort0(right, H_ASK);
  GASNET_BLOCKUNTIL(answered);
  printf("hello from node %u of %u: node %u answered %d\n", (unsigned)me, (unsigned)n,
         (unsigned)right, answer);
  fflush(stdout);

  gasnet_AMRequestShort0(0, H_ARRIVE);
  if (me == 0) {
    GASNET_BLOCKUNTIL(arrived == (int)n);
    for (gasnet_node_t i = 0; i < n; i++) gasnet_AMRequestShort0(i, H_GO);
  }
  GASNET_BLOCKUNTIL(go);
  gasnet_exit(0);
}
