#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeshare-calibrate.sh - the calibration planner without a cluster
# (TAP): the plan and its cost (--dry-run), what --have leaves out, and
# bad input: one precise message and exit status 2 each, nothing
# submitted (--cores is given, so no Slurm command runs).  The runs
# themselves: tests/slurm/calibrate.sh.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"
cal="$top_builddir/nodeshare-calibrate"

expect () {
    e_name=$1 e_want=$2 e_pattern=$3
    shift 3
    expect_out "$e_name" "$e_want" "$e_pattern" "$cal" "$@"
}

cd "$tmp" || exit 1
printf '#!/bin/sh\n#SBATCH -N 4\nsrun lmp_serial\n' >lmp.sh
printf '#!/bin/sh\nsrun abaqus\n' >abq.job
printf 'srun no_interpreter\n' >bare.sh
printf '# site programs\nLAM lmp.sh\n\nABQ abq.job  # Abaqus\n' >progs.list
printf 'LAM lmp.sh\nABQ\n' >short.list
printf 'LAM lmp.sh extra\n' >long.list
printf '// earlier figures\n{ "programs": { "lmp": { "spread_speedup": 1.147, "slowdown": { "abq": 1.05 } },\n  "abq": { "spread_speedup": 1.3 } } }\n' >have.json
printf '{ "programs": { "lmp": { "spread_speedup": "fast" } } }\n' >badtype.json
printf '{ "programs": { "lmp": { "spread_speedup": 1.2,\n  } }\n' >badsyntax.json
printf '{ "programs": { "lmp": { "speedup": 1.2 } } }\n' >badkey.json

# --help and --version
out=$("$cal" --help)
if [ $? = 0 ] && printf '%s\n' "$out" | grep -q '^Usage: nodeshare-calibrate '; then
    pass "--help: usage on stdout, exit 0"
else
    fail "--help: usage on stdout, exit 0"
fi
expect "--version" 0 "nodeshare-calibrate " --version

# The plan: the table and the total, exactly.  Packed 1 node x 24 cores,
# striped and beside 2 x 24, 30 min each: 12, 24 and 24 core-hours.
out=$("$cal" --dry-run --cores 24 --time 30 --repeats 2 --beside abq lmp.sh abq.job 2>&1)
want="run  program          shape    beside           repeat   nodes  tpn core-hours
1    lmp              packed   -                     1       1   24      12.00
2    lmp              striped  -                     1       2   12      24.00
3    lmp              beside   abq                   1       2   12      24.00
4    abq              packed   -                     1       1   24      12.00
5    abq              striped  -                     1       2   12      24.00
6    abq              beside   abq                   1       2   12      24.00
7    lmp              packed   -                     2       1   24      12.00
8    lmp              striped  -                     2       2   12      24.00
9    lmp              beside   abq                   2       2   12      24.00
10   abq              packed   -                     2       1   24      12.00
11   abq              striped  -                     2       2   12      24.00
12   abq              beside   abq                   2       2   12      24.00
total: 12 runs, 16 jobs of at most 30 min on nodes of 24 cores, at most 240.00 core-hours"
if [ "$out" = "$want" ]; then
    pass "--dry-run: 12 runs, 16 jobs (a co-tenant each beside), 240 core-hours"
else
    fail "--dry-run: 12 runs, 16 jobs (a co-tenant each beside), 240 core-hours"
    printf '%s\n' "$out" | sed 's/^/#   /'
fi
expect "--dry-run within --budget: exit 0" 0 "at most 240.00 core-hours" \
    --dry-run --budget 240 --cores 24 --time 30 --repeats 2 --beside abq lmp.sh abq.job
cp lmp.sh keep.sh
expect "-o onto a job script: refused before the plan runs" 2 \
    "-o keep.sh: is keep.sh, an input of this run" \
    --dry-run --cores 24 --time 30 -o keep.sh keep.sh
cmp -s lmp.sh keep.sh && pass "the script keeps its bytes" \
    || fail "the script was overwritten"
expect "--nodes 2: packed on 2 nodes, striped on 4" 0 \
    "2    lmp              striped  -                     1       4   12      96.00" \
    --dry-run --cores 24 --nodes 2 --repeats 1 lmp.sh
expect "--list: programs named in it, comments and blank lines skipped" 0 \
    "4    ABQ              striped  -                     1       2    4       0.27" \
    --dry-run --cores 8 --time 1 --repeats 2 --list progs.list

# --have: lmp has both figures, abq its spread_speedup: only abq striped
# alone and abq beside abq remain.
out=$("$cal" --dry-run --cores 24 --repeats 1 --beside abq --have have.json lmp.sh abq.job 2>&1)
want="run  program          shape    beside           repeat   nodes  tpn core-hours
1    abq              striped  -                     1       2   12      48.00
2    abq              beside   abq                   1       2   12      48.00
total: 2 runs, 3 jobs of at most 60 min on nodes of 24 cores, at most 96.00 core-hours"
if [ "$out" = "$want" ]; then
    pass "--have: figures it gives are not planned (2 runs left)"
else
    fail "--have: figures it gives are not planned (2 runs left)"
    printf '%s\n' "$out" | sed 's/^/#   /'
fi
expect "--have with every figure: nothing to measure, exit 0" 0 \
    "nodeshare-calibrate: nothing to measure: have.json gives every figure asked for" \
    --dry-run --cores 24 --have have.json lmp.sh

# Bad input: one message each, exit 2.
expect "missing script" 2 \
    "nodeshare-calibrate: nothere.sh: cannot open: No such file or directory" \
    --budget 1 --cores 24 nothere.sh
expect "script without #!" 2 \
    'nodeshare-calibrate: bare.sh:1: expected a first line "#!INTERPRETER" (sbatch needs one)' \
    --budget 1 --cores 24 bare.sh
expect "budget too small" 2 \
    "nodeshare-calibrate: the plan may cost 216.00 core-hours, over the budget of 100 (--budget): fewer --repeats, a shorter --time, fewer programs or --beside, or --have with the figures known" \
    --budget 100 --cores 24 lmp.sh
expect "budget too small: the plan is printed with its cost" 2 \
    "total: 6 runs, 6 jobs of at most 60 min on nodes of 24 cores, at most 216.00 core-hours" \
    --budget 100 --cores 24 lmp.sh
expect "no --budget" 2 \
    "nodeshare-calibrate: no --budget: give the core-hours the runs may take, or --dry-run to see the plan" \
    --cores 24 lmp.sh
expect "--budget not a number" 2 \
    "nodeshare-calibrate: --budget '1h': expected core-hours, a number above 0" \
    --budget 1h --cores 24 lmp.sh
expect "--budget 0" 2 \
    "nodeshare-calibrate: --budget '0': expected core-hours, a number above 0" \
    --budget 0 --cores 24 lmp.sh
expect "bad --have file: wrong type" 2 \
    'nodeshare-calibrate: --have badtype.json: programs.lmp.spread_speedup: expected a number 0.01..100, got "fast"' \
    --dry-run --cores 24 --have badtype.json lmp.sh
expect "bad --have file: syntax, with line and column" 2 \
    "nodeshare-calibrate: --have badsyntax.json:3:1: " \
    --dry-run --cores 24 --have badsyntax.json lmp.sh
expect "bad --have file: unknown key" 2 \
    "nodeshare-calibrate: --have badkey.json: programs.lmp.speedup: unknown key" \
    --dry-run --cores 24 --have badkey.json lmp.sh
expect "missing --have file" 2 \
    "nodeshare-calibrate: --have none.json: cannot open: No such file or directory" \
    --dry-run --cores 24 --have none.json lmp.sh
expect "--list line with one field" 2 \
    'nodeshare-calibrate: short.list:2: expected "PROGRAM SCRIPT", got one field' \
    --dry-run --cores 24 --list short.list
expect "--list line with three fields" 2 \
    'nodeshare-calibrate: long.list:1: expected "PROGRAM SCRIPT", got more fields' \
    --dry-run --cores 24 --list long.list
expect "--list and SCRIPT" 2 \
    "nodeshare-calibrate: give SCRIPT arguments or --list FILE, not both" \
    --dry-run --cores 24 --list progs.list lmp.sh
expect "no script" 2 \
    "nodeshare-calibrate: no job script (give SCRIPT... or --list FILE; see --help)" \
    --dry-run --cores 24
expect "a program twice" 2 \
    "nodeshare-calibrate: ./lmp.sh: program lmp given twice" \
    --dry-run --cores 24 lmp.sh ./lmp.sh
expect "--beside a program not measured" 2 \
    "nodeshare-calibrate: --beside cp2k: not one of the programs measured (its job script is needed)" \
    --dry-run --cores 24 --beside cp2k lmp.sh
expect "odd --cores" 2 \
    "nodeshare-calibrate: --cores '23': expected an even number (a striped run uses half of each node)" \
    --dry-run --cores 23 lmp.sh
expect "--repeats 0" 2 \
    "nodeshare-calibrate: --repeats '0': expected an integer 1..100" \
    --dry-run --cores 24 --repeats 0 lmp.sh
expect "--time 0" 2 \
    "nodeshare-calibrate: --time '0': expected an integer 1..525600" \
    --dry-run --cores 24 --time 0 lmp.sh
expect "unknown option" 2 \
    "nodeshare-calibrate: unknown option '--bogus' (see --help)" --bogus
expect "option without its value" 2 \
    "nodeshare-calibrate: option '--budget' needs a value (see --help)" \
    lmp.sh --budget

expect "--cores 65535: the range says the largest even count" 2 \
    "nodeshare-calibrate: --cores '65535': expected an integer 2..65534" \
    --dry-run --cores 65535 lmp.sh

# Without --cores, sinfo is asked: a controller that does not answer is
# one line with sinfo's reason (a slurm.conf whose slurmctld port 1 has no
# listener).
if command -v sinfo >/dev/null 2>&1; then
    slurm_conf_down down.conf
    out=$(SLURM_CONF=$PWD/down.conf timeout 60 "$cal" --dry-run lmp.sh 2>&1)
    st=$?
    if [ "$st" = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] \
       && printf '%s\n' "$out" | grep -q '^nodeshare-calibrate: sinfo failed: .*: give --cores$'
    then
        pass "no --cores, slurmctld down: one line with sinfo's reason"
    else
        fail "no --cores, slurmctld down: one line with sinfo's reason (exit $st)"
        printf '%s\n' "$out" | sed 's/^/#   /'
    fi
else
    skip "sinfo not installed"
fi

tap_end
