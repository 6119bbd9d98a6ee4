/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gres.h - what a node's Gres= string says, as nodeshare needs it
 *
 * The select plugin (a node's configured or registered GRES) and the
 * simulator (slurm.conf's NodeName ... Gres=) both ask one question: does
 * the node have generic resources that a job without GRES should leave
 * alone (nodeshare.json "stripe_gres_nodes")?
 */
#ifndef NODESHARE_GRES_H
#define NODESHARE_GRES_H

/* 1 when GRES (Slurm's Gres= syntax: comma-separated
 * NAME[:TYPE][:COUNT][(S:SOCKETS)], e.g. "gpu:a100:4(S:0-1),nic") names
 * at least one resource with a count above 0 or no count ("nic"); 0 for
 * NULL, "", "(null)" and counts of 0 only ("gpu:0").  Any length. */
int ns_gres_any (const char *gres);

#endif /* !NODESHARE_GRES_H */
