#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm-source.sh - what scripts/slurm-source.sh says and refuses, without
# network and without touching apt's configuration (TAP): its options, the
# messages of --check for a directory that is no Slurm tree, an unpacked
# but unconfigured release (how to configure it), a tree of another
# version, and the upstream-tarball path refusing a tarball whose SHA256
# differs from the Sources index (NS_SLURM_ORIG_TARBALL, nothing unpacked).
# Points needing an installed Slurm, or a Sources list of apt that lists
# slurm-wlm (a deb-src entry), are skipped without them.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"
script="$top_srcdir/scripts/slurm-source.sh"

# run ARGS...: the script's stderr in $tmp/err, its status in $rc.
run () {
    bash "$script" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}
# expect NAME STATUS TEXT: the last run exited STATUS and said TEXT.
expect () {
    if [ "$rc" = "$2" ] && { [ -z "$3" ] || grep -F -e "$3" "$tmp/err" >/dev/null; }; then
        pass "$1"
    else
        fail "$1"
        echo "#   status $rc (expected $2), stderr:"
        sed 's/^/#   /' "$tmp/err"
    fi
}

run --help
if [ "$rc" = 0 ] && grep -F NS_SLURM_SOURCE_FROM "$tmp/out" >/dev/null \
   && grep -F NS_SLURM_ORIG_TARBALL "$tmp/out" >/dev/null; then
    pass "--help documents NS_SLURM_SOURCE_FROM and NS_SLURM_ORIG_TARBALL"
else
    fail "--help documents NS_SLURM_SOURCE_FROM and NS_SLURM_ORIG_TARBALL"
fi

NS_SLURM_SOURCE_FROM=sideways run --cache "$tmp/cache"
expect "an unknown NS_SLURM_SOURCE_FROM is refused" 1 "expected auto, package or tarball"

mkdir "$tmp/empty"
run --check "$tmp/empty"
expect "--check: a directory that is no Slurm tree" 1 "not a configured Slurm source tree"

# An unpacked release: configure and src/common/plugin.h, no config.h.
mkdir -p "$tmp/unconf/src/common"
: >"$tmp/unconf/configure"
: >"$tmp/unconf/src/common/plugin.h"
run --check "$tmp/unconf"
expect "--check: an unconfigured tree says how to configure it" 1 "./configure --prefix=/usr"

# The installed Slurm's upstream version, as the script finds it.
h=/usr/include/slurm/slurm_version.h
installed=
if [ -r "$h" ]; then
    num=$(awk '$2 == "SLURM_VERSION_NUMBER" { print $3 }' "$h")
    [ -n "$num" ] && installed=$(printf '%d.%02d.%d' $((num >> 16 & 255)) $((num >> 8 & 255)) $((num & 255)))
fi

# fake_tree DIR VERSION: a configured tree as far as --check can tell.
fake_tree () {
    mkdir -p "$1/src/common"
    : >"$1/src/common/plugin.h"
    echo "#define SLURM_VERSION_STRING \"$2\"" >"$1/config.h"
}
if [ -z "$installed" ]; then
    skip "--check: a tree of another version (no installed Slurm headers)"
    skip "--check: a tree of the installed version (no installed Slurm headers)"
else
    fake_tree "$tmp/old" 0.0.0
    run --check "$tmp/old"
    expect "--check: a tree of another version" 1 "is Slurm 0.0.0, but the installed Slurm is $installed"
    fake_tree "$tmp/same" "$installed"
    run --check "$tmp/same"
    expect "--check: a tree of the installed version" 0 ""
fi

# The tarball path with a corrupt tarball: refused against apt's own
# Sources list (no network).  Needs a Debian Slurm, munge.h and a Sources
# list that lists slurm-wlm.
debver=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null) || debver=
lists=
if command -v apt-get >/dev/null; then
    # shellcheck disable=SC2016
    for f in $(apt-get indextargets --format '$(FILENAME)' 'Created-By: Sources' 2>/dev/null); do
        [ -f "$f" ] && /usr/lib/apt/apt-helper cat-file "$f" 2>/dev/null \
            | grep -x 'Package: slurm-wlm' >/dev/null && lists=yes
    done
fi
if [ -z "$installed" ] || [ -z "$debver" ]; then
    skip "tarball path: a corrupt tarball is refused (no Debian Slurm installed)"
elif [ ! -f /usr/include/munge.h ]; then
    skip "tarball path: a corrupt tarball is refused (no munge.h)"
elif [ -z "$lists" ]; then
    skip "tarball path: a corrupt tarball is refused (no apt Sources list with slurm-wlm: no deb-src entry)"
else
    echo "not a tarball" >"$tmp/bad.tar.gz"
    NS_SLURM_SOURCE_FROM=tarball NS_SLURM_ORIG_TARBALL="$tmp/bad.tar.gz" \
        run --cache "$tmp/cache"
    expect "tarball path: a corrupt tarball is refused" 1 "SHA256 mismatch, refusing it"
    if ls -d "$tmp/cache"/*/slurm-wlm-* >/dev/null 2>&1; then
        fail "tarball path: nothing is left in the cache after a refusal"
    else
        pass "tarball path: nothing is left in the cache after a refusal"
    fi
fi

tap_end
