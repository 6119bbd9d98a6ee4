/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.h - streaming readers for job traces (SWF 2.2 and sacct dumps)
 *
 * A trace is read one job at a time and is never held in memory, so a
 * half-million-job log costs a line buffer.  Two formats are understood:
 *
 *   SWF 2.2   The Parallel Workloads Archive's Standard Workload Format,
 *             plain or gzip.  ';' lines are header comments; every other
 *             non-blank line is one job of 18 whitespace-separated numbers.
 *   sacct     `sacct --parsable2` (or --parsable) output: a header line of
 *             '|'-separated field names, then one line per job or step.
 *
 * Jobs come back in file order.  SWF promises non-decreasing submit times,
 * sacct does not (it orders by job id); ns_trace_skips () counts jobs
 * submitted before an earlier job of the file so the engine can sort or
 * refuse.
 *
 * Lines that cannot become a job are skipped, counted by reason with the
 * first NS_TRACE_SKIP_LINES line numbers, never dropped silently.  With
 * NS_TRACE_STRICT the first malformed line is a hard error instead.
 *
 * Error text (ns_error_t) always starts with the file name ("stdin" for
 * "-"), then the line when there is one: "FILE:LINE: field 5
 * (processors): expected a positive integer, got '-1'".
 *
 * --- SWF decisions ------------------------------------------------------
 *  - A job needs 18 fields; more are ignored (some archive logs carry extra
 *    columns).  All 18 must be numbers: a word in any column means the
 *    record is shifted or glued to another, so its other fields are not
 *    trustworthy either ("not-a-number").
 *  - Decimals are accepted: "489.00" is 489.  Times (fields 2, 3, 4, 9)
 *    with a fraction are rounded to the nearest second.  Counts and ids
 *    (fields 1, 5, 8, 11-14) must be integral: "2.5" processors is skipped
 *    as "not-an-integer".
 *  - -1 means unknown in any field.  Processors are the allocated count
 *    (field 5), else the requested count (field 8); neither positive is
 *    "no-processors".  Run time -1 is "no-runtime"; run time 0 is a usable
 *    job that runs 0 s (archive logs hold such cancelled jobs, status 5 —
 *    the engine may drop them by status).  Submit time below 0, or wait /
 *    requested time below -1, is "negative-time".  A time beyond
 *    NS_TRACE_TIME_MAX (the year 2200 as a Unix time, 230 years as an
 *    offset or a duration) is "bad-time": no log holds one, and sums of
 *    such times overflow.
 *  - Requested time is passed through as written: it may be below the run
 *    time (a trap of real logs) and the engine must cope.  The same holds
 *    for a job wider than the machine or than the header's MaxProcs.
 *  - Times are seconds from the header's UnixStartTime.
 *
 * --- sacct decisions -----------------------------------------------------
 *  Recognised header names (case-insensitive; others ignored): JobID,
 *  JobIDRaw, JobName, User, UID, Group, GID, Submit, Start, End, Elapsed,
 *  ElapsedRaw, Timelimit, TimelimitRaw, NCPUS, AllocCPUS, ReqCPUS, NNodes,
 *  State, NodeList.  Required, else ns_trace_open fails naming what is missing:
 *    - JobID or JobIDRaw;
 *    - Submit;
 *    - a run time: ElapsedRaw, Elapsed, or both Start and End;
 *    - processors: AllocCPUS, NCPUS or ReqCPUS.
 *  A suitable command:
 *    TZ=UTC sacct --parsable2 --allocations --starttime=... --format=\
 *      JobIDRaw,JobName,UID,GID,Submit,Start,End,ElapsedRaw,TimelimitRaw,\
 *      NCPUS,ReqCPUS,NNodes,State
 *  - Timestamps (2024-01-31T12:00:00) are read as UTC (timegm): run sacct
 *    with TZ=UTC to make that true.  Times are Unix epoch seconds.
 *    "Unknown" / "None" mean unknown.  A timestamp before 1970 or after
 *    NS_TRACE_TIME_MAX (2200), or a run or requested time longer than
 *    NS_TRACE_TIME_MAX seconds, is "bad-time".
 *  - Steps (a '.' in JobID or JobIDRaw: 123.batch, 123.extern, 123.0) are
 *    skipped as "job-step"; pending, running, suspended, requeued or
 *    revoked jobs (by State, else End unknown) as "not-finished".  These
 *    two are filtering, not bad data: strict mode does not stop for them.
 *  - Job number: JobIDRaw, else the leading number of JobID (array tasks
 *    123_4 and het components 123+1 then share a number).
 *  - Run time: ElapsedRaw, else Elapsed ([D-]HH:MM:SS), else End - Start.
 *    Wait: Start - Submit when Start is known, else -1.
 *  - Requested time: TimelimitRaw (minutes), else Timelimit (any Slurm
 *    time format: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S); UNLIMITED,
 *    Partition_Limit, INVALID or empty are -1.
 *  - Processors: AllocCPUS, else NCPUS, else ReqCPUS (first positive).
 *  - uid/gid: UID/GID, else User/Group names numbered 0, 1, 2... in order
 *    of first sight; -1 when absent or empty.
 *  - State maps to SWF status: COMPLETED 1; CANCELLED* 5; FAILED, TIMEOUT,
 *    NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED,
 *    SPECIAL_EXIT 0; anything else -1.
 *  - NodeList is passed through as text (ns_tjob_t.nodelist; "None
 *    assigned", "Unknown" and "None" become "").
 *  - JobName becomes ns_tjob_t.program, cut to NS_TJOB_PROGRAM_MAX - 1
 *    bytes.  A line with more '|' than the header (a '|' inside a job
 *    name) is "too-many-fields": its columns cannot be trusted.
 */
#ifndef NODESHARE_TRACE_H
#define NODESHARE_TRACE_H

#include <stdint.h>

#include "nserror.h"

typedef enum {
    NS_TRACE_AUTO = 0,      /* detect from the first non-blank line */
    NS_TRACE_SWF,
    NS_TRACE_SACCT,
} ns_trace_format_t;

/* ns_trace_open () flags */
enum {
    NS_TRACE_STRICT = 1,    /* the first malformed line is a hard error */
};

/* ns_tjob_t.status, as SWF field 11 (SWF values 2-4 pass through) */
enum {
    NS_TJOB_UNKNOWN = -1,
    NS_TJOB_FAILED = 0,
    NS_TJOB_COMPLETED = 1,
    NS_TJOB_CANCELLED = 5,
};

#define NS_TJOB_PROGRAM_MAX 64
#define NS_TJOB_NODELIST_MAX 4096

/* One job.  Times are seconds; "unknown" is -1. */
typedef struct {
    int64_t id;             /* job number (not necessarily dense or unique) */
    int64_t submit;         /* >= 0 for SWF */
    int64_t wait;           /* recorded wait, -1 unknown */
    int64_t run;            /* >= 0 */
    int64_t req_time;       /* requested (wall-clock limit), -1 unknown */
    int procs;              /* allocated, else requested; always > 0 */
    int req_procs;          /* requested, -1 unknown */
    int nodes;              /* sacct NNodes; -1 unknown (always, for SWF) */
    int uid;                /* -1 unknown */
    int gid;                /* -1 unknown */
    int exe;                /* SWF executable number, -1 unknown */
    int status;             /* NS_TJOB_*, -1 unknown */
    int64_t line;           /* line of the trace it came from (1-based) */
    int64_t mem_per_cpu;    /* MB per processor asked (SWF requested
                               memory, KB per processor; sacct ReqMem
                               ...c), 0 unknown */
    int64_t mem_per_node;   /* MB per node asked (sacct ReqMem ...n or a
                               plain size), 0 unknown */
    int partition;          /* SWF partition number, -1 unknown */
    char part_name[NS_TJOB_PROGRAM_MAX]; /* sacct Partition; "" unknown */
    char program[NS_TJOB_PROGRAM_MAX]; /* sacct JobName; "" for SWF */
    char nodelist[NS_TJOB_NODELIST_MAX]; /* sacct NodeList as written
                                           (ns[1-2]); "" for SWF or when
                                           absent; a longer one skips the
                                           line (too-long) */
} ns_tjob_t;

/* SWF header values, -1 / "" when absent.  Filled as the comments stream
 * by; ns_trace_open reads ahead to the first job, so the header that
 * precedes it is complete when open returns.  Values are reported as
 * written: a MaxProcs smaller than a job is the engine's to judge. */
struct ns_trace_header {
    int64_t max_nodes;          /* MaxNodes */
    int64_t max_procs;          /* MaxProcs */
    int64_t max_jobs;           /* MaxJobs */
    int64_t max_records;        /* MaxRecords */
    int64_t unix_start_time;    /* UnixStartTime */
    char version[16];           /* Version */
    char computer[80];          /* Computer */
    char installation[128];     /* Installation (cite it with results) */
    char acknowledge[128];      /* Acknowledge (first line) */
};

/* Why a line was skipped.  Names are stable: reports print them. */
typedef enum {
    NS_SKIP_TOO_FEW_FIELDS,     /* "too-few-fields" */
    NS_SKIP_TOO_MANY_FIELDS,    /* "too-many-fields" (sacct only) */
    NS_SKIP_NOT_A_NUMBER,       /* "not-a-number" (also out of range) */
    NS_SKIP_NOT_AN_INTEGER,     /* "not-an-integer": a fractional count */
    NS_SKIP_BAD_TIME,           /* "bad-time": sacct timestamp/duration,
                                   any time beyond NS_TRACE_TIME_MAX */
    NS_SKIP_NO_PROCESSORS,      /* "no-processors" */
    NS_SKIP_NO_RUNTIME,         /* "no-runtime" */
    NS_SKIP_NEGATIVE_TIME,      /* "negative-time" */
    NS_SKIP_BINARY,             /* "binary-data": NUL or control bytes */
    NS_SKIP_TOO_LONG,           /* "too-long": over NS_TRACE_LINE_MAX */
    NS_SKIP_JOB_STEP,           /* "job-step" (filter, not an error) */
    NS_SKIP_NOT_FINISHED,       /* "not-finished" (filter, not an error) */
    NS_SKIP_NREASONS
} ns_skip_reason_t;

#define NS_TRACE_SKIP_LINES 5
#define NS_TRACE_LINE_MAX 65536
/* A line without a newline in this many bytes is not skipped but a hard
 * error: the input is not a text trace (/dev/zero, a device, a blob). */
#define NS_TRACE_LINE_GIVE_UP (64 * 1024 * 1024)
/* 2200-01-01T00:00:00Z: the latest time (and the longest duration, in
 * seconds) a trace may hold. */
#define NS_TRACE_TIME_MAX 7258118400LL

struct ns_trace_skip {
    uint64_t count;
    int64_t lines[NS_TRACE_SKIP_LINES]; /* first line numbers, 0 unused */
    char first[160];                    /* message for lines[0] */
};

struct ns_trace_counts {
    uint64_t lines;         /* physical lines read */
    uint64_t records;       /* lines that are neither blank nor header */
    uint64_t jobs;          /* returned by ns_trace_next (); */
    uint64_t skipped;       /* records - jobs: sum of skip[].count */
    uint64_t unsorted;      /* jobs submitted before an earlier job */
    struct ns_trace_skip skip[NS_SKIP_NREASONS];
};

typedef struct ns_trace ns_trace_t;

/* Open path ("-" is stdin), plain or gzip, and read ahead to the first
 * record: the format is detected (unless fmt says), the SWF header
 * parsed, a sacct header mapped.  flags: NS_TRACE_STRICT or 0.
 * Detection needs a ';' comment, a first record of 18 numbers (SWF) or a
 * line with '|' (sacct): a headerless SWF whose first line is malformed
 * needs NS_TRACE_SWF.
 * Returns NULL with errno and err set: ENOENT etc. from the file system;
 * EINVAL for "FILE: empty trace, no jobs", "FILE: line N: not a text
 * trace (binary data)", "FILE: line N: longer than 67108864 bytes: not a
 * text trace", an unknown format or a sacct header lacking a required
 * field; EIO for a corrupt or "truncated gzip". */
ns_trace_t *ns_trace_open (const char *path, ns_trace_format_t fmt,
                           int flags, ns_error_t *err);

/* Close and free; accepts NULL, preserves errno. */
void ns_trace_close (ns_trace_t *t);

/* Read the next job into *job.  Returns 1 for a job, 0 at the end, -1 with
 * errno and err set on a hard error: EIO for I/O, corrupt or truncated gzip
 * ("FILE: truncated gzip after line N"); EINVAL for a malformed line in
 * strict mode, or a line without a newline in NS_TRACE_LINE_GIVE_UP
 * bytes (whatever the mode).  After -1 the trace is unusable: only close it. */
int ns_trace_next (ns_trace_t *t, ns_tjob_t *job, ns_error_t *err);

/* The header seen so far (all -1 / "" for sacct).  Owned by t. */
const struct ns_trace_header *ns_trace_header (const ns_trace_t *t);

/* Line and skip counters so far.  Owned by t. */
const struct ns_trace_counts *ns_trace_skips (const ns_trace_t *t);

/* "too-few-fields" etc., or "?" for a reason out of range. */
const char *ns_trace_skip_name (int reason);

#endif /* !NODESHARE_TRACE_H */
