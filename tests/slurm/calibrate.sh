#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/calibrate.sh - nodeshare-calibrate on a real cluster (TAP)
#
# 4 nodes x 4 cores, stock select/cons_tres, no accounting (the tool
# times its jobs itself).  Three test programs whose run time follows
# their placement (a deadline sleep: packed on one node, striped over two
# half-used nodes, or striped beside a running job of B, which each finds
# with squeue on its first node):
#
#   program  packed  striped  beside B   spread_speedup  slowdown B
#   A        6.0 s   4.0 s    5.0 s      1.5             1.25
#   B        4.0 s   4.0 s    4.4 s      1.0             1.1
#   C        4.0 s   5.0 s    6.0 s      0.8             1.2
#
# (A run's time also holds a few process starts its sleep cannot see, up
# to 0.14 s with three cluster tests on two cores: 0.035 on a figure of
# 4 s runs.)  nodeshare-calibrate --repeats 2 --beside B measures them
# back within 0.05, with the shapes, tags and co-tenant pairs checked in squeue;
# --have of its own output then plans nothing; without the wrapper's
# time files it falls back to Slurm's times; a run that outlives
# --max-wait, or gets SIGINT, is cancelled.  Skips like tests/slurm/smoke.sh.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
cal=$top_builddir/nodeshare-calibrate
[ -x "$cal" ] || tap_skip_all "$cal not built"
scratch=$(mktemp -d /tmp/nscalibrate.XXXXXX) || exit 1
chmod 755 "$scratch"
cleanup () {
    ns_cluster_stop
    if [ "$_ns_tap_failed" -gt 0 ] || [ -n "${NS_CLUSTER_KEEP:-}" ]; then
        echo "# scenario files kept in $scratch"
    else
        rm -rf "$scratch"
    fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

ns_placed_program "$scratch" A 6.0 4.0 5.0
ns_placed_program "$scratch" B 4.0 4.0 4.4
ns_placed_program "$scratch" C 4.0 5.0 6.0
printf '#!/bin/sh\nexec sleep 600\n' >"$scratch/D.sh"
# E: 2 s anywhere; it takes the work directory's times/ away (the path of
# its wrapper is the job's Command), as a work directory the nodes cannot
# write would.
cat >"$scratch/E.sh" <<'EOF'
#!/bin/sh
d=$(scontrol show job "$SLURM_JOB_ID" | sed -n 's|^ *Command=\(.*\)/E\.sbatch$|\1|p')
mv "$d/times" "$d/times.away" 2>/dev/null
exec sleep 2
EOF

ns_cluster_start 4 4
tap_ok $? "cluster of 4 x 4 cores, stock cons_tres, no accounting starts" || tap_done
cd "$NS_CLUSTER_DIR/work" || exit 1

# The plan: 2 repeats x (3 packed + 3 striped + 3 beside B) at 1 min each.
# Cost: packed 4 core-min, striped and beside 8: 2 x (12 + 24 + 24) = 120
# core-minutes = 2 core-hours.
out=$("$cal" --dry-run --repeats 2 --time 1 --beside B \
      "$scratch/A.sh" "$scratch/B.sh" "$scratch/C.sh" 2>&1)
tap_ok $? "--dry-run prints the plan"
tap_like "$out" "total: 18 runs, 24 jobs of at most 1 min on nodes of 4 cores, at most 2.00 core-hours" \
    "  18 runs, 24 jobs, 2.00 core-hours (cores from sinfo)"
tap_is "$(squeue -h -t all | wc -l | tr -d ' ')" 0 "  and submits nothing"

start=$(date +%s)
"$cal" --budget 2 --repeats 2 --time 1 --beside B --workdir "$scratch/cal" \
    -o "$scratch/figures.json" \
    "$scratch/A.sh" "$scratch/B.sh" "$scratch/C.sh" 2>"$scratch/progress.txt"
tap_ok $? "nodeshare-calibrate --budget 2 runs the plan ($(($(date +%s) - start)) s)" ||
    tap_diag "$(cat "$scratch/progress.txt")"
tap_like "$(cat "$scratch/progress.txt")" "all 18 runs done in" "  progress: all 18 runs done"
run=$(sed -n 's/.*: run \([0-9a-f]*\): 18 runs.*/\1/p' "$scratch/progress.txt")

# Every job is in squeue (MinJobAge 300) with its tag.
squeue -h -t all -o '%i|%j|%T|%D|%N|%k' >"$scratch/jobs.txt"
tap_is "$(grep -c "|nodeshare-calibrate $run " "$scratch/jobs.txt")" 24 \
    "  24 jobs carry the comment 'nodeshare-calibrate $run ...'"
tap_is "$(awk -F'|' '$6 ~ / packed / && $3 == "COMPLETED" && $4 == 1' "$scratch/jobs.txt" | wc -l | tr -d ' ')" 6 \
    "  6 packed jobs completed on 1 node"
tap_is "$(awk -F'|' '$6 ~ / striped / && $3 == "COMPLETED" && $4 == 2' "$scratch/jobs.txt" | wc -l | tr -d ' ')" 6 \
    "  6 striped jobs completed on 2 nodes"
tap_is "$(awk -F'|' '$6 ~ / beside:B [12]$/ && $3 == "COMPLETED" && $4 == 2' "$scratch/jobs.txt" | wc -l | tr -d ' ')" 6 \
    "  6 jobs beside B completed on 2 nodes"
tap_is "$(awk -F'|' '$6 ~ / co-tenant$/ && $2 == "B" && $3 == "CANCELLED"' "$scratch/jobs.txt" | wc -l | tr -d ' ')" 6 \
    "  6 co-tenant jobs of B, cancelled when their measured job ended"
# A measured job and its co-tenant: the same two nodes.
pairs=$(awk -F'|' '$6 ~ /beside:B/ { k = $6; sub(/ co-tenant$/, "", k)
                                      n[k] = n[k] " " $5 }
                   END { for (k in n) print n[k] }' "$scratch/jobs.txt" |
        awk '$1 == $2 && NF == 2' | wc -l | tr -d ' ')
tap_is "$pairs" 6 "  each on the nodes of its co-tenant"
sed -n 's/^/# /p' "$scratch/progress.txt" | grep 'job [0-9]* (' | head -18

# figure PROGRAM KEY: one value of the output (python-free: the JSON is
# json-c's pretty print, one key per line).
figure () {
    awk -v p="\"$1\": {" -v k="\"$2\":" '
        index($0, "\"learned\"") { exit }
        index($0, p) { inp = 1; next }
        inp && index($0, k) { v = $0; sub(/.*: /, "", v); sub(/,$/, "", v); print v; exit }' \
        "$scratch/figures.json"
}
within () {   # GOT WANT
    awk -v g="${1:-0}" -v w="$2" 'BEGIN { d = g - w; exit !(d < 0.05 && d > -0.05) }'
}
for f in "A spread_speedup 1.5" "A B 1.25" "B spread_speedup 1.0" "B B 1.1" \
         "C spread_speedup 0.8" "C B 1.2"; do
    set -- $f
    got=$(figure "$1" "$2")
    within "$got" "$3"
    tap_ok $? "  $1 $([ "$2" = B ] && echo "slowdown beside B" || echo "$2") ${got:-missing} (known $3, within 0.05)" ||
        tap_diag "$(cat "$scratch/figures.json")"
done
ev=$(sed -n '/"learned"/,$p' "$scratch/figures.json")
tap_like "$ev" '"by": "nodeshare-calibrate ' "  learned: by nodeshare-calibrate"
tap_is "$(printf '%s\n' "$ev" | grep -c '"n": 2,')" 6 "  learned: 6 figures of 2 repeats each, with a standard error"

out=$("$cal" --dry-run --have "$scratch/figures.json" --beside B \
      "$scratch/A.sh" "$scratch/B.sh" "$scratch/C.sh" 2>&1)
tap_ok $? "--have of its own output"
tap_is "$out" "nodeshare-calibrate: nothing to measure: $scratch/figures.json gives every figure asked for" \
    "  plans nothing"

# Without the wrapper's times: Slurm's start and end (whole seconds) of
# the ended jobs, as squeue shows them.
"$cal" --budget 1 --repeats 1 --time 1 --workdir "$scratch/cal3" \
    -o "$scratch/e.json" "$scratch/E.sh" 2>"$scratch/e.txt"
tap_ok $? "a run whose times/ is gone still gives a figure" ||
    tap_diag "$(cat "$scratch/e.txt")"
[ -d "$scratch/cal3/times.away" ] && [ ! -e "$scratch/cal3/times" ]
tap_ok $? "  (its job took times/ away)"
tap_is "$(grep -c 'job [0-9]* (E [a-z]*, repeat 1): [0-9]*\.00 s$' "$scratch/e.txt")" 2 \
    "  both runs timed by Slurm, to the second"
got=$(awk '/"spread_speedup"/ { v = $2; sub(/,$/, "", v); print v; exit }' "$scratch/e.json")
awk -v g="${got:-0}" 'BEGIN { exit !(g >= 0.6 && g <= 1.5) }'
tap_ok $? "  E spread_speedup ${got:-missing} (2 s / 2 s, each +-1 s)"

"$cal" --budget 1 --repeats 1 --time 2 --max-wait 3 --workdir "$scratch/cal2" \
    "$scratch/D.sh" >/dev/null 2>"$scratch/wait.txt"
tap_is "$?" 1 "a run longer than --max-wait 3 exits 1"
tap_like "$(cat "$scratch/wait.txt")" "nodeshare-calibrate: 0 of 2 runs done after [0-9]+ s \(--max-wait 3\): the others are cancelled" \
    "  and says so"
ns_poll 30 sh -c '[ -z "$(squeue -h -n D -t PENDING,RUNNING,COMPLETING)" ]'
tap_ok $? "  its jobs are cancelled"
tap_is "$(squeue -h -t all -n D -o %T | sort -u | tr '\n' ' ')" "CANCELLED " "  both CANCELLED"

# Ctrl-C (SIGINT) while its jobs run: they are cancelled, exit 1.
"$cal" --budget 1 --repeats 1 --time 2 --workdir "$scratch/cal4" \
    "$scratch/D.sh" >/dev/null 2>"$scratch/int.txt" &
pid=$!
ns_poll 30 sh -c '[ "$(squeue -h -n D -t RUNNING | wc -l)" -eq 2 ]'
tap_ok $? "a second run: both jobs of D running"
kill -INT "$pid"
wait "$pid"
tap_is "$?" 1 "  SIGINT: exit 1"
tap_like "$(cat "$scratch/int.txt")" "nodeshare-calibrate: interrupted \(signal 2\): the run's jobs are cancelled" \
    "  and says so"
ns_poll 30 sh -c '[ -z "$(squeue -h -n D -t PENDING,RUNNING,COMPLETING)" ]'
tap_ok $? "  its jobs are cancelled"

tap_done
