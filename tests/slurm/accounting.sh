#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/accounting.sh - sacct on a real cluster, and placement
# parity between nodeshare-sim and select/cons_tres_nodeshare (TAP)
#
# One cluster of 4 nodes x 24 cores with select/cons_tres_nodeshare and
# the accounting pipeline of lib.sh (NS_ACCOUNTING=1: a private MariaDB
# and slurmdbd).  Checks, polling with bounds and printing what it saw:
#   accounting  jobs run under the select plugin appear in sacct with the
#               NodeList, AllocCPUS and State that scontrol showed; a
#               cancelled job is CANCELLED; nodeshare-sim reads the dump
#   parity      a stream of 32 jobs of 4 programs (sleep copies named
#               like real codes; 20-86 s; submissions every 6 s; LAM
#               twins that must wait under the strict twin rule; small
#               jobs) is dumped with sacct and replayed by
#               nodeshare-sim --compare-placements under the same policy:
#               placement_agreement must be >= 0.95 (NS_PARITY_MIN);
#               every disagreement is printed
# Takes about 5 minutes (295 s alone).  Skips when not root, when Slurm, MariaDB or
# slurmdbd is not installed, or when the select plugin was not built.
# NS_ACCT_SCENARIOS="accounting" runs one part only.
# NS_PARITY_DUMP=FILE keeps a copy of the stream's sacct dump.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_accounting_can_run >/dev/null || tap_skip_all "$(ns_accounting_can_run)"
sim=$top_builddir/nodeshare-sim
learn=$top_builddir/nodeshare-learn
[ -x "$sim" ] || tap_skip_all "$sim not built"
# Programs: copies of sleep under the names of real codes.
ns_plugin_scenario acct lmp_serial abq_std lsd_run cp2k_popt
# The cluster's Slurm release (MAJOR.MINOR), whose stock placement the
# replays model (nodeshare-sim --slurm-release).
_ns_path
release=$(slurmctld -V 2>/dev/null | sed -n 's/^slurm[^ ]* \([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$release" ] || release=22.05

# LAM, ABQ and LSD gain from striping (the study's figures): the twins
# policy stripes them, and with fallback_after -1 a job waits rather than
# share a pair with its twin.  CP2K has no figures: packed as stock.
cat >"$scratch/nodeshare.json" <<EOF
// written by tests/slurm/accounting.sh
{
  "policy": "twins",
  "fallback_after": -1,
  "programs": {
    "LAM": { "spread_speedup": 1.147, "slowdown": { "LAM": 1.024 } },
    "ABQ": { "spread_speedup": 1.255 },
    "LSD": { "spread_speedup": 1.400 }
  },
  "identity": {
    "patterns": [
      { "match": "lmp*", "program": "LAM" },
      { "match": "abq*", "program": "ABQ" },
      { "match": "lsd*", "program": "LSD" },
      { "match": "cp2k*", "program": "CP2K" }
    ]
  }
}
EOF

NS_ACCOUNTING=1
NS_CLUSTER_DIR=$scratch/cluster
NS_PLUGINDIR=$scratch/plugins
NS_SELECTTYPE=select/cons_tres_nodeshare
NS_SLURM_CONF_EXTRA="SchedulerParameters=batch_sched_delay=0,bf_interval=1,bf_resolution=60"
NS_SLURM_DEBUG=verbose
NS_START_TIMEOUT=60
export NS_ACCOUNTING NS_CLUSTER_DIR NS_PLUGINDIR NS_SELECTTYPE \
       NS_SLURM_CONF_EXTRA NS_SLURM_DEBUG NS_START_TIMEOUT
mkdir -p "$NS_CLUSTER_DIR"
cp "$scratch/nodeshare.json" "$NS_CLUSTER_DIR/nodeshare.json"
ns_cluster_start 4 24
tap_ok $? "cluster of 4 x 24 cores with select/cons_tres_nodeshare and slurmdbd starts" ||
    tap_done
work=$NS_CLUSTER_DIR/work
grep -q "Registering slurmctld at port" "$NS_CLUSTER_DIR/slurmdbd.log" ||
    grep -q "accounting_storage/slurmdbd" "$NS_CLUSTER_DIR/slurmctld.log"
tap_ok $? "  slurmctld talks to slurmdbd"

# sub PROG SECONDS [SBATCH ARGS]: a job that runs PROG for SECONDS.
sub () {
    local prog secs
    prog=$1 secs=$2; shift 2
    ns_sbatch -D "$work" -o /dev/null -t 5 -J "$prog" "$@" \
        --wrap "exec $scratch/bin/$prog $secs"
}

# dump FILE JOBIDS...: the sacct dump nodeshare-sim reads (UTC times).
dump () {
    local f ids
    f=$1; shift
    ids=$(echo "$@" | tr ' ' ',')
    TZ=UTC sacct --parsable2 --allocations --starttime=2000-01-01 -j "$ids" \
        --format=JobIDRaw,JobName,Submit,Start,End,NodeList,AllocCPUS,ReqCPUS,NNodes,State,Timelimit \
        >"$f"
}

# field FILE JOBID NAME: one field of a job in a dump.
field () {
    awk -F'|' -v id="$2" -v name="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["JobIDRaw"] == id { print $col[name] }' "$1"
}

##
# Accounting: what sacct says is what scontrol showed
##
accounting () {
    local a b c x seen id f
    # Held, then released together: one scheduling pass starts all three
    # in the same second.  Submitted one by one, the first could start a
    # second before the others, and the replay below (which starts each
    # at its submission) would see other co-tenants at its start.
    # The replay starts each at its Submit time, so the three must share
    # one submission second: submitted at the start of a second, and
    # submitted again (at most 5 times) when they straddle two.
    local try=0
    while :; do
        while [ "$(date +%N | cut -c1)" -gt 1 ]; do sleep 0.05; done
        a=$(sub lmp_serial 8 -n 24 -H)
        b=$(sub abq_std 8 -n 24 -H)
        c=$(sub cp2k_popt 8 -n 2 -H)
        seen="$(ns_job_field "$a" SubmitTime) $(ns_job_field "$b" SubmitTime) $(ns_job_field "$c" SubmitTime)"
        try=$((try + 1))
        [ "$(echo $seen | tr ' ' '\n' | sort -u | wc -l)" -eq 1 ] && break
        scancel "$a" "$b" "$c"
        [ $try -lt 5 ] || { tap_diag "held jobs straddle seconds 5 times: $seen"; break; }
    done
    x=$(sub cp2k_popt 600 -n 1 -w ns1 --begin=now+600)
    # scontrol release takes the jobs one by one, and a scheduling pass
    # may fall between them (job 1 started 2 s before jobs 2 and 3 under
    # load): released on drained nodes, they start when one RPC resumes
    # all four nodes.
    scontrol update NodeName=ns[1-4] State=DRAIN Reason=accounting.sh
    scontrol release "$a,$b,$c"
    scontrol update NodeName=ns[1-4] State=RESUME
    seen=""
    for id in $a $b $c; do
        ns_wait_job_state "$id" RUNNING 30 || tap_diag "job $id did not run"
        seen="$seen $id:$(ns_job_field "$id" NodeList):$(ns_job_field "$id" NumCPUs)"
    done
    scancel "$x"
    for id in $a $b $c; do
        ns_wait_job_state "$id" COMPLETED 60 >/dev/null
    done
    ns_sacct_wait $a $b $c $x -- 60
    tap_ok $? "sacct knows jobs $a $b $c $x as finished"
    f=$scratch/accounting.sacct
    dump "$f" $a $b $c $x
    sed 's/^/#   /' "$f"
    for s in $seen; do
        id=${s%%:*}
        tap_is "$(field "$f" "$id" NodeList)|$(field "$f" "$id" AllocCPUS)|$(field "$f" "$id" State)" \
            "$(echo "$s" | cut -d: -f2)|$(echo "$s" | cut -d: -f3)|COMPLETED" \
            "  sacct job $id: NodeList|AllocCPUS|State as scontrol showed"
    done
    tap_is "$(field "$f" "$a" NNodes) $(field "$f" "$a" JobName)" "2 lmp_serial" \
        "  sacct job $a: NNodes 2 (striped), JobName lmp_serial"
    tap_like "$(field "$f" "$x" State)" '^CANCELLED' "  sacct job $x (cancelled while pending): CANCELLED"
    # The decision reaches accounting: AdminComment, and nodeshare-why
    # reads it back from sacct once slurmctld has forgotten the job.
    ac=$(sacct -n -P -X -j "$a" -o AdminComment 2>/dev/null | head -n 1)
    tap_like "$ac" "^\[nodeshare\] job $a \(LAM, 24 cores\) \[twins\]: .* by stripe-empty.* -> ns" \
        "  sacct job $a: AdminComment holds nodeshare's decision (striped)"
    tap_like "$(sacct -n -P -X -j "$c" -o AdminComment 2>/dev/null | head -n 1)" \
        "^\[nodeshare\] job $c .*placed by cons_tres as stock Slurm would \(pack: small job\)" \
        "  sacct job $c: AdminComment: packed as stock (small job)"
    why=$("$top_builddir/cmd/nodeshare-why" --accounting "$a" 2>&1)
    tap_like "$why" "^$a COMPLETED nodeshare: job $a .* by stripe-empty.*depends on all of its nodes" \
        "  nodeshare-why --accounting $a (what sacct says once slurmctld forgot the job): $why"
    out=$("$sim" -q -n 4 -C 24 -c "$scratch/nodeshare.json" -p twins --json - "$f" 2>&1)
    tap_ok $? "nodeshare-sim replays the real sacct dump"
    # The job cancelled while pending has Start = End: a job of 0 s.
    tap_like "$(printf '%s\n' "$out" | tr -d ' \n')" '"jobs_used":4,.*"policy":"twins","jobs":4,' \
        "  it replays the 4 jobs (the cancelled one as a job of 0 s)" ||
        printf '%s\n' "$out" | head -40 | sed 's/^/#   /'
    out=$("$sim" -q -C 24 -c "$scratch/nodeshare.json" --slurm-release "$release" \
              --compare-placements "$f" 2>&1)
    tap_like "$out" '^placement agreement: 3 of 3 jobs' \
        "  --compare-placements on it: $out"
}

##
# Parity: a stream of 32 jobs, replayed
##
# OFFSET PROGRAM CORES SECONDS: submissions on a 6 s grid; run times are
# 2 mod 6 so that ends (start + scheduling latency + run time) fall
# between submissions.  Time limits are the run times rounded up to
# minutes (EASY backfilling reserves by them, here and in the
# simulator).  The LAM jobs at 0, 0 and 6 are twins: the third waits for
# the pair of the first (it ends first), and nothing else is submitted
# while it waits.  Then big jobs (LAM, ABQ, LSD, -n 24, striped) and
# small ones (CP2K, 1-4 cores, packed) alternate, at most about three
# big jobs at a time: the cluster is busy but its queue stays short.
STREAM="
0 lmp_serial 24 44
0 lmp_serial 24 62
6 lmp_serial 24 38
54 abq_std 24 32
60 cp2k_popt 4 20
66 lsd_run 24 26
72 cp2k_popt 1 44
78 lmp_serial 24 32
84 cp2k_popt 2 20
90 abq_std 24 26
96 cp2k_popt 4 32
102 lsd_run 24 20
108 cp2k_popt 1 38
114 lmp_serial 24 26
120 cp2k_popt 2 50
126 abq_std 24 32
132 cp2k_popt 4 20
138 lsd_run 24 38
144 cp2k_popt 1 26
150 lmp_serial 24 20
156 cp2k_popt 2 32
162 abq_std 24 26
168 cp2k_popt 1 20
174 lsd_run 24 32
180 cp2k_popt 4 26
186 lmp_serial 24 20
192 cp2k_popt 2 86
198 abq_std 24 20
204 cp2k_popt 1 20
210 lsd_run 24 26
216 cp2k_popt 2 32
222 lmp_serial 24 20
"

parity () {
    local t0 now ids n off prog cores secs f json agree t rows learned
    ids="" n=0
    t0=$(date +%s)
    while read -r off prog cores secs; do
        [ -n "$off" ] || continue
        now=$(date +%s)
        [ $((t0 + off - now)) -gt 0 ] && sleep $((t0 + off - now))
        ids="$ids $(sub "$prog" "$secs" -n "$cores" -t $(((secs + 59) / 60)))"
        n=$((n + 1))
    done <<EOF
$STREAM
EOF
    tap_is "$(echo $ids | wc -w | tr -d ' ')" "$n" "parity: $n stream jobs submitted"
    # All done: at most the stream's length plus its longest chain.
    t=0
    while [ "$t" -lt 600 ] &&
          [ -n "$(squeue -h -t PENDING,RUNNING,CONFIGURING,COMPLETING -o %i 2>/dev/null)" ]; do
        sleep 1
        t=$((t + 1))
    done
    tap_is "$(squeue -h -o %i | wc -l | tr -d ' ')" 0 \
        "  every stream job has ended ($(($(date +%s) - t0)) s after the first submission)"
    ns_sacct_wait $ids -- 60
    tap_ok $? "  sacct knows the $n jobs as finished"
    f=$scratch/parity.sacct
    dump "$f" $ids
    [ -n "${NS_PARITY_DUMP:-}" ] && cp "$f" "$NS_PARITY_DUMP"
    tap_is "$(awk -F'|' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                         $c["State"] == "COMPLETED"' "$f" | wc -l | tr -d ' ')" "$n" \
        "  sacct: all $n COMPLETED"
    json=$scratch/parity.json
    "$sim" -C 24 -n 4 -c "$scratch/nodeshare.json" --slurm-release "$release" \
        --compare-placements "$f" --json "$json" >"$scratch/parity.out" 2>&1
    tap_ok $? "  nodeshare-sim --compare-placements replays the dump"
    grep -F 'DIFFERS' "$scratch/parity.out" | sed 's/^/# /'
    tail -n 1 "$scratch/parity.out" | sed 's/^/# /'
    agree=$(sed -n 's/.*"placement_agreement": *\([0-9.e+-]*\).*/\1/p' "$json")
    awk -v a="$agree" -v m="${NS_PARITY_MIN:-0.95}" 'BEGIN { exit !(a != "" && a + 0 >= m + 0) }'
    tap_ok $? "  placement_agreement $agree >= ${NS_PARITY_MIN:-0.95}" ||
        sed 's/^/#   /' "$scratch/parity.out"
    # The learner on real sacct output: every line parses, every job is an
    # observation, and sleep jobs show no interference: whatever it learns
    # is 1.00 within noise (runs of one program differ in length here, so
    # most figures stay unlearned: neutral).
    "$learn" -C 24 -c "$scratch/nodeshare.json" --min-observations 3 \
        --table "$f" >"$scratch/learn.out" 2>"$scratch/learn.err"
    tap_ok $? "  nodeshare-learn reads the real dump" ||
        sed 's/^/#   /' "$scratch/learn.err"
    grep -qF "$n jobs read, $n observed (COMPLETED), 0 co-tenants only" \
        "$scratch/learn.err"
    tap_ok $? "  nodeshare-learn: $n jobs read, $n observed" ||
        sed 's/^/#   /' "$scratch/learn.err"
    ! grep -qE "jobs left out|lines skipped" "$scratch/learn.err"
    tap_ok $? "  nodeshare-learn: no line or job left out" ||
        sed 's/^/#   /' "$scratch/learn.err"
    # Identity from sacct: one runtime row per program, from that
    # program's jobs of the stream (8 LAM, 5 ABQ, 5 LSD, 14 CP2K).
    rows=$(awk 'NR > 1 && $2 == "runtime" { printf "%s%s %s", sep, $1, $5; sep = ", " }' \
           "$scratch/learn.out")
    tap_is "$rows" "LAM 8, ABQ 5, LSD 5, CP2K 14" \
        "  nodeshare-learn: each program's runtime from its own jobs"
    learned=$(awk 'NR > 1 && $2 != "runtime"' "$scratch/learn.out" | wc -l | tr -d ' ')
    if [ "$learned" -gt 0 ]; then
        awk 'NR > 1 && $2 != "runtime" && ($3 < 0.9 || $3 > 1.1) { bad = bad " " $1 ":" $2 "=" $3 }
             END { if (bad) { print bad; exit 1 } }' "$scratch/learn.out"
        tap_ok $? "  learned figures of sleep jobs are 1.00 within 0.1 ($learned learned)" ||
            sed 's/^/#   /' "$scratch/learn.out"
    else
        # the usual case: the stream's runs of one program differ in length
        tap_skip "no interference figure learned (runs of one program differ in length), none to compare with 1.00"
    fi
}

for s in ${NS_ACCT_SCENARIOS:-accounting parity}; do
    $s
done
tap_done
