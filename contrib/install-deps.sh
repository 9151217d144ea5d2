#!/bin/sh
# contrib/install-deps.sh [--tests]
# Install the Debian packages the build needs (with --tests: and the ones the
# test suite runs: MPICH, Open MPI, Slurm, munge; clang with its libFuzzer
# runtime, in libclang-rt-dev, for tests/fuzz), when one is missing and we
# are root. Not root: say what is missing and go on (configure then names the
# package it could not find; a test that lacks one is skipped and says why).
# Services these packages would start on installation (slurmd, munge) are
# not started: the tests start their own, on loopback, and stop them.
PKGS="build-essential autoconf automake libtool pkg-config libuv1-dev zlib1g-dev \
libpmix-dev libpmi2-0-dev \
openssh-server openssh-client iproute2 procps psmisc valgrind"
# nftables: tests/lib/netns.sh drops, duplicates and delays packets in the
# kernel with it (no netem here; the library sends by raw system calls, so
# no libc shim can)
[ "${1:-}" = --tests ] && PKGS="$PKGS mpich libmpich-dev openmpi-bin libopenmpi-dev \
slurmd slurmctld slurm-client munge python3 clang libclang-rt-dev nftables \
python3-matplotlib"
# python3-matplotlib: contrib/gasnet-timeline and tests/bench/plot_curves.py
# draw with it (lanes, arrows, curves to SVG/PNG) rather than with a
# renderer of our own; Debian's, kept up to date there, used by
# /usr/bin/python3.
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  norc=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then   # invoke-rc.d: start nothing
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && norc=1
  fi
  apt-get update -qq >/dev/null 2>&1 || true
  apt-get install -y -qq $missing >/dev/null 2>&1; rc=$?
  [ -n "$norc" ] && rm -f /usr/sbin/policy-rc.d
  [ $rc = 0 ] || { echo "install-deps: apt-get install$missing failed" >&2; exit 1; }
else
  echo "install-deps: missing Debian packages:$missing (run as root to install them)" >&2
fi
exit 0
