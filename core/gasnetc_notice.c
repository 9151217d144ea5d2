/*
 * gasnetc_notice.c - notices (transport.h): a few words sent once, which a
 * transport may lose, for the extensions that repair their own losses.
 *
 *   gasnetc_notice_register(kind, fn)  who gets the notices of one kind
 *   gasnetc_notice_send(node, kind, w) one notice, through node's transport
 *                                      if it carries them (-ENOTSUP if not:
 *                                      the caller sends a frame instead)
 *   gasnetc_notices_to(node)           1 if node's transport carries them
 *   gasnetc_notice_cb                  every transport's cfg.notice
 *
 * The core names none of its clients: an extension numbers its kinds
 * itself (gasnetc_ext.h) and registers them at connect; the core routes
 * a notice to the fn of its kind. A notice is handed over like a frame,
 * with no transport lock held, and counts as a frame delivered for the
 * wait that polled it.
 */
#include <errno.h>

#include "gasnetc_internal.h"

_Static_assert(GASNETC_NOTICE_NWORDS == GASNETC_NOTICE_WORDS, "one notice size");

static gasnetc_notice_fn gasnetc_notice_fns[GASNETC_NOTICE_KINDS];

/* Two owners of one kind would each get the other's words as theirs. */
void gasnetc_notice_register(unsigned kind, gasnetc_notice_fn fn) {
  if (kind == 0 || kind >= GASNETC_NOTICE_KINDS || !fn)
    gasnetc_fatal("internal: notice kind %u registered (1..%d, with a function)", kind,
                  GASNETC_NOTICE_KINDS - 1);
  if (gasnetc_notice_fns[kind] && gasnetc_notice_fns[kind] != fn)
    gasnetc_fatal("internal: notice kind %u registered by two extensions", kind);
  gasnetc_notice_fns[kind] = fn;
}

int gasnetc_notices_to(gasnet_node_t node) {
  return node != gasnetc_g.mynode && gasnetc_route_tp(node)->ops->notice != NULL;
}

GASNETI_HOT
int gasnetc_notice_send(gasnet_node_t node, unsigned kind, const uint32_t *w) {
  if (!gasnetc_notices_to(node)) return -ENOTSUP;
  const gasnetc_tp_t *tp = gasnetc_route_tp(node);
  gasnetc_notice_t n = { .kind = (uint16_t)kind };
  for (int i = 0; i < GASNETC_NOTICE_WORDS; i++) n.w[i] = w[i];
  GASNETC_STAT_ADD(notices_sent, 1);
  return tp->ops->notice(tp->t, node, &n);
}

/* A kind nobody registered here comes from a rank of this job (the
 * transport authenticates it) before this rank registered it, or from a
 * newer build: dropped (its sender repairs the loss of any notice). */
void gasnetc_notice_cb(void *ctx, uint32_t src, const gasnetc_notice_t *n) {
  (void)ctx;
  gasnetc_notice_fn fn = n->kind < GASNETC_NOTICE_KINDS ? gasnetc_notice_fns[n->kind] : NULL;
  GASNETC_STAT_ADD(notices_received, 1);
  if (fn) fn((gasnet_node_t)src, n->w);
}
