#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# plugin-symbols.sh - the plugins load: every symbol the select plugin
# leaves undefined is defined by slurmctld, the libraries slurmctld links
# (libslurmfull, libc ...) or the libraries the plugin itself needs, and
# the SPANK plugin's by the libraries it needs or those of slurmd (TAP).
# A symbol that nothing defines makes slurmctld exit at startup ("symbol
# lookup error"), which a build does not notice: a plugin links with
# undefined symbols.  Skipped for a plugin not built, or without the
# installed daemon, nm or ldd.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"

daemon () {   # NAME: its path, or nothing
    for d in /usr/sbin /usr/local/sbin /usr/bin; do
        [ -x "$d/$1" ] && { echo "$d/$1"; return; }
    done
    command -v "$1" 2>/dev/null
}

# defined FILE...: the dynamic symbols the files define, one a line.
defined () {
    for f in "$@"; do
        nm -D --defined-only "$f" 2>/dev/null | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }'
    done
}

# libs FILE: the shared libraries FILE needs (ldd), one a line.
libs () {
    ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
}

# check NAME PLUGIN DAEMON
check () {
    plugin=$1/$2 d=$(daemon "$3")
    if [ ! -f "$plugin" ]; then
        skip "$2 not built"
        return
    fi
    if [ -z "$d" ] || ! command -v nm >/dev/null || ! command -v ldd >/dev/null; then
        skip "$2: no $3, nm or ldd"
        return
    fi
    # shellcheck disable=SC2046
    defined "$d" $(libs "$d") $(libs "$plugin") | sort -u >"$tmp/have"
    nm -D --undefined-only "$plugin" | awk '$1 == "U" { sub(/@.*/, "", $2); print $2 }' |
        sort -u >"$tmp/need"
    comm -23 "$tmp/need" "$tmp/have" >"$tmp/missing"
    if [ ! -s "$tmp/missing" ]; then
        pass "$2: its $(wc -l <"$tmp/need" | tr -d ' ') undefined symbols are defined by $3 or the libraries it or the plugin links"
    else
        fail "$2: undefined symbols nothing defines"
        sed 's/^/#   /' "$tmp/missing" | head -20
    fi
}

check "$top_builddir/select/.libs" select_cons_tres_nodeshare.so slurmctld
check "$top_builddir/spank/.libs" nodeshare.so slurmd
tap_end
