/*
 * Where a program calls: the work metrics one function was called at,
 * each with its share of the function's time, read from a trace (`sibyl
 * trace`) or from a list of work metrics.  A trace-guided plan
 * (guided.h) samples these instead of a whole range: the prediction of
 * that program then needs no extrapolation, and for an implementation
 * whose time is a staircase in its metric (FFTW's prime sizes) it is the
 * only honest profile.
 */
#ifndef SIBYL_PLANNER_CALL_MIX_H
#define SIBYL_PLANNER_CALL_MIX_H

#include <stddef.h>
#include <stdint.h>

/* One distinct work metric. */
struct sibyl_mix_entry {
	uint64_t metric;
	size_t calls;
	double seconds;            /* the calls' traced time, or the list's weight */
};

struct sibyl_call_mix {
	struct sibyl_mix_entry *v; /* ascending metric, no repeats */
	size_t n;
	size_t calls;              /* all of them */
	double seconds;            /* their time (weights) added */
	const char *kind;          /* "trace" or "list" */
	size_t left_out;           /* calls outside the range planned (clipped) */
	/* The calls one by one in the order the program made them (a trace's
	 * threads one after another; calls=1 each), for a plan that replays
	 * them (replay.h); NULL for a list. */
	struct sibyl_mix_entry *seq;
	size_t nseq;
};

/*
 * The calls of `function` in the trace directory `dir`, at their work in
 * `metric` (the adapter's work metric: the trace must have recorded it,
 * sibyl_work_source_of).  A call's time is its traced duration (what
 * the wrapper adds lies outside it).  0, or -1 with
 * one line in err (no such function, no call, a metric mismatch, a
 * work that is not a non-negative integer work metric).
 */
int sibyl_call_mix_trace(const char *dir, const char *function, const char *metric,
			 struct sibyl_call_mix *mix, char *err, size_t errlen);
/*
 * A list of work metrics, one a line: `METRIC [WEIGHT]` (WEIGHT, the
 * share of time, defaults to 1; `#` starts a comment; the same metric
 * twice adds up).  0, or -1 with "FILE:LINE: why" in err.
 */
int sibyl_call_mix_list(const char *path, struct sibyl_call_mix *mix, char *err,
			size_t errlen);
/* Keep the metrics within [lo, hi]; returns how many calls went. */
size_t sibyl_call_mix_clip(struct sibyl_call_mix *mix, uint64_t lo, uint64_t hi);
void sibyl_call_mix_free(struct sibyl_call_mix *mix);

#endif
