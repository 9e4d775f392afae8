/*
 * `sibyl kernel --check`: what a kernel's run says about the kernel
 * itself, cldrive's checks on the real device (docs/kernel.md).
 *
 * The runner (run.c) runs each sample twice on the same arguments and
 * adds to its "sample" message an object "check" of digests (arrays
 * have one entry per argument, null for those that are not a writable
 * buffer):
 *   "input":  the digest of every argument's value and contents;
 *   "before": each writable buffer's digest as generated;
 *   "after":  the same after the run;
 *   "again":  the same after the second run, on the same arguments.
 * sibyl compares them (sibyl_check_findings): a kernel that writes no
 * buffer, whose output is the same for two different inputs, or whose
 * two runs on one input differ.
 *
 * Barriers: PoCL assumes every work-item of a group reaches the same
 * barriers (it runs the group's work-items region by region, between
 * barriers), so on the device a divergent barrier crashes the kernel or
 * is silently made uniform.  --check therefore runs a probe first: -i's
 * copy with the barriers removed but counted, counters in per-item rows
 * (run_cfg.barriers), so each work-item runs its own way; the guard
 * adds a sample's "barriers" finding when the work-items of a group
 * reached different numbers of barriers (sibyl_check_barriers, from
 * sibyl_instrumented_barriers).
 *
 * __local memory: a second probe (check_probe.h) runs a copy that logs
 * every __local access and barrier of the first work-groups
 * (sibyl_instrument_races), barriers kept; the guard turns each sample's
 * log into its "races" findings (sibyl_check_races): a data race, two
 * work-items of a group touching one __local byte between the same two
 * barriers, one writing; a read of __local memory nothing wrote.  The
 * same copy logs the __global accesses: a race of two work-items of a
 * group between two barriers with a global fence, or of two groups.
 */
#ifndef SIBYL_OCL_CHECK_H
#define SIBYL_OCL_CHECK_H

#include "ocl/driver/args.h"
#include "ocl/driver/kernel_info.h"
#include "ocl/driver/run.h"

#include <jansson.h>

/* Samples --check needs at least: two inputs to compare. */
#define SIBYL_CHECK_SAMPLES 2

/* The digest of every writable buffer of `a` (null for the others). */
json_t *sibyl_check_digests(const struct sibyl_kernel *k, const struct sibyl_args *a);

/* The digest of all of `a`: what the kernel was given. */
json_t *sibyl_check_input(const struct sibyl_kernel *k, const struct sibyl_args *a);

/* One sample's barrier counts, one per work-item (linear global id),
 * compared within each work-group of cfg's shape: NULL, or the finding
 * {"kind": "barrier-divergence", "message"[, "line"]}, the barrier's
 * line in cfg->file when `where` (may be NULL) knows it.  NULL too when the
 * runtime chose the groups (no -l): they are unknown. */
struct sibyl_barrier_where {
	/* The source line of a barrier work-items a and b reached
	 * differently often (0: unknown). */
	unsigned (*line)(void *ctx, uint64_t a, uint64_t b);
	void *ctx;
};
json_t *sibyl_check_barriers(const struct sibyl_run_cfg *cfg, const uint64_t *counts,
			     size_t rows, const struct sibyl_barrier_where *where);

/* The race probe's findings (instrument.h), a JSON array of
 * {"kind": "data-race", "memory": "local" or "global", "message",
 * "lines": [a, b]} ("groups": [a, b] too for a race across work-groups)
 * and {"kind": "uninitialised-read", "message", "line"} (lines known
 * only); empty when none. */
json_t *sibyl_check_races(const struct sibyl_run_cfg *cfg, const struct sibyl_races *r);

/* The findings of the samples' digests: a JSON array of
 * {"kind", "message"[, "arg"][, "seed"]}, kind one of "no-output",
 * "input-independent", "nondeterministic"; empty when none. */
json_t *sibyl_check_findings(const struct sibyl_kernel *k, json_t *samples);

#endif
