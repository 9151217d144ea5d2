/*
 * t_client.c - a GASNet-1 client built outside this tree, only from an
 * installed copy (through the .mak fragment, or pkg-config variables): see
 * t-mak.sh and t-pkgconfig.sh. It includes nothing but <gasnet.h> and libc.
 *
 * Each node
 *   1. puts its rank pattern (T_WORDS words) into its right neighbour's
 *      segment, meets the others in a barrier, and checks that its own
 *      segment now holds its left neighbour's pattern, word by word;
 *   2. gets its right neighbour's segment back and checks it is its own
 *      pattern (so the put landed where the get reads);
 *   3. sends its right neighbour a Medium request carrying bytes it chose;
 *      the handler replies with the checksum it computed of what arrived
 *      and the sender compares it with its own.
 * It prints one line per node that t-*.sh compare (the sum is recomputed
 * there):  node R/N: put from node L verified (W words, sum 0xS), get ok,
 *          AM round trip ok (B bytes, checksum 0xC)
 * and exits non-zero, naming the first difference, otherwise.
 */
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>

enum { T_WORDS = 4096, T_AMBYTES = 512 };
enum { H_DATA = 201, H_SUM };  /* client handler indexes (128..255) */

static volatile int answered;
static volatile uint32_t answer;

/* Word i of node r's pattern: different for every rank and every word. */
static uint64_t pattern(gasnet_node_t r, uint64_t i)
{
  return (r + 1) * UINT64_C(0x100000001) + i;
}

/* A checksum both ends compute the same way (FNV-1a, 32 bits). */
static uint32_t fnv1a(const unsigned char *p, size_t n)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void data_handler(gasnet_token_t token, void *buf, size_t nbytes)
{
  gasnet_AMReplyShort1(token, H_SUM, (gasnet_handlerarg_t)fnv1a(buf, nbytes));
}

static void sum_handler(gasnet_token_t token, gasnet_handlerarg_t sum)
{
  (void)token;
  answer = (uint32_t)sum;
  answered = 1;
}

static void fail(const char *what, uint64_t at, uint64_t want, uint64_t got)
{
  fprintf(stderr, "node %u: %s: word %llu is 0x%llx, expected 0x%llx\n",
          (unsigned)gasnet_mynode(), what, (unsigned long long)at,
          (unsigned long long)got, (unsigned long long)want);
  gasnet_exit(3);
}

static void barrier(void)
{
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) != GASNET_OK) {
    fprintf(stderr, "node %u: barrier failed\n", (unsigned)gasnet_mynode());
    gasnet_exit(2);
  }
}

/* Steps 1 and 2; returns the sum of the words received from the left. */
static uint64_t check_put_get(gasnet_seginfo_t *seg)
{
  static uint64_t mine[T_WORDS], back[T_WORDS];
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_node_t right = (me + 1) % n, left = (me + n - 1) % n;
  uint64_t *local = seg[me].addr, sum = 0;

  for (uint64_t i = 0; i < T_WORDS; i++) mine[i] = pattern(me, i);
  gasnet_put(right, seg[right].addr, mine, sizeof mine);
  barrier();
  for (uint64_t i = 0; i < T_WORDS; i++) {
    if (local[i] != pattern(left, i)) fail("put from the left", i, pattern(left, i), local[i]);
    sum += local[i];
  }
  gasnet_get(back, right, seg[right].addr, sizeof back);
  for (uint64_t i = 0; i < T_WORDS; i++)
    if (back[i] != mine[i]) fail("get from the right", i, mine[i], back[i]);
  return sum;
}

/* Step 3; returns the checksum both ends agreed on. */
static uint32_t check_am(void)
{
  static unsigned char bytes[T_AMBYTES];
  gasnet_node_t me = gasnet_mynode(), right = (me + 1) % gasnet_nodes();

  for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)(me * 31 + i * 7);
  uint32_t want = fnv1a(bytes, sizeof bytes);
  gasnet_AMRequestMedium0(right, H_DATA, bytes, sizeof bytes);
  GASNET_BLOCKUNTIL(answered);
  if (answer != want) fail("AM checksum", 0, want, answer);
  return want;
}

int main(int argc, char **argv)
{
  gasnet_handlerentry_t handlers[] = {
    { H_DATA, (void (*)())data_handler },
    { H_SUM, (void (*)())sum_handler },
  };
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  uintptr_t segsize = 2 * T_WORDS * sizeof(uint64_t);
  if (gasnet_attach(handlers, 2, segsize, 0) != GASNET_OK) gasnet_exit(1);

  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_seginfo_t *seg = malloc(n * sizeof *seg);
  if (!seg || gasnet_getSegmentInfo(seg, (int)n) != GASNET_OK) gasnet_exit(1);

  uint64_t sum = check_put_get(seg);
  uint32_t amsum = check_am();
  printf("node %u/%u: put from node %u verified (%d words, sum 0x%llx), get ok, "
         "AM round trip ok (%d bytes, checksum 0x%08x)\n",
         (unsigned)me, (unsigned)n, (unsigned)((me + n - 1) % n), T_WORDS,
         (unsigned long long)sum, T_AMBYTES, (unsigned)amsum);
  fflush(stdout);
  barrier();  /* nobody exits while a neighbour still needs it */
  gasnet_exit(0);
}
