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

# The same, with two kinds of job written as a letter whatever they were
# given, because on a loopback cluster their allocation depends on timing:
#   c  a job cancelled within 2 s of its submission: whether the scheduler
#      started it before the test cancelled it (1:1) or not (0:0) depends
#      on where the test fell between two scheduling passes, on either side;
#   r  a job given more nodes than its minimum (it asked a node range, as
#      srun -N1-64 does) that started within 1 s after another job of the
#      test ended: whether the nodes of the job that ended were still
#      completing when it was placed decides how many it got (Slurm's
#      test1.22: ns[2-4] or ns[1-4]).  On nodeshare's side only a job that
#      nodeshare handed to cons_tres unchanged counts so: CTLDLOG, that
#      side's slurmctld.log, has "nodeshare: JobId=ID asks for ...:
#      placed by cons_tres as asked" (or "cons_tres places it as asked")
#      for it; a job nodeshare striped stays counted as given.
stablecounts () {   # FILE SKIP [CTLDLOG]
    [ -f "$1" ] || return 0
    tail -n +"$(($2 + 1))" "$1" | awk -v ctld="${3:-}" '
        function secs(t,  a, y, m, d) {   # 2026-11-25T21:58:56 -> seconds
            if (split(t, a, /[-T:]/) != 6) return -1
            y = a[1]; m = a[2]; if (m <= 2) { y--; m += 12 }
            d = 365 * y + int(y / 4) - int(y / 100) + int(y / 400)
            d += int((153 * (m - 3) + 2) / 5) + a[3]
            return d * 86400 + a[4] * 3600 + a[5] * 60 + a[6]
        }
        BEGIN {
            if (ctld != "") {
                while ((getline l < ctld) > 0)
                    if (match(l, /nodeshare: JobId=[0-9]+ asks for [^:]*: (placed by cons_tres as asked|cons_tres places it as asked)/)) {
                        id = substr(l, RSTART + 17)
                        sub(/ .*/, "", id)
                        asked[id] = 1
                    }
                close(ctld)
            }
        }
        {
            id = st = nc = pc = sub_t = start_t = end_t = minn = ""
            for (i = 1; i <= NF; i++) {
                split($i, kv, "=")
                if (kv[1] == "JobId") id = kv[2]
                else if (kv[1] == "JobState") st = kv[2]
                else if (kv[1] == "NodeCnt") nc = kv[2]
                else if (kv[1] == "ProcCnt") pc = kv[2]
                else if (kv[1] == "SubmitTime") sub_t = secs(kv[2])
                else if (kv[1] == "StartTime") start_t = secs(kv[2])
                else if (kv[1] == "EndTime") end_t = secs(kv[2])
                else if (kv[1] == "Tres" && match($i, /[=,]node=[0-9]+/))
                    minn = substr($i, RSTART + 6, RLENGTH - 6) + 0
            }
            if (nc == "" || pc == "") next
            n++
            jid[n] = id; state[n] = st; ncnt[n] = nc + 0; pcnt[n] = pc
            subm[n] = sub_t; start[n] = start_t; end[n] = end_t; minnodes[n] = minn
        }
        END {
            for (j = 1; j <= n; j++) {
                if (state[j] == "CANCELLED" && subm[j] >= 0 && end[j] >= 0 && end[j] - subm[j] <= 2) {
                    print "c"; continue
                }
                r = 0
                if (minnodes[j] != "" && ncnt[j] > minnodes[j] && start[j] >= 0 &&
                    (ctld == "" || (jid[j] in asked)))
                    for (k = 1; k <= n && !r; k++)
                        if (k != j && ncnt[k] > 0 && end[k] >= 0 &&
                            start[j] >= end[k] && start[j] - end[k] <= 1)
                            r = 1
                print (r ? "r" : ncnt[j] ":" pcnt[j])
            }
        }' |
        _ns_tally
}
