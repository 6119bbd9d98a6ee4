#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# build.sh OUTDIR [TARGET...] - build the libFuzzer targets of tests/fuzz
#
# Every target (default: all, the fuzz_*.c next to this script) is linked
# with the project's pure code (model/, node/, the trace readers, the
# engine and its parts, resv.c, qtree.c and sweep.c, spank/pin.c and
# ledgerfile.c) compiled once with
# coverage and ASan + UBSan.  Needs clang with -fsanitize=fuzzer (FUZZ_CC, default
# clang) and pkg-config for json-c, hwloc and zlib.  Also `make fuzz` in
# a tree configured with --enable-fuzz.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:?usage: build.sh OUTDIR [TARGET...]}
shift
cc=${FUZZ_CC:-clang}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cflags="-g -O1 -fno-omit-frame-pointer $san ${FUZZ_CFLAGS:-}"
deps=$(pkg-config --cflags json-c hwloc zlib)
libs="$(pkg-config --libs json-c hwloc zlib) -lm -lpthread"
inc="-I$top/model -I$top/node -I$top/sim -I$top/spank -I$top/tests/fuzz"

mkdir -p "$out/obj"
out=$(cd "$out" && pwd)
objs=
for src in "$top"/model/*.c "$top"/node/*.c "$top/sim/trace.c" "$top/sim/gzahead.c" \
           "$top/sim/trace_swf.c" \
           "$top/sim/trace_sacct.c" "$top/sim/history.c" "$top/sim/workload.c" \
           "$top/sim/fileio.c" \
           "$top/sim/shadow.c" "$top/sim/engine.c" "$top/sim/eventq.c" "$top/sim/pool.c" \
           "$top/sim/byend.c" "$top/sim/decmemo.c" "$top/sim/qblocks.c" \
           "$top/sim/headresv.c" "$top/sim/backfill.c" "$top/sim/rellog.c" \
           "$top/sim/resv.c" "$top/sim/qtree.c" \
           "$top/sim/slurmconf.c" "$top/sim/sweep.c" "$top/sim/nodefail.c" "$top/spank/pin.c" \
           "$top/spank/ledgerfile.c"
do
    [ -f "$src" ] || continue
    obj="$out/obj/$(basename "$(dirname "$src")")-$(basename "$src" .c).o"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ]; then
        # shellcheck disable=SC2086
        $cc $cflags -fsanitize=fuzzer-no-link $inc $deps -c "$src" -o "$obj"
    fi
    objs="$objs $obj"
done

if [ $# -eq 0 ]; then
    for f in "$here"/fuzz_*.c; do
        n=$(basename "$f" .c)
        set -- "$@" "${n#fuzz_}"
    done
fi
for name in "$@"; do
    echo "  FUZZ     $out/fuzz_$name"
    # shellcheck disable=SC2086
    $cc $cflags -fsanitize=fuzzer $inc $deps "$here/fuzz_$name.c" $objs \
        $libs -o "$out/fuzz_$name"
done
