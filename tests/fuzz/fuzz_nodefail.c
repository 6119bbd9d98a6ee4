/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_nodefail.c - node failures in a sacct dump (sim/nodefail.h), as
 * nodeshare-report reads them: from text and from the file, the same
 * verdict and counts. */
#include "fuzz.h"

#include <errno.h>

#include "nodefail.h"
#include "nodefail_test.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    ns_nodefail_t a, b;
    ns_error_t ea, eb;
    int ra = ns_nodefail_parse ((const char *)data, size, "in", &a, &ea);
    FUZZ_CHECK (ra == 0 || ra == -1, "parse %d", ra);
    if (ra == 0)
        FUZZ_CHECK (a.node_fail >= 0 && a.node_fail <= a.jobs,
                    "%lld of %lld", (long long)a.node_fail,
                    (long long)a.jobs);
    else
        FUZZ_CHECK (strncmp (ea.text, "in: line ", 9) == 0, "%s", ea.text);
    /* a gzip input is read through zlib by the file reader only */
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
        return 0;
    char path[64];
    int fd = fuzz_memfile (data, size, path, sizeof (path));
    if (fd < 0)
        return 0;
    int rb = ns_nodefail_read (path, &b, &eb);
    FUZZ_CHECK (rb == ra, "text %d, file %d (%s)", ra, rb, eb.text);
    if (ra == 0 && rb == 0)
        FUZZ_CHECK (a.jobs == b.jobs && a.node_fail == b.node_fail,
                    "text %lld/%lld, file %lld/%lld", (long long)a.node_fail,
                    (long long)a.jobs, (long long)b.node_fail,
                    (long long)b.jobs);
    close (fd);
    return 0;
}
