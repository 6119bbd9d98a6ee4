# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cmd/tap.sh - what tests/cmd/*.sh share (sourced after they set
# top_srcdir): top_builddir, a scratch directory $tmp removed at exit,
# and TAP points.
#   pass NAME / fail NAME / skip REASON    one point each
#   tap_end                                the plan; status 0 if none failed
#   expect_out NAME STATUS PATTERN CMD...  one point: CMD exits with STATUS
#                                          and its combined output holds
#                                          PATTERN (a fixed string)
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
