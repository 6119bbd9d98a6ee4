#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/failover.sh - nodeshare under a primary and a backup
# slurmctld (TAP)
#
# 4 nodes x 24 cores, SlurmctldHost=ctlA(127.0.0.1) (primary) and
# SlurmctldHost=ctlB(127.0.0.2) (backup) sharing StateSaveLocation,
# SlurmctldTimeout=5, select/cons_tres_nodeshare with learning on
# (save_every 0).  Each slurmctld runs with its own host name (a UTS
# namespace), see ns_cluster_start_failover.  Checks, polling with bounds:
#   before      LAM jobs complete and become learning observations in
#               StateSaveLocation/nodeshare-learn.json; a LAM job of 24
#               tasks is striped 12+12 and keeps running
#   kill        the primary is killed (SIGKILL, by its pid): scontrol ping
#               says ctlA DOWN, ctlB UP, and ctlB logs that it runs as
#               primary controller (SlurmctldTimeout later)
#   takeover    the backup's log shows nodeshare.json loaded and every
#               observation of the learning state; nodeshare-learn
#               --state reads them all; the striped job still runs on
#               its nodes
#   after       a new 24-task LAM job is striped by the backup (over the
#               two empty nodes, by stripe-empty); a LAM job that
#               completes under the backup is one more observation
#
# Skips when not root, without unshare, or when the plugin is not built.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_failover_can_run >/dev/null || tap_skip_all "$(ns_failover_can_run)"
learn=$top_builddir/nodeshare-learn
ns_plugin_scenario failover lmp_serial
# ns_plugin_scenario's EXIT trap, with both controllers stopped first.
trap 'ns_failover_stop; _ns_scenario_cleanup' EXIT

NS_CLUSTER_DIR=$scratch/cluster
NS_PLUGINDIR=$scratch/plugins
NS_SELECTTYPE=select/cons_tres_nodeshare
NS_SLURM_CONF_EXTRA="SchedulerParameters=batch_sched_delay=0,bf_interval=1"
export NS_CLUSTER_DIR NS_PLUGINDIR NS_SELECTTYPE NS_SLURM_CONF_EXTRA
mkdir -p "$NS_CLUSTER_DIR"
cat >"$NS_CLUSTER_DIR/nodeshare.json" <<'EOF'
// written by tests/slurm/failover.sh
{
  "policy": "mixed",
  "fallback_after": -1,
  "programs": { "LAM": { "spread_speedup": 1.147 } },
  "identity": { "patterns": [ { "match": "lmp*", "program": "LAM" } ] },
  "learn": { "enabled": true, "min_observations": 3, "save_every": 0 }
}
EOF
echo "# Slurm $(ns_slurm_version)"
ns_cluster_start_failover 4 24
tap_ok $? "cluster of 4 x 24 cores, primary ctlA and backup ctlB, starts" || tap_done
ns_failover_ping_is UP UP
tap_ok $? "scontrol ping: ctlA UP, ctlB UP" ||
    tap_diag "$(scontrol ping 2>&1)"
d=$NS_CLUSTER_DIR
state=$d/state/nodeshare-learn.json
logA=$(ns_failover_log A)
logB=$(ns_failover_log B)

# observations in the state file (0 if none)
observations () {
    [ -f "$state" ] || { echo 0; return; }
    grep -o '"program"' "$state" | wc -l | tr -d ' '
}
# wait_observations N [TIMEOUT_S]: until the state holds at least N.
wait_observations () {
    local end
    end=$(($(date +%s) + ${2:-60}))
    while [ "$(observations)" -lt "$1" ] && [ "$(date +%s)" -lt "$end" ]; do
        sleep 0.2
    done
    [ "$(observations)" -ge "$1" ]
}
# lam SECONDS: a LAM job of 24 tasks
lam () {
    ns_sbatch -o /dev/null -t 10 -n 24 -J lmp_serial \
        --wrap "srun $scratch/bin/lmp_serial $1"
}

##
# before: the primary
##
ok=0
for i in 1 2 3; do
    j=$(lam 2)
    ns_wait_job_state "$j" COMPLETED 60 || { ok=1; break; }
done
tap_ok $ok "3 LAM jobs of 24 tasks completed under the primary"
wait_observations 3 30
n=$(observations)
tap_is "$n" 3 "  the learning state holds 3 observations"
a=$(lam 600)
ns_wait_job_state "$a" RUNNING 30
tap_ok $? "LAM job $a (-n 24, 10 minutes) runs"
nodes_a=$(ns_job_field "$a" NodeList)
tap_is "$(ns_job_field "$a" NumNodes)/$(ns_job_field "$a" NumCPUs) $(ns_job_cpus_per_node "$a")" \
    "2/24 12 12" "  striped by the primary: 2 nodes, 12+12 CPUs ($nodes_a)"
grep -F "nodeshare: job $a (LAM, 24 cores)" "$logA" | grep -q 'by stripe-empty'
tap_ok $? "  ctlA's log: by stripe-empty"
# Its step runs (srun started), so that the job record saved in
# StateSaveLocation is the one of a running job.
ns_poll 30 sh -c "squeue -h -s -o %i | grep -qx '$a\.0'"
tap_ok $? "  its step $a.0 runs"
# slurmctld writes its state at most every 5 s (SAVE_MAX_WAIT): a job that
# started just before a crash is recovered from the older job_state as
# pending (22.05 then starts it again, the nodes still hold it, and it is
# requeued held).  Kill only once job_state has been written after the
# job started: in a later second than its StartTime, or after a change to
# the job (its comment), which makes slurmctld write it within those 5 s.
touch "$scratch/running"
started=$(date -d "$(ns_job_field "$a" StartTime)" +%s 2>/dev/null || date +%s)
scontrol update JobId="$a" Comment=failover-test 2>&1 | sed 's/^/# scontrol update: /'
ns_poll 30 sh -c "test -n \"\$(find '$d/state/job_state' -newer '$scratch/running')\" ||
    [ \$(stat -c %Y '$d/state/job_state') -gt $started ]"
tap_ok $? "  ctlA saved its job state after that"

##
# kill the primary
##
pidA=$(ns_failover_pid A)
t0=$(date +%s)
kill -KILL "$pidA"
ns_poll 10 sh -c "! kill -0 $pidA"
tap_ok $? "the primary (ctlA, pid $pidA) is killed with SIGKILL"
ns_poll 60 ns_failover_ping_is DOWN UP
tap_ok $? "scontrol ping: ctlA DOWN, ctlB UP" ||
    tap_diag "$(scontrol ping 2>&1)"
# A backup answers pings while it waits; it takes over once the primary
# has been silent for SlurmctldTimeout.
ns_poll 60 grep -q 'Running as primary controller' "$logB"
tap_ok $? "ctlB's log: Running as primary controller, $(($(date +%s) - t0)) s after the kill (SlurmctldTimeout=5)"
# line numbers in ctlB's log: the takeover, nodeshare.json loaded
line_of () {   # FIXED-STRING: the number of its first line in ctlB's log
    grep -nF -- "$1" "$logB" | head -n 1 | cut -d: -f1
}
ns_poll 30 grep -q 'nodeshare: policy mixed' "$logB"
tap_ok $? "ctlB's log: nodeshare.json loaded" ||
    tap_diag "$(grep -i 'nodeshare\|control' "$logB" | tail -5)"
tk=$(line_of 'Running as primary controller')
cf=$(line_of 'nodeshare: policy mixed')
if [ "${cf:-0}" -lt "${tk:-0}" ]; then
    tap_diag "ctlB loaded nodeshare.json at its start, as a backup (log line $cf; takeover at line $tk):"
else
    tap_diag "ctlB loaded nodeshare.json when it took over (log line $cf; takeover at line $tk):"
fi
tap_diag "  $(sed -n "${cf:-1}p" "$logB" | sed 's/^\[[^]]*\] //')"

##
# the backup
##
tap_is "$(ns_job_field "$a" JobState) $(ns_job_field "$a" NodeList)" "RUNNING $nodes_a" \
    "job $a still runs on $nodes_a"
tap_is "$(observations)" "$n" "the learning state still holds $n observations"
out=$("$learn" --state "$state" --min-observations 3 --max-se 1 --table 2>&1)
tap_like "$out" "nodeshare-learn.json: $n observations" \
    "  nodeshare-learn --state reads $n observations"
b=$(lam 600)
ns_wait_job_state "$b" RUNNING 30
tap_ok $? "LAM job $b (-n 24) submitted to the backup runs"
nodes_b=$(ns_job_field "$b" NodeList)
tap_is "$(ns_job_field "$b" NumNodes)/$(ns_job_field "$b" NumCPUs) $(ns_job_cpus_per_node "$b")" \
    "2/24 12 12" "  striped by the backup: 2 nodes, 12+12 CPUs ($nodes_b)"
test -n "$nodes_b" &&
    test -z "$(printf '%s\n%s\n' "$(scontrol show hostnames "$nodes_a")" \
                   "$(scontrol show hostnames "$nodes_b")" | sort | uniq -d)"
tap_ok $? "  on the two nodes job $a leaves empty"
grep -F "nodeshare: job $b (LAM, 24 cores)" "$logB" | grep -q 'by stripe-empty'
tap_ok $? "  ctlB's log: by stripe-empty" ||
    tap_diag "$(grep -F "nodeshare: job $b " "$logB")"
ls_=$(line_of "nodeshare: learning state: $n observations from $state")
[ -n "$ls_" ] && [ "$ls_" -gt "${tk:-0}" ]
tap_ok $? "  ctlB's log, after the takeover: learning state: $n observations loaded" ||
    tap_diag "$(grep 'nodeshare: learning' "$logB")"
scancel "$b"
ns_wait_job_state "$b" CANCELLED 30
c=$(lam 2)
ns_wait_job_state "$c" COMPLETED 60
tap_ok $? "LAM job $c completes under the backup"
wait_observations $((n + 1)) 30
tap_is "$(observations)" $((n + 1)) "  one more observation: $((n + 1))"
tap_is "$(ns_job_field "$a" JobState) $(ns_job_field "$a" NodeList)" "RUNNING $nodes_a" \
    "job $a still runs on $nodes_a"

tap_done
