#!/bin/bash
# timeout: 120
# t-ssh-tree.sh - gasnetrun's ssh spawn tree over 8 "hosts" 127.0.0.1-8 (one
# throw-away sshd listening on all 8) with GASNET_SSH_OUT_DEGREE=2: every
# rank's bootstrap data are right, rank r runs on the host of its block
# (ranks blocked by host, in host-list order), the relays form a tree of
# fan-out <= 2 and depth >= 2 that reaches each host once; the same through
# GASNET_SSH_NODEFILE, --hostfile, GASNET_SSH_SERVERS and -N; 10 ranks on 4
# hosts (not a multiple); 64 ranks with a 4 MiB exchange; 32000 output lines;
# a rank's exit code comes back through the tree; 32 hosts with fan-out 3.
set -u
lib=$(cd "$(dirname "$0")/../lib" && pwd)
. "$lib/sshd.sh"
. "$lib/probe.sh"
sshd_require

probe_require
hosts=(); for i in 1 2 3 4 5 6 7 8; do hosts+=("127.0.0.$i"); done
sshd_start lo "${hosts[@]}" || mh_fail "sshd did not start"
sshd_check 127.0.0.8 || mh_fail "ssh to the test sshd does not work"
echo "sshd on ${hosts[*]} port $SSHD_PORT"
unset GASNET_SSH_SERVERS GASNET_SSH_NODEFILE GASNET_CSPAWN_CMD GASNET_SSH_REMOTE_PATH
export GASNET_SSH_OUT_DEGREE=2
hl=$(IFS=,; echo "${hosts[*]}")
marker="gnt-ssh-tree-$$"

# 1. -H, 16 ranks, 2 per host; the tree is looked at while the ranks sleep
mkdir -p "$MH_DIR/b1"
probe_bg j1 -n 16 -H "$hl" "$PROBE" --dir "$MH_DIR/b1" --sleep 3 "$marker"
if probe_wait_ok "$JOB_OUT" 16 60; then
    probe_ssh_edges "${hosts[@]}" | sort >"$MH_DIR/edges"
    echo "  ssh edges (from to): $(tr '\n' ',' <"$MH_DIR/edges")"
    probe_tree_check 2 2 "${hosts[@]}" <"$MH_DIR/edges" || fail "spawn tree shape"
    # the job's secret travels in "GASNETRUN1 <hex> ..." tickets on pipes
    # and ssh's stdin only: no argv or environment of any process holds one
    leak=$(env -u GNT_MH_TAG grep -lsE "GASNETRUN[1] " /proc/[0-9]*/cmdline /proc/[0-9]*/environ)  # [1]: not itself
    echo "  processes with a ticket in argv or environment: ${leak:-none}"
    [ -z "$leak" ] || fail "job ticket visible in $leak"
else
    fail "16 ranks did not all report within 60 s"
fi
probe_bg_wait 60
echo "  -> exit $JOB_RC"
if [ "$JOB_RC" != 0 ]; then fail "-H job exited $JOB_RC"; probe_show_job
else probe_check_job 16 "${hosts[@]}" || fail "-H job data"; fi

# 2. GASNET_SSH_NODEFILE, one host per line
printf '%s\n' "${hosts[@]}" >"$MH_DIR/nodefile"
mkdir -p "$MH_DIR/b2"
GASNET_SSH_NODEFILE=$MH_DIR/nodefile probe_job 60 j2 -n 16 "$PROBE" --dir "$MH_DIR/b2" "$marker"
if [ "$JOB_RC" != 0 ]; then fail "GASNET_SSH_NODEFILE job exited $JOB_RC"; probe_show_job
else probe_check_job 16 "${hosts[@]}" || fail "GASNET_SSH_NODEFILE job data"; fi

# 3. --hostfile written by hand: comments, blank lines, extra words
#    (OpenMPI's "slots="), CRLF line ends; 24 ranks (3 per host), a bigger
#    exchange
{
    printf '# test hosts\r\n\r\n'
    for h in "${hosts[@]}"; do printf '  %s slots=3 # a host\r\n' "$h"; done
    printf '\n# end\n'
} >"$MH_DIR/hostfile"
mkdir -p "$MH_DIR/b3"
PROBE_BIG=65536 probe_job 60 j3 -n 24 --hostfile "$MH_DIR/hostfile" "$PROBE" --dir "$MH_DIR/b3" --big 65536 "$marker"
if [ "$JOB_RC" != 0 ]; then fail "--hostfile job exited $JOB_RC"; probe_show_job
else PROBE_BIG=65536 probe_check_job 24 "${hosts[@]}" || fail "--hostfile job data"; fi

# 4. GASNET_SSH_SERVERS (commas and blanks mixed), one rank per host
mkdir -p "$MH_DIR/b4"
GASNET_SSH_SERVERS="${hosts[0]}, ${hosts[1]}  ${hosts[2]},${hosts[3]} ${hosts[*]:4}" probe_job 60 j4 -n 8 "$PROBE" --dir "$MH_DIR/b4" "$marker"
if [ "$JOB_RC" != 0 ]; then fail "GASNET_SSH_SERVERS job exited $JOB_RC"; probe_show_job
else probe_check_job 8 "${hosts[@]}" || fail "GASNET_SSH_SERVERS job data"; fi

# 5. -N 4: 8 ranks on the first 4 hosts of the list
mkdir -p "$MH_DIR/b5"
probe_job 60 j5 -n 8 -N 4 -H "$hl" "$PROBE" --dir "$MH_DIR/b5" "$marker"
if [ "$JOB_RC" != 0 ]; then fail "-N 4 job exited $JOB_RC"; probe_show_job
else probe_check_job 8 "${hosts[@]:0:4}" || fail "-N 4 job data"; fi

# 5b. 10 ranks on 4 hosts (not a multiple): blocks of 2 or 3, in list order
mkdir -p "$MH_DIR/b5b"
probe_job 60 j5b -n 10 -N 4 -H "$hl" "$PROBE" --dir "$MH_DIR/b5b" "$marker"
if [ "$JOB_RC" != 0 ]; then fail "-n 10 -N 4 job exited $JOB_RC"; probe_show_job
else probe_check_job 10 "${hosts[@]:0:4}" || fail "-n 10 -N 4 job data"; fi

# 5c. 64 ranks, 8 per host, a 64 KiB pattern each (4 MiB gathered)
mkdir -p "$MH_DIR/b5c"
PROBE_BIG=65536 probe_job 90 j5c -n 64 -H "$hl" "$PROBE" --dir "$MH_DIR/b5c" --big 65536 "$marker"
if [ "$JOB_RC" != 0 ]; then fail "64-rank job exited $JOB_RC"; probe_show_job
else PROBE_BIG=65536 probe_check_job 64 "${hosts[@]}" || fail "64-rank job data"; fi

# 5d. output volume: 16 ranks x 2000 lines through the tree, every line
#     whole and none lost
probe_job 90 j5d -n 16 -H "$hl" "$PROBE" --spew 2000 "$marker"
bad=$(awk '{ i = index($0, "probe-spew:"); if (!i) next; $0 = substr($0, i)
             r = $3; l = $5; want = sprintf("%60s", ""); c = sprintf("%c", 97 + (r + l) % 26); gsub(/ /, c, want)
             if (NF != 6 || $6 != want || seen[r, l]++) { bad++; if (bad < 4) print "bad line: " $0 }
             n[r]++ }
           END { for (r = 0; r < 16; r++) if (n[r] != 2000) print "rank " r ": " n[r] + 0 " lines" }' "$JOB_OUT")
echo "  -> exit $JOB_RC, $(grep -c 'probe-spew:' "$JOB_OUT") spew lines (want 32000)${bad:+; $bad}"
[ "$JOB_RC" = 0 ] && [ -z "$bad" ] || fail "output through the tree: ${bad:-exit $JOB_RC}"

# 6. rank 9 (on 127.0.0.5, two relays down the tree) exits 7: launcher exits 7
probe_job 60 j6 -n 16 -H "$hl" "$PROBE" --exit 9:7 "$marker"
echo "  expected exit 7 (rank 9 exits 7, the others 0)"
[ "$JOB_RC" = 7 ] || { fail "launcher exited $JOB_RC, expected 7"; probe_show_job; }

# 7. 32 hosts (127.0.0.1-32, a second set of daemons on another port: one
#    sshd listens on 16 addresses at most), fan-out 3: depth 3, 64 ranks
wide=(); for i in $(seq 1 32); do wide+=("127.0.0.$i"); done
sshd_start wide "${wide[@]}" || mh_fail "sshd for 32 hosts did not start"
echo "sshd on 127.0.0.1-32 port $SSHD_PORT ($(ls -d "$MH_DIR"/sshd-wide* | wc -l) daemons)"
mkdir -p "$MH_DIR/b7"
GASNET_SSH_OUT_DEGREE=3 probe_bg j7 -n 64 -H "$(IFS=,; echo "${wide[*]}")" "$PROBE" --dir "$MH_DIR/b7" --sleep 6 "$marker"
if probe_wait_ok "$JOB_OUT" 64 60; then
    probe_ssh_edges "${wide[@]}" | probe_tree_check 3 3 "${wide[@]}" || fail "32-host spawn tree shape"
else
    fail "64 ranks on 32 hosts did not all report within 60 s"
fi
probe_bg_wait 60
echo "  -> exit $JOB_RC"
if [ "$JOB_RC" != 0 ]; then fail "32-host job exited $JOB_RC"; probe_show_job
else probe_check_job 64 "${wide[@]}" || fail "32-host job data"; fi

mh_wait_gone 5 "$marker" || fail "processes of the jobs left behind"
mh_finish
