/*
 * <conduit>-conduit/gasnet_core.h - installed as udp-conduit/gasnet_core.h
 * and tcp-conduit/gasnet_core.h (the same file) to mark that the conduit is
 * installed: client configure scripts look for it there.
 *
 * This package's headers are the same for every conduit: gasnet.h declares
 * one API, and the conduit is the library the client links
 * (libgasnet-<conduit>-<mode>.a, as the .mak and .pc files of this
 * directory say). So there is nothing conduit-specific to declare here, and
 * the conduit's name is defined by gasnet.h, not here.
 *
 * In GASNet a conduit's gasnet_core.h is a part of gasnet.h; here including
 * it includes gasnet.h, once the client has chosen a threading mode
 * (GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR, as the .mak and .pc flags do).
 * Without a mode it adds nothing, so that a configure test that only
 * compiles `#include <gasnet_core.h>` finds the conduit instead of tripping
 * over gasnet.h's "define exactly one of GASNET_SEQ..." error.
 */
#ifndef GASNET_CONDUIT_GASNET_CORE_H
#define GASNET_CONDUIT_GASNET_CORE_H

#if defined(GASNET_SEQ) || defined(GASNET_PARSYNC) || defined(GASNET_PAR)
#include <gasnet.h>
#endif

#endif /* GASNET_CONDUIT_GASNET_CORE_H */
