# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cmd/tap.sh - what tests/cmd/*.sh share (sourced after they set
# top_srcdir): top_builddir, a scratch directory $tmp removed at exit,
# and TAP points.
#   pass NAME / fail NAME / skip REASON    one point each
#   tap_end                                the plan; status 0 if none failed
#   expect_out NAME STATUS PATTERN CMD...  one point: CMD exits with STATUS
#                                          and its combined output holds
#                                          PATTERN (a fixed string)
#   run CMD...                             CMD's status in $st, its stdout
#                                          and stderr in $tmp/out, $tmp/err
#   refused NAME STATUS PREFIX             one point: the last run exited
#                                          with STATUS, printed nothing on
#                                          stdout and one line on stderr
#                                          beginning with PREFIX
#   slurm_conf_down FILE                   a slurm.conf whose slurmctld
#                                          nobody answers (port 1, a
#                                          one-second message timeout)
# shellcheck shell=sh
top_builddir=${top_builddir:-$(pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

pass () { n=$((n + 1)); echo "ok $n - $1"; }
fail () { n=$((n + 1)); echo "not ok $n - $1"; failed=$((failed + 1)); }
skip () { n=$((n + 1)); echo "ok $n # SKIP $1"; }
tap_end () { echo "1..$n"; [ "$failed" -eq 0 ]; }

expect_out () {
    eo_name=$1 eo_want=$2 eo_pattern=$3
    shift 3
    eo_out=$("$@" 2>&1)
    eo_got=$?
    if [ "$eo_got" = "$eo_want" ] \
       && printf '%s\n' "$eo_out" | grep -qF -- "$eo_pattern"; then
        pass "$eo_name"
    else
        fail "$eo_name"
        echo "# exit $eo_got (want $eo_want), output:"
        printf '%s\n' "$eo_out" | head -20 | sed 's/^/#   /'
        echo "# wanted: $eo_pattern"
    fi
}

run () {
    "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
}

refused () {
    if [ "$st" = "$2" ] && [ ! -s "$tmp/out" ] \
       && [ "$(wc -l <"$tmp/err")" -eq 1 ] \
       && [ "$(head -c ${#3} "$tmp/err")" = "$3" ]; then
        pass "$1: $(cat "$tmp/err")"
    else
        fail "$1"
        echo "# exit $st (want $2); stdout:"
        sed 's/^/#   /' "$tmp/out"
        echo "# stderr (want one line beginning '$3'):"
        sed 's/^/#   /' "$tmp/err"
    fi
}

slurm_conf_down () {
    cat >"$1" <<EOF
ClusterName=down
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=1
MessageTimeout=1
NodeName=n1 CPUs=2 State=UNKNOWN
PartitionName=p Nodes=n1 Default=YES
EOF
}
