#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sweep.sh - nodeshare-sim --sweep on this machine (TAP): a 12-cell sweep
# (KTH and NASA x two machines x three values of fallback_after, pack and
# twins, 400 jobs each) runs, merges into one table, JSON and SVG, gives
# the same table with --jobs 1 and 2, and resumes: a deleted cell, a cut
# result, or a changed definition is run again, nothing else.  A failed
# cell is reported with its error and a non-zero status.  --cell runs one
# cell; --slurm is checked against a stand-in sbatch (the real one:
# tests/slurm/sweep.sh).  Bad sweep files and option mixes get one
# precise message and status 2 (the parser's messages: tests/unit/sweep.t).
# The traces are looked for in $NS_TRACES, else ../shared/traces beside
# the source tree; without them the 12-cell points are skipped.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"
sim="$top_builddir/nodeshare-sim"
traces=${NS_TRACES:-$top_srcdir/../shared/traces}
kth=$traces/KTH-SP2-1996-2.1-cln.swf.gz
nasa=$traces/NASA-iPSC-1993-3.1-cln.swf.gz
small=$top_srcdir/tests/traces/swf-small.swf

# expect NAME STATUS PATTERN ARGS...: exit status and a fixed string in
# the combined output.
expect () {
    e_name=$1 e_want=$2 e_pattern=$3
    shift 3
    expect_out "$e_name" "$e_want" "$e_pattern" "$sim" "$@"
}

# check NAME COMMAND...: a point for a shell test.
check () {
    name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}

# ---- bad sweep files and options ----

s=$tmp/s.json
printf '{ "traces": [ "%s", "%s/none.swf" ] }\n' "$small" "$tmp" >"$s"
expect "a trace that is not there: status 2, the key and the file" 2 \
    "nodeshare-sim: $s: traces[1]: cannot read $tmp/none.swf: No such file" \
    --sweep "$s"
printf '{ "traces": [ "%s" ], "policies": [ "pack", "fair" ] }\n' \
    "$small" >"$s"
expect "an unknown policy: policies[1]" 2 \
    "$s: policies[1]: unknown policy 'fair'" --sweep "$s"
printf '{ "traces": [ "%s" ], "vary": { "fallback_after": [ 0, -5 ] } }\n' \
    "$small" >"$s"
expect "a varied value nodeshare.json refuses: the cell and the key" 2 \
    "$s: vary: 001-swf-small-header-fallback_after=-5/nodeshare.json: fallback_after: expected an integer >= 0 (seconds) or -1 (never), got -5" \
    --sweep "$s"
printf '{ "traces": [ "%s" ], "config": "nope.json" }\n' "$small" >"$s"
expect "a config that is not there" 2 \
    "$s: config: cannot read $tmp/nope.json: No such file" --sweep "$s"
printf '{ "traces": [ "%s" ], "machines": [ { "slurm_conf": "x.conf" } ] }\n' \
    "$small" >"$s"
expect "a slurm.conf that is not there: machines[0]" 2 \
    "$s: machines[0]: cannot read $tmp/x.conf" --sweep "$s"
cp "$top_srcdir/tests/sweeps/bad/backfill.json" "$tmp/b.json"
expect "a bad key: the parser's message" 2 \
    "nodeshare-sim: $tmp/b.json: options.backfill: expected easy or none, got \"conservative\"" \
    --sweep "$tmp/b.json"
expect "no such sweep file" 2 "nodeshare-sim: $tmp/nope.json: No such file" \
    --sweep "$tmp/nope.json"
printf '{ "traces": [ "%s" ] }\n' "$small" >"$s"
expect "--sweep with a TRACE" 2 \
    "--sweep takes its traces from the sweep file: give no TRACE" \
    --sweep "$s" "$small"
expect "--sweep with --nodes" 2 \
    "--sweep: --nodes is not an option of a sweep run" --sweep "$s" -n 4
expect "--slurm without --sweep" 2 "--slurm goes with --sweep FILE" --slurm
expect "--slurm and --collect" 2 \
    "--slurm, --collect and --cell exclude each other" --sweep "$s" \
    --slurm --collect
expect "--sbatch-args without --slurm" 2 "--sbatch-args goes with --slurm" \
    --sweep "$s" --sbatch-args "-p x"
expect "--cell beyond the cells" 2 "--cell 1: $s has 1 cells (0..0)" \
    --sweep "$s" --cell 1
expect "--help tells of --sweep" 0 "--sweep FILE" --help

# ---- a failing cell ----

f=$tmp/fail/sweep.json
mkdir -p "$tmp/fail"
: >"$tmp/fail/empty.swf"
printf '{ "traces": [ "%s", "empty.swf" ], "policies": [ "pack" ] }\n' \
    "$small" >"$f"
"$sim" -j 2 --sweep "$f" >"$tmp/fail.out" 2>"$tmp/fail.err"
check "a failing cell: exit status 1" test $? = 1
check "  the table lists it as FAILED with its error" grep -qF \
    "FAILED  001-empty-header: exit status 1: nodeshare-sim: $tmp/fail/empty.swf: empty trace, no jobs" \
    "$tmp/fail.out"
check "  the other cell is in the table" grep -q "^000-swf-small-header pack " \
    "$tmp/fail.out"
check "  the first line counts it" grep -q \
    "^sweep: 2 cells (2 traces x 1 machine): 1 done, 1 failed, 0 not run$" \
    "$tmp/fail.out"
check "  stderr says so as it happens" grep -q \
    "\] 001-empty-header: FAILED: exit status 1" "$tmp/fail.err"
check "  and at the end" grep -qF \
    "sweep: 1 of 2 cells have no result (1 failed, 0 not run)" "$tmp/fail.err"
check "  its error.txt and log.txt" test -s "$tmp/fail/sweep.out/001-empty-header/error.txt" -a \
    -s "$tmp/fail/sweep.out/001-empty-header/log.txt"
check "  sweep.json: status failed, with the error" grep -q \
    '"error": "exit status 1: nodeshare-sim: .*empty trace, no jobs"' \
    "$tmp/fail/sweep.out/sweep.json"
"$sim" --sweep "$f" >/dev/null 2>"$tmp/fail2.err"
check "  run again: the failed cell only is run again" grep -q \
    "2 cells, 1 done before, 1 to run" "$tmp/fail2.err"
rm -rf "$tmp/fail/sweep.out/000-swf-small-header"
"$sim" --sweep "$f" --collect >"$tmp/col.out" 2>&1
check "--collect: exit 1 when cells are missing" test $? = 1
check "  NOT RUN lists the missing cell" grep -q \
    "^NOT RUN 000-swf-small-header$" "$tmp/col.out"

# ---- --cell ----

c=$tmp/cell/sweep.json
mkdir -p "$tmp/cell"
printf '{ "traces": [ "%s" ], "policies": [ "pack", "twins" ],
  "vary": { "max_cotenants": [ 1, 2, 3 ] } }\n' "$small" >"$c"
"$sim" --sweep "$c" --cell 1 >/dev/null 2>"$tmp/cell.err"
check "--cell 1: exit 0" test $? = 0
check "  only cell 1 has a result" test "$(ls "$tmp"/cell/sweep.out/*/result.json | wc -l)" = 1 -a \
    -f "$tmp/cell/sweep.out/001-swf-small-header-max_cotenants=2/result.json"
check "  its nodeshare.json has the value" grep -q '"max_cotenants": 2' \
    "$tmp/cell/sweep.out/001-swf-small-header-max_cotenants=2/nodeshare.json"
expect "  again: already done" 0 "already done" --sweep "$c" --cell 1

# ---- --slurm against a stand-in sbatch ----

mkdir -p "$tmp/bin"
cat >"$tmp/bin/sbatch" <<EOF
#!/bin/sh
# records its arguments; job ids 41 and 42
n=\$(cat "$tmp/sbatch.n" 2>/dev/null || echo 40)
n=\$((n + 1))
echo \$n >"$tmp/sbatch.n"
echo "\$*" >>"$tmp/sbatch.args"
[ -n "\${SBATCH_FAIL:-}" ] && { echo "sbatch: error: no partition" >&2; exit 1; }
echo "\$n;cluster"
EOF
chmod +x "$tmp/bin/sbatch"
printf '{ "traces": [ "%s" ], "policies": [ "pack", "twins" ],
  "vary": { "max_cotenants": [ 1, 2, 3 ] },
  "sbatch": [ "--partition=batch", "--time=20" ] }\n' "$small" >"$c"
out=$(PATH=$tmp/bin:$PATH "$sim" --sweep "$c" --slurm --sbatch-args "--qos=low --account=x" 2>&1)
check "--slurm: exit 0" test $? = 0
check "  the cells not done as one array (0,2)" test "$(printf '%s\n' "$out" | head -1)" = \
    "sweep: 2 of 3 cells submitted: job array 41 (0,2)"
check "  and the collect job" test "$(printf '%s\n' "$out" | sed -n 2p)" = \
    "sweep: collect: job 42, after the array: $tmp/cell/sweep.out/sweep.txt"
check "  sbatch: array, log names, --sbatch-args, the script" grep -qF \
    -- "--parsable --job-name=nodeshare-sweep --ntasks=1 --array=0,2 --chdir=$tmp/cell/sweep.out --output=$tmp/cell/sweep.out/slurm/cell-%a.out --qos=low --account=x $tmp/cell/sweep.out/sweep.sbatch" \
    "$tmp/sbatch.args"
check "  the collect job after the array (afterany)" grep -qF \
    -- "--parsable --job-name=nodeshare-sweep-collect --ntasks=1 --dependency=afterany:41 --chdir=$tmp/cell/sweep.out" \
    "$tmp/sbatch.args"
check "  sweep.sbatch: the sweep file's #SBATCH lines" grep -qx \
    "#SBATCH --time=20" "$tmp/cell/sweep.out/sweep.sbatch"
check "  and runs one cell per task" grep -qx \
    "exec '$(cd "$top_builddir" && pwd -P)/nodeshare-sim' --sweep '$(cd "$tmp/cell" && pwd -P)/sweep.json' --cell \"\$SLURM_ARRAY_TASK_ID\"" \
    "$tmp/cell/sweep.out/sweep.sbatch"
check "  collect.sbatch merges" grep -q -- "--collect$" \
    "$tmp/cell/sweep.out/collect.sbatch"
out=$(SBATCH_FAIL=1 PATH=$tmp/bin:$PATH "$sim" --sweep "$c" --slurm 2>&1)
check "sbatch fails: exit 1, and says so" test $? = 1 -a -n "$(printf '%s\n' "$out" | grep 'sbatch .*sweep.sbatch failed')"

# ---- the 12-cell sweep ----

if [ ! -f "$kth" ] || [ ! -f "$nasa" ]; then
    skip "the 12-cell sweep: traces not found in $traces"
    tap_end
    exit
fi

sweep_file () {
    cat <<EOF
// a 12-cell sweep: 2 traces x 2 machines x 3 values
{
  "traces": [ "$kth", "$nasa" ],
  "machines": [ { "nodes": 32, "cores": 4 }, { "nodes": 16, "cores": 8 } ],
  "policies": [ "pack", "twins" ],
  "vary": { "fallback_after": [ 0, 600, -1 ] },
  "options": { "max_jobs": ${1:-400}, "assign_classes": true },
  "output": "out"
}
EOF
}
mkdir -p "$tmp/a" "$tmp/b"
sweep_file >"$tmp/a/sweep.json"
cp "$tmp/a/sweep.json" "$tmp/b/sweep.json"
a=$tmp/a/out
"$sim" -j 2 --sweep "$tmp/a/sweep.json" >"$tmp/a.out" 2>"$tmp/a.err"
check "12 cells, --jobs 2: exit 0" test $? = 0
check "  12 done" grep -q \
    "^sweep: 12 cells (2 traces x 2 machines x 3 values of fallback_after): 12 done, 0 failed, 0 not run$" \
    "$tmp/a.out"
check "  24 rows: 12 cells x pack, twins" test \
    "$(grep -c '^0[0-9][0-9]-.* \(pack\|twins\) ' "$tmp/a.out")" = 24
check "  cells in order: 000-KTH-...-32x4-fallback_after=0 first, 011-NASA-...-16x8-fallback_after=-1 last" \
    test "$(ls "$a" | grep '^0' | sed -n '1p;12p' | tr '\n' ' ')" = \
    "000-KTH-SP2-1996-2.1-cln-32x4-fallback_after=0 011-NASA-iPSC-1993-3.1-cln-16x8-fallback_after=-1 "
check "  stdout is out/sweep.txt" cmp -s "$tmp/a.out" "$a/sweep.txt"
check "  sweep.json: 12 results, 12 done" grep -q '"done": 12' "$a/sweep.json"
check "  sweep.svg" grep -q '^</svg>$' "$a/sweep.svg"
check "  progress on stderr, one line per cell" test \
    "$(grep -c '^nodeshare-sim: sweep: \[[0-9]*/12\] .*: done in' "$tmp/a.err")" = 12
check "  a cell's result names its cell" grep -q \
    '"name": "004-KTH-SP2-1996-2.1-cln-16x8-fallback_after=600"' \
    "$a/004-KTH-SP2-1996-2.1-cln-16x8-fallback_after=600/result.json"

"$sim" -q -j 1 --sweep "$tmp/b/sweep.json" >"$tmp/b.out" 2>&1
check "--jobs 1: the same table" cmp -s "$a/sweep.txt" "$tmp/b/out/sweep.txt"

# Resumed: only what is missing runs.
cell=$(cd "$a" && ls -d 007-*)
rm -rf "${a:?}/$cell"
"$sim" -j 2 --sweep "$tmp/a/sweep.json" >"$tmp/a2.out" 2>"$tmp/a2.err"
check "a deleted cell: exit 0" test $? = 0
check "  11 done before, 1 to run" grep -q \
    "12 cells, 11 done before, 1 to run" "$tmp/a2.err"
check "  that cell, only" test "$(grep '\] .*: done in' "$tmp/a2.err" | \
    sed 's/.*\] \(.*\): done.*/\1/')" = "$cell"
check "  the same table" cmp -s "$tmp/a.out" "$tmp/a2.out"
# A result cut short (as by a full disk) is not a result.
r=$a/$(cd "$a" && ls -d 002-*)/result.json
head -c 100 "$r" >"$r.cut" && mv "$r.cut" "$r"
"$sim" --sweep "$tmp/a/sweep.json" >"$tmp/a3.out" 2>"$tmp/a3.err"
check "a cut result.json: that cell runs again" grep -q \
    "11 done before, 1 to run" "$tmp/a3.err"
check "  the same table" cmp -s "$tmp/a.out" "$tmp/a3.out"
"$sim" --sweep "$tmp/a/sweep.json" >/dev/null 2>"$tmp/a4.err"
check "every cell done: nothing runs" grep -q \
    "12 cells, 12 done before, 0 to run" "$tmp/a4.err"
sweep_file 300 >"$tmp/a/sweep.json"
"$sim" -q --sweep "$tmp/a/sweep.json" >"$tmp/a5.out" 2>&1
check "max_jobs changed: every cell runs again, 300 jobs" test \
    "$(grep -c '^0[0-9][0-9]-.*  *300  ' "$tmp/a5.out")" = 24
tap_end
