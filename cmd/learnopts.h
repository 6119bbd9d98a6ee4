/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learnopts.h - the learner's options, one spelling for nodeshare-learn
 * and nodeshare-report: --min-observations, --min-exposure and --max-se,
 * with the bounds nodeshare.json's "learn" has (learn.h). */
#ifndef NODESHARE_LEARNOPTS_H
#define NODESHARE_LEARNOPTS_H

#include "cmdline.h"
#include "learn.h"

/* Their getopt values; a program numbers its own from NS_OPT_LEARN_END. */
enum {
    NS_OPT_MIN_OBS = 256,
    NS_OPT_MIN_EXP,
    NS_OPT_MAX_SE,
    NS_OPT_LEARN_END,
};

/* Their entries of a program's struct option table. */
#define NS_LEARN_LONGOPTS                                             \
    { "min-observations", required_argument, NULL, NS_OPT_MIN_OBS }, \
    { "min-exposure", required_argument, NULL, NS_OPT_MIN_EXP },     \
    { "max-se", required_argument, NULL, NS_OPT_MAX_SE }

/* Option ch (one of them) of value s into lo: 0, or -1 with the message
 * said. */
static inline int ns_cmd_learn_opt (const char *prog, int ch, const char *s,
                                    ns_learn_opts_t *lo)
{
    if (ch == NS_OPT_MIN_OBS)
        return ns_cmd_int (prog, "--min-observations", s, 1,
                           NS_LEARN_MIN_OBS_MAX, &lo->min_observations);
    if (ch == NS_OPT_MIN_EXP)
        return ns_cmd_double (prog, "--min-exposure", s, 0, 1,
                              &lo->min_exposure);
    return ns_cmd_double (prog, "--max-se", s, 0, NS_LEARN_MAX_SE_MAX,
                          &lo->max_se);
}

#endif /* !NODESHARE_LEARNOPTS_H */
