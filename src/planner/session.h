/* Planning one adapter end to end: worker, planner, provenance. */
#ifndef SIBYL_PLANNER_SESSION_H
#define SIBYL_PLANNER_SESSION_H

#include "planner/planner.h"
#include "planner/worker.h"

#include <jansson.h>
#include <stdbool.h>

struct sibyl_plan_request {
	const struct sibyl_adapter *adapter;
	const char *source;        /* "builtin" or the .so path */
	struct sibyl_adapter_config config;
	struct sibyl_plan_params params;
	struct sibyl_sampling sampling;
	/* Builds samples of invocation parameters for evaluation; NULL when
	 * the adapter cannot (planner/params.h). */
	sibyl_setup_params_fn setup_params;
	bool progress;             /* a progress line on stderr */
};

/*
 * Start a worker, run the planner, name the profile and attach its
 * provenance (machine, adapter, parameters) and statistics.  Returns 0
 * when the profile spans the range; -1 otherwise, with r->message (and
 * r->profile when part of the range was covered).  With keep, the worker
 * stays running for evaluation when there is a profile and the worker
 * did not fail (else *keep is NULL).
 */
int sibyl_plan_adapter(const struct sibyl_plan_request *rq, struct sibyl_plan_result *r,
		       struct sibyl_worker **keep);

/* The speed guard's statistics over a worker's samples so far (a JSON
 * object: samples, dropped_runs, dropped_inside_runs, unguarded_samples,
 * reference_first_ns, reference_best_ns, best_raised). */
json_t *sibyl_speed_guard_json(const struct sibyl_worker *w);

#endif
