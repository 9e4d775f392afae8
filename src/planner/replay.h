/*
 * A plan that replays a program's calls (`plan run --from-trace T
 * --function F --replay`): the worker runs the traced calls' work
 * metrics in the order the program made them, each timed once, so each
 * sample meets the cache and heap state its predecessors left, as the
 * program's call did.  A planner that samples one size at a time (the
 * guided plan, guided.h) measures a small call after copies of itself:
 * zlib's 258-byte compress2 took 7.2 µs so, 14.2 µs after calls of the
 * program's mix, 18.3 µs in the program (docs/plan.md, "The calling
 * context").  The profile is the same format as any other: points
 * joined by lines, here through groups of neighbouring samples.
 */
#ifndef SIBYL_PLANNER_REPLAY_H
#define SIBYL_PLANNER_REPLAY_H

#include "planner/call_mix.h"
#include "planner/guided.h"
#include "planner/planner.h"

#include <stdbool.h>
#include <stddef.h>

/* A stretch of the traced calls replayed: mix->seq[first .. first+len);
 * with lead, its first call is run for its context only (its time is
 * dropped: what ran before it in the worker is not what the program ran). */
struct sibyl_replay_span {
	size_t first, len;
	bool lead;
};

struct sibyl_replay_plan {
	struct sibyl_replay_span *v;   /* in traced order, disjoint */
	size_t n;
	unsigned passes;               /* as often as the calls fit the budget, 5 at most */
	size_t runs;                   /* measurements, all passes */
};

/*
 * Which calls to replay within `budget` measurements (0: no bound): all
 * of them, in as many passes as fit (five at most); else up to eight
 * windows spread evenly over the calls (a program's phases in proportion), each led in
 * by the call before it, and the calls at the smallest and largest work
 * metric with the call before each, when no window holds them (so the
 * profile spans the calls and nothing is extrapolated).
 */
void sibyl_replay_pick(const struct sibyl_call_mix *mix, size_t budget,
		       struct sibyl_replay_plan *plan);
void sibyl_replay_plan_free(struct sibyl_replay_plan *plan);
/* Whether the plan times a call at `metric` (one not a lead-in). */
bool sibyl_replay_plan_times(const struct sibyl_replay_plan *plan,
			     const struct sibyl_call_mix *mix, uint64_t metric);

/* Measure n work metrics in this order, back to back: seconds[i] is
 * metrics[i]'s.  0, or -1 with a one-line reason
 * (sibyl_worker_measure_seq_cb, worker.h). */
typedef int (*sibyl_measure_seq_fn)(void *ctx, const uint64_t *metrics, size_t n,
				    double *seconds, char *err, size_t errlen);

/*
 * Measure the picked calls in traced order, a span at a time, one run
 * each with nothing between them but their setups and teardowns
 * (sibyl_worker_measure_seq: anything run between two calls changes the
 * state the second meets).  The
 * samples, sorted by work metric, are grouped (never splitting a metric;
 * the smallest and the largest metric alone) and each group is a point:
 * the median metric and the mean of the middle half of the times.
 * p->max_seconds stops after a pass.  The result is as
 * sibyl_plan_guided's; its coverage has a `replay` object.  0, or -1
 * with r->message.
 */
int sibyl_plan_replay(const struct sibyl_plan_params *p, const struct sibyl_call_mix *mix,
		      sibyl_measure_seq_fn measure, void *ctx, sibyl_guided_progress_fn progress,
		      void *pctx, struct sibyl_plan_result *r);

#endif
