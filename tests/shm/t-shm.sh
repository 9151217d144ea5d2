#!/bin/bash
# timeout: 150
# conduits: udp tcp
# bypass: on
# t-shm.sh - ranks of one host exchange AMs through shared memory (the shm
# transport, amshm/) when the bypass is on, and through the network when
# GASNET_SUPERNODE_MAXSIZE=1; with GASNET_SUPERNODE_MAXSIZE=2 on 4 ranks,
# both in one job (two neighbourhoods). Existing AM programs (t_amstress,
# t_core, t_ext, t_ex_am, t_ex_rma, t_ex_sys) must pass, and the counters
# (GASNET_STATSFILE) must say which transport carried the frames. The
# bypass's own test: it turns the bypass off (or halves it) per run where
# it means to, and wants the other runs over shm, so only with it on.
set -u
. "$TOP/tests/lib/conduit.sh"
. "$TOP/tests/shm/shm.sh"
amstress=$(shm_bin core t_amstress)
equal='requests sent, .* handled: equal'
for n in 2 4; do
  shm_run "amstress bypass on" $n "$equal" "$amstress" GASNET_SUPERNODE_MAXSIZE=0
  f=$(shm_each shm_frames_sent); w=$(shm_sum $net_frames)
  echo "   shm frames sent per rank: $f; $net_frames (all ranks): $w"
  shm_expect "every rank sent over shm, none over the network" \
    "! echo ' $f' | grep -q ' 0 ' && [ -n '$f' ] && [ '$w' = 0 ]"
done
shm_run "amstress bypass off" 2 "$equal" "$amstress" GASNET_SUPERNODE_MAXSIZE=1
f=$(shm_sum shm_frames_sent); w=$(shm_sum $net_frames)
echo "   shm frames sent (all ranks): $f; $net_frames: $w"
shm_expect "nothing over shm, all over the network" "[ '$f' = 0 ] && [ '$w' -gt 0 ]"
shm_run "amstress mixed (2 neighbourhoods of 2)" 4 "$equal" "$amstress" GASNET_SUPERNODE_MAXSIZE=2
f=$(shm_each shm_frames_sent); w=$(shm_each $net_frames)
echo "   shm frames sent per rank: $f; $net_frames per rank: $w"
shm_expect "every rank used both" "! echo ' $f $w' | grep -q ' 0 ' && [ -n '$f' ] && [ -n '$w' ]"

export T_CORE_ENV=hello-env
shm_run "t_core" 2 'round trips with all' "$(shm_bin core t_core)"
shm_expect "shm carried t_core (shm frames $(shm_sum shm_frames_sent))" "[ $(shm_sum shm_frames_sent) -gt 0 ]"
shm_run "t_ext" 2 '^t_ext: node .* transfers verified' "$(shm_bin extended t_ext)" T_EXT_TIMES=1
shm_expect "shm carried t_ext (shm frames $(shm_sum shm_frames_sent))" "[ $(shm_sum shm_frames_sent) -gt 0 ]"
shm_run "t_ex_am" 4 'all GASNet-EX checks passed' "$(shm_bin ex t_ex_am)"
shm_expect "shm carried t_ex_am (shm frames $(shm_sum shm_frames_sent))" "[ $(shm_sum shm_frames_sent) -gt 0 ]"
shm_run "t_ex_rma" 2 'all GASNet-EX RMA checks passed' "$(shm_bin ex t_ex_rma)"
shm_expect "shm carried t_ex_rma (shm frames $(shm_sum shm_frames_sent))" "[ $(shm_sum shm_frames_sent) -gt 0 ]"

# gex_System_QueryNbrhdInfo on 4 ranks: 4 members on, 1 off, 2 with chunks of 2
sys=$(shm_bin ex t_ex_sys)
for m in 0:4 1:1 2:2; do
  shm_run "t_ex_sys GASNET_SUPERNODE_MAXSIZE=${m%:*}" 4 'all GASNet-EX system checks passed' "$sys" GASNET_SUPERNODE_MAXSIZE=${m%:*}
  got=$(echo "$out" | grep -c "neighbourhood of ${m#*:} ranks")
  echo "$out" | grep 'neighbourhood of' | sort | uniq -c | sed 's/^/   /'
  shm_expect "4 ranks report a neighbourhood of ${m#*:} (got $got)" "[ $got = 4 ]"
done
[ $fails = 0 ] && echo "t-shm: all passed"
exit $fails
