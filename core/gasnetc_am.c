/*
 * gasnetc_am.c - sending Active Messages (spec 2.3.3, 2.3.4): the two
 * functions behind every gasnet_AMRequest*M / gasnet_AMReply*M, the checks
 * that turn misuse into a fatal error naming the call, tokens and the reply
 * rules, and loopback (a node sending to itself), which the core does itself:
 * the handler runs synchronously inside the call, as spec 2.4.1 allows for
 * replies and 1.9 requires for every call.
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

/* "gasnet_AMRequestLong3", "gex_AM_RequestLong3": the public name of the
 * call being checked (ex: a GASNet-EX call). */
static const char *gasnetc_am_name(char *buf, size_t len, int ex, int is_request,
                                   int category, int nargs) {
  snprintf(buf, len, "%s%s%s%d", ex ? "gex_AM_" : "gasnet_AM", is_request ? "Request" : "Reply",
           category >= GASNETC_AM_SHORT && category <= GASNETC_AM_LONGASYNC
               ? gasnetc_category_names[category] : "?",
           nargs);
  return buf;
}

#define GASNETC_AM_FATAL(fmt, ...)                                        \
  do {                                                                    \
    char name_[48];                                                       \
    gasnetc_fatal("%s: " fmt,                                             \
                  gasnetc_am_name(name_, sizeof name_, ex, is_request,    \
                                  category, nargs), __VA_ARGS__);         \
  } while (0)

/* Spec 2.3.3 / 2.3.4 / 2.4: the arguments and the calling context.
 * Cold: called only when the fast checks in gasnetc_am_send see a problem. */
static void gasnetc_am_check(int ex, int is_request, int category, gasnet_node_t dest,
                             gasnet_handler_t handler, const void *src, size_t nbytes,
                             void *dest_addr, int nargs)
    __attribute__((noinline, cold));
static void gasnetc_am_check(int ex, int is_request, int category, gasnet_node_t dest,
                             gasnet_handler_t handler, const void *src, size_t nbytes,
                             void *dest_addr, int nargs) {
  gasnetc_thread_t *th = &gasnetc_thread;
  if (!gasnetc_g.attached) {
    char name[48];
    gasnetc_not_ready(gasnetc_am_name(name, sizeof name, ex, is_request, category, nargs), 1);
  }
  if (category < GASNETC_AM_SHORT || category > GASNETC_AM_LONGASYNC ||
      nargs < 0 || nargs > GASNETC_AM_MAX_ARGS)
    GASNETC_AM_FATAL("bad category %d or argument count", category);
  if (is_request && th->token)
    GASNETC_AM_FATAL("called inside an AM handler; handlers may only reply "
                     "(spec %s)", "2.4.1");
  if (is_request && th->nis)
    GASNETC_AM_FATAL("called inside a No-Interrupt Section (spec %s)", "2.4.3");
  if (th->hsl_depth)
    GASNETC_AM_FATAL("called while holding %d HSL(s) (spec %s)", th->hsl_depth,
                     "2.4.5");
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
  if (category >= GASNETC_AM_LONG &&
      !gasnetc_segment_contains(dest, dest_addr, nbytes)) {
    char seg[80];
    gasnetc_segment_format(dest, seg, sizeof seg);
    GASNETC_AM_FATAL("destination [%p,+%zu) outside node %u's segment %s",
                     dest_addr, nbytes, (unsigned)dest, seg);
  }
}

/* Run the handler here and now (dest == this node). */
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
  gasnetc_handler_run(&gasnetc_g.ep0, gasnetc_g.mynode, m, buf, nbytes);
}

static inline void gasnetc_am_count(int is_request, size_t nbytes) {
  if (is_request) GASNETC_STAT_ADD(requests_sent, 1);
  else GASNETC_STAT_ADD(replies_sent, 1);
  GASNETC_STAT_ADD(payload_bytes_sent, nbytes);
}

/* ex: a GASNet-EX call (for messages); immediate: GEX_FLAG_IMMEDIATE, so
 * return 1 without sending when the transport has no room now. */
static int gasnetc_am_send(int ex, int immediate, int is_request, int category,
                           gasnet_node_t dest, gasnet_handler_t handler, const void *src,
                           size_t nbytes, void *dest_addr, int nargs,
                           const gasnet_handlerarg_t *args) {
  gasnetc_thread_t *th = &gasnetc_thread;
  /* Fast checks; any doubt goes to gasnetc_am_check, which names the problem. */
  if (GASNETC_UNLIKELY(!gasnetc_g.attached || dest >= gasnetc_g.nodes ||
                       (unsigned)nargs > GASNETC_AM_MAX_ARGS ||
                       (is_request && (th->token || th->nis)) || th->hsl_depth ||
                       handler == 0 ||
                       (category == GASNETC_AM_MEDIUM &&
                        nbytes > GASNETC_AM_MAX_MEDIUM) ||
                       (category >= GASNETC_AM_LONG &&
                        (nbytes > GASNETC_AM_MAX_LONG ||
                         !gasnetc_segment_contains(dest, dest_addr, nbytes))) ||
                       (nbytes && !src && category != GASNETC_AM_SHORT)))
    gasnetc_am_check(ex, is_request, category, dest, handler, src, nbytes, dest_addr,
                     nargs);

  gasnetc_wire_msg_t m;
  m.category = category == GASNETC_AM_SHORT    ? GASNETC_WIRE_SHORT
               : category == GASNETC_AM_MEDIUM ? GASNETC_WIRE_MEDIUM
                                               : GASNETC_WIRE_LONG;
  m.handler = handler;
  m.nargs = (uint8_t)nargs;
  m.flags = (is_request ? 0 : GASNETC_WIRE_F_REPLY) |
            (category == GASNETC_AM_LONGASYNC ? GASNETC_WIRE_F_ASYNC : 0);
  m.dest = 0;
  if (m.category == GASNETC_WIRE_SHORT) nbytes = 0;
  if (m.category == GASNETC_WIRE_LONG) {
#if defined(GASNET_SEGMENT_EVERYTHING)
    m.dest = (uintptr_t)dest_addr;
#else
    m.dest = (uintptr_t)dest_addr - (uintptr_t)gasnetc_g.ep0.peer_seg[dest].addr;
#endif
  }
  if (dest == gasnetc_g.mynode) {
    gasnetc_am_count(is_request, nbytes);
    if (nargs) memcpy(m.args, args, (size_t)nargs * sizeof m.args[0]);
    gasnetc_am_loopback(&m, src, nbytes, dest_addr);
    return GASNET_OK;
  }

  uint8_t hdr[GASNETC_WIRE_MAX_LEN];
  size_t hlen = gasnetc_wire_encode(hdr, m.category, m.handler, m.flags, m.dest,
                                    m.nargs, args);
  int rc = gasnetc_route_send(dest, hdr, hlen, nbytes ? src : NULL, nbytes,
                              (is_request ? 0 : GASNETC_SEND_REPLY) |
                              (immediate ? GASNETC_SEND_IMMEDIATE : 0));
  if (rc == -EAGAIN && immediate) return 1; /* GEX_FLAG_IMMEDIATE: nothing sent */
  gasnetc_am_count(is_request, nbytes);
  if (GASNETC_UNLIKELY(rc)) {
    if (rc == -EPIPE &&
        (__atomic_load_n(&gasnetc_g.remote_exit, __ATOMIC_ACQUIRE) ||
         __atomic_load_n(&gasnetc_g.exiting, __ATOMIC_ACQUIRE)))
      return GASNET_OK; /* the job is ending anyway */
    char name[48];
    gasnetc_fatal("%s: sending to node %u failed: %s",
                  gasnetc_am_name(name, sizeof name, ex, is_request, category, nargs),
                  (unsigned)dest,
                  rc == -EPIPE ? "the node is dead" : strerror(-rc));
  }
  return GASNET_OK;
}

int gasnetc_AMRequest(int category, gasnet_node_t dest, gasnet_handler_t handler,
                      void *src, size_t nbytes, void *dest_addr, int nargs,
                      const gasnet_handlerarg_t *args) {
  int rc = gasnetc_am_send(0, 0, 1, category, dest, handler, src, nbytes, dest_addr,
                           nargs, args);
  /* A request is a poll point outside handlers: honour a remote exit. */
  gasnetc_exit_check();
  return rc;
}

/* The checks of a reply's token (spec 2.3.4); marks it replied. */
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

int gasnetc_AMReply(int category, gasnet_token_t token, gasnet_handler_t handler,
                    void *src, size_t nbytes, void *dest_addr, int nargs,
                    const gasnet_handlerarg_t *args) {
  gasnetc_am_reply_token(0, category, token, nargs);
  return gasnetc_am_send(0, 0, 0, category, token->src, handler, src, nbytes,
                         dest_addr, nargs, args);
}

/* ---- GASNet-EX (gasnetex.h) ------------------------------------------------
 * The payload of a Medium or Long may be reused when the call returns, so
 * the local-completion event asked for through lc_opt is already complete:
 * an event pointer receives GEX_EVENT_INVALID; GEX_EVENT_NOW, _DEFER and
 * _GROUP need nothing more. */
static void gasnetc_am_lc(int ex, int is_request, int category, int nargs,
                          gex_Event_t *lc_opt) {
  if (category == GASNETC_AM_SHORT) return;
  if (GASNETC_UNLIKELY(!lc_opt))
    GASNETC_AM_FATAL("lc_opt is NULL: pass GEX_EVENT_NOW, GEX_EVENT_DEFER, GEX_EVENT_GROUP "
                     "or the address of a gex_Event_t (%s)", "gasnet-ex-api.txt, AM");
  if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER && lc_opt != GEX_EVENT_GROUP)
    *lc_opt = GEX_EVENT_INVALID;
}

int gasnetc_AMRequestEx(int category, gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                        const void *src, size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                        gex_Flags_t flags, int nargs, const gex_AM_Arg_t *args) {
  gasnet_node_t dest = gasnetc_tm_rank_fast(tm, rank, gasnetc_g.nodes);
  if (GASNETC_UNLIKELY(dest == GEX_RANK_INVALID)) {
    char name[48]; /* names the problem */
    gasnetc_tm_jobrank(tm, rank, gasnetc_am_name(name, sizeof name, 1, 1, category, nargs));
  }
  int rc = gasnetc_am_send(1, (flags & GEX_FLAG_IMMEDIATE) != 0, 1, category, dest, handler,
                           src, nbytes, dest_addr, nargs, args);
  if (rc == 0) gasnetc_am_lc(1, 1, category, nargs, lc_opt);
  gasnetc_exit_check();
  return rc;
}

int gasnetc_AMReplyEx(int category, gex_Token_t token, gex_AM_Index_t handler,
                      const void *src, size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                      gex_Flags_t flags, int nargs, const gex_AM_Arg_t *args) {
  (void)flags; /* a reply always has room (transport.h): IMMEDIATE never refuses it */
  gasnetc_am_reply_token(1, category, token, nargs);
  int rc = gasnetc_am_send(1, 0, 0, category, token->src, handler, src, nbytes, dest_addr,
                           nargs, args);
  gasnetc_am_lc(1, 0, category, nargs, lc_opt);
  return rc;
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
