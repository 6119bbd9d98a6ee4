#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeshare-sim.sh - the simulator as a user meets it (TAP): bad inputs get
# one precise message and an exit status that says whether results were
# produced (0 yes, 1 no, 2 bad usage); outputs are well-formed.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"
sim="$top_builddir/nodeshare-sim"

# expect NAME STATUS PATTERN ARGS...: exit status and a fixed string in
# the combined output (tap.sh's expect_out).
expect () {
    e_name=$1 e_want=$2 e_pattern=$3
    shift 3
    expect_out "$e_name" "$e_want" "$e_pattern" "$sim" -q "$@"
}

swf () {  # 18 fields: id submit wait run procs ... req_procs req_time ...
    printf '%s 0 -1 -1 -1 -1 -1\n' "$1"
}

# A good little trace: 4 nodes x 4 cores.
cat >"$tmp/good.swf" <<'EOT'
; MaxNodes: 4
; MaxProcs: 16
1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1
2 10 0 50 2 -1 -1 2 100 -1 1 2 1 2 1 -1 -1 -1
3 20 0 30 8 -1 -1 8 60 -1 1 1 1 1 1 -1 -1 -1
EOT

: >"$tmp/empty.swf"
expect "empty file" 1 "empty.swf: empty trace, no jobs" "$tmp/empty.swf"

# NUL bytes on the first line make it binary whatever the random rest is
# (a random first line of printable bytes would be "unknown format").
printf '\0\1\2\377' >"$tmp/garbage.bin"
head -c 2000 /dev/urandom >>"$tmp/garbage.bin"
expect "binary garbage" 1 "not a text trace (binary data)" "$tmp/garbage.bin"

i=0
while [ $i -lt 3000 ]; do
    echo "$i $i 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1"
    i=$((i + 1))
done | gzip -c >"$tmp/big.swf.gz"
size=$(wc -c <"$tmp/big.swf.gz")
head -c $((size / 2)) "$tmp/big.swf.gz" >"$tmp/cut.swf.gz"
expect "truncated gzip" 1 "truncated gzip" --nodes 4 --cores 4 "$tmp/cut.swf.gz"

cp "$tmp/good.swf" "$tmp/few.swf"
echo "4 30 0 10 2 -1" >>"$tmp/few.swf"
expect "too few fields: skipped, results produced" 0 \
    "skipped 1 too-few-fields, lines 6" "$tmp/few.swf"
expect "too few fields, --strict: stops" 1 "few.swf:6:" --strict \
    "$tmp/few.swf"

cp "$tmp/good.swf" "$tmp/neg.swf"
echo "5 40 0 10 -5 -1 -1 -5 60 -1 1 1 1 1 1 -1 -1 -1" >>"$tmp/neg.swf"
expect "negative processors: skipped" 0 "skipped 1 no-processors, lines 6" \
    "$tmp/neg.swf"

# Absurd times are bad lines, not a 2.5e15-hour makespan.
cp "$tmp/good.swf" "$tmp/absurd.swf"
echo "5 9000000000000000000 0 10 2 -1 -1 2 60 -1 1 1 1 1 1 -1 -1 -1" \
    >>"$tmp/absurd.swf"
expect "submit time 9e18: skipped as bad-time" 0 \
    "skipped 1 bad-time, lines 6" "$tmp/absurd.swf"
expect "submit time 9e18, --strict: line and field" 1 \
    "absurd.swf:6: field 2 (submit time): expected at most 7258118400 s" \
    --strict "$tmp/absurd.swf"

# A configuration without programs (model arrays never allocated).
expect "examples/exclusive.json: no programs" 0 "exclusive" \
    -c "$top_srcdir/examples/exclusive.json" -p exclusive "$tmp/good.swf"
expect "examples/exclusive.json, closed experiment: needs programs" 1 \
    "exclusive.json: the closed experiment needs programs with weights" \
    -c "$top_srcdir/examples/exclusive.json" --horizon 50000

# Report files: a symbolic link at the name is refused, not followed.
echo keep >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/link.json"
ln -s "$tmp/victim" "$tmp/link.csv"
expect "--json through a symlink: refused" 1 \
    "link.json: is a symbolic link: refusing to write through it" \
    -p twins --json "$tmp/link.json" "$tmp/good.swf"
expect "--csv through a symlink: refused" 1 \
    "link.csv: is a symbolic link: refusing to write through it" \
    -p twins --csv "$tmp/link.csv" "$tmp/good.swf"
if [ "$(cat "$tmp/victim")" = keep ]; then
    pass "the symlink's target is untouched"
else
    fail "the symlink's target was overwritten"
fi
expect "--json - still means stdout" 0 '"throughput_ratio"' \
    -p twins --json - "$tmp/good.swf"

# An output never overwrites an input or a write-protected file: checked
# before the run, the trace and the file keep every byte.
gzip -c "$tmp/good.swf" >"$tmp/shared.swf.gz"
chmod 444 "$tmp/shared.swf.gz"
sum=$(cksum <"$tmp/shared.swf.gz")
expect "--json onto a write-protected trace (no trace given): refused" 2 \
    "--json $tmp/shared.swf.gz: write-protected (mode 0444): not overwritten" \
    -p pack --json "$tmp/shared.swf.gz"
chmod 644 "$tmp/shared.swf.gz"
expect "--csv onto the trace being read: refused" 2 \
    "--csv $tmp/shared.swf.gz: is $tmp/shared.swf.gz, an input of this run" \
    -p pack --csv "$tmp/shared.swf.gz" "$tmp/shared.swf.gz"
cp "$top_srcdir/examples/exclusive.json" "$tmp/conf.json"
chmod 644 "$tmp/conf.json"
expect "--json onto the -c configuration: refused" 2 \
    "--json $tmp/conf.json: is $tmp/conf.json, an input of this run" \
    -p pack -c "$tmp/conf.json" --json "$tmp/conf.json" "$tmp/good.swf"
if [ "$(cksum <"$tmp/shared.swf.gz")" = "$sum" ]; then
    pass "the trace keeps its bytes"
else
    fail "the trace was overwritten"
fi
expect "--json and --svg naming one file: refused" 2 \
    "--json and --svg name the same file, '$tmp/both': give each its own" \
    -p pack --json "$tmp/both" --svg "$tmp/both" "$tmp/good.swf"

# /dev/zero never ends: the reader gives up (it used to read forever).
if command -v timeout >/dev/null; then
    out=$(timeout 60 "$sim" -q /dev/zero 2>&1)
    got=$?
    if [ "$got" = 1 ] && printf '%s\n' "$out" \
        | grep -qF "/dev/zero: line 1: not a text trace (binary data)"; then
        pass "/dev/zero: not a text trace"
    else
        fail "/dev/zero: not a text trace"
        echo "# exit $got (want 1): $out"
    fi
fi

sed 's/MaxProcs: 16/MaxProcs: 4/; s/MaxNodes: 4/MaxNodes: 1/' "$tmp/good.swf" \
    >"$tmp/lies.swf"
expect "header that lies: too-large jobs reported" 0 \
    "jobs larger than the machine were not run" -p twins "$tmp/lies.swf"

grep -v '^;' "$tmp/good.swf" >"$tmp/nohead.swf"
expect "no header, no size: clear error, status 2" 2 \
    "does not say the machine size (MaxNodes and MaxProcs): give --nodes N --cores C" \
    "$tmp/nohead.swf"
expect "no header, --nodes alone: give --cores" 2 \
    "(MaxNodes and MaxProcs): give --cores C" --nodes 4 "$tmp/nohead.swf"
expect "no header, size given" 0 "4 nodes x 4 cores (options)" \
    --nodes 4 --cores 4 "$tmp/nohead.swf"
expect "missing file" 1 "nope.swf" "$tmp/nope.swf"
expect "unknown policy" 2 "unknown policy 'fair'" -p fair "$tmp/good.swf"
expect "bad backfill" 2 "--backfill 'lazy': expected easy or none" \
    -b lazy "$tmp/good.swf"
expect "bad closed load" 2 "--closed 'x'" --closed x
expect "help" 0 "Usage: nodeshare-sim" --help
expect "no trace: closed experiment, says so" 0 \
    "No trace given: running the closed experiment" --horizon 50000

# The built-in study figures are those of examples/abq-lam-lsd.json.
a=$("$sim" -q --closed 1,0.5 --horizon 200000 2>&1)
b=$("$sim" -q --closed 1,0.5 --horizon 200000 \
    --config "$top_srcdir/examples/abq-lam-lsd.json" 2>&1)
if [ -n "$a" ] && [ "$a" = "$b" ]; then
    pass "built-in configuration equals examples/abq-lam-lsd.json"
else
    fail "built-in configuration differs from examples/abq-lam-lsd.json"
    printf '%s\n%s\n' "$a" "$b" | sed 's/^/#   /'
fi

# The study's throughput table (de Blanche and Lundqvist, COSH 2018), the
# acceptance of the closed experiment: every cell within 0.02.
study="1.00 exclusive 1.00
1.00 spread 0.63
1.00 same 1.21
1.00 twins 1.21
1.00 keep:ABQ 1.21
1.00 keep:LAM 1.19
1.00 keep:LSD 1.24
1.00 mixed 1.21"
for l in 0.50 0.25; do
    study="$study
$l exclusive 1.00"
    for p in spread same twins keep:ABQ keep:LAM keep:LSD mixed; do
        study="$study
$l $p 1.27"
    done
done
"$sim" -q --closed 1.0,0.5,0.25 \
    --policy exclusive,spread,same,twins,keep:ABQ,keep:LAM,keep:LSD,mixed \
    >"$tmp/study.out" 2>&1
cells=0 bad=""
while read -r load pol want; do
    got=$(awk -v p="$pol" -v l="$load" '$1 == p && $2 == l { print $7 }' \
          "$tmp/study.out")
    cells=$((cells + 1))
    if [ -z "$got" ] || ! awk -v g="$got" -v w="$want" \
            'BEGIN { d = g - w; exit !(d <= 0.02 && d >= -0.02) }'; then
        bad="$bad $pol@$load=${got:-missing}(study $want)"
    fi
done <<EOT
$study
EOT
if [ $cells = 24 ] && [ -z "$bad" ]; then
    pass "closed experiment: the study's 24 table cells within 0.02"
else
    fail "closed experiment: cells off the study's table:$bad"
    sed 's/^/#   /' "$tmp/study.out"
fi

# In the study's world (every job a whole node) stock packing places
# exactly as exclusive does: same jobs, same throughput.
"$sim" -q --closed 1,0.5 -p pack,exclusive >"$tmp/pe.out" 2>&1
pe=$(awk '$1 == "pack" || $1 == "exclusive" { print $2, $3, $7 }' \
     "$tmp/pe.out" | sort | uniq -c | awk '$1 == 2' | wc -l)
if [ "$pe" = 2 ]; then
    pass "closed experiment: pack and exclusive give the same jobs and thr"
else
    fail "closed experiment: pack and exclusive differ"
    sed 's/^/#   /' "$tmp/pe.out"
fi

# The mix is exact and deterministic: the seed changes nothing.
"$sim" -q --closed 1,0.75 --seed 9 >"$tmp/seed9.out" 2>&1
"$sim" -q --closed 1,0.75 >"$tmp/seed1.out" 2>&1
if cmp -s "$tmp/seed1.out" "$tmp/seed9.out" && [ -s "$tmp/seed1.out" ]; then
    pass "closed experiment: same results with seeds 1 and 9"
else
    fail "closed experiment: the seed changes the results"
    diff "$tmp/seed1.out" "$tmp/seed9.out" | head -20 | sed 's/^/#   /'
fi

# Weights as shares of jobs or of work give other, documented figures:
# half load, every job alone over two nodes: the mean of the programs'
# spread speedups weighted by machine time (time, 1.267), by work (the
# harmonic mean, 1.259) or by jobs (1.231: ABQ's long jobs dominate);
# jobs still running at the horizon are not counted (+-0.002).
for mw in time:1.267 work:1.259 jobs:1.231; do
    mix=${mw%%:*} want=${mw#*:}
    got=$("$sim" -q --mix "$mix" --closed 0.5 -p exclusive,twins 2>&1 |
          awk '$1 == "twins" { print $7 }')
    if [ -n "$got" ] && awk -v g="$got" -v w="$want" \
            'BEGIN { d = g - w; exit !(d <= 0.002 && d >= -0.002) }'; then
        pass "--mix $mix: twins at load 0.5 gives $want (+-0.002): $got"
    else
        fail "--mix $mix: twins at load 0.5 gives '$got', want $want"
    fi
done
expect "bad --mix" 2 "--mix 'cores': expected time" --mix cores
expect "--mix with a trace" 2 "--mix applies to the closed experiment only" \
    --mix work "$tmp/good.swf"
expect "closed load above 1" 2 "expected up to 16 loads in (0, 1]" \
    --closed 1.5

# The baseline of a trace is pack (stock Slurm).
trace_baseline=pack

# Outputs.
"$sim" -q -p twins,mixed --json "$tmp/out.json" --csv "$tmp/out.csv" \
    --svg "$tmp/out.svg" "$tmp/good.swf" >/dev/null 2>&1
if grep -q '"throughput_ratio"' "$tmp/out.json" \
   && grep -q '"jobs_skipped"' "$tmp/out.json" \
   && [ "$(grep -c '"policy":' "$tmp/out.json")" = 3 ]; then
    pass "JSON: baseline + 2 policies, input section"
else
    fail "JSON"
fi
# 3 jobs x 3 policies + header
if [ "$(wc -l <"$tmp/out.csv")" = 10 ] \
   && head -1 "$tmp/out.csv" | grep -q '^policy,job,program,procs'; then
    pass "CSV: one row per job and policy"
else
    fail "CSV: $(wc -l <"$tmp/out.csv") lines"
fi
if grep -q '<svg' "$tmp/out.svg" \
   && grep -q "Throughput vs $trace_baseline" "$tmp/out.svg" \
   && grep -q '</svg>' "$tmp/out.svg"; then
    pass "SVG: complete document with the throughput chart"
else
    fail "SVG"
fi
# A job of 4 cores on 4-core nodes under twins runs 2 nodes x 2 cores
# when its program gains from striping (exe1 mapped to LSD, 1.40) ...
cat >"$tmp/lsd.json" <<'EOT'
{ "programs": { "LSD": { "spread_speedup": 1.4 } },
  "identity": { "patterns": [ { "match": "exe1", "program": "LSD" } ] } }
EOT
"$sim" -q -p twins -c "$tmp/lsd.json" --csv "$tmp/lsd.csv" "$tmp/good.swf" \
    >/dev/null 2>&1
if grep -q '^twins,1,LSD,4,0,.*,2,1,' "$tmp/lsd.csv"; then
    pass "CSV: 4-core job of a program that gains striped over 2 nodes"
else
    fail "CSV striping row"
    grep '^twins,1' "$tmp/lsd.csv" | sed 's/^/#   /'
fi
# ... and is packed on one whole node when the model predicts no gain.
if grep -q '^twins,1,exe1,4,0,.*,1,0,' "$tmp/out.csv"; then
    pass "CSV: 4-core job without figures packed on 1 node"
else
    fail "CSV packing row"
    grep '^twins,1' "$tmp/out.csv" | sed 's/^/#   /'
fi

# policies FILE: the policy names of a JSON result, comma separated.
policies () {
    grep '"policy":' "$1" | sed 's/.*: "//; s/".*//' | paste -sd, -
}
# jfield FILE KEY: the first value of "KEY": in a JSON result.
jfield () {
    grep "\"$2\":" "$1" | head -1 | sed 's/.*: *//; s/,$//'
}

# --baseline
expect "unknown baseline" 2 \
    "--baseline 'twins': expected pack (stock Slurm) or exclusive (one job per node)" \
    --baseline twins "$tmp/good.swf"
expect "baseline named in the table" 0 \
    "thr: work per hour relative to exclusive (one job per node)" \
    --baseline exclusive -p twins "$tmp/good.swf"
"$sim" -q --baseline exclusive -p twins,mixed --json "$tmp/b.json" \
    --svg "$tmp/b.svg" "$tmp/good.swf" >/dev/null 2>&1
if [ "$(policies "$tmp/b.json")" = exclusive,twins,mixed ] \
   && [ "$(jfield "$tmp/b.json" baseline)" = '"exclusive"' ] \
   && [ "$(jfield "$tmp/b.json" throughput_ratio)" = 1.0 ] \
   && grep -q 'Throughput vs exclusive' "$tmp/b.svg"; then
    pass "--baseline exclusive: run first, in input.baseline and the SVG"
else
    fail "--baseline exclusive"
    sed 's/^/#   /' "$tmp/b.json"
fi
"$sim" -q --baseline exclusive -p twins,exclusive --json "$tmp/b.json" \
    "$tmp/good.swf" >/dev/null 2>&1
if [ "$(policies "$tmp/b.json")" = twins,exclusive ]; then
    pass "a listed baseline keeps its place and runs once"
else
    fail "listed baseline: $(policies "$tmp/b.json")"
fi
"$sim" -q --closed 1 --horizon 100000 -p twins --json "$tmp/c.json" \
    >"$tmp/c.out" 2>&1
if [ "$(policies "$tmp/c.json")" = exclusive,twins ] \
   && [ "$(jfield "$tmp/c.json" baseline)" = '"exclusive"' ]; then
    pass "closed experiment: baseline exclusive by default"
else
    fail "closed experiment baseline: $(policies "$tmp/c.json")"
fi
"$sim" -q -p twins --json "$tmp/t.json" "$tmp/good.swf" >/dev/null 2>&1
if [ "$(policies "$tmp/t.json")" = "$trace_baseline,twins" ] \
   && [ "$(jfield "$tmp/t.json" baseline)" = "\"$trace_baseline\"" ]; then
    pass "trace: baseline $trace_baseline by default"
else
    fail "trace default baseline: $(policies "$tmp/t.json")"
fi
"$sim" -q --json "$tmp/all.json" "$tmp/good.swf" >/dev/null 2>&1
want=exclusive,spread,mixed,twins,same,min-slowdown,keep:ABQ
want=pack,$want
if [ "$(policies "$tmp/all.json")" = "$want" ]; then
    pass "--policy all: $want"
else
    fail "--policy all: $(policies "$tmp/all.json")"
fi
expect "--baseline pack, closed experiment" 0 \
    "thr: work per hour relative to pack (stock Slurm) at the same load" \
    --baseline pack -p twins --closed 1 --horizon 100000

# --jobs: the same outputs from 1 thread and from 3.
mix="$top_srcdir/tests/traces/swf-mix.swf"
expect "bad --jobs" 2 "--jobs '0': expected an integer 1..1024" -j 0 "$mix"
for j in 1 3; do
    "$sim" -q -j $j --assign-classes --json "$tmp/j$j.json" \
        --csv "$tmp/j$j.csv" --svg "$tmp/j$j.svg" "$mix" >"$tmp/j$j.out" \
        2>&1
    grep -v '"wall_s":\|"peak_rss_mb":' "$tmp/j$j.json" >"$tmp/j$j.jsonx"
    "$sim" -q --jobs $j --closed 1,0.5 --horizon 200000 \
        --json "$tmp/c$j.json" --csv "$tmp/c$j.csv" >"$tmp/c$j.out" 2>&1
    grep -v '"wall_s":\|"peak_rss_mb":' "$tmp/c$j.json" >"$tmp/c$j.jsonx"
done
if [ "$(grep -c '"policy":' "$tmp/j1.json")" -ge 7 ] \
   && [ "$(wc -l <"$tmp/j1.csv")" -gt 2800 ] \
   && cmp -s "$tmp/j1.jsonx" "$tmp/j3.jsonx" \
   && cmp -s "$tmp/j1.csv" "$tmp/j3.csv" \
   && cmp -s "$tmp/j1.svg" "$tmp/j3.svg" \
   && cmp -s "$tmp/j1.out" "$tmp/j3.out"; then
    pass "trace: --jobs 1 and --jobs 3 give the same JSON, CSV, SVG, table"
else
    fail "trace: --jobs 1 and --jobs 3 differ"
    diff "$tmp/j1.jsonx" "$tmp/j3.jsonx" | head -10 | sed 's/^/#   /'
    diff "$tmp/j1.csv" "$tmp/j3.csv" | head -10 | sed 's/^/#   /'
fi
# all: 8 policies at 2 loads
if [ "$(grep -c '"policy":' "$tmp/c1.json")" = 16 ] \
   && cmp -s "$tmp/c1.jsonx" "$tmp/c3.jsonx" \
   && cmp -s "$tmp/c1.csv" "$tmp/c3.csv" \
   && cmp -s "$tmp/c1.out" "$tmp/c3.out"; then
    pass "closed: --jobs 1 and --jobs 3 give the same JSON, CSV, table"
else
    fail "closed: --jobs 1 and --jobs 3 differ"
    diff "$tmp/c1.jsonx" "$tmp/c3.jsonx" | head -10 | sed 's/^/#   /'
fi

# Nodes of one core: the note, once, on stderr and in the JSON.
sed 's/MaxProcs: 16/MaxProcs: 4/' "$tmp/good.swf" | grep -v '^3 ' \
    >"$tmp/one.swf"
"$sim" -q -p twins --json "$tmp/one.json" "$tmp/one.swf" \
    >"$tmp/one.out" 2>"$tmp/one.err"
note="note: nodes have 1 core each (trace header MaxNodes = MaxProcs): no policy can share or stripe a node; schedules differ only where a policy's choice of nodes changes what EASY backfilling can start (with --backfill none, every policy gives the same schedule); give --nodes N --cores C to replay on nodes of C cores"
if [ "$(grep -cF "$note" "$tmp/one.err")" = 1 ] \
   && ! grep -q note "$tmp/one.out" \
   && grep -q '"note": "nodes have 1 core each (trace header' \
       "$tmp/one.json"; then
    pass "one core per node: note on stderr and in input.note"
else
    fail "one core per node: no note"
    sed 's/^/#   /' "$tmp/one.err"
fi
expect "one core per node, no backfilling: the same schedule" 0 \
    "no policy can share or stripe a node, so every policy gives the same schedule; give" \
    -b none "$tmp/one.swf"
expect "one core per node from --cores 1: the note says so" 0 \
    "note: nodes have 1 core each (--cores 1)" -C 1 "$tmp/good.swf"
expect "closed experiment on nodes of one core: the note" 0 \
    "note: nodes have 1 core each (--cores 1)" --closed 1 -C 1 \
    --horizon 100000
"$sim" -q -p twins --json "$tmp/four.json" "$tmp/good.swf" \
    >/dev/null 2>"$tmp/four.err"
if ! grep -q "note: nodes have" "$tmp/four.err" \
   && [ "$(jfield "$tmp/four.json" note)" = null ]; then
    pass "nodes of 4 cores: no note"
else
    fail "nodes of 4 cores: a note"
fi
# Processors near INT_MAX: the job is dropped as too large, the run goes
# on (minimal width x stripe_width and a run's core sum overflowed an int:
# UBSan stopped the whole run).
cp "$tmp/good.swf" "$tmp/huge.swf"
echo "4 40 0 10 2147483647 -1 -1 2147483647 60 -1 1 1 1 1 1 -1 -1 -1" \
    >>"$tmp/huge.swf"
cat >"$tmp/stripe16.json" <<'EOT'
{ "policy": "twins", "stripe_width": 16, "small_job_cores": 0,
  "programs": { "EXE": { "spread_speedup": 1.5 } },
  "identity": { "patterns": [ { "match": "exe*", "program": "EXE" } ] } }
EOT
expect "INT_MAX processors, stripe_width 16: one job dropped" 0 \
    "twins: 1 jobs larger than the machine were not run" \
    -c "$tmp/stripe16.json" -p twins --nodes 100 --cores 2 "$tmp/huge.swf"
expect "INT_MAX processors on 10^6 nodes of 4096 cores: runs" 0 \
    "4 jobs read, 4 used" -p pack --nodes 1000000 --cores 4096 \
    "$tmp/huge.swf"

# --compare-placements: a real cluster's sacct dump replayed under one
# policy; the same shape and co-tenant programs per job, or DIFFERS.
cat >"$tmp/parity.json" <<'EOT'
{ "policy": "twins", "fallback_after": -1,
  "programs": { "LAM": { "spread_speedup": 1.147 },
                "ABQ": { "spread_speedup": 1.255 } },
  "identity": { "patterns": [ { "match": "lmp*", "program": "LAM" },
                              { "match": "abq*", "program": "ABQ" } ] } }
EOT
cat >"$tmp/parity.sacct" <<'EOT'
JobIDRaw|JobName|Submit|Start|End|NodeList|AllocCPUS|NNodes|State|Timelimit
1|lmp_serial|2026-01-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:01:00|ns[1-2]|24|2|COMPLETED|00:10:00
2|abq_std|2026-01-01T00:00:10|2026-01-01T00:00:11|2026-01-01T00:01:30|ns[3-4]|24|2|COMPLETED|00:10:00
3|abq_std|2026-01-01T00:00:20|2026-01-01T00:00:21|2026-01-01T00:01:40|ns[1-2]|24|2|COMPLETED|00:10:00
4|other|2026-01-01T00:00:30|2026-01-01T00:00:31|2026-01-01T00:00:50|ns3|2|1|COMPLETED|00:10:00
5|other|2026-01-01T00:00:30|Unknown|2026-01-01T00:00:50|None assigned|0|0|CANCELLED by 0|00:10:00
EOT
expect "--compare-placements: all 4 jobs agree" 0 \
    "placement agreement: 4 of 4 jobs = 1.000 (shape differs 0, co-tenants differ 0" \
    -C 24 -c "$tmp/parity.json" --compare-placements "$tmp/parity.sacct"
# Without -q every job has its line (with -q only the disagreements).
line="job 3 ABQ (24 CPUs, submit +20): real ns[1-2] 2x12 with [LAM] start +21; sim ns1,ns2 2x12 with [LAM] start +20: agree"
if "$sim" -C 24 -c "$tmp/parity.json" --compare-placements "$tmp/parity.sacct" \
       2>&1 | grep -qxF -- "$line"; then
    pass "--compare-placements: a job line names real and simulated nodes"
else
    fail "--compare-placements: a job line names real and simulated nodes"
    echo "# wanted: $line"
fi
# The cluster put ABQ job 3 next to its twin: the policy would not.
sed 's/^3|\(.*\)|ns\[1-2\]|/3|\1|ns[3-4]|/' "$tmp/parity.sacct" >"$tmp/twin.sacct"
expect "--compare-placements: a twin pairing the policy refuses DIFFERS" 0 \
    "real ns[3-4] 2x12 with [ABQ] start +21; sim ns1,ns2 2x12 with [LAM] start +20: DIFFERS: co-tenants" \
    -C 24 -c "$tmp/parity.json" --compare-placements "$tmp/twin.sacct"
"$sim" -q -C 24 -c "$tmp/parity.json" --compare-placements "$tmp/twin.sacct" \
    --json "$tmp/twin.out.json" >/dev/null 2>&1
if grep -q '"placement_agreement":0.75' "$tmp/twin.out.json" &&
   grep -q '"cotenants_differ":1' "$tmp/twin.out.json"; then
    pass "--compare-placements --json: placement_agreement 0.75, 1 co-tenant difference"
else
    fail "--compare-placements --json: placement_agreement"
    sed -n '1,20p' "$tmp/twin.out.json" | sed 's/^/#   /'
fi
# 2 CPUs on one node where the cluster used 2 nodes: the shape differs.
sed 's/^4|\(.*\)|ns3|2|1|/4|\1|ns[3-4]|2|2|/' "$tmp/parity.sacct" >"$tmp/shape.sacct"
expect "--compare-placements: another shape DIFFERS" 0 \
    "real ns[3-4] 2x1 with [ABQ] start +31; sim ns3 1x2 with [ABQ] start +30: DIFFERS: shape" \
    -C 24 -c "$tmp/parity.json" --compare-placements "$tmp/shape.sacct"
"$sim" -q -C 24 -c "$tmp/parity.json" --compare-placements "$tmp/parity.sacct" \
    --csv "$tmp/parity.csv" >/dev/null 2>&1
if head -n 1 "$tmp/parity.csv" | grep -q ',state,node_list,cotenants$' &&
   grep -q '^twins,3,ABQ,.*,done,0:12;1:12,LAM$' "$tmp/parity.csv" &&
   grep -q '^twins,4,other,.*,done,2:2,ABQ$' "$tmp/parity.csv"; then
    pass "--csv: node_list and cotenants per job"
else
    fail "--csv: node_list and cotenants per job"
    sed 's/^/#   /' "$tmp/parity.csv"
fi
expect "--compare-placements without --cores" 2 \
    "--compare-placements: give --cores C" --compare-placements "$tmp/parity.sacct"
expect "--compare-placements with two policies" 2 \
    "--compare-placements replays one policy, not 'pack,twins'" \
    -C 24 -p pack,twins --compare-placements "$tmp/parity.sacct"
expect "--compare-placements and a trace" 2 \
    "--compare-placements replays its own dump: give no trace" \
    -C 24 --compare-placements "$tmp/parity.sacct" "$tmp/good.swf"
cut -d'|' -f1-5,7- "$tmp/parity.sacct" >"$tmp/nonodes.sacct"
expect "--compare-placements on a dump without NodeList" 1 \
    "nonodes.sacct: line 1: sacct header lacks NodeList: --compare-placements needs JobName, Submit, Start, End, NodeList and AllocCPUS" \
    -C 24 --compare-placements "$tmp/nonodes.sacct"
sed 's/ns\[3-4\]/ns[4-3]/' "$tmp/parity.sacct" >"$tmp/badlist.sacct"
expect "--compare-placements: a bad host list names line and field" 1 \
    "badlist.sacct: line 3: field NodeList: host list 'ns[4-3]': expected a number >= 4 at 6" \
    -C 24 --compare-placements "$tmp/badlist.sacct"
expect "--compare-placements: a node beyond --nodes" 1 \
    "line 3: field NodeList: 'ns[3-4]': the dump names 4 nodes so far, more than --nodes 3" \
    -C 24 -n 3 --compare-placements "$tmp/parity.sacct"
# Nodes are matched by whole name: gpu01 and cn001 are two nodes, in
# natural order (cn001 first), whatever their numbers.
cat >"$tmp/names.sacct" <<'EOT'
JobIDRaw|JobName|Submit|Start|End|NodeList|AllocCPUS|NNodes|State|Timelimit
1|other|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|cn001|24|1|COMPLETED|00:10:00
2|other|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|gpu01|24|1|COMPLETED|00:10:00
EOT
expect "--compare-placements: gpu01 and cn001 are two nodes" 0 \
    "placement agreement: 2 of 2 jobs = 1.000" \
    -C 24 -p pack --compare-placements "$tmp/names.sacct"
expect_out "  the simulated nodes by the dump's names" 0 \
    "job 2 other (24 CPUs, submit +0): real gpu01 1x24 with [] start +0; sim gpu01 1x24 with [] start +0: agree" \
    "$sim" -C 24 -p pack --compare-placements "$tmp/names.sacct"
# A third job waited for cn001; with a third node it need not.
{ cat "$tmp/names.sacct"
  echo "3|other|2026-01-01T00:00:00|2026-01-01T00:01:00|2026-01-01T00:02:00|cn001|24|1|COMPLETED|00:10:00"
} >"$tmp/names3.sacct"
expect_out "  a node no line names, by its number" 0 \
    "real cn001 1x24 with [] start +60; sim (3) 1x24 with [] start +0: agree" \
    "$sim" -C 24 -n 3 -p pack --compare-placements "$tmp/names3.sacct"
expect "--compare-placements: more CPUs per node than --cores" 1 \
    "job 1 has 24 CPUs on 2 nodes, more than the 8 cores per node of --cores" \
    -C 8 --compare-placements "$tmp/parity.sacct"
# A real dump: the parity stream of tests/slurm/accounting.sh as slurmdbd
# recorded it (select/cons_tres_nodeshare, twins, 4 nodes x 24 cores).
real="$top_srcdir/tests/traces/sacct-cluster-parity.txt"
expect "--compare-placements on a real slurmdbd dump: 32 of 32 agree" 0 \
    "placement agreement: 32 of 32 jobs = 1.000 (shape differs 0, co-tenants differ 0, never started 0" \
    -C 24 -c "$top_srcdir/tests/configs/parity.json" --compare-placements "$real"
expect "--compare-placements under pack: the real twins schedule disagrees" 0 \
    "placement agreement: 2 of 32 jobs = 0.062 (shape differs 18, co-tenants differ 27" \
    -C 24 -c "$top_srcdir/tests/configs/parity.json" -p pack --compare-placements "$real"
expect "--compare-placements under mixed: twins matter" 0 \
    "placement agreement: 13 of 32 jobs = 0.406" \
    -C 24 -c "$top_srcdir/tests/configs/parity.json" -p mixed --compare-placements "$real"
expect "a plain replay of the real dump" 0 "32 jobs read, 32 used" \
    -n 4 -C 24 -c "$top_srcdir/tests/configs/parity.json" -p twins "$real"
# A real trace whose programs have no figures: no job is governed, and the
# default policy places every job as pack does (identical schedules); with
# figures drawn for its programs (--assign-classes) it does not.
kth=${NS_TRACES:-$top_srcdir/../shared/traces}/KTH-SP2-1996-2.1-cln.swf.gz
row () {  # POLICY: its row of the table, without the name
    printf '%s\n' "$out" | awk -v p="$1" '$1 == p { $1 = ""; print }'
}
if [ -f "$kth" ]; then
    out=$("$sim" -q -p pack,twins --nodes 25 --cores 4 "$kth" 2>&1)
    if [ -n "$(row pack)" ] && [ "$(row pack)" = "$(row twins)" ]; then
        pass "KTH 25 x 4 without figures: twins schedules exactly as pack"
    else
        fail "KTH 25 x 4 without figures: twins schedules exactly as pack"
        printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
    fi
    # so twins takes pack's replay, and says so; --replay-all replays it
    note="twins places every job as pack does, so its schedule is pack's"
    a=$(row twins)
    case $out in
        *"$note replay (--replay-all replays it too)"*)
            pass "KTH without figures: the note says twins takes pack's replay" ;;
        *) fail "KTH without figures: the note says twins takes pack's replay"
           printf '%s\n' "$out" | head -3 | sed 's/^/#   /' ;;
    esac
    out=$("$sim" -q -p pack,twins --replay-all --nodes 25 --cores 4 "$kth" 2>&1)
    case $out in
        *"$note"*) fail "--replay-all: twins replayed, no note" ;;
        *) if [ -n "$a" ] && [ "$(row twins)" = "$a" ]; then
               pass "--replay-all: twins replayed, no note, the same row"
           else
               fail "--replay-all: twins replayed, no note, the same row"
           fi ;;
    esac
    # --sacct of a policy that takes pack's replay: the history of every
    # job, as its own replay writes it
    "$sim" -q -p twins --nodes 25 --cores 4 --sacct "$tmp/tw1.sacct" "$kth" \
        >/dev/null 2>&1
    "$sim" -q -p twins --nodes 25 --cores 4 --replay-all \
        --sacct "$tmp/tw2.sacct" "$kth" >/dev/null 2>&1
    lines=$(wc -l <"$tmp/tw1.sacct" 2>/dev/null)
    if [ "${lines:-0}" -eq 28476 ] && cmp -s "$tmp/tw1.sacct" "$tmp/tw2.sacct"
    then
        pass "--sacct of twins from pack's replay: as its own replay (28,475 jobs)"
    else
        fail "--sacct of twins from pack's replay: as its own replay (28,475 jobs)"
        echo "#   $lines lines; cmp: $(cmp "$tmp/tw1.sacct" "$tmp/tw2.sacct" 2>&1)"
    fi
    out=$("$sim" -q -p pack,twins --assign-classes --nodes 25 --cores 4 \
          "$kth" 2>&1)
    if [ -n "$(row pack)" ] && [ "$(row pack)" != "$(row twins)" ]; then
        pass "KTH 25 x 4 with figures (--assign-classes): twins differs"
    else
        fail "KTH 25 x 4 with figures (--assign-classes): twins differs"
        printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
    fi
    case $out in
        *"gains from striping"*)
            fail "with figures: twins is replayed (no note)" ;;
        *) pass "with figures: twins is replayed (no note)" ;;
    esac
else
    skip "KTH 25 x 4 without figures: $kth not found"
    skip "KTH without figures: the note: $kth not found"
    skip "--replay-all: $kth not found"
    skip "--sacct of twins from pack's replay: $kth not found"
    skip "KTH 25 x 4 with figures: $kth not found"
    skip "with figures: twins is replayed: $kth not found"
fi
# --slurm-conf: the machine of a real slurm.conf (Include, ranges,
# two node sizes, weights, partitions, memory).
hetero="$top_srcdir/tests/configs/slurm-hetero.conf"
expect "--slurm-conf with --nodes" 2 \
    "--slurm-conf describes the machine: give no --nodes or --cores" \
    --slurm-conf "$hetero" -n 4 "$tmp/good.swf"
printf 'NodeName=a CPUs=x\n' >"$tmp/bad.conf"
expect "--slurm-conf: a bad line names file, line and field" 1 \
    "bad.conf: line 1: field CPUs: expected a number >= 0, got 'x'" \
    --slurm-conf "$tmp/bad.conf" "$tmp/good.swf"
# Memory and partitions from the trace: job 1 asks 3000 MB per processor
# (SWF field 10, in KB), more than a 2000 MB small node holds for one
# task, so it gets 2 tasks on each of 2 big nodes; job 2 (32 tasks) is in
# partition 2 (big, MaxNodes=8: 32 cores at most); job 3 asks more memory
# per processor than any node has and job 4 (36 tasks) more than big's
# MaxNodes=8 allow: neither ever runs.
cat >"$tmp/mem.swf" <<'EOT'
1 0 0 100 4 -1 -1 4 200 3072000 1 1 1 1 1 1 -1 -1
2 0 0 100 32 -1 -1 32 200 -1 1 1 1 1 1 2 -1 -1
3 0 0 100 1 -1 -1 1 200 9216000 1 1 1 1 1 1 -1 -1
4 0 0 100 36 -1 -1 36 200 -1 1 1 1 1 1 2 -1 -1
EOT
expect "--slurm-conf: the machine line" 0 \
    "4 jobs read, 4 used, 0 lines skipped; 30 nodes, 100 cores in all, 2 partitions, memory allocated" \
    -p pack --slurm-conf "$hetero" "$tmp/mem.swf"
expect "--slurm-conf: jobs its partition can never hold are not run" 0 \
    "pack: 2 jobs larger than the machine were not run" \
    -p pack --slurm-conf "$hetero" "$tmp/mem.swf"
# Memory consumable and no DefMemPerCPU/DefMemPerNode: Slurm gives a job
# that asks for none all of each node's memory; the simulator says that it
# does not (good.swf: 3 jobs, none asks for memory), says nothing once a
# global default is set, and counts only the jobs without memory of a
# partition without a default (parts.swf: job 2 is in partition q, which
# has DefMemPerCPU; job 3 asks for 1000 MB per processor).
printf 'SelectTypeParameters=CR_Core_Memory\nNodeName=n[1-4] CPUs=4 RealMemory=8000\nPartitionName=p Nodes=ALL Default=YES\n' \
    >"$tmp/nodef.conf"
expect "--slurm-conf: memory consumable, no default: a note names file, partition and jobs" 0 \
    "note: $tmp/nodef.conf: memory is consumable and partition p has neither DefMemPerCPU nor DefMemPerNode: Slurm gives a job that asks for no memory all the memory of each of its nodes (one such job per node); the simulator lets the 3 such jobs of the trace share nodes as if they needed none" \
    -p pack --slurm-conf "$tmp/nodef.conf" "$tmp/good.swf"
printf 'DefMemPerNode=2000\n' | cat - "$tmp/nodef.conf" >"$tmp/defnode.conf"
out=$("$sim" -q -p pack --slurm-conf "$tmp/defnode.conf" "$tmp/good.swf" 2>&1)
case $out in
    *"all the memory of each of its nodes"*) fail "--slurm-conf: DefMemPerNode set: no note" ;;
    *"3 jobs read"*) pass "--slurm-conf: DefMemPerNode set: no note" ;;
    *) fail "--slurm-conf: DefMemPerNode set: no note (no machine line)"
       printf '%s\n' "$out" | tail -3 | sed 's/^/#   /' ;;
esac
printf 'PartitionName=q Nodes=ALL DefMemPerCPU=500\n' | cat "$tmp/nodef.conf" - >"$tmp/defpart.conf"
cat >"$tmp/parts.swf" <<'EOT'
1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1
2 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 2 -1 -1
3 0 0 100 4 -1 -1 4 200 1024000 1 1 1 1 1 1 -1 -1
EOT
expect "--slurm-conf: only jobs of a partition without a default, asking for no memory, are counted" 0 \
    "partition p has neither DefMemPerCPU nor DefMemPerNode: Slurm gives a job that asks for no memory all the memory of each of its nodes (one such job per node); the simulator lets the 1 such jobs" \
    -p pack --slurm-conf "$tmp/defpart.conf" "$tmp/parts.swf"
# Scope and GRES nodes on a slurm.conf machine, as the select plugin
# applies them: partition 2 (other) is outside "partitions", so its job
# is packed on one node; the third job of partition 1 finds only the two
# GRES nodes empty and is packed there (with "stripe_gres_nodes": true,
# striped over them).
printf 'NodeName=n[1-4] CPUs=24 RealMemory=64000\nNodeName=g[1-2] CPUs=24 RealMemory=64000 Gres=gpu:2\nPartitionName=batch Nodes=n[1-4],g[1-2] Default=YES\nPartitionName=other Nodes=n[1-4],g[1-2]\n' \
    >"$tmp/scope.conf"
printf '1 0 0 100 24 -1 -1 24 200 -1 1 1 1 1 1 %s -1 -1\n' 1 2 1 |
    awk '{ $1 = NR; print }' >"$tmp/scope.swf"
placed () {   # CONFIG-JSON: "JOB:NNODES" of each job
    printf '%s\n' "$1" >"$tmp/scope.json"
    "$sim" -q -p twins -c "$tmp/scope.json" --slurm-conf "$tmp/scope.conf" \
        --sacct "$tmp/scope.sacct" "$tmp/scope.swf" >/dev/null 2>&1 &&
        awk -F'|' 'NR > 1 { printf "%s:%s ", $1, $9 }' "$tmp/scope.sacct"
}
got=$(placed '{ "policy": "twins", "default_speedup": 1.2, "partitions": ["batch"] }')
[ "$got" = "1:2 2:1 3:2 " ] && pass "--slurm-conf, \"partitions\": [\"batch\"]: the job of partition other is packed" ||
    fail "--slurm-conf, \"partitions\": [\"batch\"]: the job of partition other is packed (got '$got', want '1:2 2:1 3:2 ')"
got=$(placed '{ "policy": "twins", "default_speedup": 1.2 }')
[ "$got" = "1:2 2:2 3:1 " ] && pass "--slurm-conf, GRES nodes: the third stripe is not put on them, it is packed" ||
    fail "--slurm-conf, GRES nodes: the third stripe is not put on them (got '$got', want '1:2 2:2 3:1 ')"
got=$(placed '{ "policy": "twins", "default_speedup": 1.2, "stripe_gres_nodes": true }')
[ "$got" = "1:2 2:2 3:2 " ] && pass "--slurm-conf, \"stripe_gres_nodes\": true: striped over the GRES nodes" ||
    fail "--slurm-conf, \"stripe_gres_nodes\": true: striped over the GRES nodes (got '$got', want '1:2 2:2 3:2 ')"
printf '{ "partitions": ["batch"] }\n' >"$tmp/scope.json"
expect "\"partitions\" without --slurm-conf: a note" 0 \
    "names partitions; without --slurm-conf every job is in scope" \
    -c "$tmp/scope.json" -p twins -n 6 -C 24 "$tmp/scope.swf"
sed 's/CR_Core_Memory/CR_Socket/' "$tmp/nodef.conf" >"$tmp/socket.conf"
expect "--slurm-conf: CR_Socket: a note" 0 \
    "note: $tmp/socket.conf: CR_Socket: Slurm gives jobs whole sockets; the simulator counts cores (as CR_Core), and the select plugin leaves every job to cons_tres there" \
    -p pack --slurm-conf "$tmp/socket.conf" "$tmp/good.swf"
if [ -f "$kth" ]; then
    out=$("$sim" -q -p pack,twins --slurm-conf "$hetero" "$kth" 2>&1)
    case $(row pack) in
        *" 28475 "*) pass "KTH on the slurm.conf machine: every job runs" ;;
        *) fail "KTH on the slurm.conf machine: every job runs"
           printf '%s\n' "$out" | tail -3 | sed 's/^/#   /' ;;
    esac
    if [ -n "$(row pack)" ] && [ "$(row pack)" = "$(row twins)" ]; then
        pass "KTH on the slurm.conf machine, no figures: twins as pack"
    else
        fail "KTH on the slurm.conf machine, no figures: twins as pack"
        printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
    fi
    out=$("$sim" -q -p pack --nodes 25 --cores 4 "$kth" 2>&1)
    a=$(row pack)
    out=$("$sim" -q -p pack --slurm-conf "$hetero" "$kth" 2>&1)
    if [ -n "$a" ] && [ "$a" != "$(row pack)" ]; then
        pass "the heterogeneous machine schedules differently from 25 x 4"
    else
        fail "the heterogeneous machine schedules differently from 25 x 4"
    fi
else
    skip "KTH on the slurm.conf machine: $kth not found"
    skip "KTH on the slurm.conf machine, no figures: $kth not found"
    skip "the heterogeneous machine: $kth not found"
fi
tap_end
