/*
 * gasnete_coll_g1.c - GASNet-1's gasnet_coll.h over the collectives engine
 * (so far gasnet_coll_init and gasnet_coll_broadcast; the rest is being
 * written on branch collg1).
 */
#include <stdlib.h>
#include <string.h>

#include "gasnete_coll_internal.h"

gasnet_team_handle_t gasnete_coll_team_all; /* set by gasnete_connect */

static struct {
  int inited;
  gasnet_coll_fn_entry_t *fns;
  size_t nfns;
} gasnete_g1;

void gasnet_coll_init(gasnet_image_t *images, gasnet_image_t my_image,
                      gasnet_coll_fn_entry_t *fn_table, size_t fn_count, int flags) {
  (void)my_image; (void)flags;
  if (!gasnete_g.attached) gasnetc_not_ready("gasnet_coll_init", 1);
  if (gasnete_g1.inited)
    gasnete_fatal("gasnet_coll_init: called twice; it is called once per job");
  if (images)
    gasnete_fatal("gasnet_coll_init: images != NULL: this library runs one image per node; "
                  "pass NULL");
  if (fn_count && !fn_table)
    gasnete_fatal("gasnet_coll_init: fn_count %zu with a NULL fn_table", fn_count);
  if (fn_count) {
    gasnete_g1.fns = malloc(fn_count * sizeof *fn_table);
    if (!gasnete_g1.fns) gasnete_fatal("gasnet_coll_init: out of memory");
    memcpy(gasnete_g1.fns, fn_table, fn_count * sizeof *fn_table);
  }
  gasnete_g1.nfns = fn_count;
  gasnete_g1.inited = 1;
}

static int gasnete_one_bit(int v) { return v && !(v & (v - 1)); }

/* The engine's sync bits for GASNet-1 flags (checked). */
static int gasnete_g1_check(const char *fname, gasnet_team_handle_t team, int flags) {
  if (!gasnete_g.attached) gasnetc_not_ready(fname, 1);
  if (!gasnete_g1.inited) gasnete_fatal("%s: called before gasnet_coll_init", fname);
  gasnete_coll_team(fname, team);
  int in = flags & (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC);
  int out = flags & (GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC);
  if (!gasnete_one_bit(in) || !gasnete_one_bit(out))
    gasnete_fatal("%s: flags %#x: give exactly one GASNET_COLL_IN_* and one GASNET_COLL_OUT_*",
                  fname, (unsigned)flags);
  if ((flags & GASNET_COLL_SINGLE) && (flags & GASNET_COLL_LOCAL))
    gasnete_fatal("%s: flags %#x: GASNET_COLL_SINGLE and GASNET_COLL_LOCAL exclude each other",
                  fname, (unsigned)flags);
  return (in == GASNET_COLL_IN_ALLSYNC ? GASNETE_COLL_SYNC_IN : 0) |
         (out == GASNET_COLL_OUT_ALLSYNC ? GASNETE_COLL_SYNC_OUT : 0);
}

void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t root,
                           void *src, size_t nbytes, int flags) {
  const char *fname = "gasnet_coll_broadcast";
  int sync = gasnete_g1_check(fname, team, flags);
  gasnete_event_wait(fname, gasnete_coll_broadcast(fname, team, root, dst, src, nbytes, sync));
}
