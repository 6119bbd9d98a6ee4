#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cmd/nodeshare-place.sh - exact decisions of nodeshare-place (TAP):
# small jobs, pack, the twin rule as a preference and as a strict rule,
# programs without figures, explicit shapes.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
place=$top_builddir/nodeshare-place
study=$top_srcdir/examples/abq-lam-lsd.json
n=0 failed=0
tmp=$(mktemp -d /tmp/nsplace.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# check NAME WANT ARGS...: the output of nodeshare-place ARGS is WANT.
check () {
    local name want got
    name=$1 want=$2; shift 2
    got=$("$place" "$@" 2>&1)
    n=$((n + 1))
    if [ "$got" = "$want" ]; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name"
        printf '%s\n' "# got:" "$got" "# want:" "$want" | sed 's/^/#   /'
        failed=$((failed + 1))
    fi
}

check "six one-core jobs of six programs all start on 2 x 24 (default)" \
"job 1 (A, 1 cores) [twins]: nodes 0 (1 cores) by pack (small job)
job 2 (B, 1 cores) [twins]: nodes 0 (1 cores) by pack (small job), sharing 1 node
job 3 (C, 1 cores) [twins]: nodes 0 (1 cores) by pack (small job), sharing 1 node
job 4 (D, 1 cores) [twins]: nodes 0 (1 cores) by pack (small job), sharing 1 node
job 5 (E, 1 cores) [twins]: nodes 0 (1 cores) by pack (small job), sharing 1 node
job 6 (F, 1 cores) [twins]: nodes 0 (1 cores) by pack (small job), sharing 1 node" \
    -n 2 -C 24 A:1 B:1 C:1 D:1 E:1 F:1

check "programs without figures: no predicted gain, packed" \
"job 1 (LAM, 24 cores) [twins]: nodes 0 (24 cores) by pack (no predicted gain)
job 2 (LAM, 2 cores) [twins]: nodes 1 (2 cores) by pack (small job)" \
    LAM:24 LAM:2

check "study figures: stripe, small jobs on busy nodes, twin preference" \
"job 1 (LAM, 24 cores) [twins]: nodes 0,1 (12+12 cores) by stripe-empty
job 2 (LAM, 24 cores) [twins]: nodes 2,3 (12+12 cores) by stripe-empty
job 3 (LSD, 4 cores) [twins]: nodes 0 (4 cores) by pack (small job), sharing 1 node
job 4 (ABQ, 1 cores) [twins]: nodes 0 (1 cores) by pack (small job), sharing 1 node
job 5 (LAM, 24 cores) [twins]: nodes 0,1,2 (7+12+5 cores) by fallback, sharing 3 nodes
job 6 (LSD, 24 cores) [twins]: waits (resources): needs 24 free cores (fallback), 19 free" \
    -c "$study" LAM:24 LAM:24 LSD:4 ABQ:1 LAM:24 LSD:24

check "pack: stock Slurm's best fit" \
"job 1 (LAM, 24 cores) [pack]: nodes 0 (24 cores) by pack (stock Slurm)
job 2 (LAM, 24 cores) [pack]: nodes 1 (24 cores) by pack (stock Slurm)
job 3 (LSD, 4 cores) [pack]: nodes 2 (4 cores) by pack (stock Slurm)
job 4 (ABQ, 1 cores) [pack]: nodes 2 (1 cores) by pack (stock Slurm), sharing 1 node
job 5 (LAM, 24 cores) [pack]: nodes 3 (24 cores) by pack (stock Slurm)
job 6 (LSD, 24 cores) [pack]: waits (resources): needs 24 free cores (pack, stock Slurm), 19 free" \
    -p pack LAM:24 LAM:24 LSD:4 ABQ:1 LAM:24 LSD:24

check "pack: a job no node holds spreads over nodes in index order" \
"job 1 (LAM, 3 cores) [pack]: nodes 0 (3 cores) by pack (stock Slurm)
job 2 (LSD, 10 cores) [pack]: nodes 0 (10 cores) by pack (stock Slurm), sharing 1 node
job 3 (ABQ, 30 cores) [pack]: nodes 0,1 (11+19 cores) by pack (stock Slurm), sharing 1 node" \
    -p pack LAM:3 LSD:10 ABQ:30

sed -e 's/"fallback_after": 0/"fallback_after": -1/' "$study" >"$tmp/strict.json"
check "strict twins (fallback_after -1): the twin waits" \
"job 1 (LAM, 24 cores) [twins]: nodes 0,1 (12+12 cores) by stripe-empty
job 2 (LAM, 24 cores) [twins]: nodes 2,3 (12+12 cores) by stripe-empty
job 3 (LAM, 24 cores) [twins]: waits (twin): needs 2 nodes with 12 free cores (stripe-empty), 0 admissible; refused twin 4 nodes (0 1 2 ...)" \
    -c "$tmp/strict.json" LAM:24 LAM:24 LAM:24

check "small jobs do not use up the pair limit of the striped jobs" \
"job 1 (LSD, 24 cores) [twins]: nodes 0,1 (12+12 cores) by stripe-empty
job 2 (LAM, 1 cores) [twins]: nodes 0 (1 cores) by pack (small job), sharing 1 node
job 3 (ABQ, 1 cores) [twins]: nodes 0 (1 cores) by pack (small job), sharing 1 node
job 4 (LAM, 20 cores) [twins]: nodes 0,1 (10+10 cores) by stripe-share, sharing 2 nodes" \
    -n 2 -c "$study" LSD:24 LAM:1 ABQ:1 LAM:20

# The programs' error convention (cmd/cmdline.h): one line
# "PROGRAM: what", exit 2 for a wrong command line or configuration.
status () {   # NAME WANT_STATUS WANT_MESSAGE ARGS...
    local name want msg got rc
    name=$1 want=$2 msg=$3; shift 3
    got=$("$place" "$@" 2>&1 >/dev/null)
    rc=$?
    n=$((n + 1))
    if [ "$rc" = "$want" ] && [ "$got" = "$msg" ]; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name"
        echo "#   exit $rc, said: $got"
        failed=$((failed + 1))
    fi
}
status "unknown option: exit 2, one line" 2 \
    "nodeshare-place: unknown option '--bogus' (see --help)" --bogus A:1
status "malformed job: exit 2" 2 \
    "nodeshare-place: job 'A:x': expected PROGRAM:TASKS or PROGRAM:TASKSxCPUS, e.g. LAM:24" A:x
status "missing configuration: exit 2" 2 \
    "nodeshare-place: $tmp/none.json: cannot open: No such file or directory" \
    -c "$tmp/none.json" A:1

echo "1..$n"
[ "$failed" -eq 0 ]
