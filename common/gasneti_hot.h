/*
 * gasneti_hot.h - GASNETI_HOT marks a function on the path of every
 * message: the poll loop, the receive, the reliability layer, the
 * dispatch to a handler, and the send. GCC and clang put such functions
 * in .text.hot, which the linker lays out together, so a message's code
 * lies on a few pages instead of being spread over the whole library. It
 * matters where every system call empties the TLB (page-table isolation
 * without PCID, as on this project's test VM: whatever runs after a
 * receive call pays a page walk for each page it touches first). What it
 * gains, measured: docs/rationale.md, "common/gasneti_hot.h".
 *
 * Mark only what every message runs: a cold function among them costs the
 * hot ones their density.
 */
#ifndef GASNETI_HOT_H
#define GASNETI_HOT_H

#if defined(__GNUC__) || defined(__clang__)
#define GASNETI_HOT __attribute__((hot))
#else
#define GASNETI_HOT
#endif

#endif /* GASNETI_HOT_H */
