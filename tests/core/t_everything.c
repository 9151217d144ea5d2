/*
 * t_everything.c - GASNET_SEGMENT_EVERYTHING (spec 2.1): the segment is the
 * whole address space. getMaxLocalSegmentSize() is -1, getSegmentInfo gives
 * {0, (uintptr_t)-1} for every node, and a Long may target any address, here
 * a static array of the neighbour (same program, so the same address is
 * valid there only if the layout matches: we ask the neighbour for it first).
 * Then the extended API to the same array: put, get, memset, get_val; to a
 * neighbour on this host they go through AMs (nothing is mapped with
 * EVERYTHING, docs/api.md "Segments"), over the shared-memory transport or,
 * with GASNET_SUPERNODE_MAXSIZE=1, the network.
 * Built by t-modes.sh against a library configured for EVERYTHING.
 */
#include "t_util.h"

static char target[1 << 16];
static volatile uintptr_t peer_addr;
static volatile int got_long, got_ack;

static void req_addr(gasnet_token_t token) {
  uintptr_t a = (uintptr_t)target;
  gasnet_AMReplyShort2(token, 129, (gasnet_handlerarg_t)(uint32_t)a, (gasnet_handlerarg_t)(uint32_t)(a >> 32));
}
static void rep_addr(gasnet_token_t token, gasnet_handlerarg_t lo, gasnet_handlerarg_t hi) {
  (void)token;
  peer_addr = (uintptr_t)(uint32_t)lo | (uintptr_t)(uint32_t)hi << 32;
}
static void req_long(gasnet_token_t token, void *buf, size_t n) {
  T_EXPECT(buf == target && t_verify(buf, n), "Long landed at %p (target %p) or corrupt", buf, (void *)target);
  got_long = 1;
  gasnet_AMReplyShort0(token, 131);
}
static void rep_ack(gasnet_token_t token) { (void)token; got_ack = 1; }

int main(int argc, char **argv) {
  T_CHECK(gasnet_init(&argc, &argv));
  T_EXPECT(gasnet_getMaxLocalSegmentSize() == (uintptr_t)-1, "max local segment %lu",
           (unsigned long)gasnet_getMaxLocalSegmentSize());
  gasnet_handlerentry_t table[] = { { 128, (void (*)())req_addr }, { 129, (void (*)())rep_addr },
                                    { 130, (void (*)())req_long }, { 131, (void (*)())rep_ack },
                                    T_BARRIER_HANDLERS };
  T_CHECK(gasnet_attach(table, 6, 12345 /* ignored */, 0));
  gasnet_seginfo_t si[2];
  T_CHECK(gasnet_getSegmentInfo(si, 1));
  T_EXPECT(si[0].addr == 0 && si[0].size == (uintptr_t)-1, "segment {%p, %lu}", si[0].addr,
           (unsigned long)si[0].size);
  gasnet_node_t right = (gasnet_mynode() + 1) % gasnet_nodes();
  gasnet_AMRequestShort0(right, 128);
  GASNET_BLOCKUNTIL(peer_addr != 0);
  static char src[1 << 16];
  t_fill(src, sizeof src, 1234 + gasnet_mynode());
  gasnet_AMRequestLong0(right, 130, src, sizeof src, (void *)peer_addr);
  GASNET_BLOCKUNTIL(got_ack && got_long);
  t_barrier(); /* both Longs checked: the arrays may be overwritten */
  static char back[1 << 16];
  t_fill(src, sizeof src, 777 + gasnet_mynode());
  gasnet_put(right, (void *)peer_addr, src, sizeof src);
  gasnet_get(back, right, (void *)peer_addr, sizeof back);
  T_EXPECT(!memcmp(back, src, sizeof src), "gasnet_get of node %u's array after gasnet_put differs",
           (unsigned)right);
  gasnet_memset(right, (void *)(peer_addr + 100), 0x5a, 200);
  gasnet_register_value_t v = gasnet_get_val(right, (void *)(peer_addr + 150), 8);
  T_EXPECT(v == (gasnet_register_value_t)0x5a5a5a5a5a5a5a5aull, "gasnet_get_val after memset: %#llx",
           (unsigned long long)v);
  printf("node %u: EVERYTHING: segment {0, -1}; a %zu-byte Long, put, get, memset and get_val "
         "to node %u's static array verified\n", (unsigned)gasnet_mynode(), sizeof src,
         (unsigned)right);
  fflush(stdout);
  t_barrier();
  gasnet_exit(0);
}
