#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# expect-judge.sh - how tests/slurm/expect.sh compares stock with nodeshare
# (TAP; no cluster): the node counts of jobcomp/filetxt lines
# (tests/slurm/jobcomp.sh), jobs cancelled within 2 s of submission
# uncounted when the sides differ only in them, and NS_EXPECT_JUDGE
# judging a kept scratch directory again: a test that agrees, one listed in
# expect-differences-24.11.txt, one that agrees only in round 2, and one
# that differs.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"
. "$top_srcdir/tests/slurm/jobcomp.sh"

# check NAME GOT WANT
check () {
    if [ "$2" = "$3" ]; then
        pass "$1"
    else
        fail "$1"
        echo "#   got:  [$2]"
        echo "#   want: [$3]"
    fi
}

# job ID STATE SUBMIT END NODECNT PROCCNT: one jobcomp/filetxt line as
# Slurm 24.11 writes it.
job () {
    if [ "$5" = 0 ]; then nl='(null)'; else nl='ns1'; fi
    echo "JobId=$1 UserId=root(0) GroupId=root(0) Name=input JobState=$2 Partition=debug TimeLimit=2 StartTime=$4 EndTime=$4 NodeList=$nl NodeCnt=$5 ProcCnt=$6 WorkDir=/tmp/ts ReservationName= Tres=cpu=1,mem=8000M,node=1,billing=1 Account= QOS= WcKey= Cluster=unknown SubmitTime=$3 EligibleTime=$3 DerivedExitCode=0:0 ExitCode=0:0 "
}

# Slurm's test17.23 submits three jobs and cancels them at once: stock's
# scheduler started them a second later, nodeshare's had not yet.
{
    job 1 COMPLETED 2026-11-25T21:58:00 2026-11-25T21:58:30 2 30
    job 6 CANCELLED 2026-11-25T21:58:56 2026-11-25T21:58:57 1 1
    job 7 CANCELLED 2026-11-25T21:58:56 2026-11-25T21:58:57 1 1
    job 8 CANCELLED 2026-11-25T21:58:56 2026-11-25T21:58:57 1 1
} >"$tmp/stock.txt"
{
    job 1 COMPLETED 2026-11-25T21:58:00 2026-11-25T21:58:30 2 30
    job 6 CANCELLED 2026-11-25T21:59:00 2026-11-25T21:59:00 0 0
    job 7 CANCELLED 2026-11-25T21:59:00 2026-11-25T21:59:00 0 0
    job 8 CANCELLED 2026-11-25T21:59:00 2026-11-25T21:59:00 0 0
} >"$tmp/ns.txt"
check "nodecounts: stock's started jobs" "$(nodecounts "$tmp/stock.txt" 1)" "1:1x3"
check "nodecounts: nodeshare's jobs cancelled before a pass" "$(nodecounts "$tmp/ns.txt" 1)" "0:0x3"
check "nodecounts: from the first line" "$(nodecounts "$tmp/stock.txt" 0)" "1:1x3 2:30"
check "stablecounts: stock's jobs cancelled in 1 s uncounted" "$(stablecounts "$tmp/stock.txt" 0)" "cx3 2:30"
check "stablecounts: nodeshare's the same" "$(stablecounts "$tmp/ns.txt" 0)" "cx3 2:30"
{
    job 2 CANCELLED 2026-11-25T10:00:00 2026-11-25T10:00:03 4 30
    job 3 CANCELLED 2026-11-25T10:00:00 2026-11-25T10:00:02 2 30
    job 4 CANCELLED 2026-12-31T23:59:59 2027-01-01T00:00:01 1 1
    job 5 CANCELLED 2026-02-28T23:59:59 2026-03-01T00:00:05 1 24
    job 9 TIMEOUT 2026-11-25T10:00:00 2026-11-25T10:00:01 3 3
    job 10 CANCELLED Unknown 2026-11-25T10:00:01 3 6
} >"$tmp/edges.txt"
check "stablecounts: 2 s and 2 s over a year's end uncounted; 3 s, 6 s over a month's end, TIMEOUT, an unknown time counted" \
    "$(stablecounts "$tmp/edges.txt" 0)" "cx2 1:24 3:3 3:6 4:30"

# A kept scratch directory judged again (NS_EXPECT_JUDGE).
mk () {   # SIDE.ROUND TEST RESULT SECONDS COUNTS STABLE
    mkdir -p "$tmp/s/$1"
    echo "$2 $3 $4 $5" >>"$tmp/s/$1/results"
    echo "$2 $3 $6" >>"$tmp/s/$1/stable"
}
mkdir -p "$tmp/s"
echo 24.11 >"$tmp/s/version"
mk stock.1     test17.23 pass 2 1:1x3 cx3
mk nodeshare.1 test17.23 pass 0 0:0x3 cx3
mk stock.1     test1.35 pass 1 2:30 2:30
mk nodeshare.1 test1.35 pass 1 4:30 4:30
mk stock.1     test1.30 pass 1 "0:0 1:1 2:2 4:4" "c 1:1 2:2 4:4"
mk nodeshare.1 test1.30 pass 1 "1:1x2 2:2 4:4" "c 1:1 2:2 4:4"
mk stock.1     test15.23 fail 30 1:1 1:1
mk nodeshare.1 test15.23 pass 0 1:1 1:1
mk stock.2     test15.23 pass 0 1:1 1:1
mk nodeshare.2 test15.23 pass 0 1:1 1:1
export top_srcdir top_builddir
judge () {
    NS_EXPECT_JUDGE=$tmp/s sh "$top_srcdir/tests/slurm/expect.sh" >"$tmp/judge.out" 2>&1
}
judge
rc=$?
check "judge: exit status, all agree or listed" "$rc" 0
check "judge: test17.23 agrees without the jobs cancelled at once" \
    "$(grep -c '^ok [0-9]* - test17.23: pass 0:0x3 ' "$tmp/judge.out")" 1
check "judge: test1.35 is listed" \
    "$(grep -c '^ok [0-9]* - test1.35: stock \[pass 2:30\] nodeshare \[pass 4:30\]: listed' "$tmp/judge.out")" 1
check "judge: test1.30 agrees without the job cancelled at once" \
    "$(grep -c '^ok [0-9]* - test1.30: pass 1:1x2 2:2 4:4 ' "$tmp/judge.out")" 1
check "judge: test15.23 agrees in round 2" \
    "$(grep -c '^ok [0-9]* - test15.23: pass 1:1 ' "$tmp/judge.out")" 1
check "judge: summary" \
    "$(grep -c '^# 3 tests alike (2 of them in jobs cancelled at once only), 1 listed differences, 0 unexplained differences' "$tmp/judge.out")" 1
check "judge: plan" "$(grep -c '^1\.\.4$' "$tmp/judge.out")" 1

# A real difference: a job of 24 CPUs on 2 nodes where stock gives 1.
mk stock.1     test1.14 pass 3 "1:24 1:1" "c 1:24"
mk nodeshare.1 test1.14 pass 3 "2:24 0:0" "c 2:24"
judge
rc=$?
check "judge: a difference fails" "$rc" 1
check "judge: the difference is named" \
    "$(grep -c '^not ok [0-9]* - test1.14: stock \[pass 1:24 1:1\] nodeshare \[pass 2:24 0:0\]$' "$tmp/judge.out")" 1

rm -f "$tmp/s/version"
judge
rc=$?
check "judge: no version recorded" "$rc:$(grep -c '^Bail out! NS_EXPECT_JUDGE: .*/version: no Slurm version recorded' "$tmp/judge.out")" 1:1
rm -rf "$tmp/s/stock.1"
echo 24.11 >"$tmp/s/version"
judge
rc=$?
check "judge: not a kept directory" "$rc:$(grep -c '^Bail out! NS_EXPECT_JUDGE: .*: expected a directory kept by tests/slurm/expect.sh' "$tmp/judge.out")" 1:1
tap_end
