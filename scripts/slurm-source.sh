#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm-source.sh - obtain a configured Slurm source tree matching the
# installed Slurm, for building the select plugin (design.md section 7).
#
# Usage: slurm-source.sh [--cache DIR] [--check DIR]
#
#   (no option)   print the path of a configured tree, fetching it first
#                 when the cache does not hold one for the installed version
#   --cache DIR   cache directory (default $NS_SLURM_CACHE, else
#                 ${XDG_CACHE_HOME:-$HOME/.cache}/nodeshare)
#   --check DIR   only verify that DIR is a configured tree of the installed
#                 Slurm version; exit 1 with a message when it is not
#
# Fetching: the installed version of slurm-wlm is taken from dpkg; when apt
# has no deb-src entry for the repositories that version came from, one is
# derived from apt's own configuration (`apt-cache policy`) and written to
# /etc/apt/sources.list.d/nodeshare-src.sources (root only).  `apt-get source
# slurm-wlm=VERSION` unpacks the source and applies debian/patches/series;
# configure then runs with the flags of debian/rules (without PMIx), which
# produces config.h.  No `make` is needed.  A finished tree is marked with
# .nodeshare-configured, so a rebuild reuses it.
#
# The path of the tree is the only line on stdout; progress goes to stderr.
set -euo pipefail

die () { echo "slurm-source.sh: $*" >&2; exit 1; }
say () { echo "slurm-source.sh: $*" >&2; }

cache=${NS_SLURM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodeshare}
check=
while [ $# -gt 0 ]; do
    case $1 in
        --cache) cache=$2; shift 2 ;;
        --check) check=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done

# The installed Slurm: Debian version (22.05.8-4+deb12u3) and upstream
# version (22.05.8), which is what plugins are checked against.
installed_deb_version () {
    local v
    for p in slurmctld slurm-wlm slurmd slurm-client libslurm-dev; do
        v=$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null \
            | awk '$3 == "installed" { print $4 }') || true
        [ -n "$v" ] && { echo "$v"; return 0; }
    done
    return 1
}
installed_upstream_version () {
    local h=/usr/include/slurm/slurm_version.h n
    if [ -r "$h" ]; then
        n=$(awk '$2 == "SLURM_VERSION_NUMBER" { print $3 }' "$h")
        [ -n "$n" ] && { printf '%d.%02d.%d\n' $((n >> 16 & 255)) \
                           $((n >> 8 & 255)) $((n & 255)); return 0; }
    fi
    command -v slurmctld >/dev/null && slurmctld -V | awk '{ print $2 }'
}
# Upstream version of a configured tree, from its config.h.
tree_version () {
    sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"$/\1/p' "$1/config.h" 2>/dev/null
}

upstream=$(installed_upstream_version) \
    || die "no installed Slurm found (install libslurm-dev and slurmctld)"
[ -n "$upstream" ] || die "no installed Slurm found (install libslurm-dev and slurmctld)"

check_tree () {   # DIR
    local d=$1 v
    [ -f "$d/config.h" ] && [ -f "$d/src/common/plugin.h" ] \
        || die "$d: not a configured Slurm source tree (config.h and src/common/plugin.h expected)"
    v=$(tree_version "$d")
    [ "$v" = "$upstream" ] \
        || die "$d is Slurm ${v:-of unknown version}, but the installed Slurm is $upstream: a select plugin must be built against the exact installed version (run scripts/slurm-source.sh, or give the matching tree)"
}

if [ -n "$check" ]; then
    check_tree "$check"
    exit 0
fi

debver=$(installed_deb_version) || die "slurm-wlm is not installed as a Debian package: give a configured tree with --with-slurm-source=DIR"
upver=${debver#*:}; upver=${upver%-*}
tree=$cache/slurm-wlm-$debver/slurm-wlm-$upver
if [ -f "$tree/.nodeshare-configured" ]; then
    check_tree "$tree"
    echo "$tree"
    exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found: give --with-slurm-source=DIR"
command -v dpkg-source >/dev/null || die "dpkg-source not found: apt-get install dpkg-dev"

# Does apt know the source package in this version?
have_source () {
    # (no grep -q: with pipefail, an early exit would fail the pipe)
    apt-cache showsrc slurm-wlm 2>/dev/null | grep -x "Version: $debver" >/dev/null
}

if ! have_source; then
    [ "$(id -u)" = 0 ] || die "apt has no deb-src entry for slurm-wlm $debver and adding one needs root; run this script once as root, or give --with-slurm-source=DIR"
    # Derive deb-src entries from the repositories the installed version
    # came from, as apt itself reports them ("500 URI SUITE/COMPONENT ARCH
    # Packages"), copying their entries in apt's configuration with the
    # type changed (so options such as Signed-By stay as they are).  No
    # host is named here.
    uris=$(apt-cache policy slurm-wlm | awk -v v="$debver" '
        $1 == "***" || (NF == 2 && $2 ~ /^-?[0-9]+$/) {
            inv = ($1 == "***") ? ($2 == v) : ($1 == v); next }
        inv && $2 ~ /^[a-z+]+:/ && $NF == "Packages" { sub(/\/+$/, "", $2); print $2 }' | sort -u)
    [ -n "$uris" ] || die "cannot tell which repository slurm-wlm $debver came from (apt-cache policy slurm-wlm); add a deb-src entry by hand"
    list=/etc/apt/sources.list.d/nodeshare-src.sources
    entries=$(
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] && [ "$f" != "$list" ] || continue
            # deb822 stanzas: keep those of type deb whose URIs match.
            awk -v want="$uris" 'BEGIN { RS = ""; n = split(want, w, "\n")
                    for (i = 1; i <= n; i++) ok[w[i]] = 1 }
                { hit = 0; deb = 0; off = 0; out = ""
                  m = split($0, L, "\n")
                  for (i = 1; i <= m; i++) {
                      if (L[i] ~ /^#/) continue
                      if (L[i] ~ /^Types:/ && L[i] ~ /[ \t]deb([ \t]|$)/) { deb = 1; L[i] = "Types: deb-src" }
                      if (L[i] ~ /^Enabled:[ \t]*no/) off = 1
                      if (L[i] ~ /^URIs:/) { k = split(L[i], u, /[ \t]+/)
                          for (j = 2; j <= k; j++) { x = u[j]; sub(/\/+$/, "", x); if (x in ok) hit = 1 } }
                      out = out L[i] "\n" }
                  if (hit && deb && !off) printf "%s\n", out }' "$f"
        done
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
            [ -f "$f" ] || continue
            # one-line style: "deb [options] URI SUITE COMPONENTS..."
            awk -v want="$uris" 'BEGIN { n = split(want, w, "\n")
                    for (i = 1; i <= n; i++) ok[w[i]] = 1 }
                $1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++
                    if ($2 ~ /^\[/) i++
                    x = $i; sub(/\/+$/, "", x)
                    if (x in ok) { $1 = "deb-src"; print } }' "$f" |
            awk '{ opts = ""; i = 2
                   if ($2 ~ /^\[/) { while ($i !~ /\]$/) { opts = opts " " $i; i++ }; opts = opts " " $i; i++ }
                   gsub(/^ \[|\]$/, "", opts); sub(/^\[/, "", opts)
                   print "Types: deb-src"; print "URIs: " $i; print "Suites: " $(i + 1)
                   c = ""; for (j = i + 2; j <= NF; j++) c = c " " $j; print "Components:" c
                   k = split(opts, o, /[ \t]+/)
                   for (j = 1; j <= k; j++) if (o[j] ~ /^signed-by=/) { sub(/^signed-by=/, "", o[j]); print "Signed-By: " o[j] }
                   print "" }'
        done)
    [ -n "$entries" ] || die "no apt entry of type deb found for $uris; add a deb-src entry by hand"
    say "adding $list:"
    echo "$entries" | sed 's/^/    /' >&2
    { echo "# Added by nodeshare scripts/slurm-source.sh: the source of the"
      echo "# installed Slurm, for building the select plugin.  Safe to remove."
      echo
      echo "$entries"; } >"$list"
    say "apt-get update"
    apt-get update -qq >&2 || die "apt-get update failed"
    have_source || die "apt still has no source for slurm-wlm $debver after adding $list"
fi

mkdir -p "$cache/slurm-wlm-$debver"
work=$(mktemp -d "$cache/slurm-wlm-$debver/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
say "apt-get source slurm-wlm=$debver (into $cache)"
(cd "$work" && apt-get source -qq slurm-wlm="$debver" >&2) \
    || die "apt-get source slurm-wlm=$debver failed"
src=$work/slurm-wlm-$upver
[ -d "$src" ] || die "apt-get source did not unpack $src"

# dpkg-source applies the quilt series of a "3.0 (quilt)" package while
# unpacking; apply it here when it did not (other formats, --skip-patches).
if [ -f "$src/debian/patches/series" ] && [ ! -f "$src/.pc/applied-patches" ]; then
    say "applying debian/patches/series"
    grep -v -e '^#' -e '^[[:space:]]*$' "$src/debian/patches/series" |
    while read -r p opts; do
        (cd "$src" && patch -s ${opts:--p1} <"debian/patches/$p") \
            || die "patch $p does not apply"
    done
fi

# Configure with the flags of debian/rules (its first dh_auto_configure,
# the real daemons; the second builds the front-end emulator).  They are read from the file
# (dh_auto_configure -- FLAGS, continued lines) rather than copied here, so
# a new Debian revision brings its own; --with-pmix is dropped (the plugin
# does not need PMIx, and its headers are usually not installed).
flags=$(awk '
    /^[[:space:]]+dh_auto_configure/ && !/--builddirectory/ { on = 1 }
    on { line = $0; cont = sub(/\\[[:space:]]*$/, "", line); print line
         if (!cont) exit }' "$src/debian/rules" \
    | tr '\t' ' ' | tr -s ' ' '\n' \
    | grep -E '^--(with|without|enable|disable|sysconfdir|libdir|includedir|localstatedir|runstatedir)' \
    | grep -v -E '^--with-pmix' | sort -u | tr '\n' ' ') || true
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
flags=${flags//\$(DEB_HOST_MULTIARCH)/$multiarch}
# Drop flags still holding make variables we cannot expand.
flags=$(echo "$flags" | tr ' ' '\n' | grep -v '\$(' | tr '\n' ' ')
say "configure --prefix=/usr $flags"
# shellcheck disable=SC2086
(cd "$src" && ./configure --prefix=/usr --libdir=/usr/lib/"$multiarch" \
    --sysconfdir=/etc/slurm $flags >configure.nodeshare.log 2>&1) \
    || { tail -20 "$src/configure.nodeshare.log" >&2; die "configure of the Slurm source failed (log: $src/configure.nodeshare.log)"; }

check_tree "$src"
touch "$src/.nodeshare-configured"
rm -rf "$tree"
mv "$src" "$tree"
# The tarballs and .dsc are not needed any more.
echo "$tree"
