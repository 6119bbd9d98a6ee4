/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity.c - which program a job runs (design.md section 4)
 *
 * ns_identity_script_exe() reads a batch script as far as a shell would to
 * find its commands: quotes, escapes, line continuations, comments,
 * here-documents (their bodies are data and are skipped), redirections
 * (dropped) and the operators ; && || | & ( ) that separate commands.  Each
 * simple command is then peeled: leading keywords (if, then, do, ...) and
 * variable assignments, wrappers (time, env, numactl, apptainer exec IMAGE,
 * ...) and launchers (srun, mpirun, ...) with their options, until the
 * program itself remains.
 *
 * Decisions beyond the header's contract:
 *  - The first command run through a launcher wins.  A launcher that runs
 *    nothing or only housekeeping (srun hostname, mpirun mkdir -p d) does
 *    not count: such lines are checks or staging before the real run.
 *  - Without a launcher the last line with a real command wins; within one
 *    line (a && b, a | b, a; b) its first real command.  Shell builtins and
 *    housekeeping tools (cd, module, echo, cp, tar, sbatch, ...) are not
 *    real commands, unless named by a relative path (./test is the user's).
 *  - Unknown launcher options are taken as flags; a bare number or NAME=value
 *    where the program should be is skipped as a stray option value.
 *  - An unexpandable variable as the command ($EXE, "${EXE}") gives the
 *    variable's name (EXE): nothing can be expanded here, and the name is
 *    stable from job to job, which is what a pattern needs.
 *  - Interpreters give their script: python3 -u train.py -> train.py,
 *    python3 -m pkg -> pkg (but python -m mpi4py x.py -> x.py), java -jar
 *    a.jar -> a.jar, Rscript fit.R -> fit.R, R -f x.R / R CMD BATCH x.R ->
 *    x.R; inline code (python -c, perl -e, matlab -batch) or no script at
 *    all gives the interpreter's own name.  bash/sh -c 'CMD' is read as a
 *    script in its own right; bash run.sh gives run.sh; a bare shell none.
 *  - apptainer/singularity run IMAGE without a command gives the image
 *    (no directory, no .sif/.simg/.img suffix, no :tag).
 *
 * All buffers are sized from the script's length, so no name is ever
 * truncated: a word after quote removal is never longer than its source.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "identity.h"
#include "identity_test.h"
#include "idlex.h"
#include "idtables.h"
#include "nsutil.h"
#include "progtab.h"

/* bash -c "sh -c '...'" nests; deeper than this is not a real script. */
#define MAX_NESTING 4
/* Wrappers and launchers around one program; more is not a real command. */
#define MAX_HOPS 32
/* Script functions remembered: real scripts define a few, and a bound keeps
 * a hostile script linear. */
#define MAX_FUNCTIONS 64

/*
 * Word predicates
 */

/* NAME=value, NAME+=value, NAME[i]=value */
static bool is_assignment (const char *w)
{
    if (!isalpha ((unsigned char)*w) && *w != '_')
        return false;
    while (isalnum ((unsigned char)*w) || *w == '_')
        w++;
    if (*w == '[') {
        if (!(w = strchr (w, ']')))
            return false;
        w++;
    }
    if (*w == '+')
        w++;
    return *w == '=';
}

/* `which lmp`, $(command -v lmp): the program looked up.  Other command
 * substitutions name nothing ("").  Cuts the word in place. */
static char *substituted_name (char *w)
{
    size_t n = strlen (w);
    w[n - 1] = '\0';
    char *s = w + (w[0] == '`' ? 1 : 2);
    s += strspn (s, " \t");
    if (strncmp (s, "which ", 6) == 0)
        s += 6;
    else if (strncmp (s, "command -v ", 11) == 0)
        s += 11;
    else
        return w + n - 1;
    s += strspn (s, " \t");
    s[strcspn (s, " \t")] = '\0';
    char *slash = strrchr (s, '/');
    return slash ? slash + 1 : s;
}

static bool is_substitution (const char *w)
{
    size_t n = strlen (w);
    if (n >= 2 && w[0] == '`' && w[n - 1] == '`')
        return true;
    return n >= 3 && w[0] == '$' && w[1] == '(' && w[n - 1] == ')';
}

/* The program a command word names: no directory, and for an unexpandable
 * $VAR or ${VAR} the variable's name.  Quotes are gone already.  Cuts the
 * word in place. */
static char *prog_name (char *w)
{
    if (is_substitution (w))
        return substituted_name (w);
    char *s = strrchr (w, '/');
    s = s ? s + 1 : w;
    if (*s == '$') {
        s++;
        if (*s == '{' || *s == '(')
            s++;
        char *e = s;
        while (isalnum ((unsigned char)*e) || *e == '_')
            e++;
        *e = '\0';
    }
    return s;
}

/* A relative path (./test, ../bin/cp) is the user's own build, whatever
 * its name. */
static bool is_relative_path (const char *w)
{
    return strncmp (w, "./", 2) == 0 || strncmp (w, "../", 3) == 0;
}

/* python3, python3.11, pypy3: family name followed by a version. */
static bool is_version_of (const char *name, const char *family)
{
    size_t n = strlen (family);
    if (strncmp (name, family, n) != 0)
        return false;
    for (name += n; *name; name++) {
        if (!isdigit ((unsigned char)*name) && *name != '.')
            return false;
    }
    return true;
}

/*
 * Command evaluation: peel a command down to its program
 */

enum kind {
    K_NONE = 0,     /* runs nothing of interest */
    K_PLAIN,        /* runs a program, not through a launcher */
    K_LAUNCH,       /* runs a program through a launcher */
};

struct eval {
    char *name;         /* result; at least as long as the script */
    size_t cap;
    int depth;          /* bash -c nesting */
    int hops;           /* idt_wrappers peeled in this command */
    bool nomem;
    const char *funcs;  /* functions the script defined, NUL-separated */
    size_t funcslen;
    int nfuncs;
};

static int scan_script (const char *script, int depth, char *out,
                        size_t cap, bool *nomem);
static int eval_program (struct eval *e, char **w, int n);

/* Every name found goes through here: an empty one is no name. */
static int set_name (struct eval *e, const char *s)
{
    size_t n = strlen (s);
    if (n == 0)
        return K_NONE;
    if (n >= e->cap)
        n = e->cap - 1;     /* not reached: cap exceeds the script length */
    memcpy (e->name, s, n);
    e->name[n] = '\0';
    return K_PLAIN;
}

/* mpirun $MPI_FLAGS ./app: a variable followed by the user's own build is
 * more likely options than the program. */
static bool is_options_variable (char **w, int n, int i)
{
    return i + 1 < n && w[i][0] == '$' && !strchr (w[i], '/')
           && is_relative_path (w[i + 1]);
}

static int eval_launcher (struct eval *e, const struct launcher *l, char **w,
                          int n)
{
    int i = idt_skip_options (l->spec, w, n, 1);
    while (i < n && (ns_idlex_is_number (w[i]) || is_assignment (w[i])
                     || is_options_variable (w, n, i)))
        i++;
    return eval_program (e, w + i, n - i) == K_NONE ? K_NONE : K_LAUNCH;
}

static int eval_wrapper (struct eval *e, const struct wrapper *wr, char **w,
                         int n)
{
    int i = 1;
    if (wr->shape == W_SUBCOMMAND) {
        if (n < 2 || !idt_in_list (idt_perf_subcommands, w[1]))
            return K_NONE;
        i = 2;
    }
    i = idt_skip_options (&wr->spec, w, n, i);
    for (int j = 1; j < i; j++) {
        if (idt_in_list (wr->stops, w[j]))
            return K_NONE;
    }
    if (wr->shape == W_ENV && i < n && strcmp (w[i], "-") == 0)
        i++;
    else if (wr->shape == W_OPERAND)
        i++;
    else if (wr->shape == W_PRIORITY && i < n && ns_idlex_is_number (w[i]))
        i++;
    return i < n ? eval_program (e, w + i, n - i) : K_NONE;
}

static bool is_function (const struct eval *e, const char *name)
{
    size_t off = 0;
    while (off < e->funcslen) {
        if (strcmp (e->funcs + off, name) == 0)
            return true;
        off += strlen (e->funcs + off) + 1;
    }
    return false;
}

/* The image as a name: lammps_2023.sif -> lammps_2023, docker://x/y:1 -> y */
static int image_name (struct eval *e, char *image)
{
    static const char *const suffixes[] = { ".sif", ".simg", ".img", NULL };
    char *s = prog_name (image);
    char *colon = strchr (s, ':');
    if (colon)
        *colon = '\0';
    size_t n = strlen (s);
    for (int i = 0; suffixes[i]; i++) {
        size_t k = strlen (suffixes[i]);
        if (n > k && strcmp (s + n - k, suffixes[i]) == 0) {
            s[n - k] = '\0';
            break;
        }
    }
    return set_name (e, s);
}

/* run passes further words to the image's runscript, which commonly
 * executes them ("$@"), so a word after the image is the command; with
 * none the image itself is the program. */
static int eval_container (struct eval *e, char **w, int n)
{
    if (n < 2)
        return K_NONE;
    bool run = strcmp (w[1], "run") == 0;
    if (!run && strcmp (w[1], "exec") != 0)
        return K_NONE;
    int i = idt_skip_options (&idt_container_spec, w, n, 2);
    if (i >= n)
        return K_NONE;
    char *image = w[i++];
    if (i < n && w[i][0] != '-')
        return eval_program (e, w + i, n - i);
    return run ? image_name (e, image) : K_NONE;
}

static int eval_shell (struct eval *e, char **w, int n)
{
    bool cmd = false;
    int i = 1;
    while (i < n && idt_is_option (&idt_shell_spec, w[i])) {
        if (strcmp (w[i], "--") == 0) {
            i++;
            break;
        }
        if (w[i][0] == '-' && w[i][1] != '-' && strchr (w[i] + 1, 'c'))
            cmd = true;
        i += 1 + idt_option_nargs (&idt_shell_spec, w[i], i + 1 < n ? w[i + 1] : NULL);
    }
    if (i >= n)
        return K_NONE;
    if (!cmd)
        return set_name (e, prog_name (w[i]));     /* bash run.sh */
    if (e->depth >= MAX_NESTING)
        return K_NONE;
    int k = scan_script (w[i], e->depth + 1, e->name, e->cap, &e->nomem);
    return k < 0 ? K_NONE : k;
}

/* If w[*i] is one of opts, return its argument ("-m pkg", "-mpkg",
 * "--file=x"), advancing *i past a separate one; else NULL. */
static char *opt_value (const char *const *opts, char **w, int n, int *i)
{
    char *o = w[*i];
    for (; opts && *opts; opts++) {
        size_t k = strlen (*opts);
        if (strcmp (o, *opts) == 0)
            return *i + 1 < n ? w[++*i] : o + k;   /* o + k: "" */
        if (strncmp (o, *opts, k) != 0)
            continue;
        if (k == 2 && o[1] != '-')
            return o + 2;
        if (o[k] == '=')
            return o + k + 1;
    }
    return NULL;
}

/* mpi4py runs the script given after it: python -m mpi4py run.py */
static bool runs_script_after (const char *module)
{
    return strcmp (module, "mpi4py") == 0
           || strncmp (module, "mpi4py.", 7) == 0;
}

static int eval_interp (struct eval *e, const struct interp *in,
                        const char *self, char **w, int n)
{
    const char *fallback = self;
    char *v;
    for (int i = 1; i < n; i++) {
        const char *o = w[i];
        if (strcmp (o, "--") == 0 && i + 1 < n)
            return set_name (e, prog_name (w[i + 1]));
        if (in->subcommand && strcmp (o, in->subcommand) == 0) {
            i++;
            continue;
        }
        if (strcmp (o, "-") == 0)       /* script on stdin */
            break;
        if (o[0] != '-') {
            const char *script = prog_name (w[i]);
            return set_name (e, *script ? script : fallback);
        }
        if (opt_value (in->code, w, n, &i))
            return set_name (e, self);
        if ((v = opt_value (in->prog, w, n, &i))) {
            v = prog_name (v);
            if (!*v || !runs_script_after (v))
                return set_name (e, *v ? v : self);
            fallback = v;
        }
        else if (idt_in_list (in->args, o))
            i++;
    }
    return set_name (e, fallback);
}

static const struct launcher *find_launcher (const char *name)
{
    for (const struct launcher *l = idt_launchers; l->name; l++) {
        if (strcmp (l->name, name) == 0)
            return l;
    }
    return NULL;
}

static const struct wrapper *find_wrapper (const char *name)
{
    for (const struct wrapper *wr = idt_wrappers; wr->name; wr++) {
        if (strcmp (wr->name, name) == 0)
            return wr;
    }
    return NULL;
}

static const struct interp *find_interp (const char *name)
{
    for (const struct interp *in = idt_interps; in->name; in++) {
        if (is_version_of (name, in->name))
            return in;
    }
    return NULL;
}

/* w[0..n) is a command without its leading keywords. */
static int eval_program (struct eval *e, char **w, int n)
{
    while (n > 0 && is_assignment (w[0])) {
        w++;
        n--;
    }
    if (n <= 0 || ++e->hops > MAX_HOPS)
        return K_NONE;
    bool relative = is_relative_path (w[0]);
    char *name = prog_name (w[0]);
    /* "-", "<(cmd)", "`": debris of syntax this reader does not model */
    if (!*name || ns_idlex_is_number (name) || strchr ("-<>(`", name[0]))
        return K_NONE;
    const struct launcher *l = find_launcher (name);
    if (l)
        return eval_launcher (e, l, w, n);
    const struct wrapper *wr = find_wrapper (name);
    if (wr)
        return eval_wrapper (e, wr, w, n);
    if (idt_in_list (idt_containers, name))
        return eval_container (e, w, n);
    if (idt_in_list (idt_shells, name))
        return eval_shell (e, w, n);
    const struct interp *in = find_interp (name);
    if (in)
        return eval_interp (e, in, name, w, n);
    if (!relative && idt_in_list (idt_housekeeping, name))
        return K_NONE;
    /* a call of the script's own function runs its body, seen already */
    if (is_function (e, name))
        return K_NONE;
    return set_name (e, name);
}

/*
 * Scanner: commands in order, the first launched one or the last real one
 */

struct scan {
    struct lexer lx;
    struct eval e;
    char **words;       /* current command */
    int n;
    int cap;
    int at;             /* first word after leading keywords (if, do, ...) */
    bool dbracket;      /* inside [[ ... ]], where && and || are operands */
    int case_depth;
    bool want_pattern;  /* next comes a case pattern, up to its ')' */
    bool line_done;     /* this line has given its candidate already */
    bool have_last;
    char *last;         /* latest real command */
    bool found;         /* e.name holds a launched program */
    char *funcs;        /* e.funcs, writable */
    size_t funcscap;
};

static void reset_command (struct scan *s)
{
    s->n = 0;
    s->at = 0;
    s->lx.len = 0;
    s->dbracket = false;
}

static int push_word (struct scan *s, char *w)
{
    if (ns_grow (&s->words, &s->cap, s->n + 1, sizeof (*s->words), 32) < 0)
        return -1;
    s->words[s->n++] = w;
    int at = s->at;
    if (at == s->n - 1 && idt_in_list (idt_prefix_keywords, w))
        s->at++;
    else if (at == s->n - 1 && strcmp (w, "[[") == 0)
        s->dbracket = true;
    else if (strcmp (w, "]]") == 0)
        s->dbracket = false;
    /* "case WORD in": what follows are patterns and their commands */
    if (s->n - at == 3 && strcmp (s->words[at], "case") == 0
        && strcmp (w, "in") == 0) {
        reset_command (s);
        s->case_depth++;
        s->want_pattern = true;
    }
    return 0;
}

/* Inside a case, "pat1|pat2)" is no command; "esac" closes the case. */
static void pattern_token (struct scan *s, int t, const char *w)
{
    if (t == T_WORD && strcmp (w, "esac") == 0) {
        s->case_depth--;
        s->want_pattern = false;
    }
    else if (t == T_CLOSE)
        s->want_pattern = false;
    reset_command (s);
}

static void define_function (struct scan *s, const char *name)
{
    size_t n = strlen (name);
    if (n > 0 && s->e.nfuncs < MAX_FUNCTIONS
        && s->e.funcslen + n + 1 <= s->funcscap) {
        memcpy (s->funcs + s->e.funcslen, name, n + 1);
        s->e.funcslen += n + 1;
        s->e.nfuncs++;
    }
}

static int eval_command (struct scan *s)
{
    int at = s->at;
    if (at == s->n)
        return K_NONE;
    const char *w0 = s->words[at];
    if (strcmp (w0, "esac") == 0 && s->case_depth > 0)
        s->case_depth--;
    if (strcmp (w0, "function") == 0 && at + 1 < s->n)
        define_function (s, s->words[at + 1]);
    if (idt_in_list (idt_not_commands, w0) || strncmp (w0, "((", 2) == 0)
        return K_NONE;
    s->e.hops = 0;
    return eval_program (&s->e, s->words + at, s->n - at);
}

static void end_command (struct scan *s, int t)
{
    /* "name ()" starts a function definition, not a command */
    if (s->n > 0 && t == T_OPEN)
        define_function (s, s->words[s->n - 1]);
    else if (s->n > 0) {
        int k = eval_command (s);
        if (k == K_LAUNCH)
            s->found = true;
        else if (k == K_PLAIN && !s->line_done) {
            strcpy (s->last, s->e.name);
            s->have_last = true;
            s->line_done = true;
        }
    }
    if (t == T_DSEMI && s->case_depth > 0)
        s->want_pattern = true;
    if (t == T_NEWLINE)
        s->line_done = false;
    reset_command (s);
}

/* && || | ( ) inside [[ ... ]] are part of the test, not separators. */
static bool test_operand (const struct scan *s, int t)
{
    return s->dbracket && (t == T_AND || t == T_OR || t == T_PIPE
                           || t == T_OPEN || t == T_CLOSE);
}

static int scan_run (struct scan *s)
{
    for (;;) {
        char *w = NULL;
        int t = ns_idlex_next (&s->lx, &w);
        if (s->want_pattern)
            pattern_token (s, t, w);
        else if (t == T_WORD) {
            if (push_word (s, w) < 0)
                return -1;
        }
        else if (!test_operand (s, t))
            end_command (s, t);
        if (s->found || t == T_EOF)
            return 0;
    }
}

/* Scan script; the program goes to out (cap > strlen (script)).  Returns
 * a kind, or -1 when out of memory (also flagged in *nomem). */
static int scan_script (const char *script, int depth, char *out,
                        size_t cap, bool *nomem)
{
    size_t slen = strlen (script);
    struct scan s = {
        .lx = { .p = script, .cap = 2 * slen + 32, .hdcap = slen + 32 },
        .e = { .name = out, .cap = cap, .depth = depth },
    };
    s.funcscap = slen + 1;
    char *mem = malloc (s.lx.cap + s.lx.hdcap + slen + 1 + s.funcscap);
    if (!mem) {
        *nomem = true;
        return -1;
    }
    s.lx.buf = mem;
    s.lx.hd = mem + s.lx.cap;
    s.last = s.lx.hd + s.lx.hdcap;
    s.funcs = s.last + slen + 1;
    s.e.funcs = s.funcs;
    int rc = scan_run (&s);
    free (s.words);
    if (rc == 0 && !s.found && s.have_last)
        strcpy (out, s.last);
    free (mem);
    if (rc < 0 || s.e.nomem) {
        *nomem = true;
        return -1;
    }
    return s.found ? K_LAUNCH : s.have_last ? K_PLAIN : K_NONE;
}

int ns_identity_script_exe (const char *script, char *out, size_t len)
{
    if (!script || !out) {
        errno = EINVAL;
        return -1;
    }
    size_t cap = strlen (script) + 1;
    char *name = malloc (cap);
    bool nomem = false;
    if (!name)
        return -1;
    int k = scan_script (script, 0, name, cap, &nomem);
    int errnum = nomem ? ENOMEM : k == K_NONE ? ENOENT
                 : strlen (name) >= len ? ERANGE : 0;
    if (errnum == 0)
        strcpy (out, name);
    free (name);
    if (errnum) {
        errno = errnum;
        return -1;
    }
    return 0;
}

/*
 * Sources and the identity configuration
 */

static const char *const source_names[] = { "tag", "script", "name", "none" };

const char *ns_idsource_name (ns_idsource_t s)
{
    if ((int)s < (int)NS_ID_TAG || s > NS_ID_NONE)
        return "?";
    return source_names[s];
}

int ns_idsource_parse (const char *s)
{
    for (int i = NS_ID_TAG; s && i < NS_ID_NONE; i++) {
        if (strcasecmp (s, source_names[i]) == 0)
            return i;
    }
    errno = EINVAL;
    return -1;
}

struct pattern {
    char *glob;
    char *program;
};

struct ns_identity {
    ns_idsource_t order[NS_ID_NONE];
    int norder;
    struct pattern *pat;
    int npat;
    int cap;
};

ns_identity_t *ns_identity_create (void)
{
    ns_identity_t *id = calloc (1, sizeof (*id));
    if (!id)
        return NULL;
    id->order[0] = NS_ID_TAG;
    id->order[1] = NS_ID_SCRIPT;
    id->order[2] = NS_ID_NAME;
    id->norder = 3;
    return id;
}

void ns_identity_destroy (ns_identity_t *id)
{
    if (!id)
        return;
    int saved = errno;
    for (int i = 0; i < id->npat; i++) {
        free (id->pat[i].glob);
        free (id->pat[i].program);
    }
    free (id->pat);
    free (id);
    errno = saved;
}

ns_identity_t *ns_identity_copy (const ns_identity_t *id)
{
    if (!id) {
        errno = EINVAL;
        return NULL;
    }
    ns_identity_t *c = ns_identity_create ();
    if (!c)
        return NULL;
    memcpy (c->order, id->order, sizeof (c->order));
    c->norder = id->norder;
    for (int i = 0; i < id->npat; i++) {
        if (ns_identity_add_pattern (c, id->pat[i].glob, id->pat[i].program,
                                     NULL) < 0) {
            ns_identity_destroy (c);
            return NULL;
        }
    }
    return c;
}

int ns_identity_set_order (ns_identity_t *id, const ns_idsource_t *order,
                           int n, ns_error_t *err)
{
    if (!id || !order)
        return ns_error_set (err, EINVAL, "identity order: no sources given");
    if (n < 1 || n > NS_ID_NONE)
        return ns_error_set (err, EINVAL,
                             "identity order: %d sources given, "
                             "expected 1 to %d of tag, script, name",
                             n, NS_ID_NONE);
    bool seen[NS_ID_NONE] = { false };
    for (int i = 0; i < n; i++) {
        if ((int)order[i] < (int)NS_ID_TAG || order[i] >= NS_ID_NONE)
            return ns_error_set (err, EINVAL,
                                 "identity order: source %d is not one of "
                                 "tag, script, name", (int)order[i]);
        if (seen[order[i]])
            return ns_error_set (err, EINVAL,
                                 "identity order: '%s' listed twice",
                                 source_names[order[i]]);
        seen[order[i]] = true;
    }
    memcpy (id->order, order, sizeof (*order) * n);
    id->norder = n;
    return 0;
}

int ns_identity_add_pattern (ns_identity_t *id, const char *glob,
                             const char *program, ns_error_t *err)
{
    if (!id)
        return ns_error_set (err, EINVAL, "identity pattern: no identity");
    if (!glob || !*glob)
        return ns_error_set (err, EINVAL, "identity pattern: empty glob");
    if (!program || !*program)
        return ns_error_set (err, EINVAL,
                             "identity pattern '%s': empty program name",
                             glob);
    if (strlen (program) >= NS_PROGRAM_NAME_MAX)
        return ns_error_set (err, EINVAL,
                             "identity pattern '%s': program name longer "
                             "than %d characters",
                             glob, NS_PROGRAM_NAME_MAX - 1);
    if (ns_grow (&id->pat, &id->cap, id->npat + 1, sizeof (*id->pat), 8) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    char *g = strdup (glob);
    char *p = strdup (program);
    if (!g || !p) {
        free (g);
        free (p);
        return ns_error_set (err, ENOMEM, "out of memory");
    }
    id->pat[id->npat].glob = g;
    id->pat[id->npat].program = p;
    id->npat++;
    return 0;
}

int ns_identity_npatterns (const ns_identity_t *id)
{
    return id ? id->npat : 0;
}

const char *ns_identity_map (const ns_identity_t *id, const char *name)
{
    if (!id || !name)
        return name;
    for (int i = 0; i < id->npat; i++) {
        if (fnmatch (id->pat[i].glob, name, 0) == 0)
            return id->pat[i].program;
    }
    return name;
}

/* The name one source yields, or NULL; *tmp is the script's buffer. */
static const char *source_value (ns_idsource_t src, const char *tag,
                                 const char *script, const char *jobname,
                                 char **tmp)
{
    if (src == NS_ID_TAG)
        return tag && *tag ? tag : NULL;
    if (src == NS_ID_NAME)
        return jobname && *jobname ? jobname : NULL;
    if (!script || !*script)
        return NULL;
    size_t cap = strlen (script) + 1;
    if (!(*tmp = malloc (cap)))
        return NULL;
    if (ns_identity_script_exe (script, *tmp, cap) < 0)
        return NULL;
    return *tmp;
}

ns_idsource_t ns_identity_resolve (const ns_identity_t *id, const char *tag,
                                   const char *script, const char *jobname,
                                   char *out, size_t len)
{
    if (!id || !out || len == 0) {
        errno = EINVAL;
        return NS_ID_NONE;
    }
    int errnum = ENOENT;
    for (int i = 0; i < id->norder; i++) {
        char *tmp = NULL;
        const char *v = source_value (id->order[i], tag, script, jobname,
                                      &tmp);
        const char *prog = v ? ns_identity_map (id, v) : NULL;
        bool fits = prog && strlen (prog) < len;
        if (fits)
            strcpy (out, prog);
        else if (prog)
            errnum = ERANGE;
        free (tmp);
        if (fits)
            return id->order[i];
    }
    out[0] = '\0';
    errno = errnum;
    return NS_ID_NONE;
}
