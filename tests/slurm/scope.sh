#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/scope.sh - where nodeshare acts and what it leaves as stock:
# partitions, nodes with GRES, jobs that cannot be requeued; and what it
# says of each job afterwards: AdminComment, nodeshare-why, the metrics
# file (TAP)
#
# A 4 x 24-core loopback cluster: ns1 and ns2 have Gres=gpu:2 (gres.conf
# "Name=gpu File=DIR/gpu[0-1]", character devices of /dev/null's numbers:
# no GPU needed), ns3 and ns4 none; partitions
# "debug" (default) and "other", both over all nodes.  nodeshare.json:
# policy twins with the study's LAM figures, "partitions": ["debug"],
# "metrics_file".  The same phases run under stock select/cons_tres and
# under select/cons_tres_nodeshare, each on an idle cluster:
#   out      LAM, 24 tasks, -p other      stock's nodes and CPU ids
#   stripe   LAM, 24 tasks                striped 12+12 over ns3 and ns4,
#                                         never onto the GRES nodes
#   norequeue LAM, 24 tasks, --no-requeue stock's nodes and CPU ids
#   gres     LAM, 8 tasks, --gres=gpu:2   stock's nodes and CPU ids
#   full     ns3, ns4 held by -w jobs, then LAM, 24 tasks: starts at once
#            where stock starts it (the floor: no stripe onto GRES nodes,
#            packed instead)
# Then: the decisions in the log, AdminComment kept beside a site's own
# words, nodeshare-why for a finished job, the metrics file (Prometheus
# text; its counters equal the decisions logged), and, after
# "stripe_gres_nodes": true and a reconfigure, the "full" phase striped
# over ns1 and ns2.  Skips like tests/slurm/select.sh.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
ns_plugin_scenario scope lmp_serial cp2k_popt

NS_SLURM_CONF_EXTRA="GresTypes=gpu
PartitionName=other Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=NO"
NS_NODE_CONF_1="CPUs=24 Sockets=2 CoresPerSocket=12 ThreadsPerCore=1 RealMemory=8000 Gres=gpu:2"
NS_NODE_CONF_2=$NS_NODE_CONF_1
export NS_SLURM_CONF_EXTRA NS_NODE_CONF_1 NS_NODE_CONF_2

config () {   # EXTRA
    ns_twins_config tests/slurm/scope.sh \
        "\"partitions\": [\"debug\"], \"metrics_file\": \"$NS_CLUSTER_DIR/state/nodeshare.prom\", $1"
}

sub () {   # SBATCH ARGS (LAM, 300 s at most)
    ns_sbatch -o /dev/null -t 5 -J lmp_serial "$@" \
        --wrap "exec $scratch/bin/lmp_serial 300"
}

# phase SIDE NAME SBATCH-ARGS: submit, wait until it runs, record its
# nodes and CPU ids in $scratch/SIDE.NAME, print the job id.
phase () {
    local side name j
    side=$1 name=$2; shift 2
    j=$(sub "$@")
    if ! ns_poll 30 ns_all_state RUNNING $j; then
        echo "#   [$side] $name: job $j: $(ns_job_field "$j" JobState) $(ns_job_field "$j" Reason)" >&2
    fi
    ns_job_nodes_cpus "$j" | tr '\n' ' ' >"$scratch/$side.$name"
    echo "$j"
}

done_phase () {   # JOBID...
    scancel "$@"
    ns_wait_all_idle 60
}

start_side () {   # SIDE
    NS_CLUSTER_DIR=$scratch/$1
    export NS_CLUSTER_DIR
    mkdir -p "$NS_CLUSTER_DIR"
    # gres/gpu drops GPUs without device files ("file-less GPU"): two
    # character devices of /dev/null's numbers stand in for them.
    mknod "$NS_CLUSTER_DIR/gpu0" c 1 3 && mknod "$NS_CLUSTER_DIR/gpu1" c 1 3
    printf '%s\n' "NodeName=ns[1-2] Name=gpu File=$NS_CLUSTER_DIR/gpu[0-1]" \
        >"$NS_CLUSTER_DIR/gres.conf"
    if [ "$1" = nodeshare ]; then
        NS_PLUGINDIR=$scratch/plugins
        NS_SELECTTYPE=select/cons_tres_nodeshare
        export NS_PLUGINDIR
        config '' >"$NS_CLUSTER_DIR/nodeshare.json"
    else
        unset NS_PLUGINDIR
        NS_SELECTTYPE=select/cons_tres
    fi
    export NS_SELECTTYPE
    ns_cluster_start 4 24
    tap_ok $? "[$1] cluster of 4 x 24 cores (ns1, ns2 with gpu:2) starts"
}

# The phases; job ids into $scratch/SIDE.ids (name=id lines).
run_phases () {   # SIDE
    local s j f1 f2
    s=$1
    : >"$scratch/$s.ids"
    j=$(phase "$s" out -n 24 -p other); echo "out=$j" >>"$scratch/$s.ids"
    done_phase "$j"
    j=$(phase "$s" stripe -n 24); echo "stripe=$j" >>"$scratch/$s.ids"
    done_phase "$j"
    j=$(phase "$s" norequeue -n 24 --no-requeue)
    echo "norequeue=$j" >>"$scratch/$s.ids"
    done_phase "$j"
    j=$(phase "$s" gres -n 8 --gres=gpu:2); echo "gres=$j" >>"$scratch/$s.ids"
    done_phase "$j"
    f1=$(phase "$s" f1 -n 24 -w ns3)
    f2=$(phase "$s" f2 -n 24 -w ns4)
    j=$(phase "$s" full -n 24); echo "full=$j" >>"$scratch/$s.ids"
    echo "f1=$f1" >>"$scratch/$s.ids"
    done_phase "$j" "$f1" "$f2"
    for f in out stripe norequeue gres full; do
        echo "#   [$s] $f: $(cat "$scratch/$s.$f")"
    done
}

id_of () {   # SIDE NAME
    sed -n "s/^$2=//p" "$scratch/$1.ids"
}

start_side stock || tap_done
run_phases stock
ns_cluster_stop

start_side nodeshare || tap_done
log=$(ns_cluster_log_ctld)
prom=$NS_CLUSTER_DIR/state/nodeshare.prom
tap_like "$(grep 'nodeshare: policy twins' "$log" | head -n 1)" \
    'partitions debug, ' "log: the configuration line names the scope (partitions debug)"
run_phases nodeshare

for f in out norequeue gres full; do
    tap_is "$(cat "$scratch/nodeshare.$f")" "$(cat "$scratch/stock.$f")" \
        "$f: nodes and CPU ids are those stock cons_tres chose"
done
s=$(id_of nodeshare stripe)
# The plugin gives a stripe that starts now its exact cores, half of them
# on each socket (stock cons_tres, asked for 12 tasks per node, gives
# 0-5,12-17 on 22.05 but the first twelve, one socket, from 24.11): the
# same cores on every release.
half='0-5,12-17'
tap_like "$(cat "$scratch/nodeshare.stripe")" "^ns\[3-4\] $half \$" \
    "stripe: 12 + 12 cores over ns3 and ns4, not onto the GRES nodes ns1, ns2"
tap_like "$(cat "$scratch/stock.stripe")" '^ns[0-9] 0-23 $' \
    "  (stock: one node)"

# The decisions, as logged.
o=$(id_of nodeshare out) n=$(id_of nodeshare norequeue) g=$(id_of nodeshare gres)
full=$(id_of nodeshare full)
tap_like "$(grep "nodeshare: job $o " "$log")" \
    "placed by cons_tres as stock Slurm would \(pack: outside nodeshare's scope\)" \
    "log: job $o (partition other) placed as stock: outside nodeshare's scope"
tap_like "$(grep "nodeshare: job $n " "$log")" \
    "placed by cons_tres as stock Slurm would \(pack: cannot be requeued\)" \
    "log: job $n (--no-requeue) placed as stock: cannot be requeued"
tap_like "$(grep "nodeshare: JobId=$g " "$log")" \
    "asks for generic resources: cons_tres places it as asked" \
    "log: job $g (--gres) left to cons_tres"
tap_like "$(grep "nodeshare: job $full " "$log")" \
    "placed by cons_tres as stock Slurm would \(fallback\)" \
    "log: job $full (only GRES nodes free) packed by the fallback, at once"
grep "nodeshare: \(job\|JobId=\)" "$log" | sed 's/.*nodeshare: /#   /'

# What it says afterwards: AdminComment and nodeshare-why (finished jobs).
tap_like "$(squeue -h -t all -j "$s" -O admin_comment:1000)" \
    "^\[nodeshare\] job $s \(LAM, 24 cores\) \[twins\]: .*-> ns\[3-4\]" \
    "AdminComment of the striped job $s: [nodeshare] and its decision"
why=$("$top_builddir/cmd/nodeshare-why" "$s" 2>&1)
tap_like "$why" "^$s (CANCELLED|COMPLETED) .*nodeshare: job $s \(LAM, 24 cores\).* by stripe-empty; refused GRES 2 nodes \(ns1 ns2\).*depends on all of its nodes" \
    "nodeshare-why $s (ended): the decision, and that a stripe depends on its nodes"
tap_diag "$why"
why=$("$top_builddir/cmd/nodeshare-why" "$o" 2>&1)
tap_like "$why" "^$o (CANCELLED|COMPLETED) .*nodeshare: .*outside nodeshare's scope" \
    "nodeshare-why $o (ended): outside nodeshare's scope"
# A site's own words (job_submit, or an operator) stay.
j=$(sub -n 24 -H)
scontrol update jobid="$j" admincomment="site: checked"
scontrol release "$j"
ns_poll 30 ns_all_state RUNNING "$j"
tap_like "$(squeue -h -t all -j "$j" -O admin_comment:1000)" \
    "^site: checked \| \[nodeshare\] job $j " \
    "AdminComment: a site's own words stay, nodeshare's after them"
done_phase "$j"

# The metrics file.  Its thread rewrites it within 2 s of a change
# (select/nsstats.c); read at once it may predate the last decisions
# (every phase starts its job within a second).  Wait until it counts
# the 8 jobs started so far: out, stripe, norequeue, gres, the two -w
# jobs, full, and the one with a site's AdminComment.
started () {
    awk 'index($0, "nodeshare_decisions_total{mode=\"normal\"") == 1 { n += $NF }
         END { print n + 0 }' "$prom" 2>/dev/null
}
all_counted () { [ "$(started)" = 8 ]; }
ns_poll 20 all_counted
tap_is "$(started)" 8 "metrics: 8 jobs started so far"
tap_is "$(stat -c %a "$prom" 2>/dev/null)" 644 "metrics file $prom, mode 0644"
sed 's/^/#   /' "$prom"
# Debian's python3 (python3-prometheus-client), not another in PATH.
if /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
    parsed=$(/usr/bin/python3 - "$prom" <<'EOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
n = 0
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in fam.samples:
        n += 1
print("samples", n)
EOF
)
    tap_like "$parsed" '^samples [1-9][0-9]*$' \
        "the metrics file parses as Prometheus text (prometheus_client): $parsed"
else
    # No parser installed here: the exposition grammar, line by line.
    bad=$(grep -Ev '^(# (HELP|TYPE) [a-z_]+ .+|[a-z_]+(\{([a-z_]+="[^"\\]*",?)+\})? [0-9.e+-]+)$' "$prom")
    tap_is "$bad" "" "the metrics file follows the Prometheus text grammar (no prometheus_client here)"
fi
count () {   # KIND REASON
    awk -v k="$1" -v r="$2" '
        index($0, "nodeshare_decisions_total{mode=\"normal\",kind=\"" k "\",reason=\"" r "\"} ") == 1 { print $NF }' "$prom"
}
# Every job started so far: out, stripe, norequeue, gres, f1, f2, full,
# and the AdminComment job (stripe).
tap_is "$(count pack "outside nodeshare's scope")" \
    "$(grep -c "nodeshare: job .*(pack: outside nodeshare's scope)" "$log")" \
    "metrics: pack, outside nodeshare's scope = the log's count (1)"
tap_is "$(count pack "cannot be requeued")" \
    "$(grep -c "nodeshare: job .*(pack: cannot be requeued)" "$log")" \
    "metrics: pack, cannot be requeued = the log's count (1)"
tap_is "$(count stock "generic resources")" \
    "$(grep -c "nodeshare: JobId=.* asks for generic resources" "$log")" \
    "metrics: stock, generic resources = the log's count (1)"
tap_is "$(count stripe stripe-empty)" \
    "$(grep -c "nodeshare: job .* -> ns\[" "$log")" \
    "metrics: stripe, stripe-empty = the log's striped jobs (2)"
tap_is "$(count as-asked --nodelist)" 2 "metrics: as-asked, --nodelist = 2 (the -w jobs)"
tap_is "$(count pack fallback)" 1 "metrics: pack, fallback = 1"

# "stripe_gres_nodes": true: the full phase is striped over ns1 and ns2.
config '"stripe_gres_nodes": true,' >"$NS_CLUSTER_DIR/nodeshare.json"
ns_cluster_reconfigure
tap_ok $? "reconfigure with \"stripe_gres_nodes\": true"
f1=$(phase nodeshare f1 -n 24 -w ns3)
f2=$(phase nodeshare f2 -n 24 -w ns4)
j=$(phase nodeshare gresok -n 24)
tap_like "$(cat "$scratch/nodeshare.gresok")" "^ns\[1-2\] $half \$" \
    "stripe_gres_nodes: LAM 24 tasks striped 12 + 12 over ns1 and ns2"
done_phase "$j" "$f1" "$f2"

# "learn": {"explore": true}: a job of a program without a figure (CP2K)
# is striped alone when no job waits that could use the nodes, and
# packed as stock when one does.
config '"learn": { "enabled": true, "explore": true },' \
    >"$NS_CLUSTER_DIR/nodeshare.json"
ns_cluster_reconfigure
tap_ok $? "reconfigure with \"learn\": {\"enabled\": true, \"explore\": true}"
j=$(ns_sbatch -o /dev/null -t 5 -J cp2k_popt -n 24 \
        --wrap "exec $scratch/bin/cp2k_popt 300")
ns_poll 30 ns_all_state RUNNING "$j"
tap_is "$(ns_job_cpus_per_node "$j" | tr '\n' ' ')" "12 12 " \
    "explore: CP2K (no figure), nothing waiting: striped 12 + 12"
tap_like "$(grep "nodeshare: job $j " "$log")" \
    "by stripe-empty.*\(exploring: no spread_speedup for its program, and no waiting job could use these nodes\)" \
    "  log: exploring"
f1=$(phase nodeshare f1 -n 24 -w ns1)
# The waiting job's lower priority set as an operator does (--priority):
# --nice=10000 lowered it under priority/basic, Slurm's default on
# 22.05.8, but on 24.11.5, 25.11.7 and 26.05.3 the default is
# priority/multifactor (read_config.h), whose weights are all 0 here:
# every job has priority 1 whatever its nice, the 96-task job, submitted
# first, goes first and the CP2K job waits behind it (seen on 26.05.3).
big=$(ns_sbatch -o /dev/null -t 5 -J lmp_serial -n 96 --priority=1 --wrap "exec $scratch/bin/lmp_serial 300")
ns_poll 30 sh -c "squeue -h -j $big -o %r | grep -q Resources"
j2=$(ns_sbatch -o /dev/null -t 5 -J cp2k_popt -n 24 --priority=100 \
        --wrap "exec $scratch/bin/cp2k_popt 300")
ns_poll 30 ns_all_state RUNNING "$j2"
tap_is "$(ns_job_cpus_per_node "$j2" | tr '\n' ' ')" "24 " \
    "explore: a job waits (96 tasks, Resources, lower priority): the next CP2K job is packed (24)"
tap_like "$(grep "nodeshare: job $j2 " "$log")" "\(pack: no predicted gain\)" \
    "  log: pack, no predicted gain"
done_phase "$j" "$j2" "$f1" "$big"

ns_cluster_stop
tap_done
