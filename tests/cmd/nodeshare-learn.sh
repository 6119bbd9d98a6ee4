#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeshare-learn.sh - the learner as a user meets it (TAP): the closed
# loop (a known matrix of 4 programs, speedups and slowdowns above and
# below 1, simulated by nodeshare-sim --sacct, learned back within 0.03),
# and bad input: one precise message per kind, counted, never a crash.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"
sim="$top_builddir/nodeshare-sim"
learn="$top_builddir/nodeshare-learn"

# expect NAME STATUS PATTERN ARGS...: exit status and a fixed string in
# the combined output (tap.sh's expect_out).
expect () {
    e_name=$1 e_want=$2 e_pattern=$3
    shift 3
    expect_out "$e_name" "$e_want" "$e_pattern" "$learn" "$@"
}

# The known matrix.  stripe_margin -1 stripes every program, also P2
# whose speedup is below 1, so that the history shows all figures.
cp "$top_srcdir/tests/cmd/known.json" "$tmp/known.json"
# 1500 node-sized jobs (24 cores), programs drawn, the same work per
# program (repeated production inputs), submissions 0-400 s apart: a
# shipped trace, so that every machine replays the same jobs.
cp "$top_srcdir/tests/traces/known-1500.swf" "$tmp/trace.swf"

# Three histories: full nodes (exclusive), striped alone (spread), pairs.
ok=1
for pol in exclusive:300 spread:300 mixed:1500; do
    p=${pol%%:*} m=${pol#*:}
    if ! "$sim" -q -c "$tmp/known.json" -n 8 -C 24 -p "$p" --max-jobs "$m" \
            --sacct "$tmp/$p.txt" "$tmp/trace.swf" >"$tmp/$p.out" 2>&1; then
        ok=0
        sed 's/^/#   /' "$tmp/$p.out"
    fi
done
lines=$(cat "$tmp/exclusive.txt" "$tmp/spread.txt" "$tmp/mixed.txt" 2>/dev/null | wc -l)
if [ $ok = 1 ] && [ "$lines" = 2103 ]; then
    pass "nodeshare-sim --sacct: three histories, 2100 jobs + 3 headers"
else
    fail "nodeshare-sim --sacct: $lines lines"
fi
head -2 "$tmp/mixed.txt" | tail -1 >"$tmp/line"
if grep -qE '^1\|P0\|2026-01-01T00:00:00\|2026-01-01T00:00:00\|2026-01-01T00:37:21\|2241\|150\|24\|2\|ns\[1-2\]\|COMPLETED$' "$tmp/line"; then
    pass "sacct line: id, program, UTC times, elapsed, limit, CPUs, nodes, ns[1-2], state"
else
    fail "sacct line: $(cat "$tmp/line")"
fi

"$learn" -C 24 -c "$tmp/known.json" --table "$tmp/exclusive.txt" \
    "$tmp/spread.txt" "$tmp/mixed.txt" >"$tmp/table" 2>"$tmp/err"
rc=$?
# want: program figure value
grep -v "^#" "$top_srcdir/tests/cmd/known.want" >"$tmp/want"   # known.json's figures
off=$(awk 'NR == FNR { got[$1 " " $2] = $3; next }
           { g = got[$1 " " $2];
             if (g == "" || g - $3 > 0.03 || $3 - g > 0.03)
                 printf " %s:%s=%s(want %s)", $1, $2, (g == "" ? "none" : g), $3;
             else if (g - $3 > worst || $3 - g > worst)
                 worst = (g > $3 ? g - $3 : $3 - g) }
           END { printf "|%.4f", worst }' "$tmp/table" "$tmp/want")
if [ $rc = 0 ] && [ "${off%|*}" = "" ]; then
    pass "closed loop: all 20 figures learned within 0.03 (worst ${off#*|})"
else
    fail "closed loop: rc $rc, off:${off%|*}"
    sed 's/^/#   /' "$tmp/table" "$tmp/err"
fi

# The JSON is a nodeshare.json that nodeshare-sim loads.
"$learn" -q -C 24 -c "$tmp/known.json" -o "$tmp/learned.json" \
    "$tmp/exclusive.txt" "$tmp/spread.txt" "$tmp/mixed.txt"
# Replayed from the sacct dump (job names P0..P3): mixed now shares.
if "$sim" -q -c "$tmp/learned.json" -n 8 -C 24 --max-jobs 200 \
        -p pack,mixed "$tmp/mixed.txt" >"$tmp/sim.out" 2>&1 \
   && awk '$1 == "mixed" && $10 + 0 > 50 { f = 1 } END { exit !f }' \
        "$tmp/sim.out" \
   && grep -q '"spread_speedup": 0.9,' "$tmp/learned.json" \
   && grep -q '"n":' "$tmp/learned.json" && grep -q '"se":' "$tmp/learned.json"; then
    pass "the JSON loads as a configuration, with n and se per figure"
else
    fail "learned.json does not load"
    sed 's/^/#   /' "$tmp/sim.out" "$tmp/learned.json" | head -40
fi

# Too little evidence: the figures are left out and listed.
"$sim" -q -c "$tmp/known.json" -n 8 -C 24 -p mixed --max-jobs 12 \
    --sacct "$tmp/few.txt" "$tmp/trace.swf" >/dev/null 2>&1
expect "too few jobs: figures left neutral and listed" 0 \
    "not learned: P0 beside" -C 24 "$tmp/few.txt"

hdr='JobIDRaw|JobName|Submit|Start|End|AllocCPUS|NNodes|NodeList|State'
# Identification: LAM 40 min alone on a full node, and striped beside ABQ
# (which holds the other half of both nodes for the whole run) in 35 min
# 12 s (spread_speedup 1.25, slowdown 1.1), never striped alone: only
# 1.25 / 1.1 is in the history, so neither figure may be learned, however
# exactly the runs fit.
{
    echo "$hdr"
    for h in 0 1 2 3 4 5 6 7; do
        d="2026-01-01T0$h" id=$((h * 3))
        echo "$((id + 1))|LAM|$d:00:00|$d:00:00|$d:40:00|24|1|ns1|COMPLETED"
        echo "$((id + 2))|ABQ|$d:00:00|$d:00:00|$d:55:00|24|2|ns[2-3]|COMPLETED"
        echo "$((id + 3))|LAM|$d:05:00|$d:05:00|$d:40:12|24|2|ns[2-3]|COMPLETED"
    done
} >"$tmp/noalone.txt"
"$learn" -C 24 -o "$tmp/noalone.json" "$tmp/noalone.txt" 2>"$tmp/noalone.err"
rc=$?
want="not learned: LAM spread_speedup: not identified: only spread_speedup(LAM)/slowdown(LAM beside ABQ) observed; never striped alone; needs: run LAM striped over two otherwise empty nodes"
if [ $rc = 0 ] && grep -qF -- "$want" "$tmp/noalone.err" \
   && grep -qF "not learned: LAM beside ABQ: not identified" "$tmp/noalone.err" \
   && grep -qF "0 figures learned, 4 left neutral" "$tmp/noalone.err"; then
    pass "never striped alone: LAM's speedup and slowdown not learned, why, and which run would"
else
    fail "never striped alone: rc $rc"
    sed 's/^/#   /' "$tmp/noalone.err"
fi
# The JSON: no figure under programs, the reasons under learned.
sed -n '1,/"learned"/p' "$tmp/noalone.json" >"$tmp/noalone.programs"
if ! grep -qE 'spread_speedup|slowdown' "$tmp/noalone.programs" \
   && grep -q '"runtime": 2400' "$tmp/noalone.programs" \
   && grep -qF '"needs": "run LAM striped over two otherwise empty nodes"' "$tmp/noalone.json" \
   && grep -qF '"reason": "not identified"' "$tmp/noalone.json"; then
    pass "never striped alone: the JSON lists no figure, and says why under learned"
else
    fail "never striped alone: the JSON"
    sed 's/^/#   /' "$tmp/noalone.json" | head -40
fi
# --table: no figure row, the same notes.
"$learn" -C 24 --table "$tmp/noalone.txt" >"$tmp/noalone.tab" 2>"$tmp/noalone.err"
if [ "$(grep -cvE '^program|runtime' "$tmp/noalone.tab")" = 0 ] \
   && grep -qF -- "$want" "$tmp/noalone.err"; then
    pass "never striped alone: --table has no figure, the notes say why"
else
    fail "never striped alone: --table"
    sed 's/^/#   /' "$tmp/noalone.tab" "$tmp/noalone.err"
fi
# Five runs striped alone identify both: 1.25 and 1.1.
{
    cat "$tmp/noalone.txt"
    for h in 0 1 2 3 4; do
        d="2026-01-02T0$h"
        echo "$((100 + h))|LAM|$d:00:00|$d:00:00|$d:32:00|24|2|ns[4-5]|COMPLETED"
    done
} >"$tmp/alone.txt"
out=$("$learn" -C 24 --table "$tmp/alone.txt" 2>&1)
if printf '%s\n' "$out" | grep -qE '^LAM +spread_speedup +1\.250 ' \
   && printf '%s\n' "$out" | grep -qE '^LAM +slowdown:ABQ +1\.100 '; then
    pass "with runs striped alone: LAM 1.250 and beside ABQ 1.100"
else
    fail "with runs striped alone: $out"
fi

# Bad input.
{
    echo "$hdr"
    echo "1|A|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|24|1|ns1|COMPLETED"
    echo "2|A|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|24|1|ns[1-|COMPLETED"
    echo "3|A|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|24|3|ns[1-2]|COMPLETED"
    echo "4|A|2026-01-01T00:00:00|2026-01-01T02:00:00|2026-01-01T01:00:00|24|1|ns1|COMPLETED"
    echo "5|A|2026-01-01T00:00:00|2026-01-01T00:00:00"
    echo "6|A|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|24|1|ns1|RUNNING"
    echo "7|A|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|24|1|ns1|FAILED"
    echo "8|A|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|1|2|ns[1-2]|COMPLETED"
    echo "8.batch|batch|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|1|1|ns1|COMPLETED"
} >"$tmp/bad.txt"
"$learn" -C 24 "$tmp/bad.txt" >"$tmp/bad.out" 2>&1
rc=$?
for want in \
    "1 jobs left out (NodeList does not parse), first line 3: job 2: host list 'ns[1-': unbalanced '['" \
    "1 jobs left out (NodeList and NNodes disagree), first line 4: job 3: NNodes 3 but NodeList 'ns[1-2]' names 2" \
    "1 lines skipped (negative-time), first line 5" \
    "1 lines skipped (too-few-fields), first line 6" \
    "1 lines skipped (not-finished), first line 7" \
    "1 jobs left out (fewer AllocCPUS than nodes), first line 9: job 8: 1 CPUs on 2 nodes" \
    "1 lines skipped (job-step), first line 10" \
    "5 jobs read, 1 observed (COMPLETED), 1 co-tenants only"; do
    if grep -qF -- "$want" "$tmp/bad.out"; then
        pass "bad input reported: $want"
    else
        fail "bad input not reported: $want"
        sed 's/^/#   /' "$tmp/bad.out"
    fi
done
[ $rc = 0 ] && pass "bad lines do not stop the run" || fail "bad lines: exit $rc"

# A header without NodeList: every job says so, nothing to learn.
sed 's/|NodeList|/|Partition|/' "$tmp/bad.txt" >"$tmp/nonodes.txt"
expect "no NodeList field: counted, exit 1" 1 \
    "jobs left out (no NodeList)" -C 24 "$tmp/nonodes.txt"
# Unknown fields are ignored.
awk -F'|' 'BEGIN { OFS = "|" } { print $0, (NR == 1 ? "Foo" : "x") }' \
    "$tmp/exclusive.txt" >"$tmp/extra.txt"
expect "unknown field: ignored" 0 "300 jobs read, 300 observed" \
    -C 24 --table "$tmp/extra.txt"
gzip -c "$tmp/mixed.txt" | head -c 2000 >"$tmp/trunc.gz"
expect "truncated gzip dump" 1 "truncated gzip" -C 24 "$tmp/trunc.gz"
expect "missing file" 1 "nope.txt" -C 24 "$tmp/nope.txt"
cp "$tmp/extra.txt" "$tmp/dump.txt"
expect "-o onto the dump: refused" 2 \
    "-o $tmp/dump.txt: is $tmp/dump.txt, an input of this run" \
    -C 24 -o "$tmp/dump.txt" "$tmp/dump.txt"
if cmp -s "$tmp/extra.txt" "$tmp/dump.txt"; then
    pass "the dump keeps its bytes"
else
    fail "the dump was overwritten"
fi
expect "no --cores" 2 "give --cores C" "$tmp/bad.txt"
expect "bad --cores" 2 "--cores 'x'" -C x "$tmp/bad.txt"
expect "bad --max-se" 2 "--max-se '-1'" -C 24 --max-se -1 "$tmp/bad.txt"
expect "no dump" 2 "no sacct dump given" -C 24
expect "help" 0 "Usage: nodeshare-learn" --help
out=$("$sim" -q -p mixed,twins --sacct "$tmp/x.txt" "$tmp/trace.swf" 2>&1)
if [ $? = 2 ] && printf '%s' "$out" | grep -qF "give exactly one with -p (got 2)"; then
    pass "nodeshare-sim --sacct needs one policy"
else
    fail "nodeshare-sim --sacct with two policies: $out"
fi
# The select plugin's state (StateSaveLocation/nodeshare-learn.json).
{
    printf '{ "version": 1, "node_cores": 24, "observations": ['
    sep=
    for i in 1 2 3; do
        printf '%s{ "program": "A", "runtime": 100, "striped": false, "nodes": 1, "segments": [ [ 100 ] ] }' "$sep"
        sep=,
        printf ',{ "program": "A", "runtime": 80, "striped": true, "nodes": 2, "segments": [ [ 80 ] ] }'
    done
    printf '] }\n'
} >"$tmp/state.json"
out=$("$learn" --state "$tmp/state.json" --min-observations 3 --table 2>&1)
if [ $? = 0 ] && printf '%s\n' "$out" | grep -q "state.json: 6 observations" \
   && printf '%s\n' "$out" | grep -qE '^A +spread_speedup +1\.250 '; then
    pass "--state: what the plugin learned (6 observations, A 1.250)"
else
    fail "--state: $out"
fi
echo '{ "version": 1, "node_cores": 24, "observations": [ { "program": "A" } ] }' \
    >"$tmp/badstate.json"
expect "--state with a broken observation" 1 \
    "observations[0]: expected runtime > 0" --state "$tmp/badstate.json"
echo 'garbage' >"$tmp/garbage.json"
expect "--state not JSON: file, line, column" 1 \
    "garbage.json:1:1: unexpected character" --state "$tmp/garbage.json"
printf '{ "version": 1, "node_cores": 24,\n  "observations": [' \
    >"$tmp/cut.json"
out=$("$learn" --state "$tmp/cut.json" 2>&1)
st=$?
if [ "$st" = 1 ] && [ "$out" = "nodeshare-learn: $tmp/cut.json:2:20: unexpected end of data" ]
then
    pass "--state cut short: one line, where it ends"
else
    fail "--state cut short: one line, where it ends (exit $st)"
    printf '%s\n' "$out" | sed 's/^/#   /'
fi
expect "--state with other --cores" 2 "nodes of 24 cores, not --cores 48" \
    -C 48 --state "$tmp/state.json"
tap_end
