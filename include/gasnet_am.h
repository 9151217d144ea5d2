/*
 * gasnet_am.h - Active Messages (spec 2.3), included by gasnet.h.
 *
 * Every public gasnet_AM{Request,Reply}{Short,Medium,Long,LongAsync}M for
 * M = 0..16 is a static inline function generated below by
 * GASNETC_AM_DEFINE(M) from two lists (parameter list, argument list); each
 * packs its M arguments into an array and calls one of the two internal
 * functions gasnetc_AMRequest / gasnetc_AMReply (core/gasnetc_am.c).
 * Spec 1.3 allows any of these to be macros or inline functions; a client may
 * not take their address.
 */
#ifndef GASNET_AM_H
#define GASNET_AM_H

#ifndef GASNET_H
#error "include gasnet.h, not gasnet_am.h"
#endif

/* ---- spec 2.3.2: size limits ------------------------------------------ */
#define GASNETC_AM_MAX_ARGS 16
#define GASNETC_AM_MAX_MEDIUM 65536u           /* 64 KiB */
#define GASNETC_AM_MAX_LONG (1024u * 1024u)    /* 1 MiB, request and reply */
#define gasnet_AMMaxArgs() ((size_t)GASNETC_AM_MAX_ARGS)
#define gasnet_AMMaxMedium() ((size_t)GASNETC_AM_MAX_MEDIUM)
#define gasnet_AMMaxLongRequest() ((size_t)GASNETC_AM_MAX_LONG)
#define gasnet_AMMaxLongReply() ((size_t)GASNETC_AM_MAX_LONG)

/* Message categories, as passed to the internal send functions. */
enum {
  GASNETC_AM_SHORT = 1,
  GASNETC_AM_MEDIUM = 2,
  GASNETC_AM_LONG = 3,
  GASNETC_AM_LONGASYNC = 4 /* sent like LONG; named separately for messages */
};

/* The one send function per direction. src/nbytes: payload (Medium, Long);
 * dest_addr: Long destination; args: nargs values (nargs <= 16). */
extern int gasnetc_AMRequest(int category, gasnet_node_t dest,
                             gasnet_handler_t handler, void *src,
                             size_t nbytes, void *dest_addr, int nargs,
                             const gasnet_handlerarg_t *args);
extern int gasnetc_AMReply(int category, gasnet_token_t token,
                           gasnet_handler_t handler, void *src, size_t nbytes,
                           void *dest_addr, int nargs,
                           const gasnet_handlerarg_t *args);

/* GASNETC_AM_PARAMS_M: ", gasnet_handlerarg_t a0, ..., gasnet_handlerarg_t aM-1" */
#define GASNETC_AM_PARAMS_0
#define GASNETC_AM_PARAMS_1 GASNETC_AM_PARAMS_0, gasnet_handlerarg_t a0
#define GASNETC_AM_PARAMS_2 GASNETC_AM_PARAMS_1, gasnet_handlerarg_t a1
#define GASNETC_AM_PARAMS_3 GASNETC_AM_PARAMS_2, gasnet_handlerarg_t a2
#define GASNETC_AM_PARAMS_4 GASNETC_AM_PARAMS_3, gasnet_handlerarg_t a3
#define GASNETC_AM_PARAMS_5 GASNETC_AM_PARAMS_4, gasnet_handlerarg_t a4
#define GASNETC_AM_PARAMS_6 GASNETC_AM_PARAMS_5, gasnet_handlerarg_t a5
#define GASNETC_AM_PARAMS_7 GASNETC_AM_PARAMS_6, gasnet_handlerarg_t a6
#define GASNETC_AM_PARAMS_8 GASNETC_AM_PARAMS_7, gasnet_handlerarg_t a7
#define GASNETC_AM_PARAMS_9 GASNETC_AM_PARAMS_8, gasnet_handlerarg_t a8
#define GASNETC_AM_PARAMS_10 GASNETC_AM_PARAMS_9, gasnet_handlerarg_t a9
#define GASNETC_AM_PARAMS_11 GASNETC_AM_PARAMS_10, gasnet_handlerarg_t a10
#define GASNETC_AM_PARAMS_12 GASNETC_AM_PARAMS_11, gasnet_handlerarg_t a11
#define GASNETC_AM_PARAMS_13 GASNETC_AM_PARAMS_12, gasnet_handlerarg_t a12
#define GASNETC_AM_PARAMS_14 GASNETC_AM_PARAMS_13, gasnet_handlerarg_t a13
#define GASNETC_AM_PARAMS_15 GASNETC_AM_PARAMS_14, gasnet_handlerarg_t a14
#define GASNETC_AM_PARAMS_16 GASNETC_AM_PARAMS_15, gasnet_handlerarg_t a15
/* GASNETC_AM_ARGS_M: "a0, a1, ..., aM-1," (trailing comma; empty for M = 0) */
#define GASNETC_AM_ARGS_0
#define GASNETC_AM_ARGS_1 GASNETC_AM_ARGS_0 a0,
#define GASNETC_AM_ARGS_2 GASNETC_AM_ARGS_1 a1,
#define GASNETC_AM_ARGS_3 GASNETC_AM_ARGS_2 a2,
#define GASNETC_AM_ARGS_4 GASNETC_AM_ARGS_3 a3,
#define GASNETC_AM_ARGS_5 GASNETC_AM_ARGS_4 a4,
#define GASNETC_AM_ARGS_6 GASNETC_AM_ARGS_5 a5,
#define GASNETC_AM_ARGS_7 GASNETC_AM_ARGS_6 a6,
#define GASNETC_AM_ARGS_8 GASNETC_AM_ARGS_7 a7,
#define GASNETC_AM_ARGS_9 GASNETC_AM_ARGS_8 a8,
#define GASNETC_AM_ARGS_10 GASNETC_AM_ARGS_9 a9,
#define GASNETC_AM_ARGS_11 GASNETC_AM_ARGS_10 a10,
#define GASNETC_AM_ARGS_12 GASNETC_AM_ARGS_11 a11,
#define GASNETC_AM_ARGS_13 GASNETC_AM_ARGS_12 a12,
#define GASNETC_AM_ARGS_14 GASNETC_AM_ARGS_13 a13,
#define GASNETC_AM_ARGS_15 GASNETC_AM_ARGS_14 a14,
#define GASNETC_AM_ARGS_16 GASNETC_AM_ARGS_15 a15,

/* X(M) for every M in 0..gasnet_AMMaxArgs() (1.8.1: M ranges up to MaxArgs inclusive). */
#define GASNETC_AM_FOREACH_M(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) \
  X(13) X(14) X(15) X(16)

/* The args array has a spare slot so that M = 0 is not a zero-length array. */
#define GASNETC_AM_PACK(M) \
  const gasnet_handlerarg_t gasnetc_args_[M + 1] = { GASNETC_AM_ARGS_##M 0 }

#define GASNETC_AM_DEFINE(M)                                                  \
  static inline int gasnet_AMRequestShort##M(                                 \
      gasnet_node_t dest, gasnet_handler_t handler GASNETC_AM_PARAMS_##M) {   \
    GASNETC_AM_PACK(M);                                                       \
    return gasnetc_AMRequest(GASNETC_AM_SHORT, dest, handler, 0, 0, 0, M,     \
                             gasnetc_args_);                                  \
  }                                                                           \
  static inline int gasnet_AMRequestMedium##M(                                \
      gasnet_node_t dest, gasnet_handler_t handler, void *source_addr,        \
      size_t nbytes GASNETC_AM_PARAMS_##M) {                                  \
    GASNETC_AM_PACK(M);                                                       \
    return gasnetc_AMRequest(GASNETC_AM_MEDIUM, dest, handler, source_addr,   \
                             nbytes, 0, M, gasnetc_args_);                    \
  }                                                                           \
  static inline int gasnet_AMRequestLong##M(                                  \
      gasnet_node_t dest, gasnet_handler_t handler, void *source_addr,        \
      size_t nbytes, void *dest_addr GASNETC_AM_PARAMS_##M) {                 \
    GASNETC_AM_PACK(M);                                                       \
    return gasnetc_AMRequest(GASNETC_AM_LONG, dest, handler, source_addr,     \
                             nbytes, dest_addr, M, gasnetc_args_);            \
  }                                                                           \
  static inline int gasnet_AMRequestLongAsync##M(                             \
      gasnet_node_t dest, gasnet_handler_t handler, void *source_addr,        \
      size_t nbytes, void *dest_addr GASNETC_AM_PARAMS_##M) {                 \
    GASNETC_AM_PACK(M);                                                       \
    return gasnetc_AMRequest(GASNETC_AM_LONGASYNC, dest, handler,             \
                             source_addr, nbytes, dest_addr, M,               \
                             gasnetc_args_);                                  \
  }                                                                           \
  static inline int gasnet_AMReplyShort##M(                                   \
      gasnet_token_t token, gasnet_handler_t handler GASNETC_AM_PARAMS_##M) { \
    GASNETC_AM_PACK(M);                                                       \
    return gasnetc_AMReply(GASNETC_AM_SHORT, token, handler, 0, 0, 0, M,      \
                           gasnetc_args_);                                    \
  }                                                                           \
  static inline int gasnet_AMReplyMedium##M(                                  \
      gasnet_token_t token, gasnet_handler_t handler, void *source_addr,      \
      size_t nbytes GASNETC_AM_PARAMS_##M) {                                  \
    GASNETC_AM_PACK(M);                                                       \
    return gasnetc_AMReply(GASNETC_AM_MEDIUM, token, handler, source_addr,    \
                           nbytes, 0, M, gasnetc_args_);                      \
  }                                                                           \
  static inline int gasnet_AMReplyLong##M(                                    \
      gasnet_token_t token, gasnet_handler_t handler, void *source_addr,      \
      size_t nbytes, void *dest_addr GASNETC_AM_PARAMS_##M) {                 \
    GASNETC_AM_PACK(M);                                                       \
    return gasnetc_AMReply(GASNETC_AM_LONG, token, handler, source_addr,      \
                           nbytes, dest_addr, M, gasnetc_args_);              \
  }

GASNETC_AM_FOREACH_M(GASNETC_AM_DEFINE)

/* The varargs forms GASNet-1 clients use beyond spec 1.8: an explicit
 * argument count, then that many gasnet_handlerarg_t arguments. */
extern int gasnet_AMRequestShort(gasnet_node_t dest, gasnet_handler_t handler, int numargs, ...);
extern int gasnet_AMRequestMedium(gasnet_node_t dest, gasnet_handler_t handler,
                                  void *source_addr, size_t nbytes, int numargs, ...);
extern int gasnet_AMRequestLong(gasnet_node_t dest, gasnet_handler_t handler,
                                void *source_addr, size_t nbytes, void *dest_addr,
                                int numargs, ...);
extern int gasnet_AMRequestLongAsync(gasnet_node_t dest, gasnet_handler_t handler,
                                     void *source_addr, size_t nbytes, void *dest_addr,
                                     int numargs, ...);
extern int gasnet_AMReplyShort(gasnet_token_t token, gasnet_handler_t handler, int numargs, ...);
extern int gasnet_AMReplyMedium(gasnet_token_t token, gasnet_handler_t handler,
                                void *source_addr, size_t nbytes, int numargs, ...);
extern int gasnet_AMReplyLong(gasnet_token_t token, gasnet_handler_t handler,
                              void *source_addr, size_t nbytes, void *dest_addr,
                              int numargs, ...);

/* ---- spec 2.3.5: misc --------------------------------------------------- */
extern int gasnet_AMPoll(void);
extern int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex);

/*
 * GASNET_BLOCKUNTIL (spec 2.3.5.2): poll until cond holds. gasnetc_block_step
 * spins on the network for a while (GASNET_SPIN_USEC) and then sleeps in the
 * kernel in short bounded slices, so a thread whose cond is set by a handler
 * run on another thread still wakes up (spec 2.3.5.2 implementor's note).
 */
/* How a blocked thread waits (gasnet_set_waitmode, spec 3.6.2.1). */
enum { GASNETC_BLOCK_DEFAULT = 0, /* spin GASNET_SPIN_USEC, then sleep */
       GASNETC_BLOCK_SPIN = 1,    /* never sleep */
       GASNETC_BLOCK_SLEEP = 2 }; /* sleep as soon as a poll finds nothing */
typedef struct {
  uint64_t idle_since_ns; /* when polling last found nothing; 0 = busy */
  int mode;               /* GASNETC_BLOCK_* */
  unsigned skip;          /* empty polls left before the clock is read */
} gasnetc_block_t;
extern void gasnetc_block_step(gasnetc_block_t *state);
#define GASNET_BLOCKUNTIL(cond)                         \
  do {                                                  \
    gasnetc_block_t gasnetc_block_ = { 0, 0, 0 };       \
    while (!(cond)) gasnetc_block_step(&gasnetc_block_); \
  } while (0)

#endif /* GASNET_AM_H */
