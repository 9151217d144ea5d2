/*
 * spawn_coll.c - the bootstrap collectives at one node of the tree.
 *
 * Every collective (exchange, broadcast, barrier) is a gather up the tree
 * then one result down: a node waits for a contribution from each of its own
 * ranks and each child relay (which covers that relay's whole subtree, a
 * range of consecutive ranks), then passes the combination up, or, at the
 * root, sends the result frame (deflated once) to every rank and relay
 * below; relays forward it verbatim. Ranks make collectives one at a time in
 * the same order, so a node has at most one in progress.
 */
#include "spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *spawn_coll_name(uint32_t op)
{
  return op == SPAWN_OP_EXCHANGE ? "exchange" : op == SPAWN_OP_BCAST ? "broadcast"
       : op == SPAWN_OP_BARRIER ? "barrier" : "?";
}

/* "barrier", "exchange(8 bytes)", "broadcast(8 bytes from rank 2)" */
static void coll_describe(char *out, size_t len, uint32_t op, uint32_t bytes, uint32_t root)
{
  if (op == SPAWN_OP_BARRIER) snprintf(out, len, "barrier");
  else if (op == SPAWN_OP_BCAST) snprintf(out, len, "broadcast(%u bytes from rank %u)", (unsigned)bytes, (unsigned)root);
  else snprintf(out, len, "%s(%u bytes)", spawn_coll_name(op), (unsigned)bytes);
}

static void coll_complete(spawn_node_t *n)
{
  spawn_cfg_t *c = n->cfg;
  size_t dlen = n->coll.op == SPAWN_OP_EXCHANGE ? (size_t)c->sub_n * n->coll.len
              : n->coll.op == SPAWN_OP_BCAST ? n->coll.len : 0;
  if (n->is_root) {
    /* the whole job has arrived: one result frame, deflated once, to all */
    spawn_msg_t *m = spawn_msg_frame(SPAWN_COLL_RESULT, n->coll.op, n->coll.len, n->coll.buf, dlen);
    for (uint32_t i = 0; i < c->n && n->ranks; i++) spawn_conn_send(n->ranks[i].conn, m);
    for (uint32_t i = 0; i < n->nkids; i++) spawn_conn_send(n->kids[i].conn, m);
    spawn_msg_unref(m);
  } else {
    spawn_buf_t b = {0};
    uint32_t lo = n->coll.op == SPAWN_OP_BCAST ? n->coll.root : c->sub_lo;
    if (n->coll.op == SPAWN_OP_BCAST && !(n->coll.root >= c->sub_lo && n->coll.root - c->sub_lo < c->sub_n))
      dlen = 0;
    spawn_coll_encode(&b, lo, c->sub_n, n->coll.buf, dlen);
    spawn_conn_send_frame(n->parent, SPAWN_COLL, n->coll.op, n->coll.len, b.p, b.len);
    spawn_buf_free(&b);
  }
  free(n->coll.buf);
  n->coll.buf = NULL;
  n->coll.active = 0;
}

/*
 * A contribution from one of our ranks (count 1) or kids (their subtree):
 * `lo` is the first rank covered (exchange) or the root (broadcast). Returns
 * 0, or -1 after reporting a mismatch.
 */
static int coll_add(spawn_node_t *n, const char *who, uint32_t *gen, uint32_t op, uint32_t len,
                    uint32_t lo, uint32_t count, uint32_t first, const uint8_t *data, size_t dlen)
{
  spawn_cfg_t *c = n->cfg;
  if (op < SPAWN_OP_EXCHANGE || op > SPAWN_OP_BARRIER) {
    spawn_node_fail(n, "%s sent an unknown collective %u", who, (unsigned)op);
    return -1;
  }
  if (!n->coll.active) {
    size_t need = op == SPAWN_OP_EXCHANGE ? (size_t)c->sub_n * len : op == SPAWN_OP_BCAST ? len : 0;
    if (need > SPAWN_MAX_RAW) { spawn_node_fail(n, "%s: collective of %zu bytes is too large", who, need); return -1; }
    n->coll.active = 1;
    n->coll.op = op; n->coll.len = len; n->coll.root = op == SPAWN_OP_BCAST ? lo : 0;
    n->coll.arrived = 0;
    n->coll.gen++;
    n->coll.buf = calloc(1, need ? need : 1);
  }
  if (op != n->coll.op || len != n->coll.len || (op == SPAWN_OP_BCAST && lo != n->coll.root)) {
    char mine[64], theirs[64];
    coll_describe(mine, sizeof mine, op, len, lo);
    coll_describe(theirs, sizeof theirs, n->coll.op, n->coll.len, n->coll.root);
    spawn_node_fail(n, "collective mismatch: %s called %s while others called %s", who, mine, theirs);
    return -1;
  }
  if (*gen == n->coll.gen) { spawn_node_fail(n, "%s entered one collective twice", who); return -1; }
  size_t want = 0;
  if (op == SPAWN_OP_EXCHANGE) {
    want = (size_t)count * len;
    if (lo != first) { spawn_node_fail(n, "%s: exchange for the wrong ranks", who); return -1; }
  } else if (op == SPAWN_OP_BCAST) {
    if (lo >= c->size) { spawn_node_fail(n, "%s: broadcast root %u out of range", who, (unsigned)lo); return -1; }
    if (lo >= first && lo - first < count) want = len;
  }
  if (dlen != want) {
    spawn_node_fail(n, "%s: %s payload of %zu bytes, expected %zu", who, spawn_coll_name(op), dlen, want);
    return -1;
  }
  if (op == SPAWN_OP_EXCHANGE) memcpy(n->coll.buf + (size_t)(first - c->sub_lo) * len, data, dlen);
  else if (want) memcpy(n->coll.buf, data, dlen);
  *gen = n->coll.gen;
  if (++n->coll.arrived == c->n + n->nkids) coll_complete(n);
  return 0;
}

void spawn_coll_from(spawn_node_t *n, const char *who, uint32_t *gen, uint32_t first, uint32_t count,
                      const spawn_hdr_t *h, const uint8_t *p, size_t len)
{
  spawn_coll_part_t part;
  if (spawn_coll_decode(p, len, &part) < 0) { spawn_node_fail(n, "%s: short collective frame", who); return; }
  if (part.count != count) {
    spawn_node_fail(n, "%s: collective covers %u ranks, expected %u", who, (unsigned)part.count, (unsigned)count);
    return;
  }
  coll_add(n, who, gen, h->a, h->b, part.lo, count, first, part.data, part.dlen);
}
