#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/smoke.sh - a real Slurm cluster on this machine works (TAP)
#
# Starts 4 nodes x 24 cores (stock select/cons_tres) with tests/slurm/lib.sh,
# runs batch jobs and srun steps through it, and stops it.  First it checks
# that lib.sh's slurm.conf for 600 nodes gives every daemon its own port
# (nothing started).  Skips when not root or when Slurm/munge are not
# installed.  Env: see lib.sh
# (NS_CLUSTER_KEEP=1 keeps the cluster directory).

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"

trap 'ns_cluster_stop' EXIT
trap 'exit 1' INT TERM HUP

# Every daemon gets a port of its own, also in a large cluster: before,
# two of 200 nodes often got the same one (nothing is started here; with
# 600 nodes a port handed out twice would be all but certain).
ports=$(mktemp -d /tmp/nsports.XXXXXX) || exit 1
dup=$(NS_CLUSTER_DIR=$ports && _ns_write_conf 600 24 &&
      grep -o 'Port=[0-9]*' "$ports/slurm.conf" | sort | uniq -d | tr '\n' ' ')
tap_is "$dup" "" "slurm.conf of 600 nodes: no port twice"
tap_is "$(grep -c '^NodeName=.* Port=[0-9]' "$ports/slurm.conf")" 600 \
    "slurm.conf of 600 nodes: 600 NodeName lines with a port"
rm -rf "$ports"

ns_cluster_start 4 24
tap_ok $? "cluster of 4 nodes x 24 cores starts" || tap_done
work=$NS_CLUSTER_DIR/work

# sinfo / scontrol show node: 24 CPUs per node on a machine with fewer.
tap_is "$(sinfo -h -N -o '%N %c %t' | sort | tr '\n' ' ')" \
    "ns1 24 idle ns2 24 idle ns3 24 idle ns4 24 idle " \
    "sinfo: 4 idle nodes of 24 CPUs (config_overrides)"
tap_like "$(scontrol show node ns3)" "CPUTot=24 .*" "scontrol show node ns3: CPUTot=24"

# A 24-task batch job whose step runs 24 ranks.
id=$(ns_sbatch -D "$work" -o "$work/%j.out" -n 24 --wrap 'srun hostname')
tap_like "$id" '^[0-9]+$' "sbatch -n 24 returns a job id"
ns_wait_job_state "$id" COMPLETED 30
tap_ok $? "job $id (sbatch -n 24 --wrap 'srun hostname') completes"
tap_is "$(wc -l <"$work/$id.out" | tr -d ' ')" 24 "its srun ran 24 ranks"
tap_is "$(ns_job_field "$id" NumCPUs)/$(ns_job_field "$id" NumNodes)" "24/1" \
    "cons_tres packs it: NumCPUs=24 on NumNodes=1"
tap_like "$(ns_job_nodes_cpus "$id")" '^ns[1-4] 0-23$' \
    "scontrol show job -d: CPU_IDs=0-23 on one node"
tap_is "$(ns_job_field "$id" ExitCode)" "0:0" "ExitCode=0:0"
tap_is "$(ns_job_field "$id" NoSuchField)" "" "ns_job_field of an absent field is empty"

# Interactive steps.
srun -n 2 true
tap_ok $? "srun -n 2 true"
out=$(srun -N 4 -n 96 hostname 2>"$work/srun96.err")
tap_is "$(printf '%s\n' "$out" | grep -c .)" 96 "srun -N 4 -n 96 runs 96 ranks on 4 nodes" ||
    tap_diag "$(cat "$work/srun96.err")"

# squeue / scancel on running jobs; two full-node jobs get two nodes.
a=$(ns_sbatch -D "$work" -o /dev/null -n 24 --wrap 'sleep 300')
b=$(ns_sbatch -D "$work" -o /dev/null -n 24 --wrap 'sleep 300')
ns_wait_job_state "$a" RUNNING 20
tap_ok $? "job $a runs"
ns_wait_job_state "$b" RUNNING 20
tap_ok $? "job $b runs"
tap_is "$(squeue -h -j "$a,$b" -o '%T' | tr '\n' ' ')" "RUNNING RUNNING " \
    "squeue shows both RUNNING"
na=$(ns_job_field "$a" NodeList) nb=$(ns_job_field "$b" NodeList)
test -n "$na" && test "$na" != "$nb"
tap_ok $? "they run on different nodes ($na, $nb)"
tap_is "$(sinfo -h -o '%D %t' -t alloc)" "2 alloc" "sinfo: 2 nodes allocated"

# The controller restarts on its state; running jobs survive.
ns_cluster_restart_ctld
tap_ok $? "ns_cluster_restart_ctld"
tap_is "$(ns_job_field "$a" JobState)" RUNNING "job $a still RUNNING after the restart"
ns_cluster_reconfigure
tap_ok $? "ns_cluster_reconfigure"

scancel "$a" "$b"
ns_wait_job_state "$a" CANCELLED 20
tap_ok $? "scancel: job $a CANCELLED"
ns_wait_all_idle 30
tap_ok $? "all nodes idle again"

# Stop: every daemon it started exits.
pids=$(cat "$NS_CLUSTER_DIR"/*.pid)
ns_cluster_stop
alive=""
for p in $pids; do
    _ns_pid_alive "$p" && alive="$alive $p"
done
tap_is "$alive" "" "ns_cluster_stop ended all $(echo $pids | wc -w) daemons"
tap_done
