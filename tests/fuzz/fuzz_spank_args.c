/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_spank_args.c - the SPANK plugin's parsers without Slurm
 * (spank/pin.h): plugstack.conf arguments (the input split on white space
 * as Slurm splits the line), option values (--nodeshare-footprint,
 * -bind, -program), node names and the %n expansion of paths. */
#include "fuzz.h"

#include <ctype.h>
#include <errno.h>

#include "nsconfig.h"
#include "pin.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *line = fuzz_strdup (data, size);
    char *av[32];
    int ac = 0;
    for (char *s = strtok (line, " \t\n"); s && ac < 32;
         s = strtok (NULL, " \t\n"))
        av[ac++] = s;
    struct ns_pin_args *a = malloc (sizeof (*a));
    if (!a)
        abort ();
    ns_pin_parse_args (a, ac, av);
    if (!a->bad) {
        FUZZ_CHECK (a->timeout_ms >= 1 && a->timeout_ms <= 600000,
                    "timeout %d", a->timeout_ms);
        FUZZ_CHECK (!a->have_sigma || (a->sigma > 0 && a->sigma <= 1),
                    "sigma %g", a->sigma);
        FUZZ_CHECK (a->capacity >= 0 && a->capacity <= NS_LEDGER_MAX_CAPACITY,
                    "capacity %d", a->capacity);
        FUZZ_CHECK (a->mode >= NS_PIN_AUTO && a->mode <= NS_PIN_VERBOSE,
                    "mode %d", (int)a->mode);
        FUZZ_CHECK (a->topology[0] != '\0', "a topology");
    }
    else
        FUZZ_CHECK (strncmp (a->badmsg, "bad plugin argument '", 21) == 0,
                    "%s", a->badmsg);
    for (int i = 0; i < ac; i++) {
        enum ns_pin_mode m = NS_PIN_NONE;
        uint64_t bytes;
        char buf[64];
        if (ns_pin_parse_mode (av[i], &m) == 0)
            FUZZ_CHECK (m <= NS_PIN_VERBOSE, "mode");
        if (ns_pin_program_ok (av[i]))
            FUZZ_CHECK (strlen (av[i]) <= 127 && !strchr (av[i], '/'),
                        "program %s", av[i]);
        ns_parse_size (av[i], &bytes);
        if (ns_pin_node_name_ok (av[i]))
            FUZZ_CHECK (av[i][0] != '.' && !strchr (av[i], '/'),
                        "node name %s", av[i]);
        const char *node = i + 1 < ac ? av[i + 1] : "n";
        if (ns_pin_expand (av[i], node, buf, sizeof (buf)))
            FUZZ_CHECK (strlen (buf) < sizeof (buf), "expand fits");
        else
            FUZZ_CHECK (errno == ENAMETOOLONG, "expand: errno %d", errno);
    }
    free (a);
    free (line);
    return 0;
}
