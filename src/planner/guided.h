/*
 * A plan guided by where a program calls (call_mix.h): instead of
 * covering a range adaptively, measure the work metrics the program
 * used, chosen by their share of its time and of its calls, and join
 * them into a profile that interpolates between them.  The profile
 * records what it covers ("coverage", docs/profile-format.md): the
 * metrics sampled, the share of the program's time at them and the share
 * left to interpolation, with the error interpolation makes where it can
 * be checked (each sampled metric against the line through its two
 * neighbours).
 */
#ifndef SIBYL_PLANNER_GUIDED_H
#define SIBYL_PLANNER_GUIDED_H

#include "planner/call_mix.h"
#include "planner/evaluate.h"
#include "planner/planner.h"

#include <jansson.h>

/* The sample budget of a guided plan unless --max-samples says. */
#define SIBYL_GUIDED_BUDGET 400

/* Progress after each measurement: done of planned. */
typedef void (*sibyl_guided_progress_fn)(void *ctx, size_t done, size_t planned);

/* Which metrics of the mix to sample, at most `count` (all when the mix
 * has fewer): its first and last (the profile spans the program's
 * range), then by turns the one with the most time not yet chosen and
 * the one nearest the next quantile of the calls.  picked[i] says
 * whether mix->v[i] is chosen; returns how many are. */
size_t sibyl_guided_pick(const struct sibyl_call_mix *mix, size_t count, bool *picked);

/*
 * Measure the chosen metrics twice, in two passes in a seeded random
 * order, and a third time where the two differ by more than
 * p->sample_error; a point is the mean of two agreeing measurements or
 * the median of three.  p->max_samples (0: none) bounds the
 * measurements, about nine tenths of it going to the two passes;
 * p->max_seconds stops after a pass.  The result is as sibyl_plan_run's,
 * with the profile's coverage filled.  0, or -1 with r->message.
 */
int sibyl_plan_guided(const struct sibyl_plan_params *p, const struct sibyl_call_mix *mix,
		      sibyl_measure_fn measure, void *ctx, sibyl_guided_progress_fn progress,
		      void *pctx, struct sibyl_plan_result *r);

/* What a profile covers of the program's calls (docs/profile-format.md):
 * picked[i] says whether mix->v[i] was sampled; noise_pct may be NAN. */
json_t *sibyl_guided_coverage(const struct sibyl_call_mix *mix, const bool *picked,
			      const struct sibyl_profile *prof, double noise_pct);
/* The noise of one measurement from two of each point, in percent:
 * mean |m1 - m2| / mean(m1, m2) / sqrt 2, as an evaluation's noise floor. */
double sibyl_guided_noise(const struct sibyl_eval_point *pts, size_t n);

#endif
