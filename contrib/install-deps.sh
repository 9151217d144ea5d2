#!/bin/sh
# Install the Debian packages the build and the tests need, when one is
# missing and we are root. Not root: say what is missing and go on (configure
# then names the package it could not find).
PKGS="build-essential autoconf automake libtool pkg-config libuv1-dev zlib1g-dev \
openssh-server openssh-client iproute2 procps psmisc valgrind \
mpich libmpich-dev openmpi-bin libopenmpi-dev libpmix-dev libpmi2-0-dev slurmd slurmctld slurm-client munge"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || true
  apt-get install -y -qq $missing >/dev/null 2>&1 || {
    echo "install-deps: apt-get install$missing failed" >&2; exit 1; }
else
  echo "install-deps: missing Debian packages:$missing (run as root to install them)" >&2
fi
exit 0
