#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim-identical.sh - nodeshare-sim's schedules do not change (TAP): every
# policy replays the real traces of ../shared/traces (KTH and NASA as
# their headers give them and on nodes of 4 cores, RICC as its header
# gives it) and the table, the JSON and the CSV it writes have the
# SHA-256 listed in tests/golden/sim-identical.sha256.  The JSON's
# wall_s and peak_rss_mb lines (measurements of the run, not of the
# schedule) are left out of its sum, and an empty object is written as {}
# whichever way json-c prints it (json-c 0.16 on Debian 12 spreads it
# over two lines, 0.18 on Debian 13 does not).  No job of these traces
# gains from striping: the sharing policies take pack's replay, and with
# --replay-all, replayed each, must give the same sums.  The traces are looked for in
# $NS_TRACES, else ../shared/traces beside the source tree; a missing
# trace is skipped.  RICC (447,794 jobs, every policy: about 15 s of CPU)
# runs only with NS_SIM_FULL=1 (`make bench` sets it); `make check` (also
# under the sanitizers) replays KTH and NASA.
#
#   tests/cmd/sim-identical.sh            compare (TAP)
#   tests/cmd/sim-identical.sh --write    write the list anew (after a
#                                         change meant to move schedules;
#                                         with NS_SIM_FULL=1 for RICC)
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"
sim="$top_builddir/nodeshare-sim"
traces=${NS_TRACES:-$top_srcdir/../shared/traces}
list="$top_srcdir/tests/golden/sim-identical.sha256"
write=0
[ "${1:-}" = --write ] && write=1
: >"$tmp/sums"

# replay NAME TRACE ARGS...: one run of every policy; three sums.
# With KEY=K set, the sums must be those listed for K (another way to
# the same schedules) and are not written by --write.
replay () {
    name=$1 trace=$2
    key=${KEY:-$1}
    shift 2
    if [ ! -f "$traces/$trace" ]; then
        skip "$name: $traces/$trace not found"
        return
    fi
    if ! (cd "$traces" && "$sim" -q --json "$tmp/out.json" \
        --csv "$tmp/out.csv" "$@" "$trace") >"$tmp/out.txt" 2>"$tmp/err"
    then
        fail "$name: nodeshare-sim failed"
        sed 's/^/#   /' "$tmp/err"
        return
    fi
    grep -v '"wall_s":\|"peak_rss_mb":' "$tmp/out.json" \
        | sed -e ':a' -e 'N' -e '$!ba' -e 's/{\n *}/{}/g' >"$tmp/out.sched"
    for f in txt sched csv; do
        sum=$(sha256sum <"$tmp/out.$f" | cut -d ' ' -f 1)
        if [ $write = 1 ]; then
            [ -n "${KEY:-}" ] && continue
            echo "$sum $name.$f" >>"$tmp/sums"
            pass "$name.$f: $sum"
            continue
        fi
        want=$(awk -v k="$key.$f" '$2 == k { print $1 }' "$list")
        if [ -z "$want" ]; then
            fail "$name.$f: $key.$f not in $list"
        elif [ "$sum" = "$want" ]; then
            pass "$name.$f: identical"
        else
            fail "$name.$f: $sum, listed $want for $key.$f"
        fi
    done
}

kth=KTH-SP2-1996-2.1-cln.swf.gz
nasa=NASA-iPSC-1993-3.1-cln.swf.gz
ricc=RICC-2010-2.swf.gz
replay kth "$kth" -p all
replay kth-25x4 "$kth" -p all -n 25 -C 4
replay kth-25x4-depth50 "$kth" -p pack,exclusive,twins -n 25 -C 4 \
    --bf-depth 50
replay kth-25x4-overrun "$kth" -p pack,exclusive,twins -n 25 -C 4 \
    --overrun run
replay kth-25x4-none "$kth" -p pack,exclusive,twins -n 25 -C 4 -b none
replay nasa "$nasa" -p all
replay nasa-32x4 "$nasa" -p all -n 32 -C 4
# No job of these traces gains from striping: the sharing policies take
# pack's replay unless --replay-all, which must give the same outputs.
# replay_all KEY NAME TRACE ARGS...
replay_all () {
    KEY=$1
    shift
    replay "$@" --replay-all
    KEY=
}
replay_all kth kth-replay-all "$kth" -p all
replay_all kth-25x4 kth-25x4-replay-all "$kth" -p all -n 25 -C 4
replay_all nasa-32x4 nasa-32x4-replay-all "$nasa" -p all -n 32 -C 4
if [ "${NS_SIM_FULL:-0}" = 1 ]; then
    replay ricc "$ricc" -p all
    replay ricc-keep-user27 "$ricc" -p keep:user27
    replay_all ricc ricc-replay-all "$ricc" -p all
else
    skip "RICC: NS_SIM_FULL=1 replays it (make bench)"
fi
if [ $write = 1 ]; then
    # keep the sums of traces missing here
    if [ -f "$list" ]; then
        awk 'NR == FNR { have[$2] = 1; next } !($2 in have)' \
            "$tmp/sums" "$list" >"$tmp/kept"
        cat "$tmp/kept" >>"$tmp/sums"
    fi
    sort -k 2 "$tmp/sums" >"$list"
fi
tap_end
