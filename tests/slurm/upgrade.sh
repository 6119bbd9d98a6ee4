#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/upgrade.sh - a Slurm micro upgrade under a running cluster,
# as a site that builds Slurm from source runs it (TAP)
#
# Changes the system it runs on (make install of nodeshare and of two
# Slurm releases), so it runs only where NS_UPGRADE_FROM and NS_UPGRADE_TO
# name two configured, built Slurm trees and the installed Slurm is
# NS_UPGRADE_FROM's: .ci/upgrade runs it in a throw-away copy (overlay) of
# a root whose Slurm was built from 26.05.2, with 26.05.3's tree beside it.
# Elsewhere it skips.
#
#   install    nodeshare installed by `make install` (its build tree is
#              $top_builddir, configured against NS_UPGRADE_FROM); the
#              systemd drop-in's ExecStartPre is run before every start of
#              slurmctld, as systemd runs it
#   before     4 x 24 cores, learning on: a long job striped, short jobs
#              become observations
#   ahead      nodeshare-rebuild build --slurm-source NS_UPGRADE_TO while
#              the old release runs
#   upgrade    make install of the new Slurm; slurmctld and slurmd
#              restarted: the plugin for the new release is in place,
#              the long job keeps running on its nodes, every observation
#              is still there, a new job is striped and learned from
#   no build   back to the old release with its build removed from the
#              store: slurmctld starts all the same (stock cons_tres under
#              nodeshare's name, a job placed as stock), the long job runs
#   rebuilt    nodeshare-rebuild build + restart: striping again, nothing
#              learned is lost

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
from=${NS_UPGRADE_FROM:-}
to=${NS_UPGRADE_TO:-}
[ -n "$from" ] && [ -n "$to" ] ||
    tap_skip_all "NS_UPGRADE_FROM and NS_UPGRADE_TO not set (this test installs Slurm: .ci/upgrade runs it in a root of its own)"
tree_version () {
    sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"$/\1/p' "$1/config.h" 2>/dev/null
}
vfrom=$(tree_version "$from")
vto=$(tree_version "$to")
[ -n "$vfrom" ] && [ -n "$vto" ] || tap_skip_all "$from or $to: not a configured Slurm tree"
[ "$(ns_slurm_version)" = "$vfrom" ] ||
    tap_skip_all "installed Slurm $(ns_slurm_version) is not $vfrom ($from)"
[ -f "$top_builddir/select/.libs/select_cons_tres_nodeshare.so" ] ||
    tap_skip_all "select plugin not built"
_ns_path

scratch=$(mktemp -d /tmp/nsupgrade.XXXXXX) || exit 1
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
mkdir -p "$scratch/bin"
cp /bin/sleep "$scratch/bin/lmp_serial" && chmod 755 "$scratch/bin/lmp_serial" || exit 1

# 1. nodeshare installed as a site installs it.
make -C "$top_builddir" install >"$scratch/install.log" 2>&1
tap_ok $? "make install of nodeshare (built for Slurm $vfrom)" ||
    { tap_diag "$(tail -n 20 "$scratch/install.log")"; tap_done; }
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
unitdir=$(sed -n 's/^SYSTEMD_SYSTEM_UNIT_DIR = //p' "$top_builddir/Makefile" | sed "s|\${prefix}|$prefix|")
dropin=$unitdir/slurmctld.service.d/nodeshare.conf
rebuild=$(sed -n 's/^sbindir = //p' "$top_builddir/Makefile" | sed "s|\${exec_prefix}|$prefix|")/nodeshare-rebuild
prestart=$(sed -n 's/^ExecStartPre=-\{0,1\}//p' "$dropin" 2>/dev/null)
tap_like "$prestart" "^$rebuild activate" "  $dropin runs nodeshare-rebuild activate before slurmctld"
[ -x "$rebuild" ] || tap_done

# unit_start: what systemd does when slurmctld starts: ExecStartPre (its
# output kept, a failure does not stop the start: the line begins with
# '-'), then slurmctld.
unit_prestart () {
    # shellcheck disable=SC2086
    $prestart >"$scratch/prestart.out" 2>&1
}
restart_all () {   # slurmctld, then every slurmd (running jobs stay)
    local i
    mark=$(_ns_lines "$log")
    unit_prestart
    ns_cluster_restart_ctld || return 1
    _ns_stop_pidfiles "$NS_CLUSTER_DIR"/slurmd.*.pid
    i=1
    while [ $i -le 4 ]; do
        _ns_start_slurmd "ns$i" || return 1
        i=$((i + 1))
    done
    ns_wait_nodes_up 60
}

NS_CLUSTER_DIR=$scratch/cluster
NS_SELECTTYPE=select/cons_tres_nodeshare
NS_SLURM_CONF_EXTRA="SchedulerParameters=batch_sched_delay=0,bf_interval=1"
export NS_CLUSTER_DIR NS_SELECTTYPE NS_SLURM_CONF_EXTRA
mkdir -p "$NS_CLUSTER_DIR"
cat >"$NS_CLUSTER_DIR/nodeshare.json" <<'EOF'
// written by tests/slurm/upgrade.sh
{
  "policy": "mixed",
  "fallback_after": -1,
  "programs": { "LAM": { "spread_speedup": 1.5 } },
  "identity": { "patterns": [ { "match": "lmp*", "program": "LAM" } ] },
  "learn": { "enabled": true, "min_observations": 100, "save_every": 0 }
}
EOF
state=$NS_CLUSTER_DIR/state/nodeshare-learn.json
log=$NS_CLUSTER_DIR/slurmctld.log
observations () {
    [ -f "$state" ] || { echo 0; return; }
    grep -o '"program"' "$state" | wc -l | tr -d ' '
}
wait_observations () {   # N: until the state holds at least N (60 s)
    ns_poll 60 sh -c "[ \$(grep -o '\"program\"' '$state' 2>/dev/null | wc -l) -ge $1 ]"
}
job24 () {   # SECONDS -> job id: 24 tasks of the LAM program
    ns_sbatch -o /dev/null -t 30 -n 24 -J lmp_serial \
        --wrap "exec $scratch/bin/lmp_serial $1"
}
short_jobs () {   # N: N jobs of 24 tasks, 2 s each, to completion
    local i j
    i=0
    while [ $i -lt "$1" ]; do
        j=$(job24 2) && ns_wait_job_state "$j" COMPLETED 60 || return 1
        i=$((i + 1))
    done
}
ctld_version () {   # the release of the last slurmctld started
    sed -n 's/.*slurmctld version \([0-9][0-9.]*\) started.*/\1/p' "$log" | tail -n 1
}

# 2. Before: Slurm $vfrom, the unit's ExecStartPre, then the cluster.
unit_prestart
tap_is "$?" 0 "ExecStartPre on Slurm $vfrom" || tap_diag "$(cat "$scratch/prestart.out")"
"$rebuild" status >"$scratch/status.out" 2>&1
tap_ok $? "  nodeshare-rebuild status: the plugin in place is for $vfrom" ||
    tap_diag "$(cat "$scratch/status.out")"
ns_cluster_start 4 24
tap_ok $? "cluster of 4 x 24 cores on Slurm $vfrom, select/cons_tres_nodeshare" || tap_done
long=$(job24 900)
ns_wait_job_state "$long" RUNNING 30
tap_is "$(ns_job_field "$long" NumNodes)" 2 "  long job $long of 24 tasks striped over 2 nodes"
long_nodes=$(ns_job_field "$long" NodeList)
long_start=$(ns_job_field "$long" StartTime)
short_jobs 3
tap_ok $? "  3 short jobs completed"
wait_observations 3
n1=$(observations)
tap_ok $([ "$n1" -ge 3 ]; echo $?) "  $n1 observations in the learning state"

# 3. Ahead of the upgrade: a build for $vto, while $vfrom runs.
"$rebuild" build --slurm-source "$to" >"$scratch/build-ahead.out" 2>&1
tap_ok $? "nodeshare-rebuild build --slurm-source $to (Slurm $vto) ahead of the upgrade" ||
    tap_diag "$(tail -n 20 "$scratch/build-ahead.out")"
"$rebuild" status >"$scratch/status.out" 2>&1
tap_like "$(cat "$scratch/status.out")" "in the store: +Slurm $vto" "  the store holds the build for $vto"

# 4. The upgrade: make install of Slurm $vto over $vfrom, restart.
make -C "$to" install >"$scratch/slurm-install.log" 2>&1
tap_ok $? "make install of Slurm $vto over $vfrom" ||
    tap_diag "$(tail -n 20 "$scratch/slurm-install.log")"
tap_is "$(ns_slurm_version)" "$vto" "  installed Slurm: $vto"
restart_all
tap_ok $? "slurmctld and slurmd restart on $vto (after ExecStartPre)" ||
    { tap_diag "$(cat "$scratch/prestart.out")"; ns_cluster_dump; }
tap_is "$(ctld_version)" "$vto" "  slurmctld log: version $vto started"
"$rebuild" status >"$scratch/status.out" 2>&1
tap_ok $? "  the plugin in place is for $vto" || tap_diag "$(cat "$scratch/status.out")"
# nodeshare's plugin logs its configuration as it starts; stock does not.
loaded () { tail -n +"$((mark + 1))" "$log" | grep -c "nodeshare: policy mixed, .*($NS_CLUSTER_DIR/nodeshare.json)"; }
tap_is "$(loaded)" 1 "  log: nodeshare's plugin started with its configuration"
tap_is "$(ns_job_field "$long" JobState) $(ns_job_field "$long" NodeList) $(ns_job_field "$long" StartTime)" \
    "RUNNING $long_nodes $long_start" "  job $long still running on $long_nodes since $long_start"
n=$(observations)
tap_ok $([ "$n" -ge "$n1" ]; echo $?) "  $n observations after the upgrade, $n1 before: none lost"
j=$(job24 60)
ns_wait_job_state "$j" RUNNING 30
tap_is "$(ns_job_field "$j" NumNodes)" 2 "  a new job of 24 tasks striped over 2 nodes on $vto"
scancel "$j"
ns_wait_job_state "$j" CANCELLED 30
short_jobs 1
wait_observations $((n + 1))
tap_ok $? "  learning goes on: $(observations) observations"
n2=$(observations)

# 5. Back to $vfrom without a build for it: slurmctld starts at the floor.
rm -rf "$(sed -n 's/^in the store: *Slurm '"$vfrom"' (\(.*\))$/\1/p' "$scratch/status.out")"
"$rebuild" status >"$scratch/status.out" 2>&1
tap_unlike () { case $1 in *"$2"*) tap_ok 1 "$3" ;; *) tap_ok 0 "$3" ;; esac; }
tap_unlike "$(cat "$scratch/status.out")" "Slurm $vfrom (" "no build for $vfrom left in the store"
make -C "$from" install >"$scratch/slurm-install.log" 2>&1
tap_ok $? "make install of Slurm $vfrom (a site going back)"
restart_all
tap_ok $? "slurmctld and slurmd restart on $vfrom with no nodeshare build for it" ||
    { tap_diag "$(cat "$scratch/prestart.out")"; ns_cluster_dump; }
tap_like "$(cat "$scratch/prestart.out")" "no nodeshare build for Slurm $vfrom.*stock select/cons_tres" \
    "  ExecStartPre says the jobs are placed as stock, and how to build"
tap_like "$("$rebuild" status 2>&1)" "stock cons_tres under nodeshare's name" \
    "  nodeshare-rebuild status: stock cons_tres in place"
tap_is "$(loaded)" 0 "  log: stock cons_tres started (no nodeshare configuration line)"
tap_is "$(ns_job_field "$long" JobState) $(ns_job_field "$long" NodeList)" \
    "RUNNING $long_nodes" "  job $long still running on $long_nodes"
j=$(job24 60)
ns_wait_job_state "$j" RUNNING 30
tap_is "$(ns_job_field "$j" NumNodes)" 1 "  a job of 24 tasks placed as stock (1 node)"
scancel "$j"
ns_wait_job_state "$j" CANCELLED 30

# 6. Rebuilt for $vfrom: nodeshare places jobs again, nothing lost.
"$rebuild" build --slurm-source "$from" >"$scratch/build.out" 2>&1
tap_ok $? "nodeshare-rebuild build --slurm-source $from" ||
    tap_diag "$(tail -n 20 "$scratch/build.out")"
restart_all
tap_ok $? "slurmctld and slurmd restart"
"$rebuild" status >"$scratch/status.out" 2>&1
tap_ok $? "  the plugin in place is for $vfrom" || tap_diag "$(cat "$scratch/status.out")"
tap_is "$(loaded)" 1 "  log: nodeshare's plugin started with its configuration"
n=$(observations)
tap_ok $([ "$n" -ge "$n2" ]; echo $?) "  $n observations, $n2 before: none lost"
j=$(job24 60)
ns_wait_job_state "$j" RUNNING 30
tap_is "$(ns_job_field "$j" NumNodes)" 2 "  a job of 24 tasks striped again"
tap_is "$(ns_job_field "$long" JobState) $(ns_job_field "$long" NodeList) $(ns_job_field "$long" Restarts)" \
    "RUNNING $long_nodes 0" "  job $long ran through both upgrades, never requeued"
tap_done
