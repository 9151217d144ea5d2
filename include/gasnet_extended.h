/*
 * gasnet_extended.h - the GASNet-1 extended API (spec 1.8 section 3, with
 * the 1.8.1 corrections), included by gasnet.h.
 *
 * Implemented in extended-ref/ purely on core Active Messages (handlers
 * 64..127), so every conduit that provides the core gets it unchanged.
 * Every call is a real function (spec 1.3 allows macros or inlines; a client
 * must not rely on taking an address either way) except the thread-info
 * macros of 3.6.1. Errors are fatal and name the call (spec 3).
 */
#ifndef GASNET_EXTENDED_H
#define GASNET_EXTENDED_H

#ifndef GASNET_H
#error "include gasnet.h, not gasnet_extended.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 3.2: blocking put/get/memset ------------------------------------- */
extern void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes);

/* ---- 3.3.2: explicit-handle non-blocking ------------------------------- */
extern gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes);

/* ---- 3.3.3: explicit-handle synchronization ---------------------------- */
extern void gasnet_wait_syncnb(gasnet_handle_t handle);
extern int gasnet_try_syncnb(gasnet_handle_t handle);
extern void gasnet_wait_syncnb_all(gasnet_handle_t *handles, size_t numhandles);
extern int gasnet_try_syncnb_all(gasnet_handle_t *handles, size_t numhandles);
extern void gasnet_wait_syncnb_some(gasnet_handle_t *handles, size_t numhandles);
extern int gasnet_try_syncnb_some(gasnet_handle_t *handles, size_t numhandles);

/* ---- 3.3.4: implicit-handle non-blocking ------------------------------- */
extern void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes);
extern void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes);
extern void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes);

/* ---- 3.3.5: implicit-handle synchronization (per calling thread) ------- */
extern void gasnet_wait_syncnbi_gets(void);
extern void gasnet_wait_syncnbi_puts(void);
extern void gasnet_wait_syncnbi_all(void);
extern int gasnet_try_syncnbi_gets(void);
extern int gasnet_try_syncnbi_puts(void);
extern int gasnet_try_syncnbi_all(void);

/* ---- 3.3.6: access regions --------------------------------------------- */
extern void gasnet_begin_nbi_accessregion(void);
extern gasnet_handle_t gasnet_end_nbi_accessregion(void);

/* ---- 3.4: register-memory (value) operations ---------------------------- */
typedef struct gasnete_valget *gasnet_valget_handle_t; /* opaque, no invalid value */
extern void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                           size_t nbytes);
extern gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                         gasnet_register_value_t value, size_t nbytes);
extern void gasnet_put_nbi_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                               size_t nbytes);
extern gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle);

/* ---- 3.5: split-phase barriers ------------------------------------------ */
#define GASNET_BARRIERFLAG_ANONYMOUS 1
#define GASNET_BARRIERFLAG_MISMATCH 2
/* Beyond spec 1.8, as GASNet-1 clients use them: UNNAMED promises that no
 * node names this barrier (it matches like an anonymous one, and
 * gasnet_barrier_result reports it as anonymous); IMAGES counts the
 * collectives' images, which are nodes here, so it changes nothing. */
#define GASNET_BARRIERFLAG_UNNAMED (GASNET_BARRIERFLAG_ANONYMOUS | 4)
#define GASNET_BARRIERFLAG_IMAGES 8
extern void gasnet_barrier_notify(int id, int flags);
extern int gasnet_barrier_wait(int id, int flags);
extern int gasnet_barrier_try(int id, int flags);
/* notify + wait in one call; returns what gasnet_barrier_wait would. */
extern int gasnet_barrier(int id, int flags);
/* After the last completed barrier: non-zero if every node was anonymous;
 * otherwise 0, with *id set to the id the named nodes matched on. */
extern int gasnet_barrier_result(int *id);

/* ---- 3.6.1: thread identification ---------------------------------------
 * The per-thread data lives in thread-local storage, which is as cheap to
 * reach as a posted pointer on the platforms we target, so posting is only
 * checked for type and otherwise costs nothing. 1.8.1: both macros are
 * followed by a semicolon at the top of a block, so they expand to one
 * declaration. */
typedef void *gasnet_threadinfo_t;
extern gasnet_threadinfo_t gasnete_threadinfo_get(void);
#define GASNET_GET_THREADINFO() (gasnete_threadinfo_get())
#define GASNET_POST_THREADINFO(info) \
  gasnet_threadinfo_t gasnete_posted_threadinfo_ __attribute__((unused)) = (info)
/* Lazy (spec 3.6.1.3 allows it): no thread discovery until a call needs it. */
#define GASNET_BEGIN_FUNCTION() \
  gasnet_threadinfo_t gasnete_posted_threadinfo_ __attribute__((unused)) = 0

/* ---- 3.6.2: wait mode ------------------------------------------------------ */
#define GASNET_WAIT_SPIN 0
#define GASNET_WAIT_BLOCK 1
#define GASNET_WAIT_SPINBLOCK 2
extern int gasnet_set_waitmode(int wait_mode);

#ifdef __cplusplus
}
#endif

#endif /* GASNET_EXTENDED_H */
