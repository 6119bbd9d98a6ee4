/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_test.h - what only the unit tests call of sim/trace.c
 *
 * Not part of trace.h's contract.
 */
#ifndef NODESHARE_TRACE_TEST_H
#define NODESHARE_TRACE_TEST_H

#include "trace.h"

/* The format being read (NS_TRACE_AUTO resolved). */
ns_trace_format_t ns_trace_format (const ns_trace_t *t);

/* "swf", "sacct" or "auto". */
const char *ns_trace_format_name (ns_trace_format_t fmt);

#endif /* !NODESHARE_TRACE_TEST_H */
