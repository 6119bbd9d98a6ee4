#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeshare-plugindir.sh - nodeshare-plugindir without a cluster: its
# command line, a PluginDir made from the installed Slurm's plugins and
# the built select plugin, --check, and the refusals, each one line with
# its status (TAP).  Skipped where the build needs no private PluginDir
# (Slurm 25.05 and later) or without the installed Slurm's plugins.  The
# cluster scenarios run slurmctld on the PluginDirs it makes.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"

tool=$top_builddir/cmd/nodeshare-plugindir
plugin=$top_builddir/select/.libs/select_cons_tres_nodeshare.so

run "$tool"
refused "no DIR" 2 "nodeshare-plugindir: expected one DIR, the PluginDir"
run "$tool" a b
refused "two DIRs" 2 "nodeshare-plugindir: expected one DIR, the PluginDir"
run "$tool" --bogus d
refused "an unknown option" 2 "nodeshare-plugindir: unknown option '--bogus'"

if grep -q '^NS_SEPARATE_PLUGINDIR = no$' "$top_builddir/Makefile"; then
    skip "this Slurm needs no private PluginDir"
    tap_end
    exit
fi
if [ ! -f "$plugin" ]; then
    skip "select plugin not built (configure --with-slurm-source)"
    tap_end
    exit
fi
stock=$(sed -n 's/^SLURM_STOCK_CONS_TRES = //p' "$top_builddir/Makefile")
if [ ! -f "$stock" ]; then
    skip "the installed Slurm's select_cons_tres.so not found ($stock)"
    tap_end
    exit
fi
stockdir=$(dirname "$stock")

: >"$tmp/afile"
run "$tool" --plugin "$plugin" "$tmp/afile"
refused "DIR a file" 2 "nodeshare-plugindir: $tmp/afile is not a directory"
run "$tool" --plugin "$plugin" "$tmp/afile/sub"
refused "DIR that cannot be made: status 1, mkdir's reason" 1 \
    "nodeshare-plugindir: cannot create $tmp/afile/sub: "
run "$tool" --plugin "$tmp/nope.so" "$tmp/pd"
refused "the plugin missing" 2 "nodeshare-plugindir: $tmp/nope.so: no such select plugin"
run "$tool" --plugin "$plugin" "$stockdir"
refused "Slurm's own plugin directory" 2 \
    "nodeshare-plugindir: $stockdir is Slurm's own plugin directory"

# A relative DIR: made, and the PluginDir line says it absolute.
nstock=0
for f in "$stockdir"/*.so; do
    case $(basename "$f") in
        select_cons_tres.so|select_cons_tres_nodeshare.so) ;;
        *) [ -e "$f" ] && nstock=$((nstock + 1)) ;;
    esac
done
want=$((nstock + 1))
(cd "$tmp" && "$tool" --plugin "$plugin" pd) >"$tmp/out" 2>"$tmp/err"
st=$?
if [ "$st" = 0 ] && [ ! -s "$tmp/err" ] \
   && grep -q "^nodeshare-plugindir: $tmp/pd: $want plugins ($want links made, 0 removed); set PluginDir=$tmp/pd in slurm.conf$" "$tmp/out"
then
    pass "relative DIR: $want links, PluginDir=$tmp/pd (absolute)"
else
    fail "relative DIR: $want links, PluginDir absolute (exit $st)"
    sed 's/^/#   /' "$tmp/out" "$tmp/err"
fi
links_ok=1
[ "$(readlink "$tmp/pd/select_cons_tres_nodeshare.so")" = "$plugin" ] || links_ok=0
[ ! -e "$tmp/pd/select_cons_tres.so" ] || links_ok=0
if [ "$links_ok" = 1 ]; then
    pass "the select plugin linked, no select_cons_tres.so"
else
    fail "the select plugin linked, no select_cons_tres.so"
    ls -l "$tmp/pd" | head -5 | sed 's/^/#   /'
fi
run "$tool" --plugin "$plugin" --check "$tmp/pd"
if [ "$st" = 0 ] && grep -q "is up to date" "$tmp/out"; then
    pass "--check: up to date, status 0"
else
    fail "--check: up to date, status 0 (exit $st)"
fi
rm -f "$tmp/pd/select_cons_tres_nodeshare.so"
ln -s "$tmp/gone.so" "$tmp/pd/select_gone.so"
run "$tool" --plugin "$plugin" --check "$tmp/pd"
if [ "$st" = 1 ] && grep -q "select_cons_tres_nodeshare.so should link to $plugin" "$tmp/out" \
   && grep -q "select_gone.so should not be there" "$tmp/out" \
   && [ ! -e "$tmp/pd/select_cons_tres_nodeshare.so" ]; then
    pass "--check: a link missing and a dangling one said, status 1, nothing changed"
else
    fail "--check: out of date (exit $st)"
    sed 's/^/#   /' "$tmp/out"
fi
run "$tool" --plugin "$plugin" -q "$tmp/pd"
if [ "$st" = 0 ] && [ ! -s "$tmp/out" ] \
   && [ "$(readlink "$tmp/pd/select_cons_tres_nodeshare.so")" = "$plugin" ] \
   && [ ! -L "$tmp/pd/select_gone.so" ]; then
    pass "again, -q: the link made, the dangling one removed, nothing said"
else
    fail "again, -q (exit $st)"
    sed 's/^/#   /' "$tmp/out" "$tmp/err"
fi
tap_end
