/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_swf.c - the SWF reader (detected, or forced by the second byte)
 * and the engine on what it reads */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    return fuzz_trace (data, size, size > 1 && (data[1] & 1)
                                   ? NS_TRACE_SWF : NS_TRACE_AUTO);
}
