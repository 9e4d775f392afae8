/* Which global sizes to profile a kernel at, by its own time. */
#include "kmodel/sizes.h"

#include <math.h>
#include <string.h>

/* The sizes whose times make the launch reference. */
#define LAUNCH_SIZES 3
/* A profile's host time, in timings of its top size (over_budget). */
#define PROFILE_HOST 7
/* The child processes a profile runs: counted, then timed (dataset.c). */
#define PROFILE_CHILDREN 2

const char *sibyl_kmodel_stop_name(enum sibyl_kmodel_stop s)
{
	static const char *const names[] = { "time", "budget", "cap", "failed" };

	return names[s];
}

/* Whether timing twice the last size, then profiling there, could pass
 * the budget: the work at most quadruples (n-body, rank sort), so does
 * the timing's device time; the profile costs SIBYL_KMODEL_PROFILE_COST
 * times its top size's time on the device.  On the host a timing costs
 * a fixed part (a child process, its OpenCL context: the least wall
 * time of a timing so far, 0.13 s here when quiet and up to 2.3 s at
 * load 7) and a part that grows with the size (the arguments: saxpy's
 * profile of 2M..16M work-items took 31 s, 6 times its timing at 16M).
 * The next timing costs the fixed part and up to 4 times the growing
 * one; the profile, two children (counted and timed) and about 7
 * timings' growing part at twice the size.  Counting the fixed part
 * 18 times, as the growing one, stopped every walk at 3 sizes (64..256
 * work-items, all launch) at load 7. */
static int over_budget(const struct sibyl_kmodel_size_rule *r, const struct sibyl_kmodel_sizes *s,
		       double last_cost)
{
	double next = 4 * s->t[s->n - 1];
	double fixed = fmin(s->least_cost_s, last_cost), grows = last_cost - fixed;
	/* Each size's launches: the samples, a warm-up and the counted run;
	 * SIBYL_KMODEL_PROFILE_COST is for 3 samples. */
	double launches = (r->samples ? r->samples : 3) + 2;

	return r->budget_s > 0 &&
	       s->spent_s + (1 + PROFILE_CHILDREN) * fixed + (4 + 2 * PROFILE_HOST) * grows +
	       SIBYL_KMODEL_PROFILE_COST * launches / 5 * next > r->budget_s;
}

/* Why the walk stops after its last size, or -1 to go on. */
static int stop_after(const struct sibyl_kmodel_size_rule *r, const struct sibyl_kmodel_sizes *s,
		      double last_cost)
{
	uint64_t g = s->g[s->n - 1];

	if (s->t[s->n - 1] >= r->factor * s->launch_s && g >= 8 * s->g[0])
		return SIBYL_STOP_TIME;
	/* Three sizes at least, for OCLBoi's cross validation: the first
	 * ones are cheap (mostly launch). */
	if (s->n >= 3 && over_budget(r, s, last_cost))
		return SIBYL_STOP_BUDGET;
	if (s->n == SIBYL_KMODEL_WALK_MAX || g > UINT64_MAX / 2 || (r->cap && 2 * g > r->cap))
		return SIBYL_STOP_CAP;
	return -1;
}

/* The profile under the top size T: T/8..T by T/8 (the walk's sizes
 * are start x 2^i, so T/8 is one of them when 4 or more were timed),
 * else the first size timed..T by it. */
static void profile_of(struct sibyl_kmodel_sizes *s)
{
	uint64_t top = s->g[s->n - 1];

	s->to = top;
	s->from = s->step = s->n >= 4 ? top / 8 : s->g[0];
}

int sibyl_kmodel_sizes_choose(const struct sibyl_kmodel_size_rule *r, sibyl_kmodel_timer *time,
			      void *ctx, struct sibyl_kmodel_sizes *s)
{
	uint64_t want = r->start ? r->start : 1;
	int why = -1;

	memset(s, 0, sizeof(*s));
	s->factor = r->factor;
	s->budget_s = r->budget_s;
	while (why < 0) {
		uint64_t got = 0;
		double cost = 0, t = time(ctx, want, &got, &cost);

		s->spent_s += cost;
		s->least_cost_s = s->n ? fmin(s->least_cost_s, cost) : cost;
		/* A dataset has no size at or above want, or the next it
		 * has is past the cap. */
		if (!got || (r->cap && got > r->cap)) {
			why = SIBYL_STOP_CAP;
			break;
		}
		if (isnan(t)) {
			why = SIBYL_STOP_FAILED;
			break;
		}
		s->g[s->n] = got;
		s->t[s->n++] = t;
		/* The first sizes are mostly launch, whose least time here
		 * jumps between 3 and 35 us from one size to the next: the
		 * largest of the first 3 is the launch as this kernel sees
		 * it, when the device model says less. */
		if (s->n <= LAUNCH_SIZES)
			s->launch_s = fmax(s->n == 1 ? r->launch_s : s->launch_s, t);
		why = stop_after(r, s, cost);
		want = 2 * got;
	}
	s->stop = (enum sibyl_kmodel_stop)why;
	if (!s->n)
		return -1;
	profile_of(s);
	return 0;
}
