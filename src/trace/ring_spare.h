/*
 * The spare ring (SIBYL_RING_SPARE in include/sibyl/trace_format.h): the
 * drainer keeps one ring file with its pages provided in the ring
 * directory, so that the next thread to start recording takes it instead
 * of paying for a first lap of fresh pages (~3 ms for 4 MiB on this VM).
 */
#ifndef SIBYL_TRACE_RING_SPARE_H
#define SIBYL_TRACE_RING_SPARE_H

#include <stdint.h>
#include <sys/types.h>

/* Make the spare of `bytes` (the whole ring file) with mode `mode` in
 * ring_dir, unless there is one.  Best effort: without one (a full
 * /dev/shm), threads create their rings themselves. */
void sibyl_ring_spare_keep(const char *ring_dir, uint64_t bytes, mode_t mode);

/* Remove the spare (the command has ended). */
void sibyl_ring_spare_drop(const char *ring_dir);

#endif
