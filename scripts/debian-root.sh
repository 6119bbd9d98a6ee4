#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/debian-root.sh - a cached Debian root (default: trixie, Slurm
# 24.11) to build and test nodeshare in, on any Linux machine with root.
#
# create makes ROOT with debootstrap from the Debian mirror the machine's
# own apt configuration names (no address is written in this file), then
# installs the build tools, Slurm, munge and MariaDB inside.  The root is
# built as ROOT.tmp and renamed when complete; ROOT/.debian-root holds a
# hash of the suite and the package list, and create does nothing when it
# matches (a CI cache of ROOT is enough).  run executes a command inside
# ROOT in private mount, PID and UTS namespaces (every process it leaves
# behind dies with it), by default also in a private network namespace
# whose lo has 127.0.0.1 and 10.77.0.1: Slurm resolves names with
# AI_ADDRCONFIG, which returns nothing when only loopback addresses exist.
# Run `scripts/debian-root.sh --help` for the usage.
set -u -o pipefail

RECIPE=1   # bump when the way a root is made changes: existing roots are rebuilt
DEFAULT_SUITE=trixie
LO_EXTRA_ADDR=10.77.0.1/32
ROOT_HOSTNAME=nsroot
# build-essential ... xz-utils: building and testing nodeshare; gawk: the
# awk the tests were written with (minbase only has mawk); hostname: srun
# hostname in the cluster tests.
PACKAGES="build-essential autoconf automake libtool pkg-config
  libjson-c-dev libhwloc-dev hwloc zlib1g-dev libmunge-dev munge
  libslurm-dev slurmctld slurmd slurm-client slurmdbd mariadb-server
  expect dpkg-dev ca-certificates iproute2 procps file xz-utils
  gawk hostname"
# A root whose Slurm is built from a SchedMD release tarball (--slurm FILE)
# has these instead of Debian's Slurm packages: Slurm's build dependencies
# as its slurm.spec and INSTALL name them (munge, json-c, hwloc, yaml,
# lz4, PAM, readline, curl, http-parser, JWT, D-Bus, MariaDB's client for
# slurmdbd), as a site that builds Slurm itself has them.
DEBIAN_SLURM="libslurm-dev slurmctld slurmd slurm-client slurmdbd"
SLURM_BUILD_DEPS="libyaml-dev liblz4-dev libpam0g-dev libreadline-dev
  libcurl4-openssl-dev libhttp-parser-dev libjwt-dev libdbus-1-dev
  libmariadb-dev libmariadb-dev-compat python3"
# How the tarball is configured: SchedMD's README (../shared/slurm), with
# --enable-multiple-slurmd so that one host runs several `slurmd -N`.
SLURM_CONFIGURE="--prefix=/usr --sysconfdir=/etc/slurm --with-munge --enable-multiple-slurmd"

PROG=${0##*/}
T0=$(date +%s)

usage () {
    cat <<EOF
Usage: $PROG create [--suite SUITE] [--mirror URI] [--add PKG]...
                      [--slurm TARBALL | --bare] ROOT
       $PROG run ROOT [--bind DIR]... [--env NAME=VALUE]... [--host-net]
                      [--chdir DIR] -- CMD [ARG]...
       $PROG remove ROOT
       $PROG --help

A Debian root (default suite: $DEFAULT_SUITE, i.e. Slurm 24.11) to build and
test nodeshare in.  Needs root, unshare and chroot (util-linux, coreutils).

create   debootstrap --variant=minbase SUITE into ROOT.tmp, install the
         packages nodeshare's build and tests need (no recommends), rename
         to ROOT.  Does nothing ("reusing ROOT") when ROOT was completed for
         the same suite and package list.  The mirror is the first Debian
         URI of the machine's apt sources unless --mirror is given;
         debootstrap is the machine's or, if it has none for SUITE, one
         fetched with apt-get download.  --add PKG installs more packages
         (part of the package list, so of the hash).  --slurm TARBALL: no
         Debian Slurm; the SchedMD release TARBALL (slurm-*.tar.*) is
         built in ROOT/usr/src/slurm-VERSION with
           ./configure $SLURM_CONFIGURE
         and installed in ROOT as a site that builds Slurm installs it;
         the configured, built tree stays there for nodeshare's
         --with-slurm-source (its checksum is part of the hash, so a root
         is built once per tarball).  --bare: minbase and nothing else, as
         a new machine has it (no Slurm, no build tools; --add still
         adds).  Progress on stderr;
         the full log is ROOT/var/log/debian-root.log.
run      CMD inside ROOT as root with PATH, HOME=/root, LANG=C.UTF-8 (and
         TERM, --env NAME=VALUE), in private mount, PID and UTS (hostname
         $ROOT_HOSTNAME) namespaces: /proc, /dev, /sys and a tmpfs /run are
         mounted, each --bind DIR is mounted at the same path, and all
         processes CMD leaves behind are killed when it ends.  Network: a
         private namespace with only lo (127.0.0.1 and $LO_EXTRA_ADDR, so
         that Slurm's AI_ADDRCONFIG lookups work), unless --host-net
         (e.g. for apt-get).  The working directory is --chdir DIR, else
         the current one if it is inside a --bind DIR, else /root.
         Exits with CMD's status.
remove   removes ROOT (and ROOT.tmp, ROOT.old, ROOT.lock), unmounting
         anything mounted below it first.

The root's own /tmp is used as is (files the command leaves there stay
in ROOT: cache ROOT right after create, not after the tests).

Example (CI, in a checkout; the build stays in the checkout):
  $PROG create /var/cache/nodeshare/trixie
  $PROG run /var/cache/nodeshare/trixie --bind "\$PWD" -- \\
      sh -c './bootstrap && mkdir -p _build && cd _build && ../configure && make -j2 check'
EOF
}

say () { echo "$PROG: [$(( $(date +%s) - T0 )) s] $*" >&2; }
die () { echo "$PROG: error: $*" >&2; exit 1; }

need_root () {
    [ "$(id -u)" = 0 ] || die "must run as root (debootstrap, mount and chroot need it)"
    local c
    for c in unshare chroot mount umount; do
        command -v "$c" >/dev/null 2>&1 || die "$c not found (util-linux, coreutils)"
    done
}

# abs PATH: absolute, normalised PATH (need not exist).
abs () {
    local p
    p=$(realpath -m -- "$1") || die "bad path: $1"
    case "$p" in
        /|'') die "refusing '$1' (as ROOT or --bind DIR)" ;;
    esac
    printf '%s\n' "$p"
}

# host_mirrors: the URIs of the machine's enabled "deb" apt sources, in
# order (deb822 .sources files and one-line .list files).
host_mirrors () {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk '
            function flush() {
                if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^[ \t]*(no|false)/)
                    printf "%s\n", uris
                types = ""; uris = ""; enabled = ""
            }
            /^[ \t]*#/ { next }
            /^[ \t]*$/ { flush(); next }
            tolower($1) == "types:"   { sub(/^[^:]*:/, ""); types = $0; next }
            tolower($1) == "uris:"    { sub(/^[^:]*:/, ""); uris = $0; next }
            tolower($1) == "enabled:" { sub(/^[^:]*:/, ""); enabled = tolower($0); next }
            END { flush() }' "$f" | tr -s ' \t' '\n' | sed '/^$/d'
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        awk '$1 == "deb" {
                 for (i = 2; i <= NF; i++)
                     if ($i !~ /^\[/ && $i !~ /\]$/ && $i ~ /:\/\//) { print $i; break }
             }' "$f"
    done
}

# debian_mirror: the first URI whose path ends in /debian, else the first
# that is not a security or ports archive.
debian_mirror () {
    local all m
    all=$(host_mirrors | sed 's:/*$::')
    m=$(printf '%s\n' "$all" | grep -E '^[a-z+]+://[^ ]*/debian$' | head -n 1)
    [ -n "$m" ] || m=$(printf '%s\n' "$all" | grep -Ev 'security|ports' | grep . | head -n 1)
    [ -n "$m" ] || return 1
    printf '%s\n' "$m"
}

# mounts_under DIR: mount points at or below DIR in this mount namespace,
# deepest first.
mounts_under () {
    awk -v d="$1" '
        function unoct(s,   r, i, c) {
            r = ""
            for (i = 1; i <= length(s); i++) {
                c = substr(s, i, 1)
                if (c == "\\" && substr(s, i + 1, 3) ~ /^[0-7][0-7][0-7]$/) {
                    r = r sprintf("%c", (substr(s, i + 1, 1) * 64) + (substr(s, i + 2, 1) * 8) + substr(s, i + 3, 1))
                    i += 3
                } else r = r c
            }
            return r
        }
        { m = unoct($5); if (m == d || index(m, d "/") == 1) print length(m), m }' \
        /proc/self/mountinfo | sort -rn | cut -d' ' -f2-
}

# remove_tree DIR: unmount whatever is mounted below DIR, then rm -rf it
# without crossing into other file systems.
remove_tree () {
    local d m left
    d=$1
    [ -e "$d" ] || [ -L "$d" ] || return 0
    mounts_under "$d" | while IFS= read -r m; do
        umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
    done
    left=$(mounts_under "$d")
    [ -z "$left" ] || die "cannot unmount below $d: $(echo "$left" | tr "\n" " ")"
    rm -rf --one-file-system -- "$d" || die "cannot remove $d"
}

# looks_like_root DIR: DIR is absent, empty, or a Debian root.
looks_like_root () {
    [ ! -e "$1" ] && return 0
    [ -d "$1" ] || return 1
    [ -z "$(ls -A "$1")" ] && return 0
    [ -f "$1/.debian-root" ] || [ -f "$1/etc/debian_version" ] || [ -d "$1/debootstrap" ]
}

##
# create
##
pkg_list () {   # EXTRA...: the sorted, unique package list
    # shellcheck disable=SC2086
    printf '%s\n' $PACKAGES "$@" | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# fetch_deb PKG DIR: apt-get download PKG and unpack it into DIR.
fetch_deb () {
    local pkg dir deb
    pkg=$1 dir=$2
    mkdir -p "$dir/debs" && chmod 755 "$dir" "$dir/debs"
    (cd "$dir/debs" && apt-get download -q "$pkg") >>"$LOG" 2>&1 ||
        die "apt-get download $pkg failed (see $LOG)"
    deb=$(find "$dir/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
    [ -n "$deb" ] || die "apt-get download $pkg: no .deb"
    dpkg -x "$deb" "$dir/x" || die "dpkg -x $deb failed"
}

# in_root ROOT CMD...: run CMD in ROOT (host network) for create.  It
# execs: call it in a subshell (bg, $(...)).
in_root () {
    local r
    r=$1; shift
    exec unshare --mount --pid --uts --kill-child --propagation private -- \
        bash "$SELF" __inner "$r" host /root -- "$@"
}

# bg CMD...: run CMD (an unshare --kill-child) in the background and wait
# for it, so that a signal to this script ends it too (on_signal).  Its
# stdin is /dev/null.
CHILD=
bg () {
    local rc
    "$@" </dev/null &
    CHILD=$!
    wait "$CHILD"
    rc=$?
    CHILD=
    return $rc
}
on_signal () {
    trap - INT TERM HUP
    # unshare --fork ignores INT and TERM, and the first process of its PID
    # namespace takes only SIGKILL from outside: SIGKILL to unshare, whose
    # --kill-child passes it on, ends everything in the namespace.
    if [ -n "$CHILD" ]; then
        kill -KILL "$CHILD" 2>/dev/null
        wait "$CHILD" 2>/dev/null
    fi
    # fd 7: the script's stderr (here we may be inside bg ... 2>>LOG)
    echo "$PROG: interrupted; the partial root stays until the next create or remove" >&7
    exit 130
}

cmd_create () {
    local suite mirror root extra pkgs hash stamp tmp old scratch dbs_dir dbs keyring ver rc
    local tarball tarsum srcdir
    local bare=""
    suite=$DEFAULT_SUITE mirror="" extra="" tarball="" tarsum=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --suite) [ $# -ge 2 ] || die "--suite needs a value"; suite=$2; shift 2 ;;
            --suite=*) suite=${1#*=}; shift ;;
            --mirror) [ $# -ge 2 ] || die "--mirror needs a value"; mirror=$2; shift 2 ;;
            --mirror=*) mirror=${1#*=}; shift ;;
            --add) [ $# -ge 2 ] || die "--add needs a value"; extra="$extra $2"; shift 2 ;;
            --add=*) extra="$extra ${1#*=}"; shift ;;
            --slurm) [ $# -ge 2 ] || die "--slurm needs a tarball"; tarball=$2; shift 2 ;;
            --slurm=*) tarball=${1#*=}; shift ;;
            --bare) bare=1; shift ;;
            -h|--help) usage; exit 0 ;;
            -*) die "create: unknown option $1 (see --help)" ;;
            *) break ;;
        esac
    done
    [ $# -eq 1 ] || die "create: one ROOT expected (see --help)"
    root=$(abs "$1") || exit 1
    [ -z "$bare" ] || [ -z "$tarball" ] || die "--bare and --slurm exclude each other"
    if [ -n "$bare" ]; then
        # shellcheck disable=SC2086
        pkgs=$(PACKAGES="" pkg_list $extra)
    elif [ -n "$tarball" ]; then
        [ -f "$tarball" ] || die "--slurm $tarball: no such file"
        tarball=$(abs "$tarball") || exit 1
        case "${tarball##*/}" in
            slurm-*.tar.gz|slurm-*.tar.bz2|slurm-*.tar.xz|slurm-*.tgz) ;;
            *) die "--slurm $tarball: a Slurm release tarball (slurm-*.tar.gz, .bz2 or .xz) expected" ;;
        esac
        tarsum=$(sha256sum "$tarball" | cut -d' ' -f1) || die "cannot read $tarball"
        # shellcheck disable=SC2086
        pkgs=$(PACKAGES=$(printf '%s\n' $PACKAGES | grep -vxF "$(printf '%s\n' $DEBIAN_SLURM)")
               pkg_list $SLURM_BUILD_DEPS $extra)
    else
        # shellcheck disable=SC2086
        pkgs=$(pkg_list $extra)
    fi
    hash=$(printf 'recipe=%s\nsuite=%s\npackages=%s\nslurm-tarball=%s\nconfigure=%s\n%s' \
               "$RECIPE" "$suite" "$pkgs" "$tarsum" "${tarsum:+$SLURM_CONFIGURE}" \
               "${bare:+bare=1
}" |
           sha256sum | cut -c1-16)
    stamp=$root/.debian-root
    if [ -f "$stamp" ] && grep -qx "hash=$hash" "$stamp"; then
        echo "$PROG: reusing $root ($suite, $(sed -n 's/^slurm=//p' "$stamp"), packages $hash)"
        return 0
    fi
    need_root
    looks_like_root "$root" || die "$root exists and is not a Debian root: not touching it"
    mkdir -p "$(dirname "$root")" || die "cannot create $(dirname "$root")"
    exec 9>"$root.lock" || die "cannot write $root.lock"
    if ! flock -n 9; then
        say "waiting for another create of $root"
        flock 9 || die "flock $root.lock failed"
        if [ -f "$stamp" ] && grep -qx "hash=$hash" "$stamp"; then
            echo "$PROG: reusing $root ($suite, $(sed -n 's/^slurm=//p' "$stamp"), packages $hash)"
            return 0
        fi
    fi
    [ -f "$stamp" ] && say "$root was made for another package list or recipe: rebuilding"
    if [ -z "$mirror" ]; then
        mirror=$(debian_mirror) ||
            die "no Debian mirror in /etc/apt/sources.list{,.d} (give --mirror URI)"
    fi
    tmp=$root.tmp old=$root.old
    exec 7>&2
    trap on_signal INT TERM HUP
    remove_tree "$tmp"
    remove_tree "$old"
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/debian-root.XXXXXX") || die "mktemp failed"
    # shellcheck disable=SC2064
    trap "rm -rf '$scratch'" EXIT
    LOG=$scratch/create.log
    : >"$LOG"

    # debootstrap: the machine's, if it knows the suite; else Debian's.
    if command -v debootstrap >/dev/null 2>&1 &&
       [ -e "/usr/share/debootstrap/scripts/$suite" ]; then
        dbs=$(command -v debootstrap) dbs_dir=/usr/share/debootstrap
        say "debootstrap: $dbs ($(dpkg-query -W -f '${Version}' debootstrap 2>/dev/null || echo installed))"
    else
        command -v apt-get >/dev/null 2>&1 ||
            die "no debootstrap for $suite and no apt-get to fetch one"
        say "debootstrap: apt-get download debootstrap"
        fetch_deb debootstrap "$scratch/dbs"
        dbs=$scratch/dbs/x/usr/sbin/debootstrap dbs_dir=$scratch/dbs/x/usr/share/debootstrap
        [ -e "$dbs_dir/scripts/$suite" ] || die "the downloaded debootstrap does not know $suite"
    fi
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    if ! [ -f "$keyring" ]; then
        say "keyring: apt-get download debian-archive-keyring"
        fetch_deb debian-archive-keyring "$scratch/kr"
        keyring=$scratch/kr/x$keyring
        [ -f "$keyring" ] || die "debian-archive-keyring has no $keyring"
    fi
    command -v wget >/dev/null 2>&1 || command -v curl >/dev/null 2>&1 ||
        die "debootstrap needs wget (apt-get install wget)"

    say "debootstrap --variant=minbase $suite $tmp $mirror"
    mkdir -p "$tmp"
    # A private mount and PID namespace: whatever debootstrap mounts or
    # starts goes away with it, even when it is interrupted.
    bg unshare --mount --pid --fork --kill-child --propagation private -- \
        env DEBOOTSTRAP_DIR="$dbs_dir" "$dbs" --variant=minbase --keyring="$keyring" \
        "$suite" "$tmp" "$mirror" >>"$LOG" 2>&1 || {
        tail -n 15 "$LOG" >&2
        die "debootstrap failed (last lines above)"
    }

    say "configuring the root (hosts, policy-rc.d, apt, dpkg)"
    printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
        "$ROOT_HOSTNAME" >"$tmp/etc/hosts"
    echo "$ROOT_HOSTNAME" >"$tmp/etc/hostname"
    printf '#!/bin/sh\n# debian-root.sh: no service starts in this root\nexit 101\n' \
        >"$tmp/usr/sbin/policy-rc.d"
    chmod 755 "$tmp/usr/sbin/policy-rc.d"
    cat >"$tmp/etc/apt/apt.conf.d/90debian-root" <<'EOF'
// debian-root.sh
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
Dpkg::Use-Pty "false";
EOF
    mkdir -p "$tmp/etc/dpkg/dpkg.cfg.d"
    cat >"$tmp/etc/dpkg/dpkg.cfg.d/90debian-root" <<'EOF'
# debian-root.sh: no documentation, manual pages or translations
path-exclude=/usr/share/doc/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-include=/usr/share/locale/locale.alias
EOF
    rm -f "$tmp/etc/resolv.conf"
    cat /etc/resolv.conf >"$tmp/etc/resolv.conf" 2>/dev/null || :

    [ -n "$pkgs" ] && say "apt-get install $(echo "$pkgs" | wc -w) packages (no recommends)"
    # shellcheck disable=SC2086
    [ -z "$pkgs" ] || bg in_root "$tmp" sh -c '
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q &&
        apt-get install -y -q --no-install-recommends "$@" &&
        apt-get clean &&
        rm -rf /var/lib/apt/lists/*' sh $pkgs >>"$LOG" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        tail -n 20 "$LOG" >&2
        die "apt-get install in $tmp failed (last lines above)"
    fi
    srcdir=""
    if [ -n "$tarball" ]; then
        say "Slurm from ${tarball##*/} (sha256 ${tarsum:0:16}): configure, make -j$(nproc), make install"
        mkdir -p "$tmp/usr/src/nodeshare-slurm" &&
            tar -xf "$tarball" -C "$tmp/usr/src/nodeshare-slurm" ||
            die "cannot unpack $tarball"
        srcdir=$(cd "$tmp/usr/src/nodeshare-slurm" && ls -d */ | head -n 1)
        srcdir=/usr/src/nodeshare-slurm/${srcdir%/}
        [ -x "$tmp$srcdir/configure" ] || die "$tarball: no configure script at its top"
        # shellcheck disable=SC2016
        bg in_root "$tmp" sh -c '
            cd "$1" && ./configure $2 >configure.log 2>&1 &&
            make -j"$(nproc)" >make.log 2>&1 && make install >install.log 2>&1 &&
            ldconfig' sh "$srcdir" "$SLURM_CONFIGURE" >>"$LOG" 2>&1
        rc=$?
        if [ $rc -ne 0 ]; then
            tail -n 20 "$tmp$srcdir"/configure.log "$tmp$srcdir"/make.log \
                "$tmp$srcdir"/install.log 2>/dev/null >&2
            die "building Slurm from $tarball in $tmp failed (last lines above)"
        fi
        mkdir -p "$tmp/etc/slurm"
    fi
    if [ -n "$bare" ]; then
        ver=none
    else
        ver=$(in_root "$tmp" slurmctld -V 2>>"$LOG" </dev/null) || die "slurmctld -V fails in $tmp"
        ver=${ver##* }
    fi
    say "installed: Slurm $ver"
    mkdir -p "$tmp/var/log"
    cp "$LOG" "$tmp/var/log/debian-root.log"
    {
        echo "# made by scripts/debian-root.sh create"
        echo "hash=$hash"
        echo "recipe=$RECIPE"
        echo "suite=$suite"
        echo "slurm=$ver"
        [ -z "$srcdir" ] || echo "slurm_source=$srcdir"
        [ -z "$tarball" ] || echo "slurm_tarball=${tarball##*/} $tarsum"
        echo "packages=$pkgs"
        echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    } >"$tmp/.debian-root"
    # Complete: replace the old root (if any) in two renames.
    if [ -e "$root" ]; then
        mv -T "$root" "$old" || die "cannot move $root aside"
    fi
    mv -T "$tmp" "$root" || die "cannot rename $tmp to $root"
    remove_tree "$old"
    say "done: $root ($(du -sh --one-file-system "$root" 2>/dev/null | cut -f1), Slurm $ver)"
}

##
# run
##
cmd_run () {
    local root net cwd binds envs b
    [ $# -ge 1 ] || die "run: ROOT expected (see --help)"
    case "$1" in -h|--help) usage; exit 0 ;; esac
    root=$(abs "$1") || exit 1; shift
    net=private cwd="" binds=() envs=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --bind|--bind=*)
                if [ "$1" = --bind ]; then
                    [ $# -ge 2 ] || die "--bind needs a directory"
                    b=$2; shift 2
                else
                    b=${1#*=}; shift
                fi
                [ -d "$b" ] || die "--bind $b: no such directory"
                b=$(abs "$b") || exit 1
                binds+=("$b") ;;
            --env) [ $# -ge 2 ] || die "--env needs NAME=VALUE"
                   case "$2" in [A-Za-z_]*=*) ;; *) die "--env $2: NAME=VALUE expected" ;; esac
                   envs+=("$2"); shift 2 ;;
            --env=*) case "${1#*=}" in [A-Za-z_]*=*) ;; *) die "$1: NAME=VALUE expected" ;; esac
                     envs+=("${1#*=}"); shift ;;
            --host-net) net=host; shift ;;
            --chdir) [ $# -ge 2 ] || die "--chdir needs a directory"; cwd=$2; shift 2 ;;
            --chdir=*) cwd=${1#*=}; shift ;;
            --) shift; break ;;
            *) die "run: unknown argument $1 (CMD goes after --; see --help)" ;;
        esac
    done
    [ $# -ge 1 ] || die "run: no command after --"
    need_root
    [ -f "$root/.debian-root" ] ||
        die "$root is not a complete root (run: $PROG create $root)"
    if [ -z "$cwd" ]; then
        cwd=/root
        for b in "${binds[@]+"${binds[@]}"}"; do
            case "$PWD/" in "$b"/*) cwd=$PWD; break ;; esac
        done
    fi
    local nsopt=(--mount --pid --uts --kill-child --propagation private)
    [ "$net" = private ] && nsopt+=(--net)
    # exec: a signal to this script reaches unshare, whose --kill-child
    # then ends everything in the namespaces.
    exec unshare "${nsopt[@]}" -- bash "$SELF" __inner "$root" "$net" "$cwd" \
        "${binds[@]/#/--bind=}" "${envs[@]/#/--env=}" -- "$@"
}

# __inner ROOT NET CWD [--bind=DIR]... [--env=N=V]... -- CMD...: the part
# of run inside the new namespaces (this shell is PID 1 there).
cmd_inner () {
    local root net cwd b top rc envs=() bound=() made=()
    root=$1 net=$2 cwd=$3; shift 3
    mount --make-rprivate / 2>/dev/null
    echo "$ROOT_HOSTNAME" >/proc/sys/kernel/hostname 2>/dev/null
    mount -t proc proc "$root/proc" || die "cannot mount proc in $root"
    if ! { mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"; }; then
        die "cannot bind /dev into $root"
    fi
    if ! mount --rbind /sys "$root/sys" 2>/dev/null; then
        mount -t sysfs -o ro sysfs "$root/sys" 2>/dev/null ||
            echo "$PROG: warning: no /sys in $root" >&2
    fi
    mount --make-rslave "$root/sys" 2>/dev/null
    mount -t tmpfs -o mode=755,nosuid,nodev tmpfs "$root/run" ||
        die "cannot mount a tmpfs on $root/run"
    mkdir -p "$root/run/lock"
    while [ $# -gt 0 ]; do
        case "$1" in
            --bind=*)
                b=${1#*=}
                if ! [ -d "$root$b" ]; then
                    # the topmost directory created, removed at the end
                    top=$b
                    while ! [ -d "$root$(dirname "$top")" ]; do top=$(dirname "$top"); done
                    made+=("$top")
                    mkdir -p "$root$b" || die "cannot create $root$b"
                fi
                mount --rbind "$b" "$root$b" || die "cannot bind $b into $root"
                mount --make-rslave "$root$b" 2>/dev/null
                bound+=("$b") ;;
            --env=*) envs+=("${1#*=}") ;;
            --) shift; break ;;
        esac
        shift
    done
    if [ "$net" = private ]; then
        if ! { chroot "$root" ip link set lo up &&
               chroot "$root" ip addr add "$LO_EXTRA_ADDR" dev lo; }; then
            die "cannot set up lo in the private network namespace"
        fi
    elif [ -f /etc/resolv.conf ] && [ -f "$root/etc/resolv.conf" ] &&
         ! [ -L "$root/etc/resolv.conf" ]; then
        mount --bind /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
    fi
    # Not exec: this shell stays PID 1 and reaps orphans while it waits.
    chroot "$root" /usr/bin/env -i -C "$cwd" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 SHELL=/bin/sh \
        TERM="${TERM:-dumb}" "${envs[@]+"${envs[@]}"}" "$@"
    rc=$?
    # Leave the cached root as it was: the mount points made for --bind go
    # (only empty directories, never across a mount).
    for b in "${bound[@]+"${bound[@]}"}"; do
        umount -R -l "$root$b" 2>/dev/null
    done
    for top in "${made[@]+"${made[@]}"}"; do
        find "$root$top" -xdev -depth -type d -empty -delete 2>/dev/null
    done
    return $rc
}

##
# remove
##
cmd_remove () {
    local root d
    [ $# -eq 1 ] || die "remove: one ROOT expected (see --help)"
    case "$1" in -h|--help) usage; exit 0 ;; esac
    root=$(abs "$1") || exit 1
    need_root
    for d in "$root" "$root.tmp" "$root.old"; do
        looks_like_root "$d" || die "$d is not a Debian root: not removing it"
    done
    for d in "$root" "$root.tmp" "$root.old"; do
        [ -e "$d" ] && say "removing $d"
        remove_tree "$d"
    done
    rm -f "$root.lock"
}

SELF=$(readlink -f "$0") || SELF=$0
[ $# -ge 1 ] || { usage >&2; exit 2; }
sub=$1; shift
case "$sub" in
    create) cmd_create "$@" ;;
    run) cmd_run "$@" ;;
    remove) cmd_remove "$@" ;;
    __inner) cmd_inner "$@" ;;
    -h|--help|help) usage ;;
    *) die "unknown subcommand '$sub' (create, run, remove; see --help)" ;;
esac
