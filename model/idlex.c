/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idlex.c - the shell lexer of program identity (see idlex.h) */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "idlex.h"

/*
 * Lexer: the script as words and operators
 */

bool ns_idlex_is_number (const char *w)
{
    if (!*w)
        return false;
    for (; *w; w++) {
        if (!isdigit ((unsigned char)*w))
            return false;
    }
    return true;
}

static void put (struct lexer *lx, char c)
{
    if (lx->len < lx->cap)
        lx->buf[lx->len++] = c;
}

static char *end_word (struct lexer *lx, size_t start)
{
    if (lx->len == lx->cap)
        lx->len--;      /* not reached: cap is twice the script length */
    lx->buf[lx->len++] = '\0';
    return lx->buf + start;
}

static bool is_meta (char c)
{
    return strchr (" \t\r\n;&|()<>", c) != NULL;    /* '\0' included */
}

/* Backslash-newline joins lines; CRLF scripts have backslash-CR-LF. */
static size_t continuation (const char *p)
{
    if (p[0] != '\\')
        return 0;
    if (p[1] == '\n')
        return 2;
    return p[1] == '\r' && p[2] == '\n' ? 3 : 0;
}

static void skip_blanks (struct lexer *lx)
{
    for (;;) {
        size_t k = continuation (lx->p);
        if (k)
            lx->p += k;
        else if (*lx->p && strchr (" \t\r\f\v", *lx->p))
            lx->p++;
        else
            return;
    }
}

/* Copy a balanced group such as (...) or {...} verbatim: $(cmd), ${v},
 * ((i++)).  Quotes inside may hold the closing character. */
static void copy_group (struct lexer *lx, char open, char close)
{
    int depth = 0;
    char quote = 0;
    for (; *lx->p; lx->p++) {
        char c = *lx->p;
        put (lx, c);
        if (c == '\\' && quote != '\'' && lx->p[1]) {
            put (lx, *++lx->p);
            continue;
        }
        if (quote) {
            if (c == quote)
                quote = 0;
        }
        else if (c == '\'' || c == '"' || c == '`')
            quote = c;
        else if (c == open)
            depth++;
        else if (c == close && --depth == 0) {
            lx->p++;
            return;
        }
    }
}

static void copy_backquote (struct lexer *lx)
{
    put (lx, *lx->p++);
    while (*lx->p && *lx->p != '`') {
        if (*lx->p == '\\' && lx->p[1])
            put (lx, *lx->p++);
        put (lx, *lx->p++);
    }
    if (*lx->p)
        put (lx, *lx->p++);
}

/* $(...), ${...}, $((...)) verbatim; $'...' with its escapes resolved. */
static void lex_dollar (struct lexer *lx)
{
    char next = lx->p[1];
    if (next == '(' || next == '{') {
        put (lx, *lx->p++);
        copy_group (lx, next, next == '(' ? ')' : '}');
        return;
    }
    if (next != '\'') {
        put (lx, *lx->p++);
        return;
    }
    for (lx->p += 2; *lx->p && *lx->p != '\''; lx->p++) {
        if (*lx->p == '\\' && lx->p[1])
            lx->p++;
        put (lx, *lx->p);
    }
    if (*lx->p)
        lx->p++;
}

static void lex_squote (struct lexer *lx)
{
    for (lx->p++; *lx->p && *lx->p != '\''; lx->p++)
        put (lx, *lx->p);
    if (*lx->p)
        lx->p++;
}

/* A $ expansion, a `command`, or a character as it is. */
static void lex_char (struct lexer *lx)
{
    if (*lx->p == '$')
        lex_dollar (lx);
    else if (*lx->p == '`')
        copy_backquote (lx);
    else
        put (lx, *lx->p++);
}

static void lex_dquote (struct lexer *lx)
{
    lx->p++;
    while (*lx->p && *lx->p != '"') {
        size_t k = continuation (lx->p);
        if (k)
            lx->p += k;
        else if (lx->p[0] == '\\' && lx->p[1] && strchr ("$`\"\\", lx->p[1])) {
            put (lx, lx->p[1]);
            lx->p += 2;
        }
        else
            lex_char (lx);
    }
    if (*lx->p)
        lx->p++;
}

/* One word, quotes and escapes removed; *quoted says whether any were. */
static char *lex_word (struct lexer *lx, bool *quoted)
{
    size_t start = lx->len;
    *quoted = false;
    while (!is_meta (*lx->p)) {
        size_t k = continuation (lx->p);
        if (k)
            lx->p += k;
        else if (*lx->p == '\\') {
            *quoted = true;
            if (*++lx->p)
                put (lx, *lx->p++);
        }
        else if (*lx->p == '\'') {
            *quoted = true;
            lex_squote (lx);
        }
        else if (*lx->p == '"') {
            *quoted = true;
            lex_dquote (lx);
        }
        else
            lex_char (lx);
    }
    return end_word (lx, start);
}

/* <(cmd) and >(cmd) are words (process substitution). */
static char *lex_procsubst (struct lexer *lx)
{
    size_t start = lx->len;
    put (lx, *lx->p++);
    copy_group (lx, '(', ')');
    return end_word (lx, start);
}

/* A here-document's body starts on the next line; remember how it ends. */
static void lex_heredoc (struct lexer *lx)
{
    bool strip_tabs = *lx->p == '-';
    bool quoted;
    if (strip_tabs)
        lx->p++;
    skip_blanks (lx);
    size_t mark = lx->len;
    const char *delim = lex_word (lx, &quoted);
    size_t n = strlen (delim);
    if (n > 0 && lx->hdlen + n + 2 <= lx->hdcap) {
        lx->hd[lx->hdlen++] = strip_tabs ? '-' : ' ';
        memcpy (lx->hd + lx->hdlen, delim, n + 1);
        lx->hdlen += n + 1;
    }
    lx->len = mark;
}

/* Drop a redirection (>, 2>&1, <<<, &>>, ...) with its target. */
static void lex_redirect (struct lexer *lx)
{
    if (lx->p[0] == '<' && lx->p[1] == '<' && lx->p[2] != '<') {
        lx->p += 2;
        lex_heredoc (lx);
        return;
    }
    lx->p++;
    for (int i = 0; i < 2 && *lx->p && strchr ("<>&|", *lx->p); i++)
        lx->p++;
    skip_blanks (lx);
    size_t mark = lx->len;
    bool quoted;
    if ((*lx->p == '<' || *lx->p == '>') && lx->p[1] == '(')
        lex_procsubst (lx);
    else if (!is_meta (*lx->p))
        lex_word (lx, &quoted);
    lx->len = mark;
}

/* Does the line [p, eol) end here-document delim? */
static bool is_delimiter_line (const char *p, const char *eol,
                               const char *delim, bool strip_tabs)
{
    if (strip_tabs) {
        while (p < eol && *p == '\t')
            p++;
    }
    while (eol > p && eol[-1] == '\r')
        eol--;
    size_t n = strlen (delim);
    return (size_t)(eol - p) == n && strncmp (p, delim, n) == 0;
}

/* Here-document bodies are data (an input deck, a generated script): skip
 * them, in the order their operators appeared on the line. */
static void skip_heredocs (struct lexer *lx)
{
    for (size_t off = 0; off < lx->hdlen && *lx->p;) {
        bool strip_tabs = lx->hd[off] == '-';
        const char *delim = lx->hd + off + 1;
        bool done = false;
        while (*lx->p && !done) {
            const char *eol = strchr (lx->p, '\n');
            if (!eol)
                eol = lx->p + strlen (lx->p);
            done = is_delimiter_line (lx->p, eol, delim, strip_tabs);
            lx->p = *eol ? eol + 1 : eol;
        }
        off += strlen (delim) + 2;
    }
    lx->hdlen = 0;
}

static int lex_op (struct lexer *lx, int t, size_t len)
{
    lx->p += len;
    return t;
}

/* Next token; for T_WORD *word is its text (valid until the arena is
 * reset at the end of the command). */
int ns_idlex_next (struct lexer *lx, char **word)
{
    for (;;) {
        skip_blanks (lx);
        const char *p = lx->p;
        switch (*p) {
            case '\0':
                return T_EOF;
            case '#':
                lx->p += strcspn (p, "\n");
                continue;
            case '\n':
                lx->p++;
                skip_heredocs (lx);
                return T_NEWLINE;
            case ';':
                if (p[1] == ';')
                    return lex_op (lx, T_DSEMI, p[2] == '&' ? 3 : 2);
                return p[1] == '&' ? lex_op (lx, T_DSEMI, 2)
                                   : lex_op (lx, T_SEMI, 1);
            case '&':
                if (p[1] == '&')
                    return lex_op (lx, T_AND, 2);
                if (p[1] != '>')
                    return lex_op (lx, T_AMP, 1);
                lx->p++;    /* &> file */
                lex_redirect (lx);
                continue;
            case '|':
                if (p[1] == '|')
                    return lex_op (lx, T_OR, 2);
                return lex_op (lx, T_PIPE, p[1] == '&' ? 2 : 1);
            case '(': {
                if (p[1] != '(')
                    return lex_op (lx, T_OPEN, 1);
                size_t start = lx->len;     /* ((arithmetic)) */
                copy_group (lx, '(', ')');
                *word = end_word (lx, start);
                return T_WORD;
            }
            case ')':
                return lex_op (lx, T_CLOSE, 1);
            case '<':
            case '>':
                if (p[1] == '(') {
                    *word = lex_procsubst (lx);
                    return T_WORD;
                }
                lex_redirect (lx);
                continue;
            default: {
                bool quoted;
                size_t mark = lx->len;
                char *w = lex_word (lx, &quoted);
                /* 2>&1: the 2 is the redirection's, not a word */
                if (!quoted && ns_idlex_is_number (w)
                    && (*lx->p == '<' || *lx->p == '>')) {
                    lx->len = mark;
                    continue;
                }
                *word = w;
                return T_WORD;
            }
        }
    }
}
