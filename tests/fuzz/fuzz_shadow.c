/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_shadow.c - the select plugin's shadow records (sim/shadow.h):
 * JSON lines, plain or gzip, as nodeshare-report --shadow reads them,
 * "dropped" lines of rotation included. */
#include "fuzz.h"

#include <errno.h>

#include "shadow.h"

struct seen {
    int64_t records;
    int64_t last_line;
};

static int on_record (const ns_shadow_rec_t *rec, int64_t line, void *arg,
                      ns_error_t *err)
{
    struct seen *s = arg;
    (void)err;
    FUZZ_CHECK (line > s->last_line, "line %lld after %lld", (long long)line,
                (long long)s->last_line);
    s->last_line = line;
    s->records++;
    if (rec->dropped[0]) {
        FUZZ_CHECK (memchr (rec->dropped, '\0', NS_SHADOW_TEXT_MAX) != NULL,
                    "dropped terminated");
        FUZZ_CHECK (rec->dropped_records >= -1 && rec->dropped_first >= -1
                    && rec->dropped_last >= -1, "dropped counts");
        return 0;
    }
    FUZZ_CHECK (rec->job >= 0, "job %lld", (long long)rec->job);
    FUZZ_CHECK (rec->differs == 0 || rec->differs == 1, "differs");
    FUZZ_CHECK (rec->cores == -1 || rec->cores >= 1, "cores %d", rec->cores);
    FUZZ_CHECK (rec->time >= -1, "time");
    const char *texts[] = { rec->program, rec->policy, rec->would,
                            rec->nodes, rec->shape, rec->rule, rec->stock,
                            rec->why };
    for (size_t i = 0; i < sizeof (texts) / sizeof (texts[0]); i++)
        FUZZ_CHECK (memchr (texts[i], '\0', NS_SHADOW_TEXT_MAX) != NULL,
                    "text %zu terminated", i);
    return 0;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile (data, size, path, sizeof (path));
    if (fd < 0)
        return 0;
    struct seen s = { 0, 0 };
    ns_error_t err;
    err.text[0] = '\0';
    int rc = ns_shadow_read (path, on_record, &s, &err);
    if (rc < 0) {
        FUZZ_CHECK (strncmp (err.text, path, strlen (path)) == 0
                    && err.text[strlen (path)] == ':', "%s", err.text);
        FUZZ_CHECK (errno != 0, "errno");
    } else {
        FUZZ_CHECK (rc == 0, "rc %d", rc);
    }
    /* One line on its own: the same verdict as the reader's (for text:
     * a gzip input is lines only once inflated). */
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        close (fd);
        return 0;
    }
    ns_shadow_rec_t *rec = malloc (sizeof (*rec));
    FUZZ_CHECK (rec != NULL, "malloc");
    const char *nl = memchr (data, '\n', size);
    size_t len = nl ? (size_t)(nl - (const char *)data) : size;
    int one = ns_shadow_parse ((const char *)data, len, rec, &err);
    FUZZ_CHECK (one >= -1 && one <= 1, "parse %d", one);
    if (one < 0)
        FUZZ_CHECK (rc < 0, "the first line fails alone, not in the file");
    free (rec);
    close (fd);
    return 0;
}
