#!/bin/bash
# t-mak.sh - a C client built only through the installed .mak fragment:
# timeout: 150
# parallel: never  (make install prefix=... compiles that prefix into the libraries and the launcher: they are relinked meanwhile)
# bypass: on  (it checks the install layout and the .mak fragments; the bypass changes neither)
# for each conduit (udp, tcp) from the same two installs (an install is
# about 10 s and holds both conduits: one run per conduit made four),
# client.mk includes $(GASNET_PREFIX)/include/$CONDUIT-conduit/$CONDUIT-<mode>.mak
# and compiles t_client.c with $(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS),
# links with $(GASNET_LD) $(GASNET_LDFLAGS) ... $(GASNET_LIBS); each binary
# runs on 2 and 4 ranks with the installed gasnetrun_$CONDUIT, and every
# rank's put/get/AM check must pass. Two installs:
#  1. seq, from `make install prefix=$TMP/inst`: the installed .mak and .pc
#     name that prefix (the fragments follow a prefix given at install time);
#     t_client also runs as `t_client 2` with no launcher on PATH (started
#     by itself, as OpenSHMEM's oshrun starts udp jobs): it must find the
#     gasnetrun of that prefix, compiled in at install time.
#     The same install builds tests/ex/t_ex_am.c and t_ex_rma.c, GASNet-EX
#     clients (gasnetex.h), with udp-seq.mak and runs them on 2 ranks:
#     every rank's checks must pass. (Not again with tcp-seq.mak: the
#     fragment's variables are checked by t_client for each conduit, and
#     the EX calls over tcp by tests/ex/t-ex-*.sh[tcp,noshm].)
#  2. par, from `make install DESTDIR=$TMP/root` (the configured prefix inside
#     it), with GASNET_PREFIX given on make's command line, as a client of a
#     moved tree would. This install also remakes the tree's own fragments
#     for the configured prefix.
set -u -o pipefail
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/install/common.sh"

# build_and_run MODE PREFIX: client.mk c, then 2 and 4 ranks.
build_and_run() {
  local mode=$1 prefix=$2 out="$TMP/$1"
  mkdir -p "$out"
  echo "== $CONDUIT-$mode.mak: build"
  if make -f "$CLIENT_SRC/client.mk" GASNET_PREFIX="$prefix" CONDUIT="$CONDUIT" MODE=$mode \
       SRC="$CLIENT_SRC" OUT="$out" c 2>&1 | sed "s|$TMP|\$TMP|g" && [ -x "$out/t_client" ]; then
    for n in 2 4; do run_client "$out/t_client" $n "t_client($mode)"; done
  else
    echo "FAIL: building t_client with $CONDUIT-$mode.mak"; fails=$((fails + 1))
  fi
}

inst="$TMP/inst"
make -s -C "$TOP" install SUBDIRS="$INSTALL_SUBDIRS" prefix="$inst" >"$TMP/install.log" 2>&1 \
  || { echo "FAIL: make install prefix=$inst"; tail -20 "$TMP/install.log"; exit 1; }
for CONDUIT in udp tcp; do
INSTRUN="$inst/bin/gasnetrun_$CONDUIT"
mak=$(sed -n 's/^GASNET_PREFIX ?= //p' "$inst/include/$CONDUIT-conduit/$CONDUIT-seq.mak")
pc=$(sed -n 's/^prefix=//p' "$inst/lib/pkgconfig/gasnet-$CONDUIT-seq.pc")
echo "make install prefix=\$TMP/inst: $CONDUIT-seq.mak GASNET_PREFIX ?= ${mak/$TMP/\$TMP}, gasnet-$CONDUIT-seq.pc prefix=${pc/$TMP/\$TMP}"
[ "$mak" = "$inst" ] && [ "$pc" = "$inst" ] && echo "ok: both name the install prefix" \
  || { echo "FAIL: expected $inst in both"; fails=$((fails + 1)); }
# The tools fragment follows the install prefix too, and a makefile that
# includes it and a conduit fragment, in either order, keeps the conduit's
# GASNET_* (as Berkeley's tests' makefile does).
for order in "tools conduit" "conduit tools"; do
  { for f in $order; do
      case $f in tools) echo "include $inst/include/gasnet_tools-seq.mak" ;;
                 *) echo "include $inst/include/$CONDUIT-conduit/$CONDUIT-seq.mak" ;; esac
    done
    printf 'all:\n\t@echo "$(GASNET_CPPFLAGS)|$(GASNETTOOLS_CPPFLAGS)"\n'; } >"$TMP/both.mk"
  got=$(make -s -f "$TMP/both.mk")
  want="-DGASNET_SEQ -DGASNET_CONDUIT_${CONDUIT^^} -I$inst/include -I$inst/include/$CONDUIT-conduit|-DGASNETT_THREAD_SINGLE -I$inst/include"
  echo "fragments included as $order: ${got//$TMP/\$TMP}"
  [ "$got" = "$want" ] || { echo "FAIL: expected ${want//$TMP/\$TMP}"; fails=$((fails + 1)); }
done
build_and_run seq "$inst"
# `./t_client 2` with no gasnetrun on PATH and no GASNET_LAUNCHER (OpenSHMEM's
# oshrun starts udp jobs so): the library must exec the gasnetrun of the
# prefix it was installed under, not the configured one.
if [ -x "$TMP/seq/t_client" ]; then
  printf '#!/bin/sh\nexec env -u GASNET_LAUNCHER PATH=/usr/bin:/bin "$3" "$2"\n' >"$TMP/self"
  chmod +x "$TMP/self"
  n=$(grep -c -F "$inst/bin/gasnetrun" "$TMP/seq/t_client")
  echo "t_client names \$TMP/inst/bin/gasnetrun: $n times (expected at least 1)"
  [ "$n" -ge 1 ] || { echo "FAIL: the installed bindir is not compiled in"; fails=$((fails + 1)); }
  INSTRUN="$TMP/self" run_client "$TMP/seq/t_client" 2 "t_client 2, started by itself"
fi
[ "$CONDUIT" = udp ] || { rm -rf "$TMP/seq"; continue; }
echo "== $CONDUIT-seq.mak: a GASNet-EX client"
if make -f "$CLIENT_SRC/client.mk" GASNET_PREFIX="$inst" CONDUIT="$CONDUIT" MODE=seq \
     SRC="$CLIENT_SRC" EXSRC="$TOP/tests/ex" OUT="$TMP/seq" ex 2>&1 | sed "s|$TMP|\$TMP|g" \
   && [ -x "$TMP/seq/t_ex_am" ] && [ -x "$TMP/seq/t_ex_rma" ]; then
  for t in t_ex_am:'all GASNet-EX checks passed' t_ex_rma:'all GASNet-EX RMA checks passed'; do
    out=$(T_RMA_OPS=50 "$INSTRUN" -n 2 "$TMP/seq/${t%%:*}" 2>&1); rc=$?
    ok=$(echo "$out" | grep -c "${t#*:}")
    echo "${t%%:*} -n 2: expected exit 0 and 2 '${t#*:}' lines; got exit $rc and $ok"
    [ "$rc" = 0 ] && [ "$ok" = 2 ] || { echo "FAIL: ${t%%:*}"; echo "$out" | tail -5; fails=$((fails + 1)); }
  done
else
  echo "FAIL: building t_ex_am and t_ex_rma with $CONDUIT-seq.mak"; fails=$((fails + 1))
fi
rm -rf "$TMP/seq"
done

install_tree   # its PREFIX is every conduit's
for CONDUIT in udp tcp; do
  INSTRUN="$PREFIX/bin/gasnetrun_$CONDUIT"
  build_and_run par "$PREFIX"
  rm -rf "$TMP/par"
done
[ $fails = 0 ] && echo "t-mak: all passed"
exit $fails
