#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh [SECONDS [TARGET...]] - build and run the fuzz targets
#
# Builds every target (build.sh; FUZZ_CC, default clang), replays the
# inputs that once crashed it (crashes/TARGET/), then fuzzes it for
# SECONDS (default 30) from a copy of its seed corpus (corpus/TARGET/)
# with its dictionary (TARGET.dict).  Prints one line per target and, for
# a crash, the input (on one line and as a hex dump) and the end of
# libFuzzer's report; the input is kept in $FUZZ_ARTIFACTS (default
# ./fuzz-artifacts).
# A run stopped by libFuzzer's 10 s timeout counts as passed when every
# such input, run alone 3 times, takes at most 2 s: a busy machine, not a
# slow target (the line says so and shows the input).
# Exits 1 if any target crashed, 2 if the targets cannot be built.
#   FUZZ_OUT   where the binaries go (default: a temporary directory)
set -u
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:-30}
[ $# -gt 0 ] && shift
case $secs in
    ''|*[!0-9]*) echo "run.sh: SECONDS must be a whole number, got '$secs'" >&2
                 exit 2 ;;
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nsfuzz.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
out=${FUZZ_OUT:-$tmp/bin}
artifacts=${FUZZ_ARTIFACTS:-$(pwd)/fuzz-artifacts}

if [ $# -eq 0 ]; then
    for f in "$here"/fuzz_*.c; do
        n=$(basename "$f" .c)
        set -- "$@" "${n#fuzz_}"
    done
fi
if ! "$here/build.sh" "$out" "$@" >"$tmp/build.log" 2>&1; then
    tail -30 "$tmp/build.log"
    echo "run.sh: the fuzz targets do not build (clang with -fsanitize=fuzzer needed)"
    exit 2
fi

# show_crash NAME LOG: the input libFuzzer saved, and its report.
show_crash () {
    name=$1 log=$2
    mkdir -p "$artifacts"
    for a in "$tmp/work-$name"/crash-* "$tmp/work-$name"/leak-* \
             "$tmp/work-$name"/timeout-* "$tmp/work-$name"/oom-* \
             "$tmp/work-$name"/slow-unit-*; do
        [ -f "$a" ] || continue
        cp "$a" "$artifacts/$name-$(basename "$a")"
        kind=$(basename "$a" | sed 's/-.*//')   # crash, leak, timeout...
        echo "  $kind input ($(wc -c <"$a") bytes)," \
             "kept as $artifacts/$name-$(basename "$a"):"
        printf '  input: %s\n' "$(od -An -c -N64 "$a" | tr -s ' \n' ' ')"
        od -A d -c "$a" | head -40 | sed 's/^/    /'
    done
    grep -E 'ERROR|broken promise|SUMMARY|^    #[0-9]' "$log" | head -30 \
        | sed 's/^/  /'
}

# load_timeouts BIN WORK: when libFuzzer stopped on timeouts alone, run
# each of those inputs again alone, 3 times; print the slowest time
# (e.g. "140 ms") if every run ends within a fifth of the timeout, and
# nothing otherwise (a crash, or an input slow on its own).
load_timeouts () {
    bin=$1 work=$2 worst=0
    for a in "$work"/crash-* "$work"/leak-* "$work"/oom-* \
             "$work"/slow-unit-*; do
        [ -f "$a" ] && return 0
    done
    ls "$work"/timeout-* >/dev/null 2>&1 || return 0
    for a in "$work"/timeout-*; do
        for i in 1 2 3; do
            t0=$(date +%s%N)
            "$bin" -timeout=10 "$a" >"$work/alone.log" 2>&1 || return 0
            ms=$(( ($(date +%s%N) - t0) / 1000000 ))
            [ $ms -gt 2000 ] && return 0
            [ $ms -gt $worst ] && worst=$ms
        done
    done
    echo "$worst ms"
}

failed=0
for name in "$@"; do
    bin=$out/fuzz_$name
    work=$tmp/work-$name
    mkdir -p "$work/corpus"
    cp "$here/corpus/$name"/* "$work/corpus/" 2>/dev/null
    dict=
    [ -f "$here/$name.dict" ] && dict="-dict=$here/$name.dict"
    opts="-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix=$work/"
    # FUZZ_SEED (libFuzzer's -seed; unset: a new one each run) makes a run
    # repeatable: CI uses a fixed one so that its result can be reproduced.
    [ -n "${FUZZ_SEED:-}" ] && opts="$opts -seed=$FUZZ_SEED"
    # Regressions first: every input that once crashed the target.
    if [ -d "$here/crashes/$name" ] && ls "$here/crashes/$name"/* >/dev/null 2>&1; then
        # shellcheck disable=SC2086
        if ! "$bin" $opts "$here/crashes/$name"/* >"$work/replay.log" 2>&1; then
            echo "fuzz $name: FAILED: a stored crash input crashes again"
            show_crash "$name" "$work/replay.log"
            failed=$((failed + 1))
            continue
        fi
    fi
    start=$(date +%s)
    # shellcheck disable=SC2086
    "$bin" $opts $dict -max_total_time="$secs" -print_final_stats=1 \
        "$work/corpus" >"$work/log" 2>&1
    rc=$?
    took=$(( $(date +%s) - start ))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    slow=
    [ $rc -ne 0 ] && slow=$(load_timeouts "$bin" "$work")
    if [ $rc -eq 0 ]; then
        echo "fuzz $name: ok, ${runs:-?} runs in ${took} s"
    elif [ -n "$slow" ]; then
        # Only timeouts, and every one of them runs alone well inside
        # the limit: the machine was busy, the target was not slow.
        echo "fuzz $name: ok, stopped after ${took} s by a timeout under" \
             "load; alone the input took $slow"
        show_crash "$name" "$work/log"
    else
        echo "fuzz $name: FAILED after ${took} s (exit $rc)"
        show_crash "$name" "$work/log"
        failed=$((failed + 1))
    fi
done
echo "fuzz: $# targets, $failed failed"
[ $failed -eq 0 ]
