# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/lib.sh - a private, real Slurm cluster on one machine (TAP)
# shellcheck shell=dash disable=SC3043,SC2086,SC2046,SC2116,SC2181,SC2010,SC2231
#
# Source it from a scenario script:   . "$top_srcdir/tests/slurm/lib.sh"
# Written in POSIX sh plus `local` (works under dash, which `make check`
# uses, and under bash).  Every internal name starts with _ns_ / _NS_.
#
# The cluster: one slurmctld, NODES x `slurmd -N nsI` (Debian builds Slurm
# with --enable-multiple-slurmd) and a private munged, all on 127.0.0.1 with
# random free ports, all files in $NS_CLUSTER_DIR.  Nothing in /etc is read
# or written; the machine's own Slurm/munge (if any) is not touched.
# Daemons are stopped by the pids in their pid files, never by name.
#
# Cluster functions (return 0 on success, non-zero with a message on stderr):
#   ns_cluster_can_run          0 if root and slurmctld, slurmd, munged, munge,
#                               sbatch, srun, scontrol, squeue, sinfo exist;
#                               else prints the reason on stdout, returns 1.
#                               Scenario: ns_cluster_can_run >/dev/null ||
#                                 tap_skip_all "$(ns_cluster_can_run)"
#   ns_cluster_start NODES CORES
#                               writes slurm.conf, starts munged, slurmctld,
#                               slurmd ns1..nsNODES, exports SLURM_CONF and
#                               NS_CLUSTER_DIR, waits until NODES nodes idle.
#   ns_cluster_stop             cancels jobs, stops the daemons it started
#                               (TERM, bounded wait, KILL); idempotent.
#                               Removes the directory unless a TAP test
#                               failed, a start failed, or NS_CLUSTER_KEEP=1
#                               (then prints "# cluster files kept in DIR").
#   ns_accounting_can_run       like ns_cluster_can_run, and also mariadbd,
#                               mariadb-install-db, slurmdbd, sacct, sacctmgr
#                               and accounting_storage_mysql.so (Debian:
#                               mariadb-server slurmdbd); else prints why.
#   ns_plugin_scenario NAME [PROGRAM...]
#                               the start of a scenario of the select
#                               plugin (after its own ns_*_can_run check):
#                               skips the script (tap_skip_all) when the
#                               plugin or nodeshare-plugindir is not built
#                               in $top_builddir; makes $scratch
#                               (/tmp/nsNAME.XXXXXX, mode 755), which an
#                               EXIT trap removes after ns_cluster_stop
#                               unless a point failed or NS_CLUSTER_KEEP=1;
#                               copies /bin/sleep to $scratch/bin/PROGRAM
#                               (programs recognised by name); makes the
#                               PluginDir $scratch/plugins (one TAP point,
#                               the script ends if it fails).  Sets
#                               plugin, mkdir_tool and scratch.
#   ns_cluster_restart_ctld     stops slurmctld, starts it on the same state.
#   ns_cluster_reconfigure      scontrol reconfigure (+ waits for an answer).
#   ns_cluster_log_ctld         prints the path of the slurmctld log.
#   ns_cluster_log_slurmd NODE  prints the path of node NODE's slurmd log
#                               (NODE: ns2 or 2).
#   ns_cluster_dump             prints state + log tails as "# " lines.
#   ns_slurm_version            the installed Slurm's version (slurmd -V),
#                               e.g. 22.05.8 or 24.11.5; status 1 if unknown.
#
# Configless slurmd (tests/slurm/configless.sh):
#   ns_private_run_can_run      0 if root and `unshare -m` can mount a tmpfs
#                               (private propagation, or unchanged where /
#                               is no mount point and nothing is shared);
#                               else prints why, returns 1.
#   ns_private_run_enter "$0" "$@"
#                               re-executes the scenario (same shell, same
#                               pid) in a private mount namespace and
#                               mounts a tmpfs on /run there; status 1 if
#                               that mount fails.  Call it before
#                               ns_plugin_scenario.
#   ns_cluster_start_configless NODES CORES
#                               ns_cluster_start with SlurmctldParameters=
#                               enable_configless, no PlugStackConfig
#                               line, munge's default socket
#                               (/run/munge/munge.socket.2, private /run)
#                               linked to the cluster's munged, and each
#                               `slurmd -N nsI --conf-server 127.0.0.1:
#                               PORT` without -f or SLURM_CONF.  Stop:
#                               ns_cluster_stop.
#   ns_slurmd_conf_cache NODE   the conf-cache directory of slurmd NODE
#                               (NODE: ns1 ...)
#
# A primary and a backup slurmctld (tests/slurm/failover.sh):
#   ns_failover_can_run         ns_cluster_can_run, and `unshare -m -u`
#                               works; else prints why, returns 1.
#   ns_cluster_start_failover NODES CORES
#                               ns_cluster_start with SlurmctldHost=
#                               ctlA(127.0.0.1) and ctlB(127.0.0.2),
#                               CommunicationParameters=NoCtldInAddrAny,
#                               SlurmctldTimeout=$NS_FAILOVER_TIMEOUT (5);
#                               each slurmctld in its own UTS and mount
#                               namespace (host name ctlX, /etc/hosts =
#                               $NS_CLUSTER_DIR/hosts, $NS_CLUSTER_DIR/ctl
#                               = ctlX/ with its pid file and log).
#   ns_failover_start_ctld A|B [ARGS]  starts one of them (again), waits
#                               until scontrol ping says it is UP.
#   ns_failover_pid A|B         its pid (status 1 if it does not run).
#   ns_failover_log A|B         the path of its log.
#   ns_failover_ping_is UP|DOWN UP|DOWN  scontrol ping says ctlA is the
#                               first, ctlB the second.
#   ns_failover_stop            cancels jobs, stops both controllers by
#                               their pid files, then ns_cluster_stop.
#
# Knobs, read by ns_cluster_start (environment or shell variables):
#   NS_CLUSTER_DIR        directory to use (created; should be empty; at most
#                         70 characters; made 0755: munged refuses a socket
#                         dir without o+x).  Default: mktemp -d
#                         ${NS_TMPDIR:-/tmp}/nscluster.XXXXXX, removed by
#                         ns_cluster_stop when nothing failed.
#   NS_SELECTTYPE         default select/cons_tres
#   NS_SELECTTYPEPARAMS   default CR_Core
#   NS_SCHEDPARAMS        SchedulerParameters, default batch_sched_delay=0
#                         (Slurm's default 3 s delays every sbatch job)
#   NS_TASKPLUGIN         default task/none
#   NS_PROCTRACK          default proctrack/linuxproc
#   NS_PLUGINDIR          default Slurm's plugin dir (ns_slurm_plugindir),
#                         or $NS_CLUSTER_DIR/plugins when one of these is set:
#   NS_PLUGINS            plugin files (.so) to add to a private PluginDir
#                         that links all stock plugins (see ns_make_plugindir)
#   NS_PLUGINS_EXCLUDE    stock plugin names left out of it, e.g.
#                         select_cons_tres.so (a select plugin reusing
#                         plugin_id 109 must be the only one with that id)
#   NS_CGROUP_CONF        content of cgroup.conf.  Default: on Slurm
#                         24.05 and later, CgroupPlugin=disabled unless
#                         slurm.conf (NS_TASKPLUGIN, NS_PROCTRACK,
#                         NS_SLURM_CONF_EXTRA) names a cgroup plugin; else
#                         CgroupPlugin=autodetect, CgroupMountpoint=
#                         /sys/fs/cgroup
#   NS_PLUGSTACK          content of $NS_CLUSTER_DIR/plugstack.conf
#                         (PlugStackConfig), e.g. "required /x/nodeshare.so"
#   NS_SLURM_CONF_EXTRA   lines appended to slurm.conf (later keys win)
#   NS_REALMEMORY         RealMemory per node in MB (default 8000)
#   NS_NODE_CONF_<I>      node nsI's attributes on its NodeName line, in
#                         place of the default "CPUs=CORES Sockets=2
#                         CoresPerSocket=CORES/2 ThreadsPerCore=1
#                         RealMemory=$NS_REALMEMORY" (no topology when
#                         CORES is odd), e.g. NS_NODE_CONF_3="CPUs=24
#                         Sockets=2 CoresPerSocket=6 ThreadsPerCore=2
#                         RealMemory=64000 Weight=10 Features=bigmem".
#                         Unset or empty: the default.  slurmd registers
#                         any such node (SlurmdParameters=config_overrides:
#                         it reports slurm.conf's values, not the
#                         machine's), so nodes may differ in size, threads,
#                         memory, Weight and Features.
#   NS_SLURM_DEBUG        SlurmctldDebug/SlurmdDebug (default debug)
#   NS_START_TIMEOUT      seconds to wait for idle nodes (default 30)
#   NS_CLUSTER_KEEP=1     keep the directory even on success
#   NS_ACCOUNTING=1       accounting: before slurmctld, a private MariaDB
#                         (mariadb-install-db into $NS_CLUSTER_DIR/db;
#                         mariadbd on 127.0.0.1:random port and
#                         mariadb.sock) and slurmdbd (slurmdbd.conf, mode
#                         600, random DbdPort, munge via the private
#                         munged); slurm.conf gets AccountingStorageType=
#                         accounting_storage/slurmdbd; cluster nstest,
#                         account nstest and the calling user are added
#                         with sacctmgr -i.  ns_cluster_stop stops slurmdbd
#                         after slurmctld, then MariaDB.  Start-up takes
#                         ~5 s more (the first slurmdbd start creates the
#                         tables).
#
# Files in $NS_CLUSTER_DIR: slurm.conf plugstack.conf munge.key munged.log
# slurmctld.log slurmd.nsI.log state/ spool/nsI/ (with NS_ACCOUNTING:
# slurmdbd.conf slurmdbd.log mariadbd.log db/) work/ (a cwd for jobs:
# use `sbatch -D "$NS_CLUSTER_DIR/work"` or cd there, the default output
# slurm-%j.out lands in the cwd).
#
# Job helpers:
#   ns_wait_job_state JOBID STATE [TIMEOUT_S=30]
#       polls until JobState=STATE (e.g. RUNNING, COMPLETED, PENDING);
#       fails fast when the job reaches another final state; on failure
#       prints the last state and the job record as "# " lines, returns 1.
#   ns_job_field JOBID FIELD     one field of `scontrol show job -o`
#                                (JobState NodeList NumNodes NumCPUs Reason
#                                NumTasks ...); empty + status 1 if absent.
#                                Values are cut at the first space.
#   ns_job_nodes_cpus JOBID      "NODES CPU_IDS" lines from
#                                `scontrol show job -d`, e.g. "ns[1-2] 0-11"
#   ns_placed_program DIR NAME PACKED STRIPED BESIDE_B
#                                DIR/NAME.sh: a job script whose run time
#                                follows its placement (a program with
#                                known figures; calibrate.sh, rollout.sh)
#   ns_job_cpus_per_node JOBID   the CPU count on each of its nodes,
#                                e.g. "12 12"
#   ns_poll SECONDS CMD...       runs CMD (output discarded) 5 times a
#                                second until it succeeds; 1 if it never did
#   ns_all_state STATE JOBID...  0 when every job's JobState is STATE
#   ns_wait_running SECONDS JOBID...
#                                ns_poll until every job is RUNNING
#   ns_twins_config WHO [FIRST [LAST]]
#                                a nodeshare.json: policy twins,
#                                fallback_after 0, LAM (lmp*, a twin
#                                slowdown) and ABQ (abq*); FIRST: members
#                                put first (each followed by a comma),
#                                LAST: members put last (each preceded by
#                                one); "// written by WHO" above it
#   ns_sbatch ARGS...            sbatch --parsable -D $NS_CLUSTER_DIR/work
#                                ARGS, prints the job id only.  (Plain
#                                sbatch writes slurm-N.out into the cwd,
#                                e.g. the build tree: distcheck then fails.)
#   ns_wait_all_idle [TIMEOUT_S=30]  until no job is pending/running and
#                                every node is idle (wall time).
#   ns_ctld_answers              slurmctld runs and answers a ping in 10 s.
#   ns_sacct_wait JOBID... [-- TIMEOUT_S=60]  (NS_ACCOUNTING=1) until sacct
#                                knows every job as finished (slurmctld
#                                sends records to slurmdbd asynchronously).
#
# TAP helpers (plan printed at the end):
#   tap_ok STATUS "name"   ok when STATUS is 0:   cmd; tap_ok $? "cmd works"
#   tap_is GOT WANT "name" string equality, prints got/want on failure
#   tap_like GOT REGEX "name"  grep -E match
#   tap_skip "reason" [N]  N (default 1) skipped test points
#   tap_diag TEXT...       "# TEXT" lines
#   tap_skip_all "reason"  prints "1..0 # SKIP reason" and exits 0
#   tap_done               prints 1..N; exits 1 if any failed, else 0
#
# If the scenario dies without ns_cluster_stop (SIGKILL), a watchdog started
# by ns_cluster_start stops the daemons within a second.
#
# Facts (Debian 12, Slurm 22.05.8, checked with this library):
# - Start-up of 4 nodes takes ~1 s; the first sbatch job starts ~2 s after
#   submission (later ones within 1 s thanks to batch_sched_delay=0);
#   ns_cluster_stop takes ~2 s; slurmctld restart ~2 s.
# - PluginDir: /usr/lib/x86_64-linux-gnu/slurm-wlm (Debian ships no
#   slurm.pc, so pkg-config is only a first guess).
# - munged runs as root without --force; it only needs the socket's
#   directory to be o+x and the key file 0600.
# - proctrack/linuxproc (default) and proctrack/pgid work.
#   proctrack/cgroup and task/cgroup work on this cgroup-v1 machine only
#   with a cgroup.conf (written by default), and their cgroups are named
#   slurm_nsI: two clusters at a time would share them.
# - task/affinity binds to the machine's real CPUs: with CPUs=24 on a
#   2-CPU machine a step of more tasks than real CPUs fails ("Unable to
#   layout tasks on given cpus") unless srun --cpu-bind=none; 2 tasks were
#   both bound to CPU 0.  task/none (default) runs any number of ranks.
# - mpi/pmix* log "can not load PMIx library" errors: harmless (MpiDefault
#   is none).  The first slurmctld start logs missing state files: harmless.
# - Several clusters can run at once (random ports, private munged).
# - 200 nodes work (bench/bench_sched.sh NS_BENCH_FULL=1): they start in
#   30-40 s (slurmd are started one after the other), each slurmd holds
#   about 6 MB RSS (1.2 GB for 200); give NS_START_TIMEOUT 60 s or more.
#
# Facts (both releases, checked with this library):
# - slurmd initialises the cgroup plugin even with task/none and
#   proctrack/linuxproc, and without a cgroup file system it does not
#   start ("can't stat /sys/fs/cgroup/systemd/", "Unable to initialize
#   cgroup plugin").  22.05 has no way out (CgroupPlugin=disabled: "cannot
#   find cgroup plugin for disabled"); 24.05+ accepts CgroupPlugin=disabled,
#   which this library writes there unless a cgroup plugin is configured.
# - With only loopback addresses (a fresh network namespace) Slurm's
#   getaddrinfo(AI_ADDRCONFIG) finds no address for localhost: slurmctld
#   retries 10 s, then "Unable to resolve "(null)"".  ns_cluster_start
#   checks this first (getent ahostsv4 localhost) and says so.  One more
#   address on lo (ip addr add 10.77.0.1/32 dev lo) is enough.
#
# Facts (Debian 13, Slurm 24.11.5, MariaDB 11.8.9; in the root of
# scripts/debian-root.sh, private network namespace; checked with this
# library):
# - smoke.sh and spank.sh pass unchanged (25 and 48 points).  Start-up of
#   4 nodes < 1 s; first job done ~2-3 s after sbatch, later ones ~1 s;
#   ns_cluster_stop ~0.2 s; slurmctld restart ~0.25 s.
# - `slurmd -V` prints "slurm-wlm 24.11.5" (22.05: "slurm 22.05.8");
#   PluginDir is the same /usr/lib/x86_64-linux-gnu/slurm-wlm.
# - `scontrol reconfigure` replaces slurmctld by a new process (new pid in
#   slurmctld.pid within 0.1 s, the old one exits; 22.05 keeps its pid).
#   scontrol returns when the new one answers.
# - Accounting: slurmdbd dies at its first start unless the database
#   already exists (a libmariadb 3.4.10 bug when a handle is reused after a
#   failed connect, see _ns_start_slurmdbd): created beforehand.  With
#   that, NS_ACCOUNTING start-up takes ~3 s (22.05 on Debian 12: ~6 s).
#
# Facts (configless and failover; Slurm 22.05.8 on Debian 12, 24.11.5 in
# the Debian 13 root, 26.05.3 in the SchedMD root; checked with this
# library):
# - Configless slurmd fetches slurm.conf, plugstack.conf and cgroup.conf
#   here (the files that exist beside slurm.conf of those Slurm ships;
#   never nodeshare.json) into SlurmdSpoolDir/conf-cache, sets SLURM_CONF
#   to its slurm.conf there, and links /run/slurm/conf to it (a private
#   /run keeps that off the machine).  With PlugStackConfig set, slurmd
#   and slurmstepd read that path instead of the shipped copy.
#   `scontrol reconfigure` ships a changed plugstack.conf to every node.
# - The backup slurmctld loads the select plugin (and nodeshare.json) at
#   its own start, and the learning state when it takes over.  It answers
#   scontrol ping (UP) while it waits: after a SIGKILL of the primary,
#   ping says ctlA DOWN, ctlB UP within 0-2 s, and ctlB logs "Running as
#   primary controller" 6-8 s after the kill (SlurmctldTimeout=5).  On
#   24.11 and 26.05 ctlB answers its first ping ~5 s after it starts.
#   slurmctld writes job_state at most every 5 s: a job started within
#   those seconds before the kill is recovered as pending (22.05: started
#   again, requeued held).
#
# Typical scenario:
#   . "$top_srcdir/tests/slurm/lib.sh"
#   ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
#   trap 'ns_cluster_stop' EXIT
#   trap 'exit 1' INT TERM HUP
#   ns_cluster_start 4 24 || { tap_ok 1 "cluster starts"; tap_done; }
#   id=$(ns_sbatch -n 24 --wrap 'srun true')
#   ns_wait_job_state "$id" COMPLETED 30; tap_ok $? "job completes"
#   tap_done

_ns_tap_n=0
_ns_tap_failed=0
_ns_start_failed=0
_NS_DIR_OWNED=0
_NS_NODES=0

##
# TAP
##
tap_diag () {
    printf '%s\n' "$*" | sed 's/^/# /'
}

tap_ok () {   # STATUS NAME
    _ns_tap_n=$((_ns_tap_n + 1))
    if [ "$1" = 0 ]; then
        echo "ok $_ns_tap_n - $2"
        return 0
    fi
    echo "not ok $_ns_tap_n - $2"
    echo "#   status $1"
    _ns_tap_failed=$((_ns_tap_failed + 1))
    return 1
}

tap_is () {   # GOT WANT NAME
    if [ "$1" = "$2" ]; then
        tap_ok 0 "$3"
        return 0
    fi
    _ns_tap_n=$((_ns_tap_n + 1))
    echo "not ok $_ns_tap_n - $3"
    printf '#   got:  %s\n#   want: %s\n' "$1" "$2"
    _ns_tap_failed=$((_ns_tap_failed + 1))
    return 1
}

tap_like () {   # GOT REGEX NAME
    if printf '%s\n' "$1" | grep -Eq -- "$2"; then
        tap_ok 0 "$3"
        return 0
    fi
    _ns_tap_n=$((_ns_tap_n + 1))
    echo "not ok $_ns_tap_n - $3"
    printf '#   got:  %s\n#   want: /%s/\n' "$1" "$2"
    _ns_tap_failed=$((_ns_tap_failed + 1))
    return 1
}

tap_skip () {   # REASON [COUNT]
    local i
    i=0
    while [ "$i" -lt "${2:-1}" ]; do
        _ns_tap_n=$((_ns_tap_n + 1))
        echo "ok $_ns_tap_n # SKIP $1"
        i=$((i + 1))
    done
}

tap_skip_all () {   # REASON
    echo "1..0 # SKIP $1"
    exit 0
}

tap_done () {
    echo "1..$_ns_tap_n"
    if [ "$_ns_tap_failed" -gt 0 ]; then
        echo "# $_ns_tap_failed of $_ns_tap_n failed"
        exit 1
    fi
    exit 0
}

##
# Internals
##
_ns_err () {
    echo "ns_cluster: $*" >&2
}

# _ns_tail FILE [N]: last N lines of FILE as "# " lines on stderr.
_ns_tail () {
    if [ -f "$1" ]; then
        echo "# --- tail of $1" >&2
        tail -n "${2:-25}" "$1" | sed 's/^/#   /' >&2
    else
        echo "# --- $1: no such file" >&2
    fi
}

# _ns_pidfile_comm PIDFILE: the program a pid file of ours names
# (slurmctld.pid, slurmd.NODE.pid, munged.pid, slurmdbd.pid, mariadbd.pid),
# or nothing for another file.
_ns_pidfile_comm () {
    case ${1##*/} in
        slurmctld.pid) echo slurmctld ;;
        slurmd.*.pid) echo slurmd ;;
        munged.pid) echo munged ;;
        slurmdbd.pid) echo slurmdbd ;;
        mariadbd.pid) echo mariadbd ;;
    esac
}

# _ns_alive PIDFILE: the pid in PIDFILE is a live process of the program
# the file is named after.  A daemon that died leaves its pid file, and
# pids are reused (pid_max may be 32768): a test that starts thousands of
# processes can give a dead slurmd's pid to another program, which must
# neither count as that slurmd nor be stopped in its place.
_ns_alive () {
    local pid
    [ -s "$1" ] || return 1
    pid=$(cat "$1" 2>/dev/null)
    [ -n "$pid" ] && _ns_pid_alive "$pid" "$(_ns_pidfile_comm "$1")"
}

# _ns_port_used PORT: something listens on PORT (tcp/tcp6, any address).
_ns_port_used () {
    local hex
    hex=$(printf '%04X' "$1")
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v p=":$hex" 'NR > 1 && substr($2, length($2) - 4) == p { f = 1 }
                          END { exit !f }'
}

# _ns_free_port: prints a free port in 10000-31999 (below the ephemeral
# range) not used by any listener and not in $_ns_ports.  It runs in $(...),
# a subshell, so the caller appends the port to $_ns_ports (before, two of
# 200 nodes often got the same port: "Unable to bind listen port").
_ns_free_port () {
    local try r
    try=0
    while [ $try -lt 200 ]; do
        r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
        r=$((10000 + r % 22000))
        case " $_ns_ports " in *" $r "*) try=$((try + 1)); continue ;; esac
        if ! _ns_port_used "$r"; then
            echo "$r"
            return 0
        fi
        try=$((try + 1))
    done
    return 1
}

# ns_slurm_plugindir: Slurm's plugin directory (where select_cons_tres.so is).
ns_slurm_plugindir () {
    local d multiarch
    d=$(pkg-config --variable=libdir slurm 2>/dev/null)
    if [ -n "$d" ] && [ -f "$d/slurm/select_cons_tres.so" ]; then
        echo "$d/slurm"; return 0
    fi
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
                gcc -print-multiarch 2>/dev/null)
    for d in ${multiarch:+/usr/lib/$multiarch/slurm-wlm} \
             /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib/*/slurm-wlm \
             /usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm; do
        if [ -f "$d/select_cons_tres.so" ]; then
            echo "$d"; return 0
        fi
    done
    return 1
}

# ns_make_plugindir DIR [-x NAME.so]... [FILE.so]...
# DIR gets a symlink to every stock plugin except the -x NAMEs and the
# names of the FILEs, plus a symlink to each FILE (absolute), so that a
# rebuilt plugin is picked up.  For a select plugin that reports
# cons_tres's plugin_id 109:  -x select_cons_tres.so .../select_cons_tres_nodeshare.so
ns_make_plugindir () {
    local dir stock skip f b
    dir=${1:?ns_make_plugindir DIR [-x NAME.so]... [FILE.so]...}
    shift
    stock=$(ns_slurm_plugindir) || { _ns_err "Slurm plugin dir not found"; return 1; }
    skip=" "
    mkdir -p "$dir" || return 1
    rm -f "$dir"/*.so
    while [ $# -gt 0 ]; do
        case "$1" in
            -x) skip="$skip${2##*/} "; shift 2; continue ;;
        esac
        [ -f "$1" ] || { _ns_err "no such plugin file: $1"; return 1; }
        f=$(cd "$(dirname "$1")" && pwd)/${1##*/}
        ln -sf "$f" "$dir/${1##*/}"
        skip="$skip${1##*/} "
        shift
    done
    for f in "$stock"/*.so; do
        b=${f##*/}
        case "$skip" in *" $b "*) continue ;; esac
        ln -sf "$f" "$dir/$b"
    done
}

_ns_scenario_cleanup () {
    ns_cluster_stop
    if [ "$_ns_tap_failed" -gt 0 ] || [ -n "${NS_CLUSTER_KEEP:-}" ]; then
        echo "# scenario files kept in $scratch"
    else
        rm -rf "$scratch"
    fi
}

ns_plugin_scenario () {   # NAME [PROGRAM...]
    local name p
    name=$1; shift
    plugin=${top_builddir:?}/select/.libs/select_cons_tres_nodeshare.so
    mkdir_tool=$top_builddir/cmd/nodeshare-plugindir
    [ -f "$plugin" ] ||
        tap_skip_all "select plugin not built (configure --with-slurm-source=DIR|auto)"
    [ -x "$mkdir_tool" ] || tap_skip_all "$mkdir_tool not built"
    scratch=$(mktemp -d "/tmp/ns$name.XXXXXX") || exit 1
    chmod 755 "$scratch"
    trap _ns_scenario_cleanup EXIT
    trap 'exit 1' INT TERM HUP
    mkdir -p "$scratch/bin"
    for p in "$@"; do
        cp /bin/sleep "$scratch/bin/$p" && chmod 755 "$scratch/bin/$p" ||
            exit 1
    done
    ns_nodeshare_plugindir "$scratch/plugins" "$plugin"
    tap_ok $? "nodeshare-plugindir makes a PluginDir" || tap_done
}

# ns_separate_plugindir: the build is for a Slurm that needs the private
# PluginDir (up to 24.11: every Slurm command loads every select_*.so).
ns_separate_plugindir () {
    ! grep -q '^NS_SEPARATE_PLUGINDIR = no$' "${top_builddir:?}/Makefile" 2>/dev/null
}

# ns_nodeshare_plugindir DIR PLUGIN: a PluginDir holding the (uninstalled)
# PLUGIN.  Up to 24.11 it is the one an administrator makes
# (nodeshare-plugindir: every stock plugin but select_cons_tres.so, and
# PLUGIN).  From 25.05 nodeshare-plugindir says it is not needed (a site
# installs the plugin in Slurm's own plugin directory); a test, which
# installs nothing, then links every stock plugin and PLUGIN into DIR.
ns_nodeshare_plugindir () {
    local dir=$1 so=$2
    "${mkdir_tool:?}" --quiet --plugin "$so" "$dir" || return 1
    if ! ns_separate_plugindir; then
        [ ! -e "$dir" ] || { _ns_err "nodeshare-plugindir made $dir on a release that needs none"; return 1; }
        ns_make_plugindir "$dir" "$so" || return 1
    fi
    return 0
}

ns_cluster_can_run () {
    local c
    if [ "$(id -u)" != 0 ]; then
        echo "not root (a Slurm test cluster needs root)"
        return 1
    fi
    for c in slurmctld slurmd munged munge sbatch srun scontrol squeue sinfo scancel; do
        if ! command -v "$c" >/dev/null 2>&1 &&
           ! [ -x "/usr/sbin/$c" ]; then
            echo "$c not installed (Debian: slurmctld slurmd slurm-client munge)"
            return 1
        fi
    done
    if ! ns_slurm_plugindir >/dev/null; then
        echo "Slurm plugin directory (select_cons_tres.so) not found"
        return 1
    fi
    return 0
}

# Daemons are in /usr/sbin, which a non-login root PATH may lack.
_ns_path () {
    case ":$PATH:" in
        *:/usr/sbin:*) ;;
        *) PATH=$PATH:/usr/sbin:/sbin; export PATH ;;
    esac
}

_ns_write_conf () {   # NODES CORES
    local nodes cores d ctlport i port topo pd attrs
    nodes=$1 cores=$2 d=$NS_CLUSTER_DIR
    if [ -n "${NS_PLUGINDIR:-}" ]; then
        pd=$NS_PLUGINDIR
    elif [ -n "${NS_PLUGINS:-}${NS_PLUGINS_EXCLUDE:-}" ]; then
        pd=$d/plugins
        # shellcheck disable=SC2046,SC2086
        ns_make_plugindir "$pd" $(for x in ${NS_PLUGINS_EXCLUDE:-}; do echo -x "$x"; done) \
            ${NS_PLUGINS:-} || return 1
    else
        pd=$(ns_slurm_plugindir) || { _ns_err "Slurm plugin dir not found"; return 1; }
    fi
    _ns_ports=""
    ctlport=$(_ns_free_port) || { _ns_err "no free port"; return 1; }
    _ns_ports="$_ns_ports $ctlport"   # $(...) is a subshell: remember here
    if [ -n "${NS_ACCOUNTING:-}" ]; then
        _NS_DBD_PORT=$(_ns_free_port) || { _ns_err "no free port"; return 1; }
        _ns_ports="$_ns_ports $_NS_DBD_PORT"
        _NS_DB_PORT=$(_ns_free_port) || { _ns_err "no free port"; return 1; }
        _ns_ports="$_ns_ports $_NS_DB_PORT"
    fi
    topo=""
    if [ $((cores % 2)) -eq 0 ]; then
        topo="Sockets=2 CoresPerSocket=$((cores / 2)) ThreadsPerCore=1"
    fi
    printf '%s\n' "${NS_PLUGSTACK:-}" >"$d/plugstack.conf"
    {
        cat <<EOF
# generated by tests/slurm/lib.sh
ClusterName=nstest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctlport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge.socket
CredType=cred/munge
PluginDir=$pd
PlugStackConfig=$d/plugstack.conf
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.%n.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.%n.log
SlurmctldDebug=${NS_SLURM_DEBUG:-debug}
SlurmdDebug=${NS_SLURM_DEBUG:-debug}
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
SchedulerParameters=${NS_SCHEDPARAMS:-batch_sched_delay=0}
SelectType=${NS_SELECTTYPE:-select/cons_tres}
SelectTypeParameters=${NS_SELECTTYPEPARAMS:-CR_Core}
TaskPlugin=${NS_TASKPLUGIN:-task/none}
ProctrackType=${NS_PROCTRACK:-proctrack/linuxproc}
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmctldTimeout=10
SlurmdTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=5
MinJobAge=300
JobCompType=jobcomp/none
MailProg=/bin/true
EOF
        if [ -n "${NS_ACCOUNTING:-}" ]; then
            cat <<EOF
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$_NS_DBD_PORT
AccountingStoragePass=$d/munge.socket
EOF
        else
            echo "AccountingStorageType=accounting_storage/none"
        fi
        i=1
        while [ "$i" -le "$nodes" ]; do
            port=$(_ns_free_port) || { _ns_err "no free port"; return 1; }
            _ns_ports="$_ns_ports $port"
            eval "attrs=\${NS_NODE_CONF_$i:-}"
            [ -n "$attrs" ] || attrs="CPUs=$cores $topo RealMemory=${NS_REALMEMORY:-8000}"
            echo "NodeName=ns$i NodeAddr=127.0.0.1 NodeHostname=localhost Port=$port $attrs State=UNKNOWN"
            i=$((i + 1))
        done
        echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
        if [ -n "${NS_SLURM_CONF_EXTRA:-}" ]; then
            echo "# NS_SLURM_CONF_EXTRA"
            printf '%s\n' "$NS_SLURM_CONF_EXTRA"
        fi
    } >"$d/slurm.conf" || return 1
    _ns_write_cgroup_conf "$d"
}

# _ns_write_cgroup_conf DIR: DIR/cgroup.conf (Slurm reads it beside
# slurm.conf): $NS_CGROUP_CONF if set.  Else, when slurm.conf names no
# cgroup plugin and Slurm is 24.05 or later, CgroupPlugin=disabled:
# slurmd initialises the cgroup plugin even for task/none and
# proctrack/linuxproc and fails without a usable cgroup file system (a
# container, a root without /sys/fs/cgroup); "disabled" does not exist
# before 24.05 (slurmd then fails to load a plugin of that name).
# Otherwise autodetect, as before.
_ns_write_cgroup_conf () {
    local d v conf
    d=$1
    conf="CgroupPlugin=autodetect
CgroupMountpoint=/sys/fs/cgroup"
    if [ -n "${NS_CGROUP_CONF:-}" ]; then
        conf=$NS_CGROUP_CONF
    elif ! grep -Eq '^[[:space:]]*(ProctrackType|TaskPlugin|JobAcctGatherType)[[:space:]]*=.*cgroup' \
            "$d/slurm.conf"; then
        v=$(ns_slurm_version) || v=0.0.0
        if _ns_version_ge "$v" 24.05; then
            conf="CgroupPlugin=disabled"
        fi
    fi
    printf '%s\n' "$conf" >"$d/cgroup.conf"
}

# ns_slurm_version: the installed Slurm's version, e.g. 24.11.5 (from
# `slurmd -V`: "slurm 22.05.8" on Debian 12, "slurm-wlm 24.11.5" on 13).
ns_slurm_version () {
    local v
    if [ -z "${_ns_slurm_version:-}" ]; then
        _ns_path
        v=$(slurmd -V 2>/dev/null) || return 1
        v=${v##* }
        case "$v" in [0-9]*.[0-9]*) ;; *) return 1 ;; esac
        _ns_slurm_version=$v
    fi
    echo "$_ns_slurm_version"
}

# _ns_version_ge VERSION MAJOR.MINOR: VERSION is MAJOR.MINOR or later.
_ns_version_ge () {
    echo "$1 $2" | awk '{
        split($1, a, "."); split($2, b, ".")
        exit !(a[1] + 0 > b[1] + 0 || (a[1] + 0 == b[1] + 0 && a[2] + 0 >= b[2] + 0))
    }'
}

_ns_start_munged () {
    local d
    d=$NS_CLUSTER_DIR
    if ! [ -s "$d/munge.key" ]; then
        dd if=/dev/urandom bs=1 count=1024 of="$d/munge.key" 2>/dev/null ||
            { _ns_err "cannot create $d/munge.key"; return 1; }
    fi
    chmod 600 "$d/munge.key"
    munged --socket="$d/munge.socket" --key-file="$d/munge.key" \
           --pid-file="$d/munged.pid" --log-file="$d/munged.log" \
           --seed-file="$d/munged.seed" </dev/null >>"$d/munged.out" 2>&1
    if [ $? -ne 0 ] || ! _ns_alive "$d/munged.pid"; then
        _ns_err "munged did not start"
        _ns_tail "$d/munged.out"; _ns_tail "$d/munged.log"
        return 1
    fi
}

# _ns_lines FILE: number of lines in FILE (0 if none).
_ns_lines () {
    if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi
}

# _ns_wait_pidfile PIDFILE TIMEOUT_S [LOG MARK]: until PIDFILE names a live
# process; fails at once when LOG shows a fatal error after line MARK.
_ns_wait_pidfile () {
    local t
    t=0
    while [ "$t" -lt $(($2 * 10)) ]; do
        _ns_alive "$1" && return 0
        [ -n "${3:-}" ] && tail -n +"$(($4 + 1))" "$3" 2>/dev/null | grep -q 'fatal:' &&
            return 1
        sleep 0.1
        t=$((t + 1))
    done
    return 1
}

_ns_start_ctld () {   # [extra slurmctld args]
    local d mark
    d=$NS_CLUSTER_DIR
    rm -f "$d/slurmctld.pid"
    mark=$(_ns_lines "$d/slurmctld.log")
    (cd "$d" && slurmctld -f "$d/slurm.conf" "$@" </dev/null >>"$d/slurmctld.out" 2>&1)
    if [ $? -ne 0 ] || ! _ns_wait_pidfile "$d/slurmctld.pid" 10 "$d/slurmctld.log" "$mark"; then
        _ns_err "slurmctld did not start"
        _ns_tail "$d/slurmctld.out"; _ns_tail "$d/slurmctld.log" 40
        return 1
    fi
    _ns_wait_ctld "${NS_START_TIMEOUT:-30}" || {
        _ns_err "slurmctld does not answer"
        _ns_tail "$d/slurmctld.log" 40
        return 1
    }
}

# ns_ctld_answers: this cluster's slurmctld runs and `scontrol ping` says
# UP within 10 s.
ns_ctld_answers () {
    _ns_alive "$NS_CLUSTER_DIR/slurmctld.pid" &&
        timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'
}

# _ns_wait_ctld TIMEOUT_S: until `scontrol ping` says UP.
_ns_wait_ctld () {
    local t gone
    t=0 gone=0
    while [ "$t" -lt $(($1 * 5)) ]; do
        ns_ctld_answers && return 0
        # After `scontrol reconfigure` the pid file may name the old
        # process, already gone, for a moment before the new one writes it
        # (26.05): give up only when no slurmctld has been there for 5 s.
        if _ns_alive "$NS_CLUSTER_DIR/slurmctld.pid"; then
            gone=0
        else
            gone=$((gone + 1))
            [ "$gone" -lt 25 ] || return 1
        fi
        sleep 0.2
        t=$((t + 1))
    done
    return 1
}

_ns_start_slurmd () {   # NODENAME
    local d mark
    d=$NS_CLUSTER_DIR
    mkdir -p "$d/spool/$1"
    rm -f "$d/slurmd.$1.pid"
    mark=$(_ns_lines "$d/slurmd.$1.log")
    (cd "$d" && slurmd -N "$1" -f "$d/slurm.conf" </dev/null >>"$d/slurmd.$1.out" 2>&1)
    if [ $? -ne 0 ] || ! _ns_wait_pidfile "$d/slurmd.$1.pid" 10 "$d/slurmd.$1.log" "$mark"; then
        _ns_err "slurmd $1 did not start"
        _ns_tail "$d/slurmd.$1.out"; _ns_tail "$d/slurmd.$1.log" 40
        return 1
    fi
}

##
# Accounting (NS_ACCOUNTING=1): MariaDB + slurmdbd, private to the cluster
##

# ns_accounting_can_run: 0 if the programs of the accounting pipeline are
# installed (and ns_cluster_can_run passes); else prints why, returns 1.
ns_accounting_can_run () {
    local c d
    ns_cluster_can_run || return 1
    _ns_path
    for c in mariadbd slurmdbd sacct sacctmgr mariadb; do
        if ! command -v "$c" >/dev/null 2>&1; then
            echo "$c not installed (Debian: mariadb-server slurmdbd slurm-client)"
            return 1
        fi
    done
    if ! command -v mariadb-install-db >/dev/null 2>&1 &&
       ! command -v mysql_install_db >/dev/null 2>&1; then
        echo "mariadb-install-db not installed (Debian: mariadb-server)"
        return 1
    fi
    d=$(ns_slurm_plugindir)
    if ! [ -f "$d/accounting_storage_mysql.so" ]; then
        echo "$d/accounting_storage_mysql.so not installed (Debian: slurmdbd)"
        return 1
    fi
    return 0
}

# _ns_db: the MariaDB client on the private server, as root.
_ns_db () {
    mariadb --no-defaults --socket="$NS_CLUSTER_DIR/mariadb.sock" -u root "$@"
}

_ns_start_mariadb () {
    local d inst t
    d=$NS_CLUSTER_DIR
    inst=$(command -v mariadb-install-db || command -v mysql_install_db)
    if ! [ -d "$d/db/mysql" ]; then
        "$inst" --no-defaults --datadir="$d/db" --user=root \
            --auth-root-authentication-method=normal --skip-test-db \
            </dev/null >"$d/mariadb-install.log" 2>&1 || {
            _ns_err "mariadb-install-db failed"
            _ns_tail "$d/mariadb-install.log"
            return 1
        }
    fi
    # Small buffers: several test clusters may run on one small machine.
    mariadbd --no-defaults --datadir="$d/db" --user=root \
        --socket="$d/mariadb.sock" --pid-file="$d/mariadbd.pid" \
        --bind-address=127.0.0.1 --port="$_NS_DB_PORT" \
        --log-error="$d/mariadbd.log" --innodb-buffer-pool-size=32M \
        --innodb-log-file-size=16M --skip-name-resolve \
        </dev/null >>"$d/mariadbd.out" 2>&1 &
    t=0
    while [ "$t" -lt 300 ]; do
        _ns_alive "$d/mariadbd.pid" && _ns_db -e 'SELECT 1' >/dev/null 2>&1 &&
            return 0
        sleep 0.1
        t=$((t + 1))
    done
    _ns_err "mariadbd did not answer within 30 s"
    _ns_tail "$d/mariadbd.log"
    return 1
}

_ns_start_slurmdbd () {
    local d pd mark t
    d=$NS_CLUSTER_DIR
    pd=$(ns_slurm_plugindir) || { _ns_err "Slurm plugin dir not found"; return 1; }
    # slurmdbd reads slurmdbd.conf beside $SLURM_CONF and wants it 0600,
    # owned by SlurmUser.  MariaDB's root@127.0.0.1 has no password.
    cat >"$d/slurmdbd.conf" <<EOF || return 1
# generated by tests/slurm/lib.sh
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$_NS_DBD_PORT
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge.socket
PluginDir=$pd
PidFile=$d/slurmdbd.pid
LogFile=$d/slurmdbd.log
DebugLevel=${NS_SLURM_DEBUG:-debug}
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$_NS_DB_PORT
StorageUser=root
StorageLoc=slurm_acct_db
EOF
    chown root "$d/slurmdbd.conf"
    chmod 600 "$d/slurmdbd.conf"
    # The database exists before slurmdbd starts: when it does not,
    # slurmdbd creates it and connects again on the MYSQL handle whose
    # first connect failed, and Debian 13's libmariadb (3.4.10) then fails
    # every query on that handle ("5027 Number of columns in result (=1)
    # set execeeds maxmimum allowed number of columns (=0)": fatal in
    # _check_mysql_concat_is_sane).  Harmless elsewhere.
    _ns_db -e 'CREATE DATABASE IF NOT EXISTS slurm_acct_db' \
        >>"$d/mariadb-install.log" 2>&1 || {
        _ns_err "cannot create the database slurm_acct_db"
        _ns_tail "$d/mariadb-install.log"
        return 1
    }
    rm -f "$d/slurmdbd.pid"
    mark=$(_ns_lines "$d/slurmdbd.log")
    (cd "$d" && slurmdbd </dev/null >>"$d/slurmdbd.out" 2>&1)
    if [ $? -ne 0 ] || ! _ns_wait_pidfile "$d/slurmdbd.pid" 30 "$d/slurmdbd.log" "$mark"; then
        _ns_err "slurmdbd did not start"
        _ns_tail "$d/slurmdbd.out"; _ns_tail "$d/slurmdbd.log" 40
        return 1
    fi
    # Ready when it answers; the first start creates the tables.
    t=0
    while [ "$t" -lt 300 ]; do
        sacctmgr -n show cluster format=cluster >/dev/null 2>&1 && return 0
        _ns_alive "$d/slurmdbd.pid" || break
        sleep 0.2
        t=$((t + 1))
    done
    _ns_err "slurmdbd does not answer sacctmgr"
    _ns_tail "$d/slurmdbd.log" 40
    return 1
}

# Cluster nstest, account nstest, the calling user in it (root).
_ns_start_accounting () {
    local u
    _ns_start_mariadb || return 1
    _ns_start_slurmdbd || return 1
    u=$(id -un)
    { sacctmgr -i add cluster nstest &&
      sacctmgr -i add account nstest Cluster=nstest Description=test Organization=test &&
      sacctmgr -i add user "$u" Account=nstest Cluster=nstest
    } >>"$NS_CLUSTER_DIR/sacctmgr.log" 2>&1 || {
        _ns_err "sacctmgr could not register cluster, account and user"
        _ns_tail "$NS_CLUSTER_DIR/sacctmgr.log"
        return 1
    }
}

# ns_sacct_wait JOBIDS... [-- TIMEOUT_S]: until sacct knows every job as
# finished (slurmctld sends job records to slurmdbd asynchronously).
ns_sacct_wait () {
    local ids lim t want got
    ids="" lim=60
    while [ $# -gt 0 ]; do
        case "$1" in
            --) lim=${2:-60}; break ;;
            *) ids="$ids${ids:+,}$1" ;;
        esac
        shift
    done
    want=$(echo "$ids" | tr ',' '\n' | grep -c .)
    t=0
    got=""
    while [ "$t" -lt $((lim * 5)) ]; do
        got=$(sacct -n -X --parsable2 -j "$ids" -o JobIDRaw,State,End 2>/dev/null |
              awk -F'|' '$3 != "Unknown" && $2 != "RUNNING" && $2 != "PENDING"' | wc -l)
        [ "$got" -ge "$want" ] && return 0
        sleep 0.2
        t=$((t + 1))
    done
    echo "# ns_sacct_wait: after $lim s sacct knows $got of $want jobs as finished"
    sacct -X --parsable2 -j "$ids" -o JobIDRaw,JobName,State,Start,End 2>&1 | sed 's/^/#   /'
    return 1
}

##
# Cluster
##
ns_cluster_start () {   # NODES CORES
    local nodes cores i t0 t
    nodes=${1:?ns_cluster_start NODES CORES}
    cores=${2:?ns_cluster_start NODES CORES}
    _ns_path
    if [ -n "${_NS_RUNNING:-}" ]; then
        _ns_err "a cluster is already running in $NS_CLUSTER_DIR (ns_cluster_stop first)"
        return 1
    fi
    t0=$(date +%s)
    _ns_start_failed=1   # until proven otherwise: keep files for post-mortem
    if [ -n "${NS_CLUSTER_DIR:-}" ] && [ "${_NS_DIR_OWNED}" = 0 ]; then
        mkdir -p "$NS_CLUSTER_DIR" || return 1
    else
        NS_CLUSTER_DIR=$(mktemp -d "${NS_TMPDIR:-/tmp}/nscluster.XXXXXX") || return 1
        _NS_DIR_OWNED=1
    fi
    NS_CLUSTER_DIR=$(cd "$NS_CLUSTER_DIR" && pwd)
    export NS_CLUSTER_DIR
    if [ ${#NS_CLUSTER_DIR} -gt 70 ]; then
        # unix socket paths (munge.socket, spool/nsI/HOST_JOB.STEP) max 107
        _ns_err "NS_CLUSTER_DIR too long for unix sockets: $NS_CLUSTER_DIR"
        return 1
    fi
    chmod 755 "$NS_CLUSTER_DIR"   # munged: socket dir needs o+x
    mkdir -p "$NS_CLUSTER_DIR/state" "$NS_CLUSTER_DIR/spool" "$NS_CLUSTER_DIR/work"
    _NS_NODES=$nodes
    _NS_RUNNING=1

    # Forget any cluster this process may be inside of.
    unset SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID SLURM_NODELIST SLURM_JOB_NODELIST \
          SLURM_NTASKS SLURM_NPROCS SLURM_CPUS_ON_NODE SLURM_PARTITION 2>/dev/null
    SLURM_CONF=$NS_CLUSTER_DIR/slurm.conf
    export SLURM_CONF

    if ! _ns_start_all "$nodes" "$cores"; then
        # Stop what did start; the directory stays for post-mortem.
        _ns_err "start failed; files in $NS_CLUSTER_DIR"
        ns_cluster_stop >&2
        return 1
    fi
    _ns_start_watchdog
    t=$(date +%s)
    echo "# cluster up: $nodes nodes x $cores cores in $((t - t0)) s, dir $NS_CLUSTER_DIR"
    _ns_start_failed=0
    return 0
}

# _ns_start_watchdog: a background shell that stops the daemons (by their
# pid files) if this scenario dies without running ns_cluster_stop, e.g.
# on SIGKILL.  Its stdio is /dev/null so that it never holds the TAP pipe.
_ns_start_watchdog () {
    local owner
    owner=$$
    (
        trap '' INT HUP
        while _ns_pid_alive "$owner"; do sleep 1; done
        d=$NS_CLUSTER_DIR
        if [ -d "$d" ]; then
            echo "scenario $owner died: stopping the cluster in $d" >>"$d/watchdog.log"
            _ns_stop_pidfiles "$d"/slurmd.*.pid "$d/slurmctld.pid" "$d/slurmdbd.pid"
            _ns_stop_pidfiles "$d/mariadbd.pid" "$d/munged.pid"
            p=$(_ns_stepd_pids)
            [ -n "$p" ] && kill -KILL $p
        fi
    ) </dev/null >/dev/null 2>&1 &
    echo $! >"$NS_CLUSTER_DIR/watchdog.pid"
}

# _ns_check_addrconfig: Slurm resolves host names with AI_ADDRCONFIG,
# which finds no IPv4 address of localhost when the machine has only
# loopback addresses (e.g. a fresh network namespace); slurmctld then
# retries for 10 s and dies ("Unable to resolve "(null)"").  Fail at once
# with the reason instead.  (`getent ahostsv4` uses AI_ADDRCONFIG too.)
_ns_check_addrconfig () {
    command -v getent >/dev/null 2>&1 || return 0
    [ -n "$(getent ahostsv4 localhost 2>/dev/null)" ] && return 0
    _ns_err "no IPv4 address for localhost with AI_ADDRCONFIG: the machine has only" \
        "loopback addresses, and Slurm's name lookups fail; give it one (e.g." \
        "ip addr add 10.77.0.1/32 dev lo in a private network namespace)"
    return 1
}

_ns_start_all () {   # NODES CORES
    local i
    _ns_check_addrconfig || return 1
    _ns_write_conf "$1" "$2" || return 1
    _ns_start_munged || return 1
    if [ -n "${NS_ACCOUNTING:-}" ]; then
        _ns_start_accounting || return 1
    fi
    _ns_start_ctld -c || return 1
    i=1
    while [ "$i" -le "$1" ]; do
        _ns_start_slurmd "ns$i" || return 1
        i=$((i + 1))
    done
    if ! _ns_wait_idle_nodes "${NS_START_TIMEOUT:-30}"; then
        _ns_err "nodes did not become idle within ${NS_START_TIMEOUT:-30} s"
        ns_cluster_dump >&2
        return 1
    fi
}

# _ns_wait_idle_nodes TIMEOUT_S: until sinfo shows all nodes idle.
_ns_wait_idle_nodes () {
    local t seen
    t=0
    while [ "$t" -lt $(($1 * 5)) ]; do
        seen=$(sinfo -h -o '%D %t' 2>&1)
        [ "$seen" = "$_NS_NODES idle" ] && return 0
        sleep 0.2
        t=$((t + 1))
    done
    echo "# sinfo -h -o '%D %t' last said: $seen" >&2
    return 1
}

ns_wait_all_idle () {   # [TIMEOUT_S]
    local end lim jobs nodes
    lim=${1:-30}
    # Wall time: a slurmctld that does not answer makes each squeue last
    # its MessageTimeout, and a count of polls would then wait far longer.
    end=$(($(date +%s) + lim))
    while :; do
        jobs=$(timeout 10 squeue -h -t PENDING,RUNNING,CONFIGURING,COMPLETING,SUSPENDED -o '%i' 2>&1)
        nodes=$(timeout 10 sinfo -h -o '%D %t' 2>&1)
        [ -z "$jobs" ] && [ "$nodes" = "$_NS_NODES idle" ] && return 0
        [ "$(date +%s)" -lt "$end" ] || break
        sleep 0.2
    done
    echo "# ns_wait_all_idle: timeout after $lim s"
    echo "# jobs still active: $(echo $jobs)"
    echo "# sinfo: $(echo $nodes)"
    squeue 2>&1 | sed 's/^/#   /'
    return 1
}

# ns_cancel_all [TIMEOUT_S]: cancel every job and wait until the cluster
# is idle (ns_wait_all_idle: what is left is printed on a timeout).
ns_cancel_all () {
    scancel $(squeue -h -o %i) 2>/dev/null
    ns_wait_all_idle "${1:-30}"
}

ns_cluster_dump () {
    local f
    echo "# cluster dir: ${NS_CLUSTER_DIR:-none}"
    [ -n "${NS_CLUSTER_DIR:-}" ] || return 0
    sinfo -N -o '%N %t %C %E' 2>&1 | sed 's/^/#   /'
    squeue -o '%i %T %R %D %C %N' 2>&1 | sed 's/^/#   /'
    for f in "$NS_CLUSTER_DIR"/munged.log "$NS_CLUSTER_DIR"/slurmctld.log \
             "$NS_CLUSTER_DIR"/slurmd.*.log "$NS_CLUSTER_DIR"/slurmdbd.log; do
        [ -f "$f" ] && _ns_tail "$f" 15 2>&1
    done
}

# _ns_stop_pidfiles PIDFILE...: SIGTERM to every live pid named by the
# files at once, wait up to 10 s for all of them, then SIGKILL the rest.
# Removes the pid files.  Only pids read from our own pid files are signalled.
_ns_stop_pidfiles () {
    local f pid pids t left name
    pids=""
    for f in "$@"; do
        [ -s "$f" ] || { rm -f "$f"; continue; }
        pid=$(cat "$f" 2>/dev/null)
        case "$pid" in ''|*[!0-9]*) rm -f "$f"; continue ;; esac
        name=$(_ns_pidfile_comm "$f")
        if _ns_pid_alive "$pid" "$name"; then
            kill -TERM "$pid" 2>/dev/null
            pids="$pids $pid:$name"
        fi
    done
    t=0
    while [ "$t" -lt 100 ]; do
        left=""
        for pid in $pids; do
            _ns_pid_alive "${pid%%:*}" "${pid#*:}" && left="$left ${pid%%:*}"
        done
        [ -z "$left" ] && break
        sleep 0.1
        t=$((t + 1))
    done
    if [ -n "$left" ]; then
        echo "# pids$left ignored SIGTERM for 10 s: SIGKILL"
        kill -KILL $left 2>/dev/null
        sleep 0.2
    fi
    rm -f "$@"
}

# _ns_stepd_pids: slurmstepd processes of this cluster and all their
# descendants (the job's tasks).  A slurmstepd is ours when its cwd (which
# it inherits from our slurmd, started in $NS_CLUSTER_DIR) or one of its
# open files is in $NS_CLUSTER_DIR.  Found through /proc, no ps needed.
_ns_stepd_pids () {
    local p exe cwd roots
    roots=""
    for p in /proc/[0-9]*; do
        exe=$(readlink "$p/exe" 2>/dev/null) || continue
        case "$exe" in */slurmstepd*) ;; *) continue ;; esac
        cwd=$(readlink "$p/cwd" 2>/dev/null)
        if [ "$cwd" = "$NS_CLUSTER_DIR" ] ||
           [ "$cwd" = "$NS_CLUSTER_DIR (deleted)" ] ||
           ls -l "$p/fd" 2>/dev/null | grep -q -- "-> $NS_CLUSTER_DIR/"; then
            roots="$roots ${p#/proc/}"
        fi
    done
    [ -n "$roots" ] || return 0
    awk '/^Pid:/ { p = $2 } /^PPid:/ { print p, $2 }' /proc/[0-9]*/status 2>/dev/null |
        awk -v roots="$roots" '
            { parent[$1] = $2; pids[NR] = $1 }
            END {
                n = split(roots, r, " ")
                for (i = 1; i <= n; i++) mine[r[i]] = 1
                do {            # add children of ours until nothing changes
                    changed = 0
                    for (k in pids) {
                        q = pids[k]
                        if (!(q in mine) && (parent[q] in mine)) { mine[q] = 1; changed = 1 }
                    }
                } while (changed)
                for (q in mine) print q
            }'
}

# _ns_pid_alive PID [NAME]: running (a zombie waiting for init counts as
# gone) and, with NAME, running that program: /proc/PID/comm is NAME or
# NAME-SUFFIX (Debian 13 installs slurmctld-wlm and slurmd-wlm behind
# the slurmctld and slurmd links, and Slurm 24.11 re-executes them by
# their real name on `scontrol reconfigure`); MariaDB's server may call
# itself mysqld.
_ns_pid_alive () {
    local comm
    kill -0 "$1" 2>/dev/null || return 1
    case "$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)" in
        Z|X) return 1 ;;
    esac
    [ -n "${2:-}" ] || return 0
    comm=$(cat "/proc/$1/comm" 2>/dev/null)
    case $comm in
        "$2"|"$2"-*) return 0 ;;
    esac
    [ "$2" = mariadbd ] && [ "$comm" = mysqld ] && return 0
    return 1
}

# _ns_cancel_jobs: scancel every job and wait until none is left (at
# most about 10 s of wall time, even when slurmctld does not answer).
_ns_cancel_jobs () {
    local t
    timeout 5 scancel --quiet --full $(timeout 5 squeue -h -o %i 2>/dev/null) 2>/dev/null
    t=$(($(date +%s) + 10))
    while [ "$(date +%s)" -lt "$t" ] &&
          [ -n "$(timeout 5 squeue -h -t PENDING,RUNNING,CONFIGURING,COMPLETING,SUSPENDED -o %i 2>/dev/null)" ]; do
        sleep 0.2
    done
}

ns_cluster_stop () {
    local d p t
    [ -n "${NS_CLUSTER_DIR:-}" ] && [ -n "${_NS_RUNNING:-}" ] || return 0
    d=$NS_CLUSTER_DIR
    _ns_path
    # Let Slurm end the jobs (and their processes) while it still can.
    # At most about 10 s of wall time, even when slurmctld does not answer.
    if _ns_alive "$d/slurmctld.pid"; then
        _ns_cancel_jobs
    fi
    # The watchdog first (it would race with us): a shell like this one,
    # unless it is gone and its pid reused.
    if [ -s "$d/watchdog.pid" ]; then
        p=$(cat "$d/watchdog.pid" 2>/dev/null)
        case $p in
            ''|*[!0-9]*) ;;
            *) _ns_pid_alive "$p" "$(cat /proc/$$/comm 2>/dev/null)" &&
                   kill -TERM "$p" 2>/dev/null ;;
        esac
        rm -f "$d/watchdog.pid"
    fi
    # All Slurm daemons together: each takes 1-2 s to exit on SIGTERM, and
    # none needs another one to shut down.  slurmctld sends its last
    # records to slurmdbd as it stops, so the accounting daemons go after
    # it: slurmdbd, then MariaDB (and munged) once slurmdbd has let go.
    if [ -s "$d/slurmdbd.pid" ] || [ -s "$d/mariadbd.pid" ]; then
        _ns_stop_pidfiles "$d"/slurmd.*.pid "$d/slurmctld.pid"
        _ns_stop_pidfiles "$d/slurmdbd.pid"
        _ns_stop_pidfiles "$d/mariadbd.pid" "$d/munged.pid"
    else
        _ns_stop_pidfiles "$d"/slurmd.*.pid "$d/slurmctld.pid" "$d/munged.pid"
    fi
    # Leftover slurmstepd of this cluster (started by our slurmd's).
    p=$(_ns_stepd_pids)
    if [ -n "$p" ]; then
        echo "# killing leftover slurmstepd processes and their tasks:" $p
        kill -KILL $p 2>/dev/null
    fi
    # cgroup plugins leave /sys/fs/cgroup/*/slurm_nsI behind; remove the
    # empty ones (rmdir fails on a cgroup that still has tasks).
    if grep -Eq '^(ProctrackType|TaskPlugin)=.*cgroup' "$d/slurm.conf" 2>/dev/null; then
        t=1
        while [ "$t" -le "$_NS_NODES" ]; do
            for p in /sys/fs/cgroup/slurm_ns$t /sys/fs/cgroup/*/slurm_ns$t; do
                [ -d "$p" ] && find "$p" -depth -type d -exec rmdir {} \; 2>/dev/null
            done
            t=$((t + 1))
        done
    fi
    unset _NS_RUNNING
    if [ "$_ns_tap_failed" -gt 0 ] || [ "$_ns_start_failed" != 0 ] ||
       [ -n "${NS_CLUSTER_KEEP:-}" ] || [ "$_NS_DIR_OWNED" != 1 ]; then
        echo "# cluster files kept in $d"
    else
        rm -rf "$d"
        unset NS_CLUSTER_DIR
        _NS_DIR_OWNED=0
    fi
    return 0
}

ns_cluster_restart_ctld () {
    local d
    d=$NS_CLUSTER_DIR
    _ns_path
    _ns_stop_pidfiles "$d/slurmctld.pid"
    _ns_start_ctld || return 1
    # Until every node answers the new slurmctld: a job submitted before
    # would be placed among fewer nodes, as stock places it then too.
    ns_wait_nodes_up "${NS_START_TIMEOUT:-30}" || {
        _ns_err "nodes do not answer the restarted slurmctld"
        ns_cluster_dump >&2
        return 1
    }
}

# ns_wait_nodes_up [TIMEOUT_S]: until no node is down, drained, failing,
# unknown, completing or not responding (sinfo's %t: no '*'), whatever
# jobs run on them.
ns_wait_nodes_up () {
    local end seen
    end=$(($(date +%s) + ${1:-30}))
    while :; do
        seen=$(timeout 10 sinfo -h -o '%t' 2>&1 | sort -u | tr '\n' ' ')
        case "$seen" in
            '') ;;
            *'*'*|*down*|*drain*|*drng*|*fail*|*unk*|*comp*|*inval*|*rror*) ;;
            *) return 0 ;;
        esac
        [ "$(date +%s)" -lt "$end" ] || break
        sleep 0.2
    done
    echo "# ns_wait_nodes_up: after ${1:-30} s sinfo says: $seen" >&2
    return 1
}

ns_cluster_reconfigure () {
    _ns_path
    scontrol reconfigure || { _ns_err "scontrol reconfigure failed"; return 1; }
    _ns_wait_ctld "${NS_START_TIMEOUT:-30}" || {
        _ns_err "slurmctld does not answer after reconfigure"
        _ns_tail "$NS_CLUSTER_DIR/slurmctld.log" 40
        return 1
    }
}

ns_cluster_log_ctld () {
    echo "$NS_CLUSTER_DIR/slurmctld.log"
}

ns_cluster_log_slurmd () {   # NODE (ns2 or 2)
    case "$1" in
        [0-9]*) echo "$NS_CLUSTER_DIR/slurmd.ns$1.log" ;;
        *) echo "$NS_CLUSTER_DIR/slurmd.$1.log" ;;
    esac
}

##
# Jobs
##
ns_sbatch () {   # ARGS... -> job id
    local out
    out=$(sbatch --parsable -D "$NS_CLUSTER_DIR/work" "$@") || return 1
    echo "${out%%;*}"
}

ns_job_field () {   # JOBID FIELD
    local rec
    rec=$(scontrol show job -o "$1" 2>/dev/null) || return 1
    printf '%s\n' "$rec" | tr ' ' '\n' | awk -v f="$2" '
        index($0, f "=") == 1 { print substr($0, length(f) + 2); found = 1; exit }
        END { exit !found }'
}

ns_poll () {   # SECONDS CMD...
    local lim t
    lim=$1; shift
    t=0
    while [ "$t" -lt $((lim * 5)) ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
        t=$((t + 1))
    done
    return 1
}

ns_all_state () {   # STATE JOBID...
    local want j
    want=$1; shift
    for j in "$@"; do
        [ "$(ns_job_field "$j" JobState)" = "$want" ] || return 1
    done
}

ns_wait_running () {   # SECONDS JOBID...
    local lim
    lim=$1; shift
    ns_poll "$lim" ns_all_state RUNNING "$@"
}

ns_twins_config () {   # WHO [FIRST [LAST]]
    cat <<EOF
// written by $1
{ ${2:-}
  "policy": "twins",
  "fallback_after": 0,
  "programs": {
    "LAM": { "spread_speedup": 1.147, "slowdown": { "LAM": 1.024 } },
    "ABQ": { "spread_speedup": 1.255 }
  },
  "identity": { "patterns": [ { "match": "lmp*", "program": "LAM" },
                              { "match": "abq*", "program": "ABQ" } ] }${3:-}
}
EOF
}

# ns_placed_program DIR NAME PACKED STRIPED BESIDE_B: DIR/NAME.sh, a job
# script (#!/bin/sh, --mem=100) whose run time follows its placement: it
# sleeps until its start + PACKED seconds on one node, STRIPED on more,
# or BESIDE_B when a running job named B shares its first node (found
# with squeue), as a program with known figures would (spread_speedup
# PACKED/STRIPED, slowdown beside B BESIDE_B/STRIPED).
ns_placed_program () {   # DIR NAME PACKED STRIPED BESIDE_B
    cat >"$1/$2.sh" <<EOF
#!/bin/sh
# test program $2: packed $3 s, striped $4 s, striped beside B $5 s
#SBATCH --mem=100
t0=\$(date +%s.%N)
secs=$3
if [ "\${SLURM_JOB_NUM_NODES:-1}" -gt 1 ]; then
    secs=$4
    first=\$(scontrol show hostnames "\$SLURM_JOB_NODELIST" | head -n 1)
    other=\$(squeue -h -t R -w "\$first" -o '%A %j' |
             awk -v me="\$SLURM_JOB_ID" '\$1 != me { print \$2; exit }')
    [ "\$other" = B ] && secs=$5
fi
exec sleep "\$(awk -v t0="\$t0" -v s="\$secs" -v now="\$(date +%s.%N)" \\
    'BEGIN { d = t0 + s - now; printf "%.3f", (d > 0 ? d : 0) }')"
EOF
    chmod 755 "$1/$2.sh"
}

ns_job_nodes_cpus () {   # JOBID
    scontrol show job -d "$1" 2>/dev/null |
        awk '/^ *Nodes=.* CPU_IDs=/ {
                 n = ""; c = ""
                 for (i = 1; i <= NF; i++) {
                     if ($i ~ /^Nodes=/) n = substr($i, 7)
                     if ($i ~ /^CPU_IDs=/) c = substr($i, 9)
                 }
                 print n, c
             }'
}

# ns_job_cpus_per_node JOBID: the job's CPU count on each of its nodes,
# e.g. "12 12" from CPU_IDs=0-5,12-17 on ns[1-2].
ns_job_cpus_per_node () {   # JOBID
    ns_job_nodes_cpus "$1" | awk '
        function count(list,   n, i, a, r) {
            n = 0
            split(list, a, ",")
            for (i in a) {
                if (split(a[i], r, "-") == 2) n += r[2] - r[1] + 1
                else n++
            }
            return n
        }
        { cmd = "scontrol show hostnames " $1
          while ((cmd | getline h) > 0) printf "%s%d", (out++ ? " " : ""), count($2)
          close(cmd) }
        END { print "" }'
}

ns_wait_job_state () {   # JOBID STATE [TIMEOUT_S]
    local id want lim t st
    id=$1 want=$2 lim=${3:-30}
    t=0
    st=""
    while [ "$t" -lt $((lim * 5)) ]; do
        st=$(ns_job_field "$id" JobState)
        [ "$st" = "$want" ] && return 0
        case "$st" in
            COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)
                # final: it will not change any more
                break ;;
        esac
        sleep 0.2
        t=$((t + 1))
    done
    echo "# job $id: wanted JobState=$want, last seen '${st:-<none>}'"
    scontrol show job "$id" 2>&1 | sed 's/^/#   /'
    return 1
}

##
# Configless slurmd (tests/slurm/configless.sh)
##

# _ns_unshare_propagation: the --propagation for `unshare -m`: private;
# where that fails (inside a chroot whose / is no mount point, e.g.
# scripts/debian-root.sh) unchanged, but only when no mount is shared
# (nothing mounted in the new namespace can then reach another one).
# Status 1 when neither is safe.
_ns_unshare_propagation () {
    if unshare -m --propagation private true 2>/dev/null; then
        echo private
    elif ! grep -q ' shared:' /proc/self/mountinfo 2>/dev/null &&
         unshare -m --propagation unchanged true 2>/dev/null; then
        echo unchanged
    else
        return 1
    fi
}

# ns_private_run_can_run: 0 when the scenario can run in a private mount
# namespace (root, unshare -m and mount work); else prints why, returns 1.
ns_private_run_can_run () {
    if [ "$(id -u)" != 0 ]; then
        echo "not root (a private mount namespace needs root)"
        return 1
    fi
    if ! command -v unshare >/dev/null 2>&1; then
        echo "unshare not installed (util-linux)"
        return 1
    fi
    if ! _ns_unshare_propagation >/dev/null; then
        echo "unshare -m fails here, or the mounts are shared and cannot be made private"
        return 1
    fi
    if ! unshare -m --propagation "$(_ns_unshare_propagation)" sh -c \
            'mount -t tmpfs nstest /mnt 2>/dev/null || mount -t tmpfs nstest /tmp' \
            >/dev/null 2>&1; then
        echo "unshare -m plus mount -t tmpfs fails here (no CAP_SYS_ADMIN?)"
        return 1
    fi
    return 0
}

# ns_private_run_enter SCRIPT [ARG...]: re-executes the scenario (same
# shell, same pid) in a private mount namespace, then mounts a tmpfs on
# /run there.  Configless slurmd fetches its configuration through
# munge's compiled-in socket (/run/munge/munge.socket.2) before it knows
# AuthInfo, and links /run/slurm/conf to its conf-cache: both land in
# that private /run, where ns_cluster_start_configless links munge's
# default socket to the cluster's munged.  The machine's own /run is not
# touched.  Status 1 (with the reason on stderr) if the mount fails.
ns_private_run_enter () {
    local sh
    if [ -z "${_NS_PRIVATE_RUN:-}" ]; then
        _NS_PRIVATE_RUN=1
        export _NS_PRIVATE_RUN
        sh=$(readlink /proc/$$/exe 2>/dev/null) || sh=/bin/sh
        exec unshare -m --propagation "$(_ns_unshare_propagation)" "$sh" "$@"
    fi
    mount -t tmpfs -o mode=755 nsrun /run ||
        { _ns_err "cannot mount a tmpfs on /run in the private namespace"; return 1; }
    mkdir -p /run/munge
}

# _ns_cluster_prologue NODES: what ns_cluster_start does before it writes
# slurm.conf (the directory, SLURM_CONF, the node count).
_ns_cluster_prologue () {
    _ns_path
    if [ -n "${_NS_RUNNING:-}" ]; then
        _ns_err "a cluster is already running in $NS_CLUSTER_DIR (ns_cluster_stop first)"
        return 1
    fi
    _ns_start_failed=1
    if [ -n "${NS_CLUSTER_DIR:-}" ] && [ "${_NS_DIR_OWNED}" = 0 ]; then
        mkdir -p "$NS_CLUSTER_DIR" || return 1
    else
        NS_CLUSTER_DIR=$(mktemp -d "${NS_TMPDIR:-/tmp}/nscluster.XXXXXX") || return 1
        _NS_DIR_OWNED=1
    fi
    NS_CLUSTER_DIR=$(cd "$NS_CLUSTER_DIR" && pwd)
    export NS_CLUSTER_DIR
    if [ ${#NS_CLUSTER_DIR} -gt 70 ]; then
        _ns_err "NS_CLUSTER_DIR too long for unix sockets: $NS_CLUSTER_DIR"
        return 1
    fi
    chmod 755 "$NS_CLUSTER_DIR"
    mkdir -p "$NS_CLUSTER_DIR/state" "$NS_CLUSTER_DIR/spool" "$NS_CLUSTER_DIR/work"
    _NS_NODES=$1
    _NS_RUNNING=1
    unset SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID SLURM_NODELIST SLURM_JOB_NODELIST \
          SLURM_NTASKS SLURM_NPROCS SLURM_CPUS_ON_NODE SLURM_PARTITION 2>/dev/null
    SLURM_CONF=$NS_CLUSTER_DIR/slurm.conf
    export SLURM_CONF
}

# _ns_cluster_epilogue T0 NODES CORES STATUS: the end of a start.
_ns_cluster_epilogue () {
    if [ "$4" != 0 ]; then
        _ns_err "start failed; files in $NS_CLUSTER_DIR"
        ns_cluster_stop >&2
        return 1
    fi
    _ns_start_watchdog
    echo "# cluster up: $2 nodes x $3 cores in $(($(date +%s) - $1)) s, dir $NS_CLUSTER_DIR"
    _ns_start_failed=0
    return 0
}

# ns_cluster_start_configless NODES CORES: ns_cluster_start, but
# SlurmctldParameters=enable_configless, no PlugStackConfig (the default,
# plugstack.conf beside slurm.conf, is what configless ships), and each
# slurmd started as `slurmd -N nsI --conf-server 127.0.0.1:PORT` without
# -f and without SLURM_CONF in its environment: it fetches its files into
# $NS_CLUSTER_DIR/spool/nsI/conf-cache.  Call ns_private_run_enter first
# (munge's default socket is linked to the cluster's munged in the
# private /run).  ns_cluster_stop stops it.
ns_cluster_start_configless () {   # NODES CORES
    local nodes cores t0 d port i rc
    nodes=${1:?ns_cluster_start_configless NODES CORES}
    cores=${2:?ns_cluster_start_configless NODES CORES}
    if [ -z "${_NS_PRIVATE_RUN:-}" ]; then
        _ns_err "ns_cluster_start_configless: call ns_private_run_enter first"
        return 1
    fi
    t0=$(date +%s)
    _ns_cluster_prologue "$nodes" || return 1
    d=$NS_CLUSTER_DIR
    rc=0
    {
        _ns_check_addrconfig &&
        _ns_write_conf "$nodes" "$cores" &&
        sed -i '/^PlugStackConfig=/d' "$d/slurm.conf" &&
        echo "SlurmctldParameters=enable_configless" >>"$d/slurm.conf" &&
        _ns_start_munged &&
        ln -sf "$d/munge.socket" /run/munge/munge.socket.2 &&
        _ns_start_ctld -c
    } || rc=1
    if [ "$rc" = 0 ]; then
        port=$(sed -n 's/^SlurmctldPort=//p' "$d/slurm.conf")
        i=1
        while [ "$i" -le "$nodes" ]; do
            _ns_start_slurmd_configless "ns$i" "127.0.0.1:$port" || { rc=1; break; }
            i=$((i + 1))
        done
    fi
    if [ "$rc" = 0 ] && ! _ns_wait_idle_nodes "${NS_START_TIMEOUT:-30}"; then
        _ns_err "nodes did not become idle within ${NS_START_TIMEOUT:-30} s"
        ns_cluster_dump >&2
        rc=1
    fi
    _ns_cluster_epilogue "$t0" "$nodes" "$cores" "$rc"
}

# _ns_start_slurmd_configless NODE SERVER
_ns_start_slurmd_configless () {
    local d mark
    d=$NS_CLUSTER_DIR
    mkdir -p "$d/spool/$1"
    rm -f "$d/slurmd.$1.pid"
    mark=$(_ns_lines "$d/slurmd.$1.log")
    (cd "$d" && env -u SLURM_CONF slurmd -N "$1" --conf-server "$2" \
        </dev/null >>"$d/slurmd.$1.out" 2>&1)
    if [ $? -ne 0 ] || ! _ns_wait_pidfile "$d/slurmd.$1.pid" 10 "$d/slurmd.$1.log" "$mark"; then
        _ns_err "configless slurmd $1 did not start"
        _ns_tail "$d/slurmd.$1.out"; _ns_tail "$d/slurmd.$1.log" 40
        return 1
    fi
}

# ns_slurmd_conf_cache NODE: the directory where configless slurmd NODE
# keeps the files it fetched.
ns_slurmd_conf_cache () {
    echo "$NS_CLUSTER_DIR/spool/$1/conf-cache"
}

##
# A primary and a backup slurmctld (tests/slurm/failover.sh)
##

# ns_failover_can_run: ns_cluster_can_run, and unshare can give a process
# its own mount and UTS namespaces; else prints why, returns 1.
ns_failover_can_run () {
    ns_cluster_can_run || return 1
    if ! command -v unshare >/dev/null 2>&1; then
        echo "unshare not installed (util-linux)"
        return 1
    fi
    if ! _ns_unshare_propagation >/dev/null; then
        echo "unshare -m fails here, or the mounts are shared and cannot be made private"
        return 1
    fi
    if ! unshare -m -u --propagation "$(_ns_unshare_propagation)" sh -c 'hostname nsfailover' >/dev/null 2>&1; then
        echo "unshare -m -u fails here (no CAP_SYS_ADMIN?)"
        return 1
    fi
    return 0
}

# ns_cluster_start_failover NODES CORES: ns_cluster_start with two
# controllers, SlurmctldHost=ctlA(127.0.0.1) (primary) and
# SlurmctldHost=ctlB(127.0.0.2) (backup), sharing StateSaveLocation.
# Each slurmctld runs in its own UTS namespace (host name ctlA or ctlB:
# slurmctld finds its role by its host name) and mount namespace, where
# $NS_CLUSTER_DIR/ctl is its own ctlA/ or ctlB/ (SlurmctldPidFile and
# SlurmctldLogFile are $NS_CLUSTER_DIR/ctl/slurmctld.{pid,log}) and
# /etc/hosts is $NS_CLUSTER_DIR/hosts (the machine's plus ctlA, ctlB).
# CommunicationParameters=NoCtldInAddrAny: each binds SlurmctldPort on its
# own address.  SlurmctldTimeout is $NS_FAILOVER_TIMEOUT (default 5).
# Waits until both answer `scontrol ping` and the nodes are idle.
# Stop with ns_failover_stop (or ns_cluster_stop after it).
ns_cluster_start_failover () {   # NODES CORES
    local nodes cores t0 d i rc
    nodes=${1:?ns_cluster_start_failover NODES CORES}
    cores=${2:?ns_cluster_start_failover NODES CORES}
    t0=$(date +%s)
    _ns_cluster_prologue "$nodes" || return 1
    d=$NS_CLUSTER_DIR
    rc=0
    mkdir -p "$d/ctl" "$d/ctlA" "$d/ctlB"
    {
        _ns_check_addrconfig &&
        _ns_write_conf "$nodes" "$cores" &&
        sed -i -e 's/^SlurmctldHost=.*/SlurmctldHost=ctlA(127.0.0.1)\nSlurmctldHost=ctlB(127.0.0.2)/' \
               -e "s|^SlurmctldPidFile=.*|SlurmctldPidFile=$d/ctl/slurmctld.pid|" \
               -e "s|^SlurmctldLogFile=.*|SlurmctldLogFile=$d/ctl/slurmctld.log|" \
               -e "s|^SlurmctldTimeout=.*|SlurmctldTimeout=${NS_FAILOVER_TIMEOUT:-5}|" \
               "$d/slurm.conf" &&
        echo "CommunicationParameters=NoCtldInAddrAny" >>"$d/slurm.conf" &&
        { cat /etc/hosts; printf '127.0.0.1 ctlA\n127.0.0.2 ctlB\n'; } >"$d/hosts" &&
        _ns_start_munged &&
        ns_failover_start_ctld A -c &&
        ns_failover_start_ctld B
    } || rc=1
    if [ "$rc" = 0 ]; then
        _ns_failover_watchdog
        i=1
        while [ "$i" -le "$nodes" ]; do
            _ns_start_slurmd "ns$i" || { rc=1; break; }
            i=$((i + 1))
        done
    fi
    if [ "$rc" = 0 ] && ! _ns_wait_idle_nodes "${NS_START_TIMEOUT:-30}"; then
        _ns_err "nodes did not become idle within ${NS_START_TIMEOUT:-30} s"
        ns_cluster_dump >&2
        rc=1
    fi
    if [ "$rc" != 0 ]; then
        _ns_stop_pidfiles "$d/ctlA/slurmctld.pid" "$d/ctlB/slurmctld.pid"
    fi
    _ns_cluster_epilogue "$t0" "$nodes" "$cores" "$rc"
}

# ns_failover_start_ctld A|B [SLURMCTLD ARGS]: starts controller ctlA or
# ctlB (see ns_cluster_start_failover); waits until `scontrol ping` says
# it is UP (a backup answers too).
ns_failover_start_ctld () {
    local d x mark t
    d=$NS_CLUSTER_DIR x=$1
    shift
    rm -f "$d/ctl$x/slurmctld.pid"
    mark=$(_ns_lines "$d/ctl$x/slurmctld.log")
    # shellcheck disable=SC2016
    (cd "$d" && unshare -m -u --propagation "$(_ns_unshare_propagation)" sh -c '
        mount --bind "$1/ctl$2" "$1/ctl" && mount --bind "$1/hosts" /etc/hosts &&
        hostname "ctl$2" || exit 1
        shift 2
        exec slurmctld -f "$SLURM_CONF" "$@"' sh "$d" "$x" "$@" \
        </dev/null >>"$d/ctl$x/slurmctld.out" 2>&1)
    if [ $? -ne 0 ] ||
       ! _ns_wait_pidfile "$d/ctl$x/slurmctld.pid" 10 "$d/ctl$x/slurmctld.log" "$mark"; then
        _ns_err "slurmctld ctl$x did not start"
        _ns_tail "$d/ctl$x/slurmctld.out"; _ns_tail "$d/ctl$x/slurmctld.log" 40
        return 1
    fi
    t=$(($(date +%s) + ${NS_START_TIMEOUT:-30}))
    while [ "$(date +%s)" -lt "$t" ]; do
        timeout 10 scontrol ping 2>/dev/null | grep -q "ctl$x is UP" && return 0
        _ns_alive "$d/ctl$x/slurmctld.pid" || break
        sleep 0.2
    done
    _ns_err "slurmctld ctl$x does not answer scontrol ping"
    timeout 10 scontrol ping 2>&1 | sed 's/^/#   /' >&2
    _ns_tail "$d/ctl$x/slurmctld.log" 40
    return 1
}

# ns_failover_pid A|B: the pid of controller ctlA or ctlB (status 1 when
# it does not run).
ns_failover_pid () {
    _ns_alive "$NS_CLUSTER_DIR/ctl$1/slurmctld.pid" || return 1
    cat "$NS_CLUSTER_DIR/ctl$1/slurmctld.pid"
}

# ns_failover_log A|B: the path of controller ctlA's or ctlB's log.
ns_failover_log () {
    echo "$NS_CLUSTER_DIR/ctl$1/slurmctld.log"
}

# ns_failover_ping_is UP|DOWN UP|DOWN: `scontrol ping` says ctlA is the
# first and ctlB the second.
ns_failover_ping_is () {
    local out
    out=$(timeout 15 scontrol ping 2>&1)
    printf '%s\n' "$out" | grep -q "ctlA is $1" &&
        printf '%s\n' "$out" | grep -q "ctlB is $2"
}

# _ns_failover_watchdog: stops both controllers (by their pid files) if
# the scenario dies without ns_failover_stop (the watchdog of
# ns_cluster_start knows only $NS_CLUSTER_DIR/slurmctld.pid).
_ns_failover_watchdog () {
    local owner
    owner=$$
    (
        trap '' INT HUP
        while _ns_pid_alive "$owner"; do sleep 1; done
        d=$NS_CLUSTER_DIR
        [ -d "$d" ] && _ns_stop_pidfiles "$d/ctlA/slurmctld.pid" "$d/ctlB/slurmctld.pid"
    ) </dev/null >/dev/null 2>&1 &
    echo $! >"$NS_CLUSTER_DIR/watchdog-ctl.pid"
}

# ns_failover_stop: cancels the jobs (through whichever controller
# answers), stops both controllers by their pid files, then
# ns_cluster_stop (slurmd, munged, the directory).  Idempotent.
ns_failover_stop () {
    local d p t
    [ -n "${NS_CLUSTER_DIR:-}" ] && [ -n "${_NS_RUNNING:-}" ] || return 0
    d=$NS_CLUSTER_DIR
    _ns_path
    if _ns_alive "$d/ctlA/slurmctld.pid" || _ns_alive "$d/ctlB/slurmctld.pid"; then
        _ns_cancel_jobs
    fi
    if [ -s "$d/watchdog-ctl.pid" ]; then
        p=$(cat "$d/watchdog-ctl.pid" 2>/dev/null)
        case $p in
            ''|*[!0-9]*) ;;
            *) _ns_pid_alive "$p" "$(cat /proc/$$/comm 2>/dev/null)" &&
                   kill -TERM "$p" 2>/dev/null ;;
        esac
        rm -f "$d/watchdog-ctl.pid"
    fi
    _ns_stop_pidfiles "$d/ctlA/slurmctld.pid" "$d/ctlB/slurmctld.pid"
    ns_cluster_stop
}
