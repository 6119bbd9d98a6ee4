#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm-source.sh - what scripts/slurm-source.sh says and refuses, without
# network and without touching apt's configuration (TAP): its options, the
# messages of --check for a directory that is no Slurm tree, an unpacked
# but unconfigured release (how to configure it), a tree of another
# version, and the upstream-tarball path refusing a tarball whose SHA256
# differs from the Sources index (NS_SLURM_ORIG_TARBALL, nothing unpacked);
# then the same path without a deb-src entry, through a repository of the
# test's own seen by a private apt configuration: a tree made from the
# suite's Sources.xz and a served tarball, and both checksums enforced.
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

# The tarball path as a site without a deb-src entry meets it: the
# suite's Sources.xz fetched with apt-helper and checked against the
# Release file apt verified, the tarball downloaded and checked against
# the index, unpacked and configured.  Offline: a repository of our own
# (file:), seen through a private apt configuration (APT_CONFIG), that
# lists the installed slurm-wlm and serves a small tarball whose
# configure writes a config.h of the installed version.  The system's
# apt configuration is not read or touched.
sources_repo () {   # DIR: make the repository, apt's view of it, apt-get update
    sr_d=$1 sr_up=$2
    sr_arch=$(dpkg --print-architecture)
    mkdir -p "$sr_d/repo/dists/nsx/main/binary-$sr_arch" "$sr_d/repo/dists/nsx/main/source" \
        "$sr_d/repo/pool/main/s/slurm-wlm" "$sr_d/lists/partial" "$sr_d/cache/archives/partial" \
        "$sr_d/etc/sources.list.d" "$sr_d/etc/preferences.d" "$sr_d/etc/apt.conf.d" \
        "$sr_d/t/slurm-$sr_up/src/common"
    chmod 755 "$sr_d"
    printf '#!/bin/sh\necho "#define SLURM_VERSION_STRING \\"%s\\"" >config.h\n' "$sr_up" \
        >"$sr_d/t/slurm-$sr_up/configure"
    chmod +x "$sr_d/t/slurm-$sr_up/configure"
    : >"$sr_d/t/slurm-$sr_up/src/common/plugin.h"
    tar -czf "$sr_d/repo/pool/main/s/slurm-wlm/slurm-wlm_$sr_up.orig.tar.gz" -C "$sr_d/t" "slurm-$sr_up"
    sr_f=$sr_d/repo/pool/main/s/slurm-wlm/slurm-wlm_$sr_up.orig.tar.gz
    printf 'Package: slurm-wlm\nVersion: %s\nArchitecture: %s\nMaintainer: t <t@example.org>\nFilename: pool/main/s/slurm-wlm/x.deb\nSize: 1\nDescription: t\n\n' \
        "$debver" "$sr_arch" >"$sr_d/repo/dists/nsx/main/binary-$sr_arch/Packages"
    printf 'Package: slurm-wlm\nVersion: %s\nDirectory: pool/main/s/slurm-wlm\nChecksums-Sha256:\n %s %s slurm-wlm_%s.orig.tar.gz\n\n' \
        "$debver" "${3:-$(sha256sum <"$sr_f" | awk '{ print $1 }')}" "$(stat -c %s "$sr_f")" "$sr_up" \
        | xz -c >"$sr_d/repo/dists/nsx/main/source/Sources.xz"
    (cd "$sr_d/repo/dists/nsx" && {
        echo "Suite: nsx"; echo "Codename: nsx"; echo "Date: $(date -R -u)"
        echo "Architectures: $sr_arch"; echo "Components: main"; echo "SHA256:"
        for sr_f in "main/binary-$sr_arch/Packages" main/source/Sources.xz; do
            echo " $(sha256sum <"$sr_f" | awk '{ print $1 }') $(stat -c %s "$sr_f") $sr_f"
        done; } >Release)
    {
        echo "Dir::Etc::sourcelist \"$sr_d/etc/sources.list\";"
        echo "Dir::Etc::sourceparts \"$sr_d/etc/sources.list.d\";"
        echo "Dir::Etc::preferencesparts \"$sr_d/etc/preferences.d\";"
        echo "Dir::Etc::parts \"$sr_d/etc/apt.conf.d\";"
        echo "Dir::State::lists \"$sr_d/lists\";"
        echo "Dir::Cache \"$sr_d/cache\";"
        [ "$(id -u)" = 0 ] && echo 'APT::Sandbox::User "root";'
    } >"$sr_d/apt.conf"
    echo "deb [trusted=yes] file:$sr_d/repo nsx main" >"$sr_d/etc/sources.list"
    APT_CONFIG=$sr_d/apt.conf apt-get update -qq >"$sr_d/update.log" 2>&1
}
up_installed=${debver#*:}; up_installed=${up_installed%-*}
if [ -z "$installed" ] || [ -z "$debver" ]; then
    for w in "a tree from the Sources.xz path" "the cached tree is reused" \
             "a tarball unlike the index is refused" "a Sources.xz unlike the Release is refused"; do
        skip "tarball path, no deb-src: $w (no Debian Slurm installed)"
    done
elif [ ! -f /usr/include/munge.h ] || ! command -v xz >/dev/null \
     || [ ! -x /usr/lib/apt/apt-helper ]; then
    for w in "a tree from the Sources.xz path" "the cached tree is reused" \
             "a tarball unlike the index is refused" "a Sources.xz unlike the Release is refused"; do
        skip "tarball path, no deb-src: $w (needs munge.h, xz and apt-helper)"
    done
else
    r=$tmp/srcrepo
    if ! sources_repo "$r" "$up_installed"; then
        fail "tarball path, no deb-src: a repository of our own (apt-get update)"
        sed 's/^/#   /' "$r/update.log"
    fi
    APT_CONFIG=$r/apt.conf NS_SLURM_SOURCE_FROM=tarball run --cache "$tmp/c1"
    tree=$(cat "$tmp/out")
    if [ "$rc" = 0 ] && [ -f "$tree/config.h" ] \
       && grep -F "fetching nsx's main/source/Sources.xz (sha256 from apt's Release)" "$tmp/err" >/dev/null \
       && grep -F "(sha256 ok against nsx's Sources index)" "$tmp/err" >/dev/null \
       && grep -F "upstream tarball slurm-wlm_$up_installed.orig.tar.gz" "$tree/.nodeshare-configured" >/dev/null \
       && [ "$tree" = "$tmp/c1/slurm-wlm-$debver/slurm-wlm-$up_installed" ]; then
        pass "tarball path, no deb-src: a tree from the Sources.xz path"
    else
        fail "tarball path, no deb-src: a tree from the Sources.xz path"
        echo "#   status $rc, stdout '$tree', stderr:"; sed 's/^/#   /' "$tmp/err"
    fi
    APT_CONFIG=$r/apt.conf NS_SLURM_SOURCE_FROM=tarball run --cache "$tmp/c1"
    expect "tarball path, no deb-src: the cached tree is reused" 0 "cached tree of slurm-wlm $debver (made from: upstream tarball"

    # The index lists another SHA256 than the served tarball has.
    r2=$tmp/srcrepo2
    sources_repo "$r2" "$up_installed" 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef || true
    APT_CONFIG=$r2/apt.conf NS_SLURM_SOURCE_FROM=tarball run --cache "$tmp/c2"
    if [ "$rc" = 1 ] && grep -F "SHA256 mismatch, refusing it" "$tmp/err" >/dev/null \
       && ! ls -d "$tmp/c2"/*/slurm-wlm-* >/dev/null 2>&1; then
        pass "tarball path, no deb-src: a tarball unlike the index is refused"
    else
        fail "tarball path, no deb-src: a tarball unlike the index is refused"
        echo "#   status $rc, stderr:"; sed 's/^/#   /' "$tmp/err"
    fi

    # The served Sources.xz changed after apt verified the Release file.
    printf 'Package: other\n\n' | xz -c >"$r2/repo/dists/nsx/main/source/Sources.xz"
    APT_CONFIG=$r2/apt.conf NS_SLURM_SOURCE_FROM=tarball run --cache "$tmp/c3"
    if [ "$rc" = 1 ] && grep -F "could not fetch nsx's Sources.xz" "$tmp/err" >/dev/null \
       && grep -F "is in no Sources index of the repositories" "$tmp/err" >/dev/null; then
        pass "tarball path, no deb-src: a Sources.xz unlike the Release is refused"
    else
        fail "tarball path, no deb-src: a Sources.xz unlike the Release is refused"
        echo "#   status $rc, stderr:"; sed 's/^/#   /' "$tmp/err"
    fi
fi

tap_end
