# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cmd/tap.sh - what tests/cmd/*.sh share (sourced after they set
# top_srcdir): top_builddir, a scratch directory $tmp removed at exit,
# and TAP points.
#   pass NAME / fail NAME / skip REASON    one point each
#   tap_end                                the plan; status 0 if none failed
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
