/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calib_test.h - what only the tests call of nodeshare-calibrate's
 * experiment (calib.h): names, the shape options of #SBATCH lines, and
 * the figures one at a time.  Not part of calib.h's contract.
 */
#ifndef NODESHARE_CALIB_TEST_H
#define NODESHARE_CALIB_TEST_H

#include "calib.h"

/* 1..NS_CALIB_NAME_MAX characters, no space, control, '"', '\\'. */
int ns_calib_valid_name (const char *s);

/* Is this #SBATCH option (the text after "#SBATCH ", its line's end
 * included) one the shapes set? */
int ns_calib_shape_option (const char *opt);

/* The run of program p in shape s (beside q) and repeat rep, or NULL. */
const struct ns_calib_run *ns_calib_find_run (const ns_calib_t *c, int p,
                                              enum ns_calib_shape s, int q,
                                              int rep);

/* A figure over the repeats: how many repeats had both runs, the mean of
 * num/striped, its standard error (sample deviation / sqrt n; NaN for one
 * repeat) and the mean seconds of the num runs. */
struct ns_calib_fig {
    int n;
    double mean, se, secs;
};

/* The figure of program p's shape num (beside q) against striped alone. */
struct ns_calib_fig ns_calib_ratio (const ns_calib_t *c, int p,
                                    enum ns_calib_shape num, int q);

#endif /* !NODESHARE_CALIB_TEST_H */
