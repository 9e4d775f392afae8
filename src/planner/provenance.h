/* What a planned profile records of its planning: the machine, adapter
 * and parameters (provenance), and the planner's figures (stats). */
#ifndef SIBYL_PLANNER_PROVENANCE_H
#define SIBYL_PLANNER_PROVENANCE_H

#include "planner/planner.h"
#include "planner/request.h"
#include "planner/worker.h"

#include <jansson.h>

/* Name r->profile after the adapter and attach its provenance and stats
 * (docs/profile-format.md), with what worker w saw. */
void sibyl_plan_record(const struct sibyl_plan_request *rq, struct sibyl_plan_result *r,
		       const struct sibyl_worker *w);

/* The speed guard's statistics over a worker's samples so far (a JSON
 * object: samples, dropped_runs, dropped_inside_runs, unguarded_samples,
 * reference_first_ns, reference_best_ns, best_raised, preempted, steal_pct,
 * guard_seconds, guard_vain_seconds, dropped_starved_runs). */
json_t *sibyl_speed_guard_json(const struct sibyl_worker *w);

#endif
