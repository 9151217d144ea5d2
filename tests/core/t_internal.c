/*
 * t_internal.c - the core's internal contracts of issue 11, through its
 * internal API (core/gasnetc_internal.h), on any number of nodes:
 *  - handlers registered in EP 0 after gasnet_attach (gasnetc_ep_register):
 *    index 0 takes the lowest free index of the range, in table order, the
 *    index is written back, and a taken index is refused with nothing
 *    registered;
 *  - buffer lending (gasnetc_route_prepare / _commit): a Medium request
 *    whose payload is written straight into the buffer the transport lends
 *    (16-byte aligned), of 0 B to gasnet_AMMaxMedium(), to the next node
 *    (itself on 1 node: the core's loopback lends its own buffer);
 *    the handler gets it 16-aligned and intact and replies with its sum.
 * Prints what it compared; exits 0 when all matched.
 */
#include "t_util.h"
#include "gasnetc_internal.h"

static volatile int got_replies;
static volatile uint32_t reply_sum;

static uint32_t t_sum(const unsigned char *p, size_t n) {
  uint32_t s = 0;
  for (size_t i = 0; i < n; i++) s = s * 31 + p[i];
  return s;
}

static void req_lent(gasnet_token_t token, void *buf, size_t n, gasnet_handlerarg_t len) {
  T_EXPECT((size_t)len == n, "lent medium of %zu bytes, sender said %d", n, len);
  T_EXPECT(((uintptr_t)buf & 15) == 0 || n == 0, "lent medium buffer %p not 16-aligned", buf);
  T_EXPECT(t_verify(buf, n), "lent medium payload of %zu bytes corrupt", n);
  T_CHECK(gasnet_AMReplyShort1(token, 128, (gasnet_handlerarg_t)t_sum(buf, n)));
}
static void rep_sum(gasnet_token_t token, gasnet_handlerarg_t sum) {
  (void)token;
  reply_sum = (uint32_t)sum;
  __atomic_fetch_add(&got_replies, 1, __ATOMIC_RELEASE);
}

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  gasnet_handlerentry_t table[] = { T_BARRIER_HANDLERS };
  T_CHECK(gasnet_attach(table, 2, 0, 0));
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes(), next = (me + 1) % n;

  /* Registration after attach: two "any index" entries take 128 and 129,
   * the lowest free ones, in table order. */
  gasnet_handlerentry_t late[] = { { 0, (void (*)())rep_sum }, { 0, (void (*)())req_lent } };
  T_CHECK(gasnetc_ep_register(&gasnetc_g.ep0, late, 2, GASNETC_HANDLER_CLIENT_FIRST,
                              GASNETC_HANDLER_CLIENT_LAST, "t_internal"));
  printf("node %u: late handlers got %u %u (want 128 129)\n", (unsigned)me,
         (unsigned)late[0].index, (unsigned)late[1].index);
  T_EXPECT(late[0].index == 128 && late[1].index == 129, "late indexes %u %u",
           (unsigned)late[0].index, (unsigned)late[1].index);
  gasnet_handlerentry_t taken[] = { { 0, (void (*)())rep_sum }, { 128, (void (*)())rep_sum } };
  int rc = gasnetc_ep_register(&gasnetc_g.ep0, taken, 2, GASNETC_HANDLER_CLIENT_FIRST,
                               GASNETC_HANDLER_CLIENT_LAST, "t_internal");
  printf("node %u: registering taken index 128: rc %d (want %d), entry 0 index %u (want 0)\n",
         (unsigned)me, rc, GASNET_ERR_BAD_ARG, (unsigned)taken[0].index);
  T_EXPECT(rc == GASNET_ERR_BAD_ARG && taken[0].index == 0 && !gasnetc_g.ep0.handlers[130],
           "a refused registration registered something");
  t_barrier(); /* every node has 128/129 before anyone sends */

  /* Lending: payload written in place, header committed after. */
  const size_t sizes[] = { 0, 1, 15, 16, 1000, 4096, 65535, GASNETC_AM_MAX_MEDIUM };
  int checked = 0;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t len = sizes[k];
    gasnetc_lend_t lend = { .dest = next, .flags = 0 };
    T_CHECK(gasnetc_route_prepare(&lend, len));
    T_EXPECT(((uintptr_t)lend.buf & 15) == 0 && lend.cap >= len,
             "lent buffer %p of %zu bytes for %zu", lend.buf, lend.cap, len);
    t_fill(lend.buf, len, (uint32_t)(me * 1000 + k));
    uint32_t want = t_sum(lend.buf, len);
    uint8_t hdr[GASNETC_WIRE_MAX_LEN];
    int32_t arg = (int32_t)len;
    gasnetc_wire_msg_t m = { .category = GASNETC_WIRE_MEDIUM, .handler = 129, .nargs = 1 };
    size_t hl = gasnetc_wire_encode(hdr, &m, &arg);
    int before = got_replies;
    T_CHECK(gasnetc_route_commit(&lend, hdr, hl, len));
    GASNET_BLOCKUNTIL(got_replies > before);
    T_EXPECT(reply_sum == want, "lent medium of %zu bytes: sum %08x, want %08x", len,
             (unsigned)reply_sum, (unsigned)want);
    checked++;
  }
  printf("node %u: %d lent Mediums of 0..%u bytes to node %u verified\n", (unsigned)me,
         checked, GASNETC_AM_MAX_MEDIUM, (unsigned)next);
  t_barrier();
  gasnet_exit(0);
  return 0;
}
