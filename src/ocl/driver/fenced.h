/*
 * Host memory between inaccessible address space (64 MiB each side),
 * its end touching it. With --fence (and --check) the runner's buffers
 * live there (CL_MEM_USE_HOST_PTR), so on CPU devices a kernel reading
 * or writing past a buffer (or before it, past its page) faults at once —
 * reported as a crash with its seed and the buffer's name — instead of
 * silently reading or corrupting the runner's heap, where glibc's malloc
 * aborts later, if at all ("corrupted double-linked list").
 */
#ifndef SIBYL_OCL_FENCED_H
#define SIBYL_OCL_FENCED_H

#include <stddef.h>

/* The name of the counters' fence (-i, the --check probes): no kernel
 * argument has it. */
#define SIBYL_FENCE_COUNTERS "(counters)"

/* `size` bytes starting at a multiple of `align` (a power of two), at
 * most align-1 bytes before the fence, which a fault there names as
 * `name`'s (see sibyl_fenced_watch). NULL on failure. Never freed: the
 * runner exits after its samples. */
void *sibyl_fenced_alloc(size_t size, size_t align, const char *name);

/* From now on a fault on a fence writes {"event": "fence", "arg": NAME,
 * "where": "after" or "before"} to fd (core/helper.h's report line) before the process dies of
 * it as it would have. */
void sibyl_fenced_watch(int fd);

#endif
