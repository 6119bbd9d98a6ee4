/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_config.c - nodeshare.json (ns_config_load_string) and sizes
 * (ns_parse_size) */
#include "fuzz.h"

#include <errno.h>

#include "nsconfig.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *text = fuzz_strdup (data, size);
    ns_error_t err = { "" };
    ns_config_t *cfg = ns_config_load_string (text, "fuzz.json", &err);
    if (!cfg) {
        FUZZ_CHECK (errno != 0 && err.text[0] != '\0'
                    && strlen (err.text) < sizeof (err.text),
                    "a failed load says why");
        FUZZ_CHECK (strncmp (err.text, "fuzz.json", 9) == 0,
                    "the message names the source: %s", err.text);
    } else {
        const ns_policy_t *pol = ns_config_policy (cfg);
        FUZZ_CHECK (pol->stripe_width >= 1 && pol->stripe_width <= 16,
                    "stripe_width %d", pol->stripe_width);
        FUZZ_CHECK (pol->max_cotenants >= 1 && pol->max_cotenants <= 64,
                    "max_cotenants %d", pol->max_cotenants);
        double sigma = ns_config_cache_sigma (cfg);
        FUZZ_CHECK (sigma > 0 && sigma <= 1, "sigma %g", sigma);
        ns_progtab_t *progs = ns_config_progtab (cfg);
        const ns_interf_t *m = ns_config_interf (cfg);
        int n = ns_progtab_count (progs);
        for (int p = -1; p < n && p < 64; p++) {
            double u = ns_interf_speedup (m, p);
            FUZZ_CHECK (u >= 0.01 && u <= 100, "speedup %g of %d", u, p);
            for (int q = -1; q < n && q < 64; q++) {
                double sl = ns_interf_slowdown (m, p, q);
                FUZZ_CHECK (sl >= 0.01 && sl <= 100, "slowdown %g", sl);
            }
        }
        ns_interf_t *copy = ns_interf_copy (m);
        FUZZ_CHECK (copy != NULL, "the model copies");
        ns_interf_destroy (copy);
        char out[128];
        ns_identity_resolve (ns_config_identity (cfg), NULL, text, "job",
                             out, sizeof (out));
        ns_config_destroy (cfg);
    }
    /* The first line as a size, as footprint= and cache.default_footprint
     * read it. */
    text[strcspn (text, "\n")] = '\0';
    uint64_t bytes = 12345;
    errno = 0;
    if (ns_parse_size (text, &bytes) < 0)
        FUZZ_CHECK ((errno == EINVAL || errno == ERANGE) && bytes == 12345,
                    "a failed size leaves the value alone");
    free (text);
    return 0;
}
