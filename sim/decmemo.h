/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decmemo.h - the simulator's memo of failed decisions
 *
 * Within one cluster state a failed placement decision is not repeated:
 * neither for the same job nor for another the policy cannot tell apart.
 * What is remembered, each stamped with the version of the state it holds
 * for (the engine's release version: bumped by every end, as a start never
 * makes a failed decision possible; or its cluster version, bumped by
 * every start and end):
 *
 *  - per request as the policy sees it (task count, and the program when
 *    it matters), the release version at which it failed, and the cluster
 *    version at which it could be placed only on the reserved nodes;
 *  - the shapes (width, slot) that failed for lack of capacity: a request
 *    needing at least as much fails too;
 *  - under a monotone policy (a request of n tasks fails, or fits only on
 *    the reserved nodes, so does any larger one) the least task count that
 *    failed, and the least that fitted only on a reservation's nodes.
 *
 * The caller embeds an ns_decmemo_t, sets it up with ns_decmemo_init ()
 * and frees it with ns_decmemo_free ().
 */
#ifndef NODESHARE_DECMEMO_H
#define NODESHARE_DECMEMO_H

#include <stdint.h>

#define NS_DECMEMO_SLOTS 512    /* hashed records (a power of 2) */
#define NS_DECMEMO_SHORTS 16

/* One request's record; UINT64_MAX: nothing known. */
typedef struct {
    uint64_t key;           /* tasks << 32 | (program + 2, if it matters) */
    uint64_t version;       /* failed at this release version */
    uint64_t touch_version; /* placeable, but only on the reserved nodes,
                               at this cluster version */
} ns_decmemo_rec_t;

typedef struct {
    ns_decmemo_rec_t failed[NS_DECMEMO_SLOTS];
    ns_decmemo_rec_t *fast; /* policies blind to the program: a record per
                               task count, indexed directly (no eviction) */
    int nfast;
    int program_matters;    /* the key holds the program */
    struct { int width, slot; } shorts[NS_DECMEMO_SHORTS];
    int nshorts;
    uint64_t short_version;
    int fmin;               /* least task count that failed at
                               fmin_version */
    uint64_t fmin_version;
    int tmin;               /* least task count that fitted only on the
                               nodes of reservation tmin_resv */
    int tmin_resv;
} ns_decmemo_t;

/* An empty memo; program_matters: decisions depend on the program. */
void ns_decmemo_init (ns_decmemo_t *m, int program_matters);

/* Records by task count for requests of up to total tasks (at most
 * 65,535), for a policy blind to the program (program_matters is then
 * cleared).  0, or -1 out of memory (m unchanged). */
int ns_decmemo_fast (ns_decmemo_t *m, int64_t total);

void ns_decmemo_free (ns_decmemo_t *m);

/* The record of a request of ntasks tasks of program `program` (read only
 * when the program matters).  A hashed slot holding another request is
 * taken over, its record lost. */
static inline ns_decmemo_rec_t *ns_decmemo_lookup (ns_decmemo_t *m,
                                                   int ntasks, int program)
{
    if (ntasks < m->nfast)
        return &m->fast[ntasks];
    uint64_t key = (uint64_t)ntasks << 32;
    if (m->program_matters)
        key |= (uint32_t)(program + 2);
    uint64_t h = key * 0x9e3779b97f4a7c15ULL;
    ns_decmemo_rec_t *f = &m->failed[h >> 55];  /* 512 slots */
    if (f->key != key)
        *f = (ns_decmemo_rec_t){ key, UINT64_MAX, UINT64_MAX };
    return f;
}

/* A shape of width nodes of slot cores each failed for lack of capacity
 * at release version v. */
void ns_decmemo_short (ns_decmemo_t *m, int width, int slot, uint64_t v);

/* Does a capacity failure at release version v imply that a shape of
 * width nodes of slot cores fails too? */
int ns_decmemo_short_covers (const ns_decmemo_t *m, int width, int slot,
                             uint64_t v);

/* Was any capacity failure recorded at release version v? */
static inline int ns_decmemo_has_shorts (const ns_decmemo_t *m, uint64_t v)
{
    return m->short_version == v && m->nshorts > 0;
}

/* A request of nt tasks failed at release version v. */
static inline void ns_decmemo_failed (ns_decmemo_t *m, int nt, uint64_t v)
{
    if (m->fmin_version != v || nt < m->fmin) {
        m->fmin_version = v;
        m->fmin = nt;
    }
}

/* A request of nt tasks fits only on the nodes of reservation resv. */
static inline void ns_decmemo_touched (ns_decmemo_t *m, int nt, int resv)
{
    if (m->tmin_resv != resv || nt < m->tmin) {
        m->tmin_resv = resv;
        m->tmin = nt;
    }
}

#endif
