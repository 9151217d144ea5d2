/*
 * t_core.c - every call of spec sections 1 and 2, on any number of nodes,
 * loopback included: each node exchanges Short, Medium, Long and LongAsync
 * requests and replies with every node (itself too) and checks what arrives.
 * Expects T_CORE_ENV=hello-env in the job environment (gasnet_getenv).
 * Prints the values it compared; exits 0 when all matched.
 */
#include "t_util.h"
#include <unistd.h>

#define SEGSIZE (32u * 1024 * 1024) /* 32 slots of 1 MiB: [sender] and [nodes + target] */
#define H_EXPLICIT 200

static gasnet_seginfo_t *seg;
static volatile int replies_short, replies_medium, replies_long, requests_seen;
static gasnet_hsl_t lock = GASNET_HSL_INITIALIZER;
static int sum_from_handlers; /* protected by lock */

/* Short: request (a, b) -> reply (a + b, source node). */
static void req_short(gasnet_token_t token, gasnet_handlerarg_t a, gasnet_handlerarg_t b) {
  gasnet_node_t src;
  T_CHECK(gasnet_AMGetMsgSource(token, &src));
  T_EXPECT((gasnet_handlerarg_t)src == b, "GetMsgSource %u, sender said %d", (unsigned)src, b);
  T_EXPECT(a == 1000 + (gasnet_handlerarg_t)gasnet_mynode(), "short arg a=%d", a);
  gasnet_hsl_lock(&lock);
  sum_from_handlers += 1;
  gasnet_hsl_unlock(&lock);
  __atomic_fetch_add(&requests_seen, 1, __ATOMIC_RELAXED);
  T_CHECK(gasnet_AMReplyShort2(token, 129, a + b, (gasnet_handlerarg_t)gasnet_mynode()));
}
static void rep_short(gasnet_token_t token, gasnet_handlerarg_t sum, gasnet_handlerarg_t who) {
  gasnet_node_t src;
  T_CHECK(gasnet_AMGetMsgSource(token, &src));
  T_EXPECT(who == (gasnet_handlerarg_t)src, "reply from %u says %d", (unsigned)src, who);
  T_EXPECT(sum == 1000 + (gasnet_handlerarg_t)src + (gasnet_handlerarg_t)gasnet_mynode(),
           "short reply sum %d from node %u", sum, (unsigned)src);
  __atomic_fetch_add(&replies_short, 1, __ATOMIC_RELAXED);
}

/* Medium: the request's payload is verified and echoed in a Medium reply. */
static void req_medium(gasnet_token_t token, void *buf, size_t n, gasnet_handlerarg_t len) {
  T_EXPECT((size_t)len == n, "medium length %zu, sender said %d", n, len);
  T_EXPECT(((uintptr_t)buf & 15) == 0 || n == 0, "medium buffer %p not 16-aligned", buf);
  T_EXPECT(t_verify(buf, n), "medium payload of %zu bytes corrupt", n);
  T_CHECK(gasnet_AMReplyMedium1(token, H_EXPLICIT, buf, n, len));
}
static void rep_medium(gasnet_token_t token, void *buf, size_t n, gasnet_handlerarg_t len) {
  (void)token;
  T_EXPECT((size_t)len == n && t_verify(buf, n), "medium reply of %zu bytes corrupt", n);
  __atomic_fetch_add(&replies_medium, 1, __ATOMIC_RELAXED);
}

/* Long: the request lands in the target's segment at slot [sender]; the reply
 * carries it back into the sender's segment at slot [nodes + target]. */
static void req_long(gasnet_token_t token, void *buf, size_t n, gasnet_handlerarg_t slot) {
  gasnet_node_t src;
  T_CHECK(gasnet_AMGetMsgSource(token, &src));
  char *expect = (char *)seg[gasnet_mynode()].addr + (size_t)slot * (SEGSIZE / 32);
  T_EXPECT(buf == expect, "long landed at %p, expected %p", buf, (void *)expect);
  T_EXPECT(t_verify(buf, n), "long payload of %zu bytes corrupt", n);
  char *dst = (char *)seg[src].addr + (size_t)(gasnet_nodes() + gasnet_mynode()) * (SEGSIZE / 32);
  T_CHECK(gasnet_AMReplyLong2(token, 131, buf, n, dst, (gasnet_handlerarg_t)n, 0x5a5a));
}
static void rep_long(gasnet_token_t token, void *buf, size_t n, gasnet_handlerarg_t len,
                     gasnet_handlerarg_t magic) {
  (void)token;
  T_EXPECT((size_t)len == n && magic == 0x5a5a && t_verify(buf, n),
           "long reply of %zu bytes corrupt", n);
  __atomic_fetch_add(&replies_long, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  T_EXPECT(me < n && n >= 1, "mynode %u nodes %u", (unsigned)me, (unsigned)n);
  const char *env = gasnet_getenv("T_CORE_ENV");
  T_EXPECT(env && strcmp(env, "hello-env") == 0, "gasnet_getenv(T_CORE_ENV) = %s", env ? env : "(null)");
  uintptr_t lmax = gasnet_getMaxLocalSegmentSize(), gmax = gasnet_getMaxGlobalSegmentSize();
  T_EXPECT(gmax <= lmax && gmax % GASNET_PAGESIZE == 0 && lmax % GASNET_PAGESIZE == 0 && gmax >= SEGSIZE,
           "max local %lu global %lu", (unsigned long)lmax, (unsigned long)gmax);
  T_EXPECT(gasnet_AMMaxArgs() == 16 && gasnet_AMMaxMedium() >= 512 &&
           gasnet_AMMaxLongRequest() >= 512 && gasnet_AMMaxLongReply() >= 512, "AM limits");
  T_EXPECT(strcmp(gasnet_ErrorName(GASNET_ERR_NOT_READY), "GASNET_ERR_NOT_READY") == 0 &&
           strcmp(gasnet_ErrorName(GASNET_OK), "GASNET_OK") == 0 &&
           strlen(gasnet_ErrorDesc(GASNET_ERR_BAD_ARG)) > 0, "error names");
  if (me == 0)
    printf("node 0: nodes=%u getenv(T_CORE_ENV)=%s maxlocal=%lu maxglobal=%lu "
           "MaxArgs=%zu MaxMedium=%zu MaxLongRequest=%zu MaxLongReply=%zu config=%s\n",
           (unsigned)n, env, (unsigned long)lmax, (unsigned long)gmax, gasnet_AMMaxArgs(),
           gasnet_AMMaxMedium(), gasnet_AMMaxLongRequest(), gasnet_AMMaxLongReply(),
           GASNET_CONFIG_STRING);

  gasnet_handlerentry_t table[] = {
    { 0, (void (*)())req_short },          /* don't care -> 128 */
    { 0, (void (*)())rep_short },          /* don't care -> 129 */
    { H_EXPLICIT, (void (*)())rep_medium },
    { 0, (void (*)())req_medium },         /* -> 130 */
    { 0, (void (*)())rep_long },           /* -> 131 */
    { 0, (void (*)())req_long },           /* -> 132 */
    T_BARRIER_HANDLERS,
  };
  T_CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), SEGSIZE, GASNET_PAGESIZE));
  T_EXPECT(table[0].index == 128 && table[1].index == 129 && table[2].index == H_EXPLICIT &&
           table[3].index == 130 && table[4].index == 131 && table[5].index == 132,
           "assigned indexes %d %d %d %d %d %d", table[0].index, table[1].index, table[2].index,
           table[3].index, table[4].index, table[5].index);
  if (me == 0) printf("node 0: don't-care handlers got 128 129 130 131 132 as expected\n");

  seg = calloc(n + 2, sizeof *seg);
  for (gasnet_node_t i = 0; i < n + 2; i++) seg[i].size = 12345; /* sentinel */
  T_CHECK(gasnet_getSegmentInfo(seg, (int)n + 2));
  T_EXPECT(seg[n].size == 12345 && seg[n + 1].size == 12345, "entries beyond nodes touched");
  for (gasnet_node_t i = 0; i < n; i++)
    T_EXPECT(seg[i].size == SEGSIZE && ((uintptr_t)seg[i].addr % GASNET_PAGESIZE) == 0,
             "node %u segment %p size %lu", (unsigned)i, seg[i].addr, (unsigned long)seg[i].size);
  gasnet_seginfo_t one;
  T_CHECK(gasnet_getSegmentInfo(&one, 1));
  T_EXPECT(one.addr == seg[0].addr, "getSegmentInfo with 1 entry");
  T_EXPECT(2 * n <= 32, "at most 16 nodes for the slot layout");

  /* No-interrupt section and HSL calls outside handlers. */
  gasnet_hold_interrupts();
  gasnet_resume_interrupts();
  gasnet_hsl_t dyn;
  gasnet_hsl_init(&dyn);
  T_EXPECT(gasnet_hsl_trylock(&dyn) == GASNET_OK, "trylock of a free HSL");
  gasnet_hsl_unlock(&dyn);
  gasnet_hsl_lock(&dyn);
  gasnet_hsl_unlock(&dyn);
  gasnet_hsl_destroy(&dyn);
  T_CHECK(gasnet_AMPoll());

  /* Every node -> every node (loopback included), each category, sizes
   * 0, 1, 4096+3 and the maximum. */
  size_t msizes[] = { 0, 1, 4099, gasnet_AMMaxMedium() };
  size_t lsizes[] = { 0, 1, 4099, gasnet_AMMaxLongRequest() < SEGSIZE / 32 ? gasnet_AMMaxLongRequest() : SEGSIZE / 32 };
  char *src = malloc(gasnet_AMMaxLongRequest() + 16);
  int sent_short = 0, sent_medium = 0, sent_long = 0;
  for (gasnet_node_t d = 0; d < n; d++) {
    gasnet_node_t dest = (me + d) % n;
    T_CHECK(gasnet_AMRequestShort2(dest, 128, 1000 + (gasnet_handlerarg_t)dest, (gasnet_handlerarg_t)me));
    sent_short++;
    for (int k = 0; k < 4; k++) {
      t_fill(src + 1, msizes[k], 77u * k + me);   /* odd address: an unaligned source */
      T_CHECK(gasnet_AMRequestMedium1(dest, 130, src + 1, msizes[k], (gasnet_handlerarg_t)msizes[k]));
      sent_medium++;
    }
    for (int k = 0; k < 4; k++) {
      /* one Long per (sender, target) slot at a time: wait for the reply */
      char *dst = (char *)seg[dest].addr + (size_t)me * (SEGSIZE / 32);
      t_fill(src, lsizes[k], 99u * k + me);
      if (k % 2)
        T_CHECK(gasnet_AMRequestLong1(dest, 132, src, lsizes[k], dst, (gasnet_handlerarg_t)me));
      else
        T_CHECK(gasnet_AMRequestLongAsync1(dest, 132, src, lsizes[k], dst, (gasnet_handlerarg_t)me));
      sent_long++;
      GASNET_BLOCKUNTIL(__atomic_load_n(&replies_long, __ATOMIC_RELAXED) == sent_long);
    }
  }
  GASNET_BLOCKUNTIL(__atomic_load_n(&replies_short, __ATOMIC_RELAXED) == sent_short &&
                    __atomic_load_n(&replies_medium, __ATOMIC_RELAXED) == sent_medium);
  printf("node %u: %d Short, %d Medium, %d Long/LongAsync round trips with all %u nodes "
         "(self included) verified\n", (unsigned)me, sent_short, sent_medium, sent_long, (unsigned)n);
  /* This node's counters at run time (gasnet.h): what GASNET_STATSFILE would say. */
  uint64_t reqs = 0, none = 7;
  int sent = sent_short + sent_medium + sent_long;
  T_EXPECT(gasnetc_stat_get("core.requests_sent", &reqs) == 1 && reqs >= (uint64_t)sent,
           "gasnetc_stat_get(\"core.requests_sent\") = %llu, expected at least the %d sent here",
           (unsigned long long)reqs, sent);
  T_EXPECT(gasnetc_stat_get("core.no_such_counter", &none) == 0 &&
           gasnetc_stat_get("core.requests", &none) == 0 && none == 7,
           "gasnetc_stat_get of unknown names: expected 0 and the value untouched (7), got %llu",
           (unsigned long long)none);
  if (me == 0)
    printf("node 0: gasnetc_stat_get: core.requests_sent %llu >= %d sent; unknown names 0\n",
           (unsigned long long)reqs, sent);
  t_barrier();
  gasnet_hsl_lock(&lock);
  int handled = sum_from_handlers;
  gasnet_hsl_unlock(&lock);
  T_EXPECT(handled == (int)n && requests_seen == (int)n,
           "short requests handled %d, expected one from each of %u nodes", handled, (unsigned)n);
  printf("node %u: handled %d Short requests under an HSL, expected %u\n", (unsigned)me, handled, (unsigned)n);
  fflush(stdout);
  t_barrier();
  free(src);
  gasnet_exit(0);
}
