/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pin.c - what the SPANK plugin does for one job step on one node */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ledgerfile.h"
#include "nsconfig.h"
#include "pin.h"
#include "nsranges.h"

int ns_pin_node_name_ok (const char *name)
{
    size_t n = name ? strlen (name) : 0;
    return n >= 1 && n <= 255 && name[0] != '.'
           && strspn (name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
                            "wxyz0123456789._-") == n;
}

const char *ns_pin_expand (const char *pattern, const char *node, char *buf,
                           size_t len)
{
    size_t n = 0;
    for (const char *s = pattern; *s; s++) {
        const char *add = NULL;
        char one[2] = { *s, '\0' };
        if (s[0] == '%' && s[1] == 'n') {
            add = node ? node : "";
            s++;
        } else if (s[0] == '%' && s[1] == '%') {
            add = "%";
            s++;
        } else {
            add = one;
        }
        size_t m = strlen (add);
        if (n + m >= len) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        memcpy (buf + n, add, m);
        n += m;
    }
    if (len == 0) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* The first line of a file that is not XML, trimmed, into buf; or the
 * path itself when the file is XML. */
static const char *spec_from_file (const char *path, char *buf, size_t len,
                                   ns_error_t *err)
{
    char text[4096];
    FILE *f = fopen (path, "r");
    if (!f) {
        ns_error_set (err, errno, "topology %s: cannot open: %s", path,
                      strerror (errno));
        return NULL;
    }
    size_t n = fread (text, 1, sizeof (text) - 1, f);
    fclose (f);
    text[n] = '\0';
    char *s = text;
    while (isspace ((unsigned char)*s))
        s++;
    if (*s == '<')
        s = (char *)path;   /* XML: hwloc reads the file itself */
    else
        s[strcspn (s, "\r\n")] = '\0';
    if (strlen (s) >= len) {
        ns_error_set (err, ENAMETOOLONG, "topology %s: too long", path);
        return NULL;
    }
    return strcpy (buf, s);
}

const char *ns_pin_topology_spec (const char *arg, char *buf, size_t len,
                                  ns_error_t *err)
{
    if (!arg || !*arg) {
        ns_error_set (err, EINVAL, "empty topology");
        return NULL;
    }
    if (strcmp (arg, "live") != 0
        && (strchr (arg, '/') || access (arg, F_OK) == 0))
        return spec_from_file (arg, buf, len, err);
    if (strlen (arg) >= len) {
        ns_error_set (err, ENAMETOOLONG, "topology '%s': too long", arg);
        return NULL;
    }
    strcpy (buf, arg);
    for (char *s = buf; *s; s++)
        if (*s == ',')
            *s = ' ';
    return buf;
}

/*
 * Loading the topology
 */

/* The plugins hwloc would dlopen at every topology init (Debian's
 * libhwloc-plugins): I/O discovery and libxml2.  Names as hwloc's
 * HWLOC_PLUGINS_VERBOSE prints them. */
#define LEAN_BLACKLIST "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_cuda," \
                       "hwloc_nvml,hwloc_rsmi,hwloc_levelzero," \
                       "hwloc_xml_libxml"

static void lean_hwloc (void)
{
    /* Read by hwloc when it loads its components (first topology init of
     * the process); set once and left so, never overriding the admin. */
    if (!getenv ("HWLOC_PLUGINS_BLACKLIST"))
        setenv ("HWLOC_PLUGINS_BLACKLIST", LEAN_BLACKLIST, 0);
}

static void read_line (const char *path, char *buf, size_t len)
{
    FILE *f = fopen (path, "r");
    buf[0] = '\0';
    if (f) {
        if (!fgets (buf, (int)len, f))
            buf[0] = '\0';
        fclose (f);
    }
    buf[strcspn (buf, "\n")] = '\0';
}

/* What must not change for a cached topology to stay valid. */
static void machine_stamp (char *buf, size_t len)
{
    char boot[64], online[192];
    read_line ("/proc/sys/kernel/random/boot_id", boot, sizeof (boot));
    read_line ("/sys/devices/system/cpu/online", online, sizeof (online));
    snprintf (buf, len, "%s/%s", boot, online);
}

#define STAMP_INFO "NodeshareStamp"

static int ours (const char *path)
{
    struct stat st;
    return lstat (path, &st) == 0 && S_ISREG (st.st_mode)
           && st.st_uid == geteuid () && (st.st_mode & 077) == 0;
}

static hwloc_topology_t load_cached (const char *cache, const char *stamp)
{
    if (!ours (cache))
        return NULL;
    hwloc_topology_t topo = ns_cachetree_topology (cache, NULL);
    if (!topo)
        return NULL;
    const char *got = hwloc_obj_get_info_by_name (
        hwloc_get_root_obj (topo), STAMP_INFO);
    if (got && strcmp (got, stamp) == 0)
        return topo;
    hwloc_topology_destroy (topo);
    return NULL;
}

/* Export through a buffer and our own O_EXCL | O_NOFOLLOW file, so that
 * nobody can point the temporary name elsewhere. */
static int write_file (const char *path, const char *data, size_t len)
{
    unlink (path);
    int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   0600);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write (fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    if (close (fd) < 0 || done < len) {
        unlink (path);
        return -1;
    }
    return 0;
}

static void write_cache (hwloc_topology_t topo, const char *cache,
                         const char *stamp)
{
    char tmp[4096], *xml = NULL;
    int len = 0;
    if ((size_t)snprintf (tmp, sizeof (tmp), "%s.%ld.new", cache,
                          (long)getpid ()) >= sizeof (tmp))
        return;
    hwloc_obj_add_info (hwloc_get_root_obj (topo), STAMP_INFO, stamp);
    char *dir = strdup (cache), *slash = dir ? strrchr (dir, '/') : NULL;
    if (slash && slash != dir) {
        *slash = '\0';
        mkdir (dir, 0755);
    }
    free (dir);
    if (hwloc_topology_export_xmlbuffer (topo, &xml, &len, 0) < 0 || len < 1)
        return;
    /* len counts the terminating NUL. */
    if (write_file (tmp, xml, (size_t)len - 1) == 0 && rename (tmp, cache) < 0)
        unlink (tmp);
    hwloc_free_xmlbuffer (topo, xml);
}

hwloc_topology_t ns_pin_topology_load (const char *spec, const char *cache,
                                       ns_error_t *err)
{
    char stamp[256];
    hwloc_topology_t topo;
    lean_hwloc ();
    if (!spec || strcmp (spec, "live") != 0 || !cache || !*cache)
        return ns_cachetree_topology (spec, err);
    /* Root parses and writes the copy: its directory must be safe too. */
    if (ns_ledger_file_safe_dir (cache, err) < 0)
        return NULL;
    machine_stamp (stamp, sizeof (stamp));
    if ((topo = load_cached (cache, stamp)))
        return topo;
    if ((topo = ns_cachetree_topology ("live", err)))
        write_cache (topo, cache, stamp);
    return topo;
}

/*
 * Planning
 */

struct work {
    hwloc_topology_t topo;
    hwloc_bitmap_t cpus;        /* OS PUs of the step's cores */
    hwloc_bitmap_t coreset;     /* the step's logical core indices */
    ns_cachetree_t *tree;
    int *cores;                 /* coreset, ascending */
    int ncores;
    ns_ledger_task_t *tasks;
    ns_ctplace_t *places;
    void *scratch;              /* region of a private ledger */
};

static void work_free (struct work *w)
{
    int saved = errno;
    if (w->topo)
        hwloc_topology_destroy (w->topo);
    hwloc_bitmap_free (w->cpus);
    hwloc_bitmap_free (w->coreset);
    ns_cachetree_destroy (w->tree);
    free (w->cores);
    free (w->tasks);
    free (w->places);
    free (w->scratch);
    errno = saved;
}

void ns_pin_plan_destroy (struct ns_pin_plan *p)
{
    int saved = errno;
    if (p) {
        for (int i = 0; p->task && i < p->ntasks; i++)
            hwloc_bitmap_free (p->task[i].cpus);
        free (p->task);
        free (p);
    }
    errno = saved;
}

static int check_req (const struct ns_pin_req *r, ns_error_t *err)
{
    if (!r || !r->topology || !r->cores)
        return ns_error_set (err, EINVAL, "no topology or core list");
    if (r->ntasks < 1 || r->ntasks > NS_CACHETREE_MAX_TASKS / 2)
        return ns_error_set (err, EINVAL, "bad local task count %d",
                             r->ntasks);
    if (!ns_sigma_ok (r->sigma))
        return ns_error_set (err, EINVAL, "bad sigma %g: expected "
                             NS_SIGMA_RANGE, r->sigma);
    return 0;
}

/* Slurm's core indices -> the tree's cores (see pin.h: the identity on
 * indices, checked against the topology). */
static int translate (struct work *w, const char *cores, ns_error_t *err)
{
    if (!(w->cpus = hwloc_bitmap_alloc ())
        || !(w->coreset = hwloc_bitmap_alloc ()))
        return ns_error_set (err, ENOMEM, "out of memory");
    if (ns_cachetree_cores_cpuset (w->topo, cores, w->cpus, err) < 0)
        return -1;
    if (hwloc_bitmap_list_sscanf (w->coreset, cores) < 0)
        return ns_error_set (err, EINVAL, "bad core list '%s'", cores);
    w->ncores = hwloc_bitmap_weight (w->coreset);
    if (w->ncores < 1)
        return ns_error_set (err, EINVAL, "empty core list '%s'", cores);
    if (!(w->cores = malloc ((size_t)w->ncores * sizeof (int))))
        return ns_error_set (err, ENOMEM, "out of memory");
    int i = 0, c;
    hwloc_bitmap_foreach_begin (c, w->coreset)
        w->cores[i++] = c;
    hwloc_bitmap_foreach_end ();
    return 0;
}

static int threads_per_core (hwloc_topology_t topo, int core)
{
    hwloc_obj_t o = hwloc_get_obj_by_type (topo, HWLOC_OBJ_CORE, core);
    int n = o ? hwloc_bitmap_weight (o->cpuset) : 1;
    return n > 0 ? n : 1;
}

/* A rank's share of the step's memory: memory per allocated CPU (as
 * Slurm counts it) times its CPUs. */
static uint64_t rank_footprint (const struct ns_pin_req *r, int ncpus)
{
    uint64_t cpt = r->cpus_per_task > 0 ? (uint64_t)r->cpus_per_task : 1;
    if (r->footprint > 0 || r->step_mem == 0 || ncpus < 1)
        return r->footprint;
    uint64_t per_cpu = r->step_mem / (uint64_t)ncpus;
    return per_cpu > UINT64_MAX / cpt ? UINT64_MAX : per_cpu * cpt;
}

static int make_tasks (struct work *w, const struct ns_pin_req *r,
                       int tpc, ns_error_t *err)
{
    uint64_t footprint = rank_footprint (r, hwloc_bitmap_weight (w->cpus));
    w->tasks = calloc ((size_t)r->ntasks, sizeof (*w->tasks));
    w->places = calloc ((size_t)r->ntasks, sizeof (*w->places));
    if (!w->tasks || !w->places)
        return ns_error_set (err, ENOMEM, "out of memory");
    for (int i = 0; i < r->ntasks; i++) {
        int pos = ns_ledger_origin (i, r->cpus_per_task, tpc, w->ncores);
        w->tasks[i] = (ns_ledger_task_t){
            .task = i,
            .origin = w->cores[pos],
            .footprint = footprint,
        };
    }
    return 0;
}

static int others (const ns_ledger_t *l, const ns_ledger_owner_t *owner)
{
    int n = 0;
    ns_ledger_entry_t e;
    for (int i = 0; i < ns_ledger_capacity (l); i++)
        if (ns_ledger_entry (l, i, &e) == 1
            && memcmp (&e.owner, owner, sizeof (*owner)) != 0)
            n++;
    return n;
}

/* Place under the ledger file's lock. */
static int place_shared (struct work *w, const struct ns_pin_req *r,
                         uint64_t topo_id, struct ns_pin_plan *p,
                         ns_error_t *err)
{
    int rc = -1;
    size_t len;
    ns_ledger_t *l = NULL;
    ns_ledger_file_t *f = ns_ledger_file_open (r->ledger, r->ledger_capacity,
                                               err);
    if (!f)
        return -1;
    if (ns_ledger_file_lock (f, r->lock_timeout_ms, NULL, err) < 0)
        goto done;
    void *region = ns_ledger_file_region (f, &len);
    if (!(l = ns_ledger_attach (region, len, topo_id, &p->reset, err)))
        goto unlock;
    /* Not only after a holder died (EOWNERDEAD): a broken record (a
     * stray write, a writer of another version) is dropped, and counted
     * for the log, whenever a step plans.  A scan of a few thousand
     * records. */
    p->repaired = ns_ledger_repair (l);
    p->reclaimed = ns_ledger_reclaim (l, ns_ledger_file_alive, NULL);
    rc = ns_ledger_place (l, w->tree, &r->owner, w->tasks, r->ntasks,
                          r->sigma, w->places, err);
    p->occupied = others (l, &r->owner);
unlock:
    ns_ledger_detach (l);
    ns_ledger_file_unlock (f);
done:
    ns_ledger_file_close (f);
    return rc;
}

/* Place with a private ledger: the same decisions, nobody else's ranks. */
static int place_private (struct work *w, const struct ns_pin_req *r,
                          ns_error_t *err)
{
    size_t len = ns_ledger_size (r->ntasks);
    if (!(w->scratch = calloc (1, len)))
        return ns_error_set (err, ENOMEM, "out of memory");
    ns_ledger_t *l = ns_ledger_attach (w->scratch, len,
                                       NS_LEDGER_ANY_TOPOLOGY, NULL, err);
    if (!l)
        return -1;
    int rc = ns_ledger_place (l, w->tree, &r->owner, w->tasks, r->ntasks,
                              r->sigma, w->places, err);
    ns_ledger_detach (l);
    return rc;
}

static int fill_plan (struct work *w, struct ns_pin_plan *p, int n,
                      ns_error_t *err)
{
    if (!(p->task = calloc ((size_t)n, sizeof (*p->task))))
        return ns_error_set (err, ENOMEM, "out of memory");
    p->ntasks = n;
    for (int i = 0; i < n; i++) {
        struct ns_pin_task *t = &p->task[i];
        const ns_ctplace_t *pl = &w->places[i];
        t->task = w->tasks[i].task;
        t->origin = w->tasks[i].origin;
        t->level = pl->level;
        t->cache = pl->cache;
        t->core = pl->core;
        if (!(t->cpus = hwloc_bitmap_dup (pl->cpus)))
            return ns_error_set (err, ENOMEM, "out of memory");
        hwloc_bitmap_list_snprintf (t->cpulist, sizeof (t->cpulist),
                                    t->cpus);
        ns_cachetree_explain (w->tree, pl->task, t->why, sizeof (t->why));
    }
    return 0;
}

struct ns_pin_plan *ns_pin_plan_create (const struct ns_pin_req *req,
                                        ns_error_t *err)
{
    struct work w = { 0 };
    struct ns_pin_plan *p = NULL;
    if (check_req (req, err) < 0)
        return NULL;
    if (!(w.topo = ns_pin_topology_load (req->topology, req->topology_cache,
                                         err))
        || translate (&w, req->cores, err) < 0)
        goto error;
    int tpc = threads_per_core (w.topo, w.cores[0]);
    if (!(w.tree = ns_cachetree_from_topology (w.topo, w.cpus, err))
        || make_tasks (&w, req, tpc, err) < 0)
        goto error;
    uint64_t topo_id = ns_ledger_topology_id (w.topo);
    if (!(p = calloc (1, sizeof (*p)))) {
        ns_error_set (err, ENOMEM, "out of memory");
        goto error;
    }
    p->threads_per_core = tpc;
    p->footprint = w.tasks[0].footprint;
    if ((req->ledger ? place_shared (&w, req, topo_id, p, err)
                     : place_private (&w, req, err)) < 0
        || fill_plan (&w, p, req->ntasks, err) < 0)
        goto error;
    work_free (&w);
    return p;
error:
    ns_pin_plan_destroy (p);
    work_free (&w);
    return NULL;
}

int ns_pin_forget (const char *ledger, int lock_timeout_ms,
                   const ns_ledger_owner_t *owner, int task, ns_error_t *err)
{
    size_t len;
    int n = -1;
    ns_ledger_file_t *f = ns_ledger_file_open (ledger, 0, err);
    if (!f)
        return -1;
    if (ns_ledger_file_lock (f, lock_timeout_ms, NULL, err) == 0) {
        void *region = ns_ledger_file_region (f, &len);
        ns_ledger_t *l = ns_ledger_attach (region, len,
                                           NS_LEDGER_ANY_TOPOLOGY, NULL, err);
        if (l) {
            n = ns_ledger_remove (l, owner, task);
            ns_ledger_detach (l);
        }
        ns_ledger_file_unlock (f);
    }
    ns_ledger_file_close (f);
    return n;
}

int ns_pin_bind (hwloc_const_bitmap_t cpus, ns_error_t *err)
{
    int last = hwloc_bitmap_last (cpus);
    if (last < 0 || hwloc_bitmap_weight (cpus) < 1)
        return ns_error_set (err, EINVAL, "no CPU to bind to");
    cpu_set_t *set = CPU_ALLOC (last + 1);
    size_t size = CPU_ALLOC_SIZE (last + 1);
    if (!set)
        return ns_error_set (err, ENOMEM, "out of memory");
    CPU_ZERO_S (size, set);
    int c;
    hwloc_bitmap_foreach_begin (c, cpus)
        CPU_SET_S (c, size, set);
    hwloc_bitmap_foreach_end ();
    int rc = sched_setaffinity (0, size, set);
    int saved = errno;
    CPU_FREE (set);
    if (rc < 0)
        return ns_error_set (err, saved, "sched_setaffinity: %s",
                             strerror (saved));
    return 0;
}

/*
 * The plugin's arguments and option values
 */

static const char *mode_names[] = { "auto", "none", "verbose" };

int ns_pin_parse_mode (const char *s, enum ns_pin_mode *m)
{
    for (int i = 0; i < 3; i++)
        if (s && strcmp (s, mode_names[i]) == 0) {
            *m = (enum ns_pin_mode)i;
            return 0;
        }
    return -1;
}

int ns_pin_program_ok (const char *s)
{
    size_t n = s ? strlen (s) : 0;
    if (n < 1 || n > 127)
        return 0;
    return strspn (s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                      "0123456789._+-") == n;
}

/* A GPU binding: "verbose", "verbose,closest", "closest" -> the part that
 * binds ("" when none), at most n characters from s. */
static void gpu_bind_value (const char *s, size_t n, char *buf, size_t len)
{
    if (n >= 8 && strncmp (s, "verbose", 7) == 0 && s[7] == ',') {
        s += 8;
        n -= 8;
    } else if (n == 7 && strncmp (s, "verbose", 7) == 0) {
        n = 0;
    }
    snprintf (buf, len, "%.*s", (int)(n < 1024 ? n : 1024), s);
}

/* The GPU entry of a --tres-bind value, "gres/gpu:closest+gres/nic:..."
 * (gres/ is optional): its binding, or "" when it has none. */
static void tres_gpu_bind (const char *tres, char *buf, size_t len)
{
    buf[0] = '\0';
    for (const char *t = tres; t && *t;) {
        size_t n = strcspn (t, "+");
        const char *g = t;
        if (n > 5 && strncmp (g, "gres/", 5) == 0)
            g += 5;
        if ((size_t)(g - t) + 4 <= n && strncmp (g, "gpu:", 4) == 0) {
            gpu_bind_value (g + 4, n - (size_t)(g - t) - 4, buf, len);
            return;
        }
        t += n + (t[n] == '+');
    }
}

int ns_pin_user_binding (const char *cpu_type, const char *cpu_list,
                         const char *tres_bind, const char *gpu_bind,
                         char *what, size_t len)
{
    char gpu[256];
    size_t n;
    if (len > 0)
        what[0] = '\0';
    if (cpu_type && *cpu_type) {
        /* "map_cpu:" and the like are followed by SLURM_CPU_BIND_LIST. */
        n = strlen (cpu_type);
        snprintf (what, len, "--cpu-bind=%s%s", cpu_type,
                  cpu_type[n - 1] == ':' && cpu_list ? cpu_list : "");
        return 1;
    }
    tres_gpu_bind (tres_bind, gpu, sizeof (gpu));
    if (!gpu[0] && gpu_bind)
        gpu_bind_value (gpu_bind, strlen (gpu_bind), gpu, sizeof (gpu));
    if (gpu[0]) {
        snprintf (what, len, "--gpu-bind=%s", gpu);
        return 1;
    }
    return 0;
}

static int set_path (char *dst, size_t len, const char *v)
{
    return snprintf (dst, len, "%s", v) < (int)len ? 0 : -1;
}

static int parse_one (struct ns_pin_args *site, const char *arg)
{
    const char *eq = strchr (arg, '=');
    const char *v = eq ? eq + 1 : "";
    size_t k = eq ? (size_t)(eq - arg) : strlen (arg);
    char *end;
#define KEY(name) (k == strlen (name) && strncmp (arg, name, k) == 0)
    if (KEY ("footprint")) {
        site->have_footprint = 1;
        return ns_parse_size (v, &site->footprint);
    }
    if (KEY ("mode"))
        return ns_pin_parse_mode (v, &site->mode);
    if (KEY ("dryrun")) {
        if (!eq || strcmp (v, "1") == 0 || strcmp (v, "yes") == 0)
            site->dryrun = 1;
        else if (strcmp (v, "0") == 0 || strcmp (v, "no") == 0)
            site->dryrun = 0;
        else
            return -1;
        return 0;
    }
    if (KEY ("sigma")) {
        errno = 0;
        site->sigma = strtod (v, &end);
        site->have_sigma = 1;
        return errno || end == v || *end || !ns_sigma_ok (site->sigma) ? -1
                                                                       : 0;
    }
    if (KEY ("timeout")) {
        long ms = strtol (v, &end, 10);
        site->timeout_ms = (int)ms;
        return end == v || *end || ms < 1 || ms > 600000 ? -1 : 0;
    }
    if (KEY ("capacity")) {
        long n = strtol (v, &end, 10);
        site->capacity = (int)n;
        return end == v || *end || n < 1 || n > NS_LEDGER_MAX_CAPACITY
               ? -1 : 0;
    }
    if (KEY ("topology"))
        return *v ? set_path (site->topology, sizeof (site->topology), v)
                  : -1;
    if (KEY ("ledger"))
        return set_path (site->ledger, sizeof (site->ledger), v);
    if (KEY ("topocache"))
        return set_path (site->topocache, sizeof (site->topocache), v);
    if (KEY ("report"))
        return set_path (site->report, sizeof (site->report), v);
    if (KEY ("config"))
        return set_path (site->config, sizeof (site->config), v);
#undef KEY
    return -1;
}

void ns_pin_parse_args (struct ns_pin_args *a, int ac, char **av)
{
    *a = (struct ns_pin_args){ .mode = NS_PIN_AUTO, .timeout_ms = 2000 };
    strcpy (a->topology, "live");
    strcpy (a->topocache, "/run/nodeshare/%n.topology.xml");
    strcpy (a->ledger, "/run/nodeshare/%n.ledger");
    for (int i = 0; i < ac; i++)
        if (parse_one (a, av[i]) < 0) {
            a->bad = 1;
            snprintf (a->badmsg, sizeof (a->badmsg), "bad plugin "
                      "argument '%s' in plugstack.conf (see "
                      "nodeshare-spank(8))", av[i]);
            return;
        }
}
