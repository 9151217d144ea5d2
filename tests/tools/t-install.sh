#!/bin/bash
# t-install.sh - tools-only clients built through the INSTALLED files
# (make install DESTDIR=<temporary directory>, removed at the end):
# timeout: 120
#  1. the installed files are there (libraries, headers, .pc, .mak);
#  2. cc app.c $(pkg-config --cflags --libs gasnet_tools-seq), run;
#  3. a makefile that includes the installed gasnet_tools-par.mak and uses
#     only GASNETTOOLS_* (GASNETTOOLS_PREFIX pointed at the DESTDIR tree), run;
#  4. the same through the GASNET_* aliases with GASNET_PREFIX set (seq), run.
set -u
cd "$TOP" || exit 1
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
dest="$tmp/root"
version=$(sed -n 's/^PACKAGE_VERSION = //p' Makefile)
prefix=$(sed -n 's/^prefix = //p' Makefile)
root="$dest$prefix"

echo "== 1. make install DESTDIR=$dest (tools/, include/)"
{ make -s -C tools install DESTDIR="$dest" && make -s -C include install DESTDIR="$dest"; } \
  >"$tmp/install.log" 2>&1 || { fail "install"; tail "$tmp/install.log"; }
for f in lib/libgasnet_tools-seq.a lib/libgasnet_tools-par.a include/gasnet_tools.h \
         include/gasnet_tools_config.h include/gasnet_tools-seq.mak include/gasnet_tools-par.mak \
         lib/pkgconfig/gasnet_tools-seq.pc lib/pkgconfig/gasnet_tools-par.pc; do
  [ -f "$root/$f" ] && echo "ok   installed $prefix/$f" || fail "missing $prefix/$f"
done

cat > "$tmp/app.c" <<'C'
#include <gasnet_tools.h>
#include <stdio.h>
#include <pthread.h>
static gasnett_atomic_t hits = gasnett_atomic_init(0);
static void *work(void *arg) {
  for (int i = 0; i < 50000; i++) gasnett_atomic_increment(&hits, 0);
  return arg;
}
int main(void) {
  int threads = 1;
#if defined(GASNETT_THREAD_SAFE)
  pthread_t t;
  pthread_create(&t, NULL, work, NULL);
  threads = 2;
#endif
  work(NULL);
#if defined(GASNETT_THREAD_SAFE)
  pthread_join(t, NULL);
#endif
  gasnett_setenv("APP_SIZE", "2MB");
  long long sz = (long long)gasnett_getenv_int_withdefault("APP_SIZE", 0, 1);
  int diag = gasnett_run_diagnostics(200, 2, NULL, NULL, NULL, 0, NULL, 0);
  printf("app (%s, release %s): %u increments by %d thread(s), APP_SIZE %lld, diagnostics %d\n",
         GASNETT_CONFIG_STRING, gasnett_release_version_str(),
         (unsigned)gasnett_atomic_read(&hits, 0), threads, sz, diag);
  return gasnett_atomic_read(&hits, 0) == 50000u * threads && sz == 2 << 20 && diag == 0 ? 0 : 1;
}
C
check_app() { # name, binary, expected increments
  out=$("$2" 2>&1); rc=$?; echo "    $out"
  [ $rc = 0 ] && echo "$out" | grep -q "release $version): $3 increments" \
    && echo "ok   $1 ran: exit 0, $3 increments, release $version" || fail "$1 run (exit $rc)"
}

echo "== 2. pkg-config"
export PKG_CONFIG_PATH="$root/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
flags=$(pkg-config --cflags --libs gasnet_tools-seq); mv=$(pkg-config --modversion gasnet_tools-seq)
echo "pkg-config --cflags --libs gasnet_tools-seq: $flags (version $mv)"
[ "$mv" = "$version" ] || fail "pkg-config version $mv, want $version"
${CC:-cc} -Wall -Wextra -Werror "$tmp/app.c" $flags -o "$tmp/app-pc" 2>"$tmp/cc.log" \
  && check_app "pkg-config gasnet_tools-seq" "$tmp/app-pc" 50000 || { fail "cc with pkg-config"; cat "$tmp/cc.log"; }
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

echo "== 3. gasnet_tools-par.mak"
cat > "$tmp/Makefile" <<'MK'
include $(GASNETTOOLS_PREFIX)/include/gasnet_tools-par.mak
app-mak: app.o
	$(GASNETTOOLS_LD) $(GASNETTOOLS_LDFLAGS) -o $@ app.o $(GASNETTOOLS_LIBS)
app.o: app.c
	$(GASNETTOOLS_CC) $(GASNETTOOLS_CPPFLAGS) $(GASNETTOOLS_CFLAGS) -c app.c
MK
if make -s -C "$tmp" GASNETTOOLS_PREFIX="$root" app-mak >"$tmp/make.log" 2>&1; then
  check_app "gasnet_tools-par.mak" "$tmp/app-mak" 100000
else
  fail "make with gasnet_tools-par.mak"; cat "$tmp/make.log"
fi

echo "== 4. gasnet_tools-seq.mak through the GASNET_* names"
cat > "$tmp/Makefile.gasnet" <<'MK'
include $(GASNET_PREFIX)/include/gasnet_tools-seq.mak
app-alias: app.c
	$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -c app.c -o app-alias.o
	$(GASNET_LD) $(GASNET_LDFLAGS) -o $@ app-alias.o $(GASNET_LIBS)
MK
if make -s -C "$tmp" -f Makefile.gasnet GASNET_PREFIX="$root" app-alias >"$tmp/make.log" 2>&1; then
  check_app "gasnet_tools-seq.mak (GASNET_*)" "$tmp/app-alias" 50000
else
  fail "make with GASNET_* of gasnet_tools-seq.mak"; cat "$tmp/make.log"
fi
[ $fails = 0 ] && echo "t-install: all passed"
exit $fails
