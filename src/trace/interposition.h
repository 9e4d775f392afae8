/*
 * What one intercepted call costs the traced program: the wrapper that
 * `sibyl wrap --gen time,trace` generates and the runtime's fast path
 * (include/sibyl/wrap_rt.h), beyond the call itself.  `sibyl trace`
 * measures it once the command has ended and records it in meta.json
 * ("interposition"), so that `sibyl predict` can tell the program's time
 * from the time tracing added (docs/predict.md, "Interposition"), and
 * what a page fault costs, which a call pays whatever implementation
 * runs it (docs/predict.md, "Page faults").
 */
#ifndef SIBYL_TRACE_INTERPOSITION_H
#define SIBYL_TRACE_INTERPOSITION_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* What `sibyl trace` measures, in ns, each the median over a few batches
 * (a few ms in all); NAN when it cannot be measured here. */
struct sibyl_interposition_costs {
	double per_call_ns;	/* the wrapper and the runtime's fast path */
	double counters_ns;	/* more per call with the counters generator */
	double page_fault_ns;	/* the first touch of a fresh 4 KiB page */
	double startup_ns;	/* a process's start and exit, traced (startup.c) */
	char startup_why[160];	/* why startup_ns is NAN */
};
/* counters: whether the trace's wrappers count (the counters generator);
 * counters_ns is NAN otherwise: measuring it takes some 14,000 system
 * calls that no such trace needs. */
void sibyl_interposition_measure(struct sibyl_interposition_costs *c, bool counters);

/* What a process's start and exit cost it traced, beyond untraced: a
 * do-nothing program started with the variables in `set` (and without
 * those in `unset`) and, when ring_bytes is not 0, a drainer of rings of
 * that size in `dir`, against started plainly; the fastest of a few runs
 * of each, NAN with why saying what failed when the probe does not run
 * as it should.  `dir`, which SIBYL_TRACE_DIR in
 * `set` must name, is a scratch directory that exists: the probe's
 * records are not the command's.  Once *stop is set (a signal), no
 * further probe starts, and the result is NAN. */
double sibyl_interposition_startup_ns(const char *const *set, const char *const *unset,
				      const char *dir, uint64_t ring_bytes,
				      const volatile sig_atomic_t *stop, char *why,
				      size_t whylen);

/* Keep the kernel's perf hooks on while the command runs, so that the
 * counters its wrappers open do not wait for them (see the .c): an fd
 * to pass to sibyl_perf_hooks_release, or -1 (nothing to hold). */
int sibyl_perf_hooks_hold(void);
void sibyl_perf_hooks_release(int fd);

#endif
