# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/jobcomp.sh - what tests/slurm/expect.sh compares of a test's
# jobs, from JobCompType=jobcomp/filetxt lines (sourced; POSIX sh and awk).

# One line per job on stdin ("1:1", "2:24", "c") -> one line, sorted,
# repeats counted: "1:1x2 2:24".
_ns_tally () {
    sort -t: -k1,1n -k2,2n | uniq -c |
        awk '{ printf "%s%s%s", (NR > 1 ? " " : ""), $2, ($1 > 1 ? "x" $1 : "") }'
}

# NodeCnt:ProcCnt of the jobcomp lines after line SKIP, sorted, repeats
# counted: "1:1x2 2:24" (two jobs of 1 node and 1 CPU, one of 2 and 24).
nodecounts () {   # FILE SKIP
    [ -f "$1" ] || return 0
    tail -n +"$(($2 + 1))" "$1" |
        sed -n 's/.* NodeCnt=\([0-9]*\) ProcCnt=\([0-9]*\) .*/\1:\2/p' |
        _ns_tally
}

# The same, with every job cancelled within 2 s of its submission written
# "c" whatever it was given: whether the scheduler started such a job
# before the test cancelled it (1:1) or not (0:0) depends on where the
# test fell between two scheduling passes, on either side.
stablecounts () {   # FILE SKIP
    [ -f "$1" ] || return 0
    tail -n +"$(($2 + 1))" "$1" | awk '
        function secs(t,  a, y, m, d) {   # 2026-11-25T21:58:56 -> seconds
            if (split(t, a, /[-T:]/) != 6) return -1
            y = a[1]; m = a[2]; if (m <= 2) { y--; m += 12 }
            d = 365 * y + int(y / 4) - int(y / 100) + int(y / 400)
            d += int((153 * (m - 3) + 2) / 5) + a[3]
            return d * 86400 + a[4] * 3600 + a[5] * 60 + a[6]
        }
        {
            st = nc = pc = sub_t = end_t = ""
            for (i = 1; i <= NF; i++) {
                split($i, kv, "=")
                if (kv[1] == "JobState") st = kv[2]
                else if (kv[1] == "NodeCnt") nc = kv[2]
                else if (kv[1] == "ProcCnt") pc = kv[2]
                else if (kv[1] == "SubmitTime") sub_t = secs(kv[2])
                else if (kv[1] == "EndTime") end_t = secs(kv[2])
            }
            if (nc == "" || pc == "") next
            if (st == "CANCELLED" && sub_t >= 0 && end_t >= 0 && end_t - sub_t <= 2)
                print "c"
            else
                print nc ":" pc
        }' |
        _ns_tally
}
