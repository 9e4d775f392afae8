/*
 * Host memory whose end touches an inaccessible page. With --fence the
 * runner's buffers live there (CL_MEM_USE_HOST_PTR), so on CPU devices
 * a kernel reading or writing past a buffer faults at once — reported as
 * a crash with its seed — instead of silently reading or corrupting the
 * runner's heap.
 */
#ifndef SIBYL_OCL_FENCED_H
#define SIBYL_OCL_FENCED_H

#include <stddef.h>

/* `size` bytes starting at a multiple of `align` (a power of two), at
 * most align-1 bytes before the fence page. NULL on failure. Never
 * freed: the runner exits after its samples. */
void *sibyl_fenced_alloc(size_t size, size_t align);

#endif
