#!/bin/bash
# timeout: 30
# amudp's engine files (amudp_engine.h lists them) make no system call,
# take no lock and read no clock: their output goes through the port's
# amudp_port_ops_t and the core's callbacks, the time comes in as an
# argument (docs/transport-udp.md, "The engine and the port"). Comments
# are stripped first, so prose may name what the code may not call.
set -eu
top="${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
engine="amudp_engine.h amudp_engine.c amudp_reliable.c amudp_cc.c amudp_live.c amudp_frag.c
        amudp_wire.c amudp_wire.h"
calls='socket|bind|connect|listen|accept|send|sendto|sendmsg|sendmmsg|recv|recvfrom|recvmsg'
calls+='|recvmmsg|read|write|readv|writev|poll|ppoll|select|epoll_[a-z_]+|ioctl|fcntl|open'
calls+='|close|setsockopt|getsockopt|getsockname|getpid|sched_yield|usleep|nanosleep|sleep'
calls+='|clock_gettime|gettimeofday|time|gasneti_now_ns|gasneti_sys_[a-z_]+|getenv'
calls+='|pthread_[a-z_]+|AMUDP_LOCK|AMUDP_UNLOCK|amudp_xmit|amudp_tx_begin|amudp_tx_end'
calls+='|amudp_peer_socket|amudp_fault_[a-z_]+|amudp_env_num'
bad=0
for f in $engine; do
  [ -f "$top/amudp/$f" ] || { echo "missing engine file amudp/$f"; exit 1; }
  # strip /* */ comments (they may span lines) and string literals
  hits=$(perl -0777 -pe 's{/\*.*?\*/}{ }gs; s{"(\\.|[^"\\])*"}{""}g' "$top/amudp/$f" |
         grep -nE "(^|[^A-Za-z0-9_.>])($calls)[[:space:]]*\(" || true)
  if [ -n "$hits" ]; then
    echo "amudp/$f calls what the engine may not:"; echo "$hits"; bad=1
  fi
  if grep -nE '#include[[:space:]]*[<"](amudp_port\.h|gasneti_time\.h|gasneti_sys\.h|pthread\.h|poll\.h|unistd\.h|sys/epoll\.h|time\.h)[>"]' "$top/amudp/$f"; then
    echo "amudp/$f includes a port or system-call header"; bad=1
  fi
done
[ $bad = 0 ] || exit 1
echo "t-engine-pure: $(echo $engine | wc -w) engine files: no system call, lock or clock read"
