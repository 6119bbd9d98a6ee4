#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeshare-rebuild.sh - what cmd/nodeshare-rebuild does with a store,
# without touching Slurm's plugin directory (TAP): --plugin, --stock,
# --spank-dir and --store point at a scratch directory, --slurm-version
# stands for `slurmctld -V`.  The store's builds are copies of the select
# plugin of this build tree (its marker names the Slurm it was built
# for); one for another release is that file with the marker rewritten.
# `build` itself, and the whole path through a Slurm upgrade, run in
# tests/slurm/upgrade.sh (.ci/upgrade).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"
tool=$top_builddir/cmd/nodeshare-rebuild
so=$top_builddir/select/.libs/select_cons_tres_nodeshare.so
if [ ! -x "$tool" ] || [ ! -f "$so" ]; then
    skip "select plugin not built (configure --with-slurm-source=DIR|auto)"
    tap_end; exit $?
fi
v=$(grep -ao 'nodeshare-select-plugin-for-slurm=[0-9][0-9.]*' "$so" | head -n 1 | sed 's/.*=//')
if [ -n "$v" ]; then pass "the plugin says which Slurm it is for: $v"; else fail "no marker in $so"; fi
separate=$(sed -n 's/^NS_SEPARATE_PLUGINDIR = //p' "$top_builddir/Makefile")
# Another release of the same length (26.05.3 -> 26.05.9): the marker
# rewritten in a copy, nothing else changes.
w=$(echo "$v" | sed 's/[0-9]$/9/')
[ "$w" != "$v" ] || w=$(echo "$v" | sed 's/[0-9]$/8/')

mkdir -p "$tmp/plugins" "$tmp/spank" "$tmp/stockdir"
cp "$so" "$tmp/stockdir/select_cons_tres.so"   # any file stands for stock
t () { "$tool" --store "$tmp/store" --plugin "$tmp/plugins/select_cons_tres_nodeshare.so" \
        --stock "$tmp/stockdir/select_cons_tres.so" --spank-dir "$tmp/spank" "$@"; }
marker () { grep -ao 'nodeshare-select-plugin-for-slurm=[0-9][0-9.]*' "$1" 2>/dev/null | head -n 1 | sed 's/.*=//'; }

expect_out "--help names the three commands" 0 "activate" "$tool" --help
expect_out "an unknown command is refused" 2 "unknown command 'frobnicate'" "$tool" frobnicate
expect_out "no command: one line, status 2" 2 "nodeshare-rebuild: expected a command: build, activate or status (see --help)" "$tool"
out=$("$tool" 2>&1)
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
    pass "  and no usage dump" || fail "  and no usage dump: $out"
expect_out "build without --slurm-source says what it needs" 2 "build needs --slurm-source DIR" t build
expect_out "build in a directory that is no Slurm tree says so" 2 "no configured Slurm tree there" t build --slurm-source "$tmp"
expect_out "status, nothing in place: exit 1" 1 "plugin in place:  none" t status --slurm-version "$v"

# A build for $v in the store, none in place: activate puts it there.
mkdir -p "$tmp/store/$v"
cp "$so" "$tmp/store/$v/select_cons_tres_nodeshare.so"
printf 'spank for %s\n' "$v" >"$tmp/store/$v/nodeshare.so"
expect_out "activate on $v puts the store's build in place" 0 "for Slurm $v in place (was: none)" t activate --slurm-version "$v"
if cmp -s "$so" "$tmp/plugins/select_cons_tres_nodeshare.so" && grep -q "spank for $v" "$tmp/spank/nodeshare.so"; then
    pass "  the select and SPANK plugins in place are the store's"
else
    fail "  the select and SPANK plugins in place are the store's"
fi
expect_out "status: the plugin in place is for $v (exit 0)" 0 "built for Slurm $v" t status --slurm-version "$v"
expect_out "activate again: nothing to do" 0 "nothing to do" t activate --slurm-version "$v"

# The installed Slurm becomes $w, the store has no build for it.
if [ "$separate" = no ]; then
    expect_out "activate on $w without a build: stock cons_tres under nodeshare's name, exit 0" 0 \
        "slurmctld will place every job exactly as stock select/cons_tres does" t activate --slurm-version "$w"
    if [ "$(readlink "$tmp/plugins/select_cons_tres_nodeshare.so")" = "$tmp/stockdir/select_cons_tres.so" ]; then
        pass "  the plugin in place is a link to the stock select_cons_tres.so"
    else
        fail "  the plugin in place is a link to the stock select_cons_tres.so"
    fi
    expect_out "  status says so, exit 1" 1 "stock cons_tres under nodeshare's name" t status --slurm-version "$w"
else
    expect_out "activate on $w without a build (Slurm up to 24.11): exit 1, says what to do" 1 \
        "Slurm up to 24.11 cannot start with select/cons_tres_nodeshare missing" t activate --slurm-version "$w"
    if cmp -s "$so" "$tmp/plugins/select_cons_tres_nodeshare.so"; then
        pass "  the plugin in place is unchanged"
    else
        fail "  the plugin in place is unchanged"
    fi
    skip "a link to stock cons_tres only from Slurm 25.05"
fi

# A build for $w appears (its marker rewritten): activate puts it in place
# and the store still has $v's.
mkdir -p "$tmp/store/$w"
sed "s/nodeshare-select-plugin-for-slurm=$v/nodeshare-select-plugin-for-slurm=$w/" "$so" >"$tmp/store/$w/select_cons_tres_nodeshare.so"
expect_out "activate on $w with a build for it" 0 "for Slurm $w in place" t activate --slurm-version "$w"
[ "$(marker "$tmp/plugins/select_cons_tres_nodeshare.so")" = "$w" ] &&
    pass "  the plugin in place is built for $w" || fail "  the plugin in place is built for $w"
# Back to $v (a site going back): the build kept in the store returns.
expect_out "activate on $v again: the kept build returns" 0 "for Slurm $v in place (was: $w)" t activate --slurm-version "$v"
cmp -s "$so" "$tmp/plugins/select_cons_tres_nodeshare.so" &&
    pass "  byte for byte the build for $v" || fail "  byte for byte the build for $v"
# A store entry whose file is for another release is refused.
mkdir -p "$tmp/store/1.2.3"
cp "$so" "$tmp/store/1.2.3/select_cons_tres_nodeshare.so"
expect_out "a store entry built for another release is refused" 2 "is not a build for Slurm 1.2.3" t activate --slurm-version 1.2.3
cmp -s "$so" "$tmp/plugins/select_cons_tres_nodeshare.so" &&
    pass "  the plugin in place is unchanged" || fail "  the plugin in place is unchanged"
tap_end
