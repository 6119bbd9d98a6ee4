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
# Environment:
#   NS_SLURM_SOURCE_FROM=auto|package|tarball
#                 where the source comes from: auto (default) tries Debian's
#                 source package and falls back to the upstream tarball;
#                 package or tarball takes only that one (tarball: to test
#                 the fallback on a host where apt-get source works)
#   NS_SLURM_ORIG_TARBALL=FILE
#                 use FILE as slurm-wlm_<upstream>.orig.tar.gz instead of
#                 downloading it (for a machine without access to the
#                 registry); it is checked against the Sources index all the same
#
# Fetching: the installed version of slurm-wlm is taken from dpkg.
#
# 1. Debian's source package.  When apt has no deb-src entry for the
#    repositories that version came from, one is derived from apt's own
#    configuration (`apt-cache policy`) and written to
#    /etc/apt/sources.list.d/nodeshare-src.sources (root only).  `apt-get
#    source slurm-wlm=VERSION` unpacks the source and applies
#    debian/patches/series; configure then runs with the flags of
#    debian/rules (without PMIx and PAM), which produces config.h.
#
# 2. The upstream tarball, when apt-get source cannot fetch the source
#    package or apt knows no source for that version (Debian 13: only
#    slurm-wlm_24.11.5.orig.tar.gz is served, its .dsc and .debian.tar.xz
#    are not).  slurm-wlm_<upstream>.orig.tar.gz is looked up in the Sources
#    index of the suite the installed version came from: apt's own list when
#    a deb-src entry exists, else the suite's <component>/source/Sources.xz,
#    fetched with apt-helper and checked against the InRelease file apt has
#    already verified (no root needed).  The tarball is downloaded with
#    apt-helper (apt's transports and proxy settings), its SHA256 checked
#    against the index (a mismatch is refused), unpacked and configured with
#    the flags of Debian's packaging, kept below per Debian release since
#    debian/rules is not in the tarball.  Debian's patches are not applied:
#    the tree has the upstream headers, which are what the select plugin
#    reads unless a Debian patch changed a structure it uses.
#
# No `make` is needed.  A finished tree is marked with .nodeshare-configured
# (which records where it came from), so a rebuild reuses it; remove
# CACHE/slurm-wlm-VERSION to fetch it again.
#
# The path of the tree is the only line on stdout; progress goes to stderr,
# with one line saying which of the two ways the source was obtained.
set -euo pipefail

die () { echo "slurm-source.sh: $*" >&2; exit 1; }
say () { echo "slurm-source.sh: $*" >&2; }

cache=${NS_SLURM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodeshare}
check=
while [ $# -gt 0 ]; do
    case $1 in
        --cache) [ $# -ge 2 ] || die "--cache needs a directory"; cache=$2; shift 2 ;;
        --check) [ $# -ge 2 ] || die "--check needs a directory"; check=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
mode=${NS_SLURM_SOURCE_FROM:-auto}
case $mode in
    auto|package|tarball) ;;
    *) die "NS_SLURM_SOURCE_FROM=$mode: expected auto, package or tarball" ;;
esac

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
multiarch () {
    dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch
}

upstream=$(installed_upstream_version) || upstream=

check_tree () {   # DIR
    local d=$1 v
    if [ ! -f "$d/config.h" ] && [ -f "$d/src/common/plugin.h" ] && [ -f "$d/configure" ]; then
        die "$d: an unconfigured Slurm source tree (no config.h).  Configure it like the installed Slurm (nothing needs to be built), e.g. on Debian: (cd $d && ./configure --prefix=/usr --libdir=/usr/lib/$(multiarch 2>/dev/null || echo MULTIARCH) --sysconfdir=/etc/slurm --enable-multiple-slurmd --with-munge --without-rpath --disable-debug); elsewhere with the flags of your Slurm build (at least the same --sysconfdir and --enable-multiple-slurmd/--enable-front-end choices)"
    fi
    [ -f "$d/config.h" ] && [ -f "$d/src/common/plugin.h" ] \
        || die "$d: not a configured Slurm source tree (config.h and src/common/plugin.h expected)"
    [ -n "$upstream" ] || die "no installed Slurm found (install libslurm-dev and slurmctld)"
    v=$(tree_version "$d")
    [ "$v" = "$upstream" ] \
        || die "$d is Slurm ${v:-of unknown version}, but the installed Slurm is $upstream: a select plugin must be built against the exact installed version (run scripts/slurm-source.sh, or give the matching tree)"
}

if [ -n "$check" ]; then
    check_tree "$check"
    exit 0
fi
[ -n "$upstream" ] || die "no installed Slurm found (install libslurm-dev and slurmctld)"

debver=$(installed_deb_version) || die "slurm-wlm is not installed as a Debian package: give a configured tree with --with-slurm-source=DIR"
upver=${debver#*:}; upver=${upver%-*}
tree=$cache/slurm-wlm-$debver/slurm-wlm-$upver
if [ -f "$tree/.nodeshare-configured" ]; then
    check_tree "$tree"
    how=$(head -n 1 "$tree/.nodeshare-configured" 2>/dev/null)
    say "cached tree of slurm-wlm $debver${how:+ (made from: $how)}"
    echo "$tree"
    exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found: give --with-slurm-source=DIR"
# Debian configures with --with-munge, which fails without munge's header.
[ -f /usr/include/munge.h ] || die "configuring Slurm as Debian does (--with-munge) needs munge.h: apt-get install libmunge-dev"
helper=/usr/lib/apt/apt-helper

mkdir -p "$cache/slurm-wlm-$debver"
work=$(mktemp -d "$cache/slurm-wlm-$debver/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/slurm-wlm-$upver
origin=        # what .nodeshare-configured records

# The repositories the installed version came from, as apt reports them
# ("500 URI SUITE/COMPONENT ARCH Packages"): one "URI SUITE COMPONENT"
# line each.  With ALL=1, those of every version apt lists (the upstream
# tarball of an installed version that is no longer in any index may still
# be listed under a newer Debian revision).
origins () {   # [ALL]
    apt-cache policy slurm-wlm | awk -v v="$debver" -v all="${1:-}" '
        $1 == "***" || (NF == 2 && $2 ~ /^-?[0-9]+$/) {
            inv = ($1 == "***") ? ($2 == v) : ($1 == v); next }
        (inv || all != "") && $2 ~ /^[a-z+]+:/ && $NF == "Packages" {
            u = $2; sub(/\/+$/, "", u); s = $3; c = ""
            if ((k = split(s, a, "/")) >= 2) { c = a[k]; s = substr(s, 1, length(s) - length(c) - 1) }
            print u, s, c }' | sort -u
}

# --- 1. Debian's source package -------------------------------------------

# Does apt know the source package in this version?
have_source () {
    # (no grep -q: with pipefail, an early exit would fail the pipe)
    apt-cache showsrc slurm-wlm 2>/dev/null | grep -x "Version: $debver" >/dev/null
}

# Not getting the source package is fatal with NS_SLURM_SOURCE_FROM=package,
# else the reason is said and the upstream tarball is tried.
pkg_fail () {
    [ "$mode" = package ] && die "$*"
    say "$*; trying the upstream tarball"
}

from_package () {
    local uris list entries log
    command -v dpkg-source >/dev/null || { pkg_fail "dpkg-source not found (apt-get install dpkg-dev)"; return 1; }
    if ! have_source; then
        [ "$(id -u)" = 0 ] || { pkg_fail "apt has no deb-src entry for slurm-wlm $debver and adding one needs root (run this script once as root)"; return 1; }
        # Derive deb-src entries from the repositories the installed
        # version came from, as apt itself reports them ("500 URI
        # SUITE/COMPONENT ARCH Packages"), copying their entries in apt's
        # configuration with the type changed (so options such as Signed-By
        # stay as they are).  No host is named here.
        uris=$(origins | awk '{ print $1 }' | sort -u)
        [ -n "$uris" ] || { pkg_fail "cannot tell which repository slurm-wlm $debver came from (apt-cache policy slurm-wlm; add a deb-src entry by hand)"; return 1; }
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
        [ -n "$entries" ] || { pkg_fail "no apt entry of type deb found for $uris (add a deb-src entry by hand)"; return 1; }
        say "adding $list:"
        echo "$entries" | sed 's/^/    /' >&2
        { echo "# Added by nodeshare scripts/slurm-source.sh: the source of the"
          echo "# installed Slurm, for building the select plugin.  Safe to remove."
          echo
          echo "$entries"; } >"$list"
        say "apt-get update"
        apt-get update -qq >&2 || { pkg_fail "apt-get update failed"; return 1; }
        have_source || { pkg_fail "apt has no source for slurm-wlm $debver even with $list"; return 1; }
    fi

    say "apt-get source slurm-wlm=$debver (into $cache)"
    log=$work/apt-get-source.log
    if ! (cd "$work" && apt-get source -qq slurm-wlm="$debver") >"$log" 2>&1; then
        sed -n 's/^E: /    /p' "$log" | head -3 >&2
        pkg_fail "apt-get source slurm-wlm=$debver failed"
        return 1
    fi
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

    # The flags of debian/rules (its first dh_auto_configure, the real
    # daemons; the second builds the front-end emulator).  They are read
    # from the file (dh_auto_configure -- FLAGS, continued lines) rather
    # than copied here, so a new Debian revision brings its own;
    # --with-pmix and --enable-pam are dropped (the plugin needs neither;
    # their -dev packages are usually not installed, and from 24.11 a
    # missing libpam fails configure; PAM is only used by slurmstepd).
    flags=$(awk '
        /^[[:space:]]+dh_auto_configure/ && !/--builddirectory/ { on = 1 }
        on { line = $0; cont = sub(/\\[[:space:]]*$/, "", line); print line
             if (!cont) exit }' "$src/debian/rules" \
        | tr '\t' ' ' | tr -s ' ' '\n' \
        | grep -E '^--(with|without|enable|disable|sysconfdir|libdir|includedir|localstatedir|runstatedir)|^(SUCMD|SLEEP_CMD)=' \
        | grep -v -E '^--with-pmix|^--enable-pam' | sort -u | tr '\n' ' ') || true
    # $(ENABLEDEPRECATED) of debian/rules: --enable-deprecated unless 64-bit.
    if grep -q 'ENABLEDEPRECATED = --enable-deprecated' "$src/debian/rules" \
       && [ "$(dpkg-architecture -qDEB_HOST_ARCH_BITS 2>/dev/null || echo 64)" != 64 ]; then
        flags="$flags --enable-deprecated"
    fi
    origin="Debian source package slurm-wlm $debver"
    say "$origin"
    return 0
}

# --- 2. The upstream tarball ----------------------------------------------

orig=slurm-wlm_$upver.orig.tar.gz

# Read a Sources index on stdin; print "SHA256 SIZE DIRECTORY" of $orig in
# the slurm-wlm stanza of version $debver, else of any slurm-wlm stanza
# listing it (the same upstream tarball under another Debian revision).
orig_in_index () {
    awk -v name="$orig" -v want="$debver" 'BEGIN { RS = "" }
        { pkg = ver = dir = sha = size = ""; insha = 0
          n = split($0, L, "\n")
          for (i = 1; i <= n; i++) {
              if (L[i] !~ /^[ \t]/) {
                  insha = (L[i] ~ /^Checksums-Sha256:/)
                  x = L[i]; sub(/^[^:]*:[ \t]*/, "", x)
                  if (L[i] ~ /^Package:/) pkg = x
                  else if (L[i] ~ /^Version:/) ver = x
                  else if (L[i] ~ /^Directory:/) dir = x
              } else if (insha) {
                  x = L[i]; sub(/^[ \t]+/, "", x); split(x, f, /[ \t]+/)
                  if (f[3] == name) { sha = f[1]; size = f[2] } } }
          if (pkg == "slurm-wlm" && sha != "" && dir != "") {
              if (ver == want && exact == "") exact = sha " " size " " dir
              else if (other == "") other = sha " " size " " dir } }
        END { if (exact != "") print exact; else if (other != "") print other }'
}

# found_in INDEX: is $orig in the Sources index INDEX (of site $u, suite
# $s; compressed or not)?  Then sha, size, url and where are set.
found_in () {
    local hit
    hit=$("$helper" cat-file "$1" | orig_in_index) || true
    [ -n "$hit" ] || return 1
    read -r sha size f <<<"$hit"
    url=$u/$f/$orig
    where="$s's Sources index"
}

# Find $orig: sets sha, size, url and where (the index it was found in).
find_orig () {
    local all u s c f meta base rel hsum
    for all in "" 1; do
        # apt's own Sources lists (a deb-src entry exists).
        while read -r u s c; do
            [ -n "$c" ] || continue
            # shellcheck disable=SC2016
            f=$(apt-get indextargets --format '$(FILENAME)' 'Created-By: Sources' \
                "Site: $u" "Release: $s" "Component: $c" 2>/dev/null | head -1) || true
            [ -n "$f" ] && [ -f "$f" ] || continue
            found_in "$f" && return 0
        done < <(origins $all)
        # No list: the suite's Sources.xz, checked against the InRelease
        # (or Release) file apt verified when it fetched the Packages index.
        while read -r u s c; do
            [ -n "$c" ] || continue
            # (skipped when apt has the list: it was read above)
            # shellcheck disable=SC2016
            f=$(apt-get indextargets --format '$(FILENAME)' 'Created-By: Sources' \
                "Site: $u" "Release: $s" "Component: $c" 2>/dev/null | head -1) || true
            [ -n "$f" ] && [ -f "$f" ] && continue
            f='' meta='' base=''
            # shellcheck disable=SC2016
            read -r f meta base < <(apt-get indextargets --format '$(FILENAME) $(METAKEY) $(BASE_URI)' \
                'Created-By: Packages' "Site: $u" "Release: $s" "Component: $c" 2>/dev/null | head -1) || true
            [ -n "${base:-}" ] && [ -f "${f:-}" ] || continue
            f=${f%"${meta//\//_}"*}
            rel=${f}InRelease; [ -f "$rel" ] || rel=${f}Release
            [ -f "$rel" ] || continue
            hsum=$(awk -v k="$c/source/Sources.xz" '/^SHA256:/ { on = 1; next }
                       /^[^ ]/ { on = 0 } on && $3 == k { print $1; exit }' "$rel")
            [ -n "$hsum" ] || continue
            say "fetching $s's $c/source/Sources.xz (sha256 from apt's ${rel##*_})"
            rm -f "$work/Sources.xz"
            if ! "$helper" download-file "$base$c/source/Sources.xz" "$work/Sources.xz" \
                   "SHA256:$hsum" >"$work/download.log" 2>&1; then
                grep -E '^(E|W): ' "$work/download.log" | grep -v unsandboxed | head -3 >&2 || true
                say "could not fetch $s's Sources.xz"
                continue
            fi
            found_in "$work/Sources.xz" && return 0
        done < <(origins $all)
    done
    return 1
}

# configure flags of Debian's packaging, for a tree without debian/rules.
# The first dh_auto_configure of debian/rules (the real daemons, not the
# front-end emulator), --with-pmix and --enable-pam left out as on the
# package path.
#   Debian 12 (bookworm), slurm-wlm 22.05.8-4+deb12u3, debian/rules:
#     --sysconfdir=/etc/slurm --with-munge --enable-pam --without-rpath
#     --disable-debug --enable-multiple-slurmd --with-pmix=... $(ENABLEDEPRECATED)
#     SUCMD=/bin/su SLEEP_CMD=/bin/sleep
#   Debian 13 (trixie), slurm-wlm 24.11.5-4+deb13u1: its debian/rules is
#     not served; the same flags, as its binaries show: slurmd has the
#     MULTIPLE_SLURMD code (the "slurmd-%s" log name) and libslurm's
#     slurmdb_setup_cluster_flags() reports MULTSD and not FE; the daemons
#     read /etc/slurm/slurm.conf; /bin/su (not /usr/bin/su, which configure
#     finds on a merged /usr) is compiled in; auth_munge.so, cred_munge.so
#     and mpi_pmix*.so are built; plugins go to /usr/lib/<multiarch>/slurm-wlm.
#     The changelog from 22.05.8-4 to 24.11.5-4+deb13u1 names no configure
#     change other than PMIx on 32-bit architectures.
# Of config.h, the headers the select plugin includes only depend on
# HAVE_FRONT_END (off) and MULTIPLE_SLURMD (on); --libdir and --sysconfdir
# are given in the configure call below.
debian_flags () {
    local f="--sysconfdir=/etc/slurm --with-munge --without-rpath --disable-debug --enable-multiple-slurmd SUCMD=/bin/su SLEEP_CMD=/bin/sleep"
    case $upver in
        22.05.*) ;;                     # Debian 12
        24.11.*) ;;                     # Debian 13
        *) say "no Debian configure flags recorded for Slurm $upver: using Debian 13's" ;;
    esac
    # $(ENABLEDEPRECATED) of debian/rules
    [ "$(dpkg-architecture -qDEB_HOST_ARCH_BITS 2>/dev/null || echo 64)" = 64 ] \
        || f="$f --enable-deprecated"
    echo "$f"
}

from_tarball () {
    local sha='' size='' url='' where='' file got top
    [ -x "$helper" ] || die "$helper not found (package apt)"
    find_orig || die "$orig is in no Sources index of the repositories slurm-wlm $debver came from (apt-cache policy slurm-wlm); give a configured tree with --with-slurm-source=DIR"
    if [ -n "${NS_SLURM_ORIG_TARBALL:-}" ]; then
        file=$NS_SLURM_ORIG_TARBALL
        [ -f "$file" ] || die "NS_SLURM_ORIG_TARBALL=$file: no such file"
        say "$orig: using $file (NS_SLURM_ORIG_TARBALL)"
    else
        file=$work/$orig
        say "downloading $orig ($size bytes, listed in $where)"
        if ! "$helper" download-file "$url" "$file" >"$work/download.log" 2>&1; then
            grep -E '^(E|W): ' "$work/download.log" | grep -v unsandboxed | head -3 >&2 || true
            die "downloading $orig failed"
        fi
    fi
    got=$(sha256sum <"$file" | awk '{ print $1 }')
    [ "$got" = "$sha" ] \
        || die "$orig: SHA256 mismatch, refusing it: the file has $got, $where lists $sha (a corrupt or tampered copy; nothing was unpacked)"
    mkdir "$work/unpack"
    tar -xzf "$file" -C "$work/unpack" || die "cannot unpack $orig"
    top=$(ls -A "$work/unpack")
    [ "$(echo "$top" | wc -l)" = 1 ] && [ -d "$work/unpack/$top" ] \
        || die "$orig does not hold one top directory"
    mv "$work/unpack/$top" "$src"
    [ -x "$src/configure" ] || die "$orig has no configure script"
    flags=$(debian_flags)
    origin="upstream tarball $orig (sha256 ok against $where); Debian's patches not applied"
    say "$origin"
}

flags=
if [ "$mode" = tarball ] || ! from_package; then
    from_tarball
fi

multiarch=$(multiarch)
flags=${flags//\$(DEB_HOST_MULTIARCH)/$multiarch}
# Drop flags still holding make variables we cannot expand.
flags=$(echo "$flags" | tr ' ' '\n' | grep -v '\$(' | tr '\n' ' ')
say "configure --prefix=/usr $flags"
# shellcheck disable=SC2086
(cd "$src" && ./configure --prefix=/usr --libdir=/usr/lib/"$multiarch" \
    --sysconfdir=/etc/slurm $flags >configure.nodeshare.log 2>&1) \
    || { tail -20 "$src/configure.nodeshare.log" >&2; die "configure of the Slurm source failed (log: $src/configure.nodeshare.log)"; }

check_tree "$src"
echo "$origin" >"$src/.nodeshare-configured"
rm -rf "$tree"
mv "$src" "$tree"
# The tarballs and .dsc are not needed any more (removed with $work).
echo "$tree"
