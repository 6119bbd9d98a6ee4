/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gres.c - what a node's Gres= string says (gres.h) */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gres.h"

int ns_gres_any (const char *gres)
{
    if (!gres || !strcmp (gres, "(null)"))
        return 0;
    const char *p = gres;
    while (*p) {
        /* one entry: up to the next comma outside parentheses */
        const char *end = p;
        const char *colon = NULL;
        int depth = 0;
        for (; *end && (depth || *end != ','); end++) {
            if (*end == '(')
                depth++;
            else if (*end == ')' && depth)
                depth--;
            else if (*end == ':' && !depth)
                colon = end;
        }
        if (end > p && *p != '(') {
            /* the count: digits after the last colon (before any '('),
             * up to the end of the entry or its '(' */
            const char *c = colon ? colon + 1 : NULL;
            int digits = c && isdigit ((unsigned char)*c);
            if (!digits)
                return 1;   /* no count: one of it */
            for (; c < end && isdigit ((unsigned char)*c); c++)
                if (*c != '0')
                    return 1;
        }
        p = *end ? end + 1 : end;
    }
    return 0;
}
