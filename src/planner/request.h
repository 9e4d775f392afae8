/*
 * What to plan and how: the adapter, its configuration, the planner's
 * parameters and how each sample is measured, with their defaults and
 * the checks every caller's request goes through (the command line,
 * benchmarks and tests alike).
 */
#ifndef SIBYL_PLANNER_REQUEST_H
#define SIBYL_PLANNER_REQUEST_H

#include "planner/params.h"
#include "planner/planner.h"
#include "planner/worker.h"

#include <sibyl/adapter.h>

#include <stdbool.h>
#include <stddef.h>

#define SIBYL_MAX_THREADS 4096

struct sibyl_plan_request {
	const struct sibyl_adapter *adapter;
	const char *source;        /* "builtin" or the .so path */
	/* config.seed is the adapter's own random inputs: the same as
	 * params.seed (sibyl_plan_request_init sets both). */
	struct sibyl_adapter_config config;
	struct sibyl_plan_params params;
	struct sibyl_sampling sampling;
	bool progress;             /* a progress line on stderr (a terminal only) */
	/* Plan where a program calls (guided.h) instead of over the range,
	 * or NULL; with max_samples_default, params.max_samples is the
	 * guided plan's budget. */
	const struct sibyl_call_mix *mix;
	/* Replay mix's calls in traced order (replay.h) rather than sample
	 * its metrics apart; sampling is then one run a sample. */
	bool replay;
	bool max_samples_default;  /* --max-samples not given */
};

/* The defaults (docs/plan.md): the adapter's range, one thread, seed 1,
 * sibyl_plan_defaults and sibyl_sampling_defaults, a time floor of four
 * ticks of the planner's clock. */
void sibyl_plan_request_init(struct sibyl_plan_request *rq, const struct sibyl_adapter *a,
			     const char *source);
/* 0, or -1 with "what: why" in err: the planner's parameters
 * (sibyl_plan_check), the sampling, the threads the adapter can take. */
int sibyl_plan_request_check(const struct sibyl_plan_request *rq, char *err, size_t errlen);

/* The settings as docs/plan.md documents them and the command line gives
 * them: thresholds in percent, the sample time in milliseconds, the range
 * as text, counts signed (a negative one is refused, not wrapped). */
struct sibyl_plan_settings {
	const char *range;          /* "LO:HI"; NULL: the adapter's */
	const char *fit;            /* "relative" or "ols" */
	const char *device, *platform;  /* NULL: none */
	long threads, seed, max_samples, repeat, rounds;  /* max_samples LONG_MIN: the default */
	double segment_error, sample_error, growth, confidence, fit_error;  /* percent */
	double timeout, max_seconds, speed_guard;                          /* seconds */
	double sample_ms, guard_tolerance;                                 /* ms, percent */
};

/* The request's defaults, in these units. */
void sibyl_plan_settings_defaults(struct sibyl_plan_settings *set);
/* Set a request made by sibyl_plan_request_init from the settings and
 * check it: 0, or -1 with "--OPTION: why" in err. */
int sibyl_plan_request_apply(struct sibyl_plan_request *rq,
			     const struct sibyl_plan_settings *set, char *err, size_t errlen);

/* Three runs in three rounds, 1 ms a round at least, 10 s a run, the
 * speed guard waiting up to 2 s a sample at its default tolerance. */
void sibyl_sampling_defaults(struct sibyl_sampling *sp);
int sibyl_sampling_check(const struct sibyl_sampling *sp, char *err, size_t errlen);

#endif
