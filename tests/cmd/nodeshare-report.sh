#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeshare-report.sh - the report as an administrator meets it (TAP): a
# simulated history with known figures (4 programs, three periods of one
# cluster of 8 nodes x 24 cores written by nodeshare-sim --sacct) gives
# those figures back within 0.03, the replay under pack and the policy,
# the jobs placed differently, the shadow records, the nodeshare.json to
# start with, and a self-contained HTML file; bad input: one precise
# message each.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"
sim="$top_builddir/nodeshare-sim"
report="$top_builddir/nodeshare-report"

# expect NAME STATUS PATTERN ARGS...: exit status and a fixed string in
# the combined output (tap.sh's expect_out).
expect () {
    e_name=$1 e_want=$2 e_pattern=$3
    shift 3
    expect_out "$e_name" "$e_want" "$e_pattern" "$report" "$@"
}

# The known figures (tests/cmd/known.json, as nodeshare-learn.sh).
cp "$top_srcdir/tests/cmd/known.json" "$tmp/known.json"
# Three periods of one cluster, 10 days apart: whole nodes (exclusive),
# striped alone (spread), pairs (mixed).  Node-sized jobs of 24 cores,
# the same work per program, submissions 0-400 s apart
# (tests/traces/known-1500.swf).
ok=1
for spec in exclusive:300:1767225600 spread:300:1768089600 \
            mixed:1500:1768953600; do
    p=${spec%%:*} rest=${spec#*:}
    m=${rest%%:*} epoch=${rest#*:}
    sed "/^; MaxProcs:/a ; UnixStartTime: $epoch" \
        "$top_srcdir/tests/traces/known-1500.swf" >"$tmp/$p.swf"
    if ! "$sim" -q -c "$tmp/known.json" -n 8 -C 24 -p "$p" --max-jobs "$m" \
            --sacct "$tmp/$p.txt" "$tmp/$p.swf" >"$tmp/$p.out" 2>&1; then
        ok=0
        sed 's/^/#   /' "$tmp/$p.out"
    fi
done
[ $ok = 1 ] && pass "nodeshare-sim --sacct: three periods of one cluster" \
    || fail "nodeshare-sim --sacct"
dumps="$tmp/exclusive.txt $tmp/spread.txt $tmp/mixed.txt"

# shellcheck disable=SC2086
"$report" -C 24 -c "$tmp/known.json" --html "$tmp/r.html" \
    --json-out "$tmp/start.json" $dumps >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && pass "report written (exit 0)" || {
    fail "report: exit $rc"; sed 's/^/#   /' "$tmp/err"; }

# 1. programs: jobs and core-hours (4 x ~500 jobs, in core-hours order)
if awk '/^1\. Programs/ { on = 1; next } on && /^$/ { exit }
        on && $1 ~ /^P[0-3]$/ { n++; j += $2 } END { exit !(n == 4 && j == 2100) }' \
        "$tmp/out"; then
    pass "programs: 4 programs, 2100 jobs"
else
    fail "programs section"; sed 's/^/#   /' "$tmp/out" | head -12
fi

# 2. the figures, within 0.03 of the known ones
grep -v "^#" "$top_srcdir/tests/cmd/known.want" >"$tmp/want"   # known.json's figures
off=$(awk 'NR == FNR { if ($1 ~ /^P[0-3]$/) got[$1 " " $2] = $3; next }
           { g = got[$1 " " $2];
             if (g == "" || g - $3 > 0.03 || $3 - g > 0.03)
                 printf " %s:%s=%s(want %s)", $1, $2, (g == "" ? "none" : g), $3;
             else if (g - $3 > worst || $3 - g > worst)
                 worst = (g > $3 ? g - $3 : $3 - g) }
           END { printf "|%.4f", worst }' "$tmp/out" "$tmp/want")
if [ "${off%|*}" = "" ] && grep -q "20 figures learned, 0 left neutral" "$tmp/out"
then
    pass "figures: all 20 recovered within 0.03 (worst ${off#*|})"
else
    fail "figures off:${off%|*}"
fi

# 3. the replay: both policies, every job completed, the rows there
if awk '/^3\. Replay/ { on = 1; next } on && /^$/ { exit }
        on && $1 == "pack" && $2 == "mixed" { h = 1 }
        on && /jobs completed/ && $3 == 2100 && $4 == 2100 { c = 1 }
        on && /mean wait/ { w = 1 } on && /mean bounded slowdown/ { b = 1 }
        on && /core-hours held/ { u = 1 } on && /killed at their limit/ { k = 1 }
        END { exit !(h && c && w && b && u && k) }' "$tmp/out"; then
    pass "replay: pack and mixed, 2100 jobs each, wait, slowdown, core-hours, killed"
else
    fail "replay section"; sed -n '/^3\./,/^4\./p' "$tmp/out" | sed 's/^/#   /'
fi

# 4. every job striped under mixed (stripe_margin -1), whole nodes under
# pack: all 2100 placed differently, by the stripe rules
if grep -q "^4\. Placed differently under mixed than under pack: 2100 of 2100 jobs" "$tmp/out" \
   && grep -q "(stripe-share)" "$tmp/out"; then
    pass "placed differently: 2100 of 2100, by stripe rules"
else
    fail "differences"; sed -n '/^4\./,/^5\./p' "$tmp/out" | sed 's/^/#   /'
fi

# 5. the nodeshare.json to start with loads as a configuration
if grep -q '"spread_speedup": 0.9,' "$tmp/start.json" \
   && "$sim" -q -c "$tmp/start.json" -n 8 -C 24 --max-jobs 50 -p pack,twins \
        "$tmp/mixed.txt" >/dev/null 2>&1; then
    pass "--json-out: what nodeshare-learn writes, loads in nodeshare-sim"
else
    fail "--json-out"; head -20 "$tmp/start.json" | sed 's/^/#   /'
fi

# The HTML: one file, charts inline, no script, nothing fetched.
h="$tmp/r.html"
if [ -s "$h" ] && grep -q '^<!DOCTYPE html>' "$h" && grep -q '</html>' "$h" \
   && [ "$(grep -c '<svg' "$h")" -ge 4 ] && ! grep -qi '<script' "$h" \
   && ! grep -qiE '(src|href)="?(https?:)?//' "$h" \
   && ! grep -qi '<link' "$h" && ! grep -q '<?xml' "$h"; then
    pass "HTML: self-contained, $(grep -c '<svg' "$h") inline SVG charts, no script"
else
    fail "HTML structure"
fi
for s in "1. Programs that run most" "2. Interference figures learned" \
         "3. Replay of the same jobs" "4. Jobs mixed places differently" \
         "nodeshare.json to start with"; do
    grep -qF "$s" "$h" && pass "HTML section: $s" || fail "HTML lacks: $s"
done

# Shadow records: counted by rule, program and decision; unknown keys
# are fine; a bad line is named by file and line.
cat >"$tmp/shadow.jsonl" <<'EOT'
{"time":1732480000,"job":7,"program":"LAM","cores":24,"policy":"twins","would":"stripe","nodes":"n1,n2","shape":"12+12","rule":"stripe-empty","stock":"n3","differs":true,"why":"LAM gains 1.15 striped"}
{"time":1732480060,"job":8,"program":"ABQ","cores":24,"policy":"twins","would":"place","nodes":"n3","shape":"24","rule":"pack","stock":"n3","differs":false,"why":"small","extra":[1,2]}

{"time":1732480120,"job":9,"program":"LAM","cores":24,"policy":"twins","would":"stripe","nodes":"n4,n5","shape":"12+12","rule":"stripe-share","stock":"n4","differs":true}
EOT
# shellcheck disable=SC2086
"$report" -q -C 24 -c "$tmp/known.json" --shadow "$tmp/shadow.jsonl" \
    --html "$tmp/s.html" $dumps >"$tmp/sout" 2>&1
if grep -q "^5\. Shadow records (1 file): 3 jobs, 2 placed differently from stock (66.7%)" "$tmp/sout" \
   && grep -qE "by rule stripe-empty +1" "$tmp/sout" \
   && grep -qE "would stripe +2" "$tmp/sout" \
   && grep -q "LAM 2/2 ABQ 0/1" "$tmp/sout" \
   && grep -q "e.g. job 7: LAM gains 1.15 striped" "$tmp/sout" \
   && grep -qF "5. Shadow records" "$tmp/s.html"; then
    pass "shadow records: 3 jobs, 2 differ, by rule, decision and program"
else
    fail "shadow records"; sed -n '/^5\./,/^6\./p' "$tmp/sout" | sed 's/^/#   /'
fi
printf '%s\n' '{"job":1,"differs":true}' '{"job":2,"differs":"yes"}' \
    >"$tmp/bad1.jsonl"
expect "shadow: wrong type, file and line" 1 \
    "bad1.jsonl:2: \"differs\": expected true or false" \
    -q -C 24 --shadow "$tmp/bad1.jsonl" "$tmp/exclusive.txt"
printf '%s\n' '{"job":1,"differs":true}' '{"job":2,' >"$tmp/bad2.jsonl"
expect "shadow: truncated line" 1 "bad2.jsonl:2: not a JSON object" \
    -q -C 24 --shadow "$tmp/bad2.jsonl" "$tmp/exclusive.txt"
printf '%s\n' '{"differs":false}' >"$tmp/bad3.jsonl"
expect "shadow: no job" 1 "bad3.jsonl:1: no \"job\"" \
    -q -C 24 --shadow "$tmp/bad3.jsonl" "$tmp/exclusive.txt"
printf '%s\n' '{"job":1,"differs":true} x' >"$tmp/bad4.jsonl"
expect "shadow: text after the object" 1 "bad4.jsonl:1: text after the JSON object" \
    -q -C 24 --shadow "$tmp/bad4.jsonl" "$tmp/exclusive.txt"
expect "shadow: missing file" 1 "nope.jsonl" \
    -q -C 24 --shadow "$tmp/nope.jsonl" "$tmp/exclusive.txt"
# An unknown policy: refused as a wrong command line before any dump is
# read (the dump does not exist).
expect "-p bogus: status 2 before the dumps" 2 \
    "nodeshare-report: --policy: unknown policy 'bogus'" \
    -q -C 24 -p bogus "$tmp/no-such-dump.txt"
# No output over an input: the shadow file given as --html, the dump as
# -o; both refused before anything is read or written.
cp "$tmp/bad4.jsonl" "$tmp/keep.jsonl"
expect "--html onto a --shadow file: refused" 2 \
    "--html $tmp/keep.jsonl: is $tmp/keep.jsonl, an input of this run" \
    -q -C 24 --shadow "$tmp/keep.jsonl" --html "$tmp/keep.jsonl" \
    "$tmp/exclusive.txt"
cp "$tmp/exclusive.txt" "$tmp/dump.txt"
expect "-o onto the dump: refused" 2 \
    "-o $tmp/dump.txt: is $tmp/dump.txt, an input of this run" \
    -q -C 24 -o "$tmp/dump.txt" "$tmp/dump.txt"
if cmp -s "$tmp/bad4.jsonl" "$tmp/keep.jsonl" \
   && cmp -s "$tmp/exclusive.txt" "$tmp/dump.txt"; then
    pass "the shadow file and the dump keep their bytes"
else
    fail "an input was overwritten"
fi

# stdin as a dump (read twice: by the learner and by the replay)
out=$("$report" -q -C 24 - <"$tmp/exclusive.txt" 2>&1)
if [ $? = 0 ] && printf '%s\n' "$out" | grep -q "300 jobs from"; then
    pass "a dump on stdin"
else
    fail "stdin: $out"
fi
# Progress on stderr unless -q
if grep -q "nodeshare-report: replayed 2100 jobs under pack" "$tmp/err"; then
    pass "progress on stderr"
else
    fail "progress"; sed 's/^/#   /' "$tmp/err"
fi
# The accounting scenario's real dump (tests/slurm/accounting.sh, kept as
# a fixture): 32 jobs of 4 programs, too few to learn a figure; the
# replay runs the configuration's figures.
real="$top_srcdir/tests/traces/sacct-cluster-parity.txt"
"$report" -q -C 24 -c "$top_srcdir/tests/configs/parity.json" \
    --html "$tmp/real.html" "$real" >"$tmp/real.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^nodeshare-report: 1 dump, 32 jobs from 2026-11-22 13:56" "$tmp/real.out" \
   && grep -q "0 figures learned, 16 left neutral" "$tmp/real.out" \
   && grep -qE "^  LAM +8 " "$tmp/real.out" \
   && grep -q "^4\. Placed differently under twins than under pack: 31 of 32 jobs" "$tmp/real.out" \
   && grep -q '<svg' "$tmp/real.html" && ! grep -qi '<script' "$tmp/real.html"; then
    pass "real sacct dump: 32 jobs, figures left neutral, 31 placed differently, HTML"
else
    fail "real sacct dump: exit $rc"; sed 's/^/#   /' "$tmp/real.out" | head -30
fi

# The first section: what enabling would change with its uncertainty,
# node failures, calibration, scope.
if awk '/^Before enabling$/ { on = 1; next } on && /^$/ { exit }
        on && /^  - Enabling mixed on this history: core-hours held/ &&
              /two standard errors against nodeshare/ { a = 1 }
        on && /^  - Node failures: the [0-9]+ jobs striped/ { b = 1 }
        on && /^  - Every program of the history has a learned spread_speedup/ { c = 1 }
        on && /^  - Scope: the dumps name no partition/ { d = 1 }
        END { exit !(a && b && c && d) }' "$tmp/out"; then
    pass "first section: the change with -2 se, failures, calibration, scope"
else
    fail "first section"; sed -n '/^Before/,/^$/p' "$tmp/out" | sed 's/^/#   /'
fi
grep -qF "<h2>Before enabling</h2>" "$h" && pass "HTML: first section" \
    || fail "HTML lacks the first section"

# The real dump: none of its 4 programs has a learned spread_speedup;
# LAM, ABQ and LSD have one in the configuration (parity.json), so only
# CP2K needs calibrating: 3 packed and 3 striped runs of a typical job.
if grep -q "^  - Calibrate CP2K (no job exposed to it): 3 packed and 3 striped runs of a typical job, 0.1 core-hours" "$tmp/real.out" \
   && ! grep -q "^  - Calibrate LAM" "$tmp/real.out" \
   && grep -q "^  - Calibrating the 1 program without a spread_speedup (learned, or in the configuration) takes about 0.1 core-hours" "$tmp/real.out"; then
    pass "calibration: CP2K only (the configuration gives the others), 0.1 core-hours"
else
    fail "calibration"; sed -n '/^Before/,/^$/p' "$tmp/real.out" | sed 's/^/#   /'
fi

# Node failures: 5 NODE_FAIL jobs in the history give the rate; a given
# rate F gives extra node-hours x F / (hours of the history).
awk -F'|' 'NR > 1 && NR <= 6 { $11 = "NODE_FAIL" } 1' OFS='|' \
    "$tmp/mixed.txt" >"$tmp/nf.txt"
"$report" -q -C 24 -c "$tmp/known.json" "$tmp/nf.txt" >"$tmp/nf.out" 2>&1
if grep -q "at the rate of 5 NODE_FAIL jobs in [0-9]* node-hours of jobs in the dumps" "$tmp/nf.out"; then
    pass "node failures: 5 NODE_FAIL jobs read from the dump"
else
    fail "node failures from the dump"; grep "Node failures" "$tmp/nf.out" | sed 's/^/#   /'
fi
"$report" -q -C 24 -c "$tmp/known.json" --node-failures-per-year 2 \
    "$tmp/mixed.txt" >"$tmp/nf2.out" 2>&1
if grep "Node failures" "$tmp/nf2.out" | awk '{
        for (i = 1; i <= NF; i++) {
            if ($i == "in" && $(i + 2) == "days") d = $(i + 1)
            if ($(i + 1) == "node-hours" && $(i + 2) == "more") x = $i
            if ($i == "about") y = $(i + 1) }
        want = x * 2 / (d * 24)
        exit !(index($0, "2 failures per node a year (given)") && d > 0 &&
               y > 0 && (y - want) ^ 2 < (0.01 * want + 0.01) ^ 2) }'; then
    pass "node failures: a given rate, extra node-hours x rate / history"
else
    fail "node failures, given rate"; grep "Node failures" "$tmp/nf2.out" | sed 's/^/#   /'
fi

# Whole node names: gpu01 and cn001 are two nodes (issue 30).
printf '%s\n' 'JobIDRaw|JobName|Submit|Start|End|ElapsedRaw|Timelimit|AllocCPUS|NNodes|NodeList|State' \
    '1|A|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:10:00|600|20|24|1|gpu01|COMPLETED' \
    '2|A|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:10:00|600|20|24|1|cn001|COMPLETED' \
    >"$tmp/names.txt"
out=$("$report" -q -C 24 "$tmp/names.txt" 2>&1)
if printf '%s\n' "$out" | grep -q "replayed on 2 nodes x 24 cores"; then
    pass "gpu01 and cn001: two nodes"
else
    fail "whole names: $(printf '%s\n' "$out" | head -3)"
fi

# --slurm-conf: the machine and its partitions; the scope names the
# partition where the replay gains.
cat >"$tmp/slurm.conf" <<'EOT'
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
NodeName=ns[1-6] CPUs=24 RealMemory=128000 Weight=1
NodeName=ns[7-8] CPUs=24 RealMemory=256000 Weight=5 Features=gpu Gres=gpu:2
PartitionName=batch Nodes=ns[1-8] Default=YES
PartitionName=debug Nodes=ns[1-2]
EOT
awk -F'|' 'NR == 1 { print $0 "|Partition"; next } { print $0 "|batch" }' \
    "$tmp/mixed.txt" >"$tmp/part.txt"
"$report" -q -S "$tmp/slurm.conf" -c "$tmp/known.json" \
    --json-out "$tmp/scoped.json" "$tmp/part.txt" >"$tmp/sc.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "replayed on 8 nodes x 24 cores" "$tmp/sc.out" \
   && grep -qF "  - Machine ($tmp/slurm.conf): 8 nodes: 6 x 24 CPUs, 128000 MB, weight 1; 2 x 24 CPUs, 256000 MB, weight 5, features gpu, GRES gpu:2; partitions batch (8 nodes), debug (2 nodes)." "$tmp/sc.out" \
   && grep -q '^  - Scope: "partitions": \["batch"\], the partitions where' "$tmp/sc.out" \
   && tr -d ' \n' <"$tmp/scoped.json" | grep -q '"partitions":\["batch"\]'; then
    pass "--slurm-conf: 8 nodes, scope [\"batch\"] in the text and --json-out"
else
    fail "--slurm-conf: exit $rc"; sed -n '1,14p' "$tmp/sc.out" | sed 's/^/#   /'
fi
expect "--slurm-conf with --cores" 2 "--slurm-conf gives the nodes" \
    -q -S "$tmp/slurm.conf" -C 24 "$tmp/part.txt"
printf 'NodeName=ns1 CPUs=x\n' >"$tmp/bad.conf"
expect "--slurm-conf: a bad line" 2 "bad.conf" -q -S "$tmp/bad.conf" "$tmp/part.txt"

# Rotated shadow records: FILE.2 (plain), FILE.1.gz, FILE, read oldest
# first; the "dropped" line is reported.
printf '%s\n' '{"time":1732470000,"job":1,"differs":true,"rule":"stripe-empty"}' \
    >"$tmp/rot.jsonl.2"
printf '%s\n' '{"time":1732475000,"job":2,"differs":false}' | gzip -c \
    >"$tmp/rot.jsonl.1.gz"
printf '%s\n' '{"time":1732480000,"dropped":"rot.jsonl.3.gz","records":500,"first":1732400000,"last":1732460000}' \
    '{"time":1732480001,"job":3,"differs":true,"rule":"stripe-empty"}' \
    >"$tmp/rot.jsonl"
"$report" -q -C 24 --shadow "$tmp/rot.jsonl" "$tmp/exclusive.txt" \
    >"$tmp/rot.out" 2>&1
if grep -q "^5\. Shadow records (3 files): 3 jobs, 2 placed differently" "$tmp/rot.out" \
   && grep -q "from 2024-11-24 17:40 to 2024-11-24 20:26 UTC" "$tmp/rot.out" \
   && grep -q "records before 2024-11-24 14:53 UTC were dropped by rotation: 500 records in 1 file$" "$tmp/rot.out" \
   && grep -q "^  - Shadow records: 500 records up to 2024-11-24 14:53 UTC were dropped by rotation (1 file)" "$tmp/rot.out"; then
    pass "shadow: the live file and its rotated ones, what rotation dropped"
else
    fail "rotated shadow records"; sed -n '/^5\./,/^6\./p' "$tmp/rot.out" | sed 's/^/#   /'
fi
# A quoted pattern: the files it matches, oldest first, each once.
"$report" -C 24 --shadow "$tmp/rot.jsonl*" --shadow "$tmp/rot.jsonl" \
    "$tmp/exclusive.txt" >"$tmp/glob.out" 2>"$tmp/glob.err"
order=$(grep -o 'rot[^:/]*: reading the shadow records' "$tmp/glob.err" |
        cut -d: -f1 | tr '\n' ' ')
if [ "$order" = "rot.jsonl.2 rot.jsonl.1.gz rot.jsonl " ] \
   && grep -q "^5\. Shadow records (3 files): 3 jobs" "$tmp/glob.out"; then
    pass "shadow: a pattern, its files oldest first, each read once"
else
    fail "shadow pattern: read $order"
fi
expect "shadow: a pattern matching nothing" 1 "no file matches" \
    -q -C 24 --shadow "$tmp/none*.jsonl" "$tmp/exclusive.txt"
head -c 20 "$tmp/rot.jsonl.1.gz" >"$tmp/cut.jsonl.gz"
expect "shadow: a cut gzip file" 1 "cut.jsonl.gz:1:" \
    -q -C 24 --shadow "$tmp/cut.jsonl.gz" "$tmp/exclusive.txt"

expect "no --cores" 2 "give --cores C" "$tmp/exclusive.txt"
expect "no dump" 2 "no sacct dump given" -C 24
expect "missing dump" 1 "nope.txt" -C 24 "$tmp/nope.txt"
expect "--nodes below the dump's nodes" 1 "--nodes 2: the dumps name 8 distinct nodes" \
    -q -C 24 -n 2 "$tmp/exclusive.txt"
expect "help" 0 "Usage: nodeshare-report" --help

# --cores has one range in every program that takes a node size: the
# largest node Slurm can describe (CPUs in 16 bits) is accepted, one
# more core is refused with the same words by each.
for p in sim learn report; do
    expect_out "nodeshare-$p --cores 65536: refused, range 1..65535" 2 \
        "nodeshare-$p: --cores '65536': expected an integer 1..65535" \
        "$top_builddir/nodeshare-$p" --cores 65536 "$tmp/exclusive.txt"
    out=$("$top_builddir/nodeshare-$p" --cores 65535 "$tmp/nope.txt" 2>&1)
    case $out in
    *--cores*) fail "nodeshare-$p --cores 65535: accepted"
               echo "# $out" ;;
    *) pass "nodeshare-$p --cores 65535: accepted" ;;
    esac
done
expect_out "nodeshare-place --cores 65536: refused, range 1..65535" 2 \
    "nodeshare-place: --cores '65536': expected an integer 1..65535" \
    "$top_builddir/nodeshare-place" --cores 65536 LAM:4
# calibrate halves a node: the same bound, its largest even count
expect_out "nodeshare-calibrate --cores 65536: refused, range 2..65534" 2 \
    "nodeshare-calibrate: --cores '65536': expected an integer 2..65534" \
    "$top_builddir/nodeshare-calibrate" --cores 65536 -n LAM

# --nodes has one range in every program that takes a machine's size,
# the one slurm.conf's node lines are held to.
for p in sim report place; do
    expect_out "nodeshare-$p --nodes 1000001: refused, range 1..1000000" 2 \
        "nodeshare-$p: --nodes '1000001': expected an integer 1..1000000" \
        "$top_builddir/nodeshare-$p" --nodes 1000001 "$tmp/exclusive.txt"
done
expect_out "nodeshare-calibrate -N 1000001: refused, range 1..1000000" 2 \
    "nodeshare-calibrate: --nodes '1000001': expected an integer 1..1000000" \
    "$top_builddir/nodeshare-calibrate" -N 1000001 -n LAM

# The learner's options have the bounds of nodeshare.json's "learn" in
# both programs that take them.
for p in learn report; do
    expect_out "nodeshare-$p --min-observations 1000001: refused" 2 \
        "nodeshare-$p: --min-observations '1000001': expected an integer 1..1000000" \
        "$top_builddir/nodeshare-$p" --min-observations 1000001 \
        "$tmp/exclusive.txt"
    expect_out "nodeshare-$p --max-se 11: refused" 2 \
        "nodeshare-$p: --max-se '11': expected a number in [0, 10]" \
        "$top_builddir/nodeshare-$p" --max-se 11 "$tmp/exclusive.txt"
done
tap_end
