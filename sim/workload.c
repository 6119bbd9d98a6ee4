/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workload.c - a trace's jobs as simulated jobs (workload.h). */
#include <stdio.h>
#include <string.h>

#include "workload.h"

int ns_workload_program (const ns_identity_t *id, ns_progtab_t *progs,
                         const ns_tjob_t *j)
{
    char name[NS_TJOB_PROGRAM_MAX + 16];
    if (j->program[0])
        snprintf (name, sizeof (name), "%s", j->program);
    else if (j->exe >= 0)
        snprintf (name, sizeof (name), "exe%d", j->exe);
    else if (j->uid >= 0)
        snprintf (name, sizeof (name), "user%d", j->uid);
    else
        return NS_PROGRAM_UNKNOWN;
    const char *mapped = id ? ns_identity_map (id, name) : name;
    int p = ns_progtab_intern (progs, mapped, NULL);
    return p < 0 ? NS_PROGRAM_UNKNOWN : p;
}

void ns_workload_memo_init (ns_workload_memo_t *m)
{
    memset (m, 0, sizeof (*m));
}

int ns_workload_program_memo (ns_workload_memo_t *m,
                              const ns_identity_t *id, ns_progtab_t *progs,
                              const ns_tjob_t *j)
{
    if (j->program[0] || (j->exe < 0 && j->uid < 0))
        return ns_workload_program (id, progs, j);
    int kind = j->exe >= 0 ? 1 : 2, num = j->exe >= 0 ? j->exe : j->uid;
    unsigned h = ((unsigned)num * 2654435761u >> 24) % NS_WORKLOAD_MEMO;
    if (m->slot[h].kind == kind && m->slot[h].num == num)
        return m->slot[h].prog;
    int p = ns_workload_program (id, progs, j);
    if (p >= 0) {
        m->slot[h].kind = kind;
        m->slot[h].num = num;
        m->slot[h].prog = p;
    }
    return p;
}

ns_simjob_t ns_workload_simjob (const ns_tjob_t *j, int program)
{
    return (ns_simjob_t){
        .id = (uint64_t)j->id,
        .submit = (double)j->submit,
        .runtime = (double)j->run,
        .req_time = (double)j->req_time,
        .ntasks = j->procs,
        .program = program,
        .recorded_wait = (double)j->wait,
        .mem_per_cpu = j->mem_per_cpu,
        .mem_per_node = j->mem_per_node,
    };
}

void ns_workload_partition (const ns_tjob_t *j, char *buf, size_t size)
{
    if (!size)
        return;
    snprintf (buf, size, "%s", j->part_name);
    buf[strcspn (buf, ",")] = '\0';
}
