/*
 * gasnetc_am.c - sending Active Messages (spec 2.3.3, 2.3.4): the two
 * functions behind every gasnet_AMRequest*M / gasnet_AMReply*M, the checks
 * that turn misuse into a fatal error naming the call, tokens and the reply
 * rules, and loopback (a node sending to itself), which the core does itself:
 * the handler runs synchronously inside the call, as spec 2.4.1 allows for
 * replies and 1.9 requires for every call. Then GASNet-EX's fixed-payload
 * and negotiated-payload (Prepare/Commit) AMs over the same send.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gasnetc_internal.h"

static const char *const gasnetc_category_names[] = {
  [GASNETC_AM_SHORT] = "Short", [GASNETC_AM_MEDIUM] = "Medium",
  [GASNETC_AM_LONG] = "Long", [GASNETC_AM_LONGASYNC] = "LongAsync",
};

/* Which public family a call belongs to, for its name in messages. */
enum {
  GASNETC_NAME_G1 = 0,      /* gasnet_AMRequestLong3 */
  GASNETC_NAME_EX = 1,      /* gex_AM_RequestLong3 */
  GASNETC_NAME_PREPARE = 2, /* gex_AM_PrepareRequestLong (numargs is an argument) */
  GASNETC_NAME_COMMIT = 3,  /* gex_AM_CommitRequestLong3 */
};

/* The public name of the call being checked. */
static const char *gasnetc_am_name(char *buf, size_t len, int ex, int is_request,
                                   int category, int nargs) {
  static const char *const prefix[] = {"gasnet_AM", "gex_AM_", "gex_AM_Prepare", "gex_AM_Commit"};
  const char *cat = category >= GASNETC_AM_SHORT && category <= GASNETC_AM_LONGASYNC
                        ? gasnetc_category_names[category] : "?";
  if (ex == GASNETC_NAME_PREPARE)
    snprintf(buf, len, "%s%s%s", prefix[ex], is_request ? "Request" : "Reply", cat);
  else
    snprintf(buf, len, "%s%s%s%d", prefix[ex & 3], is_request ? "Request" : "Reply", cat, nargs);
  return buf;
}

#define GASNETC_AM_FATAL(fmt, ...)                                        \
  do {                                                                    \
    char name_[48];                                                       \
    gasnetc_fatal("%s: " fmt,                                             \
                  gasnetc_am_name(name_, sizeof name_, ex, is_request,    \
                                  category, nargs), __VA_ARGS__);         \
  } while (0)

/* Spec 2.3.3 / 2.3.4 / 2.4: the calling context. Cold: called only when a
 * fast check sees a problem. */
static void gasnetc_am_check_context(int ex, int is_request, int category, int nargs)
    __attribute__((noinline, cold));
static void gasnetc_am_check_context(int ex, int is_request, int category, int nargs) {
  gasnetc_thread_t *th = &gasnetc_thread;
  if (!gasnetc_g.attached) {
    char name[48];
    gasnetc_not_ready(gasnetc_am_name(name, sizeof name, ex, is_request, category, nargs), 1);
  }
  if (category < GASNETC_AM_SHORT || category > GASNETC_AM_LONGASYNC ||
      nargs < 0 || nargs > GASNETC_AM_MAX_ARGS)
    GASNETC_AM_FATAL("bad category %d or argument count", category);
  if (th->sd.open) {
    /* gasnet-ex-api.txt, negotiated-payload AMs: "Prepare/commit pairs do
     * not nest", and between the two "all communication calls are
     * prohibited" (the restrictions of a reply handler). */
    char prep[48];
    GASNETC_AM_FATAL("called between %s and its Commit on this thread (Prepare/Commit pairs "
                     "do not nest, and no communication call may come between them: %s)",
                     gasnetc_am_name(prep, sizeof prep, GASNETC_NAME_PREPARE, th->sd.is_request,
                                     th->sd.category, th->sd.nargs),
                     "gasnet-ex-api.txt, negotiated-payload AMs");
  }
  if (is_request && th->token)
    GASNETC_AM_FATAL("called inside an AM handler; handlers may only reply "
                     "(spec %s)", "2.4.1");
  if (is_request && th->nis)
    GASNETC_AM_FATAL("called inside a No-Interrupt Section (spec %s)", "2.4.3");
  if (th->hsl_depth)
    GASNETC_AM_FATAL("called while holding %d HSL(s) (spec %s)", th->hsl_depth,
                     "2.4.5");
}

/* A Long's destination lies in the target EP's segment: the bound one of
 * this process's EP, or the one its rank published for that index. A
 * non-primordial EP not published here is checked where the message
 * arrives only. */
static inline int gasnetc_am_long_ok(gasnet_node_t dest, const gasnetc_pair_t *via,
                                     const void *addr, size_t n) {
  if (dest == gasnetc_g.mynode) {
    const gasnetc_ep_t *ep = gasnetc_ep_at(via->remote);
    return !ep || gasnetc_ep_contains(ep, addr, n); /* no EP: named by gasnetc_am_check */
  }
  if (via->remote && gasnetc_epview(via->remote)->seg[dest].size == 0) return 1;
  return gasnetc_segment_contains(via->remote, dest, addr, n);
}

/* The context, then the arguments. */
static void gasnetc_am_check(int ex, int is_request, int category, gasnet_node_t dest,
                             const gasnetc_pair_t *via, gasnet_handler_t handler,
                             const void *src, size_t nbytes, void *dest_addr, int nargs)
    __attribute__((noinline, cold));
static void gasnetc_am_check(int ex, int is_request, int category, gasnet_node_t dest,
                             const gasnetc_pair_t *via, gasnet_handler_t handler,
                             const void *src, size_t nbytes, void *dest_addr, int nargs) {
  gasnetc_am_check_context(ex, is_request, category, nargs);
  if (dest >= gasnetc_g.nodes)
    GASNETC_AM_FATAL("node %u does not exist (the job has %u nodes)",
                     (unsigned)dest, (unsigned)gasnetc_g.nodes);
  if (handler == 0)
    GASNETC_AM_FATAL("handler %u is not registered on node %u (spec 2.3)",
                     (unsigned)handler, (unsigned)dest);
  if (category == GASNETC_AM_MEDIUM && nbytes > GASNETC_AM_MAX_MEDIUM)
    GASNETC_AM_FATAL("payload of %zu bytes is above gasnet_AMMaxMedium() = %u",
                     nbytes, GASNETC_AM_MAX_MEDIUM);
  if (category >= GASNETC_AM_LONG && nbytes > GASNETC_AM_MAX_LONG)
    GASNETC_AM_FATAL("payload of %zu bytes is above gasnet_AMMaxLong%s() = %u",
                     nbytes, is_request ? "Request" : "Reply",
                     GASNETC_AM_MAX_LONG);
  if (nbytes && !src && category != GASNETC_AM_SHORT)
    GASNETC_AM_FATAL("NULL source_addr for %zu bytes", nbytes);
  if (dest == gasnetc_g.mynode && !gasnetc_ep_at(via->remote))
    GASNETC_AM_FATAL("EP %u of node %u (this one) does not exist", via->remote, (unsigned)dest);
  if (category >= GASNETC_AM_LONG && !gasnetc_am_long_ok(dest, via, dest_addr, nbytes)) {
    char seg[80];
    gasnetc_segment_format(via->remote, dest, seg, sizeof seg);
    if (via->remote == 0)
      GASNETC_AM_FATAL("destination [%p,+%zu) outside node %u's segment %s", dest_addr, nbytes,
                       (unsigned)dest, seg);
    GASNETC_AM_FATAL("destination [%p,+%zu) outside the segment of node %u's EP %u %s",
                     dest_addr, nbytes, (unsigned)dest, via->remote, seg);
  }
}

/* The context checks' fast form: any doubt goes to gasnetc_am_check_context. */
static inline int gasnetc_am_context_suspect(const gasnetc_thread_t *th, int is_request) {
  return !gasnetc_g.attached || (is_request && (th->token || th->nis)) || th->hsl_depth ||
         th->sd.open;
}

/* Run the handler here and now (dest == this node), in EP m->dst_ep. */
static void gasnetc_am_loopback(const gasnetc_wire_msg_t *m, const void *src,
                                size_t nbytes, void *dest_addr) {
  void *buf = NULL;
  if (m->category == GASNETC_WIRE_MEDIUM) {
    /* The handler gets aligned temporary storage it may scribble on, never
     * the sender's memory (spec 2.3.3.2). */
    buf = gasnetc_thread_buf(gasnetc_handler_depth());
    if (nbytes) memcpy(buf, src, nbytes);
  } else if (m->category == GASNETC_WIRE_LONG) {
    buf = dest_addr;
    if (nbytes && src != dest_addr) memmove(dest_addr, src, nbytes);
  }
  GASNETC_STAT_ADD(loopback_msgs, 1);
  if (GASNETC_TRACING('A'))
    gasnetc_trace_am_recv(!(m->flags & GASNETC_WIRE_F_REPLY), m->category, gasnetc_g.mynode,
                          m->handler, nbytes);
  gasnetc_handler_run(gasnetc_ep_at(m->dst_ep), gasnetc_g.mynode, m, buf, nbytes);
}

/* t: when the send began, if A is traced (GASNETC_AM_T0), else 0. */
static inline void gasnetc_am_count(int is_request, size_t nbytes, const gasnetc_wire_msg_t *m,
                                    gasnet_node_t dest, uint64_t t) {
  if (is_request) GASNETC_STAT_ADD(requests_sent, 1);
  else GASNETC_STAT_ADD(replies_sent, 1);
  GASNETC_STAT_ADD(payload_bytes_sent, nbytes);
  if (GASNETC_UNLIKELY(t)) gasnetc_trace_am_send(t, is_request, m->category, dest, m->handler, nbytes);
}
/* A send is traced when it is sure (after the transport took it), with the
 * time it began: a reply may be handled before the call returns. */
#define GASNETC_AM_T0() (GASNETC_TRACING('A') ? gasneti_now_ns() : 0)

/* The decoded header of a message (args copied by the caller, if needed). */
static inline void gasnetc_am_msg(gasnetc_wire_msg_t *m, int is_request, int category,
                                  const gasnetc_pair_t *via, gasnet_handler_t handler,
                                  void *dest_addr, int nargs) {
  m->category = category == GASNETC_AM_SHORT    ? GASNETC_WIRE_SHORT
                : category == GASNETC_AM_MEDIUM ? GASNETC_WIRE_MEDIUM
                                                : GASNETC_WIRE_LONG;
  m->handler = handler;
  m->nargs = (uint8_t)nargs;
  m->flags = (is_request ? 0 : GASNETC_WIRE_F_REPLY) |
             (category == GASNETC_AM_LONGASYNC ? GASNETC_WIRE_F_ASYNC : 0);
  m->dst_ep = (uint8_t)via->remote;
  m->src_ep = (uint8_t)via->ep->index;
  m->dest = m->category == GASNETC_WIRE_LONG ? (uintptr_t)dest_addr : 0;
}

/* A transport failed to send (rc < 0): fatal, unless the job is ending. */
static int gasnetc_am_send_failed(int ex, int is_request, int category, int nargs,
                                  gasnet_node_t dest, int rc) {
  if (rc == -EPIPE &&
      (__atomic_load_n(&gasnetc_g.remote_exit, __ATOMIC_ACQUIRE) ||
       __atomic_load_n(&gasnetc_g.exiting, __ATOMIC_ACQUIRE)))
    return GASNET_OK; /* the job is ending anyway */
  char name[48];
  gasnetc_fatal("%s: sending to node %u failed: %s",
                gasnetc_am_name(name, sizeof name, ex, is_request, category, nargs),
                (unsigned)dest, rc == -EPIPE ? "the node is dead" : strerror(-rc));
}

/* ex: the family of the public call (GASNETC_NAME_*, for messages);
 * immediate: GEX_FLAG_IMMEDIATE, so return 1 without sending when the
 * transport has no room now; lc: gasnetc_route_send's (NULL: the payload
 * is reusable on return). */
GASNETI_HOT
static int gasnetc_am_send(int ex, int immediate, int is_request, int category,
                           gasnet_node_t dest, const gasnetc_pair_t *via,
                           gasnet_handler_t handler, const void *src, size_t nbytes,
                           void *dest_addr, int nargs, const gasnet_handlerarg_t *args,
                           uint32_t *lc) {
  gasnetc_thread_t *th = &gasnetc_thread;
  /* Fast checks; any doubt goes to gasnetc_am_check, which names the problem. */
  if (GASNETC_UNLIKELY(gasnetc_am_context_suspect(th, is_request) || dest >= gasnetc_g.nodes ||
                       (unsigned)nargs > GASNETC_AM_MAX_ARGS ||
                       handler == 0 ||
                       (category == GASNETC_AM_MEDIUM &&
                        nbytes > GASNETC_AM_MAX_MEDIUM) ||
                       (dest == gasnetc_g.mynode && !gasnetc_ep_at(via->remote)) ||
                       (category >= GASNETC_AM_LONG &&
                        (nbytes > GASNETC_AM_MAX_LONG ||
                         !gasnetc_am_long_ok(dest, via, dest_addr, nbytes))) ||
                       (nbytes && !src && category != GASNETC_AM_SHORT)))
    gasnetc_am_check(ex, is_request, category, dest, via, handler, src, nbytes, dest_addr,
                     nargs);

  gasnetc_wire_msg_t m;
  gasnetc_am_msg(&m, is_request, category, via, handler, dest_addr, nargs);
  if (m.category == GASNETC_WIRE_SHORT) nbytes = 0;
  uint64_t t0 = GASNETC_AM_T0();
  if (dest == gasnetc_g.mynode) {
    gasnetc_am_count(is_request, nbytes, &m, dest, t0);
    if (nargs) memcpy(m.args, args, (size_t)nargs * sizeof m.args[0]);
    gasnetc_am_loopback(&m, src, nbytes, dest_addr);
    return GASNET_OK;
  }

  uint8_t hdr[GASNETC_WIRE_MAX_LEN];
  size_t hlen = gasnetc_wire_encode(hdr, &m, args);
  int rc = gasnetc_route_send(dest, hdr, hlen, nbytes ? src : NULL, nbytes,
                              (is_request ? 0 : GASNETC_SEND_REPLY) |
                              (immediate ? GASNETC_SEND_IMMEDIATE : 0), lc);
  if (rc == -EAGAIN && immediate) return 1; /* GEX_FLAG_IMMEDIATE: nothing sent */
  gasnetc_am_count(is_request, nbytes, &m, dest, t0);
  if (GASNETC_UNLIKELY(rc)) return gasnetc_am_send_failed(ex, is_request, category, nargs, dest, rc);
  return GASNET_OK;
}

GASNETI_HOT
int gasnetc_AMRequest(int category, gasnet_node_t dest, gasnet_handler_t handler,
                      void *src, size_t nbytes, void *dest_addr, int nargs,
                      const gasnet_handlerarg_t *args) {
  int rc = gasnetc_am_send(GASNETC_NAME_G1, 0, 1, category, dest, &gasnetc_g.ep0.pairs[0],
                           handler, src, nbytes, dest_addr, nargs, args, NULL);
  /* A request is a poll point outside handlers: honour a remote exit. */
  gasnetc_exit_check();
  return rc;
}

/* The checks of a reply's token (spec 2.3.4); marks it replied. */
GASNETI_HOT
static void gasnetc_am_reply_token(int ex, int category, gasnet_token_t token, int nargs) {
  const int is_request = 0;
  if (GASNETC_UNLIKELY(!token || token->magic != GASNETC_TOKEN_MAGIC))
    GASNETC_AM_FATAL("called outside a request handler or with a stale token "
                     "(spec %s)", "2.3.4");
  if (GASNETC_UNLIKELY(!token->is_request))
    GASNETC_AM_FATAL("called from a reply handler; reply handlers may not "
                     "send (spec %s)", "2.3");
  if (GASNETC_UNLIKELY(token->replied))
    GASNETC_AM_FATAL("second reply from one request handler (spec %s)",
                     "2.3.4");
  token->replied = 1;
}

GASNETI_HOT
int gasnetc_AMReply(int category, gasnet_token_t token, gasnet_handler_t handler,
                    void *src, size_t nbytes, void *dest_addr, int nargs,
                    const gasnet_handlerarg_t *args) {
  gasnetc_am_reply_token(GASNETC_NAME_G1, category, token, nargs);
  return gasnetc_am_send(GASNETC_NAME_G1, 0, 0, category, token->src,
                         &token->ep->pairs[token->src_ep], handler, src, nbytes, dest_addr,
                         nargs, args, NULL);
}

/* ---- GASNet-EX (gasnetex.h) ------------------------------------------------
 * The payload of a Medium or Long may be reused when the call returns, so
 * the local-completion event asked for through lc_opt is already complete:
 * an event pointer receives GEX_EVENT_INVALID; GEX_EVENT_NOW, _DEFER and
 * _GROUP need nothing more. */
static void gasnetc_am_lc_bad(int ex, int is_request, int category, int nargs,
                              gex_Event_t *lc_opt) __attribute__((noinline, cold, noreturn));
static void gasnetc_am_lc_bad(int ex, int is_request, int category, int nargs,
                              gex_Event_t *lc_opt) {
  GASNETC_AM_FATAL("lc_opt %s: pass GEX_EVENT_NOW%s or the address of a gex_Event_t "
                   "(gasnet-ex-api.txt, Active Messages NOTE 2: DEFER is prohibited, GROUP "
                   "for requests only)",
                   !lc_opt ? "is NULL" : lc_opt == GEX_EVENT_DEFER ? "is GEX_EVENT_DEFER"
                                                                  : "is GEX_EVENT_GROUP",
                   is_request ? ", GEX_EVENT_GROUP" : "");
}
/* Before the send: lc_opt is one the description allows. */
static inline void gasnetc_am_lc_check(int ex, int is_request, int category, int nargs,
                                       gex_Event_t *lc_opt) {
  if (category == GASNETC_AM_SHORT) return;
  if (GASNETC_UNLIKELY(!lc_opt || lc_opt == GEX_EVENT_DEFER ||
                       (!is_request && lc_opt == GEX_EVENT_GROUP)))
    gasnetc_am_lc_bad(ex, is_request, category, nargs, lc_opt);
}
/* The flags an AM call takes; PEER_NEVER_* are hints (valid for RMA, and
 * harmless here). The [UNIMPLEMENTED] ones are named as such. */
#define GASNETC_AM_FLAGS \
  (GEX_FLAG_IMMEDIATE | GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD)
static void gasnetc_am_flags_bad(int ex, int is_request, int category, int nargs,
                                 gex_Flags_t flags) __attribute__((noinline, cold, noreturn));
static void gasnetc_am_flags_bad(int ex, int is_request, int category, int nargs,
                                 gex_Flags_t flags) {
  if (flags & (GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO | GEX_FLAG_SELF_SEG_UNKNOWN |
               GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_SELF_SEG_SOME | GEX_FLAG_PEER_SEG_SOME |
               GEX_FLAG_SELF_SEG_BOUND | GEX_FLAG_PEER_SEG_BOUND | GEX_FLAG_SELF_SEG_OFFSET |
               GEX_FLAG_PEER_SEG_OFFSET))
    GASNETC_AM_FATAL("flags %#x include GEX_FLAG_LC_COPY_* or GEX_FLAG_*_SEG_*, which the "
                     "description marks [UNIMPLEMENTED]", (unsigned)flags);
  GASNETC_AM_FATAL("flags %#x: an AM takes only GEX_FLAG_IMMEDIATE (and the PEER_NEVER_* "
                   "hints)", (unsigned)flags);
}

/* After it: complete already (see above). */
static inline void gasnetc_am_lc(int category, gex_Event_t *lc_opt) {
  if (category != GASNETC_AM_SHORT && lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_GROUP)
    *lc_opt = GEX_EVENT_INVALID;
}

/* A client AM from an EP made without GEX_EP_CAPABILITY_AM (the
 * description: erroneous). The library's own handlers (RMA, VIS) go from
 * any EP. */
static void gasnetc_am_not_capable(int ex, int category, int nargs, const gasnetc_pair_t *via)
    __attribute__((noinline, cold, noreturn));
static void gasnetc_am_not_capable(int ex, int category, int nargs, const gasnetc_pair_t *via) {
  const int is_request = 1;
  GASNETC_AM_FATAL("the local EP %u was created without GEX_EP_CAPABILITY_AM", via->ep->index);
}
static inline void gasnetc_am_cap_check(int ex, int category, int nargs, const gasnetc_pair_t *via,
                                        gex_AM_Index_t handler) {
  if (GASNETC_UNLIKELY(handler >= GASNETC_HANDLER_CLIENT_FIRST &&
                       !(via->ep->caps & GEX_EP_CAPABILITY_AM)))
    gasnetc_am_not_capable(ex, category, nargs, via);
}

GASNETI_HOT
int gasnetc_AMRequestEx(int category, gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                        const void *src, size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                        gex_Flags_t flags, int nargs, const gex_AM_Arg_t *args) {
  gasnet_node_t dest = gasnetc_tm_rank_fast(tm, rank, gasnetc_g.nodes);
  if (GASNETC_UNLIKELY(dest == GEX_RANK_INVALID)) {
    char name[48]; /* names the problem */
    gasnetc_tm_jobrank(tm, rank,
                       gasnetc_am_name(name, sizeof name, GASNETC_NAME_EX, 1, category, nargs));
  }
  if (GASNETC_UNLIKELY(flags & ~GASNETC_AM_FLAGS))
    gasnetc_am_flags_bad(GASNETC_NAME_EX, 1, category, nargs, flags);
  gasnetc_am_lc_check(GASNETC_NAME_EX, 1, category, nargs, lc_opt);
  const gasnetc_pair_t *via = gasnetc_tm_via(tm);
  gasnetc_am_cap_check(GASNETC_NAME_EX, category, nargs, via, handler);
  int rc = gasnetc_am_send(GASNETC_NAME_EX, (flags & GEX_FLAG_IMMEDIATE) != 0, 1, category, dest,
                           via, handler, src, nbytes, dest_addr, nargs, args, NULL);
  if (rc == 0) gasnetc_am_lc(category, lc_opt);
  gasnetc_exit_check();
  return rc;
}

/* gasnetc_ext.h: a Long request whose source the transport may borrow. */
int gasnetc_am_request_long_lc(gex_TM_t pair, gasnet_node_t node, gex_AM_Index_t handler,
                               const void *src, size_t nbytes, void *dest_addr, gex_Flags_t flags,
                               uint32_t *lc, int nargs, const gex_AM_Arg_t *args) {
  if (GASNETC_UNLIKELY(flags & ~GASNETC_AM_FLAGS))
    gasnetc_am_flags_bad(GASNETC_NAME_EX, 1, GASNETC_AM_LONG, nargs, flags);
  int rc = gasnetc_am_send(GASNETC_NAME_EX, (flags & GEX_FLAG_IMMEDIATE) != 0, 1,
                           GASNETC_AM_LONG, node, gasnetc_tm_via(pair), handler, src, nbytes,
                           dest_addr, nargs, args, lc);
  gasnetc_exit_check();
  return rc;
}

GASNETI_HOT
int gasnetc_AMReplyEx(int category, gex_Token_t token, gex_AM_Index_t handler,
                      const void *src, size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                      gex_Flags_t flags, int nargs, const gex_AM_Arg_t *args) {
  /* a reply always has room (transport.h): IMMEDIATE never refuses it */
  gasnetc_am_reply_token(GASNETC_NAME_EX, category, token, nargs);
  if (GASNETC_UNLIKELY(flags & ~GASNETC_AM_FLAGS))
    gasnetc_am_flags_bad(GASNETC_NAME_EX, 0, category, nargs, flags);
  gasnetc_am_lc_check(GASNETC_NAME_EX, 0, category, nargs, lc_opt);
  int rc = gasnetc_am_send(GASNETC_NAME_EX, 0, 0, category, token->src,
                           &token->ep->pairs[token->src_ep], handler, src, nbytes, dest_addr,
                           nargs, args, NULL);
  gasnetc_am_lc(category, lc_opt);
  return rc;
}

/* ---- GASNet-EX negotiated-payload AMs (gasnetex.h) ---------------------------
 * gasnet-ex-api.txt, "Negotiated-payload Active Messages". Prepare checks
 * the context and the sizes, and takes a buffer: with client_buf NULL,
 * GASNet's (the transport's own through gasnetc_route_prepare where it has
 * one, amudp: the payload is then written once, by the client, and sent
 * from there; the core's otherwise and to this node); with client_buf, none,
 * except under GEX_FLAG_IMMEDIATE on a transport that lends, where taking
 * one is how to learn, without sending, whether there is room (it then gets
 * the copy the transport's send would have made). Commit builds the header
 * (handler, args and nbytes are known only then) and sends: the lent buffer
 * with the header beside it (transport.h commit), or client_buf through the
 * fixed-payload send. The SrcDesc is this thread's gasnetc_thread.sd. */

static gex_AM_SrcDesc_t gasnetc_am_prepare(int is_request, int category, gasnet_node_t dest,
                                           const gasnetc_pair_t *via,
                                           const void *client_buf, size_t least, size_t most,
                                           void *dest_addr, gex_Event_t *lc_opt,
                                           gex_Flags_t flags, unsigned numargs) {
  const int ex = GASNETC_NAME_PREPARE;
  const int nargs = numargs > GASNETC_AM_MAX_ARGS ? -1 : (int)numargs;
  gasnetc_thread_t *th = &gasnetc_thread;
  if (GASNETC_UNLIKELY(gasnetc_am_context_suspect(th, is_request) || nargs < 0))
    gasnetc_am_check_context(ex, is_request, category, nargs);
  /* least_payload "must not exceed the value of the gex_AM_Max[...]() call
   * with the analogous Prepare arguments"; most_payload "may exceed" it:
   * the size we give is capped there, what the target accepts. */
  size_t max = category == GASNETC_AM_MEDIUM ? GASNETC_AM_MAX_MEDIUM : GASNETC_AM_MAX_LONG;
  if (GASNETC_UNLIKELY(least > max))
    GASNETC_AM_FATAL("least_payload %zu is above gex_AM_Max%s%s() = %zu (%s)", least,
                     is_request ? "Request" : "Reply", gasnetc_category_names[category], max,
                     "gasnet-ex-api.txt, gex_AM_Prepare calls");
  if (GASNETC_UNLIKELY(most < least))
    GASNETC_AM_FATAL("most_payload %zu is below least_payload %zu (%s)", most, least,
                     "gasnet-ex-api.txt, gex_AM_Prepare calls");
  if (GASNETC_UNLIKELY(!client_buf && lc_opt))
    GASNETC_AM_FATAL("lc_opt must be NULL when client_buf is NULL (%s)",
                     "gasnet-ex-api.txt, gex_AM_Prepare calls");
  if (client_buf) gasnetc_am_lc_check(ex, is_request, category, nargs, lc_opt);
  size_t size = most < max ? most : max;

  /* Replies are never refused (transport.h), so IMMEDIATE can only refuse
   * a request; without it, route_prepare waits, making progress. */
  int immediate = is_request && (flags & GEX_FLAG_IMMEDIATE);
  gasnetc_lend_t lend = { .dest = dest,
                          .flags = (is_request ? 0 : GASNETC_SEND_REPLY) |
                                   (immediate ? GASNETC_SEND_IMMEDIATE : 0) };
  int self = dest == gasnetc_g.mynode, lent = 0, discard = 0;
  if (!client_buf || (immediate && !self && gasnetc_route_tp(dest)->ops->prepare)) {
    /* A local variable, not th->sd.lend: handlers run while this waits may
     * Prepare and Commit a reply of their own. */
    int rc = gasnetc_route_prepare(&lend, size);
    if (rc == -EAGAIN) return GEX_AM_SRCDESC_NO_OP; /* IMMEDIATE: nothing taken, nothing sent */
    if (GASNETC_UNLIKELY(rc)) {
      gasnetc_am_send_failed(ex, is_request, category, nargs, dest, rc); /* fatal, or: */
      /* the job is ending and the node is gone: a buffer of the core's
       * that Commit will drop */
      lend.dest = gasnetc_g.mynode;
      if (gasnetc_route_prepare(&lend, size))
        gasnetc_fatal("out of memory for a %zu-byte AM buffer", size);
      discard = 1;
    }
    lent = 1;
  }
  struct gasnetc_srcdesc *sd = &th->sd;
  sd->addr = client_buf ? (void *)client_buf : lend.buf;
  sd->size = size;
  sd->is_request = (uint8_t)is_request;
  sd->category = (uint8_t)category;
  sd->nargs = (uint8_t)nargs;
  sd->lent = (uint8_t)lent;
  sd->discard = (uint8_t)discard;
  sd->dest = dest;
  sd->via = via;
  sd->client_buf = client_buf;
  sd->dest_addr = category == GASNETC_AM_LONG ? dest_addr : NULL;
  sd->lc_opt = lc_opt;
  sd->lend = lend;
  sd->open = 1;
  return sd;
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                             size_t least_payload, size_t most_payload,
                                             gex_Event_t *lc_opt, gex_Flags_t flags,
                                             unsigned int numargs) {
  gasnet_node_t dest = gasnetc_tm_jobrank(tm, rank, "gex_AM_PrepareRequestMedium");
  return gasnetc_am_prepare(1, GASNETC_AM_MEDIUM, dest, gasnetc_tm_via(tm), client_buf,
                            least_payload, most_payload, NULL, lc_opt, flags, numargs);
}
gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           void *dest_addr, gex_Event_t *lc_opt,
                                           gex_Flags_t flags, unsigned int numargs) {
  gasnet_node_t dest = gasnetc_tm_jobrank(tm, rank, "gex_AM_PrepareRequestLong");
  return gasnetc_am_prepare(1, GASNETC_AM_LONG, dest, gasnetc_tm_via(tm), client_buf,
                            least_payload, most_payload, dest_addr, lc_opt, flags, numargs);
}
/* "Calls to Prepare are permitted in the same places as the corresponding
 * fixed-payload AM injection call": a reply's only in a request handler,
 * and the Prepare is that handler's one reply (Commit cannot fail). */
gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs) {
  gasnetc_am_reply_token(GASNETC_NAME_PREPARE, GASNETC_AM_MEDIUM, token, (int)numargs);
  return gasnetc_am_prepare(0, GASNETC_AM_MEDIUM, token->src, &token->ep->pairs[token->src_ep],
                            client_buf, least_payload, most_payload, NULL, lc_opt, flags,
                            numargs);
}
gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                         size_t least_payload, size_t most_payload,
                                         void *dest_addr, gex_Event_t *lc_opt,
                                         gex_Flags_t flags, unsigned int numargs) {
  gasnetc_am_reply_token(GASNETC_NAME_PREPARE, GASNETC_AM_LONG, token, (int)numargs);
  return gasnetc_am_prepare(0, GASNETC_AM_LONG, token->src, &token->ep->pairs[token->src_ep],
                            client_buf, least_payload, most_payload, dest_addr, lc_opt, flags,
                            numargs);
}

/* The SrcDesc given to a Commit or a query: this thread's, open. */
static void gasnetc_sd_check(const char *call, gex_AM_SrcDesc_t sd) __attribute__((cold));
static void gasnetc_sd_check(const char *call, gex_AM_SrcDesc_t sd) {
  gasnetc_thread_t *th = &gasnetc_thread;
  if (!sd)
    gasnetc_fatal("%s: the SrcDesc is GEX_AM_SRCDESC_NO_OP: nothing was prepared "
                  "(gasnet-ex-api.txt: it must not be passed to Commit or the queries)", call);
  if (sd != &th->sd)
    gasnetc_fatal("%s: not a SrcDesc of this thread (gasnet-ex-api.txt: it is "
                  "thread-specific, consumed by a Commit in the same thread)", call);
  if (!sd->open)
    gasnetc_fatal("%s: no Prepare is open on this thread (its SrcDesc was consumed by "
                  "a Commit already, or none was prepared)", call);
}

void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd) {
  if (GASNETC_UNLIKELY(sd != &gasnetc_thread.sd || !sd->open))
    gasnetc_sd_check("gex_AM_SrcDescAddr", sd);
  return sd->addr;
}
size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd) {
  if (GASNETC_UNLIKELY(sd != &gasnetc_thread.sd || !sd->open))
    gasnetc_sd_check("gex_AM_SrcDescSize", sd);
  return sd->size;
}

/* Commit's own checks: the SrcDesc, and that the call matches its Prepare. */
static void gasnetc_am_commit_check(int is_request, int category, gex_AM_SrcDesc_t sd,
                                    size_t nbytes, void *dest_addr, int nargs)
    __attribute__((noinline, cold));
static void gasnetc_am_commit_check(int is_request, int category, gex_AM_SrcDesc_t sd,
                                    size_t nbytes, void *dest_addr, int nargs) {
  const int ex = GASNETC_NAME_COMMIT;
  char name[48], prep[48];
  gasnetc_sd_check(gasnetc_am_name(name, sizeof name, ex, is_request, category, nargs), sd);
  gasnetc_am_name(prep, sizeof prep, GASNETC_NAME_PREPARE, sd->is_request, sd->category, sd->nargs);
  if (sd->is_request != is_request || sd->category != category)
    GASNETC_AM_FATAL("the open Prepare is %s", prep);
  if (sd->nargs != nargs)
    GASNETC_AM_FATAL("%d arguments, but %s said numargs %u (the number of args is fixed at "
                     "Prepare: %s)", nargs, prep, (unsigned)sd->nargs,
                     "gasnet-ex-api.txt, negotiated-payload AMs");
  if (nbytes > sd->size)
    GASNETC_AM_FATAL("nbytes %zu is above gex_AM_SrcDescSize() = %zu (%s)", nbytes, sd->size,
                     "gasnet-ex-api.txt, gex_AM_Commit calls");
  if (category == GASNETC_AM_LONG && sd->dest_addr && sd->dest_addr != dest_addr)
    GASNETC_AM_FATAL("dest_addr %p is not the %p given to %s (a non-NULL dest_addr at "
                     "Prepare must be passed again: %s)", dest_addr, sd->dest_addr, prep,
                     "gasnet-ex-api.txt, gex_AM_Prepare calls");
}

/* Returns non-zero only for a request under IMMEDIATE with no room for a
 * client_buf that had no buffer taken at Prepare (a lent buffer is room
 * already): nothing sent, the SrcDesc still open (spec v0.19, Commit_v2). */
static int gasnetc_am_commit(int is_request, int category, gex_AM_SrcDesc_t sd,
                             gasnet_handler_t handler, size_t nbytes, void *dest_addr,
                             int immediate, int nargs, const gasnet_handlerarg_t *args) {
  const int ex = GASNETC_NAME_COMMIT;
  gasnetc_thread_t *th = &gasnetc_thread;
  if (GASNETC_UNLIKELY(sd != &th->sd || !sd->open || sd->is_request != is_request ||
                       sd->category != category || sd->nargs != nargs || nbytes > sd->size ||
                       (category == GASNETC_AM_LONG && sd->dest_addr &&
                        sd->dest_addr != dest_addr)))
    gasnetc_am_commit_check(is_request, category, sd, nbytes, dest_addr, nargs);
  if (is_request) gasnetc_am_cap_check(ex, category, nargs, sd->via, handler);
  /* Consumed now: a handler run while this sends may Prepare its reply. */
  struct gasnetc_srcdesc d = *sd;
  sd->open = 0;
  gasnet_node_t dest = d.dest;
  if (!d.lent) {
    /* client_buf, no buffer taken: the fixed-payload send, which blocks
     * for room ("The Commit-time behavior is unaffected by" Prepare's
     * IMMEDIATE) unless the Commit itself says IMMEDIATE. */
    if (gasnetc_am_send(ex, immediate && is_request, is_request, category, dest, d.via, handler,
                        d.client_buf, nbytes, dest_addr, nargs, args, NULL)) {
      *sd = d; /* a handler run meanwhile used and closed th->sd for its own reply */
      return 1;
    }
  } else {
    if (GASNETC_UNLIKELY(handler == 0 ||
                         (dest == gasnetc_g.mynode && !gasnetc_ep_at(d.via->remote)) ||
                         (category == GASNETC_AM_LONG &&
                          !gasnetc_am_long_ok(dest, d.via, dest_addr, nbytes))))
      gasnetc_am_check(ex, is_request, category, dest, d.via, handler, d.lend.buf, nbytes,
                       dest_addr, nargs);
    if (d.client_buf && nbytes) memcpy(d.lend.buf, d.client_buf, nbytes);
    gasnetc_wire_msg_t m;
    gasnetc_am_msg(&m, is_request, category, d.via, handler, dest_addr, nargs);
    uint64_t t0 = GASNETC_AM_T0();
    if (GASNETC_UNLIKELY(d.discard)) {
      /* the job is ending and dest is gone: nothing to send */
    } else if (dest == gasnetc_g.mynode) {
      /* The core's buffer: the handler gets a copy (Medium) or the
       * destination (Long), as from a fixed-payload loopback. */
      gasnetc_am_count(is_request, nbytes, &m, dest, t0);
      if (nargs) memcpy(m.args, args, (size_t)nargs * sizeof m.args[0]);
      gasnetc_am_loopback(&m, d.lend.buf, nbytes, dest_addr);
    } else {
      uint8_t hdr[GASNETC_WIRE_MAX_LEN];
      size_t hlen = gasnetc_wire_encode(hdr, &m, args);
      int rc = gasnetc_route_commit(&d.lend, hdr, hlen, nbytes);
      gasnetc_am_count(is_request, nbytes, &m, dest, t0);
      if (GASNETC_UNLIKELY(rc)) gasnetc_am_send_failed(ex, is_request, category, nargs, dest, rc);
    }
  }
  /* client_buf was read (sent or copied): locally complete. */
  if (d.client_buf) gasnetc_am_lc(category, d.lc_opt);
  if (is_request) gasnetc_exit_check();
  return 0;
}

/* commit_flags: GEX_FLAG_IMMEDIATE only (the description: others are
 * undefined; here a fatal error naming them). */
static int gasnetc_commit_immediate(int is_request, int category, int nargs,
                                    gex_Flags_t commit_flags) {
  if (GASNETC_UNLIKELY(commit_flags & ~(gex_Flags_t)GEX_FLAG_IMMEDIATE)) {
    const int ex = GASNETC_NAME_COMMIT;
    GASNETC_AM_FATAL("commit_flags %#x: only GEX_FLAG_IMMEDIATE is defined (%s)",
                     (unsigned)commit_flags, "spec v0.19, gex_AM_Commit<XXX>[M]_v2 calls");
  }
  return commit_flags != 0;
}

int gasnetc_AMCommitRequestEx(int category, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                              size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                              int nargs, const gex_AM_Arg_t *args) {
  int imm = commit_flags ? gasnetc_commit_immediate(1, category, nargs, commit_flags) : 0;
  return gasnetc_am_commit(1, category, sd, handler, nbytes, dest_addr, imm, nargs, args);
}
int gasnetc_AMCommitReplyEx(int category, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                            size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                            int nargs, const gex_AM_Arg_t *args) {
  int imm = commit_flags ? gasnetc_commit_immediate(0, category, nargs, commit_flags) : 0;
  return gasnetc_am_commit(0, category, sd, handler, nbytes, dest_addr, imm, nargs, args);
}

/* gex_AM_Cancel*: the SrcDesc is consumed and a lent buffer given back; a
 * cancelled reply leaves the handler free to reply otherwise. */
static int gasnetc_am_cancel(const char *call, int is_request, int category,
                             gex_AM_SrcDesc_t sd, gex_Flags_t flags) {
  gasnetc_thread_t *th = &gasnetc_thread;
  if (GASNETC_UNLIKELY(sd != &th->sd || !sd->open)) gasnetc_sd_check(call, sd);
  if (sd->is_request != is_request || sd->category != category) {
    char prep[48];
    gasnetc_am_name(prep, sizeof prep, GASNETC_NAME_PREPARE, sd->is_request, sd->category,
                    sd->nargs);
    gasnetc_fatal("%s: the open Prepare is %s", call, prep);
  }
  if (flags)
    return gasnetc_soft_error(GASNET_ERR_BAD_ARG, call, "flags %#x: reserved, must be 0",
                              (unsigned)flags);
  sd->open = 0;
  if (sd->lent) gasnetc_route_cancel(&sd->lend);
  if (!is_request && th->token) th->token->replied = 0;
  return GASNET_OK;
}

int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags) {
  return gasnetc_am_cancel("gex_AM_CancelRequestMedium", 1, GASNETC_AM_MEDIUM, sd, flags);
}
int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags) {
  return gasnetc_am_cancel("gex_AM_CancelReplyMedium", 0, GASNETC_AM_MEDIUM, sd, flags);
}
int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags) {
  return gasnetc_am_cancel("gex_AM_CancelRequestLong", 1, GASNETC_AM_LONG, sd, flags);
}
int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags) {
  return gasnetc_am_cancel("gex_AM_CancelReplyLong", 0, GASNETC_AM_LONG, sd, flags);
}

int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex) {
  if (!token || token->magic != GASNETC_TOKEN_MAGIC)
    gasnetc_fatal("gasnet_AMGetMsgSource: not the token of a running handler "
                  "(spec 2.3.5.3)");
  if (!srcindex) return GASNET_ERR_BAD_ARG;
  *srcindex = token->src;
  return GASNET_OK;
}

/* ---- the varargs forms (GASNet-1 clients use them beyond spec 1.8) --------
 * gasnet_AMRequestShort(dest, handler, numargs, a0, ...): numargs, then as
 * many handler arguments. More than gasnet_AMMaxArgs() are never read; the
 * send's checks reject the count, naming the call. */
#define GASNETC_AM_VARGS(numargs)                                        \
  gasnet_handlerarg_t args_[GASNETC_AM_MAX_ARGS];                        \
  va_list ap_;                                                           \
  va_start(ap_, numargs);                                                \
  for (int i_ = 0; i_ < numargs && i_ < GASNETC_AM_MAX_ARGS; i_++)      \
    args_[i_] = (gasnet_handlerarg_t)va_arg(ap_, int);                   \
  va_end(ap_)

int gasnet_AMRequestShort(gasnet_node_t dest, gasnet_handler_t handler, int numargs, ...) {
  GASNETC_AM_VARGS(numargs);
  return gasnetc_AMRequest(GASNETC_AM_SHORT, dest, handler, 0, 0, 0, numargs, args_);
}
int gasnet_AMRequestMedium(gasnet_node_t dest, gasnet_handler_t handler, void *source_addr,
                           size_t nbytes, int numargs, ...) {
  GASNETC_AM_VARGS(numargs);
  return gasnetc_AMRequest(GASNETC_AM_MEDIUM, dest, handler, source_addr, nbytes, 0,
                           numargs, args_);
}
int gasnet_AMRequestLong(gasnet_node_t dest, gasnet_handler_t handler, void *source_addr,
                         size_t nbytes, void *dest_addr, int numargs, ...) {
  GASNETC_AM_VARGS(numargs);
  return gasnetc_AMRequest(GASNETC_AM_LONG, dest, handler, source_addr, nbytes, dest_addr,
                           numargs, args_);
}
int gasnet_AMRequestLongAsync(gasnet_node_t dest, gasnet_handler_t handler,
                              void *source_addr, size_t nbytes, void *dest_addr,
                              int numargs, ...) {
  GASNETC_AM_VARGS(numargs);
  return gasnetc_AMRequest(GASNETC_AM_LONGASYNC, dest, handler, source_addr, nbytes,
                           dest_addr, numargs, args_);
}
int gasnet_AMReplyShort(gasnet_token_t token, gasnet_handler_t handler, int numargs, ...) {
  GASNETC_AM_VARGS(numargs);
  return gasnetc_AMReply(GASNETC_AM_SHORT, token, handler, 0, 0, 0, numargs, args_);
}
int gasnet_AMReplyMedium(gasnet_token_t token, gasnet_handler_t handler, void *source_addr,
                         size_t nbytes, int numargs, ...) {
  GASNETC_AM_VARGS(numargs);
  return gasnetc_AMReply(GASNETC_AM_MEDIUM, token, handler, source_addr, nbytes, 0,
                         numargs, args_);
}
int gasnet_AMReplyLong(gasnet_token_t token, gasnet_handler_t handler, void *source_addr,
                       size_t nbytes, void *dest_addr, int numargs, ...) {
  GASNETC_AM_VARGS(numargs);
  return gasnetc_AMReply(GASNETC_AM_LONG, token, handler, source_addr, nbytes, dest_addr,
                         numargs, args_);
}
