#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/learn.sh - online learning in the select plugin on a real
# cluster (TAP)
#
# 4 nodes x 24 cores, select/cons_tres_nodeshare with "learn" enabled
# (save_every 0: the state is written at every observation).  Checks,
# polling with bounds and printing what it saw:
#   observe     completed jobs become observations in
#               StateSaveLocation/nodeshare-learn.json (mode 0600); a
#               cancelled job does not
#   --state     nodeshare-learn --state reads it: sleep jobs of one program
#               beside each other give figures of 1.00 within noise
#   reconfigure scontrol reconfigure keeps every observation
#   restart     slurmctld restarts, loads the state (log line with the
#               count) and goes on adding to it
#   corrupt     a state that does not load is set aside (renamed, one error
#               line), slurmctld runs, learning starts afresh
#   decision    a program without figures is packed; after its jobs ran
#               alone (12 s) and striped (8 s) the plugin has learned
#               spread_speedup 1.5 and stripes its next job
#   explore     with learn.explore, a program without figures is striped
#               while nothing waits (exploring); with runs asked as -N 1
#               beside those it learns spread_speedup 1.5 and then
#               stripes its next job by the figure
#
# Skips like tests/slurm/select.sh.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
learn=$top_builddir/nodeshare-learn
ns_plugin_scenario learn lmp_serial

NS_CLUSTER_DIR=$scratch/cluster
NS_PLUGINDIR=$scratch/plugins
NS_SELECTTYPE=select/cons_tres_nodeshare
NS_SLURM_CONF_EXTRA="SchedulerParameters=batch_sched_delay=0,bf_interval=1"
NS_SLURM_DEBUG=debug
export NS_CLUSTER_DIR NS_PLUGINDIR NS_SELECTTYPE NS_SLURM_CONF_EXTRA \
       NS_SLURM_DEBUG
mkdir -p "$NS_CLUSTER_DIR"
cat >"$NS_CLUSTER_DIR/nodeshare.json" <<'EOF'
// written by tests/slurm/learn.sh
{
  "policy": "mixed",
  "fallback_after": -1,
  "programs": { "LAM": { "spread_speedup": 1.147 } },
  "identity": { "patterns": [ { "match": "lmp*", "program": "LAM" } ] },
  "learn": { "enabled": true, "min_observations": 3, "save_every": 0 }
}
EOF
ns_cluster_start 4 24
tap_ok $? "cluster of 4 x 24 cores with learning on starts" || tap_done
work=$NS_CLUSTER_DIR/work
state=$NS_CLUSTER_DIR/state/nodeshare-learn.json
log=$(ns_cluster_log_ctld)

# wait_log FIXED-STRING [TIMEOUT]: the slurmctld log says it (learning
# starts when slurmctld first builds its model of the cluster).
wait_log () {
    local t=0
    while ! grep -qF -- "$1" "$log" && [ $t -lt "${2:-30}" ]; do
        sleep 1
        t=$((t + 1))
    done
    grep -qF -- "$1" "$log"
}

# observations IN THE STATE FILE (0 if none)
observations () {
    [ -f "$state" ] || { echo 0; return; }
    grep -o '"program"' "$state" | wc -l | tr -d ' '
}

# wait_observations N [TIMEOUT]: until the state holds at least N.
wait_observations () {
    local t=0
    while [ "$(observations)" -lt "$1" ] && [ $t -lt "${2:-60}" ]; do
        sleep 1
        t=$((t + 1))
    done
    [ "$(observations)" -ge "$1" ]
}

# run N jobs of 24 tasks (LAM, SECONDS): two at a time share a pair of nodes
batch () {   # COUNT SECONDS
    local i ids
    ids=
    i=0
    while [ $i -lt "$1" ]; do
        ids="$ids $(ns_sbatch -D "$work" -o /dev/null -t 5 -n 24 -J lmp_serial \
                   --wrap "exec $scratch/bin/lmp_serial $2")"
        i=$((i + 1))
    done
    echo $ids
}

# Three alone, one after the other, then six at once (in pairs).
for i in 1 2 3; do
    j=$(batch 1 8)
    ns_wait_job_state "$j" COMPLETED 60 || break
done
tap_ok $? "3 LAM jobs of 24 tasks completed one after the other"
wait_log "nodeshare: learning from job ends (state: $state, none yet)"
tap_ok $? "log: learning on, no state yet"
jobs=$(batch 6 8)
for j in $jobs; do ns_wait_job_state "$j" COMPLETED 90 || break; done
tap_ok $? "6 LAM jobs of 24 tasks completed, in pairs"
wait_observations 9 30
tap_is "$(observations)" 9 "the state holds 9 observations"
tap_is "$(stat -c %a "$state" 2>/dev/null)" 600 "  mode 0600"

c=$(ns_sbatch -D "$work" -o /dev/null -t 5 -n 24 -J lmp_serial \
    --wrap "exec $scratch/bin/lmp_serial 600")
ns_wait_job_state "$c" RUNNING 30
scancel "$c"
ns_wait_job_state "$c" CANCELLED 30
tap_ok $? "job $c cancelled"
wait_log "nodeshare: learning: JobId=$c ended: not an observation (it did not complete)"
tap_ok $? "  log: JobId=$c ended: not an observation (it did not complete)"
tap_is "$(observations)" 9 "  a cancelled job is no observation"

out=$("$learn" --state "$state" --min-observations 3 --max-se 1 --table 2>&1)
tap_ok $? "nodeshare-learn --state reads the plugin's state"
tap_like "$out" "nodeshare-learn.json: 9 observations" "  9 observations"
# sleep jobs: LAM beside LAM, or alone, runs as long: 1.00 within noise.
# Slurm times jobs to the second, and four jobs launched at once on this
# 2-core machine may each take a second or two longer to start and end
# than one alone: 8 s jobs give 1.00 within (8-2)/8 .. (8+2.8)/8.  CI saw
# 1.250 = 5/4 with 4 s jobs.  A wrong ratio (per node, per core, inverted
# striping) would be 0.5 or 2.
fig=$(printf '%s\n' "$out" | awk '$1 == "LAM" && $2 == "slowdown:LAM" { print $3 }')
awk -v f="${fig:-0}" 'BEGIN { exit !(f > 0.75 && f < 1.35) }'
tap_ok $? "  sleep jobs: LAM beside LAM ${fig:-not learned}, 1.00 within noise" ||
    tap_diag "$(cat "$state" 2>&1)"
[ -n "$fig" ] || tap_diag "$out"

ns_cluster_reconfigure
tap_ok $? "scontrol reconfigure"
j=$(batch 1 2)
ns_wait_job_state "$j" COMPLETED 60
wait_observations 10 30
tap_is "$(observations)" 10 "  observations kept across reconfigure, one more added"

ns_cluster_restart_ctld
tap_ok $? "slurmctld restarts"
j=$(batch 1 2)
ns_wait_job_state "$j" COMPLETED 60
wait_log "nodeshare: learning state: 10 observations from $state"
tap_ok $? "  log: learning state: 10 observations loaded"
wait_observations 11 30
tap_is "$(observations)" 11 "  and it goes on: 11"

# An observation not yet in the state survives slurmctld ending without
# the plugin's fini (SIGKILL here; from 23.11 `scontrol reconfigure`
# re-executes slurmctld the same way): it is in the journal, and the next
# slurmctld replays it.
sed 's/"save_every": 0/"save_every": 3600/' "$NS_CLUSTER_DIR/nodeshare.json" \
    >"$NS_CLUSTER_DIR/nodeshare.json.new" &&
    mv "$NS_CLUSTER_DIR/nodeshare.json.new" "$NS_CLUSTER_DIR/nodeshare.json"
ns_cluster_reconfigure
tap_ok $? "scontrol reconfigure: save_every 3600"
# (23.11+: the re-executed slurmctld starts learning at the next job.)
j=$(batch 1 2)
ns_wait_job_state "$j" COMPLETED 60
wait_log "learning: JobId=$j observed"
tap_ok $? "  job $j observed"
tap_is "$(observations)" 11 "  the state still holds 11 (not saved yet)"
tap_is "$(wc -l <"$state.journal" 2>/dev/null | tr -d ' ')" 1 \
    "  the journal holds its observation"
pid=$(cat "$NS_CLUSTER_DIR/slurmctld.pid")
kill -KILL "$pid"
t=0
while kill -0 "$pid" 2>/dev/null && [ $t -lt 50 ]; do sleep 0.1; t=$((t + 1)); done
ns_cluster_restart_ctld
tap_ok $? "slurmctld killed (SIGKILL, no fini) and started again"
j=$(batch 1 2)
ns_wait_job_state "$j" COMPLETED 60
wait_log "nodeshare: learning state: 12 observations from $state (1 of them from its journal)"
tap_ok $? "  log: 12 observations, 1 of them from the journal: nothing lost" ||
    tap_diag "$(grep 'learning state' "$log" | tail -3)"
sed 's/"save_every": 3600/"save_every": 0/' "$NS_CLUSTER_DIR/nodeshare.json" \
    >"$NS_CLUSTER_DIR/nodeshare.json.new" &&
    mv "$NS_CLUSTER_DIR/nodeshare.json.new" "$NS_CLUSTER_DIR/nodeshare.json"
ns_cluster_reconfigure
j=$(batch 1 2)
ns_wait_job_state "$j" COMPLETED 60
wait_observations 14 30
# At least 14 (11 + the journal's + two jobs): more when slurmctld, killed
# before it saved its own job state, runs or ends a job again after the
# restart (24.11 does: the same job id observed twice, two real runs).
t=0
while :; do
    n=$(observations)
    saved=$(grep -o 'learning state saved: [0-9]*' "$log" | tail -n 1 | awk '{ print $4 }')
    [ "$n" -ge 14 ] && [ "$n" = "$saved" ] && break
    [ $t -ge 50 ] && break
    sleep 0.2
    t=$((t + 1))
done
[ "$n" -ge 14 ] && [ "$n" = "$saved" ]
tap_ok $? "  save_every 0 again: the next job end saves all ($n in the state, $saved in memory, 14 or more)"

# A job that ended just before the SIGKILL can be recovered as running
# from slurmctld's older job state while its nodes still hold it (22.05:
# it then stays RUNNING): nothing of it may share the nodes below.
ns_cancel_all 60

# A state that does not load: set aside, never fatal.
echo '{ "version": 1, "node_cores": 24, "observations": [ { "program": 7 } ] }' >"$state"
ns_cluster_restart_ctld
tap_ok $? "slurmctld restarts with a corrupt learning state"
j=$(batch 1 2)
ns_wait_job_state "$j" COMPLETED 60
wait_log "nodeshare: learning state $state does not load (observations[0]: program: expected a name); set aside, learning starts afresh"
tap_ok $? "  log: the state does not load, why, set aside"
ls "$state".corrupt-* >/dev/null 2>&1
tap_ok $? "  the old state is kept beside it as $(basename "$(ls "$state".corrupt-* 2>/dev/null | head -1)")"
wait_observations 1 30
tap_is "$(observations)" 1 "  learning starts afresh: 1 observation"
tap_is "$(sinfo -h -o '%D %t')" "4 idle" "  the cluster runs: 4 idle nodes"

# A learned figure changes a decision.  CP2 has no figures in
# nodeshare.json: a free -n 24 job of it is packed onto one node.  Its
# jobs then run alone on a node for 12 s and, asked as -N 2
# --ntasks-per-node=12, striped for 8 s (three rounds of two alone and one
# striped, which fill the 4 nodes: no co-tenants).  The plugin learns
# spread_speedup 12/8 = 1.5 and from then on stripes a free -n 24 job.
# (Slurm times jobs to the second and a striped job may start a second or
# two later than one alone: 12/10 = 1.2 still stripes, 10/8 could not
# have stood two.)
cp /bin/sleep "$scratch/bin/cp2k_popt" && chmod 755 "$scratch/bin/cp2k_popt"
cat >"$NS_CLUSTER_DIR/nodeshare.json" <<'EOF'
// written by tests/slurm/learn.sh (a learned figure changes a decision)
{
  "policy": "mixed",
  "fallback_after": -1,
  "programs": { "LAM": { "spread_speedup": 1.147 } },
  "identity": { "patterns": [ { "match": "lmp*", "program": "LAM" },
                              { "match": "cp2k*", "program": "CP2" } ] },
  "learn": { "enabled": true, "min_observations": 3, "max_se": 0.2,
             "save_every": 0 }
}
EOF
ns_cluster_reconfigure
tap_ok $? "scontrol reconfigure: CP2 named, without figures"
cp2 () {   # SECONDS SBATCH-ARGS...
    local secs
    secs=$1; shift
    ns_sbatch -D "$work" -o /dev/null -t 5 -J cp2k_popt "$@" \
        --wrap "exec $scratch/bin/cp2k_popt $secs"
}
j=$(cp2 600 -n 24)
ns_wait_job_state "$j" RUNNING 30
tap_is "$(ns_job_field "$j" NumNodes)" 1 "  before learning, a free -n 24 CP2 job is packed onto 1 node"
grep -F "nodeshare: job $j (CP2, 24 cores)" "$log" | grep -q 'placed by cons_tres as stock Slurm would'
tap_ok $? "  log: placed by cons_tres as stock Slurm would"
scancel "$j"
ns_wait_job_state "$j" CANCELLED 30
ns_wait_all_idle 30 >/dev/null
ok=0
for round in 1 2 3; do
    ids="$(cp2 12 -N 1 -n 24) $(cp2 12 -N 1 -n 24) $(cp2 8 -N 2 --ntasks-per-node=12)"
    for j in $ids; do ns_wait_job_state "$j" COMPLETED 60 || ok=1; done
done
tap_ok $ok "  3 rounds: 6 CP2 jobs alone (12 s), 3 striped (8 s)"
wait_observations 10 30
out=$("$learn" --state "$state" --min-observations 3 --max-se 0.2 --table 2>&1)
fig=$(printf '%s\n' "$out" | awk '$1 == "CP2" && $2 == "spread_speedup" { print $3 }')
awk -v f="${fig:-0}" 'BEGIN { exit !(f > 1.15 && f < 1.9) }'
tap_ok $? "  nodeshare-learn --state: CP2 spread_speedup ${fig:-not learned} (12/8 = 1.5 within timing noise)"
[ -n "$fig" ] || tap_diag "$out"
j=$(cp2 600 -n 24)
ns_wait_job_state "$j" RUNNING 30
tap_is "$(ns_job_field "$j" NumNodes)/$(ns_job_field "$j" NumCPUs)" 2/24 \
    "  after learning, a free -n 24 CP2 job is striped over 2 nodes"
grep -F "nodeshare: job $j (CP2, 24 cores)" "$log" | grep -q 'by stripe-empty'
tap_ok $? "  log: by stripe-empty"
scancel "$j"
ns_wait_job_state "$j" CANCELLED 30
ns_wait_all_idle 30 >/dev/null

# "learn": {"explore": true}, the whole cycle.  GMX has no figures; its
# jobs run 12 s on one node and 8 s striped over two (spread_speedup
# 1.5).  A free -n 24 GMX job with nothing waiting is striped to learn
# (the log says exploring); beside it, two GMX jobs asked as -N 1 run
# alone on the two empty nodes (12 s).  After three such rounds the
# plugin has learned the figure: the next free job is striped by it, not
# to explore.
cp /bin/sleep "$scratch/bin/gmx_mdrun" && chmod 755 "$scratch/bin/gmx_mdrun"
cat >"$NS_CLUSTER_DIR/nodeshare.json" <<'EOF'
// written by tests/slurm/learn.sh (explore, learn, stripe)
{
  "policy": "mixed",
  "fallback_after": -1,
  "identity": { "order": ["name"],
                "patterns": [ { "match": "gmx*", "program": "GMX" } ] },
  "learn": { "enabled": true, "explore": true, "min_observations": 3,
             "max_se": 0.2, "save_every": 0 }
}
EOF
ns_cluster_reconfigure
tap_ok $? "scontrol reconfigure: GMX without figures, learn.explore on"
gmx () {   # SBATCH-ARGS...: 12 s on one node, 8 s on more
    ns_sbatch -D "$work" -o /dev/null -t 5 -J gmx_mdrun "$@" \
        --wrap "s=12; [ \${SLURM_JOB_NUM_NODES:-1} -gt 1 ] && s=8; exec $scratch/bin/gmx_mdrun \$s"
}
ok=0 explored=0
before=$(observations)
for round in 1 2 3; do
    e=$(gmx -n 24)
    ns_wait_job_state "$e" RUNNING 30 || ok=1
    [ "$(ns_job_field "$e" NumNodes)/$(ns_job_field "$e" NumCPUs)" = 2/24 ] &&
        grep -F "nodeshare: job $e (GMX, 24 cores)" "$log" | grep -q 'exploring' &&
        explored=$((explored + 1))
    ids="$e $(gmx -N 1 -n 24) $(gmx -N 1 -n 24)"
    for j in $ids; do ns_wait_job_state "$j" COMPLETED 60 || ok=1; done
done
tap_is "$explored" 3 "  3 free -n 24 GMX jobs, nothing waiting: each striped 12 + 12, exploring"
tap_ok $ok "  and 6 GMX jobs asked as -N 1 ran alone beside them (12 s)"
wait_observations $((before + 9)) 30
out=$("$learn" --state "$state" --min-observations 3 --max-se 0.2 --table 2>&1)
fig=$(printf '%s\n' "$out" | awk '$1 == "GMX" && $2 == "spread_speedup" { print $3 }')
awk -v f="${fig:-0}" 'BEGIN { exit !(f > 1.15 && f < 1.9) }'
tap_ok $? "  nodeshare-learn --state: GMX spread_speedup ${fig:-not learned} (12/8 = 1.5 within timing noise)"
[ -n "$fig" ] || tap_diag "$out"
j=$(gmx -n 24)
ns_wait_job_state "$j" RUNNING 30
tap_is "$(ns_job_field "$j" NumNodes)/$(ns_job_field "$j" NumCPUs)" 2/24 \
    "  after learning, a free -n 24 GMX job is striped over 2 nodes"
line=$(grep -F "nodeshare: job $j (GMX, 24 cores)" "$log")
printf '%s\n' "$line" | grep -q 'by stripe-empty' &&
    ! printf '%s\n' "$line" | grep -q 'exploring'
tap_ok $? "  log: by stripe-empty, by the learned figure (not exploring)" ||
    tap_diag "$line"
scancel "$j"

tap_done
