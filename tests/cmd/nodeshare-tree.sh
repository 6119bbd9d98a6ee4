#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeshare-tree.sh - golden outputs of the nodeshare-tree command (TAP)
#
# Each case runs nodeshare-tree from tests/ (so file names in the output do
# not depend on the build directory) and compares stdout, stderr and the
# exit status with tests/golden/NAME.out, as hwloc's utils tests do.
# NS_GOLDEN_UPDATE=1 rewrites the golden files instead (review the diff).

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$(pwd)}
tool="$top_builddir/nodeshare-tree"
golden="$top_srcdir/tests/golden"

TOPO_DESKTOP='pack:1 l3:1(size=8MiB) l2:4(size=256KiB) l1d:1(size=32KiB) core:1 pu:2'
TOPO_TWOSOCKET='pack:2 l3:1(size=30MiB) l2:12(size=256KiB) l1d:1(size=32KiB) core:1 pu:2(indexes=2*24:1*2)'
TOPO_AMD='pack:2 l3:4(size=32MiB) l2:8(size=512KiB) l1d:1(size=32KiB) core:1 pu:2'
TOPO_GROUPS='pack:2 numa:2 l3:2(size=16MiB) group:2 l2:2(size=1MiB) l1d:1(size=32KiB) core:1 pu:2'
TOPO_XML=topologies/xeon-e5-2650v4-2s.xml

n=0
failed=0

# check NAME ARGS...: run the tool, compare with golden/NAME.out.
check () {
    name=$1
    shift
    n=$((n + 1))
    out=$(cd "$top_srcdir/tests" && "$tool" "$@" 2>&1; echo "exit $?")
    if test -n "$NS_GOLDEN_UPDATE"; then
        printf '%s\n' "$out" >"$golden/$name.out"
    fi
    if printf '%s\n' "$out" | diff -u "$golden/$name.out" - >/dev/null 2>&1
    then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name"
        printf '%s\n' "$out" | diff -u "$golden/$name.out" - | sed 's/^/# /'
        failed=$((failed + 1))
    fi
}

check desktop -t "$TOPO_DESKTOP" 16K@0 16K@0 1K@0 200K@1 100K@1 4M@2 4M@3 \
    64M@0
check desktop-explain -t "$TOPO_DESKTOP" --explain 16K@0 16K@0 1K@0 200K@1 \
    100K@1 4M@2 4M@3
check twosocket-json -t "$TOPO_TWOSOCKET" --json 20M@0 20M@1 20M@2 8M@13 \
    8M@14 100K@5
check twosocket-cpuset -t "$TOPO_TWOSOCKET" --cpuset 8-15 20M@8 20M@9 \
    20M@15 1K@11
check amd-sigma1 -t "$TOPO_AMD" 20M@0 80M@0 20M@0 20M@0
check amd-sigma05 -t "$TOPO_AMD" --sigma 0.5 20M@0 80M@0 20M@0 12M@0
check groups-json-explain -t "$TOPO_GROUPS" -j -e 12M@8 12M@8 600K@0 600K@0
check xml -t "$TOPO_XML" 20M@0 20M@0 1M@12 8K@13 2G@23
check xml-cpuset-json -t "$TOPO_XML" -c 0-3,12-15 -j 20M@15 20M@15 4K@1
# L2 #1 claims PUs 0-1 but holds only core 1: restricted to core 0 it is
# not in the tree (it used to be, and a task anchored there crashed).
check xml-cache-without-cores -t topologies/cache-without-cores.xml -c 0 -e \
    256K@0 256K@0 1K@0
check xml-cache-without-cores-all -t topologies/cache-without-cores.xml -e \
    256K@0 256K@0 1K@1
# A unified L1 above the L1d: the L1d are the tree's L1, named once each.
check two-l1-explain -e -t 'l1:2(size=1MiB) l1d:2(size=32KiB) core:2 pu:1' \
    32K@0 32K@0 32K@0
# hwloc 2.9 crashes on an object with a cpuset but no complete_cpuset:
# refused with the object's number instead (it was a SIGSEGV).
check err-xml-without-complete-cpuset \
    -t topologies/pu-without-complete-cpuset.xml 1K@0
# A misspelt attribute before complete_cpuset: hwloc's own parser stops
# reading the tag there and crashed on the PU it made (a fuzz find).
check err-xml-misspelt-attribute \
    -t fuzz/crashes/tree_xml/hwloc-segv-misspelt-attribute 1K@0
# 8 million PUs: hwloc would build them for minutes (a fuzz find).
check err-synthetic-too-big -t 'pack:6 core:2 666666' 1K@0
check help --help
check err-no-task -t "$TOPO_DESKTOP"
check err-bad-task -t "$TOPO_DESKTOP" 16K
check err-bad-size -t "$TOPO_DESKTOP" 16Q@0
check err-negative-size -t "$TOPO_DESKTOP" -- -16K@0
check err-bad-core -t "$TOPO_DESKTOP" 16K@x
check err-core-range -t "$TOPO_DESKTOP" 16K@0 16K@4
check err-core-not-in-cpuset -t "$TOPO_DESKTOP" -c 1-2 16K@0
check err-bad-cpuset -t "$TOPO_DESKTOP" -c 1-x 16K@1
check err-cpuset-range -t "$TOPO_DESKTOP" -c 2-7 16K@2
check err-bad-topology -t 'pack:2 bogus:3' 16K@0
check err-missing-xml -t missing.xml 16K@0
check err-bad-sigma -t "$TOPO_DESKTOP" -s 1.5 16K@0
check err-bad-option -t "$TOPO_DESKTOP" --bogus 16K@0

echo "1..$n"
test "$failed" -eq 0
