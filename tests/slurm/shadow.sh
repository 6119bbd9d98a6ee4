#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/shadow.sh - shadow mode: every job placed exactly as stock
# cons_tres places it, nodeshare's decisions recorded (TAP)
#
# The same held stream (released at once: one scheduling pass places it)
# on a 4 x 24-core loopback cluster under stock select/cons_tres and under
# select/cons_tres_nodeshare with "mode": "shadow" (policy twins, the
# study's LAM and ABQ figures, learning on):
#   J1 LAM 24 tasks, J2 ABQ 24 tasks, J3 LAM 24 tasks, J4 a 2-task job,
#   J5 -N 1 -n 8 (an explicit shape), J6 a 1-task job.
# Checks: every job's nodes and CPU ids are the same under both; the
# slurmctld log has one "nodeshare: shadow: ... would ..." line per job
# and StateSaveLocation/nodeshare-shadow.jsonl (mode 0600) one record per
# job, J1's "would stripe" over two nodes (12+12) where stock put it on
# one; learning saves its observations.  Then `scontrol reconfigure`
# with "mode": "normal": the running job keeps its nodes and a new LAM
# job is striped; and back to shadow: the next LAM job runs on one node
# as under stock.  Rotation: with "shadow": {"max_bytes": "64K",
# "keep": 1} and a full live file, the next record moves it to
# nodeshare-shadow.jsonl.1.gz (every line kept) and the .1.gz before is
# dropped, said in the log and by a "dropped" line starting the new file.
# Skips like tests/slurm/select.sh.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
ns_plugin_scenario shadow lmp_serial abq_std cp2k_popt

NS_SLURM_CONF_EXTRA="SchedulerParameters=batch_sched_delay=0,bf_interval=1"
export NS_SLURM_CONF_EXTRA

config () {   # MODE [SHADOW OBJECT]
    ns_twins_config tests/slurm/shadow.sh "\"mode\": \"$1\"," \
        ',
  "learn": { "enabled": true, "min_observations": 3, "save_every": 0 }'"${2:+,
  \"shadow\": $2}"
}

sub () {   # PROG SECONDS [SBATCH ARGS]
    local prog secs
    prog=$1 secs=$2; shift 2
    ns_sbatch -D "$NS_CLUSTER_DIR/work" -o /dev/null -t 5 -J "$prog" "$@" \
        --wrap "exec $scratch/bin/$prog $secs"
}

# The stream, held and released together; prints the job ids.
stream () {
    local ids
    ids="$(sub lmp_serial 20 -n 24 -H) $(sub abq_std 20 -n 24 -H)"
    ids="$ids $(sub lmp_serial 20 -n 24 -H) $(sub cp2k_popt 20 -n 2 -H)"
    ids="$ids $(sub cp2k_popt 20 -N 1 -n 8 -H) $(sub cp2k_popt 20 -n 1 -H)"
    scontrol release "$(echo $ids | tr ' ' ',')"
    echo $ids
}

# run_side SIDE: the stream's placements into $scratch/SIDE.alloc; the
# nodeshare side goes on with the reconfigure checks before it stops.
start_side () {
    local side
    side=$1
    NS_CLUSTER_DIR=$scratch/$side
    export NS_CLUSTER_DIR
    mkdir -p "$NS_CLUSTER_DIR"
    if [ "$side" = shadow ]; then
        NS_PLUGINDIR=$scratch/plugins
        NS_SELECTTYPE=select/cons_tres_nodeshare
        export NS_PLUGINDIR
        config shadow >"$NS_CLUSTER_DIR/nodeshare.json"
    else
        unset NS_PLUGINDIR
        NS_SELECTTYPE=select/cons_tres
    fi
    export NS_SELECTTYPE
    ns_cluster_start 4 24
    tap_ok $? "[$side] cluster of 4 x 24 cores starts"
}

place_stream () {   # SIDE
    local ids j
    ids=$(stream)
    echo "$ids" >"$scratch/$1.ids"
    ns_poll 30 ns_all_state RUNNING $ids
    tap_ok $? "[$1] the 6 jobs run"
    : >"$scratch/$1.alloc"
    for j in $ids; do
        echo "$(ns_job_nodes_cpus "$j" | tr '\n' ' ')" >>"$scratch/$1.alloc"
    done
    sed "s/^/#   [$1] /" "$scratch/$1.alloc"
    ns_poll 60 ns_all_state COMPLETED $ids
    tap_ok $? "[$1] the 6 jobs complete"
}

start_side stock || tap_done
place_stream stock
ns_cluster_stop

start_side shadow || tap_done
log=$(ns_cluster_log_ctld)
records=$NS_CLUSTER_DIR/state/nodeshare-shadow.jsonl
grep -q "nodeshare: shadow mode, policy twins" "$log"
tap_ok $? "[shadow] log: nodeshare: shadow mode, policy twins, ..."
place_stream shadow

tap_is "$(cat "$scratch/shadow.alloc")" "$(cat "$scratch/stock.alloc")" \
    "every job's nodes and CPU ids are those stock cons_tres chose"
set -- $(cat "$scratch/shadow.ids")
j1=$1 j5=$5
n=0
for j in "$@"; do
    grep -q "nodeshare: shadow: .*\(job \|JobId=\)$j\b.* would .*cons_tres placed it as stock Slurm does -> " "$log" &&
        n=$((n + 1))
done
tap_is "$n" 6 "log: a 'nodeshare: shadow: ... would ...' line for each of the 6 jobs"
grep "nodeshare: shadow: " "$log" | sed 's/.*nodeshare: /#   /'
tap_like "$(grep "nodeshare: shadow: job $j1 " "$log")" \
    "job $j1 \(LAM, 24 cores\) \[twins\]: would stripe nodes ns[0-9],ns[0-9] \(12\+12 cores\) by stripe-empty" \
    "  job $j1: would stripe over 2 nodes (12+12) by stripe-empty"
tap_is "$(wc -l <"$records" 2>/dev/null | tr -d ' ')" 6 \
    "nodeshare-shadow.jsonl: 6 records"
tap_is "$(stat -c %a "$records" 2>/dev/null)" 600 "  mode 0600"
sed 's/^/#   /' "$records"
r1=$(grep "\"job\":$j1," "$records")
tap_like "$r1" '"would":"stripe","nodes":"ns\[[0-9][-,][0-9]\]","shape":"12\+12","rule":"stripe-empty","stock":"ns[0-9]","differs":true' \
    "  job $j1: would stripe, 12+12, stock on one node, differs"
tap_like "$(grep "\"job\":$j5," "$records")" '"would":"as-asked".*"differs":false' \
    "  job $j5 (-N 1): as asked, the same"
state=$NS_CLUSTER_DIR/state/nodeshare-learn.json
obs () { [ "$(grep -o '"program"' "$state" 2>/dev/null | wc -l)" -ge 6 ]; }
ns_poll 30 obs
tap_ok $? "learning: the state holds the 6 jobs' observations ($(grep -o '"program"' "$state" 2>/dev/null | wc -l))"

# Normal mode by reconfigure, a job running across it.
long=$(sub lmp_serial 600 -n 24)
ns_poll 30 ns_all_state RUNNING "$long"
before=$(ns_job_nodes_cpus "$long")
config normal >"$NS_CLUSTER_DIR/nodeshare.json"
ns_cluster_reconfigure
reloaded () { grep "nodeshare: reloaded: " "$log" | tail -1 | grep -q "reloaded: policy twins"; }
ns_poll 30 reloaded
tap_ok $? "reconfigure to normal: log 'nodeshare: reloaded: policy twins, ...'"
tap_is "$(ns_job_nodes_cpus "$long")|$(ns_job_field "$long" JobState)" "$before|RUNNING" \
    "  job $long keeps its nodes and CPUs ($before) and runs"
j=$(sub lmp_serial 600 -n 24)
ns_poll 30 ns_all_state RUNNING "$j"
tap_is "$(ns_job_field "$j" NumNodes)|$(ns_job_field "$j" NumCPUs)" "2|24" \
    "  normal mode: LAM job $j striped over 2 nodes"
scancel "$j"
ns_poll 30 ns_all_state CANCELLED "$j"

# And back to shadow.
config shadow >"$NS_CLUSTER_DIR/nodeshare.json"
ns_cluster_reconfigure
reshadow () { grep "nodeshare: reloaded: " "$log" | tail -1 | grep -q "reloaded: shadow mode"; }
ns_poll 30 reshadow
tap_ok $? "reconfigure to shadow: log 'nodeshare: reloaded: shadow mode, ...'"
j=$(sub lmp_serial 600 -n 24)
ns_poll 30 ns_all_state RUNNING "$j"
tap_is "$(ns_job_field "$j" NumNodes)|$(ns_job_field "$j" NumCPUs)" "1|24" \
    "  shadow mode: LAM job $j on 1 node, as stock"
ns_poll 10 grep -q "\"job\":$j," "$records"
tap_ok $? "  and a record of what nodeshare would have done"
tap_is "$(ns_job_nodes_cpus "$long")|$(ns_job_field "$long" JobState)" "$before|RUNNING" \
    "  job $long still on its nodes"
scancel "$j" "$long"
ns_poll 30 ns_all_state CANCELLED "$j" "$long"

# Rotation: the live file filled past 64 KiB, a .1.gz of 3 records
# already there; keep 1.
gzrec=$records.1.gz
printf '{"time":1,"job":%s,"differs":false}\n' 1 2 3 | gzip -c >"$gzrec"
i=0
while [ "$(stat -c %s "$records")" -lt 65536 ]; do
    printf '{"time":2,"job":%s,"differs":false,"why":"%s"}\n' "$((i + 1000000))" \
        "padding padding padding padding padding padding padding" >>"$records"
    i=$((i + 1))
done
lines=$(wc -l <"$records" | tr -d ' ')
config shadow '{ "max_bytes": "64K", "keep": 1 }' >"$NS_CLUSTER_DIR/nodeshare.json"
ns_cluster_reconfigure
reshadow2 () { [ "$(grep -c "nodeshare: reloaded: shadow mode" "$log")" -ge 2 ]; }
ns_poll 30 reshadow2
j=$(sub lmp_serial 20 -n 24)
ns_poll 30 grep -q "\"job\":$j," "$records"
tap_ok $? "rotation: job $j's record in a new live file"
tap_is "$(gzip -dc "$gzrec" 2>/dev/null | wc -l | tr -d ' ')" "$lines" \
    "  nodeshare-shadow.jsonl.1.gz: the $lines lines of the full file"
tap_like "$(head -1 "$records")" \
    '^\{"time":[0-9]+,"dropped":"nodeshare-shadow.jsonl.1.gz","records":3,"first":1,"last":1\}$' \
    "  the new file starts with what was dropped"
tap_is "$(ls "$NS_CLUSTER_DIR/state" | grep -c '^nodeshare-shadow')" 2 \
    "  keep 1: the live file and one rotated file"
ns_poll 10 grep -q "nodeshare: shadow records past keep=1 dropped: nodeshare-shadow.jsonl.1.gz, 3 records from 1970-01-01T00:00:01Z to 1970-01-01T00:00:01Z" "$log"
tap_ok $? "  log: the file dropped, its records and their times"
ns_poll 60 ns_all_state COMPLETED "$j"
grep -Eq 'error: nodeshare' "$log"
tap_ok $((! $?)) "log: no nodeshare error"
ns_cluster_stop
tap_done
