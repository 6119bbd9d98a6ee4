#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# versions.sh - every command nodeshare installs answers -V and --version
# with one line "COMMAND VERSION" on stdout (the version configure gave
# it) and status 0, names -V and --version in its --help and in its
# manual page (TAP).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"

version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' \
          "$top_builddir/config.h")
if [ -z "$version" ]; then
    fail "PACKAGE_VERSION in $top_builddir/config.h"
    tap_end
    exit
fi

# nodeshare-rebuild comes with the select plugin (configure
# --with-slurm-source)
with_plugin=$(sed -n 's/^SLURM_SOURCE = //p' "$top_builddir/Makefile")

# COMMAND PATH MANPAGE
while read -r cmd path man; do
    exe=$top_builddir/$path
    if [ "$cmd" = nodeshare-rebuild ] && [ -z "$with_plugin" ]; then
        skip "$cmd: built only with the select plugin (--with-slurm-source)"
        continue
    fi
    if [ ! -x "$exe" ]; then
        fail "$cmd: $exe is built"
        continue
    fi
    for opt in -V --version; do
        out=$("$exe" "$opt" 2>"$tmp/err")
        rc=$?
        if [ "$rc" = 0 ] && [ "$out" = "$cmd $version" ] \
           && [ ! -s "$tmp/err" ]; then
            pass "$cmd $opt: '$out'"
        else
            fail "$cmd $opt"
            echo "# exit $rc (want 0), stdout '$out' (want '$cmd $version')"
            sed 's/^/#   stderr: /' "$tmp/err"
        fi
    done
    out=$("$exe" --help 2>&1)
    rc=$?
    if [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q -- '-V, --version'
    then
        pass "$cmd --help names -V, --version"
    else
        fail "$cmd --help names -V, --version"
        echo "# exit $rc (want 0), output:"
        printf '%s\n' "$out" | head -5 | sed 's/^/#   /'
    fi
    if grep -q '\\-V.*\\-\\-version' "$top_srcdir/$man"; then
        pass "$cmd: $man lists -V, --version"
    else
        fail "$cmd: $man lists -V, --version"
    fi
done <<EOF
nodeshare-sim nodeshare-sim cmd/nodeshare-sim.1
nodeshare-learn nodeshare-learn cmd/nodeshare-learn.1
nodeshare-report nodeshare-report cmd/nodeshare-report.1
nodeshare-calibrate nodeshare-calibrate cmd/nodeshare-calibrate.1
nodeshare-place nodeshare-place cmd/nodeshare-place.1
nodeshare-tree nodeshare-tree cmd/nodeshare-tree.1
nodeshare-why cmd/nodeshare-why cmd/nodeshare-why.1
nodeshare-plugindir cmd/nodeshare-plugindir cmd/nodeshare-plugindir.8
nodeshare-rebuild cmd/nodeshare-rebuild cmd/nodeshare-rebuild.8
EOF
tap_end
