/*
 * A work metric's first call in a process, apart from its warm calls.
 * A program that keeps state per size pays its making on the first call
 * at that size: FFTW's first fftw_execute of a plan faults its output
 * in and meets its twiddles cold (3-15% of a spectrum program's traced
 * time in 19 such calls of 3000), which a profile of warm calls leaves
 * out and a point that mixes it in puts on every call.  A replay
 * (replay.h) runs each metric's first call in its worker as the program
 * ran its own, after other sizes: those runs are noted here, and when
 * they cost more than their metric's other runs (the median one by more
 * than --sample-error), they leave the points and are recorded apart
 * (stats.one_time.first_calls, docs/profile-format.md), which `sibyl
 * predict` and `plan evaluate --from-trace` charge once per metric a
 * process meets.  When they do not (zlib, SHA-256: each call starts
 * afresh), they stay samples like the others.  A trace-guided plan
 * (guided.h) samples metric by metric: its worker runs each metric's
 * first sample once more before its runs, and that run is the first
 * call (sibyl_first_runs_guided).
 */
#ifndef SIBYL_PLANNER_FIRST_CALLS_H
#define SIBYL_PLANNER_FIRST_CALLS_H

#include "model/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_t;

/* Work metrics in the order a worker met them. */
struct sibyl_metrics_met {
	uint64_t *v;
	size_t n, cap;
};

/* Whether `metric` was met before; it has now. */
bool sibyl_metrics_met_add(struct sibyl_metrics_met *m, uint64_t metric);

struct sibyl_first_run {
	uint64_t metric;
	double seconds;
	size_t sample;		/* its index among the samples; SIZE_MAX: a lead-in's */
	double warm;		/* its metric's other runs, timed alike (median) */
};

struct sibyl_first_runs {
	struct sibyl_first_run *v;
	size_t n, cap;
	struct sibyl_metrics_met met;	/* metrics the worker ran */
	struct sibyl_lost_run {
		size_t sample;	/* a sample that was a first run and lost the CPU */
		uint64_t metric;
	} *lost;
	size_t nlost;
};

/* Whether the worker ran `metric` before; it has now. */
bool sibyl_first_runs_met(struct sibyl_first_runs *f, uint64_t metric);
/* A run at `metric` of `seconds`, sample `sample` (SIZE_MAX: not a
 * sample), noted when it is the worker's first at that metric. */
void sibyl_first_runs_note(struct sibyl_first_runs *f, uint64_t metric, double seconds,
			   size_t sample);
/* A run at `metric`, sample `sample` (SIZE_MAX: not a sample), that was
 * the worker's first there and lost its CPU (involuntary context
 * switches, worker_protocol.h): one run's luck, not a first call, and
 * not a sample when its metric has others (sibyl_first_runs_split), as
 * a guided plan never makes its first run a sample. */
void sibyl_first_runs_lost(struct sibyl_first_runs *f, uint64_t metric, size_t sample);
/* Whether the worker's first run at `metric` went apart from its
 * samples (a kept first call, or lost), after sibyl_first_runs_split. */
bool sibyl_first_runs_apart(const struct sibyl_first_runs *f, uint64_t metric);
/* Keep the first runs that are first calls (above), and take their
 * samples out of s[0..*n): those whose metric has other samples, when
 * the median of them exceeds the median of its metric's other samples
 * by more than `threshold` (a fraction).  Otherwise none.  The lost runs'
 * samples leave too, but a metric's only one.  How many kept. */
size_t sibyl_first_runs_split(struct sibyl_first_runs *f, struct sibyl_point *s, size_t *n,
			      double threshold);
/* stats.one_time.first_calls of the kept runs: each metric's first call
 * beside its other runs there, timed alike (sibyl_profile_first_call_at
 * applies their ratio to the profile's time), and how they were
 * measured; NULL with none. */
struct json_t *sibyl_first_runs_json(const struct sibyl_first_runs *f, const char *measured);
/* The same for a plan that samples metric by metric (a guided plan,
 * guided.h): the worker ran each metric's first sample once more before
 * its runs (sampling.first_calls, worker.h); others[0..nothers) are the
 * times its first runs are weighed against: the samples' unguarded
 * rounds under the speed guard (a first run is timed as it comes, the
 * samples at the machine's best), else the samples. */
struct json_t *sibyl_first_runs_guided(const uint64_t *metrics, const double *seconds, size_t n,
				       const struct sibyl_point *others, size_t nothers,
				       double threshold);
void sibyl_first_runs_free(struct sibyl_first_runs *f);

#endif
