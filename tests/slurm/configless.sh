#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/configless.sh - nodeshare on a configless Slurm cluster (TAP)
#
# 4 nodes x 24 cores, SlurmctldParameters=enable_configless,
# SelectType=select/cons_tres_nodeshare, and every slurmd started as
# `slurmd -N nsI --conf-server 127.0.0.1:PORT`: no -f, no SLURM_CONF in
# its environment, no slurm.conf of its own.  Checks, polling with bounds:
#   fetch       each slurmd registers with the files it fetched into its
#               conf-cache: slurm.conf (the controller's, byte for byte),
#               plugstack.conf and cgroup.conf, but not nodeshare.json
#   striping    a 24-task LAM job is striped 12+12 over 2 nodes, as under
#               a normal configuration
#   SPANK       the SPANK plugin (dry run, synthetic topology of 4 L3 of 6
#               cores) on the nodes: with nodeshare.json only beside the
#               controller's slurm.conf, its cache.default_footprint (5M)
#               is not seen by the steps; a plugstack.conf argument
#               (footprint=3M), shipped by `scontrol reconfigure`, is; and
#               config= pointing at a path that exists on every node makes
#               the steps read that nodeshare.json (5M).  Seen in the
#               --nodeshare-bind=verbose lines of srun's stderr and in the
#               slurmd log
#
# The scenario re-executes itself in a private mount namespace with a
# tmpfs on /run (ns_private_run_enter): configless slurmd authenticates
# through munge's default socket (/run/munge/munge.socket.2) before it
# has slurm.conf, and it links /run/slurm/conf to its conf-cache.
# Skips when not root, without unshare, when the plugins are not built.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
ns_private_run_can_run >/dev/null || tap_skip_all "$(ns_private_run_can_run)"
so=$top_builddir/spank/.libs/nodeshare.so
[ -f "$so" ] || tap_skip_all "spank/nodeshare.so not built (slurm/spank.h missing)"
if grep -q __asan_init "$so" 2>/dev/null; then
    tap_skip_all "nodeshare.so built with sanitizers: Slurm cannot load it"
fi
[ -f "$top_builddir/select/.libs/select_cons_tres_nodeshare.so" ] ||
    tap_skip_all "select plugin not built (configure --with-slurm-source=DIR|auto)"
ns_private_run_enter "$0" "$@" || tap_skip_all "cannot mount a tmpfs on /run in a private mount namespace"
echo "# in a private mount namespace, tmpfs on /run; Slurm $(ns_slurm_version)"

ns_plugin_scenario configless lmp_serial

NS_CLUSTER_DIR=$scratch/cluster
NS_PLUGINDIR=$scratch/plugins
NS_SELECTTYPE=select/cons_tres_nodeshare
# 2 packages x 2 L3 (16 MiB) x 6 cores: the nodes' synthetic topology.
TOPO24=pack:2,l3:2\(size=16MiB\),l2:6\(size=1MiB\),l1d:1\(size=32KiB\),core:1,pu:1
PLUG="required $so dryrun=1 topology=$TOPO24 ledger=$scratch/ledger-%n"
NS_PLUGSTACK=$PLUG
export NS_CLUSTER_DIR NS_PLUGINDIR NS_SELECTTYPE NS_PLUGSTACK
mkdir -p "$NS_CLUSTER_DIR"
ns_twins_config tests/slurm/configless.sh \
    '"cache": { "default_footprint": "5M" },' >"$NS_CLUSTER_DIR/nodeshare.json"

ns_cluster_start_configless 4 24
tap_ok $? "configless cluster of 4 x 24 cores starts (slurmd --conf-server)" || tap_done
d=$NS_CLUSTER_DIR

##
# fetch
##
tap_is "$(sinfo -h -o '%D %t')" "4 idle" "the 4 configless slurmd registered: 4 idle nodes"
ok=0
for i in 1 2 3 4; do
    p=$(cat "$d/slurmd.ns$i.pid")
    tr '\0' ' ' <"/proc/$p/cmdline" | grep -q -- "--conf-server 127.0.0.1:" || ok=1
    tr '\0' '\n' <"/proc/$p/cmdline" | grep -qx -- '-f' && ok=1
    tr '\0' '\n' <"/proc/$p/environ" | grep -q '^SLURM_CONF=' && ok=1
done
tap_ok $ok "each slurmd runs with --conf-server, without -f, without SLURM_CONF" ||
    for i in 1 2 3 4; do
        p=$(cat "$d/slurmd.ns$i.pid")
        tap_diag "ns$i: $(tr '\0' ' ' <"/proc/$p/cmdline")"
    done
cache=$(ns_slurmd_conf_cache ns1)
files=$(find "$cache" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort | tr '\n' ' ')
tap_diag "ns1's conf-cache ($cache): $files"
cmp -s "$cache/slurm.conf" "$d/slurm.conf"
tap_ok $? "ns1's conf-cache holds the controller's slurm.conf"
ok=0
for i in 1 2 3 4; do
    c=$(ns_slurmd_conf_cache "ns$i")
    cmp -s "$c/plugstack.conf" "$d/plugstack.conf" || ok=1
    cmp -s "$c/cgroup.conf" "$d/cgroup.conf" || ok=1
done
tap_ok $ok "every node's conf-cache holds plugstack.conf and cgroup.conf"
ok=0
for i in 1 2 3 4; do
    [ -e "$(ns_slurmd_conf_cache "ns$i")/nodeshare.json" ] && ok=1
done
tap_ok $ok "no node's conf-cache holds nodeshare.json (configless does not ship it)"
grep -q "spank: opening plugin stack $cache/plugstack.conf" "$(ns_cluster_log_slurmd ns1)"
tap_ok $? "slurmd ns1 opens the plugin stack from its conf-cache" ||
    tap_diag "$(grep 'plugin stack' "$(ns_cluster_log_slurmd ns1)" | head -3)"
grep -q "nodeshare: policy twins" "$(ns_cluster_log_ctld)"
tap_ok $? "slurmctld loaded nodeshare.json beside its slurm.conf" ||
    tap_diag "$(grep 'nodeshare' "$(ns_cluster_log_ctld)" | head -5)"

##
# striping
##
a=$(ns_sbatch -o /dev/null -t 10 -n 24 -J lmp_serial \
    --wrap "srun $scratch/bin/lmp_serial 600")
ns_wait_job_state "$a" RUNNING 30
tap_ok $? "LAM job $a (-n 24) runs"
tap_is "$(ns_job_field "$a" NumNodes)/$(ns_job_field "$a" NumCPUs) $(ns_job_cpus_per_node "$a")" \
    "2/24 12 12" "  striped: 2 nodes, 12+12 CPUs ($(ns_job_field "$a" NodeList))"
grep -F "nodeshare: job $a (LAM, 24 cores)" "$(ns_cluster_log_ctld)" | grep -q 'by stripe-empty'
tap_ok $? "  slurmctld log: by stripe-empty"
scancel "$a"
ns_wait_job_state "$a" CANCELLED 30
ns_wait_all_idle 30 >/dev/null

##
# SPANK: what reaches the nodes
##
# step: srun -n 2 -N 1 --nodeshare-bind=verbose; sets $v to the verbose
# lines of its stderr and $job to the step's job id.
step () {
    local out
    # shellcheck disable=SC2016
    out=$(srun -n 2 -N 1 --nodeshare-bind=verbose \
          sh -c 'echo "job=$SLURM_JOB_ID"' 2>"$scratch/err")
    job=$(printf '%s\n' "$out" | sed -n '1s/^job=//p')
    v=$(grep '^nodeshare-bind=verbose' "$scratch/err")
}
# slurmd_says JOB: the plugin's plan line for step 0 of JOB in the slurmd
# logs: "footprint SIZE (SOURCE)".
slurmd_says () {
    cat "$d"/slurmd.ns*.log |
        sed -n "s/.*nodeshare: job $1 step 0 on .*, \(footprint [^ ]* ([^)]*)\), [0-9]* records .*/\1/p" |
        head -n 1
}
# reconfigure_plugstack LINE: the controller's plugstack.conf becomes
# LINE, scontrol reconfigure, until every node's conf-cache has it.
reconfigure_plugstack () {
    local i
    printf '%s\n' "$1" >"$d/plugstack.conf"
    ns_cluster_reconfigure || return 1
    for i in 1 2 3 4; do
        ns_poll 30 cmp -s "$d/plugstack.conf" "$(ns_slurmd_conf_cache "ns$i")/plugstack.conf" ||
            return 1
    done
}

step
tap_like "$v" "^nodeshare-bind=verbose - ns[1-4], task 0 rank 0 \[[0-9]*\]: 0 from core" \
    "plugstack.conf without footprint=: the plugin runs on the node, footprint 0"
tap_is "$(slurmd_says "$job")" "footprint 0 (none)" \
    "  slurmd log: footprint 0 (none): nodeshare.json beside the controller's slurm.conf is not seen"
[ -n "$v" ] || tap_diag "stderr: $(cat "$scratch/err")"

reconfigure_plugstack "$PLUG footprint=3M"
tap_ok $? "plugstack.conf with footprint=3M: scontrol reconfigure ships it to every node's conf-cache"
step
tap_like "$v" "^nodeshare-bind=verbose - ns[1-4], task 0 rank 0 \[[0-9]*\]: 3M from core" \
    "  the step's ranks get 3M (the plugstack.conf argument)"
tap_is "$(slurmd_says "$job")" "footprint 3M (plugstack)" "  slurmd log: footprint 3M (plugstack)"

reconfigure_plugstack "$PLUG config=$d/nodeshare.json"
tap_ok $? "plugstack.conf with config=$d/nodeshare.json (a path every node has here)"
step
tap_like "$v" "^nodeshare-bind=verbose - ns[1-4], task 0 rank 0 \[[0-9]*\]: 5M from core" \
    "  the step's ranks get nodeshare.json's default_footprint, 5M"
tap_is "$(slurmd_says "$job")" "footprint 5M (nodeshare.json)" "  slurmd log: footprint 5M (nodeshare.json)"

a=$(ns_sbatch -o /dev/null -t 10 -n 24 -J lmp_serial \
    --wrap "srun $scratch/bin/lmp_serial 600")
ns_wait_job_state "$a" RUNNING 30
tap_is "$(ns_job_field "$a" NumNodes)/$(ns_job_field "$a" NumCPUs) $(ns_job_cpus_per_node "$a")" \
    "2/24 12 12" "after the reconfigures, LAM job $a is still striped 12+12"
scancel "$a"

tap_done
