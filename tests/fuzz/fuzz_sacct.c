/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_sacct.c - the sacct --parsable2 reader and the engine on what it
 * reads */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    return fuzz_trace (data, size, NS_TRACE_SACCT);
}
