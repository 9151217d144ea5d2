/*
 * <portals/portals3.h>: where programs written for Cray's and Sandia's
 * Portals 3 implementations include the interface from. Installed as
 * $(includedir)/portals/portals3.h; the interface itself is the one
 * header beside this directory (docs/portals.md, "Building a program").
 */
#include "../portals3.h"
