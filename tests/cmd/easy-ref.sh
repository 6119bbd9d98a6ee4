#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# easy-ref.sh - nodeshare-sim -p exclusive is textbook EASY (TAP): on the
# real KTH, NASA and RICC traces its start times equal, job by job, those
# of tests/ref/easy_ref, an independent count-based EASY on identical
# exclusive nodes (Lifka; Mu'alem and Feitelson).  First the reference
# itself on a schedule worked out by hand, and a check that a wrong start
# time is caught.  The traces are looked for in $NS_TRACES, else
# ../shared/traces beside the source tree; missing ones are skipped.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/cmd/tap.sh"
sim="$top_builddir/nodeshare-sim"
ref="$top_builddir/tests/ref/easy_ref"
traces=${NS_TRACES:-$top_srcdir/../shared/traces}

# same NAME NODES CORES REF_ARGS -- SIM_ARGS...: replay with nodeshare-sim
# (exclusive), then the reference on its CSV; the reference prints the
# first differing jobs when there are any.
same () {
    name=$1 nodes=$2 cores=$3 refargs=$4
    shift 5
    if ! "$sim" -q -p exclusive --baseline exclusive --csv "$tmp/out.csv" \
        "$@" >"$tmp/table" 2>"$tmp/err"; then
        fail "$name: nodeshare-sim failed"
        sed 's/^/#   /' "$tmp/err"
        return
    fi
    # shellcheck disable=SC2086
    "$ref" --nodes "$nodes" --cores "$cores" $refargs "$tmp/out.csv" \
        >"$tmp/ref" 2>&1
    rc=$?
    summary=$(tail -n 1 "$tmp/ref")
    if [ $rc = 0 ]; then
        pass "$name: start times identical ($summary)"
    else
        fail "$name: start times differ from the reference"
        sed 's/^/#   /' "$tmp/ref"
    fi
}

# 1. The reference on the hand-worked case of tests/unit/engine.c
#    ("extra"): 5 nodes; at 20 head J2 waits for J1's 3 nodes at 100,
#    extra = 2, so both long J3 and J4 start at 20.  Job 2 takes 3
#    processors at 100.
cat >"$tmp/hand.csv" <<'EOT'
policy,job,program,procs,submit_s,start_s,end_s,wait_s,trace_runtime_s,runtime_s,requested_s,nodes,striped,shared,over_limit,killed,state
exclusive,1,,1,0,0,10,0,10,10,10,1,0,0,0,0,done
exclusive,2,,3,0,0,100,0,100,100,100,3,0,0,0,0,done
exclusive,3,,3,20,100,150,80,50,50,50,3,0,0,0,0,done
exclusive,4,,1,20,20,1020,0,1000,1000,1000,1,0,0,0,0,done
exclusive,5,,1,20,20,1020,0,1000,1000,1000,1,0,0,0,0,done
EOT
if out=$("$ref" --nodes 5 --cores 1 "$tmp/hand.csv" 2>&1); then
    pass "reference: the hand-worked schedule"
else
    fail "reference: the hand-worked schedule"
    printf '%s\n' "$out" | sed 's/^/#   /'
fi
# The same with job 5 said to start at 100: the reference must object and
# name it.
sed 's/^exclusive,5,,1,20,20,/exclusive,5,,1,20,100,/' "$tmp/hand.csv" \
    >"$tmp/wrong.csv"
out=$("$ref" --nodes 5 --cores 1 "$tmp/wrong.csv" 2>&1)
rc=$?
if [ $rc = 1 ] && printf '%s\n' "$out" | grep -q "differ: job 5 .*reference start 20, simulator 100"
then
    pass "reference: a wrong start time is reported, with the job"
else
    fail "reference: a wrong start time is reported, with the job"
    printf '%s\n' "$out" | sed 's/^/#   /'
fi
# --overrun run keeps job 1 of 10 s asked 5 s running to 10.
cat >"$tmp/over.csv" <<'EOT'
policy,job,program,procs,submit_s,start_s,end_s,wait_s,trace_runtime_s,runtime_s,requested_s,nodes,striped,shared,over_limit,killed,state
exclusive,1,,1,0,0,5,0,10,5,5,1,0,0,0,1,done
exclusive,2,,1,0,5,6,5,1,1,1,1,0,0,0,0,done
EOT
if "$ref" --nodes 1 --cores 1 "$tmp/over.csv" >/dev/null \
    && ! "$ref" --nodes 1 --cores 1 --overrun run "$tmp/over.csv" >/dev/null
then
    pass "reference: kill at the requested time, or run on"
else
    fail "reference: kill at the requested time, or run on"
fi
out=$("$ref" --nodes 1 --cores 1 "$tmp/nothere.csv" 2>&1)
rc=$?
if [ $rc = 2 ] && printf '%s\n' "$out" | grep -qF "nothere.csv: cannot open"
then
    pass "reference: missing file, exit 2"
else
    fail "reference: missing file, exit 2"
fi

# 2. The real traces.
kth=$traces/KTH-SP2-1996-2.1-cln.swf.gz
nasa=$traces/NASA-iPSC-1993-3.1-cln.swf.gz
ricc=$traces/RICC-2010-2.swf.gz
if [ -f "$kth" ]; then
    same "KTH 100 x 1" 100 1 "" -- "$kth"
    same "KTH 100 x 1, --overrun run" 100 1 "--overrun run" -- \
        --overrun run "$kth"
    same "KTH 100 x 1, --bf-depth 100" 100 1 "--depth 100" -- \
        --bf-depth 100 "$kth"
    same "KTH 25 x 4" 25 4 "" -- --nodes 25 --cores 4 "$kth"
else
    skip "KTH: $kth not found"
fi
if [ -f "$nasa" ]; then
    same "NASA 128 x 1" 128 1 "" -- "$nasa"
else
    skip "NASA: $nasa not found"
fi
if [ -f "$ricc" ]; then
    same "RICC 1024 x 8, first 20,000 jobs" 1024 8 "" -- \
        --max-jobs 20000 "$ricc"
    same "RICC 1024 x 8, first 20,000 jobs, --bf-depth 100" 1024 8 \
        "--depth 100" -- --max-jobs 20000 --bf-depth 100 "$ricc"
else
    skip "RICC: $ricc not found"
fi

tap_end
