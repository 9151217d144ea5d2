#!/bin/sh
# contrib/gen-fragment.sh TEMPLATE CONDUIT-MODE PREFIXREF
#
# Prints TEMPLATE (contrib/gasnet-conduit.pc.in or .mak.in) filled in for one
# conduit library, e.g. udp-seq. lib.mk calls it, passing the configured
# values in the environment: prefix exec_prefix libdir includedir version
# cc cxx cflags cxxflags ldflags pthread_cflags deplibs.
#
# For the fragments of the build tree (<builddir>/<conduit>-conduit/, a
# client's `include` of an uninstalled tree), lib.mk passes buildtree=yes
# with prefix the build directory, libdir and includedir its own, and
# srcinclude the source tree's include/ when that is another directory;
# the conduit's directory (gasnet_core.h) is then <builddir>/<conduit>-conduit.
#
# Directories under $prefix are written relative to PREFIXREF (the .pc's
# `${prefix}`, the .mak's `$(GASNET_PREFIX)`), so that an installed tree that
# was moved, or installed with DESTDIR, can be used through
# `pkg-config --define-prefix` or a client's GASNET_PREFIX.
set -e
template=$1 name=$2 ref=$3
conduit=${name%-*} mode=${name##*-}
case $conduit in udp|tcp) ;; *) echo "gen-fragment.sh: unknown conduit in '$name'" >&2; exit 1 ;; esac
case $mode in
  seq) MODE=SEQ ;; parsync) MODE=PARSYNC ;; par) MODE=PAR ;;
  *) echo "gen-fragment.sh: unknown mode in '$name'" >&2; exit 1 ;;
esac

if [ "${buildtree:-}" = yes ]; then
  conduitincdir=$prefix/$conduit-conduit
  tree="Build tree $prefix: these paths point into it (docs/clients.md)."
  makpath=$prefix/$conduit-conduit/$conduit-$mode.mak
else
  conduitincdir=$includedir/$conduit-conduit
  tree="Installed tree."
  makpath='$(GASNET_PREFIX)/include/'$conduit-conduit/$conduit-$mode.mak
fi
extra_includes=${srcinclude:+ -I$srcinclude}

# $1 with a leading $prefix replaced by $ref (only at a path boundary).
rel() {
  case $1 in
    "$prefix") printf '%s' "$ref" ;;
    "$prefix"/*) printf '%s%s' "$ref" "${1#"$prefix"}" ;;
    *) printf '%s' "$1" ;;
  esac
}
# A value made safe for the right-hand side of sed's s|||, with runs of
# blanks squeezed (configured flags often end in a space).
val() {
  printf '%s' "$*" | tr -s ' \t' '  ' | sed -e 's/^ //' -e 's/ $//' -e 's/[|&\\]/\\&/g'
}

sed -e "s|%prefix%|$(val "$prefix")|g" \
    -e "s|%exec_prefix%|$(val "$(rel "$exec_prefix")")|g" \
    -e "s|%libdir%|$(val "$(rel "$libdir")")|g" \
    -e "s|%includedir%|$(val "$(rel "$includedir")")|g" \
    -e "s|%conduitincdir%|$(val "$(rel "$conduitincdir")")|g" \
    -e "s|%EXTRA_INCLUDES%|$(val "$extra_includes" | sed 's/^/ /')|g" \
    -e "s|%TREE%|$(val "$tree")|g" -e "s|%MAKPATH%|$(val "$makpath")|g" \
    -e "s|%VERSION%|$(val "$version")|g" \
    -e "s|%CONDUIT%|$conduit|g" -e "s|%CONDUIT_UC%|$(echo "$conduit" | tr a-z A-Z)|g" -e "s|%mode%|$mode|g" -e "s|%MODE%|$MODE|g" \
    -e "s|%CC%|$(val "$cc")|g" -e "s|%CXX%|$(val "$cxx")|g" \
    -e "s|%CFLAGS%|$(val "$cflags $pthread_cflags")|g" \
    -e "s|%CXXFLAGS%|$(val "$cxxflags $pthread_cflags")|g" \
    -e "s|%LDFLAGS%|$(val "$ldflags $pthread_cflags")|g" \
    -e "s|%PTHREAD_CFLAGS%|$(val "$pthread_cflags")|g" \
    -e "s|%DEPLIBS%|$(val "$deplibs")|g" \
    "$template"
