#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/nodes.sh - node attributes and node states: never worse
# than stock cons_tres (TAP)
#
# The same job streams on 4-node loopback clusters (64000 MB per node,
# SelectTypeParameters=CR_Core_Memory, DefMemPerCPU=100) under stock
# select/cons_tres and under select/cons_tres_nodeshare (policy twins, the
# study's figures, as tests/slurm/limits.sh).  Each row records, after a
# bounded poll, which jobs run and where; a point per job that runs under
# stock: it runs under nodeshare too; then a point or two per row on
# where nodeshare may run it.  Node attributes come from lib.sh's
# NS_NODE_CONF_<I>; one cluster per node configuration:
#   plain (4 x 24 cores, 2 sockets, ns2 and ns4 Features=fast):
#     resv        two reservations hold 20 of the 24 cores of ns1 and of
#                 ns2, then a 24-task job outside them: runs, on no
#                 reserved core
#     drained     ns1 drained, three 24-task jobs: all run, none on ns1
#     down        a 24-task LAM job (nodeshare stripes it over 2 nodes),
#                 then its first node DOWN and a new 24-task job: the
#                 first job leaves RUNNING as under stock (requeued,
#                 PENDING), the new one runs, not on the DOWN node
#                 (ReturnToService=1: it stays DOWN until resumed)
#     constraint  -C fast -n 24: runs, only on ns2/ns4
#     mem0        four 24-task LAM jobs with --mem=0 (all the memory of
#                 each node): all run, on the nodes stock gives them,
#                 each placed by cons_tres as asked
#   weights (ns1,ns2 Weight=10; ns3,ns4 Weight=1):
#     weights     one 24-task LAM job: stock runs it on ns3; nodeshare
#                 only on ns3/ns4, the administrator's low-weight nodes
#   bigmem (ns3,ns4 Features=bigmem, 256000 MB, Weight=10: kept last):
#     bigmem      two 24-task jobs, then -C bigmem -N 1 -n 24: runs
#     bigmem3     three 24-task jobs (stock: ns1, ns2, ns3), then
#                 -C bigmem -N 1 -n 24 (stock: ns4): runs
#   ht (4 x 2 sockets x 6 cores x 2 threads = 24 CPUs, CR_Core):
#     ht          a 24-task LAM job: runs; it holds 24 CPUs (12 cores) in
#                 all, a stripe 12 CPUs (6 cores) on each of 2 nodes
#   hetero (ns1,ns2 24 cores, ns3,ns4 12 cores):
#     hetero      24-, 12-, 24- and 12-task jobs: all that run under
#                 stock run under nodeshare
#   nodefmem (as plain, without DefMemPerCPU: a job without --mem gets
#   all the memory of each node):
#     nodefmem    four 24-task LAM jobs without --mem: as mem0
#   socket (as plain, CR_Socket_Memory: cons_tres gives whole sockets):
#     socket      eight 12-task LAM jobs (stock: one per node, its tasks
#                 over both sockets): the same run, on the same nodes,
#                 each placed by cons_tres as asked
#   oversub (as plain, and two more partitions on all nodes: "over" with
#   OverSubscribe=FORCE:2, "yes" with OverSubscribe=YES:2):
#   and nodeshare's rules strict ("fallback_after": -1: a job the policy
#   cannot place waits):
#     force       eight 24-task LAM jobs in "over" (192 tasks on 96 cores:
#                 cons_tres puts two jobs on every core): all run, each
#                 placed by cons_tres as asked; a job the model cannot
#                 hold is logged "left out" once, not at every call
#     yes         the same in "yes" with --oversubscribe
# And slurmctld.log of the nodeshare side has no "error: nodeshare".
# Skips like tests/slurm/select.sh.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
ns_plugin_scenario nodes lmp_serial abq_std

NS_REALMEMORY=64000
NS_SELECTTYPEPARAMS=CR_Core_Memory
# ReturnToService=1 (lib.sh: 2): a node set DOWN stays DOWN until resumed.
EXTRA="SchedulerParameters=batch_sched_delay=0,bf_interval=1
DefMemPerCPU=100
ReturnToService=1"
NS_SLURM_CONF_EXTRA=$EXTRA
export NS_REALMEMORY NS_SELECTTYPEPARAMS NS_SLURM_CONF_EXTRA

# The node configurations: NS_NODE_CONF_1..4 for each.
T24="CPUs=24 Sockets=2 CoresPerSocket=12 ThreadsPerCore=1"
T12="CPUs=12 Sockets=2 CoresPerSocket=6 ThreadsPerCore=1"
THT="CPUs=24 Sockets=2 CoresPerSocket=6 ThreadsPerCore=2"
M=RealMemory=64000
nodeconf () {   # CONF: sets NS_NODE_CONF_1..4
    case $1 in
        plain)
            NS_NODE_CONF_1="$T24 $M"
            NS_NODE_CONF_2="$T24 $M Features=fast"
            NS_NODE_CONF_3="$T24 $M"
            NS_NODE_CONF_4="$T24 $M Features=fast" ;;
        weights)
            NS_NODE_CONF_1="$T24 $M Weight=10"
            NS_NODE_CONF_2="$T24 $M Weight=10"
            NS_NODE_CONF_3="$T24 $M Weight=1"
            NS_NODE_CONF_4="$T24 $M Weight=1" ;;
        bigmem)
            NS_NODE_CONF_1="$T24 $M Weight=1"
            NS_NODE_CONF_2="$T24 $M Weight=1"
            NS_NODE_CONF_3="$T24 RealMemory=256000 Weight=10 Features=bigmem"
            NS_NODE_CONF_4="$T24 RealMemory=256000 Weight=10 Features=bigmem" ;;
        ht)
            NS_NODE_CONF_1="$THT $M"
            NS_NODE_CONF_2="$THT $M"
            NS_NODE_CONF_3="$THT $M"
            NS_NODE_CONF_4="$THT $M" ;;
        hetero)
            NS_NODE_CONF_1="$T24 $M"
            NS_NODE_CONF_2="$T24 $M"
            NS_NODE_CONF_3="$T12 $M"
            NS_NODE_CONF_4="$T12 $M" ;;
        nodefmem|socket|oversub)
            NS_NODE_CONF_1="$T24 $M"
            NS_NODE_CONF_2="$T24 $M"
            NS_NODE_CONF_3="$T24 $M"
            NS_NODE_CONF_4="$T24 $M" ;;
    esac
    export NS_NODE_CONF_1 NS_NODE_CONF_2 NS_NODE_CONF_3 NS_NODE_CONF_4
    NS_SLURM_CONF_EXTRA=$EXTRA
    [ "$1" = nodefmem ] &&
        NS_SLURM_CONF_EXTRA=$(echo "$EXTRA" | grep -v '^DefMemPerCPU=')
    [ "$1" = oversub ] && NS_SLURM_CONF_EXTRA="$EXTRA
PartitionName=over Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=FORCE:2
PartitionName=yes Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=YES:2"
    export NS_SLURM_CONF_EXTRA
    NS_SELECTTYPEPARAMS=CR_Core_Memory
    [ "$1" = ht ] && NS_SELECTTYPEPARAMS=CR_Core
    [ "$1" = socket ] && NS_SELECTTYPEPARAMS=CR_Socket_Memory
    export NS_SELECTTYPEPARAMS
}
CONFS="plain weights bigmem ht hetero nodefmem socket oversub"
rows_of () {   # CONF
    case $1 in
        plain) echo "resv drained down constraint mem0" ;;
        weights) echo weights ;;
        bigmem) echo "bigmem bigmem3" ;;
        ht) echo ht ;;
        hetero) echo hetero ;;
        nodefmem) echo nodefmem ;;
        socket) echo socket ;;
        oversub) echo "force yes" ;;
    esac
}

sub () {   # PROG [SBATCH ARGS]: a 10-minute job running PROG
    local prog
    prog=$1; shift
    ns_sbatch -D "$NS_CLUSTER_DIR/work" -o /dev/null -t 10 "$@" \
        --wrap "exec $scratch/bin/$prog 600"
}

# hosts NODELIST: "ns1+ns2" (empty: "-")
hosts () {
    local h
    [ -n "$1" ] && [ "$1" != "(null)" ] || { echo -; return; }
    h=$(scontrol show hostnames "$1" 2>/dev/null | tr '\n' '+')
    echo "${h%+}"
}

# state JOBID...: "STATE:NODES:NUMNODES:NUMCPUS" per job, NODES as
# ns1+ns2 ("-": none)
state () {
    local j
    for j in "$@"; do
        printf '%s:%s:%s:%s ' "$(ns_job_field "$j" JobState)" \
            "$(hosts "$(ns_job_field "$j" NodeList)")" \
            "$(ns_job_field "$j" NumNodes)" "$(ns_job_field "$j" NumCPUs)"
    done
}

# cpus JOBID: "ns1=0-11;ns2=0-11" (the CPU_IDs of each node, from
# scontrol show job -d)
cpus () {
    local n c out h
    out=""
    ns_job_nodes_cpus "$1" >"$scratch/cpus.tmp"
    while read -r n c; do
        for h in $(scontrol show hostnames "$n" 2>/dev/null); do
            out="$out${out:+;}$h=$c"
        done
    done <"$scratch/cpus.tmp"
    echo "${out:--}"
}

node () {   # NAME KEY=VALUE...
    local n
    n=$1; shift
    scontrol update NodeName="$n" "$@"
}

# The rows: each prints its jobs' states (plus extra "word"s after a
# "|") and leaves the cluster clean.
row_resv () {
    local a r n
    # 22.05: one reservation, CoreCnt=20,20 (cores 0-19 of each; of a
    # second reservation of 20 cores on ns2, scontrol shows no CoreIDs).
    # 24.11 refuses that ("a comma separated array for CoreCnt is no
    # longer valid") and takes Nodes=ns1,ns2 CoreCnt=40 as ns1's 24 cores
    # and 16 of ns2: one reservation per node (cores 0-9,12-21 of each).
    if _ns_version_ge "$(ns_slurm_version)" 23.02; then
        for n in 1 2; do
            scontrol create reservation ReservationName=r$n StartTime=now \
                Duration=60 Users=root Nodes=ns$n CoreCnt=20 >/dev/null
        done
    else
        scontrol create reservation ReservationName=r1 StartTime=now \
            Duration=60 Users=root Nodes=ns1,ns2 CoreCnt=20,20 >/dev/null
    fi
    r=$(scontrol show reservation 2>/dev/null |
        sed -n 's/^ *NodeName=\(ns[0-9]*\) CoreIDs=\(.*\)$/\1=\2/p' |
        tr '\n' ';')
    a=$(sub lmp_serial -n 24)
    ns_wait_running 30 $a
    printf '%s| resv=%s job=%s' "$(state $a)" "${r%;}" "$(cpus $a)"
    scancel $a
    for n in r1 r2; do
        scontrol show reservation $n >/dev/null 2>&1 &&
            scontrol delete ReservationName=$n
    done
}

# resume NODE: back to service unless it came back by itself
resume () {
    case $(sinfo -h -n "$1" -o %t 2>/dev/null) in
        idle|alloc|mix|comp) ;;
        *) node "$1" State=RESUME ;;
    esac
}

row_drained () {
    local a b c
    node ns1 State=DRAIN Reason=test
    a=$(sub lmp_serial -n 24)
    b=$(sub abq_std -n 24)
    c=$(sub lmp_serial -n 24)
    ns_wait_running 30 $a $b $c
    state $a $b $c
    scancel $a $b $c
    resume ns1
}

# leaves STATE0 JOBID SECONDS: until the job's JobState, NodeList or
# Restarts differ from STATE0's; prints "STATE/REASON/RESTARTS".
leaves () {
    local s0 j t now
    s0=$1 j=$2
    t=0
    while [ "$t" -lt $(($3 * 5)) ]; do
        now="$(ns_job_field "$j" JobState)/$(ns_job_field "$j" NodeList)/$(ns_job_field "$j" Restarts)"
        [ "$now" != "$s0" ] && break
        sleep 0.2
        t=$((t + 1))
    done
    echo "$(ns_job_field "$j" JobState)/$(ns_job_field "$j" Reason)/$(ns_job_field "$j" Restarts)"
}

row_down () {
    local a b x s0 left ds
    a=$(sub lmp_serial -n 24)
    ns_wait_running 30 $a
    state $a
    x=$(hosts "$(ns_job_field "$a" NodeList)")
    x=${x%%+*}
    s0="RUNNING/$(ns_job_field "$a" NodeList)/$(ns_job_field "$a" Restarts)"
    node "$x" State=DOWN Reason=test
    ds=$(sinfo -h -n "$x" -o %t)
    b=$(sub abq_std -n 24)
    left=$(leaves "$s0" $a 30)
    ns_wait_running 30 $b
    state $b
    printf '| down=%s left=%s node=%s' "$x" "$left" "$ds"
    scancel $a $b
    resume "$x"
}

row_constraint () {
    local a
    a=$(sub lmp_serial -C fast -n 24)
    ns_wait_running 30 $a
    state $a
    scancel $a
}

row_weights () {
    local a
    a=$(sub lmp_serial -n 24)
    ns_wait_running 30 $a
    state $a
    scancel $a
}

row_bigmem () {
    local a b d
    a=$(sub lmp_serial -n 24)
    b=$(sub abq_std -n 24)
    ns_wait_running 30 $a $b
    d=$(sub lmp_serial -C bigmem -N 1 -n 24)
    ns_wait_running 30 $d
    state $a $b $d
    scancel $a $b $d
}

row_bigmem3 () {
    local a b c d
    a=$(sub lmp_serial -n 24)
    b=$(sub abq_std -n 24)
    c=$(sub lmp_serial -n 24)
    ns_wait_running 30 $a $b $c
    d=$(sub lmp_serial -C bigmem -N 1 -n 24)
    ns_wait_running 30 $d
    state $a $b $c $d
    scancel $a $b $c $d
}

row_ht () {
    local a
    a=$(sub lmp_serial -n 24)
    ns_wait_running 30 $a
    printf '%s| cpus=%s' "$(state $a)" "$(cpus $a)"
    scancel $a
}

row_hetero () {
    local a b c d
    a=$(sub lmp_serial -n 24)
    b=$(sub abq_std -n 12)
    c=$(sub abq_std -n 24)
    d=$(sub lmp_serial -n 12)
    ns_wait_running 30 $a $b $c $d
    state $a $b $c $d
    scancel $a $b $c $d
}

lam_jobs () {   # N TASKS [SBATCH ARGS]: N LAM jobs of TASKS tasks, their states
    local ids i n t
    n=$1 t=$2
    shift 2
    ids=
    i=0
    while [ $i -lt "$n" ]; do
        ids="$ids $(sub lmp_serial -n "$t" "$@")"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    ns_wait_running 30 $ids
    # shellcheck disable=SC2086
    printf '%s| ids=%s' "$(state $ids)" "$(echo $ids | tr ' ' ',')"
    # shellcheck disable=SC2086
    scancel $ids
}

row_mem0 () {
    lam_jobs 4 24 --mem=0
}

row_nodefmem () {
    lam_jobs 4 24
}

row_socket () {
    lam_jobs 8 12
}

row_force () {
    lam_jobs 8 24 -p over
}

row_yes () {
    lam_jobs 8 24 -p yes --oversubscribe
}

clean () {
    local n
    scancel --user=root >/dev/null 2>&1
    for n in 1 2 3 4; do
        scontrol delete ReservationName=r$n >/dev/null 2>&1
        resume ns$n >/dev/null 2>&1
    done
    ns_wait_all_idle 30 >/dev/null
}

run_side () {   # SIDE: stock or nodeshare; writes $scratch/SIDE.ROW
    local side r conf
    side=$1
    if [ "$side" = nodeshare ]; then
        NS_PLUGINDIR=$scratch/plugins
        NS_SELECTTYPE=select/cons_tres_nodeshare
    else
        unset NS_PLUGINDIR
        NS_SELECTTYPE=select/cons_tres
    fi
    export NS_SELECTTYPE
    [ -n "${NS_PLUGINDIR:-}" ] && export NS_PLUGINDIR
    for conf in $CONFS; do
        NS_CLUSTER_DIR=$scratch/cluster.$side.$conf
        export NS_CLUSTER_DIR
        mkdir -p "$NS_CLUSTER_DIR"
        [ "$side" = nodeshare ] && ns_twins_config tests/slurm/nodes.sh |
            if [ $conf = oversub ]; then
                sed 's/"fallback_after": 0,/"fallback_after": -1,/'
            else
                cat
            fi >"$NS_CLUSTER_DIR/nodeshare.json"
        nodeconf $conf
        ns_cluster_start 4 24
        tap_ok $? "[$side] $conf cluster ($NS_NODE_CONF_1 / $NS_NODE_CONF_3 ...) starts" ||
            continue
        for r in $(rows_of $conf); do
            "row_$r" >"$scratch/$side.$r" 2>>"$scratch/$side.err"
            clean
        done
        ns_cluster_stop
    done
}

t0=$(date +%s)
run_side stock
run_side nodeshare
tap_diag "both sides in $(($(date +%s) - t0)) s"

ROWS=$(for conf in $CONFS; do rows_of $conf; done)
for r in $ROWS; do
    s=$(sed 's/|.*//' "$scratch/stock.$r" 2>/dev/null)
    n=$(sed 's/|.*//' "$scratch/nodeshare.$r" 2>/dev/null)
    tap_diag "$r: stock $(cat "$scratch/stock.$r" 2>/dev/null)" \
             "$r: nodeshare $(cat "$scratch/nodeshare.$r" 2>/dev/null)"
    i=0
    for x in $s; do
        i=$((i + 1))
        y=$(echo "$n" | tr ' ' '\n' | sed -n "${i}p")
        case $x in
            RUNNING:*)
                case $y in RUNNING:*) ok=0 ;; *) ok=1 ;; esac
                tap_ok $ok "$r: job $i runs under stock ($x) and under nodeshare ($y)" ;;
            *)
                tap_ok 0 "$r: job $i waits under stock ($x); nodeshare: $y" ;;
        esac
    done
done

# job ROW SIDE I: job I's "STATE:NODES:NUMNODES:NUMCPUS"
job () {
    sed 's/|.*//' "$scratch/$2.$1" 2>/dev/null | tr ' ' '\n' | grep . |
        sed -n "$3p"
}
# extra ROW SIDE KEY: the KEY=VALUE word after "|"
extra () {
    sed -n 's/.*|//p' "$scratch/$2.$1" 2>/dev/null | tr ' ' '\n' |
        sed -n "s/^$3=//p"
}
# only_on "NODE..." JOB: JOB runs, on some of NODEs only
only_on () {
    local h
    case $2 in RUNNING:*) ;; *) return 1 ;; esac
    h=$(echo "$2" | cut -d: -f2)
    for h in $(echo "$h" | tr '+' ' '); do
        case " $1 " in *" $h "*) ;; *) return 1 ;; esac
    done
}

# What each row is about, beyond "runs".
# resv: on ns1/ns2, the job holds none of the cores the reservations hold.
y=$(job resv nodeshare 1)
rv=$(extra resv nodeshare resv)
jc=$(extra resv nodeshare job)
ok=0
case $y in RUNNING:*) ;; *) ok=1 ;; esac
for h in ns1 ns2; do
    held=$(echo "$rv" | tr ';' '\n' | sed -n "s/^$h=//p")
    mine=$(echo "$jc" | tr ';' '\n' | sed -n "s/^$h=//p")
    [ -n "$held" ] || ok=1   # no reservation there: the row tests nothing
    [ -n "$held" ] && [ -n "$mine" ] || continue
    # expand "0-3,8" lists and intersect
    both=$(for l in "$held" "$mine"; do
               echo "$l" | tr ',' '\n' |
                   awk -F- '{ e = NF > 1 ? $2 : $1; for (k = $1; k <= e; k++) print k }' |
                   sort -u
           done | sort | uniq -d)
    [ -n "$both" ] && ok=1
done
tap_ok $ok "resv: runs, on no core the reservations hold (reserved $rv; job $y, CPUs $jc)"

# drained: none on ns1
for i in 1 2 3; do
    y=$(job drained nodeshare $i)
    only_on "ns2 ns3 ns4" "$y"
    tap_ok $? "drained: job $i runs, not on the drained ns1 ($y)"
done

# down: the job leaves RUNNING as under stock; a new job runs
ls=$(extra down stock left)
ln=$(extra down nodeshare left)
tap_is "${ln%%/*}" "${ls%%/*}" \
    "down: the job on a DOWN node goes the way it goes under stock (stock $ls on $(extra down stock down), nodeshare $ln on $(extra down nodeshare down))"
tap_like "$(job down nodeshare 1)" '^RUNNING:ns[0-9]+\+ns[0-9]+:2:24$' \
    "down: nodeshare stripes the LAM job over two nodes (the row's premise)"

y=$(job down nodeshare 2)
x=$(extra down nodeshare down)
case $y in *"$x"+*|*+"$x":*|*:"$x":*) ok=1 ;; RUNNING:*) ok=0 ;; *) ok=1 ;; esac
tap_ok $ok "down: the new job runs, not on the DOWN $x ($y; stock $(job down stock 2))"

# constraint: ns2/ns4 only
y=$(job constraint nodeshare 1)
only_on "ns2 ns4" "$y"
tap_ok $? "constraint: -C fast runs only on ns2/ns4 ($y)"

# weights: only on the low-weight ns3/ns4 (stock: ns3)
y=$(job weights nodeshare 1)
only_on "ns3 ns4" "$y"
tap_ok $? "weights: runs only on the low-weight ns3/ns4 (stock $(job weights stock 1); nodeshare $y)"

# bigmem: the -C bigmem job on ns3/ns4
y=$(job bigmem nodeshare 3)
only_on "ns3 ns4" "$y"
tap_ok $? "bigmem: -C bigmem -N 1 runs on ns3 or ns4 ($y)"
y=$(job bigmem3 nodeshare 4)
only_on "ns3 ns4" "$y"
tap_ok $? "bigmem3: -C bigmem -N 1 runs on ns3 or ns4 after three jobs ($y)"

# ht: 24 CPUs in all (12 cores); a stripe holds 12 CPUs (6 cores) per node
y=$(job ht nodeshare 1)
tap_like "$y" '^RUNNING:[^:]*:[12]:24$' \
    "ht: a 24-task job holds 24 CPUs in all on 2-thread nodes ($y)"
c=$(extra ht nodeshare cpus)
per=$(echo "$c" | tr ';' '\n' | grep . | sed 's/^[^=]*=//' | while read -r l; do
          echo "$l" | tr ',' '\n' |
              awk -F- '{ e = NF > 1 ? $2 : $1; n += e - $1 + 1 } END { print n }'
      done | tr '\n' ' ')
case $y in
    *:2:24) want="12 12 " ;;
    *) want="24 " ;;
esac
tap_is "$per" "$want" "ht: CPUs held per node ($c)"

# mem0, nodefmem: a job that holds all the memory of each node holds its
# nodes whole; a stripe would hold two.  nodeshare hands each to cons_tres,
# which places it as stock does, on the same nodes.
# socket: under CR_Socket likewise (a 6+6 stripe held both sockets of two
# nodes where stock holds one node).
for r in mem0 nodefmem socket; do
    case $r in
        mem0) log=$scratch/cluster.nodeshare.plain/slurmctld.log
              why='all the memory of each node' ;;
        nodefmem) log=$scratch/cluster.nodeshare.nodefmem/slurmctld.log
              why='all the memory of each node' ;;
        socket) log=$scratch/cluster.nodeshare.socket/slurmctld.log
              why='whole sockets (SelectTypeParameters=CR_Socket)' ;;
    esac
    tap_is "$(sed 's/|.*//' "$scratch/nodeshare.$r" 2>/dev/null)" \
        "$(sed 's/|.*//' "$scratch/stock.$r" 2>/dev/null)" \
        "$r: the jobs run, or wait, as under stock, on the same nodes"
    # each job that runs, logged as handed to cons_tres (a job that waits
    # may have been tried already or not)
    ids=$(extra $r nodeshare ids)
    k=0 n=0 i=0
    for id in $(echo "$ids" | tr ',' ' '); do
        i=$((i + 1))
        case $(job $r nodeshare $i) in RUNNING:*) ;; *) continue ;; esac
        n=$((n + 1))
        grep -qF "nodeshare: JobId=$id asks for $why" "$log" 2>/dev/null &&
            k=$((k + 1))
    done
    tap_ok $((n == 0 || k != n)) "$r: nodeshare hands each job that runs to cons_tres as asked ($k of $n; $why; jobs $ids)"
done
grep -qF "nodeshare: $why: cons_tres gives each job whole sockets" \
    "$scratch/cluster.nodeshare.socket/slurmctld.log" 2>/dev/null
tap_ok $? "socket: slurmctld.log says at start that cons_tres places every job"

# force, yes: eight jobs of 192 tasks in all on 96 cores run under stock
# (the row's premise: cons_tres shares cores); under nodeshare each is
# placed by cons_tres as asked, and no job is logged "left out of the
# model" twice (a rebuild at every call would log it each time).
log=$scratch/cluster.nodeshare.oversub/slurmctld.log
for r in force yes; do
    n=0
    for i in 1 2 3 4 5 6 7 8; do
        case $(job $r stock $i) in RUNNING:*) n=$((n + 1)) ;; esac
    done
    tap_is "$n" 8 "$r: all eight jobs run under stock, 192 tasks on 96 cores ($(sed 's/|.*//' "$scratch/stock.$r" 2>/dev/null))"
    case $r in
        force) why='OverSubscribe=FORCE (its partition)' ;;
        yes) why='--oversubscribe' ;;
    esac
    ids=$(extra $r nodeshare ids)
    k=0
    for id in $(echo "$ids" | tr ',' ' '); do
        grep -qF "nodeshare: JobId=$id asks for $why: cons_tres places it as asked" "$log" 2>/dev/null &&
            k=$((k + 1))
    done
    tap_is "$k" 8 "$r: nodeshare hands each job to cons_tres as asked ($why; jobs $ids)"
done
twice=$(grep -o 'nodeshare: JobId=[0-9]* left out of the model' "$log" 2>/dev/null |
            sort | uniq -d | tr '\n' ' ')
once=$(grep -c 'left out of the model' "$log" 2>/dev/null)
tap_is "$twice" "" "oversub: no job logged as left out of the model twice ($once lines)"
# A job left out is no reason to rebuild the model: it is built once when
# slurmctld starts (and again only on a change the model does not follow,
# or after 120 s), not after every job that cons_tres put on held cores.
rebuilt=$(grep -c 'nodeshare: model rebuilt' "$log" 2>/dev/null)
tap_ok $((rebuilt > 2)) "oversub: the model rebuilt at most twice, not for each job left out ($rebuilt times)"

for conf in $CONFS; do
    log=$scratch/cluster.nodeshare.$conf/slurmctld.log
    if [ -f "$log" ]; then
        grep -E 'error: nodeshare' "$log" | head -5 | sed 's/^/# /'
        grep -Eq 'error: nodeshare' "$log"
        tap_ok $((! $?)) "log ($conf): no nodeshare error"
    else
        tap_ok 1 "log ($conf): $log exists"
    fi
done
tap_done
