#!/usr/bin/env python3
"""fake_pmi1.py MODE PROG [ARGS...] - a PMI-1 server that misbehaves.

Starts PROG as rank 0 of 2 with PMI_FD set to one end of a socket pair and
answers its requests from the other end, correctly until MODE's fault:
  truncated   the get_maxes reply stops mid-line and the socket closes
  oversized   the get_maxes reply is a 100 KB line
  badrc       put_result carries rc=-1 msg=full
  garbage     the init reply is not a PMI line at all
  badvalue    get_result returns a value that is not one of ours
  silent-eof  the server closes the socket at the first barrier
Prints PROG's exit status as 'exit N' or 'signal N', then PROG's stderr.
Every wait is bounded (10 s)."""
import os, socket, subprocess, sys

mode, prog = sys.argv[1], sys.argv[2:]
a, b = socket.socketpair()
env = dict(os.environ, PMI_FD=str(b.fileno()), PMI_RANK="0", PMI_SIZE="2")
for k in ("GASNET_BOOT_FD", "PMIX_NAMESPACE", "PMIX_RANK", "SLURM_STEP_ID"):
    env.pop(k, None)
p = subprocess.Popen(prog, env=env, pass_fds=(b.fileno(),), stderr=subprocess.PIPE)
b.close()
a.settimeout(10)
buf = b""
def reply(s):
    a.sendall(s.encode())
try:
    while True:
        while b"\n" not in buf:
            d = a.recv(4096)
            if not d:
                raise EOFError
            buf += d
        line, buf = buf.split(b"\n", 1)
        cmd = dict(w.split("=", 1) for w in line.decode().split() if "=" in w).get("cmd")
        if cmd == "init":
            if mode == "garbage":
                reply("\x01\x02 hello there\n"); continue
            reply("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n")
        elif cmd == "get_maxes":
            if mode == "truncated":
                reply("cmd=maxes kvsname_max=256 keylen"); a.close(); break
            if mode == "oversized":
                reply("cmd=maxes " + "x" * 100000 + "\n"); continue
            reply("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=0\n")
        elif cmd == "get_my_kvsname":
            reply("cmd=my_kvsname kvsname=kvs_fake rc=0\n")
        elif cmd == "put":
            reply("cmd=put_result rc=-1 msg=full\n" if mode == "badrc" else "cmd=put_result rc=0\n")
        elif cmd == "barrier_in":
            if mode == "silent-eof":
                a.close(); break
            reply("cmd=barrier_out\n")
        elif cmd == "get":
            reply("cmd=get_result rc=0 value=" + ("3.3.AAAA" if mode == "badvalue" else "0.0.") + "\n")
        elif cmd in ("abort", "finalize"):
            if cmd == "finalize":
                reply("cmd=finalize_ack\n")
            break
        else:
            reply("cmd=unknown rc=-1\n")
except (EOFError, OSError, socket.timeout):
    pass
try:
    err = p.communicate(timeout=10)[1].decode(errors="replace")
except subprocess.TimeoutExpired:
    p.kill(); err = p.communicate()[1].decode(errors="replace") + "\n(HUNG: killed after 10 s)"
print("exit %d" % p.returncode if p.returncode >= 0 else "signal %d" % -p.returncode)
sys.stdout.write(err)
