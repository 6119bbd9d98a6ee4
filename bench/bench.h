/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench.h - what the benchmark programs share: their clock */
#ifndef NODESHARE_BENCH_H
#define NODESHARE_BENCH_H

#include <time.h>

/* Clock id's time in seconds (CLOCK_MONOTONIC for elapsed time). */
static inline double bench_seconds (clockid_t id)
{
    struct timespec ts;
    clock_gettime (id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
