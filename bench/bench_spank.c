/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_spank - what the SPANK plugin costs per task
 *
 * Runs the plugin's own per-step path (spank/pin.c, the code slurmstepd
 * runs in init_post_opt, task_init, task_exit and exit) without Slurm:
 * load the topology, translate the step's cores, build the tree, open and
 * lock the ledger file, reclaim, feed 64 records of 16 other live steps,
 * place and record the ranks, explain them; bind; then drop the task's
 * record at task exit and the step's at step exit.  The ledger lives in
 * /dev/shm as in production.
 *
 *   spank_task_overhead_ms        a one-task step on this machine's live
 *                                 topology: all of the above for one rank
 *                                 (the worst case: nothing is shared), the
 *                                 topology read from the plugin's cache
 *   spank_task_overhead_ms_nocache the same, discovering the machine (the
 *                                 first step on a node after a boot)
 *   spank_task_overhead_ms_24     per task of a 24-task step on a 24-core
 *                                 synthetic node (the dry-run nodes)
 *
 * Prints "name value unit" lines; best of 5 rounds of 200 steps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "ledgerfile.h"
#include "pin.h"

#define NODE24 "pack:2 l3:2(size=16MiB) l2:6(size=1MiB) l1d:1(size=32KiB) " \
               "core:1 pu:1"

static void die (const char *what, const ns_error_t *err)
{
    fprintf (stderr, "bench_spank: %s: %s\n", what, err->text);
    exit (1);
}

/* 16 other steps of this (live) process with 4 records each. */
static void fill_others (const char *ledger, const char *topo)
{
    ns_error_t err;
    for (uint32_t s = 0; s < 16; s++) {
        struct ns_pin_req r = {
            .topology = topo, .cores = "0", .ntasks = 4,
            .footprint = 64 << 10, .sigma = 1.0, .ledger = ledger,
            .lock_timeout_ms = 2000,
            .owner = { .jobid = 1000 + s, .pid = getpid (),
                       .pid_start = ns_ledger_file_pid_start (getpid ()) },
        };
        struct ns_pin_plan *p = ns_pin_plan_create (&r, &err);
        if (!p)
            die ("filling the ledger", &err);
        ns_pin_plan_destroy (p);
    }
}

/* One step of ntasks, from planning to the step's exit; ms per task. */
static double one_step (const struct ns_pin_req *req, int bind)
{
    ns_error_t err;
    double t0 = bench_seconds (CLOCK_MONOTONIC) * 1e3;
    struct ns_pin_plan *p = ns_pin_plan_create (req, &err);
    if (!p)
        die ("plan", &err);
    for (int i = 0; i < p->ntasks; i++) {
        if (bind && ns_pin_bind (p->task[i].cpus, &err) < 0)
            die ("bind", &err);
        if (ns_pin_forget (req->ledger, 2000, &req->owner, i, &err) < 0)
            die ("task exit", &err);
    }
    if (ns_pin_forget (req->ledger, 2000, &req->owner, -1, &err) < 0)
        die ("step exit", &err);
    ns_pin_plan_destroy (p);
    return (bench_seconds (CLOCK_MONOTONIC) * 1e3 - t0) / req->ntasks;
}

static double best_of (struct ns_pin_req *req, int bind)
{
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        double sum = 0;
        for (int i = 0; i < 200; i++) {
            req->owner.stepid = (uint32_t)(round * 1000 + i);
            sum += one_step (req, bind);
        }
        if (sum / 200 < best)
            best = sum / 200;
    }
    return best;
}

int main (void)
{
    char dir[] = "/dev/shm/ns-bench.XXXXXX", ledger[64], ledger24[64];
    char cache[64];
    cpu_set_t saved;
    if (access ("/dev/shm", W_OK) != 0)
        memcpy (dir, "/tmp", 4);
    if (!mkdtemp (dir)) {
        perror ("bench_spank: mkdtemp");
        return 1;
    }
    snprintf (ledger, sizeof (ledger), "%s/live.ledger", dir);
    snprintf (ledger24, sizeof (ledger24), "%s/node24.ledger", dir);
    snprintf (cache, sizeof (cache), "%s/topology.xml", dir);
    sched_getaffinity (0, sizeof (saved), &saved);

    fill_others (ledger, "live");
    struct ns_pin_req req = {
        .topology = "live", .cores = "0", .ntasks = 1, .cpus_per_task = 1,
        .footprint = 2 << 20, .sigma = 1.0, .ledger = ledger,
        .lock_timeout_ms = 2000,
        .owner = { .jobid = 1, .pid = getpid (),
                   .pid_start = ns_ledger_file_pid_start (getpid ()) },
    };
    req.topology_cache = cache;
    printf ("spank_task_overhead_ms %.3f ms\n", best_of (&req, 1));
    req.topology_cache = NULL;
    printf ("spank_task_overhead_ms_nocache %.3f ms\n", best_of (&req, 1));

    fill_others (ledger24, NODE24);
    req.topology = NODE24;
    req.cores = "0-23";
    req.ntasks = 24;
    req.ledger = ledger24;
    printf ("spank_task_overhead_ms_24 %.3f ms\n", best_of (&req, 0));

    sched_setaffinity (0, sizeof (saved), &saved);
    unlink (cache);
    unlink (ledger);
    unlink (ledger24);
    rmdir (dir);
    return 0;
}
