/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_sweep.c - the sweep file reader of nodeshare-sim --sweep: any
 * bytes give a sweep or one message, never a crash; a sweep it gives has
 * as many cells as its product says, each with a name of safe characters
 * starting with its index, a key, and a nodeshare.json with its values */
#include "fuzz.h"

#include <ctype.h>
#include <json-c/json.h>

#include "sweep.h"

static const char base[] =
    "{ \"policy\": \"twins\", \"programs\": { \"LAM\": { \"weight\": 1 } } }";

static void check_cell (const ns_sweep_t *sw, int i)
{
    ns_sweep_cell_t c;
    FUZZ_CHECK (ns_sweep_cell (sw, i, &c) == 0, "cell %d of %d", i,
                sw->ncells);
    FUZZ_CHECK (c.trace >= 0 && c.trace < sw->ntraces && c.machine >= 0
                    && c.machine < sw->nmachines, "cell %d: indices", i);
    char *end;
    long idx = strtol (c.name, &end, 10);
    FUZZ_CHECK (idx == i && *end == '-' && end - c.name >= 3,
                "cell %d: name %s starts with its index", i, c.name);
    FUZZ_CHECK (strlen (c.name) < sizeof (c.name) && c.name[0] != '\0',
                "cell %d: name length", i);
    for (const char *p = c.name; *p; p++)
        FUZZ_CHECK (isalnum ((unsigned char)*p) || strchr ("._+=-", *p),
                    "cell %d: name %s has '%c'", i, c.name, *p);
    char *key = ns_sweep_cell_key (sw, &c);
    FUZZ_CHECK (key != NULL && key[0] != '\0', "cell %d: a key", i);
    free (key);
    ns_error_t err = { "" };
    char *cfg = ns_sweep_cell_config (sw, &c, base, "base.json", &err);
    if (!cfg) {
        FUZZ_CHECK (err.text[0] != '\0' && !strchr (err.text, '\n'),
                    "cell %d: no configuration and no message", i);
        return;
    }
    json_object *o = json_tokener_parse (cfg);
    FUZZ_CHECK (o && json_object_is_type (o, json_type_object),
                "cell %d: its configuration is a JSON object", i);
    json_object_put (o);
    free (cfg);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    ns_error_t err = { "" };
    ns_sweep_t *sw = ns_sweep_parse ((const char *)data, size, "fuzz.json",
                                     "/d", &err);
    if (!sw) {
        FUZZ_CHECK (err.text[0] != '\0', "no sweep and no message");
        FUZZ_CHECK (strchr (err.text, '\n') == NULL, "a message of one line");
        FUZZ_CHECK (strncmp (err.text, "fuzz.json", 9) == 0,
                    "the message names the file: %s", err.text);
        return 0;
    }
    FUZZ_CHECK (sw->ntraces >= 1 && sw->nmachines >= 1, "traces, machines");
    long long cells = (long long)sw->ntraces * sw->nmachines;
    for (int k = 0; k < sw->nvary; k++) {
        FUZZ_CHECK (sw->vary[k].nvalues >= 1, "vary %d: values", k);
        cells *= sw->vary[k].nvalues;
    }
    FUZZ_CHECK (cells == sw->ncells && cells >= 1
                    && cells <= NS_SWEEP_MAX_CELLS,
                "%d cells, the product says %lld", sw->ncells, cells);
    for (int i = 0; i < sw->ntraces; i++)
        FUZZ_CHECK (sw->traces[i].path && sw->traces[i].label[0],
                    "trace %d", i);
    for (int i = 0; i < sw->nmachines; i++)
        FUZZ_CHECK (sw->machines[i].label[0]
                        && !(sw->machines[i].slurm_conf
                             && sw->machines[i].nodes)
                        && !sw->machines[i].nodes == !sw->machines[i].cores,
                    "machine %d", i);
    int step = sw->ncells > 64 ? sw->ncells / 64 : 1;
    for (int i = 0; i < sw->ncells; i += step)
        check_cell (sw, i);
    check_cell (sw, sw->ncells - 1);
    ns_sweep_cell_t c;
    FUZZ_CHECK (ns_sweep_cell (sw, sw->ncells, &c) < 0, "no cell beyond");
    ns_sweep_free (sw);
    return 0;
}
