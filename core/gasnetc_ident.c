/*
 * gasnetc_ident.c - the ident strings of a conduit library: "$Key: value $"
 * lines that run scripts (UPC++'s upcxx-run, Berkeley UPC's upcrun, the
 * GASNet test harness) read from an executable with `ident` or `strings`
 * to learn the conduit, threading mode, release and configuration it was
 * linked with (docs/clients.md, "Ident strings").
 *
 * Compiled into each conduit library with that library's conduit and mode
 * macros (lib.mk), since the core is built once per mode, not per conduit.
 * gasnetc_init.c refers to gasnetc_ident_strings, so a static link that
 * pulls in gasnet_init (every client) pulls this object in too.
 */
#include "config.h"
#include "gasnet.h"
#include "gasnet_tools_config.h"

#ifndef GASNETC_CONFIGURE_ARGS
#error "gasnetc_ident.c: config.h lacks GASNETC_CONFIGURE_ARGS (configure.ac)"
#endif

#define GASNETC_IDENT_VERSION(maj, min) GASNETC_STR(maj) "." GASNETC_STR(min)
#if defined(__clang__)
#define GASNETC_IDENT_COMPILER "clang "
#elif defined(__GNUC__)
#define GASNETC_IDENT_COMPILER "gcc "
#else
#define GASNETC_IDENT_COMPILER ""
#endif

const char *const gasnetc_ident_strings[] __attribute__((used)) = {
  "$GASNetConduitName: " GASNET_CONDUIT_NAME_STR " $",
  "$GASNetCoreLibraryName: " GASNET_CONDUIT_NAME_STR " $",
  "$GASNetCoreLibraryVersion: " GASNETC_STR(GASNET_CORE_VERSION) " $",
  "$GASNetExtendedLibraryName: REFERENCE $",
  "$GASNetExtendedLibraryVersion: " GASNETC_STR(GASNET_CORE_VERSION) " $",
  "$GASNetThreadModel: GASNET_" GASNETC_MODE_STRING " $",
  "$GASNetSegment: GASNET_SEGMENT_" GASNETC_SEGMENT_NAME " $",
  "$GASNetReleaseVersion: " GASNETC_RELEASE_STRING " $",
  "$GASNetEXSpecVersion: "
  GASNETC_IDENT_VERSION(GASNETI_EX_SPEC_VERSION_MAJOR, GASNETI_EX_SPEC_VERSION_MINOR) " $",
  "$GASNetSpecVersion: "
  GASNETC_IDENT_VERSION(GASNETI_SPEC_VERSION_MAJOR, GASNETI_SPEC_VERSION_MINOR) " $",
  "$GASNetToolsSpecVersion: "
  GASNETC_IDENT_VERSION(GASNETI_TOOLS_SPEC_VERSION_MAJOR, GASNETI_TOOLS_SPEC_VERSION_MINOR) " $",
  "$GASNetPSHM: 1 $",
  "$GASNetDebug: 0 $",
  "$GASNetSystemTuple: " GASNETT_SYSTEM_TUPLE " $",
  "$GASNetCompilerID: " GASNETC_IDENT_COMPILER __VERSION__ " $",
  "$GASNetConfigureArgs: " GASNETC_CONFIGURE_ARGS " $",
  0
};
