/*
 * The planner heuristic (Wernsing & Stitt 2010, section III): sample a
 * random work metric inside the interval of interest, update the sample
 * matrix and the best chain, move the interval to the chain's end, until
 * the chain spans the range.  Measuring is a callback, so the planner runs
 * on adapters through a worker process (worker.h) or on a plain function
 * in tests.
 */
#ifndef SIBYL_PLANNER_PLANNER_H
#define SIBYL_PLANNER_PLANNER_H

#include "model/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sibyl_plan_params {
	uint64_t lo, hi;          /* range of interest, inclusive */
	double segment_error;     /* 0.10 */
	double sample_error;      /* 0.10 */
	double growth;            /* interval growth factor, 0.10 */
	double confidence;        /* 0.95 */
	double time_floor;        /* clock resolution allowance, seconds (0) */
	double fit_error;         /* thirds' means vs the line (matrix.h), 0.02 */
	bool relative_fit;        /* weights 1 / y^2 (matrix.h), true; false = the paper */
	uint64_t seed;
	size_t max_samples;       /* safety stop, 0 = none */
	double max_seconds;       /* safety stop, 0 = none */
	bool no_diagnosis;        /* sample on where no line fits (diagnose.h): tests */
};

void sibyl_plan_defaults(struct sibyl_plan_params *p);
/* Check the parameters; -1 with a reason in err, naming a parameter by
 * the option that sets it (docs/plan.md) and a threshold in percent:
 * "--growth: 0 is not a percentage between 0 and 100".  sibyl_plan_run
 * checks them too. */
int sibyl_plan_check(const struct sibyl_plan_params *p, char *err, size_t errlen);

/* Measure one sample: 0 and seconds; SIBYL_MEASURE_UNGUARDED and seconds
 * when the measurement is known to be unreliable (the speed guard waited
 * its budget in vain, so the runs were timed while the machine ran slow);
 * SIBYL_MEASURE_PREEMPTED and seconds when the sample is kept but the
 * worker was pre-empted while taking it (the machine may have disturbed
 * it); or -1 with a one-line reason. */
#define SIBYL_MEASURE_UNGUARDED 1
#define SIBYL_MEASURE_PREEMPTED 2
typedef int (*sibyl_measure_fn)(void *ctx, uint64_t metric, double *seconds, char *err,
				size_t errlen);
/* Progress after each sample: samples so far and how far the chain reaches. */
typedef void (*sibyl_progress_fn)(void *ctx, size_t samples, double chain_end);

enum sibyl_plan_status {
	SIBYL_PLAN_DONE,          /* the chain spans the range */
	SIBYL_PLAN_LIMIT,         /* a safety stop; the profile covers part */
	SIBYL_PLAN_FAILED,        /* a sample failed; the profile covers part */
	SIBYL_PLAN_DIAGNOSED,     /* no line can fit the samples (diagnose.h): stopped */
};

struct sibyl_plan_result {
	enum sibyl_plan_status status;
	char message[512];        /* why it stopped early */
	size_t samples, unique;
	size_t skipped;           /* unguarded samples left out (planner.c) */
	double seconds;           /* wall time of the whole planner */
	double chain_end;         /* how far the profile reaches (lo - 1: nowhere) */
	/* Points, segments and samples: without points when no chain was
	 * found, NULL when nothing was measured.  The caller names it and adds
	 * provenance. */
	struct sibyl_profile *profile;
	enum sibyl_verdict_kind { SIBYL_STOP_NONE, SIBYL_STOP_METRIC, SIBYL_STOP_SCATTER } verdict;
	size_t verified;          /* samples taken again to verify a jump (diagnose.h) */
	/* Every sample kept, in the order taken (for plots and tests). */
	struct sibyl_point *taken;
	/* A replay's first calls at each metric, apart (first_calls.h):
	 * stats.one_time.first_calls, or NULL. */
	struct json_t *first_calls;
};

/* Plan: 0 when the chain spans the range; -1 with r->status and
 * r->message otherwise (SIBYL_PLAN_FAILED, nothing measured, for
 * parameters sibyl_plan_check refuses). */
int sibyl_plan_run(const struct sibyl_plan_params *p, sibyl_measure_fn measure,
		   void *ctx, sibyl_progress_fn progress, void *pctx,
		   struct sibyl_plan_result *r);
void sibyl_plan_result_free(struct sibyl_plan_result *r);

/* splitmix64: the planner's and the evaluation's random stream. */
uint64_t sibyl_random(uint64_t *state);
/* Uniform integer in [a, b]. */
uint64_t sibyl_random_between(uint64_t *state, uint64_t a, uint64_t b);

#endif
