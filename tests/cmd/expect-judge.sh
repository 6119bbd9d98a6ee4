#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# expect-judge.sh - how tests/slurm/expect.sh compares stock with nodeshare
# (TAP; no cluster): the node counts of jobcomp/filetxt lines
# (tests/slurm/jobcomp.sh), jobs cancelled within 2 s of submission and
# node ranges started on nodes just freed uncounted when the sides differ
# only in them, and NS_EXPECT_JUDGE
# judging a kept scratch directory again: a test that agrees, one listed in
# expect-differences-24.11.txt (and differing under 26.05's file, which
# the version 26.05 picks), ones that agree only in round 2 or 3, and one
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
# Slurm 24.11 writes it, of a job that asked for NODECNT nodes.
job () {
    if [ "$5" = 0 ]; then nl='(null)' minn=1; else nl='ns1' minn=$5; fi
    echo "JobId=$1 UserId=root(0) GroupId=root(0) Name=input JobState=$2 Partition=debug TimeLimit=2 StartTime=$4 EndTime=$4 NodeList=$nl NodeCnt=$5 ProcCnt=$6 WorkDir=/tmp/ts ReservationName= Tres=cpu=1,mem=8000M,node=$minn,billing=1 Account= QOS= WcKey= Cluster=unknown SubmitTime=$3 EligibleTime=$3 DerivedExitCode=0:0 ExitCode=0:0 "
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

# Slurm's test1.22: srun -N1-64 twice in a row; the second job was placed
# 27 ms after the first ended, while ns1 was still completing on stock's
# side (3 nodes) and no longer on nodeshare's (4 nodes).
# jobr ID START END NODECNT MINNODES: a completed job of NODECNT nodes and
# CPUs that asked for at least MINNODES.
jobr () {
    echo "JobId=$1 UserId=root(0) GroupId=root(0) Name=printenv JobState=COMPLETED Partition=debug TimeLimit=1 StartTime=$2 EndTime=$3 NodeList=ns[1-4] NodeCnt=$4 ProcCnt=$4 WorkDir=/tmp/ts ReservationName= Tres=cpu=1,mem=8000M,node=$5,billing=1 Account= QOS= WcKey= Cluster=unknown SubmitTime=$2 EligibleTime=$2 DerivedExitCode=0:0 ExitCode=0:0 "
}
{
    jobr 1 2026-11-26T05:10:08 2026-11-26T05:10:08 4 1
    jobr 2 2026-11-26T05:10:08 2026-11-26T05:10:10 3 1
} >"$tmp/r-stock.txt"
{
    jobr 1 2026-11-26T05:10:12 2026-11-26T05:10:12 4 1
    jobr 2 2026-11-26T05:10:12 2026-11-26T05:10:13 4 1
} >"$tmp/r-ns.txt"
{
    echo "[2026-11-26T05:10:12.250] nodeshare: JobId=1 asks for -N: placed by cons_tres as asked -> ns[1-4]"
    echo "[2026-11-26T05:10:12.363] nodeshare: JobId=2 asks for --overcommit: cons_tres places it as asked"
} >"$tmp/r-ctld.log"
check "stablecounts: a node range started on nodes just freed uncounted (stock)" \
    "$(stablecounts "$tmp/r-stock.txt" 0)" "r 4:4"
check "stablecounts: the same job on nodeshare's side, handed to cons_tres as asked" \
    "$(stablecounts "$tmp/r-ns.txt" 0 "$tmp/r-ctld.log")" "r 4:4"
echo "[2026-11-26T05:10:12.250] nodeshare: JobId=1 asks for -N: placed by cons_tres as asked -> ns[1-4]" >"$tmp/r-ctld1.log"
check "stablecounts: a job nodeshare placed itself stays counted" \
    "$(stablecounts "$tmp/r-ns.txt" 0 "$tmp/r-ctld1.log")" "4:4x2"
{
    jobr 1 2026-11-26T05:10:08 2026-11-26T05:10:08 4 1
    jobr 2 2026-11-26T05:10:11 2026-11-26T05:10:11 3 1
    jobr 3 2026-11-26T05:10:11 2026-11-26T05:10:12 2 2
    jobr 4 2026-11-26T05:10:07 2026-11-26T05:10:09 2 1
} >"$tmp/r-edges.txt"
check "stablecounts: 2 s after an end, the minimum given, a job that started before the other ended: counted" \
    "$(stablecounts "$tmp/r-edges.txt" 0)" "2:2x2 3:3 4:4"

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
mk stock.1     test1.22 pass 2 "3:3 4:4" "r 4:4"
mk nodeshare.1 test1.22 pass 1 4:4x2 "r 4:4"
mk stock.1     test15.23 fail 30 1:1 1:1
mk nodeshare.1 test15.23 pass 0 1:1 1:1
mk stock.2     test15.23 pass 0 1:1 1:1
mk nodeshare.2 test15.23 pass 0 1:1 1:1
# Slurm's test1.64 (srun interrupted while it waits) failed on
# nodeshare's side in rounds 1 and 2 and passed in round 3; test2.8 agrees
# across rounds only (stock's round 1 with nodeshare's round 3).
mk stock.1     test1.64 pass 0 0:0 0:0
mk nodeshare.1 test1.64 fail 0 0:0 0:0
mk stock.2     test1.64 pass 0 0:0 0:0
mk nodeshare.2 test1.64 fail 0 0:0 0:0
mk stock.3     test1.64 pass 0 0:0 0:0
mk nodeshare.3 test1.64 pass 0 0:0 0:0
mk stock.1     test2.8 pass 1 1:1 1:1
mk nodeshare.1 test2.8 fail 1 1:1 1:1
mk stock.2     test2.8 pass 1 1:1 1:1
mk nodeshare.2 test2.8 fail 1 1:1 1:1
mk stock.3     test2.8 fail 1 1:1 1:1
mk nodeshare.3 test2.8 pass 1 1:1 1:1
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
check "judge: test1.22 agrees without the node range started on a node just freed" \
    "$(grep -c '^ok [0-9]* - test1.22: pass 4:4x2 ' "$tmp/judge.out")" 1
check "judge: test1.22's agreement is explained" \
    "$(grep -c '^#   test1.22: stock \[pass 3:3 4:4\] (round 1) nodeshare \[pass 4:4x2\] (round 1) agree once .* (r) are uncounted: \[pass r 4:4\]$' "$tmp/judge.out")" 1
check "judge: test15.23 agrees in round 2" \
    "$(grep -c '^ok [0-9]* - test15.23: pass 1:1 ' "$tmp/judge.out")" 1
check "judge: test1.64 agrees in round 3" \
    "$(grep -c '^ok [0-9]* - test1.64: pass 0:0 (0+0 s)$' "$tmp/judge.out")" 1
check "judge: test1.64's three rounds are shown" \
    "$(grep -c '^# test1.64 round 1: stock \[pass 0:0\] nodeshare \[fail 0:0\]; round 2: stock \[pass 0:0\] nodeshare \[fail 0:0\]; round 3: stock \[pass 0:0\] nodeshare \[pass 0:0\]$' "$tmp/judge.out")" 1
check "judge: test2.8 agrees across rounds (stock's 1, nodeshare's 3)" \
    "$(grep -c '^ok [0-9]* - test2.8: pass 1:1 (1+1 s)$' "$tmp/judge.out")" 1
check "judge: summary" \
    "$(grep -c '^# 6 tests alike (3 of them only in jobs cancelled at once or started on nodes just freed), 1 listed differences, 0 unexplained differences' "$tmp/judge.out")" 1
check "judge: plan" "$(grep -c '^1\.\.7$' "$tmp/judge.out")" 1

# The version picks the differences file: 26.05's lists none (its
# testsuite/expect has no test1.35), so the same runs differ there.
echo 26.05 >"$tmp/s/version"
judge
rc=$?
check "judge: 26.05 judges by expect-differences-26.05.txt" "$rc:$(grep -c '^not ok [0-9]* - test1.35: stock \[pass 2:30\] nodeshare \[pass 4:30\]$' "$tmp/judge.out")" 1:1
echo 24.11 >"$tmp/s/version"

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
