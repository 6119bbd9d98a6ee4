/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hwlocxml.h - refuse XML that hwloc 2.9 crashes on, before it reads it
 *
 * hwloc 2.9's own XML parser (topology-xml-nolibxml.c, the one the SPANK
 * plugin uses: it keeps libxml2 out) crashes on malformed text, e.g. the
 * 21 bytes '<topologyversion="2.0', and its XML import dereferences a
 * missing complete_cpuset (fixed upstream, open-mpi/hwloc#783).  This
 * module is a small non-validating scanner that lets through only what is
 * well-formed the way hwloc's exports are.  ns_cachetree_topology()
 * (cachetree.h) checks every XML file with it.
 */
#ifndef NODESHARE_HWLOCXML_H
#define NODESHARE_HWLOCXML_H

#include <stddef.h>
#include <stdio.h>

#include "nserror.h"

/* Check xml[0..len): well-formed the way hwloc's exports are (one
 * <topology> root, double-quoted values, closing tags that match, at most
 * 256 levels deep), and every <object> with a cpuset (nodeset) has a
 * complete_cpuset (complete_nodeset) and the other way round.  Attributes
 * must read the same for hwloc's own parser, which silently stops reading
 * a tag at the first one it cannot read (names of a-z and '_', no spaces
 * around '=', only the entities hwloc writes, no '>' in a value; none
 * twice, at most 64 in a tag).  name is for the message (NULL: "(XML)").
 * 0, or -1 with errno EINVAL and "NAME: not an hwloc XML topology: WHAT
 * (line L, byte N)" or "NAME: object N has cpuset without
 * complete_cpuset: ..." in err. */
int ns_hwlocxml_check (const char *xml, size_t len, const char *name,
                       ns_error_t *err);

/* Read f to its end (at most 64 MiB: an XML export of a thousand cores is
 * a few) and check the text with ns_hwlocxml_check(), name being the
 * file's name for messages.  0, or -1 with errno EINVAL (as
 * ns_hwlocxml_check()), EFBIG (over 64 MiB), EIO or ENOMEM.  Does not
 * close f. */
int ns_hwlocxml_check_file (FILE *f, const char *name, ns_error_t *err);

#endif /* !NODESHARE_HWLOCXML_H */
