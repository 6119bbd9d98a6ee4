#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/bench_sched.sh - what select/cons_tres_nodeshare costs slurmctld
#
# Usage: bench_sched.sh BUILDDIR
#
# One private cluster (tests/slurm/lib.sh) of NODES slurmd x 24 cores.
# NODES running jobs of 24 cores fill it (two programs, alternating, time
# limits 5-8.5 h so that backfill has a timeline to plan), then QUEUED jobs
# of mixed sizes wait behind them (1, 2, 4, 8, 12, 24, 48 and 96 cores,
# limits 10 min to 4 h, the two programs alternating).  Nothing can start,
# so every round sees the same queue.
#
# Rounds, interleaved on that same cluster: slurmctld is stopped and started
# again on its saved state with the other SelectType (select/cons_tres from
# Slurm's plugin dir, select/cons_tres_nodeshare from a private one; both
# report plugin_id 109, so the jobs carry over), in the order
# stock ns | ns stock | stock ns | ... (drift hits both sides alike).  In
# each round: wait until every node answers and the queue is complete, let
# it settle, `sdiag -r`, wait SECONDS, read sdiag's mean main and backfill
# cycle and slurmctld's VmRSS/VmHWM.
#
# Prints "name value unit [comment]":
#   sched_cycle_us_cons_tres / _nodeshare   median over the rounds of
#                                sdiag's mean main scheduler cycle
#   sched_cycle_ratio            median of the per-round ratios
#                                nodeshare / cons_tres (same round), with
#                                their min-max (target: at most 1.10)
#   sched_cycle_ratio_control    median and min-max of stock/stock ratios of
#                                consecutive rounds (and nodeshare/nodeshare):
#                                the noise of the method; a ratio is a real
#                                difference only when it lies outside this
#   bf_cycle_*                   the same for the backfill cycle
#   slurmctld_rss_kb_cons_tres / _nodeshare   median VmRSS at round end
#   slurmctld_hwm_kb_cons_tres / _nodeshare   median VmHWM (peak) at round end
#   slurmctld_error_lines        "error:" lines slurmctld logged after the
#                                cluster was up, except mpi/pmix's (the
#                                library is not installed) and, before the
#                                first round, "no saved state yet"; printed
#                                (up to 20) if any
# Progress and per-round figures go to stderr as "# " lines.
# Needs root, Slurm and the select plugin; otherwise prints why it skips.
#
# Knobs: NS_BENCH_NODES (16), NS_BENCH_QUEUED (500), NS_BENCH_SECONDS (20),
# NS_BENCH_ROUNDS (5 per side), NS_BENCH_SETTLE (5 s before sdiag -r).
# NS_BENCH_FULL=1 sets the defaults to 200 nodes, 5000 queued jobs,
# 30 s per round (about 11 minutes on a 2-core machine: see doc/results.md).
# NS_BENCH_AA=1 is the A/A' control: the "nodeshare" side runs the stock
# select/cons_tres as well, so every ratio is noise; how far its median and
# min-max stray from 1 is what the method cannot resolve.

builddir=${1:-.}
builddir=$(cd "$builddir" && pwd)
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/slurm/lib.sh"

if [ -n "${NS_BENCH_FULL:-}" ]; then
    nodes=${NS_BENCH_NODES:-200}
    queued=${NS_BENCH_QUEUED:-5000}
    seconds=${NS_BENCH_SECONDS:-30}
else
    nodes=${NS_BENCH_NODES:-16}
    queued=${NS_BENCH_QUEUED:-500}
    seconds=${NS_BENCH_SECONDS:-20}
fi
rounds=${NS_BENCH_ROUNDS:-5}
settle=${NS_BENCH_SETTLE:-5}
plugin=$builddir/select/.libs/select_cons_tres_nodeshare.so
mktool=$builddir/cmd/nodeshare-plugindir

note () { echo "# $*" >&2; }
now () { date +%s; }

skip () {
    echo "sched_cycle_ratio skipped ($*)"
    echo "bf_cycle_ratio skipped ($*)"
    exit 0
}
for v in "$nodes" "$queued" "$seconds" "$rounds" "$settle"; do
    case "$v" in ''|*[!0-9]*) echo "bench_sched.sh: NS_BENCH_* must be whole numbers, got '$v'" >&2; exit 2 ;; esac
done
[ "$rounds" -ge 2 ] || { echo "bench_sched.sh: NS_BENCH_ROUNDS must be at least 2" >&2; exit 2; }
[ -n "${NS_BENCH_AA:-}" ] && note "A/A' control: both sides run select/cons_tres"
ns_cluster_can_run >/dev/null || skip "$(ns_cluster_can_run)"
[ -f "$plugin" ] || skip "select plugin not built: configure --with-slurm-source"

scratch=$(mktemp -d /tmp/nsbench.XXXXXX) || exit 1
chmod 755 "$scratch"
trap 'ns_cluster_stop >/dev/null; rm -rf "$scratch"' EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$scratch/bin"
for p in lmp_serial abq_std; do
    cp /bin/sleep "$scratch/bin/$p" && chmod 755 "$scratch/bin/$p"
done
mkdir_tool=$mktool top_builddir=$builddir
ns_nodeshare_plugindir "$scratch/plugins" "$plugin" || exit 1
stock_dir=$(ns_slurm_plugindir) || skip "Slurm plugin dir not found"
ns_dir=$scratch/plugins

# sdiag_field SECTION FIELD: e.g. sdiag_field main "Mean cycle"
sdiag_field () {
    sdiag 2>/dev/null | awk -v sec="$1" -v f="$2:" '
        /^Main schedule statistics/ { s = "main" }
        /^Backfilling stats/ { s = "bf" }
        s == sec && index($0, f) { sub(/.*:[ \t]*/, ""); print $1; exit }'
}

# use SIDE: point slurm.conf's SelectType and PluginDir at SIDE (stock|ns).
# The slurmd keep the file they read at start (DebugFlags=NO_CONF_HASH: the
# hash differs on purpose, only slurmctld loads a select plugin that matters).
use () {
    local type dir
    if [ "$1" = stock ] || [ -n "${NS_BENCH_AA:-}" ]; then type=select/cons_tres dir=$stock_dir
    else type=select/cons_tres_nodeshare dir=$ns_dir; fi
    sed -e "s|^SelectType=.*|SelectType=$type|" -e "s|^PluginDir=.*|PluginDir=$dir|" \
        "$NS_CLUSTER_DIR/slurm.conf" >"$NS_CLUSTER_DIR/slurm.conf.new" &&
        mv "$NS_CLUSTER_DIR/slurm.conf.new" "$NS_CLUSTER_DIR/slurm.conf"
}

# wait_ready TIMEOUT_S: every node allocated and answering, every job there.
wait_ready () {
    local t lim nd pend run
    lim=$1
    t=0
    while [ "$t" -lt $((lim * 2)) ]; do
        nd=$(sinfo -h -o '%D %t' 2>/dev/null | tr '\n' ' ')
        run=$(squeue -h -t RUNNING -o %i 2>/dev/null | wc -l)
        pend=$(squeue -h -t PENDING -o %i 2>/dev/null | wc -l)
        [ "$nd" = "$nodes alloc " ] && [ "$run" -eq "$nodes" ] && [ "$pend" -eq "$queued" ] &&
            return 0
        sleep 0.5
        t=$((t + 1))
    done
    note "not ready after $lim s: sinfo '$nd', $run running (want $nodes), $pend pending (want $queued)"
    return 1
}

ctld_mem () {   # -> "RSS_KB HWM_KB"
    awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 } END { print r + 0, h + 0 }' \
        "/proc/$(cat "$NS_CLUSTER_DIR/slurmctld.pid")/status" 2>/dev/null
}

# The cluster, on the stock side first.
NS_SELECTTYPE=select/cons_tres
NS_PLUGINDIR=$stock_dir
NS_CLUSTER_DIR=$scratch/cluster
NS_SLURM_DEBUG=info
NS_START_TIMEOUT=$((60 + nodes))
NS_SCHEDPARAMS=batch_sched_delay=0,sched_interval=1,bf_interval=5
NS_SLURM_CONF_EXTRA=DebugFlags=NO_CONF_HASH
export NS_SELECTTYPE NS_PLUGINDIR NS_CLUSTER_DIR NS_SLURM_DEBUG NS_START_TIMEOUT \
    NS_SCHEDPARAMS NS_SLURM_CONF_EXTRA
mkdir -p "$NS_CLUSTER_DIR"
printf '{ "identity": { "patterns": [ { "match": "lmp*", "program": "LAM" },
  { "match": "abq*", "program": "ABQ" } ] } }\n' >"$NS_CLUSTER_DIR/nodeshare.json"
t0=$(now)
ns_cluster_start "$nodes" 24 >&2 || skip "the cluster did not start"
t1=$(now)
rss=$(for f in "$NS_CLUSTER_DIR"/slurmd.*.pid; do
          awk '/^VmRSS:/ { print $2 }' "/proc/$(cat "$f")/status" 2>/dev/null
      done | awk '{ s += $1; n++ } END { printf "%.1f MB RSS each, %.0f MB in all", s / n / 1024, s / 1024 }')
note "$nodes slurmd up in $((t1 - t0)) s, $rss"
mark0=$(wc -l <"$NS_CLUSTER_DIR/slurmctld.log")

# sub I CORES MINUTES: job I of a program chosen by I's parity.
sub () {
    local prog
    if [ $(($1 % 2)) -eq 0 ]; then prog=lmp_serial; else prog=abq_std; fi
    sbatch -Q -D "$NS_CLUSTER_DIR/work" -o /dev/null -n "$2" -t "$3" \
        --wrap "exec $scratch/bin/$prog 36000" >/dev/null
}
i=0
while [ "$i" -lt "$nodes" ]; do
    sub "$i" 24 $((300 + (i % 8) * 30)) || skip "sbatch failed"
    i=$((i + 1))
done
i=0
while [ "$i" -lt "$queued" ]; do
    set -- 1 2 4 8 12 24 48 96
    shift $((i % 8))
    c=$1
    set -- 10 30 60 120 240
    shift $((i % 5))
    sub "$i" "$c" "$1" || skip "sbatch failed at queued job $i"
    i=$((i + 1))
done
t2=$(now)
note "$((nodes + queued)) jobs submitted in $((t2 - t1)) s"
wait_ready $((60 + nodes)) || skip "the cluster did not fill"
mark=$(wc -l <"$NS_CLUSTER_DIR/slurmctld.log")

# overhead ROUND: "ROUND CALLS OWN_NS CONS_TRES_NS" of the decisions
# (run-now and will-run) from the plugin's own timing since slurmctld
# started (StateSaveLocation/nodeshare-overhead.json, rewritten every
# 10 s with DebugFlags=SelectType or not; waits for the round's file).
overhead () {
    local f t k calls own ct x
    f=$NS_CLUSTER_DIR/state/nodeshare-overhead.json
    t=0
    while [ "$t" -lt 30 ] && ! [ "$f" -nt "$NS_CLUSTER_DIR/slurmctld.pid" ]; do
        sleep 1; t=$((t + 1))
    done
    [ -f "$f" ] || return 0
    calls=0 own=0 ct=0
    for k in run-now will-run; do
        x=$(grep -o "\"$k\":{[^}]*}" "$f")
        calls=$((calls + $(echo "$x" | sed 's/.*"calls":\([0-9]*\).*/\1/')))
        own=$((own + $(echo "$x" | sed 's/.*"own_ns":\([0-9]*\).*/\1/')))
        ct=$((ct + $(echo "$x" | sed 's/.*"cons_tres_ns":\([0-9]*\).*/\1/')))
    done
    note "round $1 ns: $calls decisions, nodeshare's own $((own / 1000)) us, cons_tres $((ct / 1000)) us in them"
    echo "$1 $calls $own $ct"
}

# Rounds.
: >"$scratch/rounds"
: >"$scratch/overhead"
prev=stock
r=1
while [ "$r" -le "$rounds" ]; do
    if [ $((r % 2)) -eq 1 ]; then order="stock ns"; else order="ns stock"; fi
    for side in $order; do
        use "$side" || skip "cannot rewrite slurm.conf"
        m1=$(wc -l <"$NS_CLUSTER_DIR/slurmctld.log")
        ns_cluster_restart_ctld >&2 || skip "slurmctld did not start with the $side plugin"
        wait_ready $((60 + nodes)) || skip "slurmctld ($side) did not see the whole cluster again"
        e=$(tail -n +"$((m1 + 1))" "$NS_CLUSTER_DIR/slurmctld.log" | grep 'error:' |
            grep -Evc 'mpi/pmix|pmi/pmix|MPI: Cannot create context')
        [ "$e" -gt 0 ] && note "round $r $side: $e error lines while slurmctld ($prev) stopped and ($side) started"
        prev=$side
        sleep "$settle"
        sdiag -r >/dev/null 2>&1
        sleep "$seconds"
        m=$(sdiag_field main "Mean cycle") mc=$(sdiag_field main "Total cycles")
        b=$(sdiag_field bf "Mean cycle") bc=$(sdiag_field bf "Total cycles")
        mx=$(sdiag_field main "Max cycle") md=$(sdiag_field main "Mean depth cycle")
        bx=$(sdiag_field bf "Max cycle") bd=$(sdiag_field bf "Depth Mean")
        mem=$(ctld_mem)
        echo "$r $side ${m:-0} ${mc:-0} ${b:-0} ${bc:-0} $mem" >>"$scratch/rounds"
        [ "$side" = ns ] && overhead "$r" >>"$scratch/overhead"
        note "round $r $side: main mean ${m:-?} us max ${mx:-?} us x ${mc:-?} cycles (depth ${md:-?}), backfill mean ${b:-?} us max ${bx:-?} us x ${bc:-?} cycles (depth ${bd:-?}), slurmctld RSS/HWM $mem kB"
    done
    r=$((r + 1))
done
t3=$(now)
note "$rounds rounds per side in $((t3 - t2)) s; whole run $((t3 - t0)) s"

# Up to the rounds, slurmctld's first start (-c) may also say that it found
# no saved state yet; from the first round on, every error line counts.
errs=$( (sed -n "$((mark0 + 1)),${mark}p" "$NS_CLUSTER_DIR/slurmctld.log" |
         grep -Ev 'Could not open (job|reservation) state file|Trying backup state save file'
         tail -n +"$((mark + 1))" "$NS_CLUSTER_DIR/slurmctld.log") |
    grep 'error:' | grep -Ev 'mpi/pmix|pmi/pmix|MPI: Cannot create context')
nerr=$(printf '%s' "$errs" | grep -c .)
[ "$nerr" -gt 0 ] && printf '%s\n' "$errs" | head -20 | sed 's/^/# slurmctld: /' >&2

# Medians and min-max.  Rows: ROUND SIDE MAIN_US MAIN_N BF_US BF_N RSS HWM.
awk -v nodes="$nodes" -v q="$queued" -v rounds="$rounds" -v nerr="$nerr" \
    -v aa="${NS_BENCH_AA:+1}" '
function sort(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
function median(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function copy(src, dst, n,   i) { for (i = 1; i <= n; i++) dst[i] = src[i] }
function line(name, a, n, fmt, unit, extra,   b, lo, hi) {
    copy(a, b, n); lo = hi = a[1]
    for (i = 1; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
    printf "%s " fmt " %s (" fmt "-" fmt " over %d%s)\n", name, median(b, n), unit, lo, hi, n, extra
}
{
    k = ($2 == "stock") ? "s" : "n"
    v[k, "main", $1] = $3; c[k, "main", $1] = $4
    v[k, "bf", $1] = $5; c[k, "bf", $1] = $6
    rss[k, $1] = $7; hwm[k, $1] = $8
}
END {
    split("main bf", what, " ")
    split("sched bf", pre, " ")
    for (w = 1; w <= 2; w++) {
        x = what[w]; ok = 1
        for (r = 1; r <= rounds; r++)
            if (v["s", x, r] <= 0 || v["n", x, r] <= 0 || c["s", x, r] <= 0 || c["n", x, r] <= 0) ok = 0
        if (!ok) { printf "%s_cycle_ratio skipped (a round had no %s cycle)\n", pre[w], x; continue }
        n = 0; nc = 0
        for (r = 1; r <= rounds; r++) {
            s[r] = v["s", x, r]; ns[r] = v["n", x, r]; ratio[r] = ns[r] / s[r]
            if (r > 1) {
                ctl[++nc] = v["s", x, r] / v["s", x, r - 1]
                ctl[++nc] = v["n", x, r] / v["n", x, r - 1]
            }
        }
        line(pre[w] "_cycle_us_cons_tres", s, rounds, "%.0f", "us", " rounds")
        line(pre[w] "_cycle_us_nodeshare", ns, rounds, "%.0f", "us", " rounds")
        line(pre[w] "_cycle_ratio", ratio, rounds, "%.3f", "ratio",
             sprintf(" rounds; %d jobs queued on %d nodes%s%s", q, nodes,
                     w == 1 && !aa ? "; target <= 1.10" : "", aa ? "; A/A\047 control: both stock" : ""))
        line(pre[w] "_cycle_ratio_control", ctl, nc, "%.3f", "ratio", " pairs of consecutive rounds of one side")
    }
    for (r = 1; r <= rounds; r++) { a[r] = rss["s", r]; b2[r] = rss["n", r]; h1[r] = hwm["s", r]; h2[r] = hwm["n", r] }
    line("slurmctld_rss_kb_cons_tres", a, rounds, "%.0f", "kB", " rounds")
    line("slurmctld_rss_kb_nodeshare", b2, rounds, "%.0f", "kB", " rounds")
    line("slurmctld_hwm_kb_cons_tres", h1, rounds, "%.0f", "kB", " rounds")
    line("slurmctld_hwm_kb_nodeshare", h2, rounds, "%.0f", "kB", " rounds")
    printf "slurmctld_error_lines %d lines\n", nerr
}' "$scratch/rounds"

# nodeshare's own time per decision and against cons_tres's in the same
# calls (the plugin's timing).  Rows: ROUND CALLS OWN_NS CONS_TRES_NS.
awk '
function sort(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
function median(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
$2 > 0 && $4 > 0 { n++; us[n] = $3 / 1000 / $2; sh[n] = $3 / $4; calls += $2 }
END {
    if (!n) {
        print "ctld_decision_us skipped (no timing from the plugin)"
        print "ctld_own_share skipped (no timing from the plugin)"
        exit
    }
    printf "ctld_decision_us %.1f us (median of %d rounds, %d decisions)\n", median(us, n), n, calls
    printf "ctld_own_share %.3f ratio (nodeshare own / cons_tres in the same calls, median of %d rounds; target <= 0.10)\n", median(sh, n), n
}' "$scratch/overhead"
