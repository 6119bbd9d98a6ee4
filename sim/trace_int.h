/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_int.h - what the trace readers share (private to sim/)
 *
 * trace.c: the line reader, skip accounting, the small parsers and the
 * record loop; trace_swf.c and trace_sacct.c: one record parser per
 * format.
 */
#ifndef NODESHARE_TRACE_INT_H
#define NODESHARE_TRACE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "gzahead.h"
#include "progtab.h"
#include "trace.h"
#include "nserror.h"

/* After compaction an unfinished line holds less than NS_TRACE_LINE_MAX,
 * so every refill has room for three times that.  zlib's own input buffer
 * defaults to 8 KiB; a larger one means fewer read () calls. */
#define BUF_SIZE (4 * NS_TRACE_LINE_MAX)
#define GZ_BUFFER (256 * 1024)

#define SWF_FIELDS 18

enum sacct_col {
    SC_JOBID,
    SC_JOBIDRAW,
    SC_JOBNAME,
    SC_USER,
    SC_UID,
    SC_GROUP,
    SC_GID,
    SC_SUBMIT,
    SC_START,
    SC_END,
    SC_ELAPSED,
    SC_ELAPSEDRAW,
    SC_TIMELIMIT,
    SC_TIMELIMITRAW,
    SC_NCPUS,
    SC_ALLOCCPUS,
    SC_REQCPUS,
    SC_NNODES,
    SC_STATE,
    SC_NODELIST,
    SC_REQMEM,
    SC_PARTITION,
    SC_NCOLS
};

struct sacct {
    int col[SC_NCOLS];          /* header position of each column, or -1 */
    int ncols;                  /* fields per line, from the header */
    uint64_t line;              /* where the header was */
    char *header;               /* the header line, to spot repeats */
    ns_progtab_t *users;        /* User name -> uid when there is no UID */
    ns_progtab_t *groups;
};

struct ns_trace {
    gzFile gz;
    ns_gzahead_t *ahead;        /* gz inflated ahead (gzahead.h), or NULL:
                                   read directly */
    char *name;                 /* path, or "stdin", for messages */
    int flags;
    ns_trace_format_t fmt;
    int failed;                 /* a hard error was returned */

    /* line reader */
    char *buf;                  /* BUF_SIZE + 1 for a final NUL */
    size_t start, end;          /* unread bytes are buf[start, end) */
    int eof;
    char *line;                 /* current line, NUL-terminated, no EOL */
    size_t len;
    int too_long;               /* current line was over the limit */
    int pending;                /* open () left the first record unread */

    struct ns_trace_header hdr;
    struct ns_trace_counts counts;
    int64_t max_submit;         /* for counts.unsorted */
    struct sacct sacct;
};

/* trace.c */
void tr_copy_text (char *dst, size_t size, const char *s, size_t len);
int tr_skip (ns_trace_t *t, ns_error_t *err, ns_skip_reason_t r,
             const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));
static inline int tr_is_space (char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
/* tr_parse_num's answers */
enum {
    NUM_OK = 0,
    NUM_BAD = -1,       /* not a number */
    NUM_RANGE = -2,     /* does not fit */
};
int tr_parse_num (const char *s, const char *e, int64_t *vp, int *frac);

/* trace_swf.c */
int tr_swf_record (ns_trace_t *t, ns_tjob_t *job, ns_error_t *err);
void tr_swf_header_line (ns_trace_t *t, const char *s);
int tr_is_swf_comment (const char *s);
int tr_looks_like_swf (const char *line);

/* trace_sacct.c */
int tr_sacct_header (ns_trace_t *t, ns_error_t *err);
int tr_sacct_require (ns_trace_t *t, ns_error_t *err);
int tr_sacct_record (ns_trace_t *t, ns_tjob_t *job, ns_error_t *err);

#endif /* !NODESHARE_TRACE_INT_H */
