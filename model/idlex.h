/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idlex.h - the shell lexer of program identity (private to model/)
 *
 * Turns a batch script into words (quotes and escapes removed, $(...)
 * and ${...} kept verbatim) and operators; here-document bodies and
 * redirections are dropped.  identity.c scans the commands it makes.
 */
#ifndef NODESHARE_IDLEX_H
#define NODESHARE_IDLEX_H

#include <stdbool.h>
#include <stddef.h>

enum tok {
    T_EOF,
    T_WORD,
    T_NEWLINE,
    T_SEMI,
    T_DSEMI,        /* ;; ;& ;;& ending a case item */
    T_AND,
    T_OR,
    T_PIPE,
    T_AMP,
    T_OPEN,
    T_CLOSE,
};

struct lexer {
    const char *p;      /* next unread character */
    char *buf;          /* words of the current command, NUL-separated */
    size_t len;
    size_t cap;
    char *hd;           /* pending here-document delimiters: flag, text */
    size_t hdlen;
    size_t hdcap;
};

/* Next token; for T_WORD *word is its text (valid until the arena is
 * reset: lx->len = 0).  The caller sets p, buf/cap (at least twice the
 * script) and hd/hdcap (at least the script). */
int ns_idlex_next (struct lexer *lx, char **word);

/* A word of digits only (a redirection's fd, nice's priority). */
bool ns_idlex_is_number (const char *w);

#endif /* !NODESHARE_IDLEX_H */
