/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurmconf.c - the machine of a real slurm.conf (see slurmconf.h) */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster.h"
#include "hostlist.h"
#include "nsutil.h"
#include "slurmconf.h"
#include "slurmconf_test.h"

#define MAX_DEPTH 16

/* Attributes a NodeName line sets (or its DEFAULT line). */
struct nattr {
    int64_t cpus, boards, sockets, sockets_per_board, cores_per_socket,
        threads, mem, weight;   /* -1: not given */
    char *features;
    char *gres;
};

struct pattr {
    int is_default, up, max_nodes, max_cpus;
    int64_t def_cpu, def_node, max_cpu, max_node;
    char *nodes;                /* Nodes= as written, or NULL */
};

struct pending {                /* a partition, resolved at the end */
    char *name;
    struct pattr a;
    const char *file;
    int line;
};

struct parser {
    ns_sconf_t *sc;
    int capnodes;
    ns_idmap_t byname;          /* FNV-1a of a name -> node index */
    struct nattr ndef;
    struct pattr pdef;
    struct pending *parts;
    int nparts, capparts;
    char **files;               /* names kept for messages */
    int nfiles, capfiles;
    ns_error_t *err;
    const char *file;           /* current */
    int line;
};

static uint64_t fnv (const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h & 0x7fffffffffffffffULL;
}

static int fail (struct parser *p, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static int fail (struct parser *p, const char *key, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (what, sizeof (what), fmt, ap);
    va_end (ap);
    if (key)
        return ns_error_set (p->err, EINVAL, "%s: line %d: field %s: %s",
                             p->file, p->line, key, what);
    return ns_error_set (p->err, EINVAL, "%s: line %d: %s", p->file,
                         p->line, what);
}

/* A count or size: digits only, at most max; "UNLIMITED"/"INFINITE"
 * give 0 when unlimited is allowed. */
static int number (struct parser *p, const char *key, const char *v,
                   int64_t max, int unlimited, int64_t *out)
{
    if (unlimited && (strcasecmp (v, "UNLIMITED") == 0
                      || strcasecmp (v, "INFINITE") == 0)) {
        *out = 0;
        return 0;
    }
    int64_t x = 0;
    const char *s = v;
    if (!*s)
        goto bad;
    for (; *s; s++) {
        if (!isdigit ((unsigned char)*s))
            goto bad;
        int digit = *s - '0';
        if (x > (max - digit) / 10)
            return fail (p, key, "expected at most %lld, got '%.40s'",
                         (long long)max, v);
        x = x * 10 + digit;
    }
    *out = x;
    return 0;
bad:
    return fail (p, key, "expected a number >= 0%s, got '%.40s'",
                 unlimited ? " or UNLIMITED" : "", v);
}

static int yes_no (struct parser *p, const char *key, const char *v,
                   int *out)
{
    if (strcasecmp (v, "YES") == 0)
        *out = 1;
    else if (strcasecmp (v, "NO") == 0)
        *out = 0;
    else
        return fail (p, key, "expected YES or NO, got '%.40s'", v);
    return 0;
}

static int set_str (struct parser *p, char **dst, const char *v)
{
    char *c = strdup (v);
    if (!c)
        return ns_error_set (p->err, ENOMEM, "out of memory");
    free (*dst);
    *dst = c;
    return 0;
}

/* ---- nodes ---- */

static int node_key (struct parser *p, struct nattr *a, const char *k,
                     const char *v)
{
    static const struct {
        const char *key;
        size_t off;
        int64_t max;
    } nums[] = {
        { "CPUs", offsetof (struct nattr, cpus), 65535 },
        { "Procs", offsetof (struct nattr, cpus), 65535 },
        { "Boards", offsetof (struct nattr, boards), 4096 },
        { "Sockets", offsetof (struct nattr, sockets), 4096 },
        { "SocketsPerBoard", offsetof (struct nattr, sockets_per_board),
          4096 },
        { "CoresPerSocket", offsetof (struct nattr, cores_per_socket),
          65535 },
        { "ThreadsPerCore", offsetof (struct nattr, threads), 256 },
        { "RealMemory", offsetof (struct nattr, mem), INT64_MAX / 4 },
        { "Weight", offsetof (struct nattr, weight), UINT32_MAX },
    };
    for (size_t i = 0; i < sizeof (nums) / sizeof (nums[0]); i++)
        if (strcasecmp (k, nums[i].key) == 0) {
            int64_t *dst = (int64_t *)((char *)a + nums[i].off);
            if (number (p, nums[i].key, v, nums[i].max, 0, dst) < 0)
                return -1;
            return 0;
        }
    if (strcasecmp (k, "Features") == 0 || strcasecmp (k, "Feature") == 0)
        return set_str (p, &a->features, v);
    if (strcasecmp (k, "Gres") == 0)
        return set_str (p, &a->gres, v);
    return 0;   /* NodeAddr, Port, State, ...: not the machine's */
}

static int64_t given (int64_t v, int64_t dflt)
{
    return v >= 0 ? v : dflt;
}

struct add_ctx {
    struct parser *p;
    const struct nattr *a;
};

static int add_node_ (const char *name, void *arg)
{
    struct add_ctx *x = arg;
    struct parser *p = x->p;
    ns_sconf_t *sc = p->sc;
    uint64_t h = fnv (name);
    int at = ns_idmap_get (&p->byname, h);
    if (at >= 0 && strcmp (sc->nodes[at].name, name) == 0)
        return fail (p, "NodeName", "node %s defined twice", name);
    if (at >= 0) {  /* a hash collision: look the slow way */
        for (int i = 0; i < sc->nnodes; i++)
            if (strcmp (sc->nodes[i].name, name) == 0)
                return fail (p, "NodeName", "node %s defined twice", name);
    }
    if (sc->nnodes >= NS_CLUSTER_NODES_MAX)
        return fail (p, "NodeName", "more than %d nodes",
                     NS_CLUSTER_NODES_MAX);
    if (ns_grow (&sc->nodes, &p->capnodes, sc->nnodes + 1,
                 sizeof (*sc->nodes), 64) < 0)
        return ns_error_set (p->err, ENOMEM, "out of memory");
    const struct nattr *a = x->a;
    const struct nattr *d = &p->ndef;
    int64_t threads = given (a->threads, given (d->threads, 1));
    int64_t boards = given (a->boards, given (d->boards, 1));
    int64_t sockets = given (a->sockets, given (d->sockets, -1));
    if (sockets < 0)
        sockets = boards * given (a->sockets_per_board,
                                  given (d->sockets_per_board, 1));
    int64_t cps = given (a->cores_per_socket, given (d->cores_per_socket, 1));
    int64_t cpus = given (a->cpus, given (d->cpus, -1));
    if (cpus < 0)
        cpus = sockets * cps * threads;
    if (cpus < 1 || cpus > 65535 || threads < 1 || sockets < 1)
        return fail (p, "CPUs", "node %s: %lld CPUs, %lld sockets, %lld "
                     "threads per core: expected at least 1 of each and at "
                     "most 65535 CPUs", name, (long long)cpus,
                     (long long)sockets, (long long)threads);
    ns_sconf_node_t *nd = &sc->nodes[sc->nnodes];
    memset (nd, 0, sizeof (*nd));
    nd->cpus = (int)cpus;
    nd->threads = (int)(threads <= cpus ? threads : 1);
    nd->cores = nd->cpus / nd->threads;
    nd->sockets = (int)(sockets <= nd->cores ? sockets : nd->cores);
    nd->mem = given (a->mem, given (d->mem, 1));
    nd->weight = (uint32_t)given (a->weight, given (d->weight, 1));
    const char *f = a->features ? a->features : d->features;
    const char *g = a->gres ? a->gres : d->gres;
    nd->name = strdup (name);
    nd->features = f ? strdup (f) : NULL;
    nd->gres = g ? strdup (g) : NULL;
    if (!nd->name || (f && !nd->features) || (g && !nd->gres)
        || (at < 0 && ns_idmap_put (&p->byname, h, sc->nnodes) < 0)) {
        free (nd->name);
        free (nd->features);
        free (nd->gres);
        return ns_error_set (p->err, ENOMEM, "out of memory");
    }
    sc->nnodes++;
    return 0;
}

/* Host list callbacks return 1 on an error (err set): -1 is the
 * expander's own. */
static int add_node (const char *name, void *arg)
{
    return add_node_ (name, arg) < 0 ? 1 : 0;
}

/* ---- partitions ---- */

static int part_key (struct parser *p, struct pattr *a, const char *k,
                     const char *v)
{
    int64_t x;
    if (strcasecmp (k, "Nodes") == 0)
        return set_str (p, &a->nodes, v);
    if (strcasecmp (k, "Default") == 0)
        return yes_no (p, "Default", v, &a->is_default);
    if (strcasecmp (k, "State") == 0) {
        if (strcasecmp (v, "UP") == 0)
            a->up = 1;
        else if (strcasecmp (v, "DOWN") == 0 || strcasecmp (v, "DRAIN") == 0
                 || strcasecmp (v, "INACTIVE") == 0)
            a->up = 0;
        else
            return fail (p, "State", "expected UP, DOWN, DRAIN or "
                         "INACTIVE, got '%.40s'", v);
        return 0;
    }
    if (strcasecmp (k, "MaxNodes") == 0) {
        if (number (p, "MaxNodes", v, INT_MAX, 1, &x) < 0)
            return -1;
        a->max_nodes = (int)x;
        return 0;
    }
    if (strcasecmp (k, "MaxCPUsPerNode") == 0) {
        if (number (p, "MaxCPUsPerNode", v, INT_MAX, 1, &x) < 0)
            return -1;
        a->max_cpus = (int)x;
        return 0;
    }
    static const struct {
        const char *key;
        size_t off;
    } mems[] = {
        { "DefMemPerCPU", offsetof (struct pattr, def_cpu) },
        { "DefMemPerNode", offsetof (struct pattr, def_node) },
        { "MaxMemPerCPU", offsetof (struct pattr, max_cpu) },
        { "MaxMemPerNode", offsetof (struct pattr, max_node) },
    };
    for (size_t i = 0; i < sizeof (mems) / sizeof (mems[0]); i++)
        if (strcasecmp (k, mems[i].key) == 0)
            return number (p, mems[i].key, v, INT64_MAX / 4, 1,
                           (int64_t *)((char *)a + mems[i].off));
    return 0;   /* MaxTime, OverSubscribe, AllowGroups, ...: ignored */
}

/* ---- lines ---- */

/* Split a line into tokens in place: whitespace-separated, '"' quotes
 * (removed), '#' outside quotes ends the line.  Returns the count, at
 * most max; -1 on an unterminated quote. */
static int tokens (char *s, char **tok, int max)
{
    int n = 0;
    char *w = s;
    while (*s) {
        while (*s && isspace ((unsigned char)*s))
            s++;
        if (!*s || *s == '#')
            break;
        if (n == max)
            return n;
        tok[n++] = w;
        int quoted = 0;
        while (*s && (quoted || (!isspace ((unsigned char)*s) && *s != '#'))) {
            if (*s == '"')
                quoted = !quoted;
            else
                *w++ = *s;
            s++;
        }
        if (quoted)
            return -1;
        int end = !*s || *s == '#';
        if (*s && !end)
            s++;
        *w++ = '\0';
        if (end)
            break;
    }
    return n;
}

static int parse_text (struct parser *p, const char *text, size_t len,
                       const char *name, const char *dir, int depth);

static char *dir_of (const char *path)
{
    const char *slash = strrchr (path, '/');
    if (!slash)
        return strdup (".");
    if (slash == path)
        return strdup ("/");
    return strndup (path, (size_t)(slash - path));
}

static int read_file (struct parser *p, const char *path, int depth)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return ns_error_set (p->err, errno, "%s: %s", path,
                             strerror (errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 > cap) {
            if (cap > (size_t)256 << 20) {
                free (buf);
                fclose (f);
                return ns_error_set (p->err, EFBIG,
                                     "%s: larger than 256 MB", path);
            }
            char *b = realloc (buf, cap = cap ? cap * 2 : 65536 * 2);
            if (!b) {
                free (buf);
                fclose (f);
                return ns_error_set (p->err, ENOMEM, "out of memory");
            }
            buf = b;
        }
        size_t got = fread (buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror (f);
    fclose (f);
    if (bad) {
        free (buf);
        return ns_error_set (p->err, EIO, "%s: read error", path);
    }
    char *dir = dir_of (path);
    int rc = dir ? parse_text (p, buf, len, path, dir, depth)
                 : ns_error_set (p->err, ENOMEM, "out of memory");
    free (dir);
    free (buf);
    return rc;
}

static const char *keep_name (struct parser *p, const char *name)
{
    if (ns_grow (&p->files, &p->capfiles, p->nfiles + 1, sizeof (*p->files),
                 4) < 0)
        return NULL;
    char *c = strdup (name);
    if (c)
        p->files[p->nfiles++] = c;
    return c;
}

static int one_line (struct parser *p, char *line, const char *dir,
                     int depth)
{
    char *tok[512];
    int n = tokens (line, tok, 512);
    if (n < 0)
        return fail (p, NULL, "a '\"' is not closed");
    if (n == 0)
        return 0;
    if (n == 512)
        return fail (p, NULL, "more than 511 fields on one line");
    if (strcasecmp (tok[0], "Include") == 0) {
        if (n != 2)
            return fail (p, "Include", "expected one file name");
        if (!dir)
            return fail (p, "Include", "includes are not read here");
        if (depth >= MAX_DEPTH)
            return fail (p, "Include", "more than %d levels of includes",
                         MAX_DEPTH);
        char path[4096];
        int w = tok[1][0] == '/'
                    ? snprintf (path, sizeof (path), "%s", tok[1])
                    : snprintf (path, sizeof (path), "%s/%s", dir, tok[1]);
        if (w < 0 || (size_t)w >= sizeof (path))
            return fail (p, "Include", "path too long");
        const char *file = p->file;
        int lineno = p->line;
        int rc = read_file (p, path, depth + 1);
        p->file = file;
        p->line = lineno;
        return rc;
    }
    /* key=value pairs; the first names the line's kind */
    char *val[512];
    for (int i = 0; i < n; i++) {
        char *eq = strchr (tok[i], '=');
        if (!eq || eq == tok[i])
            return fail (p, NULL, "expected Key=Value, got '%.40s'", tok[i]);
        *eq = '\0';
        val[i] = eq + 1;
    }
    if (strcasecmp (tok[0], "NodeName") == 0) {
        struct nattr a = { -1, -1, -1, -1, -1, -1, -1, -1, NULL, NULL };
        int dflt = strcasecmp (val[0], "DEFAULT") == 0;
        int rc = 0;
        for (int i = 1; i < n && rc == 0; i++)
            rc = node_key (p, &a, tok[i], val[i]);
        if (rc == 0 && dflt) {
            int64_t *dst = &p->ndef.cpus, *src = &a.cpus;
            for (int k = 0; k < 8; k++)
                if (src[k] >= 0)
                    dst[k] = src[k];
            if (a.features) {
                free (p->ndef.features);
                p->ndef.features = a.features;
                a.features = NULL;
            }
            if (a.gres) {
                free (p->ndef.gres);
                p->ndef.gres = a.gres;
                a.gres = NULL;
            }
        }
        else if (rc == 0) {
            if (!*val[0])
                rc = fail (p, "NodeName", "expected a host list");
            else {
                struct add_ctx x = { p, &a };
                ns_error_t herr;
                int e = ns_hostlist_expand (val[0], NS_CLUSTER_NODES_MAX,
                                            add_node, &x, &herr);
                if (e == -1)
                    rc = fail (p, "NodeName", "%s", herr.text);
                else if (e != 0)
                    rc = -1;    /* add_node's error */
            }
        }
        free (a.features);
        free (a.gres);
        return rc;
    }
    if (strcasecmp (tok[0], "PartitionName") == 0) {
        int dflt = strcasecmp (val[0], "DEFAULT") == 0;
        struct pattr a = p->pdef;
        a.nodes = NULL;
        int rc = 0;
        for (int i = 1; i < n && rc == 0; i++)
            rc = part_key (p, &a, tok[i], val[i]);
        if (rc == 0 && !dflt && !*val[0])
            rc = fail (p, "PartitionName", "expected a name");
        if (rc == 0 && dflt) {
            char *keep = a.nodes ? a.nodes : p->pdef.nodes;
            if (a.nodes)
                free (p->pdef.nodes);
            p->pdef = a;
            p->pdef.nodes = keep;
            return 0;
        }
        if (rc == 0 && !a.nodes && p->pdef.nodes
            && !(a.nodes = strdup (p->pdef.nodes)))
            rc = ns_error_set (p->err, ENOMEM, "out of memory");
        if (rc == 0 && ns_grow (&p->parts, &p->capparts, p->nparts + 1,
                                sizeof (*p->parts), 8) < 0)
            rc = ns_error_set (p->err, ENOMEM, "out of memory");
        char *pname = rc == 0 ? strdup (val[0]) : NULL;
        if (rc == 0 && !pname)
            rc = ns_error_set (p->err, ENOMEM, "out of memory");
        if (rc < 0) {
            free (a.nodes);
            return -1;
        }
        p->parts[p->nparts++] = (struct pending){ pname, a, p->file,
                                                  p->line };
        return 0;
    }
    ns_sconf_t *sc = p->sc;
    for (int i = 0; i < n; i++) {
        const char *k = tok[i], *v = val[i];
        int rc = 0;
        if (strcasecmp (k, "SelectTypeParameters") == 0) {
            char first[64];
            snprintf (first, sizeof (first), "%.*s", (int)strcspn (v, ","),
                      v);
            if (strncasecmp (first, "CR_", 3) != 0)
                rc = fail (p, k, "expected CR_Core, CR_Core_Memory, "
                           "CR_CPU, CR_CPU_Memory, CR_Socket, "
                           "CR_Socket_Memory or CR_Memory, got '%.40s'", v);
            else {
                size_t l = strlen (first);
                sc->cr_memory = strcasecmp (first, "CR_Memory") == 0
                                || (l > 7 && strcasecmp (first + l - 7,
                                                         "_Memory") == 0);
                sc->cr_cpu = strncasecmp (first, "CR_CPU", 6) == 0;
                sc->cr_socket = strncasecmp (first, "CR_Socket", 9) == 0;
            }
        }
        else if (strcasecmp (k, "DefMemPerCPU") == 0)
            rc = number (p, k, v, INT64_MAX / 4, 1, &sc->def_mem_per_cpu);
        else if (strcasecmp (k, "DefMemPerNode") == 0)
            rc = number (p, k, v, INT64_MAX / 4, 1, &sc->def_mem_per_node);
        else if (strcasecmp (k, "MaxMemPerCPU") == 0)
            rc = number (p, k, v, INT64_MAX / 4, 1, &sc->max_mem_per_cpu);
        else if (strcasecmp (k, "MaxMemPerNode") == 0)
            rc = number (p, k, v, INT64_MAX / 4, 1, &sc->max_mem_per_node);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int parse_text (struct parser *p, const char *text, size_t len,
                       const char *name, const char *dir, int depth)
{
    const char *file = keep_name (p, name);
    if (!file)
        return ns_error_set (p->err, ENOMEM, "out of memory");
    p->file = file;
    p->line = 0;
    char *line = NULL;
    size_t cap = 0, used = 0;
    size_t i = 0;
    int start = 0, rc = 0;
    while (i < len && rc == 0) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        p->line++;
        size_t l = e - i;
        if (l && text[i + l - 1] == '\r')
            l--;
        if (memchr (text + i, '\0', l)) {
            rc = fail (p, NULL, "a NUL byte: not a text file");
            break;
        }
        if (used + l + 2 > cap) {
            size_t nc = (used + l + 2) * 2;
            char *b = realloc (line, nc);
            if (!b) {
                rc = ns_error_set (p->err, ENOMEM, "out of memory");
                break;
            }
            line = b;
            cap = nc;
        }
        if (!used)
            start = p->line;
        memcpy (line + used, text + i, l);
        used += l;
        line[used] = '\0';
        i = e + 1;
        if (used && line[used - 1] == '\\' && i < len) {
            line[--used] = ' ';     /* continues on the next line */
            used++;
            continue;
        }
        int end = p->line;
        p->line = start;
        rc = one_line (p, line, dir, depth);
        p->file = file;
        p->line = end;
        used = 0;
    }
    free (line);
    return rc;
}

/* ---- the end: partitions resolved ---- */

struct mark_ctx {
    struct parser *p;
    unsigned char *mask;
    int count;
};

static int mark_node_ (const char *name, void *arg)
{
    struct mark_ctx *x = arg;
    ns_sconf_t *sc = x->p->sc;
    int at = ns_idmap_get (&x->p->byname, fnv (name));
    if (at >= 0 && strcmp (sc->nodes[at].name, name) != 0) {
        at = -1;
        for (int i = 0; i < sc->nnodes && at < 0; i++)
            if (strcmp (sc->nodes[i].name, name) == 0)
                at = i;
    }
    if (at < 0)
        return fail (x->p, "Nodes", "node %s is not defined by a NodeName "
                     "line", name);
    if (!x->mask[at])
        x->count++;
    x->mask[at] = 1;
    return 0;
}

static int mark_node (const char *name, void *arg)
{
    return mark_node_ (name, arg) < 0 ? 1 : 0;
}

static int resolve (struct parser *p)
{
    ns_sconf_t *sc = p->sc;
    if (sc->nnodes == 0)
        return ns_error_set (p->err, EINVAL, "%s: no NodeName line: no node "
                             "to replay on", p->nfiles ? p->files[0] : "?");
    sc->parts = calloc ((size_t)(p->nparts ? p->nparts : 1),
                        sizeof (*sc->parts));
    if (!sc->parts)
        return ns_error_set (p->err, ENOMEM, "out of memory");
    for (int k = 0; k < p->nparts; k++) {
        struct pending *q = &p->parts[k];
        ns_sconf_part_t *pt = &sc->parts[sc->nparts];
        pt->nodes = calloc ((size_t)sc->nnodes, 1);
        if (!pt->nodes)
            return ns_error_set (p->err, ENOMEM, "out of memory");
        pt->name = q->name;
        q->name = NULL;
        sc->nparts++;
        pt->is_default = q->a.is_default;
        pt->up = q->a.up;
        pt->max_nodes = q->a.max_nodes;
        pt->max_cpus_per_node = q->a.max_cpus;
        pt->def_mem_per_cpu = q->a.def_cpu;
        pt->def_mem_per_node = q->a.def_node;
        pt->max_mem_per_cpu = q->a.max_cpu;
        pt->max_mem_per_node = q->a.max_node;
        p->file = q->file;
        p->line = q->line;
        if (!q->a.nodes || !*q->a.nodes)
            continue;   /* a partition without nodes */
        if (strcasecmp (q->a.nodes, "ALL") == 0) {
            memset (pt->nodes, 1, (size_t)sc->nnodes);
            pt->nnodes_in = sc->nnodes;
            continue;
        }
        struct mark_ctx x = { p, pt->nodes, 0 };
        ns_error_t herr;
        int e = ns_hostlist_expand (q->a.nodes, NS_CLUSTER_NODES_MAX,
                                    mark_node, &x, &herr);
        if (e == -1)
            return fail (p, "Nodes", "%s", herr.text);
        if (e != 0)
            return -1;
        pt->nnodes_in = x.count;
    }
    return 0;
}

static void parser_free (struct parser *p)
{
    ns_idmap_free (&p->byname);
    free (p->ndef.features);
    free (p->ndef.gres);
    free (p->pdef.nodes);
    for (int k = 0; k < p->nparts; k++) {
        free (p->parts[k].name);
        free (p->parts[k].a.nodes);
    }
    free (p->parts);
    for (int i = 0; i < p->nfiles; i++)
        free (p->files[i]);
    free (p->files);
}

static ns_sconf_t *run (const char *path, const char *text, size_t len,
                        const char *name, const char *dir, ns_error_t *err)
{
    ns_error_t local;
    struct parser p = {
        .err = err ? err : &local,
        .ndef = { -1, -1, -1, -1, -1, -1, -1, -1, NULL, NULL },
        .pdef = { .up = 1 },
    };
    p.sc = calloc (1, sizeof (*p.sc));
    if (!p.sc || ns_idmap_init (&p.byname) < 0) {
        free (p.sc);
        ns_error_set (err, ENOMEM, "out of memory");
        return NULL;
    }
    int rc = path ? read_file (&p, path, 0)
                  : parse_text (&p, text, len, name, dir, 0);
    if (rc == 0)
        rc = resolve (&p);
    ns_sconf_t *sc = p.sc;
    parser_free (&p);
    if (rc < 0) {
        ns_sconf_free (sc);
        return NULL;
    }
    return sc;
}

ns_sconf_t *ns_sconf_load (const char *path, ns_error_t *err)
{
    if (!path) {
        ns_error_set (err, EINVAL, "no slurm.conf given");
        return NULL;
    }
    return run (path, NULL, 0, NULL, NULL, err);
}

ns_sconf_t *ns_sconf_parse (const char *text, size_t len, const char *name,
                            const char *dir, ns_error_t *err)
{
    return run (NULL, text ? text : "", text ? len : 0,
                name ? name : "slurm.conf", dir, err);
}

void ns_sconf_free (ns_sconf_t *sc)
{
    if (!sc)
        return;
    for (int i = 0; i < sc->nnodes; i++) {
        free (sc->nodes[i].name);
        free (sc->nodes[i].features);
        free (sc->nodes[i].gres);
    }
    free (sc->nodes);
    for (int k = 0; k < sc->nparts; k++) {
        free (sc->parts[k].name);
        free (sc->parts[k].nodes);
    }
    free (sc->parts);
    free (sc);
}

int ns_sconf_part_index (const ns_sconf_t *sc, const char *name)
{
    for (int k = 0; sc && name && k < sc->nparts; k++)
        if (strcmp (sc->parts[k].name, name) == 0)
            return k;
    return -1;
}

int ns_sconf_default_part (const ns_sconf_t *sc)
{
    if (!sc || sc->nparts == 0)
        return -1;
    for (int k = 0; k < sc->nparts; k++)
        if (sc->parts[k].is_default)
            return k;
    return 0;
}
