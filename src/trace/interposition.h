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

/* What `sibyl trace` measures, in ns, each the median over a few batches
 * (a few ms in all); NAN when it cannot be measured here. */
struct sibyl_interposition_costs {
	double per_call_ns;	/* the wrapper and the runtime's fast path */
	double counters_ns;	/* more per call with the counters generator */
	double page_fault_ns;	/* the first touch of a fresh 4 KiB page */
};
/* counters: whether the trace's wrappers count (the counters generator);
 * counters_ns is NAN otherwise: measuring it takes some 14,000 system
 * calls that no such trace needs. */
void sibyl_interposition_measure(struct sibyl_interposition_costs *c, bool counters);

/* Keep the kernel's perf hooks on while the command runs, so that the
 * counters its wrappers open do not wait for them (see the .c): an fd
 * to pass to sibyl_perf_hooks_release, or -1 (nothing to hold). */
int sibyl_perf_hooks_hold(void);
void sibyl_perf_hooks_release(int fd);

#endif
