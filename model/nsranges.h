/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsranges.h - one definition of each value range that more than one
 * input checks (nodeshare.json, plugstack.conf arguments, command-line
 * options, the library calls themselves), so that they cannot drift. */
#ifndef NODESHARE_NSRANGES_H
#define NODESHARE_NSRANGES_H

/* Cache tree dilation: a task fits a cache when size <= sigma x cache
 * (design.md section 6). */
#define NS_SIGMA_MIN 0.01
#define NS_SIGMA_MAX 1.0
#define NS_SIGMA_RANGE "0.01..1"

/* NaN is out of range too. */
static inline int ns_sigma_ok (double sigma)
{
    return sigma >= NS_SIGMA_MIN && sigma <= NS_SIGMA_MAX;
}

/* nodeshare.json (and a sweep's base configuration) is a few kilobytes;
 * anything near this is a mistake (a trace or a core file given by
 * accident). */
#define NS_CONFIG_MAX_BYTES (16 * 1024 * 1024)

/* A learning state file (--state of nodeshare-learn and nodeshare-report):
 * its observations are kept per program and per pairing, kilobytes to a
 * few megabytes at a site; anything near this is another file. */
#define NS_STATE_MAX_BYTES (256 * 1024 * 1024)

/* Nodes of one job in a sacct NodeList that the tools expand. */
#define NS_JOB_NODES_MAX 4096

#endif /* !NODESHARE_NSRANGES_H */
