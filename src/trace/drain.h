/*
 * The drainer: `sibyl trace`'s side of ring mode (see the ring format in
 * include/sibyl/trace_format.h and src/rt/ring.c).  It copies every
 * thread's ring into that thread's .events file on a background thread,
 * so the traced program never pays for fresh trace pages.
 */
#ifndef SIBYL_TRACE_DRAIN_H
#define SIBYL_TRACE_DRAIN_H

#include <stddef.h>
#include <stdint.h>

struct sibyl_drain;

/* Write DIR/drain.ctl: runtimes started from now on record into rings
 * of `ring_bytes` (rounded up to 4 KiB).  NULL with the reason in err. */
struct sibyl_drain *sibyl_drain_create(const char *dir, uint64_t ring_bytes, char *err,
				       size_t errlen);

/* Drain on a background thread until sibyl_drain_finish(); -1 with the
 * reason in err. */
int sibyl_drain_start(struct sibyl_drain *d, char *err, size_t errlen);

/*
 * Stop the thread, drain every ring completely (including those of
 * crashed processes), complete the .events files and remove the rings
 * and drain.ctl.  Frees d (NULL: nothing to do).  Returns 0, or -1 if
 * some records could not be written (each ring that failed was an error
 * notice, core/log.h).
 */
int sibyl_drain_finish(struct sibyl_drain *d);

#endif
