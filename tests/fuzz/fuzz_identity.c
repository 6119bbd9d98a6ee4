/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_identity.c - the batch-script parser (ns_identity_script_exe) and
 * name resolution with a pattern taken from the input's first line */
#include "fuzz.h"

#include <errno.h>

#include "identity.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *script = fuzz_strdup (data, size);
    char out[256], small[8];
    if (ns_identity_script_exe (script, out, sizeof (out)) == 0) {
        size_t n = strlen (out);
        FUZZ_CHECK (n > 0 && n < sizeof (out), "a name was found");
        FUZZ_CHECK (!strchr (out, '/'), "basename only: %s", out);
    }
    else
        FUZZ_CHECK (errno == ENOENT || errno == ERANGE || errno == ENOMEM,
                    "errno %d", errno);
    if (ns_identity_script_exe (script, small, sizeof (small)) == 0)
        FUZZ_CHECK (strlen (small) < sizeof (small), "fits");

    /* The first line as "GLOB PROGRAM", then resolve the script. */
    ns_identity_t *id = ns_identity_create ();
    FUZZ_CHECK (id != NULL, "create");
    char line[128];
    snprintf (line, sizeof (line), "%s", script);
    line[strcspn (line, "\n")] = '\0';
    char *sp = strchr (line, ' ');
    ns_error_t err;
    if (sp) {
        *sp = '\0';
        ns_identity_add_pattern (id, line, sp + 1, &err);
    }
    ns_idsource_t src = ns_identity_resolve (id, NULL, script, line, out,
                                             sizeof (out));
    FUZZ_CHECK (src >= NS_ID_TAG && src <= NS_ID_NONE, "source %d", src);
    FUZZ_CHECK (strlen (out) < sizeof (out), "fits");
    ns_identity_destroy (id);
    free (script);
    return 0;
}
