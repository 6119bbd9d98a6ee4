#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/select.sh - select/cons_tres_nodeshare on a real cluster (TAP)
#
# Starts 4 nodes x 24 cores with SelectType=select/cons_tres_nodeshare in a
# private PluginDir (made by nodeshare-plugindir) and checks, polling with
# bounds and printing what it saw:
#   striping      sbatch -n 24 jobs of two programs go 12+12 onto disjoint
#                 empty node pairs; srun inside runs 12 ranks per node
#   co-scheduling further jobs share a pair with a different program
#   small jobs    -n 2 lands on one node; 40 one-core jobs start at once
#                 beside two striped jobs; -N MIN-MAX gives stock's counts
#   twins         with the default fallback_after 0 a third job of a
#                 program starts at once, packed as stock would; with -1 it
#                 waits (Reason names nodeshare) while only its twins have
#                 room, backfills nothing onto its reserved nodes, and
#                 starts where backfill reserved
#   keep          keep:LAM: an ABQ job waits while the only room is beside
#                 LAM or ABQ, LSD joins ABQ, LAM joins LAM; with the
#                 default fallback_after 0 the ABQ job is packed at once
#   backfill      J1 LAM (5 min) and J2 ABQ striped, J3 LAM beside J2,
#                 J4 LAM waits (strict twin rule) with a reservation from
#                 J1's end, and J5 LSD (1 min) starts beside J1 at once;
#                 with fallback_after 180 J4 is to start 180 s after
#                 its submission
#   uneven        -n 30 is striped 8+8+7+7 and holds 30 CPUs, srun runs
#                 8, 8, 7, 7 ranks; -n 26 beside it holds what was decided
#   as asked      --exclusive, -N 1, --ntasks-per-node, --nodelist and
#                 --spread-job are placed by cons_tres as the user asked
#   commands      squeue, sinfo, scontrol show job
#   restart       slurmctld restarts with running jobs; the next decision
#                 still sees every co-tenant and its program
#   reconfigure   a good nodeshare.json is reloaded; a broken one keeps the
#                 old configuration and logs the error; at start-up it
#                 stops slurmctld with that error
#   rollback      back to select/cons_tres with a striped job running
# The whole set runs twice: TaskPlugin=task/none and task/affinity.  With
# the SPANK plugin built, a last cluster checks that --nodeshare-program
# names a job's program.
#
# Skips when not root, when Slurm is not installed, or when the select
# plugin was not built (configure --with-slurm-source=DIR|auto).
# NS_SELECT_TASKPLUGINS="task/none" runs one variant only;
# NS_SELECT_SCENARIOS="striping twins" runs some scenarios only;
# NS_SELECT_CONF_EXTRA="DebugFlags=Backfill" adds lines to slurm.conf.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
# Programs: copies of sleep under the names of real codes, recognised by
# the identity patterns of nodeshare.json.
ns_plugin_scenario select lmp_serial abq_std lsdyna
if ns_separate_plugindir; then
    test -L "$scratch/plugins/select_cons_tres_nodeshare.so" &&
        test ! -e "$scratch/plugins/select_cons_tres.so"
    tap_ok $? "  it links our plugin and leaves out select_cons_tres.so"
else
    # From 25.05: nodeshare-plugindir changes nothing (the test's own
    # directory links both; only the one SelectType names is loaded).
    out=$("$mkdir_tool" --plugin "$plugin" "$scratch/none" 2>&1)
    [ $? -eq 0 ] && [ ! -e "$scratch/none" ] &&
        case $out in *"not needed"*) true ;; *) false ;; esac
    tap_ok $? "  from 25.05 it is not needed, says so and makes nothing" ||
        echo "#   $out"
fi

# LAM and ABQ gain from striping (their study figures): the twins policy
# stripes them.  FALLBACK (default 0) is fallback_after.
good_config () {   # POLICY [FALLBACK]
    cat <<EOF
// written by tests/slurm/select.sh
{
  "policy": "$1",
  "fallback_after": ${2:-0},
  "programs": {
    "LAM": { "spread_speedup": 1.147, "slowdown": { "LAM": 1.024 } },
    "ABQ": { "spread_speedup": 1.255 },
    "LSD": { "spread_speedup": 1.400 }
  },
  "identity": {
    "patterns": [
      { "match": "lmp*", "program": "LAM" },
      { "match": "abq*", "program": "ABQ" },
      { "match": "lsdyna*", "program": "LSD" }
    ]
  }
}
EOF
}

##
# Helpers
##
log () {
    ns_cluster_log_ctld
}

# reconfigure_to POLICY [FALLBACK]: nodeshare.json with that policy,
# scontrol reconfigure, and a TAP point once slurmctld logs the reload.
reconfigure_to () {
    good_config "$@" >"$NS_CLUSTER_DIR/nodeshare.json"
    ns_cluster_reconfigure
    ns_poll 10 log_has "nodeshare: reloaded: policy $1, stripe_width 2, max_cotenants 2, fallback_after ${2:-0}"
    tap_ok $? "[$tp] reconfigured: policy $1, fallback_after ${2:-0}"
}

# back_to_twins: the configuration every scenario starts from.
back_to_twins () {
    good_config twins >"$NS_CLUSTER_DIR/nodeshare.json"
    ns_cluster_reconfigure
}

# sub PROG [SBATCH ARGS]: a 10-minute job running PROG under srun.
sub () {
    local prog
    prog=$1; shift
    ns_sbatch -D "$work" -o /dev/null -t 10 "$@" \
        --wrap "srun $scratch/bin/$prog 600"
}

# subplain PROG [SBATCH ARGS]: the same without a job step (see as_asked).
subplain () {
    local prog
    prog=$1; shift
    ns_sbatch -D "$work" -o /dev/null -t 10 "$@" \
        --wrap "exec $scratch/bin/$prog 600"
}

# steps_run JOBID...: each job's step 0 (its srun) runs.
steps_run () {
    local s j
    s=$(squeue -h -s -o %i 2>/dev/null)
    for j in "$@"; do
        printf '%s\n' "$s" | grep -qx "$j\.0" || return 1
    done
}

nodes_of () {
    ns_job_field "$1" NodeList
}


# Why a job waits, as its user sees it: nodeshare's word (SystemComment;
# on 22.05 also the reason) when there is one, else squeue's reason.
reason_of () {
    local c
    c=$(squeue -h -j "$1" -O 'system_comment:1000' 2>/dev/null \
        | sed 's/[[:space:]]*$//')
    case $c in
        "nodeshare: "*) echo "$c" ;;
        *) squeue -h -j "$1" -o '%R' 2>/dev/null ;;
    esac
}

has_lines () {   # COUNT FILE: FILE has at least COUNT node names
    [ "$(grep -c '^ns' "$2" 2>/dev/null)" -ge "$1" ]
}

reason_matches () {   # JOBID REGEX
    reason_of "$1" | grep -Eq -- "$2"
}

log_has () {   # FIXED-STRING
    grep -qF -- "$1" "$(log)"
}

show_queue () {
    squeue -o '%i %j %T %D %C %N %R' 2>&1 | sed 's/^/#   /'
}

clean_slate () {
    ns_cancel_all 30
}

##
# Scenarios
##
striping () {
    a=$(sub lmp_serial -n 24)
    ns_wait_job_state "$a" RUNNING 20
    tap_ok $? "[$tp] LAM job $a (-n 24) runs"
    b=$(sub abq_std -n 24)
    ns_wait_job_state "$b" RUNNING 20
    tap_ok $? "[$tp] ABQ job $b (-n 24) runs"
    show_queue
    tap_is "$(ns_job_cpus_per_node "$a")" "12 12" "[$tp]   $a is striped 12+12 ($(nodes_of "$a"))"
    tap_is "$(ns_job_cpus_per_node "$b")" "12 12" "[$tp]   $b is striped 12+12 ($(nodes_of "$b"))"
    tap_is "$(ns_job_field "$a" NumNodes)/$(ns_job_field "$a" NumCPUs)" "2/24" \
        "[$tp]   scontrol show job: NumNodes=2 NumCPUs=24"
    scontrol show job "$a" | grep -q 'NtasksPerN:B:S:C=12:'
    tap_ok $? "[$tp]   scontrol show job: NtasksPerN 12"
    na=$(nodes_of "$a") nb=$(nodes_of "$b")
    test -n "$na" && test -n "$nb" &&
        test -z "$(printf '%s\n%s\n' "$(scontrol show hostnames "$na")" \
                       "$(scontrol show hostnames "$nb")" | sort | uniq -d)"
    tap_ok $? "[$tp]   on disjoint empty pairs ($na, $nb)"
    log_has "nodeshare: job $a (LAM, 24 cores) [twins]: nodes " &&
        log_has "by stripe-empty -> $na"
    tap_ok $? "[$tp]   slurmctld log explains: job $a ... by stripe-empty -> $na"
    tap_is "$(grep -c "nodeshare: job $a " "$(log)")" 1 \
        "[$tp]   one log line for that decision"

    # Co-scheduling: each new job joins the pair of the other program.
    c=$(sub abq_std -n 24)
    ns_wait_job_state "$c" RUNNING 20
    tap_ok $? "[$tp] ABQ job $c runs"
    tap_is "$(nodes_of "$c")" "$na" "[$tp]   co-scheduled with LAM job $a on $na"
    d=$(sub lmp_serial -n 24)
    ns_wait_job_state "$d" RUNNING 20
    tap_ok $? "[$tp] LAM job $d runs"
    tap_is "$(nodes_of "$d")" "$nb" "[$tp]   co-scheduled with ABQ job $b on $nb"
    log_has "nodeshare: job $d (LAM, 24 cores) [twins]: nodes" &&
        grep -F "nodeshare: job $d " "$(log)" | grep -q 'stripe-share, sharing 2 nodes'
    tap_ok $? "[$tp]   log: by stripe-share, sharing 2 nodes"
    tap_is "$(sinfo -h -o '%D %t')" "4 alloc" "[$tp]   sinfo: all 4 nodes allocated"
    tap_is "$(squeue -h -t RUNNING -o %i | wc -l | tr -d ' ')" 4 \
        "[$tp]   squeue: 4 jobs RUNNING"

    e=$(sub lmp_serial -n 24)
    ns_poll 10 reason_matches "$e" '^\(Resources\)$'
    tap_ok $? "[$tp] a fifth job waits for resources, as under stock: $(reason_of "$e")"
    clean_slate
}

# Small jobs (design.md section 2): two striped jobs, then 40 one-core jobs
# start at once beside them; -n 2 lands on one node; -N MIN-MAX as stock.
small () {
    a=$(sub lmp_serial -n 2)
    ns_wait_job_state "$a" RUNNING 20
    tap_is "$(ns_job_field "$a" NumNodes) $(ns_job_cpus_per_node "$a")" "1 2" \
        "[$tp] -n 2 lands on one node ($(nodes_of "$a"))"
    grep -F "nodeshare: job $a (LAM, 2 cores) [twins]: placed by cons_tres as stock Slurm would (pack: small job) -> " "$(log)" >/dev/null
    tap_ok $? "[$tp]   log: placed by cons_tres as stock Slurm would (pack: small job)"
    scancel "$a"
    ns_wait_all_idle 30 >/dev/null
    a=$(sub lmp_serial -n 24)
    b=$(sub abq_std -n 24)
    ns_wait_job_state "$a" RUNNING 20 && ns_wait_job_state "$b" RUNNING 20
    tap_is "$(ns_job_cpus_per_node "$a") / $(ns_job_cpus_per_node "$b")" "12 12 / 12 12" \
        "[$tp] LAM $a and ABQ $b striped 12+12 over empty pairs"
    i=0 ids=""
    while [ $i -lt 40 ]; do
        ids="$ids $(ns_sbatch -D "$work" -o /dev/null -t 10 -n 1 -J "small$((i % 6))" \
                   --wrap "exec sleep 600")"
        i=$((i + 1))
    done
    all_running () {
        [ "$(squeue -h -t RUNNING -o %i | wc -l | tr -d ' ')" = 42 ]
    }
    ns_poll 60 all_running
    tap_ok $? "[$tp] 40 one-core jobs all run beside them ($(squeue -h -t RUNNING -o %i | wc -l | tr -d ' ') running)"
    tap_is "$(squeue -h -t PENDING -o %i | wc -l | tr -d ' ')" 0 "[$tp]   nothing pending"
    tap_is "$(sinfo -h -o '%C' | cut -d/ -f1)" 88 "[$tp]   88 of 96 CPUs allocated"
    show_queue | head -8
    clean_slate
    # Busy first: ns1 and ns2 each hold 4 cores, ns3 is full, ns4 empty.
    # Stock's best fit takes the tighter run {ns4} (24 CPUs) over
    # {ns1,ns2} (40); nodeshare keeps the empty node for a job that gains.
    for spec in "ns1 4" "ns2 4" "ns3 24"; do
        subplain lmp_serial -w "${spec% *}" -n "${spec#* }" >/dev/null
    done
    all3 () { [ "$(squeue -h -t RUNNING -o %i | wc -l | tr -d ' ')" = 3 ]; }
    ns_poll 20 all3
    s1=$(subplain abq_std -n 1)
    ns_wait_job_state "$s1" RUNNING 20
    tap_is "$(nodes_of "$s1")" ns1 \
        "[$tp] a one-core job goes to a node in use (ns1), not to empty ns4"
    clean_slate
    for range in "1-3 3" "2-4:-n8 4" "1-2:-n24 2" "2-3:-n6 3"; do
        spec=${range% *} want=${range#* }
        n=${spec%%:*} extra=$(echo "${spec#*:}" | sed -n 's/^-n/-n /p')
        j=$(subplain lmp_serial -N "$n" $extra)
        ns_wait_job_state "$j" RUNNING 20
        tap_is "$(ns_job_field "$j" NumNodes)" "$want" \
            "[$tp] -N $n $extra: $want nodes, as stock cons_tres gives"
        scancel "$j"
        ns_wait_all_idle 30 >/dev/null
    done
}

# The twin rule as a preference (the default fallback_after 0): a third
# LAM job starts at once, packed by cons_tres next to its twin.
twins_preference () {
    a=$(sub lmp_serial -n 24)
    b=$(sub lmp_serial -n 24)
    ns_wait_job_state "$a" RUNNING 20 && ns_wait_job_state "$b" RUNNING 20
    tap_ok $? "[$tp] two LAM jobs $a $b run"
    c=$(sub lmp_serial -n 24)
    ns_wait_job_state "$c" RUNNING 20
    tap_ok $? "[$tp] a third LAM job $c starts at once ($(nodes_of "$c"))"
    grep -F "nodeshare: job $c (LAM, 24 cores) [twins]: placed by cons_tres as stock Slurm would (fallback) -> " "$(log)" >/dev/null
    tap_ok $? "[$tp]   log: placed by cons_tres as stock Slurm would (fallback)"
    clean_slate
}

# The twin rule strict (fallback_after -1): the third LAM job waits.
twins () {
    reconfigure_to twins -1
    a=$(sub lmp_serial -n 24)
    b=$(sub lmp_serial -n 24)
    ns_wait_job_state "$a" RUNNING 20 && ns_wait_job_state "$b" RUNNING 20
    tap_ok $? "[$tp] two LAM jobs $a $b run"
    c=$(sub lmp_serial -n 24)
    ns_poll 15 reason_matches "$c" '^\(?nodeshare: waits \(twin\)'
    tap_ok $? "[$tp] a third LAM job waits for a non-twin pair: $(reason_of "$c")"
    tap_is "$(ns_job_field "$c" JobState)" PENDING "[$tp]   it is PENDING"
    if ! _ns_version_ge "$(ns_slurm_version)" 23.02; then
        scontrol show job "$c" | grep -q 'Reason=nodeshare:_waits'
        tap_ok $? "[$tp]   scontrol show job shows Reason=nodeshare:..."
    else   # select_nodes() resets the reason: SystemComment keeps it
        scontrol show job "$c" | grep -q 'SystemComment=nodeshare: waits (twin)'
        tap_ok $? "[$tp]   scontrol show job shows SystemComment=nodeshare: waits (twin)..."
    fi
    # A user without root sees it too.
    why=$(runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" \
          "$top_builddir/cmd/nodeshare-why" "$c" 2>&1)
    tap_like "$why" "^$c PENDING .*nodeshare: waits \\(twin\\)" \
        "[$tp]   nodeshare-why $c as user nobody: $why"
    # Backfill reserves the pair that frees up first for it.
    ns_poll 15 test -n "$(ns_job_field "$c" SchedNodeList)"
    sched=$(ns_job_field "$c" SchedNodeList)
    tap_is "$sched" "$(nodes_of "$a")" "[$tp]   backfill reserves $sched for it (where $a ends first)"
    # An ABQ job that would still run when $a ends (15 min against 10):
    # not on the reserved pair (a shorter one may go there: see backfill).
    d=$(sub abq_std -n 24 -t 15)
    ns_wait_job_state "$d" RUNNING 20
    tap_ok $? "[$tp] an ABQ job $d (15 min) backfills meanwhile"
    tap_is "$(nodes_of "$d")" "$(nodes_of "$b")" \
        "[$tp]   away from the reserved pair, next to LAM $b"
    scancel "$a"
    ns_wait_job_state "$c" RUNNING 20
    tap_ok $? "[$tp] when $a ends the waiting LAM job $c starts"
    tap_is "$(nodes_of "$c")" "$sched" "[$tp]   on the reserved pair $sched"
    show_queue
    clean_slate
    back_to_twins
}

# keep:LAM (the study's Keep): LAM shares only with LAM, every other
# program only with non-LAM programs and never with its own.  Strict
# (fallback_after -1): an ABQ job waits while the only room is beside LAM
# or beside ABQ; LSD joins ABQ and LAM joins LAM (which twins forbids).
# As a preference (fallback_after 0) the ABQ job is packed at once as stock
# Slurm would.
keep () {
    reconfigure_to keep:LAM -1
    a=$(sub lmp_serial -n 24)
    b=$(sub abq_std -n 24)
    ns_wait_job_state "$a" RUNNING 20 && ns_wait_job_state "$b" RUNNING 20
    tap_is "$(ns_job_cpus_per_node "$a") / $(ns_job_cpus_per_node "$b")" "12 12 / 12 12" \
        "[$tp] LAM $a and ABQ $b striped 12+12"
    pa=$(nodes_of "$a") pb=$(nodes_of "$b")
    c=$(sub abq_std -n 24)
    ns_poll 15 reason_matches "$c" '^\(?nodeshare: waits \(twin\)'
    tap_ok $? "[$tp] ABQ job $c waits: not beside LAM, not beside ABQ: $(reason_of "$c")"
    # nodes by their names, as Slurm calls them
    refused="; refused twin 2 nodes ($(scontrol show hostnames "$pb" | tr '\n' ' ' | sed 's/ $//')), pairing 2 nodes ($(scontrol show hostnames "$pa" | tr '\n' ' ' | sed 's/ $//'))"
    reason_of "$c" | grep -qF -- "$refused"
    tap_ok $? "[$tp]   squeue's reason names the refused nodes: $refused"
    grep -F "nodeshare: job $c (ABQ, 24 cores) [keep:LAM]: waits" "$(log)" |
        grep -qF -- "$refused"
    tap_ok $? "[$tp]   and so does the log" ||
        tap_diag "$(grep -F "nodeshare: job $c " "$(log)" | tail -1)"
    scancel "$c"
    ns_wait_job_state "$c" CANCELLED 20
    d=$(sub lsdyna -n 24)
    ns_wait_job_state "$d" RUNNING 20
    tap_is "$(nodes_of "$d")" "$pb" "[$tp] LSD job $d joins ABQ $b on $pb"
    e=$(sub lmp_serial -n 24)
    ns_wait_job_state "$e" RUNNING 20
    tap_is "$(nodes_of "$e")" "$pa" "[$tp] LAM job $e joins LAM $a on $pa (twins would refuse)"
    grep -F "nodeshare: job $e (LAM, 24 cores) [keep:LAM]: nodes" "$(log)" |
        grep -q 'stripe-share, sharing 2 nodes'
    tap_ok $? "[$tp]   log: [keep:LAM] by stripe-share, sharing 2 nodes"
    grep -F "nodeshare: job $e (LAM, 24 cores) [keep:LAM]: nodes $(scontrol show hostnames "$pa" | paste -sd,) (12+12 cores) by stripe-share" "$(log)" >/dev/null
    tap_ok $? "[$tp]   log: nodes $(scontrol show hostnames "$pa" | paste -sd,) (12+12 cores)"
    show_queue
    clean_slate

    reconfigure_to keep:LAM
    a=$(sub lmp_serial -n 24)
    b=$(sub abq_std -n 24)
    ns_wait_job_state "$a" RUNNING 20 && ns_wait_job_state "$b" RUNNING 20
    c=$(sub abq_std -n 24)
    ns_wait_job_state "$c" RUNNING 20
    tap_ok $? "[$tp] ABQ job $c starts at once ($(nodes_of "$c"))"
    grep -F "nodeshare: job $c (ABQ, 24 cores) [keep:LAM]: placed by cons_tres as stock Slurm would (fallback) -> " "$(log)" >/dev/null
    tap_ok $? "[$tp]   log: placed by cons_tres as stock Slurm would (fallback)"
    clean_slate
    back_to_twins
}

# Backfill beside a waiting twin (issue 11): J1 LAM (5 min) and J2 ABQ
# striped on disjoint pairs, J3 LAM joins J2's pair, J4 LAM waits for J1's
# pair (strict twin rule), J5 LSD with a 1-minute limit backfills beside J1
# now: it ends before J1 does, so before J4 could start.
backfill () {
    reconfigure_to twins -1
    j1=$(sub lmp_serial -n 24 -t 5)
    j2=$(sub abq_std -n 24)
    ns_wait_job_state "$j1" RUNNING 20 && ns_wait_job_state "$j2" RUNNING 20
    tap_ok $? "[$tp] J1 LAM $j1 (5 min) and J2 ABQ $j2 run"
    p1=$(nodes_of "$j1") p2=$(nodes_of "$j2")
    j3=$(sub lmp_serial -n 24)
    ns_wait_job_state "$j3" RUNNING 20
    tap_is "$(nodes_of "$j3")" "$p2" "[$tp] J3 LAM $j3 joins J2's pair $p2"
    j4=$(sub lmp_serial -n 24)
    ns_poll 15 reason_matches "$j4" '^\(?nodeshare: waits \(twin\)'
    tap_ok $? "[$tp] J4 LAM $j4 waits (twin): $(reason_of "$j4")"
    j5=$(sub lsdyna -n 24 -t 1)
    ns_wait_job_state "$j5" RUNNING 30
    tap_ok $? "[$tp] J5 LSD $j5 (1 min) starts: $(ns_job_field "$j5" JobState) StartTime=$(ns_job_field "$j5" StartTime) SchedNodeList=$(ns_job_field "$j5" SchedNodeList) Reason=$(reason_of "$j5")"
    tap_is "$(nodes_of "$j5")" "$p1" "[$tp]   beside J1 on $p1"
    tap_is "$(ns_job_field "$j4" JobState)" PENDING "[$tp]   J4 still waits"
    ns_poll 15 test -n "$(ns_job_field "$j4" SchedNodeList)"
    tap_is "$(ns_job_field "$j4" SchedNodeList)" "$p1" \
        "[$tp]   backfill reserves J1's pair $p1 for J4"
    # The will-run answer for J4 is when J1 ends, not "now" (cons_tres
    # alone sees 12 free cores on each node of the pair).
    tap_is "$(ns_job_field "$j4" StartTime)" "$(ns_job_field "$j1" EndTime)" \
        "[$tp]   from J1's end"
    tap_like "$(reason_of "$j4")" '^\(?nodeshare: waits ' \
        "[$tp]   J4's reason is still nodeshare's"
    show_queue
    clean_slate

    # With fallback_after 180 J4 is packed as stock from 180 s after its
    # submission, before J1 ends (5 min): that is its start time, and J5
    # (1 min) still starts beside J1 at once.  (With 120 s J5 had less
    # than backfill's 60 s resolution to spare: it waited when J4 was
    # submitted late in a minute.)
    reconfigure_to twins 180
    j1=$(sub lmp_serial -n 24 -t 5)
    j2=$(sub abq_std -n 24)
    ns_wait_job_state "$j1" RUNNING 20 && ns_wait_job_state "$j2" RUNNING 20
    j3=$(sub lmp_serial -n 24)
    ns_wait_job_state "$j3" RUNNING 20
    tap_ok $? "[$tp] J1 $j1, J2 $j2, J3 $j3 run"
    j4=$(sub lmp_serial -n 24)
    ns_poll 15 reason_matches "$j4" '^\(?nodeshare: waits \(twin\)'
    tap_ok $? "[$tp] J4 LAM $j4 waits (twin): $(reason_of "$j4")"
    j5=$(sub lsdyna -n 24 -t 1)
    ns_wait_job_state "$j5" RUNNING 30
    tap_ok $? "[$tp] J5 LSD $j5 (1 min) starts: $(ns_job_field "$j5" JobState) StartTime=$(ns_job_field "$j5" StartTime) Reason=$(reason_of "$j5")"
    tap_is "$(nodes_of "$j5")" "$(nodes_of "$j1")" "[$tp]   beside J1"
    # Slurm prints local times without a zone: compare them as such.
    fb_start () {
        local sub start
        sub=$(date -d "$(ns_job_field "$j4" SubmitTime)" +%s)
        start=$(date -d "$(ns_job_field "$j4" StartTime)" +%s) || return 1
        d=$((start - sub))
        [ "$d" -ge 178 ] && [ "$d" -le 182 ]
    }
    ns_poll 15 fb_start
    tap_ok $? "[$tp]   J4 is to start 180 s after its submission (StartTime $(ns_job_field "$j4" StartTime), submitted $(ns_job_field "$j4" SubmitTime); J1 ends $(ns_job_field "$j1" EndTime))"
    show_queue
    clean_slate
    back_to_twins
}

# as_asked NAME WANT_NODES WANT_CPUS SBATCH ARGS...
as_asked () {
    local name want_n want_c j
    name=$1 want_n=$2 want_c=$3; shift 3
    # No srun: under task/affinity this 2-CPU machine cannot bind 24 tasks
    # of one step on one node of 24 configured CPUs (stock cons_tres alike).
    j=$(subplain lmp_serial "$@")
    ns_wait_job_state "$j" RUNNING 20
    tap_ok $? "[$tp] $name: job $j runs"
    tap_is "$(ns_job_field "$j" NumNodes) $(ns_job_cpus_per_node "$j")" "$want_n $want_c" \
        "[$tp]   $name: $want_n node(s), CPUs per node $want_c ($(nodes_of "$j"))"
    scancel "$j"
    ns_wait_all_idle 30 >/dev/null
}

shapes () {
    as_asked "--exclusive -n 24" 1 24 --exclusive -n 24
    as_asked "-N 1 -n 24" 1 24 -N 1 -n 24
    as_asked "--ntasks-per-node=24 -n 24" 1 24 --ntasks-per-node=24 -n 24
    as_asked "--ntasks-per-node=6 -n 24" 4 "6 6 6 6" --ntasks-per-node=6 -n 24
    as_asked "--nodelist=ns3 -n 12" 1 12 --nodelist=ns3 -n 12
    j=$(subplain lmp_serial --spread-job -n 8)
    ns_wait_job_state "$j" RUNNING 20
    tap_is "$(ns_job_field "$j" NumNodes)" 4 \
        "[$tp] --spread-job -n 8: cons_tres spreads it over all 4 nodes ($(ns_job_cpus_per_node "$j"))"
    scancel "$j"
    ns_wait_all_idle 30 >/dev/null
    log_has "asks for --spread-job: cons_tres places it as asked"
    tap_ok $? "[$tp]   log: --spread-job is left to cons_tres"
}

srun_ranks () {
    j=$(ns_sbatch -D "$work" -o "$work/ranks.%j" -n 24 -t 5 -J lmp_ranks \
        --wrap 'srun sh -c "echo \$SLURMD_NODENAME"')
    ns_wait_job_state "$j" COMPLETED 30
    tap_ok $? "[$tp] job $j (srun inside a striped job) completes"
    tap_is "$(sort "$work/ranks.$j" | uniq -c | awk '{ print $1 }' | tr '\n' ' ')" \
        "12 12 " "[$tp]   srun ran 12 ranks on each of its 2 nodes"
}

# An uneven stripe holds exactly its tasks' CPUs (Slurm's test1.35: -n 30
# over 4 nodes is 8+8+7+7, not 4 x 8); a second one beside it gets the
# cores the first left free, and srun inside runs the decided ranks.
uneven () {
    a=$(ns_sbatch -D "$work" -o "$work/uneven.%j" -n 30 -t 10 -J lmp_uneven \
        --wrap 'srun sh -c "echo \$SLURMD_NODENAME"; exec sleep 600')
    ns_wait_job_state "$a" RUNNING 20
    tap_ok $? "[$tp] LAM job $a (-n 30) runs"
    tap_is "$(ns_job_field "$a" NumNodes)/$(ns_job_field "$a" NumCPUs) $(ns_job_cpus_per_node "$a")" \
        "4/30 8 8 7 7" "[$tp]   striped 8+8+7+7: NumCPUs=30, not 4 x 8"
    ns_poll 20 has_lines 30 "$work/uneven.$a"
    tap_is "$(grep '^ns' "$work/uneven.$a" | sort | uniq -c | awk '{ print $1 }' | tr '\n' ' ')" \
        "8 8 7 7 " "[$tp]   srun inside runs 8, 8, 7 and 7 ranks"
    b=$(ns_sbatch -D "$work" -o /dev/null -n 26 -t 10 -J abq_uneven \
        --wrap 'exec sleep 600')
    ns_wait_job_state "$b" RUNNING 20
    tap_ok $? "[$tp] ABQ job $b (-n 26) runs beside it"
    decided=$(grep -F "nodeshare: job $b " "$(log)" |
              sed -n 's/.*nodes [^ ]* (\([0-9+]*\) cores).*/\1/p' | head -n 1)
    tap_is "$(ns_job_field "$b" NumCPUs) $(ns_job_cpus_per_node "$b" | tr ' ' '+')" \
        "26 $decided" "[$tp]   it holds 26 CPUs, as decided ($decided on $(nodes_of "$b"))"
    show_queue
    clean_slate
}

restart () {
    a=$(sub lmp_serial -n 24)
    b=$(sub abq_std -n 24)
    # Their sruns too: an srun that asks slurmctld for its step while it
    # restarts fails, and its job ends.
    ns_wait_job_state "$a" RUNNING 20 && ns_wait_job_state "$b" RUNNING 20 &&
        ns_poll 20 steps_run "$a" "$b"
    tap_ok $? "[$tp] LAM $a and ABQ $b run"
    ns_cluster_restart_ctld
    tap_ok $? "[$tp] slurmctld restarts with running jobs"
    tap_is "$(squeue -h -t RUNNING -o %i | sort -n | tr '\n' ' ')" "$a $b " \
        "[$tp]   both still RUNNING"
    c=$(sub lmp_serial -n 24)
    ns_wait_job_state "$c" RUNNING 20
    tap_ok $? "[$tp] a new LAM job $c runs"
    tap_is "$(nodes_of "$c")" "$(nodes_of "$b")" \
        "[$tp]   next to ABQ $b, not next to its twin $a: the co-tenants survived"
    grep -F "nodeshare: job $c " "$(log)" | grep -q 'stripe-share, sharing 2 nodes; refused twin 2 nodes'
    tap_ok $? "[$tp]   log: sharing 2 nodes, refused twin 2 nodes"
    clean_slate
}

reconfigure () {
    good_config exclusive >"$NS_CLUSTER_DIR/nodeshare.json"
    ns_cluster_reconfigure
    tap_ok $? "[$tp] scontrol reconfigure with policy exclusive"
    ns_poll 10 log_has "nodeshare: reloaded: policy exclusive"
    tap_ok $? "[$tp]   log: nodeshare: reloaded: policy exclusive"
    j=$(subplain lmp_serial -n 24)
    ns_wait_job_state "$j" RUNNING 20
    tap_is "$(ns_job_field "$j" NumNodes)" 1 "[$tp]   a -n 24 job now gets 1 whole node"
    scancel "$j"
    ns_wait_all_idle 30 >/dev/null

    printf '{ "policy": "twins", "max_cotenants": 0 }\n' >"$NS_CLUSTER_DIR/nodeshare.json"
    ns_cluster_reconfigure
    tap_ok $? "[$tp] scontrol reconfigure with a broken nodeshare.json"
    msg="nodeshare.json: max_cotenants: expected an integer 1..64, got 0; the previous configuration stays in force (policy exclusive"
    ns_poll 10 log_has "$msg"
    tap_ok $? "[$tp]   log: $msg"
    j=$(subplain lmp_serial -n 24)
    ns_wait_job_state "$j" RUNNING 20
    tap_is "$(ns_job_field "$j" NumNodes)" 1 "[$tp]   exclusive still in force: 1 node"
    clean_slate

    ns_cluster_restart_ctld 2>/dev/null
    tap_ok $((! $?)) "[$tp] slurmctld refuses to start with the broken file"
    grep -q "fatal: nodeshare: .*nodeshare.json: max_cotenants: expected an integer 1..64, got 0" \
        "$(log)"
    tap_ok $? "[$tp]   log: fatal: nodeshare: ...nodeshare.json: max_cotenants: ..."
    good_config twins >"$NS_CLUSTER_DIR/nodeshare.json"
    # A fresh log: the start-up check of lib.sh fails on any "fatal:".
    mv "$(log)" "$(log).fatal"
    ns_cluster_restart_ctld
    tap_ok $? "[$tp] with the file fixed slurmctld starts again"
    j=$(sub lmp_serial -n 24)
    ns_wait_job_state "$j" RUNNING 20
    tap_is "$(ns_job_cpus_per_node "$j")" "12 12" "[$tp]   and stripes again" ||
        { ns_cluster_dump; grep -F nodeshare "$(log)" | tail -15 | sed 's/^/#   /'; }
    clean_slate
}

# Back to the stock cons_tres with a striped job running: it keeps
# running and its step still runs 12 ranks per node (same plugin_id, so
# slurmctld recovers the job from its state files).
rollback () {
    j=$(ns_sbatch -D "$work" -o "$work/rollback.%j" -n 24 -t 5 -J lmp_rollback \
        --wrap 'sleep 6; srun sh -c "echo \$SLURMD_NODENAME"')
    ns_wait_job_state "$j" RUNNING 20
    tap_ok $? "[$tp] striped job $j runs before the rollback"
    sed -e "s|^PluginDir=.*|PluginDir=$(ns_slurm_plugindir)|" \
        -e "s|^SelectType=.*|SelectType=select/cons_tres|" \
        "$NS_CLUSTER_DIR/slurm.conf" >"$NS_CLUSTER_DIR/slurm.conf.new" &&
        mv "$NS_CLUSTER_DIR/slurm.conf.new" "$NS_CLUSTER_DIR/slurm.conf"
    ns_cluster_restart_ctld
    tap_ok $? "[$tp] slurmctld restarts with SelectType=select/cons_tres"
    tap_is "$(ns_job_field "$j" JobState) $(ns_job_cpus_per_node "$j")" "RUNNING 12 12" \
        "[$tp]   job $j still RUNNING, 12+12"
    k=$(subplain lmp_serial -n 24)
    ns_wait_job_state "$k" RUNNING 20
    tap_is "$(ns_job_field "$k" NumNodes)" 1 "[$tp]   a new -n 24 job is packed on 1 node by cons_tres"
    ns_wait_job_state "$j" COMPLETED 30
    tap_is "$(sort "$work/rollback.$j" | uniq -c | awk '{ print $1 }' | tr '\n' ' ')" \
        "12 12 " "[$tp]   its step ran 12 ranks on each node after the rollback"
    clean_slate
}

run_all () {   # TASKPLUGIN
    tp=$1
    NS_TASKPLUGIN=$tp
    NS_CLUSTER_DIR=$scratch/cluster-$(echo "$tp" | tr / -)
    NS_PLUGINDIR=$scratch/plugins
    NS_SELECTTYPE=select/cons_tres_nodeshare
    NS_SLURM_CONF_EXTRA="SchedulerParameters=batch_sched_delay=0,bf_interval=1,bf_resolution=60${NS_SELECT_CONF_EXTRA:+
$NS_SELECT_CONF_EXTRA}"
    NS_SLURM_DEBUG=verbose
    export NS_TASKPLUGIN NS_CLUSTER_DIR NS_PLUGINDIR NS_SELECTTYPE \
           NS_SLURM_CONF_EXTRA NS_SLURM_DEBUG
    mkdir -p "$NS_CLUSTER_DIR"
    good_config twins >"$NS_CLUSTER_DIR/nodeshare.json"
    ns_cluster_start 4 24
    tap_ok $? "[$tp] cluster of 4 x 24 cores with select/cons_tres_nodeshare starts" ||
        return 1
    work=$NS_CLUSTER_DIR/work
    log_has "nodeshare: policy twins, stripe_width 2, max_cotenants 2, fallback_after 0"
    tap_ok $? "[$tp]   log: the configuration next to slurm.conf is read"
    tap_is "$(sinfo -h -o '%D %t %c')" "4 idle 24" "[$tp]   sinfo works: 4 idle nodes of 24"
    for s in ${NS_SELECT_SCENARIOS:-striping small twins_preference twins keep backfill shapes srun_ranks uneven restart reconfigure rollback}; do
        case $tp:$s in
            *:tag) [ -n "${NS_PLUGSTACK:-}" ] && $s ;;   # needs the SPANK plugin
            *) $s ;;
        esac
    done
    ns_cluster_stop
}

# The SPANK tag beats the batch script: a job that runs lmp_serial but is
# tagged --nodeshare-program=ABQ counts as ABQ (design.md section 4).
tag () {
    a=$(sub lmp_serial -n 24)
    b=$(sub abq_std -n 24)
    ns_wait_job_state "$a" RUNNING 20 && ns_wait_job_state "$b" RUNNING 20
    tap_ok $? "[$tp] LAM $a and ABQ $b run"
    c=$(sub lmp_serial -n 24 --nodeshare-program=ABQ)
    tap_like "$c" '^[0-9]+$' "[$tp] sbatch knows --nodeshare-program (SPANK plugin loaded)" ||
        return 1
    ns_wait_job_state "$c" RUNNING 20
    tap_ok $? "[$tp] lmp_serial job $c tagged --nodeshare-program=ABQ runs"
    tap_is "$(nodes_of "$c")" "$(nodes_of "$a")" \
        "[$tp]   as ABQ: next to LAM $a, not next to ABQ $b"
    grep -qF "nodeshare: job $c (ABQ, 24 cores)" "$(log)"
    tap_ok $? "[$tp]   log: job $c (ABQ, 24 cores)"
    clean_slate
}

for tp in ${NS_SELECT_TASKPLUGINS:-task/none task/affinity}; do
    run_all "$tp"
done
spank=$top_builddir/spank/.libs/nodeshare.so
case " ${NS_SELECT_SCENARIOS:-tag} " in *" tag "*) want_tag=1 ;; *) want_tag=0 ;; esac
if [ "$want_tag" = 1 ]; then
    if [ -f "$spank" ]; then
        NS_PLUGSTACK="optional $spank"
        export NS_PLUGSTACK
        NS_SELECT_SCENARIOS=tag run_all task/none
    else
        tap_skip "SPANK plugin not built: --nodeshare-program not tested"
    fi
fi
tap_done
